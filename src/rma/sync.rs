//! Synchronization: MPI_Win_fence, Win_lock / unlock, lock_all /
//! unlock_all, Win_flush(_all, _local, _local_all), Win_sync. The messages
//! each sends and waits for are listed in the module doc of `crate::rma`.
use super::ops::target_rank;
use super::packet::{self, Packet};
use super::window::Access;
use crate::coll;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::World;
use crate::p2p::ReqId;
use crate::sys::{self, MPI_Win};

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

impl World {
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
            coll::barrier::barrier(&mut coll::Comm {
                core: &mut self.ep,
                ranks: &ranks,
                me,
                ctx,
            });
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
