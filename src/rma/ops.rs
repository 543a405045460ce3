//! Put, Get and Accumulate at the origin: checking the epoch and the target
//! range, then issuing the packet at once (the epoch allows it) or queueing
//! it until the epoch's LOCK_GRANTED has arrived. Timing: see the module
//! doc of `crate::rma`.
use super::packet::{self, Packet};
use super::window::{Access, GetDest, Issue, PassiveTarget, PendingGet, Window};
use crate::mpi::comm::Source;
use crate::mpi::datatype::Datatype;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::request::{Kind, Req, ReqState};
use crate::mpi::state::{RecvArgs, RecvTarget};
use crate::mpi::status::empty_status;
use crate::mpi::World;
use crate::p2p::ACTIVE_CTX_BIT;
use crate::sys::{self, MPI_Win};
use crate::transport::RecvBuf;
use std::sync::Arc;

/// The target side of an operation.
pub struct TargetSpec<'a> {
    pub rank: i32,
    pub disp: sys::MPI_Aint,
    pub count: usize,
    pub ty: &'a Datatype,
}

/// What an operation does.
pub enum OpKind {
    Put(Vec<u8>),
    /// Operator and basic datatype, packed data.
    Acc(sys::MPI_Op, sys::MPI_Datatype, Vec<u8>),
    Get(GetDest),
    /// Get_accumulate (`fop`: Fetch_and_op, a packet of `header_bytes`):
    /// operator, basic datatype, packed data (empty for MPI_NO_OP), result.
    GetAcc {
        op: sys::MPI_Op,
        dtype: sys::MPI_Datatype,
        data: Vec<u8>,
        result: GetDest,
        fop: bool,
    },
    /// Compare_and_swap: the new value then the compare value, and the
    /// result.
    Cas(Vec<u8>, GetDest),
}

impl World {
    /// Put / Get / Accumulate on `win`. Returns false for MPI_PROC_NULL
    /// (nothing to do).
    pub fn rma_op(&mut self, win: MPI_Win, t: TargetSpec, op: OpKind) -> MpiResult<()> {
        if let Some((target, issue)) = self.prepare(win, t, op)? {
            if self.is_direct(win) {
                self.direct(win, target, issue)?;
            } else {
                self.submit(win, target, issue)?;
            }
        }
        Ok(())
    }

    /// Check an operation: its window rank and packet (None for
    /// MPI_PROC_NULL).
    fn prepare(
        &mut self,
        win: MPI_Win,
        t: TargetSpec,
        op: OpKind,
    ) -> MpiResult<Option<(usize, Issue)>> {
        let w = self.rma.get(win)?;
        if t.rank == sys::MPI_PROC_NULL {
            return Ok(None);
        }
        let n = w.ranks.len();
        if t.rank < 0 || t.rank as usize >= n {
            return fail(
                sys::MPI_ERR_RANK,
                format!("invalid target rank {} (window of {n} ranks)", t.rank),
            );
        }
        let target = t.rank as usize;
        if w.access == Access::None {
            return fail(
                sys::MPI_ERR_RMA_SYNC,
                "no access epoch is open on the window (call MPI_Win_fence, MPI_Win_lock or \
                 MPI_Win_lock_all first)",
            );
        }
        if w.access == Access::Passive && w.lock_all.is_none() && !w.passive.contains_key(&target) {
            return fail(
                sys::MPI_ERR_RMA_SYNC,
                format!("target rank {target} is not locked in this passive-target epoch"),
            );
        }
        let disp = t.disp * w.disp_units[target] as i64;
        // A dynamic window's displacements are addresses its target checks.
        let limit = if w.flavor == sys::MPI_WIN_FLAVOR_DYNAMIC {
            u64::MAX / 2
        } else {
            w.sizes[target]
        };
        let runs = packet::target_runs(
            disp,
            t.count,
            t.ty.blocks(),
            t.ty.origin(),
            t.ty.extent(),
            limit,
        )?;
        let tbytes = t.ty.packed_size(t.count);
        let obytes = match &op {
            OpKind::Put(d) | OpKind::Acc(_, _, d) => d.len(),
            OpKind::Get(g) | OpKind::Cas(_, g) => g.len,
            OpKind::GetAcc { result, .. } => result.len,
        };
        if let OpKind::GetAcc { op, data, .. } = &op {
            if *op != sys::MPI_NO_OP && data.len() != tbytes {
                return fail(
                    sys::MPI_ERR_TYPE,
                    format!(
                        "the origin describes {} bytes and the target {tbytes} bytes \
                         (the type signatures must match)",
                        data.len()
                    ),
                );
            }
        }
        if obytes != tbytes {
            return fail(
                sys::MPI_ERR_TYPE,
                format!(
                    "the origin describes {obytes} bytes and the target {tbytes} bytes \
                     (the type signatures must match)"
                ),
            );
        }
        let hb = self.ep.model().header_bytes;
        let (kind, vsize, p, get) = match op {
            OpKind::Put(data) => {
                let v = data.len() as u64;
                (packet::PUT, v, mk(runs, 0, 0, data), None)
            }
            OpKind::Acc(o, dt, data) => {
                let v = data.len() as u64;
                (packet::ACC, v, mk(runs, o, dt, data), None)
            }
            OpKind::Get(g) => (packet::GET, hb, mk(runs, 0, 0, Vec::new()), Some(g)),
            OpKind::GetAcc {
                op,
                dtype,
                data,
                result,
                fop,
            } => {
                let data = if op == sys::MPI_NO_OP {
                    Vec::new()
                } else {
                    data
                };
                let v = if fop || data.is_empty() {
                    hb
                } else {
                    data.len() as u64
                };
                (packet::GACC, v, mk(runs, op, dtype, data), Some(result))
            }
            OpKind::Cas(data, result) => (packet::CAS, hb, mk(runs, 0, 0, data), Some(result)),
        };
        Ok(Some((
            target,
            Issue {
                kind,
                vsize,
                packet: p,
                get,
            },
        )))
    }

    /// Issue or queue a checked operation, as its epoch allows.
    fn submit(&mut self, win: MPI_Win, target: usize, issue: Issue) -> MpiResult<()> {
        let w = self.rma.get_mut(win)?;
        if w.access == Access::Fence {
            self.issue(win, target, issue, packet::COUNTED);
            return Ok(());
        }
        if w.access == Access::Pscw {
            let st = w.start.as_mut().expect("start epoch");
            let Some(k) = st.targets.iter().position(|&x| x == target) else {
                return fail(
                    sys::MPI_ERR_RMA_SYNC,
                    format!("target rank {target} is not in the group of MPI_Win_start"),
                );
            };
            st.sent[k] += 1;
            if st.posts.is_empty() {
                self.issue(win, target, issue, packet::PSCW);
            } else {
                st.queued.push((target, issue));
            }
            return Ok(());
        }
        if !w.passive.contains_key(&target) {
            // lock_all: the shared lock of this target goes out now.
            let nocheck = w.lock_all == Some(true);
            self.lock_target(win, target, sys::MPI_LOCK_SHARED, nocheck);
        }
        let w = self.rma.get_mut(win)?;
        let pt = w.passive.get_mut(&target).expect("locked");
        pt.unflushed = true;
        if pt.granted.is_some() {
            pt.queued.push(issue);
        } else {
            self.issue(win, target, issue, 0);
        }
        Ok(())
    }

    /// A request-based operation (MPI_Rput, Rget, Raccumulate,
    /// Rget_accumulate): issued at once, after waiting for the epoch's grant
    /// if it has not come yet (LOCK_GRANTED, or the POSTs of MPI_Win_start).
    /// A GET-like operation's response lands in `result` (the user's buffer
    /// or a staging one, as a receive's does) and its request completes when
    /// the response has been received; a PUT-like one is complete at once
    /// (the data has left). The epoch's synchronization does not wait for
    /// request-based operations: MPI_Wait / Test does.
    pub fn rma_request_op(
        &mut self,
        win: MPI_Win,
        t: TargetSpec,
        op: OpKind,
        result: Option<(RecvTarget<RecvBuf>, Arc<Datatype>, usize)>,
    ) -> MpiResult<Req> {
        let comm = self.rma.get(win)?.comm;
        let group = self.comms.get(comm)?.group.clone();
        let done = |group| Req {
            kind: Kind::Send,
            comm,
            group,
            state: ReqState::Done(empty_status()),
            keep: None,
            staging: None,
            capacity: 0,
        };
        let Some((target, mut issue)) = self.prepare(win, t, op)? else {
            return Ok(done(group));
        };
        if self.is_direct(win) {
            // done at the call, result included
            self.direct(win, target, issue)?;
            return Ok(done(group));
        }
        self.make_ready(win, target);
        let Some((rt, ty, count)) = result else {
            self.submit(win, target, issue)?;
            return Ok(done(group));
        };
        let w = self.rma.get_mut(win)?;
        let tag = w.take_tag();
        let a = RecvArgs {
            comm,
            group,
            ctx: w.ctx,
            src: Source::Rank(w.ranks[target]),
            tag: Some(tag),
            bytes: ty.packed_size(count),
            ty,
            count,
        };
        let req = self.start_recv(&a, rt);
        issue.get = None;
        issue.packet.arg = tag;
        self.submit(win, target, issue)?;
        Ok(req)
    }

    /// Wait for the grant of the epoch towards `target` if it has not come.
    fn make_ready(&mut self, win: MPI_Win, target: usize) {
        let w = self.rma.wins.get_mut(&win).expect("checked");
        match w.access {
            Access::Passive => {
                if !w.passive.contains_key(&target) {
                    let nocheck = w.lock_all == Some(true);
                    self.lock_target(win, target, sys::MPI_LOCK_SHARED, nocheck);
                }
                self.ensure_granted(win, target);
            }
            Access::Pscw => self.wait_posts(win),
            _ => {}
        }
    }

    /// Send an operation's packet now (posting the GET response's receive).
    pub(crate) fn issue(&mut self, win: MPI_Win, target: usize, mut i: Issue, flags: u8) {
        let w = self.rma.wins.get_mut(&win).expect("checked");
        let dest = w.ranks[target];
        let ctx = w.ctx;
        i.packet.flags |= flags;
        if flags & packet::COUNTED != 0 {
            w.sent[target] += 1;
        }
        if let Some(g) = i.get {
            let tag = w.take_tag();
            i.packet.arg = tag;
            let req = self.ep.irecv_vec(g.len, Some(dest), Some(tag), ctx);
            let w = self.rma.wins.get_mut(&win).expect("checked");
            w.gets.push(PendingGet {
                req,
                target,
                dest: g,
            });
        }
        let bytes = i.packet.encode();
        self.send_packet(win, target, i.kind, i.vsize, &bytes);
    }

    /// Send packet `kind` of `bytes` (timed as `vsize` bytes) to window rank
    /// `target`, in order after the previous one sent there.
    pub(crate) fn send_packet(
        &mut self,
        win: MPI_Win,
        target: usize,
        kind: i32,
        vsize: u64,
        bytes: &[u8],
    ) {
        let w = self.rma.wins.get_mut(&win).expect("checked");
        let (dest, ctx, after) = (w.ranks[target], w.ctx, w.last_ta[target]);
        let ta = self
            .ep
            .send_active(dest, ctx | ACTIVE_CTX_BIT, kind, vsize, bytes, after);
        let w = self.rma.wins.get_mut(&win).expect("checked");
        w.last_ta[target] = ta;
    }

    /// Start a passive-target epoch towards `target`: send LOCK (unless
    /// `nocheck`) and post the LOCK_GRANTED receive.
    pub(crate) fn lock_target(&mut self, win: MPI_Win, target: usize, ty: i32, nocheck: bool) {
        let w = self.rma.wins.get_mut(&win).expect("checked");
        let (dest, ctx) = (w.ranks[target], w.ctx);
        let granted = if nocheck {
            None
        } else {
            let r = self
                .ep
                .irecv_vec(0, Some(dest), Some(packet::LOCK_GRANTED), ctx);
            let hb = self.ep.model().header_bytes;
            let p = Packet::control(0, ty).encode();
            self.send_packet(win, target, packet::LOCK, hb, &p);
            Some(r)
        };
        let w = self.rma.wins.get_mut(&win).expect("checked");
        w.passive.insert(
            target,
            PassiveTarget {
                granted,
                nocheck,
                queued: Vec::new(),
                unflushed: false,
            },
        );
    }
}

fn mk(runs: Vec<(u64, u64)>, op: i32, dtype: i32, data: Vec<u8>) -> Packet {
    Packet {
        flags: 0,
        arg: 0,
        op,
        dtype,
        runs,
        data,
    }
}

/// The window rank of a target argument (checked).
pub fn target_rank(w: &Window, rank: i32) -> MpiResult<usize> {
    let n = w.ranks.len();
    if rank < 0 || rank as usize >= n {
        return fail(
            sys::MPI_ERR_RANK,
            format!("invalid target rank {rank} (window of {n} ranks)"),
        );
    }
    Ok(rank as usize)
}
