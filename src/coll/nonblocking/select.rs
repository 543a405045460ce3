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
}
