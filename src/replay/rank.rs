//! One rank of a replay: its call log read back and made again, call by
//! call, on an engine built for another target. Receives whose outcome the
//! program saw (wildcards, tests, wait-any, probes) are compared with what
//! the engine decides now; a difference is counted, and the replay goes on
//! the way the program went.
use crate::coll::nonblocking::Schedule;
use crate::model::{Model, VTime};
use crate::p2p::memlink::{MemLink, Shared};
use crate::p2p::record::{self, Call, Reader, Seen};
use crate::p2p::{Core, ReqId};
use crate::transport::{RankResult, RecvBuf, SendBuf};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// Records of at most this many bytes between replayed ranks.
const MAX_RECORD: usize = 64 * 1024;

/// No request (in [`Replayer::reqs`]).
const NONE: ReqId = ReqId::MAX;

/// What one rank's replay gives.
pub struct RankReplay {
    pub result: RankResult,
    /// Outcomes that came out differently from the run's.
    pub differing: u64,
}

/// The replayed rank: its engine and what the log's ids stand for.
struct Replayer {
    core: Core<MemLink>,
    /// The run's request ids -> this engine's (ids are small and reused:
    /// a table, `NONE` where none).
    reqs: Vec<ReqId>,
    /// Receives (by this engine's id) with a wildcard source or tag.
    wild: Vec<bool>,
    /// The run's matched messages (MPI_Mprobe) -> this engine's.
    matched: HashMap<u64, usize>,
    differing: u64,
    /// The engine's ids of the requests of the wait or test being replayed
    /// (kept: no allocation per call).
    rs: Vec<ReqId>,
}

/// The link a replayed rank talks through (its sends carry no bytes).
pub fn link(rank: u32, shared: Arc<Shared>) -> MemLink {
    MemLink::new(rank, shared, MAX_RECORD)
        .without_single_copy()
        .carrying_messages()
}

/// Replay rank `rank`'s log in `dir` under `model`, over `link`.
pub fn replay_rank(
    dir: &Path,
    rank: u32,
    mut link: MemLink,
    model: &Model,
) -> Result<RankReplay, String> {
    let mut log = Reader::open(&record::path(dir, rank))?;
    let Some(Call::Start { cpu, exact }) = log.next_call()? else {
        return Err(format!(
            "rank {rank}: the call log does not begin with MPI_Init"
        ));
    };
    link.set_cpu(cpu);
    let mut core = Core::new(link, model.clone());
    core.set_exact(exact);
    core.use_measures(record::read_measures(&record::measures_path(dir, rank))?);
    let mut r = Replayer {
        core,
        reqs: Vec::new(),
        wild: Vec::new(),
        matched: HashMap::new(),
        differing: 0,
        rs: Vec::new(),
    };
    loop {
        let Some(call) = log.next_lent()? else {
            return Err(format!(
                "rank {rank}: the call log ends before MPI_Finalize"
            ));
        };
        if let Call::Retire = call {
            let result = r.core.result(0);
            r.core.retire();
            return Ok(RankReplay {
                result,
                differing: r.differing,
            });
        }
        r.call(call)?;
    }
}

impl Replayer {
    fn id(&self, id: u32) -> Result<ReqId, String> {
        self.reqs
            .get(id as usize)
            .copied()
            .filter(|&r| r != NONE)
            .ok_or_else(|| format!("the call log names request {id}, which it never started"))
    }

    fn is_wild(&self, r: ReqId) -> bool {
        self.wild.get(r as usize).copied().unwrap_or(false)
    }

    fn set_wild(&mut self, r: ReqId, on: bool) {
        let i = r as usize;
        if self.wild.len() <= i {
            self.wild.resize(i + 1, false);
        }
        self.wild[i] = on;
    }

    /// The run's request `id` is gone.
    fn drop_id(&mut self, id: u32) {
        if let Some(x) = self.reqs.get_mut(id as usize) {
            *x = NONE;
        }
    }

    /// This engine's ids of the run's `ids` (in a vector lent by
    /// [`Replayer::rs`]: give it back).
    fn ids(&mut self, ids: &[u32]) -> Result<Vec<ReqId>, String> {
        let mut rs = std::mem::take(&mut self.rs);
        rs.clear();
        for &i in ids {
            rs.push(self.id(i)?);
        }
        Ok(rs)
    }

    fn started(&mut self, id: u32, r: ReqId) {
        let i = id as usize;
        if self.reqs.len() <= i {
            self.reqs.resize(i + 1, NONE);
        }
        self.reqs[i] = r;
        self.set_wild(r, false);
    }

    /// The program freed request `id`; if this engine has not completed it
    /// (an outcome that differs), it goes on in the background.
    fn forget(&mut self, id: u32) -> Result<(), String> {
        let r = self.id(id)?;
        self.drop_id(id);
        self.set_wild(r, false);
        if self.core.is_done(r) {
            self.core.free(r);
        } else {
            self.core.detach(r);
        }
        Ok(())
    }

    /// Count the wildcard receives among `rs` that got another message.
    fn compare_seen(&mut self, rs: &[ReqId], seen: &[Seen]) {
        if !rs.iter().any(|&r| self.is_wild(r)) {
            return;
        }
        let now = self.core.seen(rs);
        for (k, &r) in rs.iter().enumerate() {
            if self.is_wild(r) && seen[k] != (-1, -1) && now[k] != seen[k] {
                self.differing += 1;
            }
        }
    }

    /// Count it if the indices complete now are not those of the run.
    fn compare_done(&mut self, was: &[u32], now: &[usize]) {
        if !was.iter().map(|&k| k as usize).eq(now.iter().copied()) {
            self.differing += 1;
        }
    }

    fn compare<T: PartialEq>(&mut self, was: T, now: T) {
        if was != now {
            self.differing += 1;
        }
    }

    fn recv(&mut self, len: u64, src: Option<u32>, tag: Option<i32>, ctx: u32, id: u32) {
        let r = self
            .core
            .irecv(RecvBuf::phantom(len as usize), src, tag, ctx);
        self.started(id, r);
        self.set_wild(r, src.is_none() || tag.is_none());
    }

    fn call(&mut self, call: &Call) -> Result<(), String> {
        let c = &mut self.core;
        match *call {
            Call::Start { .. } => return Err("MPI_Init twice in one call log".into()),
            Call::Retire => unreachable!("handled by the caller"),
            Call::Enter { cpu } => {
                c.link.set_cpu(cpu);
                c.enter();
            }
            Call::Leave { cpu } => {
                c.link.set_cpu(cpu);
                c.leave();
            }
            Call::Between { leave, enter } => {
                c.link.set_cpu(leave);
                c.leave();
                c.link.set_cpu(enter);
                c.enter();
            }
            Call::Compute { ps } => c.compute(VTime::from_ps(ps)),
            Call::Send {
                len,
                dest,
                tag,
                ctx,
                mode,
                id,
                ..
            } => {
                let r = c.isend(SendBuf::phantom(len as usize), dest, tag, ctx, mode.into());
                self.started(id, r);
            }
            Call::Recv {
                len,
                src,
                tag,
                ctx,
                id,
                ..
            } => self.recv(len, src, tag, ctx, id),
            Call::Sends {
                tag,
                ctx,
                mode,
                ref items,
                ..
            } => {
                for &(len, dest, id) in items {
                    let buf = SendBuf::phantom(len as usize);
                    let r = self.core.isend(buf, dest, tag, ctx, mode.into());
                    self.started(id, r);
                }
            }
            Call::Recvs {
                tag,
                ctx,
                ref items,
                ..
            } => {
                for &(len, src, id) in items {
                    self.recv(len, src, tag, ctx, id);
                }
            }
            Call::TakeVec { id } | Call::Free { id } => self.forget(id)?,
            Call::Forget { ref ids } => {
                for &id in ids {
                    self.forget(id)?;
                }
            }
            Call::Detach { id } => {
                let r = self.id(id)?;
                self.drop_id(id);
                self.set_wild(r, false);
                self.core.detach(r);
            }
            Call::Cancel { id, cancelled } => {
                let r = self.id(id)?;
                let now = self.core.cancel(r);
                self.compare(cancelled, now);
            }
            Call::WaitAll { ref ids, ref seen } => {
                let rs = self.ids(ids)?;
                self.core.wait_all(&rs);
                self.compare_seen(&rs, seen);
                self.rs = rs;
            }
            Call::WaitFree { id, seen } => {
                let r = self.id(id)?;
                self.core.wait_all(&[r]);
                self.compare_seen(&[r], &[seen]);
                self.forget(id)?;
            }
            Call::WaitAny {
                ref ids,
                ref done,
                ref seen,
            } => {
                let rs = self.ids(ids)?;
                let now = self.core.wait_any(&rs);
                self.compare_done(done, &now);
                self.compare_seen(&rs, seen);
                self.rs = rs;
            }
            Call::Test {
                ref ids,
                ref done,
                ref seen,
            } => {
                let rs = self.ids(ids)?;
                let now = self.core.test(&rs);
                self.compare_done(done, &now);
                self.compare_seen(&rs, seen);
                self.rs = rs;
            }
            Call::Probe {
                src,
                tag,
                ctx,
                blocking,
                found,
                matched,
            } => self.probe(src, tag, ctx, blocking, found, matched),
            Call::Mrecv { m, len, id } => {
                let h = self.matched.remove(&m).ok_or_else(|| {
                    format!("the call log receives matched message {m}, which no probe took")
                })?;
                let r = self.core.mrecv(RecvBuf::phantom(len as usize), h);
                self.started(id, r);
            }
            Call::Compound { ref desc, id } => {
                let r = Schedule::replayed(desc).start(&mut self.core);
                self.started(id, r);
            }
            Call::Drain => self.core.drain_background(),
        }
        Ok(())
    }

    /// A probe as the program saw it. A message the program took out of
    /// matching is taken here too (blocking for it if this engine's
    /// non-blocking probe finds none); one the program did not take stays.
    fn probe(
        &mut self,
        src: Option<u32>,
        tag: Option<i32>,
        ctx: u32,
        blocking: bool,
        found: Option<Seen>,
        matched: Option<u64>,
    ) {
        let seen = |st: crate::p2p::Status| (st.source, st.tag);
        match (blocking, matched) {
            (true, None) => {
                let st = self.core.probe(src, tag, ctx);
                self.compare(found, Some(seen(st)));
            }
            (false, None) => {
                let st = self.core.iprobe(src, tag, ctx);
                self.compare(found, st.map(seen));
            }
            (_, Some(m)) => {
                let got = if blocking {
                    Some(self.core.mprobe(src, tag, ctx))
                } else {
                    self.core.improbe(src, tag, ctx)
                };
                let h = match got {
                    Some((st, h)) => {
                        self.compare(found, Some(seen(st)));
                        h
                    }
                    // the program found one: one differing outcome, and
                    // the message is taken as the program took it
                    None => {
                        self.differing += 1;
                        self.core.mprobe(src, tag, ctx).1
                    }
                };
                self.matched.insert(m, h);
            }
        }
    }
}
