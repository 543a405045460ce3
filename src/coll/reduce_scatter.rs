//! MPI_Reduce_scatter (MPICH 3.2 red_scat.c, MPIR_Reduce_scatter_intra):
//! recursive halving (commutative, short), pairwise exchange (commutative,
//! long), Traff's butterfly for non-commutative ops on a power-of-two size
//! with equal counts, and recursive doubling (non-commutative otherwise).
use super::allreduce::{fold, real};
use super::select::{self, Coll, ReduceScatterAlgo};
use super::{missing_subtree, pof2_floor, put, tag, Comm, Hand, Op};
use crate::p2p::Link;

/// Reduce the `sum(counts)` bytes of `send` over all ranks and leave block i
/// (`counts[i]` bytes, in rank order) in `recv` on rank i; `elem` bytes per
/// element, counts are multiples of it.
pub fn reduce_scatter<L: Link>(
    c: &mut Comm<L>,
    send: &[u8],
    recv: &mut [u8],
    counts: &[usize],
    elem: usize,
    op: &mut Op,
) {
    let algo = select::forced(c.core.model(), Coll::ReduceScatter)
        .unwrap_or_else(|| default_algo(c.size(), counts, op));
    reduce_scatter_with(c, send, recv, counts, elem, op, algo);
}

pub fn reduce_scatter_with<L: Link>(
    c: &mut Comm<L>,
    send: &[u8],
    recv: &mut [u8],
    counts: &[usize],
    elem: usize,
    op: &mut Op,
    algo: ReduceScatterAlgo,
) {
    run(c, send, recv, counts, elem, op, algo, tag::REDUCE_SCATTER);
}

fn regular(counts: &[usize]) -> bool {
    counts.windows(2).all(|w| w[0] == w[1])
}

pub(crate) fn default_algo(n: usize, counts: &[usize], op: &Op) -> ReduceScatterAlgo {
    let total: usize = counts.iter().sum();
    select::reduce_scatter(n, total, op.commutative, regular(counts))
}

/// Runs `algo`, or what replaces it where it cannot run
/// ([`select::reduce_scatter_fallback`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run<L: Link>(
    c: &mut Comm<L>,
    send: &[u8],
    recv: &mut [u8],
    counts: &[usize],
    elem: usize,
    op: &mut Op,
    algo: ReduceScatterAlgo,
    tag: i32,
) {
    let total: usize = counts.iter().sum();
    debug_assert_eq!(send.len(), total, "the send buffer holds every block");
    if total == 0 {
        return;
    }
    let algo = select::reduce_scatter_fallback(algo, c.size(), op.commutative, regular(counts));
    match algo {
        ReduceScatterAlgo::RecursiveHalving => {
            recursive_halving(c, send, recv, counts, elem, op, tag)
        }
        ReduceScatterAlgo::Pairwise => pairwise(c, send, recv, counts, op, tag),
        ReduceScatterAlgo::Noncommutative => noncommutative(c, send, recv, counts, op, tag),
        ReduceScatterAlgo::RecursiveDoubling => recursive_doubling(c, send, recv, counts, op, tag),
    }
}

fn displs(counts: &[usize]) -> Vec<usize> {
    let mut d = vec![0; counts.len() + 1];
    for i in 0..counts.len() {
        d[i + 1] = d[i] + counts[i];
    }
    d
}

/// Recursive halving (commutative ops only). Non-power-of-two: even ranks
/// below 2*rem send everything to rank+1 (Allreduce's [`fold`]), which also
/// computes their block and sends it back at the end. Then, for mask = pof2/2 down to 1, keep the
/// half of the current range that holds my blocks and exchange the other
/// half with `newrank ^ mask`.
pub fn recursive_halving<L: Link>(
    c: &mut Comm<L>,
    send: &[u8],
    recv: &mut [u8],
    counts: &[usize],
    _elem: usize,
    op: &mut Op,
    tag: i32,
) {
    let (n, me) = (c.size(), c.me);
    let disps = displs(counts);
    let mut results = send.to_vec();
    let pof2 = pof2_floor(n);
    let rem = n - pof2;
    if let Some(nr) = fold(c, &mut results, op, rem, tag) {
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
        let newdisps = displs(&newcnts);
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
            let sr = newdisps[s0]..newdisps[s1];
            let rr = newdisps[r0]..newdisps[r1];
            let mut tmp = if !sr.is_empty() && !rr.is_empty() {
                c.sendrecv(&results[sr], dst, rr.len(), dst, tag)
            } else if !rr.is_empty() {
                c.recv(rr.len(), dst, tag)
            } else {
                if !sr.is_empty() {
                    c.send(&results[sr], dst, tag);
                }
                Vec::new()
            };
            if !rr.is_empty() {
                c.combine(op, &mut tmp, &mut results[rr], newdst < nr);
            }
            send_idx = recv_idx;
            last_idx = recv_idx + mask;
            mask >>= 1;
        }
        recv.copy_from_slice(&results[disps[me]..disps[me + 1]]);
    }
    if me < 2 * rem {
        if !me.is_multiple_of(2) {
            if counts[me - 1] > 0 {
                c.send(&results[disps[me - 1]..disps[me]], me - 1, tag);
            }
        } else if counts[me] > 0 {
            let v = c.recv(counts[me], me + 1, tag);
            put(recv, 0, &v);
        }
    }
}

/// Pairwise exchange (commutative ops): in step i send rank+i its block and
/// receive mine from rank-i.
pub fn pairwise<L: Link>(
    c: &mut Comm<L>,
    send: &[u8],
    recv: &mut [u8],
    counts: &[usize],
    op: &mut Op,
    tag: i32,
) {
    let (n, me) = (c.size(), c.me);
    let disps = displs(counts);
    recv.copy_from_slice(&send[disps[me]..disps[me + 1]]);
    for i in 1..n {
        let src = (me + n - i) % n;
        let dst = (me + i) % n;
        let mut tmp = c.sendrecv(&send[disps[dst]..disps[dst + 1]], dst, counts[me], src, tag);
        c.combine(op, &mut tmp, recv, src < me);
    }
}

/// Bit reversal of the low `bits` bits of x (MPIU_Mirror_permutation).
fn mirror(x: usize, bits: u32) -> usize {
    let mut r = x & !((1 << bits) - 1);
    for i in 0..bits {
        r |= ((x >> i) & 1) << (bits - i - 1);
    }
    r
}

/// MPIR_Reduce_scatter_noncomm (Traff's butterfly): blocks are laid out in
/// mirror (bit-reversed) order, then in step k each rank exchanges half of
/// its current range with `rank ^ 2^k`, the lower rank keeping the lower
/// half; operands are combined in rank order. Power of two, equal counts.
pub fn noncommutative<L: Link>(
    c: &mut Comm<L>,
    send: &[u8],
    recv: &mut [u8],
    counts: &[usize],
    op: &mut Op,
    tag: i32,
) {
    let (n, me) = (c.size(), c.me);
    let bits = n.trailing_zeros();
    let bs = counts[0];
    let total = bs * n;
    let mut bufs = [vec![0u8; total], vec![0u8; total]];
    for i in 0..n {
        let m = mirror(i, bits);
        bufs[0][m * bs..(m + 1) * bs].copy_from_slice(&send[i * bs..(i + 1) * bs]);
    }
    let mut inout = 0; // bufs[inout] holds my accumulated data
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
        let v = c.sendrecv(
            &bufs[inout][send_off..send_off + size],
            peer,
            size,
            peer,
            tag,
        );
        let incoming = 1 - inout;
        bufs[incoming][recv_off..recv_off + size].copy_from_slice(&v);
        let (b0, b1) = bufs.split_at_mut(1);
        let (out, inc) = if inout == 0 {
            (&mut b0[0], &mut b1[0])
        } else {
            (&mut b1[0], &mut b0[0])
        };
        let r = recv_off..recv_off + size;
        if me > peer {
            // The peer's data comes first: out = received (op) mine.
            c.reduce_local(op, &inc[r.clone()], &mut out[r]);
        } else {
            // Mine comes first: incoming = mine (op) received.
            c.reduce_local(op, &out[r.clone()], &mut inc[r]);
            inout = incoming;
        }
        send_off = recv_off;
    }
    recv.copy_from_slice(&bufs[inout][recv_off..recv_off + size]);
}

/// Recursive doubling (any op, any size): in step `mask` exchange with
/// `rank ^ mask` everything except the blocks of my own (resp. the
/// partner's) aligned subtree; ranks whose partner does not exist get the
/// partner subtree's data from those that have it, down a halving tree.
/// The received data is combined after that, in rank order.
pub fn recursive_doubling<L: Link>(
    c: &mut Comm<L>,
    send: &[u8],
    recv: &mut [u8],
    counts: &[usize],
    op: &mut Op,
    tag: i32,
) {
    let (n, me) = (c.size(), c.me);
    let d = displs(counts);
    let total = d[n];
    let mut results = send.to_vec();
    let mut tmp_recv = vec![0u8; total];
    // The two byte ranges of a message that skips the blocks [a, a + mask).
    let ranges = |a: usize, mask: usize| {
        let lo = d[a.min(n)];
        let hi = d[(a + mask).min(n)];
        (0..lo, hi..total)
    };
    let pack = |buf: &[u8], (r0, r1): &(std::ops::Range<usize>, std::ops::Range<usize>)| {
        let mut v = buf[r0.clone()].to_vec();
        v.extend_from_slice(&buf[r1.clone()]);
        v
    };
    let unpack =
        |buf: &mut [u8], (r0, r1): &(std::ops::Range<usize>, std::ops::Range<usize>), v: &[u8]| {
            let k = r0.len().min(v.len());
            buf[r0.clone()].copy_from_slice(&v[..k]);
            let rest = &v[k..];
            buf[r1.start..r1.start + rest.len()].copy_from_slice(rest);
        };
    let mut mask = 1;
    let mut i = 0;
    while mask < n {
        let dst = me ^ mask;
        let dst_tree_root = (dst >> i) << i;
        let my_tree_root = (me >> i) << i;
        let sr = ranges(my_tree_root, mask);
        let rr = ranges(dst_tree_root, mask);
        let rlen = rr.0.len() + rr.1.len();
        let mut received = false;
        if dst < n {
            let v = c.sendrecv(&pack(&results, &sr), dst, rlen, dst, tag);
            unpack(&mut tmp_recv, &rr, &v);
            received = true;
        }
        for hand in missing_subtree(me, mask, n) {
            match hand {
                Hand::To(r) => c.send(&pack(&tmp_recv, &rr), r, tag),
                Hand::From(r) => {
                    let v = c.recv(rlen, r, tag);
                    unpack(&mut tmp_recv, &rr, &v);
                    received = true;
                }
            }
        }
        if received {
            let first = dst_tree_root < my_tree_root;
            for r in [rr.0.clone(), rr.1.clone()] {
                c.combine(op, &mut tmp_recv[r.clone()], &mut results[r], first);
            }
        }
        mask <<= 1;
        i += 1;
    }
    recv.copy_from_slice(&results[d[me]..d[me + 1]]);
}
