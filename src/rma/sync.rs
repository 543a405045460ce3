//! Synchronization: MPI_Win_fence, Win_lock / unlock, lock_all /
//! unlock_all, Win_flush(_all, _local, _local_all), Win_sync. The messages
//! each sends and waits for are listed in the module doc of `crate::rma`.
//! Under MPI_THREAD_MULTIPLE MPI_Win_fence runs its two collectives as
//! nonblocking schedules (`coll::nonblocking`, tags of their own on the
//! window's context) and its waits may be suspended
//! ([`World::win_fence_yielding`]), so other threads of the rank go on
//! while it blocks.
use super::ops::target_rank;
use super::packet::{self, Packet};
use super::window::Access;
use crate::coll;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::World;
use crate::p2p::ReqId;
use crate::sys::{self, MPI_Win};
use std::cell::RefCell;
use std::rc::Rc;

fn sync_error<T>(msg: impl Into<String>) -> MpiResult<T> {
    fail(sys::MPI_ERR_RMA_SYNC, msg.into())
}

/// What a flush waits for beyond the operations' local completion.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Close {
    /// flush_local: GET responses only.
    Local,
    /// flush: FLUSH + ACK when operations were issued since the last flush.
    Flush,
    /// unlock: UNLOCK (+ ACK when operations were issued since the last flush).
    Unlock,
}

/// Where an MPI_Win_fence under MPI_THREAD_MULTIPLE has got to, kept
/// across the suspensions of its waits.
#[derive(Default)]
pub enum FenceStep {
    #[default]
    Start,
    /// The reduce-scatter of the counts of operations sent, and its result.
    Counts(ReqId, Rc<RefCell<Option<Vec<u8>>>>),
    /// Waiting for the operations aimed at me (`need` of them: the
    /// request counting them first) and for my GETs.
    Packets(Vec<ReqId>, u64),
    /// The closing barrier.
    Barrier(ReqId),
}

/// The tags of the fence's nonblocking collectives on the window context.
const FENCE_COUNTS_TAG: i32 = coll::nonblocking::NBC_TAG_BASE;
const FENCE_BARRIER_TAG: i32 = coll::nonblocking::NBC_TAG_BASE + 1;

impl World {
    /// MPI_Win_fence under MPI_THREAD_MULTIPLE: the same steps as
    /// [`World::win_fence`] with the reduce-scatter and the barrier as
    /// nonblocking schedules; a wait that is suspended returns the
    /// `suspended` error with `st` recording where to go on.
    pub fn win_fence_yielding(
        &mut self,
        win: MPI_Win,
        assert: i32,
        st: &mut FenceStep,
    ) -> MpiResult<()> {
        use crate::coll::nonblocking::{ireduce_scatter, NbcComm, OwnedOp};
        use crate::mpi::blocking::suspended;
        let w = self.rma.get(win)?;
        let (ranks, me, ctx) = (w.ranks.clone(), w.me, w.ctx);
        let in_other_epoch =
            matches!(w.access, Access::Passive | Access::Pscw) || w.exposed.is_some();
        let nbc = |tag| NbcComm {
            ranks: &ranks,
            me,
            ctx,
            tag,
        };
        loop {
            match std::mem::take(st) {
                FenceStep::Start => {
                    if in_other_epoch {
                        return sync_error(
                            "MPI_Win_fence inside a passive-target or post/start/complete/wait epoch",
                        );
                    }
                    if assert & sys::MPI_MODE_NOPRECEDE != 0 {
                        return self.fence_close(win, assert, st, &nbc(FENCE_BARRIER_TAG));
                    }
                    let w = self.rma.get(win)?;
                    let sent: Vec<u8> = w.sent.iter().flat_map(|c| c.to_le_bytes()).collect();
                    let op = OwnedOp {
                        commutative: true,
                        builtin: true,
                        apply: Box::new(|a: &[u8], b: &mut [u8]| {
                            for (x, y) in a.chunks_exact(4).zip(b.chunks_exact_mut(4)) {
                                let s = u32::from_le_bytes(x.try_into().expect("4"))
                                    .wrapping_add(u32::from_le_bytes((&*y).try_into().expect("4")));
                                y.copy_from_slice(&s.to_le_bytes());
                            }
                        }),
                    };
                    let counts = vec![4; ranks.len()];
                    let c = nbc(FENCE_COUNTS_TAG);
                    let mut s =
                        ireduce_scatter::ireduce_scatter(&c, "MPI_Win_fence", sent, &counts, op);
                    let cell = Rc::new(RefCell::new(None));
                    let out = cell.clone();
                    s.on_finish(Box::new(move |bufs| {
                        *out.borrow_mut() = Some(bufs[2].clone())
                    }));
                    *st = FenceStep::Counts(s.start(&mut self.ep), cell);
                }
                FenceStep::Counts(id, cell) => {
                    self.ep.wait_all(&[id]);
                    if self.ep.suspended() {
                        *st = FenceStep::Counts(id, cell);
                        return Err(suspended());
                    }
                    self.ep.free(id);
                    let mine = cell.borrow_mut().take().expect("the fence's counts");
                    let need = u32::from_le_bytes(mine[..4].try_into().expect("4")) as u64;
                    let r = self.expect_packets(ctx, need);
                    let mut reqs = vec![r];
                    reqs.extend(self.rma.get(win)?.gets.iter().map(|g| g.req));
                    *st = FenceStep::Packets(reqs, need);
                }
                FenceStep::Packets(reqs, need) => {
                    self.ep.wait_all(&reqs);
                    if self.ep.suspended() {
                        *st = FenceStep::Packets(reqs, need);
                        return Err(suspended());
                    }
                    self.ep.free(reqs[0]);
                    self.finish_gets(win, None);
                    let mut t = self.rma.targets.borrow_mut();
                    let tw = t.wins.get_mut(&ctx).expect("live window");
                    tw.counted -= need;
                    tw.last_done = crate::model::VTime::ZERO;
                    drop(t);
                    return self.fence_close(win, assert, st, &nbc(FENCE_BARRIER_TAG));
                }
                FenceStep::Barrier(id) => {
                    self.ep.wait_all(&[id]);
                    if self.ep.suspended() {
                        *st = FenceStep::Barrier(id);
                        return Err(suspended());
                    }
                    self.ep.free(id);
                    return Ok(());
                }
            }
        }
    }

    /// The end of a yielding fence: a new epoch, opened by a barrier
    /// (unless MPI_MODE_NOSUCCEED).
    fn fence_close(
        &mut self,
        win: MPI_Win,
        assert: i32,
        st: &mut FenceStep,
        c: &crate::coll::nonblocking::NbcComm,
    ) -> MpiResult<()> {
        let w = self.rma.get_mut(win)?;
        w.sent.iter_mut().for_each(|c| *c = 0);
        if assert & sys::MPI_MODE_NOSUCCEED != 0 {
            w.access = Access::None;
            return Ok(());
        }
        w.access = Access::Fence;
        let id = crate::coll::nonblocking::ibarrier::ibarrier(c).start(&mut self.ep);
        *st = FenceStep::Barrier(id);
        self.win_fence_yielding(win, assert, st)
    }

    /// MPI_Win_fence.
    pub fn win_fence(&mut self, win: MPI_Win, assert: i32) -> MpiResult<()> {
        let w = self.rma.get(win)?;
        if matches!(w.access, Access::Passive | Access::Pscw) || w.exposed.is_some() {
            return sync_error(
                "MPI_Win_fence inside a passive-target or post/start/complete/wait epoch",
            );
        }
        let (ranks, me, ctx) = (w.ranks.clone(), w.me, w.ctx);
        if assert & sys::MPI_MODE_NOPRECEDE == 0 {
            let sent: Vec<u8> = w.sent.iter().flat_map(|c| c.to_le_bytes()).collect();
            let mut mine = [0u8; 4];
            let mut sum = |a: &[u8], b: &mut [u8]| {
                for (x, y) in a.chunks_exact(4).zip(b.chunks_exact_mut(4)) {
                    let s = u32::from_le_bytes(x.try_into().expect("4"))
                        .wrapping_add(u32::from_le_bytes((&*y).try_into().expect("4")));
                    y.copy_from_slice(&s.to_le_bytes());
                }
            };
            let mut op = coll::Op {
                commutative: true,
                builtin: true,
                apply: &mut sum,
            };
            let mut c = coll::Comm {
                core: &mut self.ep,
                ranks: &ranks,
                me,
                ctx,
            };
            coll::reduce_scatter_block::reduce_scatter_block(&mut c, &sent, &mut mine, 4, &mut op);
            let need = u32::from_le_bytes(mine) as u64;
            let r = self.expect_packets(ctx, need);
            let mut reqs = vec![r];
            reqs.extend(self.rma.get(win)?.gets.iter().map(|g| g.req));
            self.wait_many(&reqs);
            self.ep.free(r);
            self.finish_gets(win, None);
            let mut t = self.rma.targets.borrow_mut();
            let tw = t.wins.get_mut(&ctx).expect("live window");
            tw.counted -= need;
            tw.last_done = crate::model::VTime::ZERO;
        }
        let w = self.rma.get_mut(win)?;
        w.sent.iter_mut().for_each(|c| *c = 0);
        if assert & sys::MPI_MODE_NOSUCCEED == 0 {
            w.access = Access::Fence;
            self.win_barrier(&ranks, me, ctx);
        } else {
            w.access = Access::None;
        }
        Ok(())
    }

    /// Wait for many requests (an epoch's GETs): in slices, each a waiting
    /// activity of its own (the engine checks a wait's every request at
    /// each message; a slice's messages that arrive during an earlier slice
    /// are dealt with at the same time as in one wait).
    pub(crate) fn wait_many(&mut self, reqs: &[ReqId]) {
        for part in reqs.chunks(1024) {
            self.ep.wait_all(part);
        }
    }

    /// A request complete once `need` counted packets have been dealt with
    /// on the window of context `ctx` (at the time the last was done).
    fn expect_packets(&mut self, ctx: u32, need: u64) -> ReqId {
        let r = self.ep.open_request();
        let mut t = self.rma.targets.borrow_mut();
        let tw = t.wins.get_mut(&ctx).expect("live window");
        if tw.counted >= need {
            let at = tw.last_done;
            drop(t);
            self.ep.complete_request(r, at);
        } else {
            tw.fence = Some((r, need));
        }
        r
    }

    /// Unpack the complete GETs (of `target`, or all) into their buffers.
    pub(crate) fn finish_gets(&mut self, win: MPI_Win, target: Option<usize>) {
        let w = self.rma.wins.get_mut(&win).expect("checked");
        let (done, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut w.gets)
            .into_iter()
            .partition(|g| target.is_none_or(|t| t == g.target));
        w.gets = keep;
        for mut g in done {
            let data = self.ep.take_vec(g.req);
            g.dest.buf.unpack(&g.dest.blocks, &data);
        }
    }

    /// MPI_Win_lock.
    pub fn win_lock(&mut self, win: MPI_Win, ty: i32, rank: i32, assert: i32) -> MpiResult<()> {
        let w = self.rma.get(win)?;
        if ty != sys::MPI_LOCK_SHARED && ty != sys::MPI_LOCK_EXCLUSIVE {
            return fail(sys::MPI_ERR_LOCKTYPE, format!("invalid lock type {ty}"));
        }
        if rank == sys::MPI_PROC_NULL {
            return Ok(());
        }
        let target = target_rank(w, rank)?;
        match w.access {
            _ if w.no_access() => {}
            Access::Fence | Access::Pscw => {
                return sync_error("MPI_Win_lock inside a fence or start/complete epoch")
            }
            Access::Passive if w.lock_all.is_some() => {
                return sync_error("MPI_Win_lock inside MPI_Win_lock_all")
            }
            Access::Passive if w.passive.contains_key(&target) => {
                return sync_error(format!("target rank {target} is already locked"))
            }
            _ => {}
        }
        let me = w.me;
        let nocheck = assert & sys::MPI_MODE_NOCHECK != 0;
        self.lock_target(win, target, ty, nocheck);
        let w = self.rma.get_mut(win)?;
        w.access = Access::Passive;
        // CH3 waits for the lock of its own window and of targets on its
        // node when the window shares memory.
        if target == me || w.shared.is_some() {
            self.ensure_granted(win, target);
        }
        Ok(())
    }

    /// Wait for LOCK_GRANTED from `target` if it has not come yet, then
    /// issue the queued operations.
    pub(crate) fn ensure_granted(&mut self, win: MPI_Win, target: usize) {
        let w = self.rma.wins.get_mut(&win).expect("checked");
        let pt = w.passive.get_mut(&target).expect("locked");
        if let Some(r) = pt.granted.take() {
            self.ep.wait_all(&[r]);
            self.ep.free(r);
        }
        let w = self.rma.wins.get_mut(&win).expect("checked");
        let queued = std::mem::take(&mut w.passive.get_mut(&target).expect("locked").queued);
        for i in queued {
            self.issue(win, target, i, 0);
        }
    }

    /// The end of a flush or unlock towards `target`.
    fn close_target(&mut self, win: MPI_Win, target: usize, how: Close) {
        self.ensure_granted(win, target);
        let w = self.rma.wins.get_mut(&win).expect("checked");
        let (dest, ctx) = (w.ranks[target], w.ctx);
        let pt = w.passive.get_mut(&target).expect("locked");
        let unflushed = pt.unflushed;
        if how != Close::Local {
            pt.unflushed = false;
        }
        let nocheck = pt.nocheck;
        let mut reqs: Vec<ReqId> = w
            .gets
            .iter()
            .filter(|g| g.target == target)
            .map(|g| g.req)
            .collect();
        let hb = self.ep.model().header_bytes;
        let control = match how {
            Close::Local => None,
            Close::Flush => unflushed.then_some((packet::FLUSH, 0)),
            Close::Unlock if nocheck => unflushed.then_some((packet::FLUSH, 0)),
            Close::Unlock => Some((packet::UNLOCK, if unflushed { packet::WANT_ACK } else { 0 })),
        };
        let mut ack = None;
        if let Some((kind, flags)) = control {
            if kind == packet::FLUSH || flags & packet::WANT_ACK != 0 {
                let r = self.ep.irecv_vec(0, Some(dest), Some(packet::ACK), ctx);
                ack = Some(r);
                reqs.push(r);
            }
            let p = Packet::control(flags, 0).encode();
            self.send_packet(win, target, kind, hb, &p);
        }
        if !reqs.is_empty() {
            self.wait_many(&reqs);
        }
        if let Some(r) = ack {
            self.ep.free(r);
        }
        self.finish_gets(win, Some(target));
    }

    /// MPI_Win_unlock.
    pub fn win_unlock(&mut self, win: MPI_Win, rank: i32) -> MpiResult<()> {
        let w = self.rma.get(win)?;
        if rank == sys::MPI_PROC_NULL {
            return Ok(());
        }
        let target = target_rank(w, rank)?;
        if w.lock_all.is_some() || !w.passive.contains_key(&target) {
            return sync_error(format!("target rank {target} is not locked"));
        }
        self.close_target(win, target, Close::Unlock);
        let w = self.rma.get_mut(win)?;
        w.passive.remove(&target);
        if w.passive.is_empty() {
            w.access = Access::None;
        }
        Ok(())
    }

    /// MPI_Win_lock_all.
    pub fn win_lock_all(&mut self, win: MPI_Win, assert: i32) -> MpiResult<()> {
        let w = self.rma.get_mut(win)?;
        if !w.no_access() {
            return sync_error("MPI_Win_lock_all inside another epoch");
        }
        w.access = Access::Passive;
        let nocheck = assert & sys::MPI_MODE_NOCHECK != 0;
        w.lock_all = Some(nocheck);
        if w.shared.is_some() && !nocheck {
            self.lock_all_shared(win);
        }
        Ok(())
    }

    /// MPI_Win_unlock_all.
    pub fn win_unlock_all(&mut self, win: MPI_Win) -> MpiResult<()> {
        let w = self.rma.get(win)?;
        if w.lock_all.is_none() {
            return sync_error("MPI_Win_unlock_all without MPI_Win_lock_all");
        }
        let targets: Vec<usize> = w.passive.keys().copied().collect();
        for t in targets {
            self.close_target(win, t, Close::Unlock);
        }
        let w = self.rma.get_mut(win)?;
        w.passive.clear();
        w.lock_all = None;
        w.access = Access::None;
        Ok(())
    }

    /// MPI_Win_flush / flush_local (`local`), one target or all (`rank`
    /// None).
    pub fn win_flush(&mut self, win: MPI_Win, rank: Option<i32>, local: bool) -> MpiResult<()> {
        let w = self.rma.get(win)?;
        if w.access != Access::Passive {
            return sync_error("flush outside a passive-target epoch");
        }
        let how = if local { Close::Local } else { Close::Flush };
        let targets: Vec<usize> = match rank {
            Some(r) if r == sys::MPI_PROC_NULL => return Ok(()),
            Some(r) => {
                let t = target_rank(w, r)?;
                if !w.passive.contains_key(&t) {
                    if w.lock_all.is_some() {
                        // Nothing was aimed at it yet.
                        return Ok(());
                    }
                    return sync_error(format!("target rank {t} is not locked"));
                }
                vec![t]
            }
            None => w.passive.keys().copied().collect(),
        };
        for t in targets {
            self.close_target(win, t, how);
        }
        Ok(())
    }

    /// MPI_Win_sync: the memory of the window is that of the process (or
    /// shared with the node's processes), so a memory barrier is all there
    /// is to do. No virtual time passes; the host core goes to a waiting
    /// rank, as in an MPI_Test that finds nothing (programs poll shared
    /// memory with loads and MPI_Win_sync).
    pub fn win_sync(&mut self, win: MPI_Win) -> MpiResult<()> {
        self.rma.get(win)?;
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        self.ep.yield_core();
        Ok(())
    }
}
