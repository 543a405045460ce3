//! What communicator constructors need from the layer below besides
//! point-to-point: agreement among the ranks of the parent communicator
//! through the collective algorithms of `crate::coll` (so that creating a
//! communicator costs, in virtual time, the messages it costs in MPICH), and
//! the target node of a rank (MPI_COMM_TYPE_SHARED).
use crate::coll::{self, Op};
use crate::mpi::context::band;
use crate::p2p::{Core, Link};

/// Collective agreement over a communicator given as its members' world
/// ranks (`ranks`), my index in it (`me`) and its context id (`ctx`; the
/// collectives use `ctx | COLL_CTX_BIT`).
pub trait Agree {
    /// In-place allgather: `buf` holds one equal block per member, mine at
    /// my position.
    fn allgather(&mut self, ranks: &[u32], me: usize, ctx: u32, buf: &mut [u8]);
    /// Allreduce of `buf` (32-bit ints) with bitwise AND (MPI_BAND), a
    /// context-id mask: one more int is reduced with it, as MPICH 4.0.2
    /// does (its `ALL_OWN_MASK_FLAG`, [`with_flag`]).
    fn allreduce_band(&mut self, ranks: &[u32], me: usize, ctx: u32, buf: &mut [u8]);
    /// Allreduce of `bytes` bytes whose values do not matter (MPICH 4.0.2's
    /// agreement on an info hint: ints, or the hint's characters).
    fn allreduce_bytes(&mut self, ranks: &[u32], me: usize, ctx: u32, bytes: usize);
    /// Broadcast of one int from the first member (MPICH 4.0.2's
    /// sequence number of a new communicator, `init_comm_seq`).
    fn bcast_int(&mut self, ranks: &[u32], me: usize, ctx: u32);
    /// The target node of a world rank.
    fn node_of(&self, world_rank: u32) -> u32;
}

impl<L: Link> Agree for Core<L> {
    fn allgather(&mut self, ranks: &[u32], me: usize, ctx: u32, buf: &mut [u8]) {
        let mut c = coll::Comm {
            core: self,
            ranks,
            me,
            ctx,
        };
        coll::allgather::allgather(&mut c, buf);
    }

    fn allreduce_band(&mut self, ranks: &[u32], me: usize, ctx: u32, buf: &mut [u8]) {
        let mut c = coll::Comm {
            core: self,
            ranks,
            me,
            ctx,
        };
        let mut and = |input: &[u8], inout: &mut [u8]| band(input, inout);
        let mut op = Op {
            commutative: true,
            builtin: true,
            apply: &mut and,
        };
        with_flag(buf, |b| coll::allreduce::allreduce(&mut c, b, 4, &mut op));
    }

    fn allreduce_bytes(&mut self, ranks: &[u32], me: usize, ctx: u32, bytes: usize) {
        let mut c = coll::Comm {
            core: self,
            ranks,
            me,
            ctx,
        };
        let mut max = |input: &[u8], inout: &mut [u8]| {
            for (o, i) in inout.iter_mut().zip(input) {
                *o = (*o).max(*i);
            }
        };
        let mut op = Op {
            commutative: true,
            builtin: true,
            apply: &mut max,
        };
        let elem = if bytes > 0 && bytes.is_multiple_of(4) {
            4
        } else {
            1
        };
        coll::allreduce::allreduce(&mut c, &mut vec![0u8; bytes], elem, &mut op);
    }

    fn bcast_int(&mut self, ranks: &[u32], me: usize, ctx: u32) {
        let mut c = coll::Comm {
            core: self,
            ranks,
            me,
            ctx,
        };
        coll::bcast::bcast(&mut c, &mut [0u8; 4], 0);
    }

    fn node_of(&self, world_rank: u32) -> u32 {
        self.model().node_of(world_rank)
    }
}

/// Reduce a context-id mask `buf` as MPICH 4.0.2 does (`reduce`): with its
/// trailing flag int (`ALL_OWN_MASK_FLAG`, 1: the mask is the process's
/// own, or ignored; vaced's blocking constructors always contribute such
/// a mask), which costs its 4 bytes in every message and is dropped after.
pub fn with_flag(buf: &mut [u8], reduce: impl FnOnce(&mut [u8])) {
    let mut full = Vec::with_capacity(buf.len() + 4);
    full.extend_from_slice(buf);
    full.extend_from_slice(&1u32.to_ne_bytes());
    reduce(&mut full);
    buf.copy_from_slice(&full[..buf.len()]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::context::{lowest_free, ContextMask};
    use crate::p2p::testing::run;
    use std::sync::{Arc, Mutex};

    /// Five ranks with different masks agree on the lowest id free on all
    /// of them; a sub-communicator of three agrees among its members only.
    #[test]
    fn ranks_agree_on_a_context_id() {
        let got = Arc::new(Mutex::new(Vec::new()));
        let g = got.clone();
        run(5, 1 << 16, move |core| {
            let me = core.rank();
            let mut mask = ContextMask::new();
            mask.take(2 + me); // rank r uses id 2 + r
            let all: Vec<u32> = (0..5).collect();
            let mut buf = mask.contribution(true);
            core.allreduce_band(&all, me as usize, 0, &mut buf);
            let world_id = lowest_free(&buf).unwrap();
            // ranks 4, 2, 0: ids 6, 4, 2 are taken among them
            let sub = [4u32, 2, 0];
            let sub_id = sub.iter().position(|&w| w == me).map(|i| {
                let mut buf = mask.contribution(true);
                core.allreduce_band(&sub, i, 9, &mut buf);
                lowest_free(&buf).unwrap()
            });
            let mut gathered = vec![0u8; 5];
            gathered[me as usize] = me as u8 * 10;
            core.allgather(&all, me as usize, 0, &mut gathered);
            g.lock().unwrap().push((me, world_id, sub_id, gathered));
        });
        let mut v = got.lock().unwrap().clone();
        v.sort();
        for (me, world_id, sub_id, gathered) in v {
            assert_eq!(world_id, 7, "rank {me}");
            let expect = if me % 2 == 0 { Some(3) } else { None };
            assert_eq!(sub_id, expect, "rank {me}");
            assert_eq!(gathered, [0, 10, 20, 30, 40]);
        }
    }
}
