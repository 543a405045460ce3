//! Which algorithm a collective runs: MPICH 4.0.2's default selection (the
//! one Debian ships, and the one vaced's MPICH runs), and forcing an
//! algorithm by name for what-if studies (`VACED_COLL_<COLLECTIVE>=<algorithm>`
//! in the environment, or the target file's `[collectives]` table; the
//! environment wins).
//!
//! MPICH 4.0.2 selects by its tuning table (`maint/tuning/coll/mpir/
//! generic.json`, searched by `src/mpi/coll/src/csel.c`); the thresholds
//! below are that table's, compared as MPICH's search compares them, which
//! is not always as the table reads (see [`alltoall`]). Where 4.0.2 kept
//! MPICH 3.2's rule, the constants still name 3.2's cvars. Each rule is
//! checked against vaced's MPICH (`tests/mpich_patch.rs`,
//! `each_blocking_collective_predicts_as_vaceds_own_library`). MPICH's
//! SMP-aware variants (`MPIR_CVAR_ENABLE_SMP_COLLECTIVES` and the
//! `ENABLE_SMP_*` / `MAX_SMP_*` cvars: intra-node then inter-node phases for
//! Bcast, Reduce, Allreduce, Barrier, Scan) are NOT modelled: every
//! communicator uses the flat algorithms below, as MPICH does on a
//! communicator that is not node-aware.
use crate::model::Model;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Bcast: binomial when `comm_size < BCAST_MIN_PROCS` or `nbytes <=
/// BCAST_SHORT_MSG_SIZE` (generic.json `bcast`: `comm_size<8`,
/// `avg_msg_size<=12288`; MPICH 3.2 compared `nbytes < 12288`).
pub const BCAST_MIN_PROCS: usize = 8;
/// Bcast: `nbytes = count * type_size`.
pub const BCAST_SHORT_MSG_SIZE: usize = 12288;
/// Bcast: scatter + recursive-doubling allgather when `nbytes <= LONG` and
/// the size is a power of two, else scatter + ring allgather
/// (`avg_msg_size<=524288`).
pub const BCAST_LONG_MSG_SIZE: usize = 524288;
/// Reduce: reduce-scatter + gather when `count * type_size > SHORT`, the op
/// is predefined and `count >= pof2`, else binomial (reduce.c,
/// MPIR_CVAR_REDUCE_SHORT_MSG_SIZE).
pub const REDUCE_SHORT_MSG_SIZE: usize = 2048;
/// Allreduce: recursive doubling when `count * type_size <= SHORT`, the op is
/// user-defined or `count < pof2`, else reduce-scatter + allgather
/// (generic.json `allreduce`: `avg_msg_size<=8`; MPICH 3.2's
/// MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE was 2048).
pub const ALLREDUCE_SHORT_MSG_SIZE: usize = 8;
/// Allgather / Allgatherv: `total = recvcount * comm_size * type_size`
/// (Allgatherv: sum of recvcounts * type_size). Recursive doubling when
/// `total < LONG` and the size is a power of two; else Bruck when
/// `total < SHORT`; else ring (allgather.c, allgatherv.c,
/// MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE / _LONG_MSG_SIZE).
pub const ALLGATHER_SHORT_MSG_SIZE: usize = 81920;
pub const ALLGATHER_LONG_MSG_SIZE: usize = 524288;
/// Allgatherv ring: blocks travel in chunks of at least this many bytes
/// (allgatherv.c, MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE).
pub const ALLGATHERV_PIPELINE_MSG_SIZE: usize = 32768;
/// Alltoall: per-destination block `sendcount * type_size`. Bruck when
/// `block <= SHORT` and `comm_size > 8` (see [`alltoall`]); isend/irecv when
/// `block <= MEDIUM`; pairwise exchange otherwise; MPI_IN_PLACE always uses
/// pairwise sendrecv_replace (alltoall.c, MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE /
/// _MEDIUM_MSG_SIZE).
pub const ALLTOALL_SHORT_MSG_SIZE: usize = 256;
pub const ALLTOALL_MEDIUM_MSG_SIZE: usize = 32768;
/// Alltoall(v) isend/irecv: at most this many receives and sends posted at a
/// time (MPIR_CVAR_ALLTOALL_THROTTLE; 0 would mean all at once).
pub const ALLTOALL_THROTTLE: usize = 32;
/// Reduce_scatter(_block), commutative op: recursive halving when
/// `total_count * type_size < LONG`, pairwise exchange otherwise
/// (red_scat.c, MPIR_CVAR_REDSCAT_COMMUTATIVE_LONG_MSG_SIZE).
pub const REDSCAT_COMMUTATIVE_LONG_MSG_SIZE: usize = 524288;
/// Gather: below this block size MPICH copies into a temporary buffer; the
/// message schedule is the same binomial tree either way, so it does not
/// change the prediction (gather.c, MPIR_CVAR_GATHER_VSMALL_MSG_SIZE).
pub const GATHER_VSMALL_MSG_SIZE: usize = 1024;
/// Gatherv: non-roots use a synchronous send when `comm_size >= this`
/// (gatherv.c, MPIR_CVAR_GATHERV_INTER_SSEND_MIN_PROCS; despite its name
/// MPICH 3.2 applies it to intracommunicators too).
pub const GATHERV_INTER_SSEND_MIN_PROCS: usize = 32;

/// The collectives that have algorithms to choose from, with their keys in
/// `[collectives]` and `VACED_COLL_<KEY>`. (MPI_Alltoallw is packed into an
/// Alltoallv and follows `alltoallv`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coll {
    Barrier,
    Bcast,
    Reduce,
    Allreduce,
    Gather,
    Gatherv,
    Scatter,
    Scatterv,
    Allgather,
    Allgatherv,
    Alltoall,
    Alltoallv,
    ReduceScatter,
    ReduceScatterBlock,
    Scan,
    Exscan,
}

/// An algorithm enumeration with names.
pub trait Algorithm: Copy + Sized + 'static {
    const NAMES: &'static [&'static str];
    fn parse(s: &str) -> Option<Self>;
    fn name(self) -> &'static str;
}

macro_rules! algorithms {
    ($(#[$doc:meta])* $ty:ident { $($(#[$vdoc:meta])* $var:ident = $s:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $ty { $($(#[$vdoc])* $var),+ }
        impl Algorithm for $ty {
            const NAMES: &'static [&'static str] = &[$($s),+];
            fn parse(s: &str) -> Option<$ty> {
                match s { $($s => Some($ty::$var),)+ _ => None }
            }
            fn name(self) -> &'static str {
                match self { $($ty::$var => $s),+ }
            }
        }
    };
}

algorithms!(
    /// MPI_Barrier.
    BarrierAlgo { Dissemination = "dissemination" }
);
algorithms!(
    /// MPI_Bcast.
    BcastAlgo {
        Binomial = "binomial",
        ScatterDoublingAllgather = "scatter_doubling_allgather",
        ScatterRingAllgather = "scatter_ring_allgather",
    }
);
algorithms!(
    /// MPI_Reduce.
    ReduceAlgo {
        Binomial = "binomial",
        /// Rabenseifner: recursive-halving reduce-scatter, binomial gather.
        RedscatGather = "redscat_gather",
    }
);
algorithms!(
    /// MPI_Allreduce.
    AllreduceAlgo {
        RecursiveDoubling = "recursive_doubling",
        /// Rabenseifner: recursive-halving reduce-scatter, recursive-doubling
        /// allgather.
        RedscatAllgather = "redscat_allgather",
    }
);
algorithms!(
    /// MPI_Gather.
    GatherAlgo { Binomial = "binomial" }
);
algorithms!(
    /// MPI_Gatherv.
    GathervAlgo { Linear = "linear" }
);
algorithms!(
    /// MPI_Scatter.
    ScatterAlgo { Binomial = "binomial" }
);
algorithms!(
    /// MPI_Scatterv.
    ScattervAlgo { Linear = "linear" }
);
algorithms!(
    /// MPI_Allgather.
    AllgatherAlgo {
        RecursiveDoubling = "recursive_doubling",
        Bruck = "bruck",
        Ring = "ring",
    }
);
algorithms!(
    /// MPI_Allgatherv (the ring pipelines blocks in chunks).
    AllgathervAlgo {
        RecursiveDoubling = "recursive_doubling",
        Bruck = "bruck",
        Ring = "ring",
    }
);
algorithms!(
    /// MPI_Alltoall.
    AlltoallAlgo {
        Bruck = "bruck",
        /// Throttled isend/irecv with scattered partners.
        Scattered = "scattered",
        Pairwise = "pairwise",
        /// MPICH's MPI_IN_PLACE algorithm.
        PairwiseSendrecvReplace = "pairwise_sendrecv_replace",
    }
);
algorithms!(
    /// MPI_Alltoallv (and Alltoallw).
    AlltoallvAlgo {
        Scattered = "scattered",
        PairwiseSendrecvReplace = "pairwise_sendrecv_replace",
    }
);
algorithms!(
    /// MPI_Reduce_scatter.
    ReduceScatterAlgo {
        RecursiveHalving = "recursive_halving",
        Pairwise = "pairwise",
        /// Traff's butterfly for non-commutative ops (power of two, equal
        /// counts).
        Noncommutative = "noncommutative",
        RecursiveDoubling = "recursive_doubling",
    }
);
algorithms!(
    /// MPI_Scan.
    ScanAlgo { RecursiveDoubling = "recursive_doubling" }
);
algorithms!(
    /// MPI_Exscan.
    ExscanAlgo { RecursiveDoubling = "recursive_doubling" }
);

impl Coll {
    pub const ALL: [Coll; 16] = [
        Coll::Barrier,
        Coll::Bcast,
        Coll::Reduce,
        Coll::Allreduce,
        Coll::Gather,
        Coll::Gatherv,
        Coll::Scatter,
        Coll::Scatterv,
        Coll::Allgather,
        Coll::Allgatherv,
        Coll::Alltoall,
        Coll::Alltoallv,
        Coll::ReduceScatter,
        Coll::ReduceScatterBlock,
        Coll::Scan,
        Coll::Exscan,
    ];

    /// Key in `[collectives]`; `VACED_COLL_` + its upper case is the
    /// environment variable.
    pub fn key(self) -> &'static str {
        match self {
            Coll::Barrier => "barrier",
            Coll::Bcast => "bcast",
            Coll::Reduce => "reduce",
            Coll::Allreduce => "allreduce",
            Coll::Gather => "gather",
            Coll::Gatherv => "gatherv",
            Coll::Scatter => "scatter",
            Coll::Scatterv => "scatterv",
            Coll::Allgather => "allgather",
            Coll::Allgatherv => "allgatherv",
            Coll::Alltoall => "alltoall",
            Coll::Alltoallv => "alltoallv",
            Coll::ReduceScatter => "reduce_scatter",
            Coll::ReduceScatterBlock => "reduce_scatter_block",
            Coll::Scan => "scan",
            Coll::Exscan => "exscan",
        }
    }

    pub fn env_var(self) -> String {
        format!("{ENV_PREFIX}{}", self.key().to_ascii_uppercase())
    }

    /// The algorithm names that can be forced.
    pub fn algorithms(self) -> &'static [&'static str] {
        match self {
            Coll::Barrier => BarrierAlgo::NAMES,
            Coll::Bcast => BcastAlgo::NAMES,
            Coll::Reduce => ReduceAlgo::NAMES,
            Coll::Allreduce => AllreduceAlgo::NAMES,
            Coll::Gather => GatherAlgo::NAMES,
            Coll::Gatherv => GathervAlgo::NAMES,
            Coll::Scatter => ScatterAlgo::NAMES,
            Coll::Scatterv => ScattervAlgo::NAMES,
            Coll::Allgather => AllgatherAlgo::NAMES,
            Coll::Allgatherv => AllgathervAlgo::NAMES,
            Coll::Alltoall => AlltoallAlgo::NAMES,
            Coll::Alltoallv => AlltoallvAlgo::NAMES,
            Coll::ReduceScatter | Coll::ReduceScatterBlock => ReduceScatterAlgo::NAMES,
            Coll::Scan => ScanAlgo::NAMES,
            Coll::Exscan => ExscanAlgo::NAMES,
        }
    }

    pub fn from_key(k: &str) -> Option<Coll> {
        Coll::ALL.iter().copied().find(|c| c.key() == k)
    }
}

pub const ENV_PREFIX: &str = "VACED_COLL_";

// ---- MPICH's default rules ---------------------------------------------------

fn pof2_floor(n: usize) -> usize {
    super::pof2_floor(n.max(1))
}

/// generic.json `bcast` (a communicator that is not node-aware).
pub fn bcast(comm_size: usize, nbytes: usize) -> BcastAlgo {
    if nbytes <= BCAST_SHORT_MSG_SIZE || comm_size < BCAST_MIN_PROCS {
        BcastAlgo::Binomial
    } else if nbytes <= BCAST_LONG_MSG_SIZE && comm_size.is_power_of_two() {
        BcastAlgo::ScatterDoublingAllgather
    } else {
        BcastAlgo::ScatterRingAllgather
    }
}

/// generic.json `reduce` (as MPICH 3.2's reduce.c).
pub fn reduce(comm_size: usize, count: usize, nbytes: usize, builtin: bool) -> ReduceAlgo {
    if nbytes > REDUCE_SHORT_MSG_SIZE && builtin && count >= pof2_floor(comm_size) {
        ReduceAlgo::RedscatGather
    } else {
        ReduceAlgo::Binomial
    }
}

/// generic.json `allreduce`.
pub fn allreduce(comm_size: usize, count: usize, nbytes: usize, builtin: bool) -> AllreduceAlgo {
    if nbytes <= ALLREDUCE_SHORT_MSG_SIZE || !builtin || count < pof2_floor(comm_size) {
        AllreduceAlgo::RecursiveDoubling
    } else {
        AllreduceAlgo::RedscatAllgather
    }
}

/// allgather.c MPIR_Allgather_intra (`total` bytes gathered on each rank).
pub fn allgather(comm_size: usize, total: usize) -> AllgatherAlgo {
    if total < ALLGATHER_LONG_MSG_SIZE && comm_size.is_power_of_two() {
        AllgatherAlgo::RecursiveDoubling
    } else if total < ALLGATHER_SHORT_MSG_SIZE {
        AllgatherAlgo::Bruck
    } else {
        AllgatherAlgo::Ring
    }
}

/// allgatherv.c MPIR_Allgatherv_intra (same rule as Allgather).
pub fn allgatherv(comm_size: usize, total: usize) -> AllgathervAlgo {
    match allgather(comm_size, total) {
        AllgatherAlgo::RecursiveDoubling => AllgathervAlgo::RecursiveDoubling,
        AllgatherAlgo::Bruck => AllgathervAlgo::Bruck,
        AllgatherAlgo::Ring => AllgathervAlgo::Ring,
    }
}

/// generic.json `alltoall` (`block` bytes per destination). The table says
/// Bruck only from `comm_size` 8 up (`comm_size<8` first), but MPICH 4.0.2
/// compares `<=` there: that condition, under `is_sendbuf_inplace`, is not
/// pruned when the communicator is created, and `MPIR_Csel_search` tests
/// `COMM_SIZE_LT` as `local_size <= val` (src/mpi/coll/src/csel.c). So
/// Bruck starts at 9 ranks.
pub fn alltoall(comm_size: usize, block: usize, in_place: bool) -> AlltoallAlgo {
    if in_place {
        AlltoallAlgo::PairwiseSendrecvReplace
    } else if block <= ALLTOALL_SHORT_MSG_SIZE && comm_size > 8 {
        AlltoallAlgo::Bruck
    } else if block <= ALLTOALL_MEDIUM_MSG_SIZE {
        AlltoallAlgo::Scattered
    } else {
        AlltoallAlgo::Pairwise
    }
}

/// alltoallv.c MPIR_Alltoallv_intra.
pub fn alltoallv(in_place: bool) -> AlltoallvAlgo {
    if in_place {
        AlltoallvAlgo::PairwiseSendrecvReplace
    } else {
        AlltoallvAlgo::Scattered
    }
}

/// red_scat.c / red_scat_block.c: `nbytes` is the whole input
/// (`total_count * type_size`); `regular`: all counts equal.
pub fn reduce_scatter(
    comm_size: usize,
    nbytes: usize,
    commutative: bool,
    regular: bool,
) -> ReduceScatterAlgo {
    if commutative && nbytes < REDSCAT_COMMUTATIVE_LONG_MSG_SIZE {
        ReduceScatterAlgo::RecursiveHalving
    } else if commutative {
        ReduceScatterAlgo::Pairwise
    } else {
        noncommutative_reduce_scatter(comm_size, regular)
    }
}

/// MPICH's choice for non-commutative operators.
fn noncommutative_reduce_scatter(comm_size: usize, regular: bool) -> ReduceScatterAlgo {
    if comm_size.is_power_of_two() && regular {
        ReduceScatterAlgo::Noncommutative
    } else {
        ReduceScatterAlgo::RecursiveDoubling
    }
}

/// What actually runs when `algo` is forced on a Reduce_scatter it cannot
/// serve: recursive halving and pairwise exchange combine blocks out of rank
/// order, so with a non-commutative operator they give way to MPICH's
/// non-commutative choice; the butterfly needs a power-of-two size and equal
/// counts, else recursive doubling runs.
pub fn reduce_scatter_fallback(
    algo: ReduceScatterAlgo,
    comm_size: usize,
    commutative: bool,
    regular: bool,
) -> ReduceScatterAlgo {
    match algo {
        ReduceScatterAlgo::RecursiveHalving | ReduceScatterAlgo::Pairwise if !commutative => {
            noncommutative_reduce_scatter(comm_size, regular)
        }
        ReduceScatterAlgo::Noncommutative if !(comm_size.is_power_of_two() && regular) => {
            ReduceScatterAlgo::RecursiveDoubling
        }
        a => a,
    }
}

// ---- forcing ---------------------------------------------------------------

/// `VACED_COLL_*` variables of this process, read once.
fn env_settings() -> &'static BTreeMap<String, String> {
    static ENV: OnceLock<BTreeMap<String, String>> = OnceLock::new();
    ENV.get_or_init(|| {
        std::env::vars()
            .filter(|(k, _)| k.starts_with(ENV_PREFIX))
            .collect()
    })
}

/// The forced algorithm name for `coll` and where it comes from: the
/// environment (looked up with `env`) wins over the target's table.
pub fn forced_name(
    model: &Model,
    coll: Coll,
    env: impl Fn(&str) -> Option<String>,
) -> Option<(String, String)> {
    let var = coll.env_var();
    if let Some(v) = env(&var) {
        return Some((v, var));
    }
    model
        .collectives
        .get(coll.key())
        .map(|v| (v.clone(), format!("[collectives] {}", coll.key())))
}

/// The algorithm forced for `coll`, if any. A name that is not valid panics
/// with a message naming it ([`validate`] rejects those at MPI_Init).
pub fn forced<A: Algorithm>(model: &Model, coll: Coll) -> Option<A> {
    let (name, origin) = forced_name(model, coll, |k| env_settings().get(k).cloned())?;
    match A::parse(&name) {
        Some(a) => Some(a),
        None => panic!("vaced: {}", bad_algorithm(&origin, coll, &name)),
    }
}

fn bad_algorithm(origin: &str, coll: Coll, name: &str) -> String {
    format!(
        "{origin} = \"{name}\": unknown algorithm for {} (valid: {})",
        coll.key(),
        coll.algorithms().join(", ")
    )
}

fn valid_keys() -> String {
    Coll::ALL
        .iter()
        .map(|c| c.key())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Checks every forced algorithm of the target's `[collectives]` table and
/// of the `VACED_COLL_*` environment variables; the error names the bad key
/// or value and lists the valid ones. Called at MPI_Init and by the launcher.
pub fn validate(model: &Model) -> Result<(), String> {
    validate_with(model, std::env::vars())
}

/// [`validate`] with the environment given as (name, value) pairs.
pub fn validate_with(
    model: &Model,
    env: impl IntoIterator<Item = (String, String)>,
) -> Result<(), String> {
    for (k, v) in &model.collectives {
        let origin = format!("target `{}`: [collectives] {k}", model.name);
        let Some(coll) = Coll::from_key(k) else {
            return Err(format!(
                "target `{}`: [collectives]: unknown collective `{k}` (valid: {})",
                model.name,
                valid_keys()
            ));
        };
        if !coll.algorithms().contains(&v.as_str()) {
            return Err(bad_algorithm(&origin, coll, v));
        }
    }
    let mut vars: Vec<(String, String)> = env
        .into_iter()
        .filter(|(k, _)| k.starts_with(ENV_PREFIX))
        .collect();
    vars.sort();
    for (k, v) in vars {
        let key = k[ENV_PREFIX.len()..].to_ascii_lowercase();
        let Some(coll) = Coll::from_key(&key) else {
            let valid: Vec<String> = Coll::ALL.iter().map(|c| c.env_var()).collect();
            return Err(format!(
                "environment variable {k}: unknown collective (valid: {})",
                valid.join(", ")
            ));
        };
        if !coll.algorithms().contains(&v.as_str()) {
            return Err(bad_algorithm(
                &format!("environment variable {k}"),
                coll,
                &v,
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Model;

    fn tianhe() -> Model {
        Model::load("tianhe1a").unwrap()
    }

    #[test]
    fn thresholds_on_both_sides() {
        use AllgatherAlgo as G;
        use AllreduceAlgo as A;
        use AlltoallAlgo as T;
        use BcastAlgo as B;
        use ReduceAlgo as R;
        use ReduceScatterAlgo as S;
        assert_eq!(bcast(16, 12288), B::Binomial);
        assert_eq!(bcast(16, 12289), B::ScatterDoublingAllgather);
        assert_eq!(bcast(7, 100_000), B::Binomial);
        assert_eq!(bcast(8, 100_000), B::ScatterDoublingAllgather);
        assert_eq!(bcast(12, 100_000), B::ScatterRingAllgather);
        assert_eq!(bcast(16, 524288), B::ScatterDoublingAllgather);
        assert_eq!(bcast(16, 524289), B::ScatterRingAllgather);

        assert_eq!(reduce(8, 256, 2048, true), R::Binomial);
        assert_eq!(reduce(8, 257, 2056, true), R::RedscatGather);
        assert_eq!(reduce(8, 257, 2056, false), R::Binomial);
        assert_eq!(reduce(12, 7, 4096, true), R::Binomial); // count < pof2 = 8
        assert_eq!(reduce(12, 8, 4096, true), R::RedscatGather);

        assert_eq!(allreduce(1, 1, 8, true), A::RecursiveDoubling);
        assert_eq!(allreduce(1, 2, 16, true), A::RedscatAllgather);
        assert_eq!(allreduce(8, 256, 2048, true), A::RedscatAllgather);
        assert_eq!(allreduce(8, 7, 56, true), A::RecursiveDoubling);
        assert_eq!(allreduce(8, 257, 2056, false), A::RecursiveDoubling);
        assert_eq!(allreduce(33, 31, 4096, true), A::RecursiveDoubling);
        assert_eq!(allreduce(33, 32, 4096, true), A::RedscatAllgather);

        assert_eq!(allgather(8, 524287), G::RecursiveDoubling);
        assert_eq!(allgather(8, 524288), G::Ring);
        assert_eq!(allgather(9, 81919), G::Bruck);
        assert_eq!(allgather(9, 81920), G::Ring);
        assert_eq!(allgatherv(6, 100), AllgathervAlgo::Bruck);

        assert_eq!(alltoall(9, 256, false), T::Bruck);
        assert_eq!(alltoall(8, 256, false), T::Scattered);
        assert_eq!(alltoall(7, 256, false), T::Scattered);
        assert_eq!(alltoall(8, 257, false), T::Scattered);
        assert_eq!(alltoall(8, 32768, false), T::Scattered);
        assert_eq!(alltoall(8, 32769, false), T::Pairwise);
        assert_eq!(alltoall(8, 8, true), T::PairwiseSendrecvReplace);
        assert_eq!(alltoallv(false), AlltoallvAlgo::Scattered);
        assert_eq!(alltoallv(true), AlltoallvAlgo::PairwiseSendrecvReplace);

        assert_eq!(reduce_scatter(6, 524287, true, false), S::RecursiveHalving);
        assert_eq!(reduce_scatter(6, 524288, true, false), S::Pairwise);
        assert_eq!(reduce_scatter(8, 64, false, true), S::Noncommutative);
        assert_eq!(reduce_scatter(8, 64, false, false), S::RecursiveDoubling);
        assert_eq!(reduce_scatter(6, 64, false, true), S::RecursiveDoubling);
    }

    #[test]
    fn forced_reduce_scatter_falls_back_where_it_cannot_run() {
        use ReduceScatterAlgo as S;
        assert_eq!(
            reduce_scatter_fallback(S::RecursiveHalving, 8, false, true),
            S::Noncommutative
        );
        assert_eq!(
            reduce_scatter_fallback(S::Pairwise, 6, false, true),
            S::RecursiveDoubling
        );
        assert_eq!(
            reduce_scatter_fallback(S::Pairwise, 6, true, false),
            S::Pairwise
        );
        assert_eq!(
            reduce_scatter_fallback(S::Noncommutative, 6, true, true),
            S::RecursiveDoubling
        );
        assert_eq!(
            reduce_scatter_fallback(S::Noncommutative, 8, false, false),
            S::RecursiveDoubling
        );
        assert_eq!(
            reduce_scatter_fallback(S::Noncommutative, 8, true, true),
            S::Noncommutative
        );
    }

    #[test]
    fn names_round_trip() {
        for c in Coll::ALL {
            assert_eq!(Coll::from_key(c.key()), Some(c));
            assert!(!c.algorithms().is_empty());
        }
        assert_eq!(Coll::Bcast.env_var(), "VACED_COLL_BCAST");
        assert_eq!(
            Coll::ReduceScatterBlock.env_var(),
            "VACED_COLL_REDUCE_SCATTER_BLOCK"
        );
        for n in BcastAlgo::NAMES {
            assert_eq!(BcastAlgo::parse(n).unwrap().name(), *n);
        }
        assert_eq!(BcastAlgo::parse("ring"), None);
    }

    #[test]
    fn environment_wins_over_the_target_file() {
        let mut m = tianhe();
        m.collectives.insert("bcast".into(), "binomial".into());
        let env = |k: &str| (k == "VACED_COLL_BCAST").then(|| "scatter_ring_allgather".to_string());
        let none = |_: &str| None;
        assert_eq!(
            forced_name(&m, Coll::Bcast, env),
            Some(("scatter_ring_allgather".into(), "VACED_COLL_BCAST".into()))
        );
        assert_eq!(
            forced_name(&m, Coll::Bcast, none),
            Some(("binomial".into(), "[collectives] bcast".into()))
        );
        assert_eq!(forced_name(&m, Coll::Reduce, env), None);
    }

    #[test]
    fn validation_names_the_bad_key_or_value() {
        let ok = tianhe();
        let env = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        assert_eq!(validate_with(&ok, env(&[("PATH", "/bin")])), Ok(()));
        assert_eq!(
            validate_with(&ok, env(&[("VACED_COLL_ALLTOALL", "bruck")])),
            Ok(())
        );

        let mut m = tianhe();
        m.collectives.insert("bcst".into(), "binomial".into());
        assert_eq!(
            validate_with(&m, env(&[])).unwrap_err(),
            "target `tianhe1a`: [collectives]: unknown collective `bcst` (valid: barrier, bcast, \
             reduce, allreduce, gather, gatherv, scatter, scatterv, allgather, allgatherv, \
             alltoall, alltoallv, reduce_scatter, reduce_scatter_block, scan, exscan)"
        );
        let mut m = tianhe();
        m.collectives.insert("bcast".into(), "ring".into());
        assert_eq!(
            validate_with(&m, env(&[])).unwrap_err(),
            "target `tianhe1a`: [collectives] bcast = \"ring\": unknown algorithm for bcast \
             (valid: binomial, scatter_doubling_allgather, scatter_ring_allgather)"
        );
        assert_eq!(
            validate_with(&ok, env(&[("VACED_COLL_ALLREDUCE", "rabenseifner")])).unwrap_err(),
            "environment variable VACED_COLL_ALLREDUCE = \"rabenseifner\": unknown algorithm for \
             allreduce (valid: recursive_doubling, redscat_allgather)"
        );
        let e = validate_with(&ok, env(&[("VACED_COLL_BCST", "binomial")])).unwrap_err();
        assert!(
            e.starts_with("environment variable VACED_COLL_BCST: unknown collective (valid: VACED_COLL_BARRIER, VACED_COLL_BCAST,"),
            "{e}"
        );
    }
}
