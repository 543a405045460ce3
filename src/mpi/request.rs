//! Requests: the MPI_Request handle table. An entry is a p2p request in
//! flight, one that completed when it started (MPI_PROC_NULL), an inactive
//! persistent request, an MPI_Isendrecv pair or a generalized request (see
//! `ReqState`), plus what must outlive the p2p request: the packed copy a
//! send reads from, or the staging buffer a receive lands in and how to
//! unpack it into user memory.
use crate::mpi::comm::Group;
use crate::mpi::error::{fail, MpiResult};
use crate::p2p::ReqId;
use crate::sys::{self, MPI_Comm, MPI_Request, MPI_Status};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Send,
    Recv,
    /// A nonblocking collective (a compound p2p request).
    Coll,
}

#[derive(Debug, Clone, Copy)]
pub enum ReqState {
    /// Completed when it started (a null-process request), with this status.
    Done(MPI_Status),
    /// In flight in p2p.
    Active(ReqId),
    /// A persistent request that is not started (see `mpi::persistent`).
    Inactive,
    /// MPI_Isendrecv(_replace): a send and a receive in flight in p2p
    /// (send, receive); complete when both are.
    Pair(ReqId, ReqId),
    /// A generalized request: its index in `World::greqs`.
    Greq(usize),
    /// A started partitioned send whose partitions are not all ready yet
    /// (`mpi::partitioned`): nothing in flight.
    Parts,
}

/// A receive through a temporary buffer (non-contiguous datatypes): p2p
/// writes the packed bytes into `tmp`; on completion `deliver` scatters the
/// received prefix into the user's buffer.
pub struct Staging {
    pub tmp: Vec<u8>,
    pub deliver: Deliver,
}

/// Scatters received packed bytes into the user's buffer.
pub type Deliver = Box<dyn FnOnce(&[u8]) + Send>;

impl std::fmt::Debug for Staging {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Staging({} bytes)", self.tmp.len())
    }
}

#[derive(Debug)]
pub struct Req {
    pub kind: Kind,
    /// The communicator it was started on (its error handler reports errors).
    pub comm: MPI_Comm,
    /// That communicator's group, to turn world ranks back into comm ranks.
    pub group: Arc<Group>,
    pub state: ReqState,
    /// Packed send data p2p reads from (non-contiguous or replaced buffers).
    pub keep: Option<Vec<u8>>,
    pub staging: Option<Staging>,
    /// Receive buffer size in bytes (for the truncation message).
    pub capacity: usize,
}

/// Handles are `FIRST_HANDLE + slot index`.
const FIRST_HANDLE: MPI_Request = sys::MPI_REQUEST_NULL + 1;

/// MPI_Request handle -> request.
#[derive(Default)]
pub struct RequestTable {
    slots: Vec<Option<Req>>,
    free: Vec<usize>,
}

impl RequestTable {
    pub fn insert(&mut self, r: Req) -> MPI_Request {
        let i = match self.free.pop() {
            Some(i) => {
                self.slots[i] = Some(r);
                i
            }
            None => {
                self.slots.push(Some(r));
                self.slots.len() - 1
            }
        };
        FIRST_HANDLE + i as MPI_Request
    }

    fn index(&self, h: MPI_Request) -> Option<usize> {
        let i = usize::try_from(h.wrapping_sub(FIRST_HANDLE)).ok()?;
        matches!(self.slots.get(i), Some(Some(_))).then_some(i)
    }

    /// The request behind `h` (MPI_REQUEST_NULL is not one).
    pub fn get(&self, h: MPI_Request) -> MpiResult<&Req> {
        match self.index(h) {
            Some(i) => Ok(self.slots[i].as_ref().expect("occupied slot")),
            None => fail(sys::MPI_ERR_REQUEST, bad_request(h)),
        }
    }

    pub fn get_mut(&mut self, h: MPI_Request) -> MpiResult<&mut Req> {
        match self.index(h) {
            Some(i) => Ok(self.slots[i].as_mut().expect("occupied slot")),
            None => fail(sys::MPI_ERR_REQUEST, bad_request(h)),
        }
    }

    pub fn remove(&mut self, h: MPI_Request) -> MpiResult<Req> {
        match self.index(h) {
            Some(i) => {
                self.free.push(i);
                Ok(self.slots[i].take().expect("occupied slot"))
            }
            None => fail(sys::MPI_ERR_REQUEST, bad_request(h)),
        }
    }

    /// Requests currently allocated.
    pub fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn bad_request(h: MPI_Request) -> String {
    if h == sys::MPI_REQUEST_NULL {
        "MPI_REQUEST_NULL is not an active request".to_string()
    } else {
        format!("invalid request handle {h:#x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::status::proc_null_status;

    fn req(capacity: usize) -> Req {
        Req {
            kind: Kind::Recv,
            comm: sys::MPI_COMM_WORLD,
            group: Arc::new(Group::new(vec![0])),
            state: ReqState::Done(proc_null_status()),
            keep: None,
            staging: None,
            capacity,
        }
    }

    #[test]
    fn handles_are_validated_and_reused() {
        let mut t = RequestTable::default();
        let a = t.insert(req(1));
        let b = t.insert(req(2));
        assert_eq!(a, 0x2c000001);
        assert_eq!(b, 0x2c000002);
        assert_eq!(t.get(b).unwrap().capacity, 2);
        assert_eq!(t.remove(a).unwrap().capacity, 1);
        assert_eq!(t.get(a).unwrap_err().class, sys::MPI_ERR_REQUEST);
        assert_eq!(
            t.remove(a).unwrap_err().msg,
            "invalid request handle 0x2c000001"
        );
        assert_eq!(t.len(), 1);
        // the freed slot is reused
        assert_eq!(t.insert(req(3)), a);
        for h in [sys::MPI_REQUEST_NULL, 0, -1, 0x2c000003, i32::MAX, i32::MIN] {
            assert_eq!(t.get(h).unwrap_err().class, sys::MPI_ERR_REQUEST, "{h:#x}");
        }
        assert_eq!(
            t.get(sys::MPI_REQUEST_NULL).unwrap_err().msg,
            "MPI_REQUEST_NULL is not an active request"
        );
    }
}
