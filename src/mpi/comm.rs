//! Communicators (intra- and inter-, see `mpi::intercomm`): context id,
//! group (comm rank -> world rank), the calling
//! rank's place in it, its error handler, name, attributes and Cartesian
//! topology (Cartesian, graph or distributed graph); and the handle table holding MPI_COMM_WORLD, MPI_COMM_SELF and
//! the derived communicators, with what hangs off them: the context ids in
//! use ([`ContextMask`]), group handles and attribute keyvals.
use crate::mpi::attr::{Attr, KeyvalTable};
use crate::mpi::comm_info::Hints;
use crate::mpi::context::SharedMask;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::graph::GraphTopo;
use crate::mpi::group::GroupTable;
use crate::mpi::topo::Cart;
use crate::sys;
use std::collections::HashMap;
use std::sync::Arc;

/// Context id of MPI_COMM_WORLD.
pub const WORLD_CTX: u32 = 0;
/// Context id of MPI_COMM_SELF.
pub const SELF_CTX: u32 = 1;

/// An ordered set of world ranks: `ranks[r]` is the world rank of rank `r`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    ranks: Vec<u32>,
}

impl Group {
    pub fn new(ranks: Vec<u32>) -> Group {
        Group { ranks }
    }
    pub fn size(&self) -> u32 {
        self.ranks.len() as u32
    }
    /// The world rank of each member, in group order.
    pub fn ranks(&self) -> &[u32] {
        &self.ranks
    }
    /// World rank of group rank `r`.
    pub fn world_rank(&self, r: u32) -> Option<u32> {
        self.ranks.get(r as usize).copied()
    }
    /// Group rank of world rank `w`.
    pub fn rank_of(&self, w: u32) -> Option<u32> {
        // O(1) for MPI_COMM_WORLD (and any group where w sits at index w)
        if self.ranks.get(w as usize) == Some(&w) {
            return Some(w);
        }
        self.ranks.iter().position(|&x| x == w).map(|p| p as u32)
    }
}

/// A communicator: an intracommunicator, or an intercommunicator when
/// `inter` is set (then `group` and `my_rank` are the local group's).
#[derive(Debug, Clone)]
pub struct Comm {
    pub ctx: u32,
    pub group: Arc<Group>,
    /// The calling process's rank in `group`.
    pub my_rank: u32,
    pub errhandler: sys::MPI_Errhandler,
    /// MPI_Comm_set_name / MPI_Comm_get_name.
    pub name: String,
    /// Attributes, in the order they were set.
    pub attrs: Vec<Attr>,
    /// Cartesian topology, if any.
    pub topo: Option<Arc<Cart>>,
    /// Info hints (MPI_Comm_set_info).
    pub hints: Hints,
    /// Graph or distributed-graph topology, if any.
    pub graph: Option<Arc<GraphTopo>>,
    /// Nonblocking collectives started on it (their tags).
    pub nbc_seq: u32,
    /// The remote group and send context of an intercommunicator
    /// (`crate::mpi::intercomm`); None for an intracommunicator.
    pub inter: Option<Arc<crate::mpi::intercomm::Inter>>,
    /// MPICH's "tainted": made by MPI_Intercomm_merge, or derived from a
    /// communicator that was. Such communicators get no sequence number
    /// broadcast when they are made ([`crate::mpi::state::World::commit`]).
    pub tainted: bool,
}

impl Comm {
    /// A communicator with no name, attribute or topology.
    pub fn new(ctx: u32, group: Arc<Group>, my_rank: u32, errhandler: sys::MPI_Errhandler) -> Comm {
        Comm {
            ctx,
            group,
            my_rank,
            errhandler,
            name: String::new(),
            attrs: Vec::new(),
            topo: None,
            hints: Hints::default(),
            graph: None,
            nbc_seq: 0,
            inter: None,
            tainted: false,
        }
    }

    pub fn size(&self) -> u32 {
        self.group.size()
    }

    /// Whether it is an intercommunicator.
    pub fn is_inter(&self) -> bool {
        self.inter.is_some()
    }

    /// The group point-to-point ranks name: the remote group of an
    /// intercommunicator, else the group.
    pub fn peer_group(&self) -> &Arc<Group> {
        self.inter.as_ref().map_or(&self.group, |i| &i.remote)
    }

    /// The context id messages are sent with (the remote group's receive
    /// context for an intercommunicator); `ctx` is the one received on.
    pub fn send_ctx(&self) -> u32 {
        self.inter.as_ref().map_or(self.ctx, |i| i.send_ctx)
    }
}

/// Where a receive or probe may take its message from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// MPI_PROC_NULL: completes at once with an empty message.
    ProcNull,
    /// MPI_ANY_SOURCE.
    Any,
    /// A world rank.
    Rank(u32),
}

/// Communicator handles -> communicators.
#[derive(Debug, Clone)]
pub struct CommTable {
    map: HashMap<sys::MPI_Comm, Comm>,
    next_handle: sys::MPI_Comm,
    /// Context ids this process has free.
    pub ctx_mask: SharedMask,
    /// MPI_Comm_idup agreements in flight (`mpi::comm_idup`).
    pub idups: crate::mpi::comm_idup::Idups,
    pub groups: GroupTable,
    pub keyvals: KeyvalTable,
}

/// Derived communicators get handles from this base up (MPICH's pattern for
/// non-builtin communicators).
const FIRST_DERIVED_HANDLE: sys::MPI_Comm = 0x84000000u32 as sys::MPI_Comm;

impl CommTable {
    /// MPI_COMM_WORLD over `size` ranks and MPI_COMM_SELF, as seen by world
    /// rank `me`; both start with MPI_ERRORS_ARE_FATAL.
    pub fn new(me: u32, size: u32) -> CommTable {
        let mut map = HashMap::new();
        let world = Arc::new(Group::new((0..size).collect()));
        let mut w = Comm::new(WORLD_CTX, world, me, sys::MPI_ERRORS_ARE_FATAL);
        w.name = "MPI_COMM_WORLD".to_string();
        map.insert(sys::MPI_COMM_WORLD, w);
        let me_only = Arc::new(Group::new(vec![me]));
        let mut s = Comm::new(SELF_CTX, me_only, 0, sys::MPI_ERRORS_ARE_FATAL);
        s.name = "MPI_COMM_SELF".to_string();
        map.insert(sys::MPI_COMM_SELF, s);
        CommTable {
            map,
            next_handle: FIRST_DERIVED_HANDLE,
            ctx_mask: SharedMask::new(),
            idups: Default::default(),
            groups: GroupTable::default(),
            keyvals: KeyvalTable::default(),
        }
    }

    /// The communicator behind `handle`; MPI_ERR_COMM for a null or unknown one.
    pub fn get(&self, handle: sys::MPI_Comm) -> MpiResult<&Comm> {
        match self.map.get(&handle) {
            Some(c) => Ok(c),
            None => fail(sys::MPI_ERR_COMM, bad_comm(handle)),
        }
    }

    pub fn get_mut(&mut self, handle: sys::MPI_Comm) -> MpiResult<&mut Comm> {
        match self.map.get_mut(&handle) {
            Some(c) => Ok(c),
            None => fail(sys::MPI_ERR_COMM, bad_comm(handle)),
        }
    }

    /// Register a new communicator; its handle.
    pub fn insert(&mut self, comm: Comm) -> sys::MPI_Comm {
        let h = self.next_handle;
        self.next_handle += 1;
        self.map.insert(h, comm);
        h
    }

    /// Check that `handle` is a communicator the program may free.
    pub fn freeable(&self, handle: sys::MPI_Comm) -> MpiResult<&Comm> {
        if handle == sys::MPI_COMM_WORLD || handle == sys::MPI_COMM_SELF {
            return fail(
                sys::MPI_ERR_COMM,
                "predefined communicators cannot be freed",
            );
        }
        self.get(handle)
    }

    /// Remove a derived communicator (the predefined ones cannot be freed).
    pub fn remove(&mut self, handle: sys::MPI_Comm) -> MpiResult<Comm> {
        self.freeable(handle)?;
        Ok(self.map.remove(&handle).expect("checked"))
    }

    /// MPI_Comm_free, once the delete callbacks have run: the handle becomes
    /// invalid, the attributes go, the context id is free again.
    pub fn free(&mut self, handle: sys::MPI_Comm) -> MpiResult<()> {
        let kvs: Vec<i32> = self
            .freeable(handle)?
            .attrs
            .iter()
            .map(|a| a.keyval)
            .collect();
        self.drop_attrs(handle, &kvs)?;
        let c = self.remove(handle)?;
        self.ctx_mask.release(c.ctx);
        Ok(())
    }

    /// Live derived communicators (tests).
    pub fn derived(&self) -> usize {
        self.map.len() - 2
    }

    /// Check a destination rank: None for MPI_PROC_NULL, else the world rank.
    pub fn dest(&self, handle: sys::MPI_Comm, rank: i32) -> MpiResult<Option<u32>> {
        let c = self.get(handle)?;
        if rank == sys::MPI_PROC_NULL {
            return Ok(None);
        }
        let g = c.peer_group();
        match u32::try_from(rank).ok().and_then(|r| g.world_rank(r)) {
            Some(w) => Ok(Some(w)),
            None => fail(
                sys::MPI_ERR_RANK,
                format!(
                    "invalid destination rank {} ({} size {})",
                    rank,
                    size_name(c),
                    g.size()
                ),
            ),
        }
    }

    /// Check a source rank (receives and probes).
    pub fn source(&self, handle: sys::MPI_Comm, rank: i32) -> MpiResult<Source> {
        let c = self.get(handle)?;
        match rank {
            sys::MPI_PROC_NULL => Ok(Source::ProcNull),
            sys::MPI_ANY_SOURCE => Ok(Source::Any),
            _ => match u32::try_from(rank)
                .ok()
                .and_then(|r| c.peer_group().world_rank(r))
            {
                Some(w) => Ok(Source::Rank(w)),
                None => fail(
                    sys::MPI_ERR_RANK,
                    format!(
                        "invalid source rank {} ({} size {})",
                        rank,
                        size_name(c),
                        c.peer_group().size()
                    ),
                ),
            },
        }
    }
}

/// What the size in a rank error is the size of.
fn size_name(c: &Comm) -> &'static str {
    if c.is_inter() {
        "remote group"
    } else {
        "communicator"
    }
}

fn bad_comm(handle: sys::MPI_Comm) -> String {
    if handle == sys::MPI_COMM_NULL {
        "MPI_COMM_NULL is not a valid communicator".to_string()
    } else {
        format!("invalid communicator handle {handle:#x}")
    }
}

/// Check a tag for a send: 0..=MPI_TAG_UB_VALUE.
pub fn check_send_tag(tag: i32) -> MpiResult<i32> {
    if (0..=sys::MPI_TAG_UB_VALUE).contains(&tag) {
        Ok(tag)
    } else {
        fail(
            sys::MPI_ERR_TAG,
            format!(
                "invalid send tag {} (must be 0..={})",
                tag,
                sys::MPI_TAG_UB_VALUE
            ),
        )
    }
}

/// Check a tag for a receive or probe: None for MPI_ANY_TAG.
pub fn check_recv_tag(tag: i32) -> MpiResult<Option<i32>> {
    if tag == sys::MPI_ANY_TAG {
        return Ok(None);
    }
    if (0..=sys::MPI_TAG_UB_VALUE).contains(&tag) {
        Ok(Some(tag))
    } else {
        fail(
            sys::MPI_ERR_TAG,
            format!(
                "invalid receive tag {} (must be MPI_ANY_TAG or 0..={})",
                tag,
                sys::MPI_TAG_UB_VALUE
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn world_and_self() {
        let t = CommTable::new(2, 4);
        let w = t.get(sys::MPI_COMM_WORLD).unwrap();
        assert_eq!((w.ctx, w.my_rank, w.size()), (WORLD_CTX, 2, 4));
        assert_eq!(w.errhandler, sys::MPI_ERRORS_ARE_FATAL);
        let s = t.get(sys::MPI_COMM_SELF).unwrap();
        assert_eq!((s.ctx, s.my_rank, s.size()), (SELF_CTX, 0, 1));
        assert_eq!(s.group.world_rank(0), Some(2));
        assert_eq!(s.group.rank_of(2), Some(0));
        assert_eq!(s.group.rank_of(0), None);
    }

    #[test]
    fn invalid_comms() {
        let t = CommTable::new(0, 4);
        let e = t.get(sys::MPI_COMM_NULL).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_COMM);
        assert_eq!(e.msg, "MPI_COMM_NULL is not a valid communicator");
        let e = t.get(12345).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_COMM);
        assert_eq!(e.msg, "invalid communicator handle 0x3039");
    }

    #[test]
    fn rank_checks() {
        let t = CommTable::new(1, 4);
        let w = sys::MPI_COMM_WORLD;
        assert_eq!(t.dest(w, 3).unwrap(), Some(3));
        assert_eq!(t.dest(w, sys::MPI_PROC_NULL).unwrap(), None);
        let e = t.dest(w, 99).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_RANK);
        assert_eq!(e.msg, "invalid destination rank 99 (communicator size 4)");
        assert_eq!(
            t.dest(w, sys::MPI_ANY_SOURCE).unwrap_err().class,
            sys::MPI_ERR_RANK
        );
        assert_eq!(t.dest(w, 4).unwrap_err().class, sys::MPI_ERR_RANK);
        assert_eq!(t.source(w, sys::MPI_ANY_SOURCE).unwrap(), Source::Any);
        assert_eq!(t.source(w, sys::MPI_PROC_NULL).unwrap(), Source::ProcNull);
        assert_eq!(t.source(w, 0).unwrap(), Source::Rank(0));
        assert_eq!(
            t.source(w, -5).unwrap_err().msg,
            "invalid source rank -5 (communicator size 4)"
        );
        // MPI_COMM_SELF rank 0 is world rank 1
        assert_eq!(t.dest(sys::MPI_COMM_SELF, 0).unwrap(), Some(1));
        assert_eq!(
            t.dest(sys::MPI_COMM_SELF, 1).unwrap_err().class,
            sys::MPI_ERR_RANK
        );
        assert_eq!(
            t.dest(sys::MPI_COMM_NULL, 0).unwrap_err().class,
            sys::MPI_ERR_COMM
        );
    }

    #[test]
    fn tag_checks() {
        assert_eq!(check_send_tag(0).unwrap(), 0);
        assert_eq!(check_send_tag(sys::MPI_TAG_UB_VALUE).unwrap(), i32::MAX);
        assert_eq!(
            check_send_tag(sys::MPI_ANY_TAG).unwrap_err().class,
            sys::MPI_ERR_TAG
        );
        assert_eq!(
            check_send_tag(-7).unwrap_err().msg,
            "invalid send tag -7 (must be 0..=2147483647)"
        );
        assert_eq!(check_recv_tag(sys::MPI_ANY_TAG).unwrap(), None);
        assert_eq!(check_recv_tag(5).unwrap(), Some(5));
        assert_eq!(check_recv_tag(-2).unwrap_err().class, sys::MPI_ERR_TAG);
    }

    #[test]
    fn derived_handles_and_removal() {
        let mut t = CommTable::new(0, 2);
        let c = t.get(sys::MPI_COMM_WORLD).unwrap().clone();
        let h = t.insert(Comm { ctx: 7, ..c });
        assert_eq!(t.derived(), 1);
        assert_eq!(h, FIRST_DERIVED_HANDLE);
        assert_eq!(t.get(h).unwrap().ctx, 7);
        assert_eq!(t.remove(h).unwrap().ctx, 7);
        assert_eq!(t.get(h).unwrap_err().class, sys::MPI_ERR_COMM);
        assert_eq!(
            t.remove(sys::MPI_COMM_WORLD).unwrap_err().class,
            sys::MPI_ERR_COMM
        );
    }

    #[test]
    fn group_rank_of_permuted() {
        let g = Group::new(vec![5, 3, 9]);
        assert_eq!(g.rank_of(9), Some(2));
        assert_eq!(g.rank_of(3), Some(1));
        assert_eq!(g.rank_of(1), None);
        assert_eq!(g.world_rank(1), Some(3));
        assert_eq!(g.world_rank(3), None);
    }
}
