//! Communicator constructors, collective over the parent communicator and
//! built the way MPICH 4.0.2 builds them, so that they cost the same
//! messages:
//! * MPI_Comm_dup: a context id agreed over the parent (an allreduce with
//!   bitwise AND of the 64-int context mask and a flag int,
//!   `MPIR_Get_contextid_sparse`, see `agree::with_flag`);
//! * MPI_Comm_split (and split_type, Cart_sub, Cart_create with reorder):
//!   an allgather of (color, key), 2 ints per rank, then a context id over
//!   the parent, shared by all the new communicators (their groups are
//!   disjoint);
//! * MPI_Comm_create: a context id over the parent, then each member builds
//!   the group locally;
//! * MPI_Cart_create without reorder: a copy of the parent's first ranks
//!   (`MPIR_Comm_copy`: every rank takes the id, those outside give it back).
//!
//! Every new communicator inherits the parent's error handler. Every new
//! intracommunicator then gets a sequence number broadcast from its rank 0
//! (`MPIR_Comm_commit`'s `init_comm_seq`, [`World::commit`]) unless MPICH
//! marks it tainted: made by MPI_Intercomm_merge, or from a communicator
//! that was. MPI_Comm_idup's communicators get none (MPICH broadcasts it
//! from inside the schedule's last callback).
use crate::mpi::agree::Agree;
use crate::mpi::attr::NewValue;
use crate::mpi::backend::Backend;
use crate::mpi::comm::{Comm, Group};
use crate::mpi::context::lowest_free;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::group;
use crate::mpi::intercomm::{self, intra_only, InterOps};
use crate::mpi::state::World;
use crate::mpi::topo::{check_grid, Cart};
use crate::sys::{self, MPI_Comm, MPI_Group};
use std::os::raw::c_int;
use std::sync::Arc;

/// MPI_ERR_ARG unless `color` is non-negative or MPI_UNDEFINED.
pub(crate) fn check_color(color: c_int) -> MpiResult<()> {
    if color < 0 && color != sys::MPI_UNDEFINED {
        return fail(
            sys::MPI_ERR_ARG,
            format!("invalid color {color} (must be non-negative or MPI_UNDEFINED)"),
        );
    }
    Ok(())
}

/// My communicator of a split of `p` whose gathered (color, key) pairs
/// (2 ints per parent rank) are `table`: its members' world ranks (same
/// color, ordered by key, ties by rank in the parent) and my rank in it.
pub(crate) fn split_members(p: &Comm, table: &[u8], color: c_int) -> (Vec<u32>, u32) {
    let (n, me) = (p.size() as usize, p.my_rank as usize);
    let int = |i: usize| c_int::from_ne_bytes(table[i..i + 4].try_into().expect("4 bytes"));
    let mut same: Vec<(c_int, usize)> = (0..n)
        .filter(|&r| int(8 * r) == color)
        .map(|r| (int(8 * r + 4), r))
        .collect();
    same.sort_unstable();
    let my_rank = same
        .iter()
        .position(|&(_, r)| r == me)
        .expect("I am in my color");
    let ranks = same.iter().map(|&(_, r)| p.group.ranks()[r]).collect();
    (ranks, my_rank as u32)
}

/// The hardware resource type every MPI-4 implementation knows: the
/// processes that share memory (in vaced, a target node).
pub const HW_SHARED_MEMORY: &str = "mpi_shared_memory";

impl<E: Backend + Agree> World<E> {
    /// [`World::commit`] of `c` made from `parent`, or MPI_COMM_NULL.
    pub(crate) fn register(&mut self, c: Option<Comm>, parent: &Comm) -> MPI_Comm {
        c.map_or(sys::MPI_COMM_NULL, |c| self.commit(c, parent.tainted))
    }

    /// A new communicator `c` is ready: as MPICH 4.0.2's `MPIR_Comm_commit`,
    /// an intracommunicator that is not `tainted` (made by
    /// MPI_Intercomm_merge or from one that was) gets a sequence number
    /// broadcast from its rank 0 (an int, `init_comm_seq`), which costs
    /// those messages. Nonblocking constructors (`comm_idup`) do not.
    pub(crate) fn commit(&mut self, mut c: Comm, tainted: bool) -> MPI_Comm {
        c.tainted = tainted;
        self.seq_bcast(&c);
        self.comms.insert(c)
    }

    /// The sequence number broadcast of [`World::commit`] for a
    /// communicator made by a nonblocking agreement and waited for at once
    /// (MPI_Comm_create_from_group under MPI_THREAD_MULTIPLE), as MPICH's
    /// blocking constructor sends it.
    pub fn announce(&mut self, comm: MPI_Comm) -> MpiResult<()> {
        let c = self.comms.get(comm)?.clone();
        self.seq_bcast(&c);
        Ok(())
    }

    fn seq_bcast(&mut self, c: &Comm) {
        if !c.is_inter() && !c.tainted {
            self.ep
                .bcast_int(c.group.ranks(), c.my_rank as usize, c.ctx);
        }
    }
}

impl<E: Backend + Agree + InterOps> World<E> {
    /// Agree on a new context id over `parent` (collective); a member of
    /// the new communicator takes it, a non-member does not constrain it.
    pub(crate) fn new_context(&mut self, parent: &Comm, member: bool) -> MpiResult<u32> {
        self.quiesce_idups();
        let mut mask = self.comms.free_mask(member);
        let (ranks, me) = (parent.group.ranks(), parent.my_rank as usize);
        self.ep.allreduce_band(ranks, me, parent.ctx, &mut mask);
        let id = lowest_free(&mask)?;
        if member {
            self.comms.ctx_mask.take(id);
        }
        Ok(id)
    }

    pub(crate) fn parent(&self, comm: MPI_Comm) -> MpiResult<Comm> {
        self.comms.get(comm).cloned()
    }

    /// MPI_Comm_dup, once the copy callbacks have given the new
    /// communicator's attributes. The topology is duplicated too.
    pub fn comm_dup(&mut self, comm: MPI_Comm, attrs: Vec<NewValue>) -> MpiResult<MPI_Comm> {
        let p = self.parent(comm)?;
        if p.is_inter() {
            return self.inter_dup(&p, attrs);
        }
        let ctx = self.new_context(&p, true)?;
        let mut c = Comm::new(ctx, p.group.clone(), p.my_rank, p.errhandler);
        c.topo = p.topo.clone();
        c.hints = p.hints;
        c.graph = p.graph.clone();
        c.attrs = self.comms.adopt_attrs(attrs);
        Ok(self.commit(c, p.tainted))
    }

    /// The (color, key) split of `p`: this process's part (not registered),
    /// None for MPI_UNDEFINED.
    pub(crate) fn split(&mut self, p: &Comm, color: c_int, key: c_int) -> MpiResult<Option<Comm>> {
        check_color(color)?;
        let (n, me) = (p.size() as usize, p.my_rank as usize);
        let mut table = vec![0u8; 8 * n];
        table[8 * me..8 * me + 4].copy_from_slice(&color.to_ne_bytes());
        table[8 * me + 4..8 * me + 8].copy_from_slice(&key.to_ne_bytes());
        self.ep.allgather(p.group.ranks(), me, p.ctx, &mut table);
        let member = color != sys::MPI_UNDEFINED;
        let ctx = self.new_context(p, member)?;
        if !member {
            return Ok(None);
        }
        let (ranks, my_rank) = split_members(p, &table, color);
        Ok(Some(Comm::new(
            ctx,
            Arc::new(Group::new(ranks)),
            my_rank,
            p.errhandler,
        )))
    }

    /// MPI_Comm_split: MPI_COMM_NULL for MPI_UNDEFINED.
    pub fn comm_split(&mut self, comm: MPI_Comm, color: c_int, key: c_int) -> MpiResult<MPI_Comm> {
        let p = self.parent(comm)?;
        if p.is_inter() {
            return self.inter_split(&p, color, key);
        }
        let c = self.split(&p, color, key)?;
        Ok(self.register(c, &p))
    }

    /// MPI_Comm_split_type: MPI_COMM_TYPE_SHARED groups the ranks that run
    /// on the same target node (world ranks map to nodes as in the model).
    /// MPI_Comm_split_type: MPI_COMM_TYPE_SHARED and MPI-4's
    /// MPI_COMM_TYPE_HW_GUIDED with `resource` (the info's
    /// "mpi_hw_resource_type": only "mpi_shared_memory", a target node, is
    /// known; anything else gives MPI_COMM_NULL) split by target node;
    /// MPI_COMM_TYPE_HW_UNGUIDED splits by target node when the
    /// communicator spans several (else MPI_COMM_NULL). A collective call
    /// in every case (the split's agreement).
    pub fn comm_split_type(
        &mut self,
        comm: MPI_Comm,
        split_type: c_int,
        key: c_int,
        resource: Option<&str>,
    ) -> MpiResult<MPI_Comm> {
        let p = self.parent(comm)?;
        let node = self.ep.node_of(self.rank()) as c_int;
        let color = match split_type {
            sys::MPI_UNDEFINED => sys::MPI_UNDEFINED,
            sys::MPI_COMM_TYPE_SHARED => node,
            sys::MPI_COMM_TYPE_HW_GUIDED => match resource {
                Some(HW_SHARED_MEMORY) => node,
                // no info, no key, or a resource type vaced does not know
                _ => sys::MPI_UNDEFINED,
            },
            sys::MPI_COMM_TYPE_HW_UNGUIDED => {
                // the level below the whole communicator: target nodes, if
                // it spans several
                let first = self.ep.node_of(p.group.ranks()[0]);
                let spans = p.group.ranks().iter().any(|&r| self.ep.node_of(r) != first);
                if spans {
                    node
                } else {
                    sys::MPI_UNDEFINED
                }
            }
            _ => {
                return fail(
                    sys::MPI_ERR_ARG,
                    format!(
                        "invalid split_type {split_type} (MPI_COMM_TYPE_SHARED, \
                         MPI_COMM_TYPE_HW_GUIDED, MPI_COMM_TYPE_HW_UNGUIDED or MPI_UNDEFINED)"
                    ),
                )
            }
        };
        if p.is_inter() {
            return self.inter_split(&p, color, key);
        }
        if split_type == sys::MPI_COMM_TYPE_SHARED {
            return self.split_type_shared(&p, node, key);
        }
        let c = self.split(&p, color, key)?;
        Ok(self.register(c, &p))
    }

    /// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) of intracommunicator `p`,
    /// with the messages of MPICH 4.0.2's ch3:nemesis (`split_type`,
    /// `MPIR_Comm_split_type_node_topo`): a split of `p` with one color
    /// (the undefined ranks' split), a split of that by target node, and
    /// the "shmem_topo" hint compared over the result
    /// (`MPII_compare_info_hint`: allreduces of its length (MAX), of that
    /// length's equality (LAND), of its bytes and of their equality; no
    /// hint is given: 0 bytes); the first split is freed.
    fn split_type_shared(&mut self, p: &Comm, node: c_int, key: c_int) -> MpiResult<MPI_Comm> {
        let all = self.split(p, 0, key)?;
        let all = self.register(all, p);
        let q = self.parent(all)?;
        let c = self.split(&q, node, key)?;
        let shared = self.register(c, &q);
        let s = self.parent(shared)?;
        let (ranks, me) = (s.group.ranks(), s.my_rank as usize);
        for bytes in [4, 4, 0, 4] {
            self.ep.allreduce_bytes(ranks, me, s.ctx, bytes);
        }
        self.comms.free(all)?;
        Ok(shared)
    }

    /// MPI_Comm_create: `group` must be a subgroup of the parent's.
    pub fn comm_create(&mut self, comm: MPI_Comm, group: MPI_Group) -> MpiResult<MPI_Comm> {
        let p = self.parent(comm)?;
        if p.is_inter() {
            return self.inter_create(&p, group);
        }
        let g = self.comms.groups.get(group)?;
        if let Some(w) = g.ranks().iter().find(|&&w| p.group.rank_of(w).is_none()) {
            return fail(
                sys::MPI_ERR_GROUP,
                format!(
                    "the group is not a subgroup of the communicator's group \
                     (process {w} of MPI_COMM_WORLD is not in the communicator)"
                ),
            );
        }
        let mine = g.rank_of(self.rank());
        let ctx = self.new_context(&p, mine.is_some())?;
        let c = mine.map(|r| Comm::new(ctx, g.clone(), r, p.errhandler));
        Ok(self.register(c, &p))
    }

    /// MPI_Cart_create. Ranks are kept (reorder changes nothing), but with
    /// reorder the communicator is built by a split, as MPICH does.
    pub fn cart_create(
        &mut self,
        comm: MPI_Comm,
        dims: &[c_int],
        periods: &[bool],
        reorder: bool,
    ) -> MpiResult<MPI_Comm> {
        let p = self.parent(comm)?;
        intra_only(&p)?;
        let n = check_grid(dims.len() as c_int, dims, p.size())?;
        let c = if dims.is_empty() {
            // A zero-dimensional grid: rank 0 gets a communicator of itself.
            if p.my_rank != 0 {
                return Ok(sys::MPI_COMM_NULL);
            }
            let s = self.parent(sys::MPI_COMM_SELF)?;
            let ctx = self.new_context(&s, true)?;
            Some(Comm::new(ctx, s.group.clone(), 0, p.errhandler))
        } else if reorder {
            let inside = p.my_rank < n;
            let color = if inside { 1 } else { sys::MPI_UNDEFINED };
            self.split(&p, color, p.my_rank as c_int)?
        } else {
            let ctx = self.new_context(&p, true)?;
            if p.my_rank >= n {
                self.comms.ctx_mask.release(ctx);
                None
            } else {
                let first = p.group.ranks()[..n as usize].to_vec();
                Some(Comm::new(
                    ctx,
                    Arc::new(Group::new(first)),
                    p.my_rank,
                    p.errhandler,
                ))
            }
        };
        let c = c.map(|mut c| {
            c.topo = Some(Arc::new(Cart::new(
                dims.to_vec(),
                periods.to_vec(),
                c.my_rank,
            )));
            c
        });
        Ok(self.register(c, &p))
    }

    /// MPI_Cart_sub: a split by the coordinates dropped, ordered by those
    /// kept. With no dimension kept, the result is MPI_Cart_create of a
    /// zero-dimensional grid over the whole parent, as MPICH 4.0.2 does:
    /// rank 0 of the parent gets a one-process communicator (congruent to
    /// MPI_COMM_SELF, its context agreed over MPI_COMM_SELF like MPICH's
    /// dup of it) and every other process MPI_COMM_NULL (MPICH's
    /// cartsuball test expects exactly this).
    pub fn cart_sub(&mut self, comm: MPI_Comm, remain: &[bool]) -> MpiResult<MPI_Comm> {
        let p = self.parent(comm)?;
        let cart = cart_of(&p)?.clone();
        if !remain.iter().any(|&k| k) {
            return self.cart_create(comm, &[], &[], false);
        }
        let (color, key, dims, periods) = cart.sub(remain);
        let mut c = self
            .split(&p, color, key)?
            .expect("a color for every process");
        c.topo = Some(Arc::new(Cart::new(dims, periods, c.my_rank)));
        Ok(self.commit(c, p.tainted))
    }
}

/// The Cartesian topology of `c`; MPI_ERR_TOPOLOGY if it has none.
pub fn cart_of(c: &Comm) -> MpiResult<&Arc<Cart>> {
    match &c.topo {
        Some(t) => Ok(t),
        None => fail(
            sys::MPI_ERR_TOPOLOGY,
            "the communicator has no Cartesian topology",
        ),
    }
}

impl crate::mpi::comm::CommTable {
    /// MPI_Comm_compare.
    pub fn compare(&self, a: MPI_Comm, b: MPI_Comm) -> MpiResult<c_int> {
        let (x, y) = (self.get(a)?, self.get(b)?);
        if a == b {
            return Ok(sys::MPI_IDENT);
        }
        if let Some(r) = intercomm::compare(x, y) {
            return Ok(r);
        }
        Ok(match group::compare(&x.group, &y.group) {
            sys::MPI_IDENT => sys::MPI_CONGRUENT,
            r => r,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::fake::Fake;

    /// A world of one rank: collectives over one member exchange nothing.
    impl Agree for Fake {
        fn allgather(&mut self, ranks: &[u32], _: usize, _: u32, _: &mut [u8]) {
            assert_eq!(
                ranks.len(),
                1,
                "the fake runs single-member collectives only"
            );
        }
        fn allreduce_band(&mut self, ranks: &[u32], _: usize, _: u32, _: &mut [u8]) {
            assert_eq!(
                ranks.len(),
                1,
                "the fake runs single-member collectives only"
            );
        }
        fn allreduce_bytes(&mut self, ranks: &[u32], _: usize, _: u32, _: usize) {
            assert_eq!(
                ranks.len(),
                1,
                "the fake runs single-member collectives only"
            );
        }
        fn bcast_int(&mut self, ranks: &[u32], _: usize, _: u32) {
            assert_eq!(
                ranks.len(),
                1,
                "the fake runs single-member collectives only"
            );
        }
        fn node_of(&self, world_rank: u32) -> u32 {
            world_rank / 12
        }
    }

    fn world() -> World<Fake> {
        World::new(Fake::new(0, 1), sys::MPI_THREAD_SINGLE)
    }

    #[test]
    fn dup_split_free_recycle_context_ids() {
        let mut w = world();
        w.set_errhandler(sys::MPI_COMM_WORLD, sys::MPI_ERRORS_RETURN)
            .unwrap();
        let a = w.comm_dup(sys::MPI_COMM_WORLD, Vec::new()).unwrap();
        let b = w.comm_split(a, 5, 0).unwrap();
        let c = w.comm_split(b, sys::MPI_UNDEFINED, 0).unwrap();
        assert_eq!(c, sys::MPI_COMM_NULL);
        let (ca, cb) = (w.comms.get(a).unwrap(), w.comms.get(b).unwrap());
        assert_eq!((ca.ctx, cb.ctx), (2, 3));
        // inherited error handler
        assert_eq!(cb.errhandler, sys::MPI_ERRORS_RETURN);
        assert_eq!(w.comms.compare(a, b).unwrap(), sys::MPI_CONGRUENT);
        assert_eq!(w.comms.compare(a, a).unwrap(), sys::MPI_IDENT);
        assert_eq!(
            w.comms.compare(a, sys::MPI_COMM_SELF).unwrap(),
            sys::MPI_CONGRUENT
        );
        w.comms.free(a).unwrap();
        assert_eq!(w.comms.get(a).unwrap_err().class, sys::MPI_ERR_COMM);
        assert_eq!(w.comms.free(a).unwrap_err().class, sys::MPI_ERR_COMM);
        // id 2 is free again, 3 still in use
        let d = w.comm_dup(sys::MPI_COMM_SELF, Vec::new()).unwrap();
        assert_eq!(w.comms.get(d).unwrap().ctx, 2);
        let e = w.comm_dup(d, Vec::new()).unwrap();
        assert_eq!(w.comms.get(e).unwrap().ctx, 4);
        assert_eq!(w.comms.derived(), 3);
        assert_eq!(w.comm_split(b, -5, 0).unwrap_err().class, sys::MPI_ERR_ARG);
    }

    #[test]
    fn create_and_split_type() {
        let mut w = world();
        let g = w.comms.groups.insert(Arc::new(Group::new(vec![0])));
        let a = w.comm_create(sys::MPI_COMM_WORLD, g).unwrap();
        assert_eq!(w.comms.get(a).unwrap().size(), 1);
        let none = w
            .comm_create(sys::MPI_COMM_WORLD, sys::MPI_GROUP_EMPTY)
            .unwrap();
        assert_eq!(none, sys::MPI_COMM_NULL);
        let bad = w.comms.groups.insert(Arc::new(Group::new(vec![3])));
        let e = w.comm_create(sys::MPI_COMM_WORLD, bad).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_GROUP);
        assert_eq!(
            w.comm_create(sys::MPI_COMM_WORLD, sys::MPI_GROUP_NULL)
                .unwrap_err()
                .class,
            sys::MPI_ERR_GROUP
        );
        let s = w
            .comm_split_type(sys::MPI_COMM_WORLD, sys::MPI_COMM_TYPE_SHARED, 0, None)
            .unwrap();
        assert_eq!(w.comms.get(s).unwrap().size(), 1);
        assert_eq!(
            w.comm_split_type(sys::MPI_COMM_WORLD, 7, 0, None)
                .unwrap_err()
                .class,
            sys::MPI_ERR_ARG
        );
        // MPI-4 hardware splits: a target node is "mpi_shared_memory"; an
        // unknown or missing resource type, or a communicator within one
        // node (unguided), gives MPI_COMM_NULL
        let hw = |w: &mut World<_>, t, r| w.comm_split_type(sys::MPI_COMM_WORLD, t, 0, r).unwrap();
        let g = hw(&mut w, sys::MPI_COMM_TYPE_HW_GUIDED, Some(HW_SHARED_MEMORY));
        assert_eq!(w.comms.get(g).unwrap().size(), 1);
        for r in [None, Some("l3cache")] {
            assert_eq!(
                hw(&mut w, sys::MPI_COMM_TYPE_HW_GUIDED, r),
                sys::MPI_COMM_NULL
            );
        }
        assert_eq!(
            hw(&mut w, sys::MPI_COMM_TYPE_HW_UNGUIDED, None),
            sys::MPI_COMM_NULL
        );
    }

    #[test]
    fn cart_on_one_rank() {
        let mut w = world();
        let c = w
            .cart_create(sys::MPI_COMM_WORLD, &[1, 1], &[true, false], false)
            .unwrap();
        let cart = cart_of(w.comms.get(c).unwrap()).unwrap().clone();
        assert_eq!(cart.coords, [0, 0]);
        let d = w.comm_dup(c, Vec::new()).unwrap();
        assert!(w.comms.get(d).unwrap().topo.is_some());
        let s = w.cart_sub(c, &[false, true]).unwrap();
        let sub = cart_of(w.comms.get(s).unwrap()).unwrap();
        assert_eq!(
            (sub.dims.as_slice(), sub.periods.as_slice()),
            (&[1][..], &[false][..])
        );
        let e = w
            .cart_create(sys::MPI_COMM_WORLD, &[2, 1], &[false, false], true)
            .unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_ARG);
        assert_eq!(
            w.cart_sub(sys::MPI_COMM_WORLD, &[]).unwrap_err().class,
            sys::MPI_ERR_TOPOLOGY
        );
        let z = w.cart_create(sys::MPI_COMM_WORLD, &[], &[], false).unwrap();
        assert_eq!(cart_of(w.comms.get(z).unwrap()).unwrap().ndims(), 0);
        // no dimension kept: a 0-d grid, here for rank 0 of a 2-d one
        let z = w.cart_sub(c, &[false, false]).unwrap();
        let zc = w.comms.get(z).unwrap();
        assert_eq!((zc.size(), cart_of(zc).unwrap().ndims()), (1, 0));
    }
}
