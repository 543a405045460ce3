//! MPI_Ireduce_scatter and MPI_Ireduce_scatter_block (MPICH 4.0.2
//! ireduce_scatter/, ireduce_scatter_block/): recursive halving (commutative
//! operators; the first 2 rem ranks fold pairwise first), pairwise exchange
//! (commutative, long), the noncommutative recursive halving on bit-mirrored
//! blocks (power-of-two sizes, equal blocks) and recursive doubling (any
//! operator and size). Buffer 0 holds the input (all blocks), then the
//! partial results; 1 is scratch of the same size; 2 receives my block of
//! the result; 3 and 4 pack the two ranges recursive doubling sends.
use super::iallreduce::{fold, real};
use super::select::{self, IreduceScatterAlgo};
use super::{at, Local, NbcComm, OwnedOp, Schedule, Xfer};
use crate::coll::{missing_subtree, pof2_floor, Hand};

/// `counts[i]`: bytes of the result for rank i.
pub fn ireduce_scatter(
    c: &NbcComm,
    name: &'static str,
    input: Vec<u8>,
    counts: &[usize],
    op: OwnedOp,
) -> Schedule {
    let total: usize = counts.iter().sum();
    ireduce_scatter_sized(c, name, input, counts, op, total)
}

/// [`ireduce_scatter`] with the size MPICH's selection compares (`total`):
/// the total bytes for MPI_Ireduce_scatter, the total *elements* for
/// MPI_Ireduce_scatter_block (MPICH 4.0.2's `get_total_msgsize` leaves its
/// datatype's size out: `total_bytes = recvcount * comm_size`).
pub fn ireduce_scatter_sized(
    c: &NbcComm,
    name: &'static str,
    input: Vec<u8>,
    counts: &[usize],
    op: OwnedOp,
    total: usize,
) -> Schedule {
    let regular = counts.windows(2).all(|w| w[0] == w[1]);
    let algo = select::ireduce_scatter(c.size(), total, op.commutative, regular);
    ireduce_scatter_with(c, name, input, counts, op, algo)
}

pub fn ireduce_scatter_with(
    c: &NbcComm,
    name: &'static str,
    input: Vec<u8>,
    counts: &[usize],
    op: OwnedOp,
    algo: IreduceScatterAlgo,
) -> Schedule {
    let total = input.len();
    let (n, me) = (c.size(), c.me);
    let mine = counts[me];
    let mut s = Schedule::new(c, name, vec![input, vec![0; total], vec![0; mine]]).with_op(op);
    if total == 0 {
        return s;
    }
    let d = displs(counts);
    if n == 1 {
        s.local(Local::Copy {
            from: at(0, 0),
            to: at(2, 0),
            len: mine,
        });
        return s;
    }
    let regular = counts.windows(2).all(|w| w[0] == w[1]);
    let algo = match algo {
        IreduceScatterAlgo::Noncommutative if !(n.is_power_of_two() && regular) => {
            IreduceScatterAlgo::RecursiveDoubling
        }
        a => a,
    };
    match algo {
        IreduceScatterAlgo::RecursiveHalving => recursive_halving(&mut s, n, me, counts, &d),
        IreduceScatterAlgo::Pairwise => pairwise(&mut s, n, me, counts, &d),
        IreduceScatterAlgo::Noncommutative => noncommutative(&mut s, n, me, counts[0]),
        IreduceScatterAlgo::RecursiveDoubling => recursive_doubling(&mut s, n, me, &d),
    }
    s
}

fn displs(counts: &[usize]) -> Vec<usize> {
    let mut d = Vec::with_capacity(counts.len() + 1);
    d.push(0);
    for (i, c) in counts.iter().enumerate() {
        d.push(d[i] + c);
    }
    d
}

pub fn recursive_halving(s: &mut Schedule, n: usize, me: usize, counts: &[usize], d: &[usize]) {
    let total = d[n];
    let pof2 = pof2_floor(n);
    let rem = n - pof2;
    if let Some(nr) = fold(s, me, total, rem) {
        let old = |i: usize| real(i, rem);
        let newcnts: Vec<usize> = (0..pof2)
            .map(|i| {
                let o = old(i);
                if o < 2 * rem {
                    counts[o] + counts[o - 1]
                } else {
                    counts[o]
                }
            })
            .collect();
        let nd = displs(&newcnts);
        let (mut send_idx, mut recv_idx, mut last_idx) = (0, 0, pof2);
        let mut mask = pof2 >> 1;
        while mask > 0 {
            let newdst = nr ^ mask;
            let dst = old(newdst);
            if nr < newdst {
                send_idx = recv_idx + mask;
            } else {
                recv_idx = send_idx + mask;
            }
            let (s0, s1, r0, r1) = if nr < newdst {
                (send_idx, last_idx, recv_idx, send_idx)
            } else {
                (send_idx, recv_idx, recv_idx, last_idx)
            };
            let (so, sl) = (nd[s0], nd[s1] - nd[s0]);
            let (ro, rl) = (nd[r0], nd[r1] - nd[r0]);
            let mut x = Vec::new();
            if rl > 0 {
                x.push(Xfer::Recv {
                    into: at(1, ro),
                    len: rl,
                    from: dst,
                });
            }
            if sl > 0 {
                x.push(Xfer::Send {
                    from: at(0, so),
                    len: sl,
                    to: dst,
                });
            }
            s.xfers(x);
            if rl > 0 {
                s.combine(at(1, ro), at(0, ro), rl, newdst < nr);
            }
            send_idx = recv_idx;
            last_idx = recv_idx + mask;
            mask >>= 1;
        }
        s.local(Local::Copy {
            from: at(0, d[me]),
            to: at(2, 0),
            len: counts[me],
        });
    }
    if me < 2 * rem {
        if me % 2 == 1 {
            if counts[me - 1] > 0 {
                s.xfers(vec![Xfer::Send {
                    from: at(0, d[me - 1]),
                    len: counts[me - 1],
                    to: me - 1,
                }]);
            }
        } else if counts[me] > 0 {
            s.xfers(vec![Xfer::Recv {
                into: at(2, 0),
                len: counts[me],
                from: me + 1,
            }]);
        }
    }
}

/// My block copied, then n - 1 exchanges: send rank me + i its block,
/// receive mine from me - i and fold it in.
pub fn pairwise(s: &mut Schedule, n: usize, me: usize, counts: &[usize], d: &[usize]) {
    let mine = counts[me];
    s.local(Local::Copy {
        from: at(0, d[me]),
        to: at(2, 0),
        len: mine,
    });
    for i in 1..n {
        let src = (me + n - i) % n;
        let dst = (me + i) % n;
        s.xfers(vec![
            Xfer::Send {
                from: at(0, d[dst]),
                len: counts[dst],
                to: dst,
            },
            Xfer::Recv {
                into: at(1, 0),
                len: mine,
                from: src,
            },
        ]);
        s.combine(at(1, 0), at(2, 0), mine, src < me);
    }
}

fn mirror(x: usize, bits: u32) -> usize {
    let mut r = x & !((1 << bits) - 1);
    for i in 0..bits {
        r |= ((x >> i) & 1) << (bits - i - 1);
    }
    r
}

/// Blocks placed in bit-mirrored order, then recursive halving in which
/// the lower rank's data always comes first (`bs`: bytes per block).
pub fn noncommutative(s: &mut Schedule, n: usize, me: usize, bs: usize) {
    let bits = n.trailing_zeros();
    let total = bs * n;
    // buffers 3 and 4 alternate as "mine" and "incoming".
    s.bufs.push(vec![0; total]);
    s.bufs.push(vec![0; total]);
    for i in 0..n {
        s.local(Local::Copy {
            from: at(0, i * bs),
            to: at(3, mirror(i, bits) * bs),
            len: bs,
        });
    }
    let mut inout = 3;
    let (mut send_off, mut recv_off) = (0, 0);
    let mut size = total;
    for k in 0..bits {
        let peer = me ^ (1 << k);
        size /= 2;
        if me > peer {
            recv_off += size;
        } else {
            send_off += size;
        }
        let incoming = 7 - inout;
        s.xfers(vec![
            Xfer::Send {
                from: at(inout, send_off),
                len: size,
                to: peer,
            },
            Xfer::Recv {
                into: at(incoming, recv_off),
                len: size,
                from: peer,
            },
        ]);
        if me > peer {
            s.local(Local::Reduce {
                input: at(incoming, recv_off),
                inout: at(inout, recv_off),
                len: size,
            });
        } else {
            s.local(Local::Reduce {
                input: at(inout, recv_off),
                inout: at(incoming, recv_off),
                len: size,
            });
            inout = incoming;
        }
        send_off = recv_off;
    }
    s.local(Local::Copy {
        from: at(inout, recv_off),
        to: at(2, 0),
        len: size,
    });
}

/// Recursive doubling: in step `mask` exchange everything but the blocks of
/// the partner's and my aligned subtrees... (MPICH's ranges: the blocks
/// before and after the subtree), with the halving tree of
/// `coll::missing_subtree` for sizes that are not powers of two.
pub fn recursive_doubling(s: &mut Schedule, n: usize, me: usize, d: &[usize]) {
    let total = d[n];
    // 3: what I send, packed; 4: what I receive, packed.
    s.bufs.push(vec![0; total]);
    s.bufs.push(vec![0; total]);
    let ranges = |a: usize, mask: usize| {
        let lo = d[a.min(n)];
        let hi = d[(a + mask).min(n)];
        ((0, lo), (hi, total - hi))
    };
    type R = ((usize, usize), (usize, usize));
    let pack = |s: &mut Schedule, buf: usize, r: R| {
        let ((o0, l0), (o1, l1)) = r;
        s.local(Local::Copy {
            from: at(buf, o0),
            to: at(3, 0),
            len: l0,
        });
        s.local(Local::Copy {
            from: at(buf, o1),
            to: at(3, l0),
            len: l1,
        });
        l0 + l1
    };
    let unpack = |s: &mut Schedule, r: R| {
        let ((o0, l0), (o1, l1)) = r;
        s.local(Local::Copy {
            from: at(4, 0),
            to: at(1, o0),
            len: l0,
        });
        s.local(Local::Copy {
            from: at(4, l0),
            to: at(1, o1),
            len: l1,
        });
    };
    let mut mask = 1;
    let mut i = 0;
    while mask < n {
        let dst = me ^ mask;
        let dst_tree_root = (dst >> i) << i;
        let my_tree_root = (me >> i) << i;
        let sr = ranges(my_tree_root, mask);
        let rr = ranges(dst_tree_root, mask);
        let rlen = rr.0 .1 + rr.1 .1;
        let mut received = false;
        if dst < n {
            let slen = pack(s, 0, sr);
            s.xfers(vec![
                Xfer::Send {
                    from: at(3, 0),
                    len: slen,
                    to: dst,
                },
                Xfer::Recv {
                    into: at(4, 0),
                    len: rlen,
                    from: dst,
                },
            ]);
            unpack(s, rr);
            received = true;
        }
        for hand in missing_subtree(me, mask, n) {
            match hand {
                Hand::To(r) => {
                    let len = pack(s, 1, rr);
                    s.xfers(vec![Xfer::Send {
                        from: at(3, 0),
                        len,
                        to: r,
                    }]);
                }
                Hand::From(r) => {
                    s.xfers(vec![Xfer::Recv {
                        into: at(4, 0),
                        len: rlen,
                        from: r,
                    }]);
                    unpack(s, rr);
                    received = true;
                }
            }
        }
        if received {
            let first = dst_tree_root < my_tree_root;
            for (o, l) in [rr.0, rr.1] {
                s.combine(at(1, o), at(0, o), l, first);
            }
        }
        mask <<= 1;
        i += 1;
    }
    s.local(Local::Copy {
        from: at(0, d[me]),
        to: at(2, 0),
        len: d[me + 1] - d[me],
    });
}
