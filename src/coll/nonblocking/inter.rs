//! Nonblocking collectives on an intercommunicator as MPICH 4.0.2 schedules
//! them by default (its `*_inter_sched_*` algorithms): transfers with the
//! remote group plus the intracommunicator schedules of this directory run
//! on the local group, appended as later rounds (`Schedule::append`). Peers
//! 0..local size of an intercommunicator schedule are the local group (its
//! local communicator's context), the next ones the remote group (sent on
//! the remote group's context, received on ours). A new round starts where
//! MPICH's schedule has a barrier, and where one step needs the data of the
//! step before it.
//!
//! Differences from MPICH's code: the local broadcast of Ibcast is rooted
//! at local rank 0 (MPICH 4.0.2 passes the remote root's rank, which only
//! works when it is 0); sub-steps MPICH leaves without a barrier between
//! them (the two reductions of Ireduce_scatter, the two broadcasts of
//! Iallgather) run one after the other.
use super::{at, ibarrier, ibcast, igather, ireduce, iscatter, iscatterv, NbcComm};
use super::{OwnedOp, Schedule, Xfer};
use crate::coll::inter::{Root, LOCAL_CTX_BIT};
use crate::coll::select::GATHERV_INTER_SSEND_MIN_PROCS;
use crate::coll::{Layout, COLL_CTX_BIT};

/// An intercommunicator as the nonblocking schedules see it.
pub struct InterNbc<'a> {
    pub local: &'a [u32],
    pub remote: &'a [u32],
    pub me: usize,
    /// Receive context (the intercommunicator's id).
    pub ctx: u32,
    /// The remote group's receive context.
    pub send_ctx: u32,
    pub is_low: bool,
    /// This collective's tag.
    pub tag: i32,
}

impl InterNbc<'_> {
    fn local_comm(&self) -> NbcComm<'_> {
        NbcComm {
            ranks: self.local,
            me: self.me,
            ctx: self.ctx | LOCAL_CTX_BIT,
            tag: self.tag,
        }
    }

    /// A schedule over the local group then the remote group.
    fn schedule(&self, name: &'static str, bufs: Vec<Vec<u8>>) -> Schedule {
        let mut s = Schedule::new(&self.local_comm(), name, bufs);
        s.add_peers(
            self.remote,
            self.send_ctx | COLL_CTX_BIT,
            self.ctx | COLL_CTX_BIT,
        );
        s
    }

    /// The peer index of remote rank `r`.
    fn remote(&self, r: usize) -> usize {
        self.local.len() + r
    }

    /// Root of rank 0 of the giving group (MPI_ROOT), else MPI_PROC_NULL.
    fn giver(&self) -> Root {
        if self.me == 0 {
            Root::Me
        } else {
            Root::Null
        }
    }
}

/// The steps of an inter Ibcast of buffer `b` of `s` (`len` bytes).
fn bcast_steps(ic: &InterNbc, s: &mut Schedule, b: usize, len: usize, root: Root) {
    match root {
        Root::Null => {}
        Root::Me => s.xfers(vec![Xfer::Send {
            from: at(b, 0),
            len,
            to: ic.remote(0),
        }]),
        Root::Remote(r) => {
            if ic.me == 0 {
                s.xfers(vec![Xfer::Recv {
                    into: at(b, 0),
                    len,
                    from: ic.remote(r),
                }]);
            }
            let sub = ibcast::ibcast(&ic.local_comm(), vec![0; len], 0);
            s.append(sub, &[Some(b)]);
        }
    }
}

/// MPI_Ibcast (`sched_flat`): buffer 0 holds the data.
pub fn ibcast(ic: &InterNbc, data: Vec<u8>, root: Root) -> Schedule {
    let len = data.len();
    let mut s = ic.schedule("MPI_Ibcast", vec![data]);
    bcast_steps(ic, &mut s, 0, len, root);
    s
}

/// MPI_Ibarrier (`sched_bcast`): a local barrier, then one-byte broadcasts
/// from the low group to the high one and back.
pub fn ibarrier(ic: &InterNbc) -> Schedule {
    let mut s = ic.schedule("MPI_Ibarrier", vec![vec![0]]);
    if ic.local.len() > 1 {
        s.append(ibarrier::ibarrier(&ic.local_comm()), &[]);
    }
    let g = ic.giver();
    for step in 0..2 {
        let root = if (step == 0) == ic.is_low {
            g
        } else {
            Root::Remote(0)
        };
        bcast_steps(ic, &mut s, 0, 1, root);
    }
    s
}

/// The steps of an inter Ireduce (`local_reduce_remote_send`): at the
/// root, buffer `res` receives the result; in the other group buffer
/// `mine` holds my data (reduced locally to rank 0, which sends it).
#[allow(clippy::too_many_arguments)]
fn reduce_steps(
    ic: &InterNbc,
    s: &mut Schedule,
    mine: usize,
    res: usize,
    len: usize,
    elem: usize,
    op: &mut Option<OwnedOp>,
    root: Root,
) {
    match root {
        Root::Null => {}
        Root::Me => s.xfers(vec![Xfer::Recv {
            into: at(res, 0),
            len,
            from: ic.remote(0),
        }]),
        Root::Remote(r) => {
            let op = op.take().expect("one local reduction per schedule");
            let sub = ireduce::ireduce(&ic.local_comm(), vec![0; len], elem, op, 0);
            s.append(sub, &[Some(mine)]);
            if ic.me == 0 {
                s.xfers(vec![Xfer::Send {
                    from: at(mine, 0),
                    len,
                    to: ic.remote(r),
                }]);
            }
        }
    }
}

/// MPI_Ireduce: buffer 0 holds my data (the result at the root).
pub fn ireduce(ic: &InterNbc, data: Vec<u8>, elem: usize, op: OwnedOp, root: Root) -> Schedule {
    let len = data.len();
    let mut s = ic.schedule("MPI_Ireduce", vec![data]);
    let mut op = Some(op);
    reduce_steps(ic, &mut s, 0, 0, len, elem, &mut op, root);
    s
}

/// The two inter reductions of Iallreduce / Ireduce_scatter: the remote
/// group's vectors into buffer `res` at my rank 0, mine to its rank 0, the
/// low group's root first.
fn both_reduces(
    ic: &InterNbc,
    s: &mut Schedule,
    mine: usize,
    res: usize,
    len: usize,
    elem: usize,
    op: OwnedOp,
) {
    let mut op = Some(op);
    let g = ic.giver();
    for step in 0..2 {
        if (step == 0) == ic.is_low {
            reduce_steps(ic, s, mine, res, len, elem, &mut op, g);
        } else {
            reduce_steps(ic, s, mine, res, len, elem, &mut op, Root::Remote(0));
        }
    }
}

/// MPI_Iallreduce (`sched_remote_reduce_local_bcast`): buffer 0 holds my
/// data, buffer 1 gets the remote group's reduction.
pub fn iallreduce(ic: &InterNbc, data: Vec<u8>, elem: usize, op: OwnedOp) -> Schedule {
    let len = data.len();
    let mut s = ic.schedule("MPI_Iallreduce", vec![data, vec![0; len]]);
    both_reduces(ic, &mut s, 0, 1, len, elem, op);
    let sub = ibcast::ibcast(&ic.local_comm(), vec![0; len], 0);
    s.append(sub, &[Some(1)]);
    s
}

/// MPI_Ireduce_scatter(_block) (`sched_remote_reduce_local_scatterv`):
/// buffer 0 holds my vector, buffer 1 the remote group's reduction (at
/// rank 0), buffer 2 gets my block (`counts` bytes per local rank).
pub fn ireduce_scatter(
    ic: &InterNbc,
    data: Vec<u8>,
    counts: &[usize],
    elem: usize,
    op: OwnedOp,
) -> Schedule {
    let len = data.len();
    let mine = counts[ic.me];
    let mut s = ic.schedule(
        "MPI_Ireduce_scatter",
        vec![data, vec![0; len], vec![0; mine]],
    );
    both_reduces(ic, &mut s, 0, 1, len, elem, op);
    let displs: Vec<usize> = counts
        .iter()
        .scan(0, |a, &c| {
            let o = *a;
            *a += c;
            Some(o)
        })
        .collect();
    let l = Layout {
        counts,
        displs: &displs,
    };
    let (sub, at_out) = if ic.me == 0 {
        // the root keeps its own block: copied below
        (
            iscatterv::iscatterv(&ic.local_comm(), vec![0; len], l, mine, 0),
            None,
        )
    } else {
        (
            iscatterv::iscatterv(&ic.local_comm(), vec![0; mine], l, mine, 0),
            Some(2),
        )
    };
    if ic.me == 0 {
        s.append(sub, &[Some(1)]);
        s.local(super::Local::Copy {
            from: at(1, 0),
            to: at(2, 0),
            len: mine,
        });
    } else {
        s.append(sub, &[at_out]);
    }
    s
}

/// MPI_Igather: at the root buffer 0 gets the remote group's blocks in
/// rank order; elsewhere buffer 0 holds my block. `short`: MPICH's choice
/// (`coll::inter::rooted::short`).
pub fn igather(ic: &InterNbc, mine: Vec<u8>, total: usize, root: Root, short: bool) -> Schedule {
    match root {
        Root::Null => ic.schedule("MPI_Igather", vec![mine]),
        Root::Me => {
            let mut s = ic.schedule("MPI_Igather", vec![vec![0; total]]);
            let n = ic.remote.len();
            if short {
                s.xfers(vec![Xfer::Recv {
                    into: at(0, 0),
                    len: total,
                    from: ic.remote(0),
                }]);
            } else {
                let b = total / n.max(1);
                s.xfers(
                    (0..n)
                        .map(|i| Xfer::Recv {
                            into: at(0, i * b),
                            len: b,
                            from: ic.remote(i),
                        })
                        .collect(),
                );
            }
            s
        }
        Root::Remote(r) => {
            let b = mine.len();
            if !short {
                let mut s = ic.schedule("MPI_Igather", vec![mine]);
                s.xfers(vec![Xfer::Send {
                    from: at(0, 0),
                    len: b,
                    to: ic.remote(r),
                }]);
                return s;
            }
            let mut s = ic.schedule("MPI_Igather", vec![]);
            let sub = igather::igather(&ic.local_comm(), mine, 0);
            let map = s.append(sub, &[None]);
            if ic.me == 0 {
                s.xfers(vec![Xfer::Send {
                    from: at(map[0], 0),
                    len: b * ic.local.len(),
                    to: ic.remote(r),
                }]);
            }
            s
        }
    }
}

/// MPI_Iscatter: at the root buffer 0 holds the remote group's blocks in
/// rank order; elsewhere buffer 0 gets my block (`block` bytes).
pub fn iscatter(ic: &InterNbc, all: Vec<u8>, block: usize, root: Root, short: bool) -> Schedule {
    match root {
        Root::Null => ic.schedule("MPI_Iscatter", vec![vec![]]),
        Root::Me => {
            let n = ic.remote.len();
            let b = all.len() / n.max(1);
            let total = all.len();
            let mut s = ic.schedule("MPI_Iscatter", vec![all]);
            if short {
                s.xfers(vec![Xfer::Send {
                    from: at(0, 0),
                    len: total,
                    to: ic.remote(0),
                }]);
            } else {
                s.xfers(
                    (0..n)
                        .map(|i| Xfer::Send {
                            from: at(0, i * b),
                            len: b,
                            to: ic.remote(i),
                        })
                        .collect(),
                );
            }
            s
        }
        Root::Remote(r) => {
            let mut s = ic.schedule("MPI_Iscatter", vec![vec![0; block]]);
            if !short {
                s.xfers(vec![Xfer::Recv {
                    into: at(0, 0),
                    len: block,
                    from: ic.remote(r),
                }]);
                return s;
            }
            let n = ic.local.len();
            let tmp = if ic.me == 0 {
                s.bufs.push(vec![0; n * block]);
                s.xfers(vec![Xfer::Recv {
                    into: at(1, 0),
                    len: n * block,
                    from: ic.remote(r),
                }]);
                Some(1)
            } else {
                None
            };
            let sub = iscatter::iscatter(&ic.local_comm(), vec![0; n * block], block, 0);
            let map = s.append(sub, &[tmp]);
            // my block is the first of the scatter's buffer
            s.local(super::Local::Copy {
                from: at(map[0], 0),
                to: at(0, 0),
                len: block,
            });
            s
        }
    }
}

/// MPI_Igatherv (`allcomm_sched_linear`): at the root, remote rank i's
/// block lands at `l.range(i)` of buffer 0; elsewhere buffer 0 holds mine.
pub fn igatherv(ic: &InterNbc, mine: Vec<u8>, total: usize, l: Layout, root: Root) -> Schedule {
    match root {
        Root::Null => ic.schedule("MPI_Igatherv", vec![mine]),
        Root::Me => {
            let mut s = ic.schedule("MPI_Igatherv", vec![vec![0; total]]);
            let x = (0..ic.remote.len())
                .filter(|&i| l.counts[i] > 0)
                .map(|i| Xfer::Recv {
                    into: at(0, l.displs[i]),
                    len: l.counts[i],
                    from: ic.remote(i),
                })
                .collect();
            s.xfers(x);
            s
        }
        Root::Remote(r) => {
            let len = mine.len();
            let mut s = ic.schedule("MPI_Igatherv", vec![mine]);
            if len > 0 {
                let x = if ic.local.len() >= GATHERV_INTER_SSEND_MIN_PROCS {
                    Xfer::Ssend {
                        from: at(0, 0),
                        len,
                        to: ic.remote(r),
                    }
                } else {
                    Xfer::Send {
                        from: at(0, 0),
                        len,
                        to: ic.remote(r),
                    }
                };
                s.xfers(vec![x]);
            }
            s
        }
    }
}

/// MPI_Iscatterv (`allcomm_sched_linear`): the root's buffer 0 holds the
/// packed blocks (`l`); elsewhere buffer 0 gets mine (`mine` bytes).
pub fn iscatterv(ic: &InterNbc, all: Vec<u8>, l: Layout, mine: usize, root: Root) -> Schedule {
    match root {
        Root::Null => ic.schedule("MPI_Iscatterv", vec![vec![]]),
        Root::Me => {
            let mut s = ic.schedule("MPI_Iscatterv", vec![all]);
            let x = (0..ic.remote.len())
                .filter(|&i| l.counts[i] > 0)
                .map(|i| Xfer::Send {
                    from: at(0, l.displs[i]),
                    len: l.counts[i],
                    to: ic.remote(i),
                })
                .collect();
            s.xfers(x);
            s
        }
        Root::Remote(r) => {
            let mut s = ic.schedule("MPI_Iscatterv", vec![vec![0; mine]]);
            if mine > 0 {
                s.xfers(vec![Xfer::Recv {
                    into: at(0, 0),
                    len: mine,
                    from: ic.remote(r),
                }]);
            }
            s
        }
    }
}

/// MPI_Iallgather (`sched_local_gather_remote_bcast`): buffer 0 holds my
/// block, buffer 1 gets the remote group's blocks (`total` bytes).
pub fn iallgather(ic: &InterNbc, mine: Vec<u8>, total: usize) -> Schedule {
    let b = mine.len();
    let mut s = ic.schedule("MPI_Iallgather", vec![vec![], vec![0; total]]);
    let gathered = if b > 0 {
        let sub = igather::igather(&ic.local_comm(), mine, 0);
        Some(s.append(sub, &[None])[0])
    } else {
        None
    };
    let g = ic.giver();
    let n = ic.local.len();
    for step in 0..2 {
        if (step == 0) == ic.is_low {
            if let Some(t) = gathered {
                bcast_steps(ic, &mut s, t, n * b, g);
            }
        } else if total > 0 {
            bcast_steps(ic, &mut s, 1, total, Root::Remote(0));
        }
    }
    s
}

/// MPI_Iallgatherv (`sched_remote_gather_local_bcast`): buffer 0 holds my
/// block, buffer 1 gets remote rank i's at `l.range(i)`.
pub fn iallgatherv(ic: &InterNbc, mine: Vec<u8>, total: usize, l: Layout) -> Schedule {
    let len = mine.len();
    let mut s = ic.schedule("MPI_Iallgatherv", vec![mine, vec![0; total]]);
    let g = ic.giver();
    for step in 0..2 {
        let root = if (step == 0) == ic.is_low {
            g
        } else {
            Root::Remote(0)
        };
        match root {
            Root::Me => {
                let x = (0..ic.remote.len())
                    .filter(|&i| l.counts[i] > 0)
                    .map(|i| Xfer::Recv {
                        into: at(1, l.displs[i]),
                        len: l.counts[i],
                        from: ic.remote(i),
                    })
                    .collect();
                s.xfers(x);
            }
            Root::Remote(r) if len > 0 => {
                let x = if ic.local.len() >= GATHERV_INTER_SSEND_MIN_PROCS {
                    Xfer::Ssend {
                        from: at(0, 0),
                        len,
                        to: ic.remote(r),
                    }
                } else {
                    Xfer::Send {
                        from: at(0, 0),
                        len,
                        to: ic.remote(r),
                    }
                };
                s.xfers(vec![x]);
            }
            _ => {}
        }
    }
    if total > 0 {
        let sub = ibcast::ibcast(&ic.local_comm(), vec![0; total], 0);
        s.append(sub, &[Some(1)]);
    }
    s
}

/// MPI_Ialltoall(v,w) (`sched_pairwise_exchange`): one round of every
/// send and receive; remote rank j gets `sl.range(j)` of buffer 0, its
/// block lands at `rl.range(j)` of buffer 1.
pub fn ialltoallv(ic: &InterNbc, send: Vec<u8>, sl: Layout, rl: Layout, total: usize) -> Schedule {
    let mut s = ic.schedule("MPI_Ialltoall", vec![send, vec![0; total]]);
    let (l, r, me) = (ic.local.len(), ic.remote.len(), ic.me);
    let max = l.max(r);
    let mut x = Vec::new();
    for i in 0..max {
        let src = (me + max - i) % max;
        let dst = (me + i) % max;
        if dst < r {
            x.push(Xfer::Send {
                from: at(0, sl.displs[dst]),
                len: sl.counts[dst],
                to: ic.remote(dst),
            });
        }
        if src < r {
            x.push(Xfer::Recv {
                into: at(1, rl.displs[src]),
                len: rl.counts[src],
                from: ic.remote(src),
            });
        }
    }
    s.xfers(x);
    s
}
