//! A scripted stand-in for the p2p endpoint (unit tests only): requests
//! complete when a wait asks for them (or when the test says so), with
//! outcomes the test can script, and every call is logged.
use crate::mpi::backend::Backend;
use crate::p2p::{ReqId, SendMode, Status};
use std::collections::{BTreeMap, VecDeque};

#[derive(Debug, Clone)]
pub struct FakeReq {
    pub outcome: Status,
    pub complete: bool,
    pub freed: bool,
    pub detached: bool,
}

#[derive(Debug, Default)]
pub struct Fake {
    pub rank: u32,
    pub size: u32,
    next: ReqId,
    pub reqs: BTreeMap<ReqId, FakeReq>,
    /// Outcomes for the next receives / probes, in order (else a default).
    pub script: VecDeque<Status>,
    /// Completion order.
    pub order: Vec<ReqId>,
    pub calls: Vec<String>,
    /// Messages matched by mprobe / improbe.
    pub matched: Vec<Status>,
}

impl Fake {
    pub fn new(rank: u32, size: u32) -> Fake {
        Fake {
            rank,
            size,
            next: 100,
            ..Fake::default()
        }
    }

    fn add(&mut self, outcome: Status, complete: bool) -> ReqId {
        let id = self.next;
        self.next += 1;
        self.reqs.insert(
            id,
            FakeReq {
                outcome,
                complete: false,
                freed: false,
                detached: false,
            },
        );
        if complete {
            self.complete(id);
        }
        id
    }

    /// Complete request `id` now.
    pub fn complete(&mut self, id: ReqId) {
        let r = self.reqs.get_mut(&id).expect("known request");
        if !r.complete {
            r.complete = true;
            self.order.push(id);
        }
    }

    fn complete_of(&self, ids: &[ReqId]) -> Vec<usize> {
        let mut v: Vec<usize> = (0..ids.len())
            .filter(|&k| self.reqs[&ids[k]].complete)
            .collect();
        v.sort_by_key(|&k| self.order.iter().position(|&x| x == ids[k]));
        v
    }
}

impl Backend for Fake {
    /// Message length.
    type SendBuf = usize;
    /// Buffer capacity.
    type RecvBuf = usize;
    fn rank(&self) -> u32 {
        self.rank
    }
    fn size(&self) -> u32 {
        self.size
    }
    fn isend(&mut self, len: usize, dest: u32, tag: i32, ctx: u32, mode: SendMode) -> ReqId {
        self.calls.push(format!(
            "isend len {len} dest {dest} tag {tag} ctx {ctx} {mode:?}"
        ));
        let outcome = Status {
            source: -1,
            tag,
            bytes: len as u64,
            ..Status::default()
        };
        self.add(outcome, mode == SendMode::Buffered)
    }
    fn irecv(&mut self, cap: usize, src: Option<u32>, tag: Option<i32>, ctx: u32) -> ReqId {
        self.calls
            .push(format!("irecv cap {cap} src {src:?} tag {tag:?} ctx {ctx}"));
        let outcome = self.script.pop_front().unwrap_or(Status {
            source: src.map_or(0, |s| s as i32),
            tag: tag.unwrap_or(0),
            bytes: cap as u64,
            ..Status::default()
        });
        self.add(outcome, false)
    }
    fn wait_all(&mut self, reqs: &[ReqId]) {
        self.calls.push(format!("wait_all {reqs:?}"));
        for &r in reqs {
            self.complete(r);
        }
    }
    fn wait_any(&mut self, reqs: &[ReqId]) -> Vec<usize> {
        self.calls.push(format!("wait_any {reqs:?}"));
        let v = self.complete_of(reqs);
        if !v.is_empty() {
            return v;
        }
        self.complete(reqs[0]);
        vec![0]
    }
    fn test(&mut self, reqs: &[ReqId]) -> Vec<usize> {
        self.calls.push(format!("test {reqs:?}"));
        self.complete_of(reqs)
    }
    fn status(&self, r: ReqId) -> Status {
        let q = &self.reqs[&r];
        assert!(q.complete && !q.freed, "status of request {r} not complete");
        q.outcome
    }
    fn free(&mut self, r: ReqId) {
        self.calls.push(format!("free {r}"));
        let q = self.reqs.get_mut(&r).unwrap();
        assert!(q.complete && !q.freed, "free of request {r}");
        q.freed = true;
    }
    fn detach(&mut self, r: ReqId) {
        self.calls.push(format!("detach {r}"));
        self.reqs.get_mut(&r).unwrap().detached = true;
    }
    fn cancel(&mut self, r: ReqId) -> bool {
        self.calls.push(format!("cancel {r}"));
        if self.reqs[&r].complete {
            return false;
        }
        let q = self.reqs.get_mut(&r).unwrap();
        q.outcome = Status {
            source: -1,
            tag: -1,
            bytes: 0,
            cancelled: true,
            truncated: false,
        };
        self.complete(r);
        true
    }
    fn probe(&mut self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> Status {
        self.calls.push(format!("probe {src:?} {tag:?} {ctx}"));
        self.script.pop_front().expect("scripted probe outcome")
    }
    fn iprobe(&mut self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> Option<Status> {
        self.calls.push(format!("iprobe {src:?} {tag:?} {ctx}"));
        self.script.pop_front()
    }
    /// The matched message is its scripted status, kept for the mrecv.
    fn mprobe(&mut self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> (Status, usize) {
        self.calls.push(format!("mprobe {src:?} {tag:?} {ctx}"));
        let st = self.script.pop_front().expect("scripted probe outcome");
        self.matched.push(st);
        (st, self.matched.len() - 1)
    }
    fn improbe(&mut self, src: Option<u32>, tag: Option<i32>, ctx: u32) -> Option<(Status, usize)> {
        self.calls.push(format!("improbe {src:?} {tag:?} {ctx}"));
        let st = self.script.pop_front()?;
        self.matched.push(st);
        Some((st, self.matched.len() - 1))
    }
    /// Receives the matched message (complete when waited for).
    fn mrecv(&mut self, cap: usize, m: usize) -> ReqId {
        self.calls.push(format!("mrecv cap {cap} message {m}"));
        let mut st = self.matched[m];
        st.truncated = st.bytes > cap as u64;
        st.bytes = st.bytes.min(cap as u64);
        self.add(st, false)
    }
}
