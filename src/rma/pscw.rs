//! General active-target synchronization: MPI_Win_post / Win_start /
//! Win_complete / Win_wait / Win_test (CH3's PSCW).
//!
//! * Win_post: a 0-byte message (POST) to each origin of the group, sent
//!   at the call (none with MPI_MODE_NOCHECK); the exposure epoch begins.
//! * Win_start: posts the receives of the targets' POST messages (none with
//!   MPI_MODE_NOCHECK) and returns; operations are queued until they have
//!   arrived (with NOCHECK they are issued at their call).
//! * Win_complete: waits for the POSTs, issues the queued operations, sends
//!   each target a DONE packet (`header_bytes`, naming how many operations
//!   preceded it) and waits for its GETs' responses.
//! * Win_wait: waits until every origin's DONE and the operations it
//!   announced were dealt with; it ends no earlier than the last of them was
//!   done. Win_test is the same as a zero-length wait.
use super::packet::{self, Packet};
use super::window::{Access, StartEpoch};
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::World;
use crate::sys::{self, MPI_Group, MPI_Win};

fn sync_error<T>(msg: impl Into<String>) -> MpiResult<T> {
    fail(sys::MPI_ERR_RMA_SYNC, msg.into())
}

impl World {
    /// The window ranks of a group's members (MPI_ERR_GROUP if one is not
    /// in the window's group).
    fn win_ranks(&self, win: MPI_Win, group: MPI_Group) -> MpiResult<Vec<usize>> {
        let g = self.comms.groups.get(group)?;
        let w = self.rma.get(win)?;
        g.ranks()
            .iter()
            .map(|wr| match w.ranks.iter().position(|x| x == wr) {
                Some(r) => Ok(r),
                None => fail(
                    sys::MPI_ERR_GROUP,
                    format!("world rank {wr} of the group is not in the window's group"),
                ),
            })
            .collect()
    }

    /// MPI_Win_post.
    pub fn win_post(&mut self, win: MPI_Win, group: MPI_Group, assert: i32) -> MpiResult<()> {
        let origins = self.win_ranks(win, group)?;
        let w = self.rma.get(win)?;
        if w.exposed.is_some() {
            return sync_error("MPI_Win_post inside an exposure epoch");
        }
        if !w.no_access() && w.access == Access::Fence {
            return sync_error("MPI_Win_post inside a fence epoch");
        }
        let (ctx, ranks) = (w.ctx, w.ranks.clone());
        let r = self.ep.open_request();
        {
            let mut t = self.rma.targets.borrow_mut();
            let tw = t.wins.get_mut(&ctx).expect("live window");
            tw.pscw.req = Some((r, origins.len() as u32));
            if let Some((r, end)) = tw.pscw.finished() {
                drop(t);
                self.ep.complete_request(r, end);
            }
        }
        if assert & sys::MPI_MODE_NOCHECK == 0 {
            for o in origins {
                let s = self.ep.isend_vec(Vec::new(), ranks[o], packet::POST, ctx);
                self.ep.detach(s);
            }
        }
        self.rma.get_mut(win)?.exposed = Some(r);
        Ok(())
    }

    /// MPI_Win_start.
    pub fn win_start(&mut self, win: MPI_Win, group: MPI_Group, assert: i32) -> MpiResult<()> {
        let targets = self.win_ranks(win, group)?;
        let w = self.rma.get(win)?;
        if !w.no_access() {
            return sync_error("MPI_Win_start inside another access epoch");
        }
        let (ctx, ranks) = (w.ctx, w.ranks.clone());
        let posts = if assert & sys::MPI_MODE_NOCHECK == 0 {
            targets
                .iter()
                .map(|&t| {
                    self.ep
                        .irecv_vec(0, Some(ranks[t]), Some(packet::POST), ctx)
                })
                .collect()
        } else {
            Vec::new()
        };
        let w = self.rma.get_mut(win)?;
        w.access = Access::Pscw;
        w.start = Some(StartEpoch {
            sent: vec![0; targets.len()],
            targets,
            posts,
            queued: Vec::new(),
        });
        if w.shared.is_some() {
            // CH3 waits for the POSTs of targets on its node: operations
            // are then direct copies.
            self.wait_posts(win);
        }
        Ok(())
    }

    /// MPI_Win_complete.
    pub fn win_complete(&mut self, win: MPI_Win) -> MpiResult<()> {
        let w = self.rma.get_mut(win)?;
        if w.access != Access::Pscw {
            return sync_error("MPI_Win_complete without MPI_Win_start");
        }
        self.wait_posts(win);
        let w = self.rma.get_mut(win)?;
        let st = w.start.take().expect("start epoch");
        let hb = self.ep.model().header_bytes;
        for (k, &t) in st.targets.iter().enumerate() {
            let p = Packet::control(0, st.sent[k] as i32).encode();
            self.send_packet(win, t, packet::DONE, hb, &p);
        }
        let gets: Vec<_> = self.rma.get(win)?.gets.iter().map(|g| g.req).collect();
        if !gets.is_empty() {
            self.wait_many(&gets);
        }
        self.finish_gets(win, None);
        self.rma.get_mut(win)?.access = Access::None;
        Ok(())
    }

    /// Wait for the POSTs of the start epoch's targets, then issue what
    /// waited for them.
    pub(crate) fn wait_posts(&mut self, win: MPI_Win) {
        let w = self.rma.wins.get_mut(&win).expect("checked");
        let st = w.start.as_mut().expect("start epoch");
        let posts = std::mem::take(&mut st.posts);
        let queued = std::mem::take(&mut st.queued);
        if !posts.is_empty() {
            self.ep.wait_all(&posts);
            for r in posts {
                self.ep.free(r);
            }
        }
        for (t, i) in queued {
            self.issue(win, t, i, packet::PSCW);
        }
    }

    /// MPI_Win_wait (`block`) or MPI_Win_test: whether the exposure epoch
    /// is over.
    pub fn win_wait(&mut self, win: MPI_Win, block: bool) -> MpiResult<bool> {
        let w = self.rma.get(win)?;
        let Some(r) = w.exposed else {
            return sync_error("MPI_Win_wait / Win_test without MPI_Win_post");
        };
        let ctx = w.ctx;
        let done = if block {
            self.set_waiting(ctx, true);
            self.ep.wait_all(&[r]);
            self.set_waiting(ctx, false);
            true
        } else {
            !self.ep.test(&[r]).is_empty()
        };
        if done {
            self.ep.free(r);
            self.rma.get_mut(win)?.exposed = None;
        }
        Ok(done)
    }

    fn set_waiting(&mut self, ctx: u32, on: bool) {
        let mut t = self.rma.targets.borrow_mut();
        t.wins.get_mut(&ctx).expect("live window").pscw.waiting = on;
    }
}
