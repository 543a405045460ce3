//! Data access: where an access goes (explicit offset, individual or
//! shared file pointer, ordered), the checks MPICH makes, moving the bytes
//! between the user's buffer and the host file through the view
//! (pread/pwrite of each run; "external32" converted on the way), and the
//! virtual time it costs. Independent accesses are local: latency + bytes
//! / bandwidth on the caller's clock. Collective ones go through
//! `two_phase`. Nonblocking ones move the data at the call and complete at
//! the time the access would end; split collectives run at `_begin`.
use super::file::{charge_op, io_error};
use super::view::Datarep;
use crate::mpi::coll_args::{whole, UserBuf};
use crate::mpi::datatype::Datatype;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::external32;
use crate::mpi::request::{Kind, Req, ReqState};
use crate::mpi::status::make_status;
use crate::mpi::World;
use crate::p2p::Status;
use crate::sys::{self, MPI_Datatype, MPI_File, MPI_Request, MPI_Status};
use std::os::unix::fs::FileExt;
use std::sync::Arc;

/// Where an access starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pos {
    /// An explicit offset (etypes), `_at` calls.
    At(i64),
    /// The individual file pointer.
    Individual,
    /// The shared file pointer (independent `_shared` calls).
    Shared,
    /// The shared file pointer in rank order (`_ordered`, collective).
    Ordered,
}

/// A checked access.
struct Plan {
    ty: Arc<Datatype>,
    count: usize,
    /// Packed bytes in memory and bytes in the file.
    native: usize,
    file: usize,
    /// Position of the first etype and etypes accessed.
    start: u64,
    etypes: u64,
    runs: Vec<(u64, u64)>,
    /// The file byte where an empty access would start (two-phase ranges).
    empty_at: u64,
    datarep: Datarep,
    esize: u64,
}

/// ROMIO's checks of a view's etype and filetype (MPI_ERR_IO): no negative
/// displacement or extent, displacements in nondecreasing order, and no
/// overlapping regions when the file is open for writing.
pub fn check_type(ty: &Datatype, write: bool, kind: &str) -> MpiResult<()> {
    if ty.extent() < 0 {
        return fail(
            sys::MPI_ERR_IO,
            format!(
                "the extent of the {kind} must be non-negative (it is {})",
                ty.extent()
            ),
        );
    }
    if ty.true_lb() < 0 {
        return fail(
            sys::MPI_ERR_IO,
            format!("displacements of the {kind} must be non-negative"),
        );
    }
    let mut prev: Option<(usize, usize)> = None;
    for &(off, len) in ty.blocks() {
        if let Some((start, end)) = prev {
            if off < start {
                return fail(
                    sys::MPI_ERR_IO,
                    format!("displacements of the {kind} must be in a monotonically nondecreasing order"),
                );
            }
            if write && off < end {
                return fail(
                    sys::MPI_ERR_IO,
                    format!("the {kind} is not permitted to contain overlapping regions"),
                );
            }
        }
        prev = Some((off, off + len));
    }
    Ok(())
}

/// A status for `bytes` of data.
pub fn io_status(bytes: u64) -> MPI_Status {
    make_status(
        sys::MPI_ANY_SOURCE,
        sys::MPI_ANY_TAG,
        sys::MPI_SUCCESS,
        bytes,
        false,
    )
}

impl World {
    /// Check an access and find where it goes. The shared pointer is moved
    /// here (one operation) for `Pos::Shared`; `Pos::Ordered` passes the
    /// token first (see `shared`).
    fn plan(
        &mut self,
        fh: MPI_File,
        pos: Pos,
        count: i32,
        datatype: MPI_Datatype,
        write: bool,
    ) -> MpiResult<Plan> {
        let f = self.io.get(fh)?;
        if write && f.amode & sys::MPI_MODE_RDONLY != 0 {
            return fail(
                sys::MPI_ERR_READ_ONLY,
                "cannot write to a file opened with MPI_MODE_RDONLY",
            );
        }
        if !write && f.amode & sys::MPI_MODE_WRONLY != 0 {
            return fail(
                sys::MPI_ERR_ACCESS,
                "cannot read from a file opened with MPI_MODE_WRONLY",
            );
        }
        if f.amode & sys::MPI_MODE_SEQUENTIAL != 0 && matches!(pos, Pos::At(_) | Pos::Individual) {
            return fail(
                sys::MPI_ERR_UNSUPPORTED_OPERATION,
                "explicit offsets and individual file pointers cannot be used on a file \
                 opened with MPI_MODE_SEQUENTIAL",
            );
        }
        if count < 0 {
            return fail(
                sys::MPI_ERR_COUNT,
                format!("invalid count {count} (negative)"),
            );
        }
        let count = count as usize;
        let ty = self.types.get(datatype)?;
        let native = ty.packed_size(count);
        let datarep = f.view.datarep;
        let (file, esize) = if datarep == Datarep::External32 {
            (
                external32::external_size(&ty, count)? as usize,
                external32::external_size(&f.view.etype, 1)?,
            )
        } else {
            (native, f.view.esize())
        };
        if esize == 0 || !(file as u64).is_multiple_of(esize) {
            return fail(
                sys::MPI_ERR_IO,
                "only a whole number of etypes can be accessed (the datatype's size is \
                 not a multiple of the etype's)",
            );
        }
        let etypes = file as u64 / esize;
        let start = match pos {
            Pos::At(o) if o < 0 => {
                return fail(sys::MPI_ERR_ARG, format!("invalid offset {o} (negative)"))
            }
            Pos::At(o) => o as u64,
            Pos::Individual => f.fp,
            Pos::Shared => self.shared_fetch_add(fh, etypes)?,
            Pos::Ordered => self.ordered_token(fh, etypes)?,
        };
        let f = self.io.get(fh)?;
        let runs = f.view.runs(start * esize, file as u64);
        let empty_at = f.view.byte_offset(start);
        Ok(Plan {
            ty,
            count,
            native,
            file,
            start,
            etypes,
            runs,
            empty_at,
            datarep,
            esize,
        })
    }

    /// MPI_File_read_ordered / write_ordered: wait for rank - 1's token,
    /// move the shared pointer, pass the token on; my start.
    fn ordered_token(&mut self, fh: MPI_File, etypes: u64) -> MpiResult<u64> {
        let cc = self.io.get(fh)?.cc.clone();
        const TAG: i32 = 0;
        if cc.me > 0 {
            let r = self
                .ep
                .irecv_vec(0, Some(cc.ranks[cc.me - 1]), Some(TAG), cc.ctx);
            self.ep.wait_all(&[r]);
            self.ep.take_vec(r);
        }
        let start = self.shared_fetch_add(fh, etypes)?;
        if cc.me + 1 < cc.size() {
            let s = self
                .ep
                .isend_vec(Vec::new(), cc.ranks[cc.me + 1], TAG, cc.ctx);
            self.ep.wait_all(&[s]);
            self.ep.free(s);
        }
        Ok(start)
    }

    /// pwrite of `data` to `runs` (under the file lock in atomic mode).
    pub(crate) fn write_runs(
        &mut self,
        fh: MPI_File,
        runs: &[(u64, u64)],
        data: &[u8],
    ) -> MpiResult<u64> {
        let f = self.io.get(fh)?;
        if f.atomic {
            f.host
                .lock()
                .map_err(|e| io_error(&e, "cannot lock the file"))?;
        }
        let mut at = 0usize;
        let mut r = Ok(());
        for &(off, len) in runs {
            if let Err(e) = f.host.write_all_at(&data[at..at + len as usize], off) {
                r = Err(io_error(&e, "write failed"));
                break;
            }
            at += len as usize;
        }
        if f.atomic {
            let _ = f.host.unlock();
        }
        r?;
        let n = data.len() as u64;
        let t = self.ep.vtime() + self.ep.model().io.access_time(n);
        self.ep.advance_io(t);
        Ok(n)
    }

    /// pread of `runs` into `out`; stops at the end of the file. Returns
    /// the bytes read.
    pub(crate) fn read_runs(
        &mut self,
        fh: MPI_File,
        runs: &[(u64, u64)],
        out: &mut [u8],
    ) -> MpiResult<usize> {
        let f = self.io.get(fh)?;
        if f.atomic {
            f.host
                .lock_shared()
                .map_err(|e| io_error(&e, "cannot lock the file"))?;
        }
        let mut at = 0usize;
        let mut r = Ok(());
        'runs: for &(off, len) in runs {
            let end = at + len as usize;
            while at < end {
                match f
                    .host
                    .read_at(&mut out[at..end], off + (at + len as usize - end) as u64)
                {
                    Ok(0) => break 'runs,
                    Ok(n) => at += n,
                    Err(e) => {
                        r = Err(io_error(&e, "read failed"));
                        break 'runs;
                    }
                }
            }
        }
        if f.atomic {
            let _ = f.host.unlock();
        }
        r?;
        let t = self.ep.vtime() + self.ep.model().io.access_time(out.len() as u64);
        self.ep.advance_io(t);
        Ok(at)
    }

    /// The user's data in the file's representation.
    fn file_bytes(&self, p: &Plan, buf: &dyn UserBuf) -> MpiResult<Vec<u8>> {
        let data = buf.pack(&whole(p.count, &p.ty));
        if p.datarep == Datarep::External32 {
            return external32::to_external(&p.ty, &data, p.count);
        }
        Ok(data)
    }

    /// Unpack `got` file bytes into the user's buffer; native bytes.
    fn io_deliver(
        &self,
        p: &Plan,
        buf: &mut dyn UserBuf,
        mut data: Vec<u8>,
        got: usize,
    ) -> MpiResult<usize> {
        data.truncate(got);
        if p.datarep == Datarep::External32 {
            let one = external32::external_size(&p.ty, 1)? as usize;
            let whole_elems = got.checked_div(one).unwrap_or(0);
            data.truncate(whole_elems * one);
            data = external32::from_external(&p.ty, &data, whole_elems)?;
        }
        let n = data.len();
        buf.unpack(&whole(p.count, &p.ty), &data);
        Ok(n)
    }

    fn native_of(&self, p: &Plan, file_bytes: usize) -> u64 {
        if p.file == 0 {
            0
        } else {
            (file_bytes as u64 * p.native as u64) / p.file as u64
        }
    }

    /// An independent or collective write: its status.
    pub fn file_write(
        &mut self,
        fh: MPI_File,
        pos: Pos,
        buf: &dyn UserBuf,
        count: i32,
        datatype: MPI_Datatype,
        collective: bool,
    ) -> MpiResult<MPI_Status> {
        let p = self.plan(fh, pos, count, datatype, true)?;
        let data = self.file_bytes(&p, buf)?;
        if collective {
            self.two_phase_write(fh, &p.runs, &data, p.empty_at)?;
        } else {
            self.write_runs(fh, &p.runs, &data)?;
        }
        if pos == Pos::Individual {
            self.io.get_mut(fh)?.fp = p.start + p.etypes;
        }
        Ok(io_status(p.native as u64))
    }

    /// An independent or collective read: its status.
    pub fn file_read(
        &mut self,
        fh: MPI_File,
        pos: Pos,
        buf: &mut dyn UserBuf,
        count: i32,
        datatype: MPI_Datatype,
        collective: bool,
    ) -> MpiResult<MPI_Status> {
        let p = self.plan(fh, pos, count, datatype, false)?;
        let mut data = vec![0u8; p.file];
        let got = if collective {
            self.two_phase_read(fh, &p.runs, &mut data, p.empty_at)?
        } else {
            self.read_runs(fh, &p.runs, &mut data)?
        };
        self.io_deliver(&p, buf, data, got)?;
        if pos == Pos::Individual {
            self.io.get_mut(fh)?.fp = p.start + got as u64 / p.esize;
        }
        Ok(io_status(self.native_of(&p, got)))
    }

    /// A request complete at `at` with `bytes` of data.
    fn io_request(
        &mut self,
        fh: MPI_File,
        at: crate::model::VTime,
        bytes: u64,
    ) -> MpiResult<MPI_Request> {
        let comm = self.io.get(fh)?.comm;
        let group = self.comms.get(comm)?.group.clone();
        let id = self.ep.open_request();
        self.ep.complete_request_with(
            id,
            at,
            Status {
                source: -1,
                tag: 0,
                bytes,
                cancelled: false,
                truncated: false,
            },
        );
        Ok(self.reqs.insert(Req {
            kind: Kind::Send,
            comm,
            group,
            state: ReqState::Active(id),
            keep: None,
            staging: None,
            capacity: 0,
        }))
    }

    /// A complete request with `st` (the nonblocking collectives, which
    /// run in the starting call).
    pub fn io_done_request(&mut self, fh: MPI_File, st: MPI_Status) -> MpiResult<MPI_Request> {
        let comm = self.io.get(fh)?.comm;
        let group = self.comms.get(comm)?.group.clone();
        Ok(self.reqs.insert(Req {
            kind: Kind::Send,
            comm,
            group,
            state: ReqState::Done(st),
            keep: None,
            staging: None,
            capacity: 0,
        }))
    }

    /// MPI_File_iwrite(_at, _shared): the data goes to the file now; the
    /// request completes when the access would have ended on the target
    /// (the caller's clock does not move for it).
    pub fn file_iwrite(
        &mut self,
        fh: MPI_File,
        pos: Pos,
        buf: &dyn UserBuf,
        count: i32,
        datatype: MPI_Datatype,
    ) -> MpiResult<MPI_Request> {
        let p = self.plan(fh, pos, count, datatype, true)?;
        let data = self.file_bytes(&p, buf)?;
        let t0 = self.ep.vtime();
        let f = self.io.get(fh)?;
        let mut at = 0usize;
        for &(off, len) in &p.runs {
            f.host
                .write_all_at(&data[at..at + len as usize], off)
                .map_err(|e| io_error(&e, "write failed"))?;
            at += len as usize;
        }
        if pos == Pos::Individual {
            self.io.get_mut(fh)?.fp = p.start + p.etypes;
        }
        let done = t0 + self.ep.model().io.access_time(p.file as u64);
        self.io_request(fh, done, p.native as u64)
    }

    /// MPI_File_iread(_at, _shared): as `file_iwrite`.
    pub fn file_iread(
        &mut self,
        fh: MPI_File,
        pos: Pos,
        buf: &mut dyn UserBuf,
        count: i32,
        datatype: MPI_Datatype,
    ) -> MpiResult<MPI_Request> {
        let p = self.plan(fh, pos, count, datatype, false)?;
        let t0 = self.ep.vtime();
        let mut data = vec![0u8; p.file];
        let f = self.io.get(fh)?;
        let mut got = 0usize;
        'runs: for &(off, len) in &p.runs {
            let end = got + len as usize;
            let mut o = off;
            while got < end {
                match f.host.read_at(&mut data[got..end], o) {
                    Ok(0) => break 'runs,
                    Ok(n) => {
                        got += n;
                        o += n as u64;
                    }
                    Err(e) => return Err(io_error(&e, "read failed")),
                }
            }
        }
        self.io_deliver(&p, buf, data, got)?;
        if pos == Pos::Individual {
            self.io.get_mut(fh)?.fp = p.start + got as u64 / p.esize;
        }
        let done = t0 + self.ep.model().io.access_time(p.file as u64);
        let n = self.native_of(&p, got);
        self.io_request(fh, done, n)
    }

    /// MPI_File_seek (individual pointer, local).
    pub fn file_seek(&mut self, fh: MPI_File, offset: i64, whence: i32) -> MpiResult<()> {
        let f = self.io.get(fh)?;
        if f.amode & sys::MPI_MODE_SEQUENTIAL != 0 {
            return fail(
                sys::MPI_ERR_UNSUPPORTED_OPERATION,
                "MPI_File_seek cannot be used on a file opened with MPI_MODE_SEQUENTIAL",
            );
        }
        super::shared::check_whence(whence)?;
        let base = match whence {
            sys::MPI_SEEK_SET => 0,
            sys::MPI_SEEK_CUR => f.fp as i64,
            _ => {
                let size = f.host.metadata().map(|m| m.len()).unwrap_or(0);
                let p = f.view.position_of_byte(size) as i64;
                charge_op(self);
                p
            }
        };
        let to = base + offset;
        if to < 0 {
            return fail(
                sys::MPI_ERR_ARG,
                format!("the file pointer would move to {to} (negative)"),
            );
        }
        self.io.get_mut(fh)?.fp = to as u64;
        Ok(())
    }

    /// MPI_File_get_byte_offset.
    pub fn file_byte_offset(&self, fh: MPI_File, offset: i64) -> MpiResult<u64> {
        let f = self.io.get(fh)?;
        if offset < 0 {
            return fail(
                sys::MPI_ERR_ARG,
                format!("invalid offset {offset} (negative)"),
            );
        }
        Ok(f.view.byte_offset(offset as u64))
    }

    /// MPI_File_set_view: collective. The view is checked and installed,
    /// both file pointers go back to 0 (rank 0 resets the shared one: one
    /// operation if it was used), then a barrier.
    pub fn file_set_view(
        &mut self,
        fh: MPI_File,
        disp: i64,
        etype: MPI_Datatype,
        filetype: MPI_Datatype,
        datarep: &str,
        info: &crate::mpi::info::Info,
    ) -> MpiResult<()> {
        let f = self.io.get(fh)?;
        if f.split.is_some() {
            return fail(
                sys::MPI_ERR_OTHER,
                "MPI_File_set_view during a split collective",
            );
        }
        let seq = f.amode & sys::MPI_MODE_SEQUENTIAL != 0;
        if disp < 0 && !(disp == sys::MPI_DISPLACEMENT_CURRENT as i64 && seq) {
            return fail(
                sys::MPI_ERR_ARG,
                format!("invalid displacement {disp} (negative; MPI_DISPLACEMENT_CURRENT only with MPI_MODE_SEQUENTIAL)"),
            );
        }
        let et = self.types.get(etype)?;
        let ft = self.types.get(filetype)?;
        if et.size() == 0 || ft.size() % et.size() != 0 {
            return fail(
                sys::MPI_ERR_TYPE,
                "the filetype must be made of whole etypes (its size is not a multiple of the etype's)",
            );
        }
        let write = f.amode & sys::MPI_MODE_RDONLY == 0;
        check_type(&et, write, "etype")?;
        check_type(&ft, write, "filetype")?;
        let rep = super::view::Datarep::parse(datarep)?;
        let hints = super::hints::Hints::from_info(info, Some(&f.hints))?;
        let cc = f.cc.clone();
        let shfp = f.shfp.clone();
        let disp = if disp == sys::MPI_DISPLACEMENT_CURRENT as i64 {
            // as ROMIO: a barrier, every rank reads the shared pointer (one
            // operation), a barrier (before rank 0 resets it)
            crate::coll::barrier::barrier(&mut super::file::comm(self, &cc));
            let p = super::shared::fetch_add(&shfp, 0)
                .map_err(|e| io_error(&e, "shared file pointer"))?;
            charge_op(self);
            crate::coll::barrier::barrier(&mut super::file::comm(self, &cc));
            self.io.get(fh)?.view.byte_offset(p)
        } else {
            disp as u64
        };
        if cc.me == 0
            && super::shared::reset(&shfp).map_err(|e| io_error(&e, "shared file pointer"))?
        {
            charge_op(self);
        }
        let f = self.io.get_mut(fh)?;
        f.view = super::view::View {
            disp,
            etype: et,
            etype_h: etype,
            filetype: ft,
            filetype_h: filetype,
            datarep: rep,
        };
        f.fp = 0;
        f.hints = hints;
        crate::coll::barrier::barrier(&mut super::file::comm(self, &cc));
        Ok(())
    }

    /// MPI_File_get_type_extent: the extent in the view's representation.
    pub fn file_type_extent(&self, fh: MPI_File, datatype: MPI_Datatype) -> MpiResult<u64> {
        let f = self.io.get(fh)?;
        let ty = self.types.get_any(datatype)?;
        if f.view.datarep == Datarep::External32 && ty.is_contiguous() {
            return external32::external_size(&ty, 1);
        }
        Ok(ty.extent() as u64)
    }

    /// A split collective's `_begin`: runs the collective now, keeps its
    /// status for `_end`.
    pub fn file_split_begin(
        &mut self,
        fh: MPI_File,
        name: &'static str,
        st: MpiResult<MPI_Status>,
    ) -> MpiResult<()> {
        let st = st?;
        self.io.get_mut(fh)?.split = Some((name, st));
        Ok(())
    }

    /// Check that no split collective is in progress on `fh`.
    pub fn file_no_split(&self, fh: MPI_File) -> MpiResult<()> {
        if let Some((name, _)) = self.io.get(fh)?.split {
            return fail(
                sys::MPI_ERR_OTHER,
                format!("{name} has begun a split collective on this file that has not ended"),
            );
        }
        Ok(())
    }

    /// A split collective's `_end`: the status its `_begin` got.
    pub fn file_split_end(&mut self, fh: MPI_File, begin: &'static str) -> MpiResult<MPI_Status> {
        let f = self.io.get_mut(fh)?;
        match f.split {
            Some((name, st)) if name == begin => {
                f.split = None;
                Ok(st)
            }
            _ => fail(
                sys::MPI_ERR_OTHER,
                format!("no {begin} to end on this file"),
            ),
        }
    }
}
