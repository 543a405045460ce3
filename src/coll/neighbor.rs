//! Neighbourhood collectives (MPI_Neighbor_allgather(v),
//! MPI_Neighbor_alltoall(v,w)) as MPICH 4.0.2 runs them by default: the
//! blocking call is the nonblocking one and a wait (`*_allcomm_nb`), whose
//! schedule is MPICH's `*_allcomm_sched_linear`: one round in which the
//! process starts a send of its block to each out-neighbour in order, then
//! posts a receive from each in-neighbour (in reverse order for
//! Neighbor_alltoall, so that with the same process on both sides of a
//! periodic dimension the first message lands in the last block; in order
//! for the others), then waits for all of them in one waiting activity.
//! MPI_PROC_NULL neighbours (the edges of non-periodic Cartesian
//! dimensions) get no message and their receive blocks are left alone;
//! zero-byte blocks still travel as (empty) messages.
//!
//! Timing: each send and receive is an ordinary point-to-point operation
//! of the engine (eager or rendezvous by size), so an eager send advances
//! the sender by its copy `b / Bmem` as it starts, and the wait completes
//! each receive when its data (or, for rendezvous, the protocol) arrives.
//!
//! The round is described as data ([`Round`]) so that a nonblocking form
//! can run it as a one-round schedule.
use super::Comm;
use crate::p2p::Link;

/// The tag of neighbourhood-collective messages (collective context).
pub const NEIGHBOR_TAG: i32 = 32;

/// One round of a neighbourhood collective: the sends in the order they
/// are started and the receives (source, bytes) in the order they are
/// posted; `None` is MPI_PROC_NULL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round {
    pub sends: Vec<(Option<usize>, Vec<u8>)>,
    pub recvs: Vec<(Option<usize>, usize)>,
}

impl Round {
    /// The round of a neighbourhood collective: block k of `sends` goes to
    /// `dsts[k]`, block l of the result comes from `srcs[l]` (`recv_bytes[l]`
    /// bytes); `reverse` posts the receives from the last to the first.
    /// Returns the round and, for each posted receive, its block index.
    pub fn new(
        dsts: &[Option<usize>],
        sends: Vec<Vec<u8>>,
        srcs: &[Option<usize>],
        recv_bytes: &[usize],
        reverse: bool,
    ) -> (Round, Vec<usize>) {
        debug_assert_eq!(dsts.len(), sends.len());
        debug_assert_eq!(srcs.len(), recv_bytes.len());
        let order: Vec<usize> = if reverse {
            (0..srcs.len()).rev().collect()
        } else {
            (0..srcs.len()).collect()
        };
        let round = Round {
            sends: dsts.iter().copied().zip(sends).collect(),
            recvs: order.iter().map(|&l| (srcs[l], recv_bytes[l])).collect(),
        };
        (round, order)
    }
}

/// Run `round`: start every send, post every receive, wait for all. The
/// data of each posted receive, in posting order (None for MPI_PROC_NULL).
pub fn run_round<L: Link>(c: &mut Comm<L>, round: &Round) -> Vec<Option<Vec<u8>>> {
    let mut sreqs = Vec::with_capacity(round.sends.len());
    for (dst, data) in &round.sends {
        if let Some(d) = dst {
            sreqs.push(c.isend(data, *d, NEIGHBOR_TAG));
        }
    }
    let mut rreqs = Vec::with_capacity(round.recvs.len());
    for &(src, len) in &round.recvs {
        if let Some(s) = src {
            rreqs.push(c.irecv(len, s, NEIGHBOR_TAG));
        }
    }
    let mut data = c.wait_all(&sreqs, &rreqs, NEIGHBOR_TAG).into_iter();
    round
        .recvs
        .iter()
        .map(|(src, _)| src.map(|_| data.next().expect("one result per receive")))
        .collect()
}

/// Run the round of [`Round::new`]: the received data by block index
/// (None for MPI_PROC_NULL sources).
pub fn exchange<L: Link>(
    c: &mut Comm<L>,
    dsts: &[Option<usize>],
    sends: Vec<Vec<u8>>,
    srcs: &[Option<usize>],
    recv_bytes: &[usize],
    reverse: bool,
) -> Vec<Option<Vec<u8>>> {
    let (round, order) = Round::new(dsts, sends, srcs, recv_bytes, reverse);
    let got = run_round(c, &round);
    let mut out = vec![None; srcs.len()];
    for (l, d) in order.into_iter().zip(got) {
        out[l] = d;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::p2p::testing::run;
    use std::sync::{Arc, Mutex};

    #[test]
    fn round_order() {
        let (r, order) = Round::new(
            &[Some(1), None],
            vec![vec![1], vec![2]],
            &[Some(3), None, Some(4)],
            &[1, 2, 3],
            true,
        );
        assert_eq!(order, [2, 1, 0]);
        assert_eq!(r.recvs, [(Some(4), 3), (None, 2), (Some(3), 1)]);
        assert_eq!(r.sends, [(Some(1), vec![1]), (None, vec![2])]);
    }

    /// A 1-D periodic ring of 2: both neighbours are the same process; the
    /// reverse receive order puts the block sent to the negative neighbour
    /// into the block from the positive one, as the standard requires.
    #[test]
    fn same_neighbour_on_both_sides() {
        let got = Arc::new(Mutex::new(Vec::new()));
        let g = got.clone();
        run(2, 1 << 16, move |core| {
            let me = core.rank() as usize;
            let other = 1 - me;
            let ranks = [0u32, 1];
            let mut c = Comm {
                core,
                ranks: &ranks,
                me,
                ctx: 3,
            };
            let nb = [Some(other), Some(other)];
            let sends = vec![vec![10 * me as u8], vec![10 * me as u8 + 1]];
            let out = exchange(&mut c, &nb, sends, &nb, &[1, 1], true);
            g.lock().unwrap().push((me, out));
        });
        let mut v = got.lock().unwrap().clone();
        v.sort();
        // block 0 (from the negative neighbour) = what it sent to its
        // positive neighbour (its block 1)
        assert_eq!(v[0].1, [Some(vec![11]), Some(vec![10])]);
        assert_eq!(v[1].1, [Some(vec![1]), Some(vec![0])]);
    }
}
