//! User memory of `count` elements of a datatype, as the slices that
//! `Datatype::pack` / `Datatype::unpack` work on: they start at the buffer
//! pointer moved by the type's true lower bound (negative displacements
//! reach before the pointer; absolute addresses with MPI_BOTTOM start at
//! the first data byte) and cover `span(count)` bytes.
use crate::abi::buffers::user_bytes;
use crate::mpi::datatype::Datatype;
use std::os::raw::c_void;

/// Address of the first data byte of `buf` as elements of `ty` (pointer
/// arithmetic only: nothing is dereferenced).
pub(crate) fn data_start(buf: *const c_void, ty: &Datatype) -> *const u8 {
    (buf as *const u8).wrapping_offset(ty.origin())
}

/// The memory `count` elements of `ty` at `buf` occupy, to read.
///
/// # Safety
/// `count` elements of `ty` at `buf` are readable (MPI's contract for the
/// buffer argument of the call) and stay valid for `'a`.
pub(crate) unsafe fn elems<'a>(buf: *const c_void, ty: &Datatype, count: usize) -> &'a [u8] {
    // SAFETY: the data of the elements lies in the span(count) bytes from
    // the first data byte, readable by the contract.
    unsafe { user_bytes(data_start(buf, ty) as *const c_void, ty.span(count)) }
}

/// The memory `count` elements of `ty` at `buf` occupy, to write.
///
/// # Safety
/// `count` elements of `ty` at `buf` are writable, not aliased by any other
/// live reference, and stay valid for `'a`.
pub(crate) unsafe fn elems_mut<'a>(buf: *mut c_void, ty: &Datatype, count: usize) -> &'a mut [u8] {
    let len = ty.span(count);
    if len == 0 {
        return &mut [];
    }
    // SAFETY: as in `elems`, writable and unaliased by the contract.
    unsafe { std::slice::from_raw_parts_mut(data_start(buf, ty) as *mut u8, len) }
}
