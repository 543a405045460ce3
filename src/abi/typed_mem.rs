//! User memory of `count` elements of a datatype, as the slices that
//! `Datatype::pack` / `Datatype::unpack` work on: they start at the buffer
//! pointer moved by `mem_start(count)` (the type's true lower bound, lower
//! still for a negative extent: negative displacements reach before the
//! pointer; absolute addresses with MPI_BOTTOM start at the first data
//! byte) and cover `span(count)` bytes.
use crate::abi::buffers::user_bytes;
use crate::mpi::datatype::Datatype;
use std::os::raw::c_void;

/// Address of the first byte `count` elements of `ty` at `buf` touch
/// (pointer arithmetic only: nothing is dereferenced).
pub(crate) fn data_start(buf: *const c_void, ty: &Datatype, count: usize) -> *const u8 {
    (buf as *const u8).wrapping_offset(ty.mem_start(count))
}

/// The memory `count` elements of `ty` at `buf` occupy, to read.
///
/// # Safety
/// `count` elements of `ty` at `buf` are readable (MPI's contract for the
/// buffer argument of the call) and stay valid for `'a`.
pub(crate) unsafe fn elems<'a>(buf: *const c_void, ty: &Datatype, count: usize) -> &'a [u8] {
    // SAFETY: the data of the elements lies in the span(count) bytes from
    // the first data byte, readable by the contract.
    unsafe { user_bytes(data_start(buf, ty, count) as *const c_void, ty.span(count)) }
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
    unsafe { std::slice::from_raw_parts_mut(data_start(buf, ty, count) as *mut u8, len) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::buffers::{recv_target, send_payload};
    use crate::mpi::comm::{Group, Source};
    use crate::mpi::state::{RecvArgs, SendArgs};
    use crate::mpi::type_contents::TypeRef;
    use crate::mpi::typemap;
    use crate::sys;
    use std::sync::Arc;

    fn int() -> TypeRef {
        crate::mpi::datatype::TypeTable::new()
            .get_ref(sys::MPI_INT)
            .unwrap()
    }

    fn send_args(ty: Datatype, count: usize) -> SendArgs {
        SendArgs {
            comm: sys::MPI_COMM_WORLD,
            group: Arc::new(Group::new(vec![0, 1])),
            ctx: 0,
            dest: Some(1),
            tag: 0,
            bytes: ty.packed_size(count),
            ty: Arc::new(ty),
            count,
        }
    }

    #[test]
    fn contiguous_derived_type_is_sent_from_the_user_buffer() {
        let ty = typemap::vector(4, 2, 2, &int()).unwrap();
        let data = [0i32; 8];
        let a = send_args(ty, 1);
        // SAFETY: data holds the 8 ints of one element and outlives p.
        let p = unsafe { send_payload(data.as_ptr() as *const c_void, &a) };
        assert!(p.keep.is_none());
        assert_eq!((p.buf.addr(), p.buf.len()), (data.as_ptr() as u64, 32));
    }

    #[test]
    fn negative_displacements_reach_before_the_pointer() {
        // ints at -2, 0 and +1 from the pointer, in that order
        let ty = typemap::hindexed(&[1, 1, 1], &[-8, 0, 4], &int()).unwrap();
        let data: [i32; 4] = [10, 11, 12, 13];
        let ptr = data[2..].as_ptr() as *const c_void;
        assert_eq!(data_start(ptr, &ty, 1), data.as_ptr() as *const u8);
        let a = send_args(ty.clone(), 1);
        // SAFETY: the element's data lies within `data`, which outlives p.
        let p = unsafe { send_payload(ptr, &a) };
        let words: Vec<i32> = p
            .keep
            .unwrap()
            .chunks(4)
            .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(words, vec![10, 12, 13]);

        // and a receive with that type lands there too
        let mut out: [i32; 4] = [-1; 4];
        let r = RecvArgs {
            comm: sys::MPI_COMM_WORLD,
            group: Arc::new(Group::new(vec![0, 1])),
            ctx: 0,
            src: Source::Any,
            tag: None,
            bytes: ty.packed_size(1),
            ty: Arc::new(ty),
            count: 1,
        };
        // SAFETY: the element's data lies within `out`, which outlives the
        // delivery below.
        let t = unsafe { recv_target(out[2..].as_mut_ptr() as *mut c_void, &r) };
        let mut stg = t.staging.unwrap();
        let bytes: Vec<u8> = [7i32, 8, 9].iter().flat_map(|v| v.to_ne_bytes()).collect();
        stg.tmp.copy_from_slice(&bytes);
        (stg.deliver)(&stg.tmp);
        assert_eq!(out, [7, -1, 8, 9]);
    }

    #[test]
    fn a_negative_extent_puts_later_elements_before_the_pointer() {
        // an int with lb 4 and ub 0: element i is at -4 i from the pointer
        let r = typemap::resized(&int(), 4, -4).unwrap();
        let data: [i32; 4] = [10, 11, 12, 13];
        let ptr = data[3..].as_ptr() as *const c_void;
        assert_eq!(data_start(ptr, &r, 3), data[1..].as_ptr() as *const u8);
        let a = send_args(r.clone(), 3);
        // SAFETY: the three elements lie within `data`, which outlives p.
        let p = unsafe { send_payload(ptr, &a) };
        let words: Vec<i32> = p
            .keep
            .unwrap()
            .chunks(4)
            .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(words, vec![13, 12, 11]);
        let mut out: [i32; 4] = [-1; 4];
        let ra = RecvArgs {
            comm: sys::MPI_COMM_WORLD,
            group: Arc::new(Group::new(vec![0, 1])),
            ctx: 0,
            src: Source::Any,
            tag: None,
            bytes: r.packed_size(3),
            ty: Arc::new(r),
            count: 3,
        };
        // SAFETY: the elements lie within `out`, which outlives the delivery.
        let t = unsafe { recv_target(out[3..].as_mut_ptr() as *mut c_void, &ra) };
        let mut stg = t.staging.unwrap();
        let bytes: Vec<u8> = [7i32, 8, 9].iter().flat_map(|v| v.to_ne_bytes()).collect();
        stg.tmp.copy_from_slice(&bytes);
        (stg.deliver)(&stg.tmp);
        assert_eq!(out, [-1, 9, 8, 7]);
    }
}
