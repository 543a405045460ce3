//! User memory of the collective calls: buffers read and written as packed
//! blocks ([`RawBuf`], the raw-pointer side of `mpi::coll_args::UserBuf`),
//! MPI_IN_PLACE, and the count / displacement / datatype arrays.
use crate::abi::MPI_IN_PLACE;
use crate::mpi::coll_args::{Block, UserBuf};
use crate::mpi::error::{fail, MpiResult};
use crate::sys;
use std::os::raw::c_void;

/// A user buffer's address.
pub(crate) struct RawBuf {
    base: *mut u8,
}

impl RawBuf {
    /// # Safety
    /// For as long as the `RawBuf` is used, every block later packed from it
    /// is readable, and every block unpacked into it writable and not
    /// accessed otherwise (MPI's contract for the buffers of a blocking
    /// call, whose arguments describe those blocks).
    pub(crate) unsafe fn new(p: *const c_void) -> RawBuf {
        RawBuf { base: p as *mut u8 }
    }

    /// The first byte the block's elements touch (see
    /// `Datatype::mem_start`).
    fn at(&self, b: &Block) -> *mut u8 {
        self.base.wrapping_offset(b.off + b.ty.mem_start(b.count))
    }
}

impl UserBuf for RawBuf {
    fn pack(&self, blocks: &[Block]) -> Vec<u8> {
        let mut out = Vec::with_capacity(blocks.iter().map(Block::bytes).sum());
        for b in blocks {
            let span = b.ty.span(b.count);
            if span == 0 {
                continue;
            }
            // SAFETY: the block's elements span `span` readable bytes from
            // its address (the constructor's contract).
            let mem = unsafe { std::slice::from_raw_parts(self.at(b), span) };
            if b.ty.is_contiguous() {
                out.extend_from_slice(&mem[..b.bytes()]);
            } else {
                out.extend_from_slice(&b.ty.pack(mem, b.count));
            }
        }
        out
    }

    fn unpack(&mut self, blocks: &[Block], data: &[u8]) {
        let mut at = 0;
        for b in blocks {
            let n = b.bytes().min(data.len() - at);
            let span = b.ty.span(b.count);
            if span > 0 {
                // SAFETY: the block's elements span `span` writable bytes
                // from its address, which nothing else accesses now (the
                // constructor's contract).
                let mem = unsafe { std::slice::from_raw_parts_mut(self.at(b), span) };
                b.ty.unpack(&data[at..at + n], mem, b.count);
            }
            at += n;
        }
    }
}

/// True for MPI_IN_PLACE.
pub(crate) fn in_place(p: *const c_void) -> bool {
    std::ptr::eq(p, MPI_IN_PLACE)
}

/// An input array of `n` entries: MPI_ERR_ARG when null (unless empty).
///
/// # Safety
/// `p` is null or points to `n` readable `T`s that live for `'a`.
pub(crate) unsafe fn array<'a, T>(p: *const T, n: usize, what: &str) -> MpiResult<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return fail(sys::MPI_ERR_ARG, format!("null pointer passed as {what}"));
    }
    // SAFETY: non-null, and n readable entries by the contract.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::datatype::TypeTable;

    #[test]
    fn pack_and_unpack_blocks_of_a_padded_type() {
        let t = TypeTable::new();
        let ty = t.get(sys::MPI_SHORT_INT).unwrap();
        // two blocks: one element at 8, two elements at 24 (extent 8)
        let blocks = vec![
            Block {
                off: 8,
                count: 1,
                ty: ty.clone(),
            },
            Block {
                off: 24,
                count: 2,
                ty: ty.clone(),
            },
        ];
        let mut mem: Vec<u8> = (0..40).collect();
        // SAFETY: mem covers every block (24 + 2 * 8 = 40 bytes).
        let buf = unsafe { RawBuf::new(mem.as_ptr().cast()) };
        let packed = buf.pack(&blocks);
        let want: Vec<u8> = [
            8, 9, 12, 13, 14, 15, 24, 25, 28, 29, 30, 31, 32, 33, 36, 37, 38, 39,
        ]
        .to_vec();
        assert_eq!(packed, want);
        let mut out = vec![0xeeu8; 40];
        // SAFETY: out covers every block and is not otherwise used meanwhile.
        let mut ob = unsafe { RawBuf::new(out.as_mut_ptr().cast()) };
        ob.unpack(&blocks, &packed);
        for (i, &b) in out.iter().enumerate() {
            let data = want.contains(&(i as u8));
            assert_eq!(b, if data { i as u8 } else { 0xee }, "byte {i}");
        }
        mem.clear();
    }

    #[test]
    fn arrays_and_in_place() {
        let v = [1, 2, 3];
        // SAFETY: v has 3 entries.
        assert_eq!(unsafe { array(v.as_ptr(), 3, "counts") }.unwrap(), &v);
        // SAFETY: null is allowed by the contract.
        let e = unsafe { array::<i32>(std::ptr::null(), 2, "recvcounts") }.unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_ARG);
        assert_eq!(e.msg, "null pointer passed as recvcounts");
        // SAFETY: as above; empty arrays are never read.
        assert!(unsafe { array::<i32>(std::ptr::null(), 0, "x") }.is_ok());
        assert!(in_place(MPI_IN_PLACE));
        assert!(!in_place(std::ptr::null()));
    }
}
