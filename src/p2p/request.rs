//! Requests: the state of one communication (a send or a receive) from its
//! starting phase to its completion, and the table that holds them. A send
//! remembers its message ([`Sent`]) so that MPI_Cancel can name it, and the
//! state of a cancel in progress ([`Cancel`]).
use super::Status;
use crate::model::VTime;
use crate::transport::{RecvBuf, SendBuf};

pub type ReqId = u32;

pub enum Op {
    Send {
        dest: u32,
        buf: SendBuf,
        /// Data copied at the start (buffered mode); sent instead of `buf`.
        owned: Option<Vec<u8>>,
        /// The REQ told the receiver to pull the data from our memory.
        remote: bool,
    },
    Recv {
        src: Option<u32>,
        tag: Option<i32>,
        ctx: u32,
        buf: Target,
        /// A message has been matched to this receive.
        bound: bool,
    },
    /// Complete from the start (buffered-mode facade, cancelled receives).
    Nothing,
}

/// Where a receive puts its data: user memory, or a buffer the request owns.
pub enum Target {
    User(RecvBuf),
    Owned(Vec<u8>),
}

impl Target {
    pub fn len(&self) -> usize {
        match self {
            Target::User(b) => b.len(),
            Target::Owned(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        match self {
            Target::User(b) => b.as_mut_slice(),
            Target::Owned(v) => v,
        }
    }
}

/// The message a send (or a buffered send's facade) started.
#[derive(Clone, Copy, Debug)]
pub struct Sent {
    pub dest: u32,
    pub ctx: u32,
    pub tag: i32,
    /// The sender's serial number of the message (wire `rreq`).
    pub serial: u32,
    /// Its arrival time at the receiver (DATA or REQ).
    pub ta: VTime,
    pub eager: bool,
}

/// MPI_Cancel of a send, from the sender's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cancel {
    /// Not asked.
    No,
    /// The cancel request is out and the request is incomplete until the
    /// answer comes; `done`: when the send's own protocol ended, if it has.
    Asked { done: Option<VTime> },
    /// The receiver had matched the message: the send completes when its
    /// protocol ends, not before `at` (the answer's handling time).
    Refused { at: VTime },
    /// Answered, or nothing to ask: a second cancel does nothing.
    Over,
}

pub struct Request {
    pub op: Op,
    /// Sends: the message it started.
    pub sent: Option<Sent>,
    pub cancel: Cancel,
    /// Virtual time of the starting phase.
    pub t_post: VTime,
    /// Virtual completion time, once complete.
    pub done: Option<VTime>,
    pub status: Status,
    /// Part of the waiting activity in progress.
    pub waited: bool,
    /// Freed by the user while active: drop it when it completes.
    pub detached: bool,
    /// Receives: the sender of the message matched to it, once matched.
    pub matched: Option<u32>,
}

impl Request {
    pub fn new(op: Op, t_post: VTime) -> Request {
        Request {
            op,
            t_post,
            done: None,
            status: Status {
                source: -1,
                tag: -1,
                ..Status::default()
            },
            waited: false,
            detached: false,
            sent: None,
            cancel: Cancel::No,
            matched: None,
        }
    }

    /// Bytes the send carries (a buffer without memory, in a replay, has
    /// a length and no bytes).
    pub fn send_len(&self) -> usize {
        match &self.op {
            Op::Send { owned: Some(v), .. } => v.len(),
            Op::Send { buf, .. } => buf.len(),
            _ => 0,
        }
    }

    pub fn send_bytes(&self) -> &[u8] {
        match &self.op {
            Op::Send { owned: Some(v), .. } => v,
            Op::Send { buf, .. } => buf.as_slice(),
            _ => &[],
        }
    }
}

/// Requests by id; ids of freed requests are reused.
#[derive(Default)]
pub struct Table {
    slots: Vec<Option<Request>>,
    free: Vec<ReqId>,
}

impl Table {
    pub fn insert(&mut self, r: Request) -> ReqId {
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = Some(r);
            id
        } else {
            self.slots.push(Some(r));
            (self.slots.len() - 1) as ReqId
        }
    }
    pub fn remove(&mut self, id: ReqId) -> Request {
        let r = self.slots[id as usize].take().expect("request freed twice");
        self.free.push(id);
        r
    }
    /// Drop request `id` where it lies ([`Table::remove`] without moving
    /// it out: a request is large, and most are dropped unread).
    pub fn discard(&mut self, id: ReqId) {
        let slot = &mut self.slots[id as usize];
        assert!(slot.is_some(), "request freed twice");
        *slot = None;
        self.free.push(id);
    }
    pub fn get(&self, id: ReqId) -> &Request {
        self.slots[id as usize]
            .as_ref()
            .unwrap_or_else(|| panic!("request {id} is not active"))
    }
    pub fn get_mut(&mut self, id: ReqId) -> &mut Request {
        self.slots[id as usize]
            .as_mut()
            .unwrap_or_else(|| panic!("request {id} is not active"))
    }
    pub fn is_active(&self, id: ReqId) -> bool {
        self.slots.get(id as usize).is_some_and(|s| s.is_some())
    }
    /// Ids of the active requests.
    pub fn ids(&self) -> impl Iterator<Item = ReqId> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_some())
            .map(|(i, _)| i as ReqId)
    }
    /// Requests still active (not freed).
    pub fn active(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}
