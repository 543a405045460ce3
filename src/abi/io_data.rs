//! MPI-IO data access calls: reads and writes at explicit offsets, with
//! the individual and the shared file pointer, ordered, collective, split
//! collective and nonblocking. The user's buffer becomes a
//! `mpi::coll_args::UserBuf`; the semantics and timing are in
//! `crate::io::access`.
use crate::abi::buffers::{out, put_status};
use crate::abi::io::file_call;
use crate::io::Pos;
use crate::mpi::coll_args::{Block, UserBuf};
use crate::mpi::error::MpiResult;
use crate::mpi::World;
use crate::sys::{MPI_Datatype, MPI_File, MPI_Offset, MPI_Request, MPI_Status};
use std::os::raw::{c_int, c_void};

/// A user buffer of a file access: element blocks start at the datatype's
/// true lower bound from the buffer's address (a null address is
/// MPI_BOTTOM: the type holds absolute addresses).
struct IoBuf {
    base: *mut u8,
}

impl IoBuf {
    /// # Safety
    /// For as long as it is used, every block packed from it is readable
    /// and every block unpacked into it writable and not otherwise accessed
    /// (MPI's contract for the buffer of a file access).
    unsafe fn new(p: *const c_void) -> IoBuf {
        IoBuf { base: p as *mut u8 }
    }
    fn at(&self, b: &Block) -> *mut u8 {
        self.base.wrapping_offset(b.off + b.ty.mem_start(b.count))
    }
}

impl UserBuf for IoBuf {
    fn pack(&self, blocks: &[Block]) -> Vec<u8> {
        let mut out = Vec::new();
        for b in blocks {
            let span = b.ty.span(b.count);
            if span == 0 {
                continue;
            }
            // SAFETY: the block's elements span `span` readable bytes from
            // its first byte (the constructor's contract).
            let mem = unsafe { std::slice::from_raw_parts(self.at(b), span) };
            out.extend_from_slice(&b.ty.pack(mem, b.count));
        }
        out
    }

    fn unpack(&mut self, blocks: &[Block], data: &[u8]) {
        let mut at = 0;
        for b in blocks {
            let n = b.bytes().min(data.len() - at);
            let span = b.ty.span(b.count);
            if span > 0 && n > 0 {
                // SAFETY: the block's elements span `span` writable bytes
                // that nothing else accesses now (the constructor's contract).
                let mem = unsafe { std::slice::from_raw_parts_mut(self.at(b), span) };
                b.ty.unpack(&data[at..at + n], mem, b.count);
            }
            at += n;
        }
    }
}

/// A blocking access: the status goes to `status`.
///
/// # Safety
/// `buf` holds (or has room for) `count` elements of `datatype`; `status`
/// is MPI_STATUS_IGNORE or valid for a write.
#[allow(clippy::too_many_arguments)]
unsafe fn access(
    name: &str,
    fh: MPI_File,
    pos: Pos,
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    status: *mut MPI_Status,
    write: bool,
    collective: bool,
) -> c_int {
    file_call(name, fh, |w| {
        w.file_no_split(fh)?;
        let st = run(w, fh, pos, buf, count, datatype, write, collective)?;
        // SAFETY: the caller's status pointer.
        unsafe { put_status(status, &st) };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
fn run(
    w: &mut World,
    fh: MPI_File,
    pos: Pos,
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    write: bool,
    collective: bool,
) -> MpiResult<MPI_Status> {
    // SAFETY: MPI's contract for the buffer of a file access (caller).
    let mut b = unsafe { IoBuf::new(buf) };
    if write {
        w.file_write(fh, pos, &b, count, datatype, collective)
    } else {
        w.file_read(fh, pos, &mut b, count, datatype, collective)
    }
}

/// A nonblocking access: the request goes to `request`.
///
/// # Safety
/// As [`access`]; `request` is null or valid for a write.
#[allow(clippy::too_many_arguments)]
unsafe fn iaccess(
    name: &str,
    fh: MPI_File,
    pos: Pos,
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    request: *mut MPI_Request,
    write: bool,
    collective: bool,
) -> c_int {
    file_call(name, fh, |w| {
        w.file_no_split(fh)?;
        // SAFETY: null or valid (contract).
        let o = unsafe { out(request, "request") }?;
        let r = if collective {
            let st = run(w, fh, pos, buf, count, datatype, write, true)?;
            w.io_done_request(fh, st)?
        } else {
            // SAFETY: MPI's contract for the buffer of a file access.
            let mut b = unsafe { IoBuf::new(buf) };
            if write {
                w.file_iwrite(fh, pos, &b, count, datatype)?
            } else {
                w.file_iread(fh, pos, &mut b, count, datatype)?
            }
        };
        *o = r;
        Ok(())
    })
}

/// A split collective's `_begin`.
///
/// # Safety
/// As [`access`].
unsafe fn begin(
    name: &'static str,
    fh: MPI_File,
    pos: Pos,
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    write: bool,
) -> c_int {
    file_call(name, fh, |w| {
        w.file_no_split(fh)?;
        let st = run(w, fh, pos, buf, count, datatype, write, true);
        w.file_split_begin(fh, name, st)
    })
}

/// A split collective's `_end`.
///
/// # Safety
/// `status` is MPI_STATUS_IGNORE or valid for a write.
unsafe fn end(name: &str, begin: &'static str, fh: MPI_File, status: *mut MPI_Status) -> c_int {
    file_call(name, fh, |w| {
        let st = w.file_split_end(fh, begin)?;
        // SAFETY: the caller's status pointer.
        unsafe { put_status(status, &st) };
        Ok(())
    })
}

macro_rules! blocking {
    ($($name:ident / $pname:ident ($($off:ident)?) $buf:ty, $pos:expr, $write:expr, $coll:expr;)*) => {$(
        mpi_fn! {
            fn $name / $pname(fh: MPI_File, $($off: MPI_Offset,)? buf: $buf, count: c_int, datatype: MPI_Datatype, status: *mut MPI_Status) -> c_int {
                // SAFETY: the caller's arguments, as MPI specifies them.
                unsafe { access(stringify!($name), fh, $pos($($off)?), buf as *const c_void, count, datatype, status, $write, $coll) }
            }
        }
    )*};
}

macro_rules! nonblocking {
    ($($name:ident / $pname:ident ($($off:ident)?) $buf:ty, $pos:expr, $write:expr, $coll:expr;)*) => {$(
        mpi_fn! {
            fn $name / $pname(fh: MPI_File, $($off: MPI_Offset,)? buf: $buf, count: c_int, datatype: MPI_Datatype, request: *mut MPI_Request) -> c_int {
                // SAFETY: the caller's arguments, as MPI specifies them.
                unsafe { iaccess(stringify!($name), fh, $pos($($off)?), buf as *const c_void, count, datatype, request, $write, $coll) }
            }
        }
    )*};
}

macro_rules! split {
    ($($name:ident / $pname:ident ($($off:ident)?) $buf:ty, $pos:expr, $write:expr, $ename:ident / $epname:ident;)*) => {$(
        mpi_fn! {
            fn $name / $pname(fh: MPI_File, $($off: MPI_Offset,)? buf: $buf, count: c_int, datatype: MPI_Datatype) -> c_int {
                // SAFETY: the caller's arguments, as MPI specifies them.
                unsafe { begin(stringify!($name), fh, $pos($($off)?), buf as *const c_void, count, datatype, $write) }
            }
        }
        mpi_fn! {
            fn $ename / $epname(fh: MPI_File, buf: $buf, status: *mut MPI_Status) -> c_int {
                let _ = buf;
                // SAFETY: the caller's status pointer.
                unsafe { end(stringify!($ename), stringify!($name), fh, status) }
            }
        }
    )*};
}

fn at(o: MPI_Offset) -> Pos {
    Pos::At(o)
}
fn ind() -> Pos {
    Pos::Individual
}
fn shared() -> Pos {
    Pos::Shared
}
fn ordered() -> Pos {
    Pos::Ordered
}

blocking! {
    MPI_File_read_at / PMPI_File_read_at(offset) *mut c_void, at, false, false;
    MPI_File_read_at_all / PMPI_File_read_at_all(offset) *mut c_void, at, false, true;
    MPI_File_write_at / PMPI_File_write_at(offset) *const c_void, at, true, false;
    MPI_File_write_at_all / PMPI_File_write_at_all(offset) *const c_void, at, true, true;
    MPI_File_read / PMPI_File_read() *mut c_void, ind, false, false;
    MPI_File_read_all / PMPI_File_read_all() *mut c_void, ind, false, true;
    MPI_File_write / PMPI_File_write() *const c_void, ind, true, false;
    MPI_File_write_all / PMPI_File_write_all() *const c_void, ind, true, true;
    MPI_File_read_shared / PMPI_File_read_shared() *mut c_void, shared, false, false;
    MPI_File_write_shared / PMPI_File_write_shared() *const c_void, shared, true, false;
    MPI_File_read_ordered / PMPI_File_read_ordered() *mut c_void, ordered, false, true;
    MPI_File_write_ordered / PMPI_File_write_ordered() *const c_void, ordered, true, true;
}

nonblocking! {
    MPI_File_iread_at / PMPI_File_iread_at(offset) *mut c_void, at, false, false;
    MPI_File_iwrite_at / PMPI_File_iwrite_at(offset) *const c_void, at, true, false;
    MPI_File_iread_at_all / PMPI_File_iread_at_all(offset) *mut c_void, at, false, true;
    MPI_File_iwrite_at_all / PMPI_File_iwrite_at_all(offset) *const c_void, at, true, true;
    MPI_File_iread / PMPI_File_iread() *mut c_void, ind, false, false;
    MPI_File_iwrite / PMPI_File_iwrite() *const c_void, ind, true, false;
    MPI_File_iread_all / PMPI_File_iread_all() *mut c_void, ind, false, true;
    MPI_File_iwrite_all / PMPI_File_iwrite_all() *const c_void, ind, true, true;
    MPI_File_iread_shared / PMPI_File_iread_shared() *mut c_void, shared, false, false;
    MPI_File_iwrite_shared / PMPI_File_iwrite_shared() *const c_void, shared, true, false;
}

split! {
    MPI_File_read_at_all_begin / PMPI_File_read_at_all_begin(offset) *mut c_void, at, false, MPI_File_read_at_all_end / PMPI_File_read_at_all_end;
    MPI_File_write_at_all_begin / PMPI_File_write_at_all_begin(offset) *const c_void, at, true, MPI_File_write_at_all_end / PMPI_File_write_at_all_end;
    MPI_File_read_all_begin / PMPI_File_read_all_begin() *mut c_void, ind, false, MPI_File_read_all_end / PMPI_File_read_all_end;
    MPI_File_write_all_begin / PMPI_File_write_all_begin() *const c_void, ind, true, MPI_File_write_all_end / PMPI_File_write_all_end;
    MPI_File_read_ordered_begin / PMPI_File_read_ordered_begin() *mut c_void, ordered, false, MPI_File_read_ordered_end / PMPI_File_read_ordered_end;
    MPI_File_write_ordered_begin / PMPI_File_write_ordered_begin() *const c_void, ordered, true, MPI_File_write_ordered_end / PMPI_File_write_ordered_end;
}
