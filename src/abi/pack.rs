//! Packing and addresses: MPI_Pack, MPI_Unpack, MPI_Pack_size,
//! MPI_Get_address (and the MPI-1 MPI_Address), MPI_Aint_add and
//! MPI_Aint_diff. Packing is host work inside the MPI call, not
//! computation.
use crate::abi::buffers::out;
use crate::abi::state::call;
use crate::abi::typed_mem::{elems, elems_mut};
use crate::mpi::datatype::Datatype;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::pack::{pack_args, pack_size, unpack_args};
use crate::sys::{self, MPI_Aint, MPI_Comm, MPI_Datatype};
use std::os::raw::{c_int, c_void};

/// MPI_ERR_BUFFER for a null user buffer that should hold data at
/// displacement 0 (a null buffer is MPI_BOTTOM, fine with absolute
/// addresses).
fn check_user_buffer(null: bool, count: usize, ty: &Datatype, what: &str) -> MpiResult<()> {
    if null && count > 0 && ty.size() > 0 && ty.true_lb() == 0 {
        return fail(
            sys::MPI_ERR_BUFFER,
            format!("null {what} for {count} elements of {}", ty.name()),
        );
    }
    Ok(())
}

/// MPI_ERR_ARG for a null packed buffer that must hold `bytes` bytes.
fn check_packed_buffer(null: bool, bytes: usize, what: &str) -> MpiResult<()> {
    if null && bytes > 0 {
        return fail(sys::MPI_ERR_ARG, format!("null pointer passed as {what}"));
    }
    Ok(())
}

mpi_fn! {
    fn MPI_Pack / PMPI_Pack(inbuf: *const c_void, incount: c_int, datatype: MPI_Datatype, outbuf: *mut c_void, outsize: c_int, position: *mut c_int, comm: MPI_Comm) -> c_int {
        call("MPI_Pack", comm, |w| {
            w.comms.get(comm)?;
            let ty = w.types.get(datatype)?;
            // SAFETY: null or a valid int pointer (caller).
            let pos = unsafe { out(position, "position") }?;
            let a = pack_args(&ty, incount, outsize, *pos)?;
            check_user_buffer(inbuf.is_null(), a.count, &ty, "inbuf")?;
            check_packed_buffer(outbuf.is_null(), a.bytes, "outbuf")?;
            // SAFETY: inbuf holds incount elements of datatype; outbuf has
            // outsize bytes, of which [position, position + bytes) are
            // checked to lie within it (MPI's contract; the two buffers do
            // not overlap).
            let (src, dst) = unsafe {
                (
                    elems(inbuf, &ty, a.count),
                    bytes_mut(outbuf, a.position, a.bytes),
                )
            };
            ty.pack_into(src, a.count, dst);
            *pos = a.new_position();
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Unpack / PMPI_Unpack(inbuf: *const c_void, insize: c_int, position: *mut c_int, outbuf: *mut c_void, outcount: c_int, datatype: MPI_Datatype, comm: MPI_Comm) -> c_int {
        call("MPI_Unpack", comm, |w| {
            w.comms.get(comm)?;
            let ty = w.types.get(datatype)?;
            // SAFETY: null or a valid int pointer (caller).
            let pos = unsafe { out(position, "position") }?;
            let a = unpack_args(&ty, insize, *pos, outcount)?;
            check_packed_buffer(inbuf.is_null(), a.bytes, "inbuf")?;
            check_user_buffer(outbuf.is_null(), a.count, &ty, "outbuf")?;
            // SAFETY: inbuf has insize bytes, of which [position, position +
            // bytes) are checked to lie within it; outbuf has room for
            // outcount elements of datatype (MPI's contract; no overlap).
            let (src, dst) = unsafe {
                (
                    bytes(inbuf, a.position, a.bytes),
                    elems_mut(outbuf, &ty, a.count),
                )
            };
            ty.unpack(src, dst, a.count);
            *pos = a.new_position();
            Ok(())
        })
    }
}

/// `len` bytes at `p + off`.
///
/// # Safety
/// `len == 0` or those bytes are readable for `'a`.
unsafe fn bytes<'a>(p: *const c_void, off: usize, len: usize) -> &'a [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: non-empty: by the contract.
    unsafe { std::slice::from_raw_parts((p as *const u8).add(off), len) }
}

/// `len` writable bytes at `p + off`.
///
/// # Safety
/// `len == 0` or those bytes are writable and unaliased for `'a`.
unsafe fn bytes_mut<'a>(p: *mut c_void, off: usize, len: usize) -> &'a mut [u8] {
    if len == 0 {
        return &mut [];
    }
    // SAFETY: non-empty: by the contract.
    unsafe { std::slice::from_raw_parts_mut((p as *mut u8).add(off), len) }
}

mpi_fn! {
    fn MPI_Pack_size / PMPI_Pack_size(incount: c_int, datatype: MPI_Datatype, comm: MPI_Comm, size: *mut c_int) -> c_int {
        call("MPI_Pack_size", comm, |w| {
            w.comms.get(comm)?;
            let ty = w.types.get(datatype)?;
            let n = pack_size(&ty, incount)?;
            // SAFETY: null or a valid int pointer (caller).
            let o = unsafe { out(size, "size") }?;
            *o = n;
            Ok(())
        })
    }
}

/// MPI_Get_address / MPI_Address: the address itself (MPI_BOTTOM is 0).
///
/// # Safety
/// `address` is null or valid for a write.
unsafe fn get_address(name: &str, location: *const c_void, address: *mut MPI_Aint) -> c_int {
    call(name, sys::MPI_COMM_WORLD, |_| {
        // SAFETY: null or a valid MPI_Aint pointer (contract).
        let o = unsafe { out(address, "address") }?;
        *o = location as MPI_Aint;
        Ok(())
    })
}

mpi_fn! {
    fn MPI_Get_address / PMPI_Get_address(location: *const c_void, address: *mut MPI_Aint) -> c_int {
        // SAFETY: the caller's pointer, passed on.
        unsafe { get_address("MPI_Get_address", location, address) }
    }
}

mpi_fn! {
    /// Deprecated (MPI-1) name of MPI_Get_address.
    fn MPI_Address / PMPI_Address(location: *const c_void, address: *mut MPI_Aint) -> c_int {
        // SAFETY: the caller's pointer, passed on.
        unsafe { get_address("MPI_Address", location, address) }
    }
}

mpi_fn! {
    /// `base + disp` as an address (wrapping, like pointer arithmetic).
    fn MPI_Aint_add / PMPI_Aint_add(base: MPI_Aint, disp: MPI_Aint) -> MPI_Aint {
        base.wrapping_add(disp)
    }
}

mpi_fn! {
    /// `addr1 - addr2`.
    fn MPI_Aint_diff / PMPI_Aint_diff(addr1: MPI_Aint, addr2: MPI_Aint) -> MPI_Aint {
        addr1.wrapping_sub(addr2)
    }
}
