//! Context ids, allocated the way MPICH allocates them
//! (`MPIR_Get_contextid_sparse`): every process keeps a mask of the ids it
//! has free (2048 bits, 64 ints); a communicator constructor AND-reduces the
//! masks over the parent communicator and takes the lowest id free
//! everywhere; MPI_Comm_free gives the id back to the local mask.
//!
//! Point-to-point traffic of a communicator uses its id, collective traffic
//! the id with the top bit set (`crate::coll::COLL_CTX_BIT`), so ids stay
//! far below 0x8000_0000.
use crate::mpi::comm::{SELF_CTX, WORLD_CTX};
use crate::mpi::error::{fail, MpiResult};
use crate::sys;

/// Ints in the mask (MPICH's MPIR_MAX_CONTEXT_MASK).
pub const MASK_WORDS: usize = 64;
/// Context ids there are.
pub const MAX_CONTEXTS: u32 = MASK_WORDS as u32 * 32;
/// Bytes of the mask, as reduced over the parent communicator.
pub const MASK_BYTES: usize = MASK_WORDS * 4;

/// The context ids this process has free (bit set = free).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextMask {
    words: [u32; MASK_WORDS],
}

impl Default for ContextMask {
    fn default() -> Self {
        Self::new()
    }
}

impl ContextMask {
    /// Every id free but those of MPI_COMM_WORLD and MPI_COMM_SELF.
    pub fn new() -> ContextMask {
        let mut m = ContextMask {
            words: [u32::MAX; MASK_WORDS],
        };
        m.take(WORLD_CTX);
        m.take(SELF_CTX);
        m
    }

    pub fn is_free(&self, id: u32) -> bool {
        id < MAX_CONTEXTS && self.words[(id / 32) as usize] & (1 << (id % 32)) != 0
    }

    /// Mark `id` as in use.
    pub fn take(&mut self, id: u32) {
        debug_assert!(self.is_free(id), "context id {id} taken twice");
        self.words[(id / 32) as usize] &= !(1 << (id % 32));
    }

    /// Give `id` back.
    pub fn release(&mut self, id: u32) {
        debug_assert!(!self.is_free(id), "context id {id} released twice");
        self.words[(id / 32) as usize] |= 1 << (id % 32);
    }

    /// How many ids are free.
    pub fn free_count(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }

    /// The mask as this process contributes it to the reduction: its own
    /// mask, or all ones when it will not be a member of the new
    /// communicator (MPICH's `ignore_id`: it must not constrain the choice).
    pub fn contribution(&self, member: bool) -> Vec<u8> {
        if !member {
            return vec![0xff; MASK_BYTES];
        }
        self.words.iter().flat_map(|w| w.to_ne_bytes()).collect()
    }
}

/// The process's [`ContextMask`], shared with the nonblocking context-id
/// agreements of MPI_Comm_idup (`mpi::comm_idup`), which take their id
/// inside the progress engine.
#[derive(Debug, Clone, Default)]
pub struct SharedMask(std::rc::Rc<std::cell::RefCell<ContextMask>>);

impl SharedMask {
    pub fn new() -> SharedMask {
        SharedMask::default()
    }
    pub fn is_free(&self, id: u32) -> bool {
        self.0.borrow().is_free(id)
    }
    pub fn take(&self, id: u32) {
        self.0.borrow_mut().take(id)
    }
    pub fn release(&self, id: u32) {
        self.0.borrow_mut().release(id)
    }
    pub fn free_count(&self) -> u32 {
        self.0.borrow().free_count()
    }
    pub fn contribution(&self, member: bool) -> Vec<u8> {
        self.0.borrow().contribution(member)
    }
}

/// Bitwise AND of `input` into `inout` (the MPI_BAND of the reduction).
pub fn band(input: &[u8], inout: &mut [u8]) {
    for (o, i) in inout.iter_mut().zip(input) {
        *o &= *i;
    }
}

/// The lowest id set in a reduced mask (MPICH scans ints, then bits, from
/// the lowest); MPI_ERR_OTHER when none is free everywhere.
pub fn lowest_free(reduced: &[u8]) -> MpiResult<u32> {
    debug_assert_eq!(reduced.len(), MASK_BYTES);
    for (i, chunk) in reduced.chunks_exact(4).enumerate() {
        let w = u32::from_ne_bytes(chunk.try_into().expect("4 bytes"));
        if w != 0 {
            return Ok(i as u32 * 32 + w.trailing_zeros());
        }
    }
    fail(
        sys::MPI_ERR_OTHER,
        format!(
            "too many communicators: all {MAX_CONTEXTS} context ids are in use on some \
             process (free communicators with MPI_Comm_free)"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn world_and_self_are_taken() {
        let m = ContextMask::new();
        assert!(!m.is_free(0) && !m.is_free(1) && m.is_free(2));
        assert_eq!(m.free_count(), MAX_CONTEXTS - 2);
        assert_eq!(lowest_free(&m.contribution(true)).unwrap(), 2);
        assert_eq!(m.contribution(true).len(), 256);
    }

    #[test]
    fn agreement_takes_the_lowest_common_id() {
        let mut a = ContextMask::new();
        let mut b = ContextMask::new();
        a.take(2);
        a.take(3);
        b.take(4);
        let mut r = a.contribution(true);
        band(&b.contribution(true), &mut r);
        assert_eq!(lowest_free(&r).unwrap(), 5);
        // a non-member does not constrain the choice
        let mut r = a.contribution(true);
        band(&b.contribution(false), &mut r);
        assert_eq!(lowest_free(&r).unwrap(), 4);
        a.release(3);
        let mut r = a.contribution(true);
        band(&b.contribution(true), &mut r);
        assert_eq!(lowest_free(&r).unwrap(), 3);
    }

    #[test]
    fn ids_beyond_the_first_word_and_exhaustion() {
        let mut m = ContextMask::new();
        for id in 2..40 {
            m.take(id);
        }
        assert_eq!(lowest_free(&m.contribution(true)).unwrap(), 40);
        for id in 40..MAX_CONTEXTS {
            m.take(id);
        }
        let e = lowest_free(&m.contribution(true)).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_OTHER);
        assert!(e.msg.contains("2048 context ids"), "{}", e.msg);
        m.release(2047);
        assert_eq!(lowest_free(&m.contribution(true)).unwrap(), 2047);
    }
}
