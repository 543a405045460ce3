//! Which schedule each nonblocking collective uses: MPICH 4.0.2's defaults
//! on an intra-communicator, i.e. its collective selection table
//! (`maint/tuning/coll/mpir/generic.json`, compiled into
//! `src/mpi/coll/src/csel_json_autogen.c`), which picks the `*_intra_sched_*`
//! algorithms when the `MPIR_CVAR_I<NAME>_INTRA_ALGORITHM` cvars are `auto`
//! (their default). MPICH's SMP-aware schedules (`comm_hierarchy=parent`,
//! node-aware communicators) are not modelled, as for the blocking
//! collectives. Forcing an algorithm (`VACED_COLL_I<NAME>`) is not
//! supported yet.
//!
//! | collective | rule (p = communicator size, b = message bytes) | MPICH 4.0.2 source |
//! | --- | --- | --- |
//! | Ibarrier | dissemination (`recursive_doubling`) | generic.json `ibarrier` |
//! | Ibcast | p < 8: binomial; p a power of two: b < 12288 binomial, b < 524288 scatter + recursive-doubling allgather, else scatter + ring allgather; other p: b < 12288 binomial, else scatter + ring allgather | generic.json `ibcast` |
//! | Ireduce | b <= 2048, a user-defined operator or count < pof2(p): binomial; else reduce-scatter + gather | generic.json `ireduce` |
//! | Iallreduce | b <= 2048, a user-defined operator or count < pof2(p): recursive doubling; else reduce-scatter + allgather | generic.json `iallreduce` |
//! | Igather | binomial | generic.json `igather` |
//! | Iscatter | binomial | generic.json `iscatter` |
//! | Iallgather (t = p x block bytes) | p a power of two: t < 524288 recursive doubling, else ring; other p: t < 81920 Bruck, else ring | generic.json `iallgather` |
//! | Ialltoall (b = bytes per block) | MPI_IN_PLACE: in place; p <= 8: b <= 32768 permuted sendrecv, else pairwise; other p: b <= 2048 Bruck, b <= 32768 permuted sendrecv, else pairwise | generic.json `ialltoall` (its `comm_size<8` acts as `<= 8`, see [`ialltoall`]) |
//! | Igatherv, Iscatterv | linear (synchronous sends to the root from 32 ranks on) | generic.json `igatherv`, `iscatterv`; `MPIR_CVAR_GATHERV_INTER_SSEND_MIN_PROCS` |
//! | Iallgatherv | as Iallgather, t = the total bytes | generic.json `iallgatherv` |
//! | Ialltoallv, Ialltoallw | MPI_IN_PLACE: in place; else blocked (batches of 32) | generic.json `ialltoallv`, `ialltoallw`; `MPIR_CVAR_ALLTOALL_THROTTLE` |
//! | Iscan, Iexscan | recursive doubling | generic.json `iscan`, `iexscan` |
//! | Ireduce_scatter, Ireduce_scatter_block (t = total bytes; for Ireduce_scatter_block MPICH 4.0.2 compares the total element count, see `ireduce_scatter_sized`) | commutative: t < 524288 recursive halving, else pairwise; non-commutative: p a power of two and equal blocks: the noncommutative recursive halving, else recursive doubling | generic.json `ireduce_scatter`, `ireduce_scatter_block` |
use crate::coll::pof2_floor;

/// The Ibcast schedules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IbcastAlgo {
    Binomial,
    ScatterRecursiveDoublingAllgather,
    ScatterRingAllgather,
}

/// Ibcast of `nbytes` on `p` ranks (generic.json `ibcast`; `avg_msg_size`
/// is the byte count of the broadcast).
pub fn ibcast(p: usize, nbytes: usize) -> IbcastAlgo {
    use IbcastAlgo::*;
    if p < 8 {
        Binomial
    } else if p.is_power_of_two() {
        if nbytes < 12288 {
            Binomial
        } else if nbytes < 524288 {
            ScatterRecursiveDoublingAllgather
        } else {
            ScatterRingAllgather
        }
    } else if nbytes < 12288 {
        Binomial
    } else {
        ScatterRingAllgather
    }
}

/// The Ireduce schedules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IreduceAlgo {
    Binomial,
    ReduceScatterGather,
}

/// Ireduce of `count` elements, `nbytes` bytes, on `p` ranks.
pub fn ireduce(p: usize, count: usize, nbytes: usize, builtin: bool) -> IreduceAlgo {
    if nbytes <= 2048 || !builtin || count < pof2_floor(p) {
        IreduceAlgo::Binomial
    } else {
        IreduceAlgo::ReduceScatterGather
    }
}

/// The Iallreduce schedules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IallreduceAlgo {
    RecursiveDoubling,
    ReduceScatterAllgather,
}

/// Iallreduce of `count` elements, `nbytes` bytes, on `p` ranks.
pub fn iallreduce(p: usize, count: usize, nbytes: usize, builtin: bool) -> IallreduceAlgo {
    if nbytes <= 2048 || !builtin || count < pof2_floor(p) {
        IallreduceAlgo::RecursiveDoubling
    } else {
        IallreduceAlgo::ReduceScatterAllgather
    }
}

/// The Iallgather schedules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IallgatherAlgo {
    RecursiveDoubling,
    Brucks,
    Ring,
}

/// Iallgather of `total` bytes (all blocks) on `p` ranks.
pub fn iallgather(p: usize, total: usize) -> IallgatherAlgo {
    use IallgatherAlgo::*;
    if p.is_power_of_two() {
        if total < 524288 {
            RecursiveDoubling
        } else {
            Ring
        }
    } else if total < 81920 {
        Brucks
    } else {
        Ring
    }
}

/// The Ialltoall schedules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IalltoallAlgo {
    Inplace,
    PermutedSendrecv,
    Brucks,
    Pairwise,
}

/// Ialltoall of `block` bytes per rank pair on `p` ranks. generic.json
/// says `comm_size<8`, but MPICH 4.0.2 compares `<=` there: a `comm_size`
/// condition under one that is not about the communicator (here
/// `is_sendbuf_inplace`) is not pruned when the communicator is created and
/// is evaluated by `MPIR_Csel_search`, whose `COMM_SIZE_LT` case tests
/// `local_size <= val` (src/mpi/coll/src/csel.c). So 8 ranks take the
/// permuted sendrecv, as vaced's MPICH shows.
pub fn ialltoall(p: usize, block: usize, in_place: bool) -> IalltoallAlgo {
    use IalltoallAlgo::*;
    if in_place {
        Inplace
    } else if p <= 8 {
        if block <= 32768 {
            PermutedSendrecv
        } else {
            Pairwise
        }
    } else if block <= 2048 {
        Brucks
    } else if block <= 32768 {
        PermutedSendrecv
    } else {
        Pairwise
    }
}

/// The Ireduce_scatter(_block) schedules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IreduceScatterAlgo {
    RecursiveHalving,
    Pairwise,
    Noncommutative,
    RecursiveDoubling,
}

/// Ireduce_scatter of `total` bytes on `p` ranks; `regular`: every rank
/// gets as much.
pub fn ireduce_scatter(
    p: usize,
    total: usize,
    commutative: bool,
    regular: bool,
) -> IreduceScatterAlgo {
    use IreduceScatterAlgo::*;
    if commutative {
        if total < 524288 {
            RecursiveHalving
        } else {
            Pairwise
        }
    } else if regular && p.is_power_of_two() {
        Noncommutative
    } else {
        RecursiveDoubling
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ibcast_thresholds_on_both_sides() {
        use IbcastAlgo::*;
        assert_eq!(ibcast(7, 1 << 20), Binomial);
        assert_eq!(ibcast(8, 12287), Binomial);
        assert_eq!(ibcast(8, 12288), ScatterRecursiveDoublingAllgather);
        assert_eq!(ibcast(16, 524287), ScatterRecursiveDoublingAllgather);
        assert_eq!(ibcast(16, 524288), ScatterRingAllgather);
        assert_eq!(ibcast(12, 12287), Binomial);
        assert_eq!(ibcast(12, 12288), ScatterRingAllgather);
    }

    #[test]
    fn reduction_thresholds_on_both_sides() {
        use IallreduceAlgo as A;
        use IreduceAlgo as R;
        assert_eq!(iallreduce(8, 512, 2048, true), A::RecursiveDoubling);
        assert_eq!(iallreduce(8, 513, 2052, true), A::ReduceScatterAllgather);
        assert_eq!(iallreduce(8, 513, 2052, false), A::RecursiveDoubling);
        assert_eq!(iallreduce(13, 7, 4000, true), A::RecursiveDoubling);
        assert_eq!(iallreduce(13, 8, 4000, true), A::ReduceScatterAllgather);
        assert_eq!(ireduce(8, 512, 2048, true), R::Binomial);
        assert_eq!(ireduce(8, 513, 2052, true), R::ReduceScatterGather);
        assert_eq!(ireduce(8, 513, 2052, false), R::Binomial);
        assert_eq!(ireduce(5, 3, 3000, true), R::Binomial);
    }

    #[test]
    fn reduce_scatter_thresholds_on_both_sides() {
        use IreduceScatterAlgo::*;
        assert_eq!(ireduce_scatter(6, 524287, true, false), RecursiveHalving);
        assert_eq!(ireduce_scatter(6, 524288, true, true), Pairwise);
        assert_eq!(ireduce_scatter(8, 10, false, true), Noncommutative);
        assert_eq!(ireduce_scatter(8, 10, false, false), RecursiveDoubling);
        assert_eq!(ireduce_scatter(6, 10, false, true), RecursiveDoubling);
    }

    #[test]
    fn allgather_alltoall_thresholds_on_both_sides() {
        use IallgatherAlgo as G;
        use IalltoallAlgo as T;
        assert_eq!(iallgather(8, 524287), G::RecursiveDoubling);
        assert_eq!(iallgather(8, 524288), G::Ring);
        assert_eq!(iallgather(6, 81919), G::Brucks);
        assert_eq!(iallgather(6, 81920), G::Ring);
        assert_eq!(ialltoall(4, 1, true), T::Inplace);
        assert_eq!(ialltoall(7, 32768, false), T::PermutedSendrecv);
        assert_eq!(ialltoall(7, 32769, false), T::Pairwise);
        assert_eq!(ialltoall(8, 2048, false), T::PermutedSendrecv);
        assert_eq!(ialltoall(8, 32769, false), T::Pairwise);
        assert_eq!(ialltoall(9, 2048, false), T::Brucks);
        assert_eq!(ialltoall(9, 2049, false), T::PermutedSendrecv);
        assert_eq!(ialltoall(9, 32769, false), T::Pairwise);
    }
}
