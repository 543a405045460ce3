//! The point-to-point operations the object model needs from the layer below,
//! as a trait: implemented by [`crate::p2p::Endpoint`], and by a scripted fake
//! in the unit tests so request semantics can be tested without processes.
use crate::p2p::{Endpoint, ReqId, SendMode, Status};
use crate::transport::{RecvBuf, SendBuf};

/// See [`crate::p2p::Endpoint`] for the meaning of each operation.
pub trait Backend {
    type SendBuf;
    type RecvBuf;
    fn rank(&self) -> u32;
    fn size(&self) -> u32;
    fn isend(&mut self, buf: Self::SendBuf, dest: u32, tag: i32, ctx: u32, mode: SendMode)
        -> ReqId;
    fn irecv(&mut self, buf: Self::RecvBuf, src: Option<u32>, tag: Option<i32>, ctx: u32) -> ReqId;
    fn wait_all(&mut self, reqs: &[ReqId]);
    fn wait_any(&mut self, reqs: &[ReqId]) -> Vec<usize>;
    fn test(&mut self, reqs: &[ReqId]) -> Vec<usize>;
    fn status(&self, r: ReqId) -> Status;
    fn free(&mut self, r: ReqId);
    fn detach(&mut self, r: ReqId);
    fn cancel(&mut self, r: ReqId) -> bool;
    fn probe(&mut self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> Status;
    fn iprobe(&mut self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> Option<Status>;
    fn mprobe(&mut self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> (Status, usize);
    fn improbe(&mut self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> Option<(Status, usize)>;
    fn mrecv(&mut self, buf: Self::RecvBuf, m: usize) -> ReqId;
    /// Blocking waits may be suspended (MPI_THREAD_MULTIPLE, see
    /// `p2p::core::yielding`); a backend without threads ignores it.
    fn set_yielding(&mut self, _on: bool) {}
    /// The last blocking wait was suspended.
    fn suspended(&self) -> bool {
        false
    }
}

impl Backend for Endpoint {
    type SendBuf = SendBuf;
    type RecvBuf = RecvBuf;
    fn rank(&self) -> u32 {
        Endpoint::rank(self)
    }
    fn size(&self) -> u32 {
        Endpoint::size(self)
    }
    fn isend(&mut self, buf: SendBuf, dest: u32, tag: i32, ctx: u32, mode: SendMode) -> ReqId {
        Endpoint::isend(self, buf, dest, tag, ctx, mode)
    }
    fn irecv(&mut self, buf: RecvBuf, src: Option<u32>, tag: Option<i32>, ctx: u32) -> ReqId {
        Endpoint::irecv(self, buf, src, tag, ctx)
    }
    fn wait_all(&mut self, reqs: &[ReqId]) {
        Endpoint::wait_all(self, reqs)
    }
    fn wait_any(&mut self, reqs: &[ReqId]) -> Vec<usize> {
        Endpoint::wait_any(self, reqs)
    }
    fn test(&mut self, reqs: &[ReqId]) -> Vec<usize> {
        Endpoint::test(self, reqs)
    }
    fn status(&self, r: ReqId) -> Status {
        Endpoint::status(self, r)
    }
    fn free(&mut self, r: ReqId) {
        Endpoint::free(self, r)
    }
    fn detach(&mut self, r: ReqId) {
        Endpoint::detach(self, r)
    }
    fn cancel(&mut self, r: ReqId) -> bool {
        Endpoint::cancel(self, r)
    }
    fn probe(&mut self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> Status {
        Endpoint::probe(self, src, tag, ctx)
    }
    fn iprobe(&mut self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> Option<Status> {
        Endpoint::iprobe(self, src, tag, ctx)
    }
    fn mprobe(&mut self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> (Status, usize) {
        Endpoint::mprobe(self, src, tag, ctx)
    }
    fn improbe(&mut self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> Option<(Status, usize)> {
        Endpoint::improbe(self, src, tag, ctx)
    }
    fn mrecv(&mut self, buf: RecvBuf, m: usize) -> ReqId {
        Endpoint::mrecv(self, buf, m)
    }
    fn set_yielding(&mut self, on: bool) {
        Endpoint::set_yielding(self, on)
    }
    fn suspended(&self) -> bool {
        Endpoint::suspended(self)
    }
}
