//! MPI_Comm_create_group and the communicator info calls
//! (MPI_Comm_set_info, MPI_Comm_get_info, MPI_Comm_dup_with_info, the info
//! of MPI_Comm_split_type).
//!
//! MPI_Comm_create_group is collective over the group only: the members
//! agree on a context id among themselves, by the allreduce of MPICH's
//! `MPII_Allreduce_group_intra` (recursive doubling over the group's ranks,
//! with the non-power-of-two ranks folded in first and served last), run
//! with bitwise AND over the 64-int context mask, as the other constructors
//! here agree over their parent. Its messages use the caller's tag on a
//! context of their own (the parent's id with [`GROUP_CTX_BIT`], plus the
//! collective bit), so neither the parent's collectives nor its
//! point-to-point traffic can match them, while processes outside the group
//! go on with other work.
//!
//! Timing: each message is an ordinary point-to-point message of the
//! engine (256 bytes, eager on any target with an eager limit above that),
//! sent and received in the order MPICH's algorithm sends them.
use crate::coll::{self, Op};
use crate::mpi::agree::Agree;
use crate::mpi::backend::Backend;
use crate::mpi::comm::{check_send_tag, Comm, Group};
use crate::mpi::comm_info::Hints;
use crate::mpi::context::{band, lowest_free};
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::info::Info;
use crate::mpi::state::World;
use crate::p2p::{Core, Link};
use crate::sys::{self, MPI_Comm, MPI_Group};
use std::os::raw::c_int;

/// Marks the context of group-collective traffic (MPI_Comm_create_group):
/// context ids stay far below it. The high bits of a context id: 0x8000_0000
/// collectives (`coll::COLL_CTX_BIT`), 0x4000_0000 active messages
/// (`p2p::ACTIVE_CTX_BIT`, one-sided communication), 0x2000_0000 this.
pub const GROUP_CTX_BIT: u32 = 0x2000_0000;

/// MPI_ERR_GROUP unless `g` is a subgroup of `p`'s group.
pub(crate) fn subgroup(g: &Group, p: &Comm) -> MpiResult<()> {
    if let Some(w) = g.ranks().iter().find(|&&w| p.group.rank_of(w).is_none()) {
        return fail(
            sys::MPI_ERR_GROUP,
            format!(
                "the group is not a subgroup of the communicator's group \
                 (process {w} of MPI_COMM_WORLD is not in the communicator)"
            ),
        );
    }
    Ok(())
}

/// Agreement among the members of a group of a communicator, tagged.
pub trait AgreeGroup {
    /// Allreduce of `buf` (32-bit ints) with bitwise AND over the world
    /// ranks `ranks` (my index `me`), on context `ctx` with tag `tag`.
    fn allreduce_band_group(
        &mut self,
        ranks: &[u32],
        me: usize,
        ctx: u32,
        tag: i32,
        buf: &mut [u8],
    );
}

impl<L: Link> AgreeGroup for Core<L> {
    fn allreduce_band_group(
        &mut self,
        ranks: &[u32],
        me: usize,
        ctx: u32,
        tag: i32,
        buf: &mut [u8],
    ) {
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
        crate::mpi::agree::with_flag(buf, |b| allreduce_group(&mut c, b, &mut op, tag));
    }
}

/// MPICH's `MPII_Allreduce_group_intra` for short data (a commutative
/// operator): with pof2 the largest power of two <= n and rem = n - pof2,
/// among the first 2 rem ranks each even one sends its data to the odd one
/// above it and waits; the pof2 remaining ranks exchange by recursive
/// doubling (MPIC_Sendrecv); then each odd one of the first 2 rem sends
/// the result back down.
pub fn allreduce_group<L: Link>(c: &mut coll::Comm<L>, buf: &mut [u8], op: &mut Op, tag: i32) {
    let (n, me) = (c.size(), c.me);
    if n <= 1 {
        return;
    }
    let pof2 = coll::pof2_floor(n);
    let rem = n - pof2;
    let newrank = if me < 2 * rem {
        if me % 2 == 0 {
            c.send(buf, me + 1, tag);
            None
        } else {
            let v = c.recv(buf.len(), me - 1, tag);
            c.reduce_local(op, &v, buf);
            Some(me / 2)
        }
    } else {
        Some(me - rem)
    };
    if let Some(nr) = newrank {
        let mut mask = 1;
        while mask < pof2 {
            let newdst = nr ^ mask;
            let dst = if newdst < rem {
                newdst * 2 + 1
            } else {
                newdst + rem
            };
            let v = c.sendrecv(buf, dst, buf.len(), dst, tag);
            c.reduce_local(op, &v, buf);
            mask <<= 1;
        }
    }
    if me < 2 * rem {
        if me % 2 == 1 {
            c.send(buf, me - 1, tag);
        } else {
            let v = c.recv(buf.len(), me + 1, tag);
            buf.copy_from_slice(&v);
        }
    }
}

impl<E: Backend + Agree + AgreeGroup + crate::mpi::intercomm::InterOps> World<E> {
    /// MPI_Comm_create_group: collective over the members of `group` (a
    /// subgroup of `comm`'s); MPI_COMM_NULL for a caller outside it.
    pub fn comm_create_group(
        &mut self,
        comm: MPI_Comm,
        group: MPI_Group,
        tag: c_int,
    ) -> MpiResult<MPI_Comm> {
        let p = self.comms.get(comm)?.clone();
        crate::mpi::intercomm::intra_only(&p)?;
        let g = self.comms.groups.get(group)?;
        let tag = check_send_tag(tag)?;
        subgroup(&g, &p)?;
        let Some(me) = g.rank_of(self.rank()) else {
            return Ok(sys::MPI_COMM_NULL);
        };
        self.quiesce_idups();
        let mut mask = self.comms.free_mask(true);
        self.ep.allreduce_band_group(
            g.ranks(),
            me as usize,
            p.ctx | GROUP_CTX_BIT,
            tag,
            &mut mask,
        );
        let id = lowest_free(&mask)?;
        self.comms.ctx_mask.take(id);
        let c = Comm::new(id, g.clone(), me, p.errhandler);
        Ok(self.commit(c, p.tainted))
    }

    /// MPI_Comm_dup_with_info, once the copy callbacks have given the
    /// attributes: a duplicate whose hints are those of `info` (not the
    /// parent's).
    pub fn comm_dup_with_info(
        &mut self,
        comm: MPI_Comm,
        attrs: Vec<crate::mpi::attr::NewValue>,
        info: Option<&Info>,
    ) -> MpiResult<MPI_Comm> {
        let h = self.comm_dup(comm, attrs)?;
        self.comms.get_mut(h)?.hints = Hints::from_info(info);
        Ok(h)
    }
}

impl<E: Backend> World<E> {
    /// MPI_Comm_set_info: the honoured hints of `info` replace the
    /// communicator's (others are ignored).
    pub fn comm_set_info(&mut self, comm: MPI_Comm, info: &Info) -> MpiResult<()> {
        self.comms.get_mut(comm)?.hints.apply(info);
        Ok(())
    }

    /// MPI_Comm_get_info: a new info object with every honoured hint.
    pub fn comm_get_info(&self, comm: MPI_Comm) -> MpiResult<Info> {
        Ok(self.comms.get(comm)?.hints.to_info())
    }
}

#[cfg(test)]
mod tests {
    use crate::coll::{self, Op};
    use crate::mpi::context::band;
    use crate::p2p::testing::run;
    use std::sync::{Arc, Mutex};

    /// The group allreduce ANDs every member's bytes, for group sizes with
    /// and without a power of two, among a subset of a larger job.
    #[test]
    fn group_allreduce_ands_all_members() {
        for n in [2usize, 3, 5, 6, 7] {
            let got = Arc::new(Mutex::new(Vec::new()));
            let g = got.clone();
            run(8, 1 << 16, move |core| {
                let me = core.rank() as usize;
                // members: the odd world ranks first, then the even ones
                let order: Vec<u32> = (0..8)
                    .filter(|r| r % 2 == 1)
                    .chain((0..8).filter(|r| r % 2 == 0))
                    .collect();
                let ranks: Vec<u32> = order[..n].to_vec();
                let Some(i) = ranks.iter().position(|&r| r as usize == me) else {
                    return;
                };
                let mut buf = vec![0xffu8; 8];
                buf[me] = !(1 << (me % 8));
                let mut c = coll::Comm {
                    core,
                    ranks: &ranks,
                    me: i,
                    ctx: 5 | super::GROUP_CTX_BIT,
                };
                let mut and = |a: &[u8], b: &mut [u8]| band(a, b);
                let mut op = Op {
                    commutative: true,
                    builtin: true,
                    apply: &mut and,
                };
                super::allreduce_group(&mut c, &mut buf, &mut op, 77);
                g.lock().unwrap().push((me, buf));
            });
            let v = got.lock().unwrap().clone();
            assert_eq!(v.len(), n);
            let order: Vec<usize> = (0..8)
                .filter(|r| r % 2 == 1)
                .chain((0..8).filter(|r| r % 2 == 0))
                .collect();
            let mut want = vec![0xffu8; 8];
            for &m in &order[..n] {
                want[m] = !(1 << (m % 8));
            }
            for (me, buf) in v {
                assert_eq!(buf, want, "n={n} rank {me}");
            }
        }
    }
}
