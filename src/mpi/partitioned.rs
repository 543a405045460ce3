//! Partitioned communication (MPI-4): MPI_Psend_init / MPI_Precv_init make
//! persistent requests whose buffer is `partitions` blocks of `count`
//! elements; MPI_Pready(_range/_list) marks send partitions ready and
//! MPI_Parrived asks whether a receive partition has arrived.
//!
//! How vaced carries it (what MPICH 4's active-message path does, CH3 has
//! none): the partitions of one send travel as one message of the whole
//! buffer, started by the MPI_Pready that marks the last partition, as
//! MPI_Isend would start it at that moment (same protocol, eager or
//! rendezvous by the whole size, same virtual time); the receive's Start
//! posts the receive of the whole buffer, and every partition arrives when
//! that message has (MPI_Parrived makes progress as a zero-length test).
//! The traffic uses the communicator's context id with [`PART_CTX_BIT`]
//! set, so a partitioned send only matches a partitioned receive (by
//! source and tag, in order), never MPI_Recv and friends.
//!
//! A started send waits in `ReqState::Parts` until its last partition is
//! ready: MPI_Test says not complete, MPI_Wait fails (no call could mark
//! the partitions while it blocks) unless another thread of the rank may
//! still call MPI_Pready (MPI_THREAD_MULTIPLE), in which case it parks as
//! a wait on a generalized request does.
use crate::mpi::backend::Backend;
use crate::mpi::comm::Source;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::persistent::{MakePayload, MakeTarget, Template};
use crate::mpi::request::ReqState;
use crate::mpi::state::{RecvArgs, SendArgs, World};
use crate::p2p::SendMode;
use crate::sys::{self, MPI_Request};

/// Set in the context id of partitioned traffic.
pub const PART_CTX_BIT: u32 = 0x0400_0000;

/// The send-side state of one partitioned request: which partitions the
/// current Start has seen marked ready.
#[derive(Debug, Clone)]
pub struct Partitions {
    ready: Vec<bool>,
    left: usize,
}

impl Partitions {
    pub fn new(n: usize) -> Partitions {
        Partitions {
            ready: vec![false; n],
            left: n,
        }
    }

    pub fn len(&self) -> usize {
        self.ready.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ready.is_empty()
    }

    /// A new Start: no partition ready.
    fn reset(&mut self) {
        self.ready.iter_mut().for_each(|r| *r = false);
        self.left = self.ready.len();
    }

    /// Check that every partition of `ps` exists and is not ready yet
    /// (nor named twice).
    fn check(&self, ps: &[i32], h: MPI_Request) -> MpiResult<()> {
        for (i, &p) in ps.iter().enumerate() {
            check_partition(p, self.len())?;
            if self.ready[p as usize] || ps[..i].contains(&p) {
                return fail(
                    sys::MPI_ERR_ARG,
                    format!(
                        "partition {p} of request {h:#x} is marked ready twice in this \
                         round (MPI_Start begins the next)"
                    ),
                );
            }
        }
        Ok(())
    }

    /// Mark the (checked) partitions `ps` ready; true when the last one is.
    fn mark(&mut self, ps: &[i32]) -> bool {
        for &p in ps {
            self.ready[p as usize] = true;
            self.left -= 1;
        }
        self.left == 0
    }
}

/// `partitions` blocks of `count` elements: the element count of the whole
/// buffer, which must fit the p2p layer's count.
pub fn total_count(partitions: i32, count: i64) -> MpiResult<i32> {
    if partitions < 1 {
        return fail(
            sys::MPI_ERR_ARG,
            format!("partitions is {partitions}: there must be at least one"),
        );
    }
    if count < 0 {
        return fail(sys::MPI_ERR_COUNT, format!("count is {count}: negative"));
    }
    match i32::try_from(partitions as i64 * count) {
        Ok(n) => Ok(n),
        Err(_) => fail(
            sys::MPI_ERR_COUNT,
            format!(
                "{partitions} partitions of {count} elements make more than {} elements, \
                 the most one message carries in vaced",
                i32::MAX
            ),
        ),
    }
}

impl<E: Backend> World<E> {
    /// MPI_Psend_init: `args` are the whole buffer's (see [`total_count`]).
    pub fn psend_init(
        &mut self,
        mut args: SendArgs,
        partitions: usize,
        payload: MakePayload<E::SendBuf>,
    ) -> MPI_Request {
        args.ctx |= PART_CTX_BIT;
        self.persistent(Template::PSend {
            args,
            payload,
            parts: Partitions::new(partitions),
        })
    }

    /// MPI_Precv_init: `args` are the whole buffer's; the source must be a
    /// rank (or MPI_PROC_NULL) and the tag not MPI_ANY_TAG.
    pub fn precv_init(
        &mut self,
        mut args: RecvArgs,
        partitions: usize,
        target: MakeTarget<E::RecvBuf>,
    ) -> MpiResult<MPI_Request> {
        if matches!(args.src, Source::Any) {
            return fail(
                sys::MPI_ERR_RANK,
                "MPI_ANY_SOURCE is not allowed in a partitioned receive",
            );
        }
        if args.tag.is_none() {
            return fail(
                sys::MPI_ERR_TAG,
                "MPI_ANY_TAG is not allowed in a partitioned receive",
            );
        }
        args.ctx |= PART_CTX_BIT;
        Ok(self.persistent(Template::PRecv {
            args,
            target,
            partitions,
        }))
    }

    /// Start of a partitioned send: nothing moves until every partition
    /// is ready.
    pub(crate) fn start_psend(&mut self, h: MPI_Request) -> MpiResult<()> {
        if let Some(Template::PSend { parts, .. }) = self.persist.map.get_mut(&h) {
            parts.reset();
        }
        self.reqs.get_mut(h)?.state = ReqState::Parts;
        Ok(())
    }

    /// MPI_Pready / _range / _list: mark `ps` ready, in order; the message
    /// leaves when the last partition is marked.
    pub fn pready(&mut self, h: MPI_Request, ps: &[i32]) -> MpiResult<()> {
        match self.persist.map.get(&h) {
            Some(Template::PSend { .. }) => {}
            _ => {
                self.reqs.get(h)?;
                return fail(
                    sys::MPI_ERR_REQUEST,
                    format!("request {h:#x} is not a partitioned send (MPI_Psend_init)"),
                );
            }
        };
        if !matches!(self.reqs.get(h)?.state, ReqState::Parts) {
            return fail(
                sys::MPI_ERR_REQUEST,
                format!(
                    "partitioned send {h:#x} is not waiting for partitions: start it \
                     with MPI_Start first (every partition of this round is ready)"
                ),
            );
        }
        let Some(Template::PSend { parts, .. }) = self.persist.map.get_mut(&h) else {
            unreachable!("checked above");
        };
        parts.check(ps, h)?;
        if !parts.mark(ps) {
            return Ok(());
        }
        let Some(Template::PSend { args, payload, .. }) = self.persist.map.get(&h) else {
            unreachable!("checked above");
        };
        let (args, p) = (args.clone(), payload());
        let req = self.start_send(&args, p, SendMode::Standard)?;
        *self.reqs.get_mut(h)? = req;
        Ok(())
    }

    /// MPI_Parrived: whether partition `p` of partitioned receive `h` has
    /// arrived (true for MPI_REQUEST_NULL and an inactive request).
    pub fn parrived(&mut self, h: MPI_Request, p: i32) -> MpiResult<bool> {
        if h == sys::MPI_REQUEST_NULL {
            return Ok(true);
        }
        let n = match self.persist.map.get(&h) {
            Some(Template::PRecv { partitions, .. }) => *partitions,
            _ => {
                self.reqs.get(h)?;
                return fail(
                    sys::MPI_ERR_REQUEST,
                    format!("request {h:#x} is not a partitioned receive (MPI_Precv_init)"),
                );
            }
        };
        check_partition(p, n)?;
        Ok(self.request_get_status(h)?.is_some())
    }

    /// The partitioned sends among `hs` waiting for MPI_Pready.
    pub(crate) fn waits_for_partitions(&self, h: MPI_Request) -> bool {
        h != sys::MPI_REQUEST_NULL
            && matches!(self.reqs.get(h).map(|r| r.state), Ok(ReqState::Parts))
    }
}

fn check_partition(p: i32, n: usize) -> MpiResult<()> {
    if p < 0 || p as usize >= n {
        return fail(
            sys::MPI_ERR_ARG,
            format!(
                "partition {p} does not exist: the request has {n} (0 to {})",
                n - 1
            ),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_count_checks() {
        assert_eq!(total_count(8, 8).unwrap(), 64);
        assert_eq!(total_count(3, 0).unwrap(), 0);
        assert_eq!(total_count(0, 1).unwrap_err().class, sys::MPI_ERR_ARG);
        assert_eq!(total_count(2, -1).unwrap_err().class, sys::MPI_ERR_COUNT);
        assert_eq!(
            total_count(4, i32::MAX as i64).unwrap_err().class,
            sys::MPI_ERR_COUNT
        );
    }

    #[test]
    fn partitions_mark_each_once() {
        let mut p = Partitions::new(3);
        assert!(p.check(&[2, 0], 5).is_ok());
        assert!(!p.mark(&[2, 0]));
        assert_eq!(p.check(&[0], 5).unwrap_err().class, sys::MPI_ERR_ARG);
        assert_eq!(p.check(&[1, 1], 5).unwrap_err().class, sys::MPI_ERR_ARG);
        assert_eq!(p.check(&[3], 5).unwrap_err().class, sys::MPI_ERR_ARG);
        assert!(p.mark(&[1]));
        p.reset();
        assert!(p.check(&[0, 1, 2], 5).is_ok());
        assert!(p.mark(&[0, 1, 2]));
    }

    #[test]
    fn partition_range() {
        assert!(check_partition(0, 1).is_ok());
        assert_eq!(check_partition(1, 1).unwrap_err().class, sys::MPI_ERR_ARG);
        assert_eq!(check_partition(-1, 4).unwrap_err().class, sys::MPI_ERR_ARG);
    }
}
