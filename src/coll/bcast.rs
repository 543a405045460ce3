//! MPI_Bcast (MPICH 3.2 bcast.c): binomial tree; binomial scatter followed by
//! a recursive-doubling allgather; binomial scatter followed by a ring
//! allgather. The scatter splits the bytes into `ceil(nbytes / p)` pieces in
//! relative-rank order (a broadcast applies no operator, so byte boundaries
//! are fine, as in MPICH).
use super::allgather::doubling;
use super::select::{self, BcastAlgo, Coll};
use super::{put, seg, tag, Comm};
use crate::p2p::Link;

/// Broadcast `buf` (significant at `root`) to every rank.
pub fn bcast<L: Link>(c: &mut Comm<L>, buf: &mut [u8], root: usize) {
    let algo = select::forced(c.core.model(), Coll::Bcast)
        .unwrap_or_else(|| select::bcast(c.size(), buf.len()));
    bcast_with(c, buf, root, algo);
}

pub fn bcast_with<L: Link>(c: &mut Comm<L>, buf: &mut [u8], root: usize, algo: BcastAlgo) {
    if c.size() == 1 || buf.is_empty() {
        return;
    }
    match algo {
        BcastAlgo::Binomial => binomial(c, buf, root),
        BcastAlgo::ScatterDoublingAllgather => scatter_doubling_allgather(c, buf, root),
        BcastAlgo::ScatterRingAllgather => scatter_ring_allgather(c, buf, root),
    }
}

fn check_len(got: usize, want: usize, me: usize) {
    if got != want {
        panic!("vaced: MPI_Bcast: rank {me} received {got} bytes, expected {want} (the ranks passed different counts)");
    }
}

/// MPIR_Bcast_binomial: receive from the rank whose relative rank has my
/// lowest set bit cleared, then send to relative ranks `rel + mask` for
/// decreasing masks.
pub fn binomial<L: Link>(c: &mut Comm<L>, buf: &mut [u8], root: usize) {
    let (n, me, nbytes) = (c.size(), c.me, buf.len());
    let rel = (me + n - root) % n;
    let mut mask = 1;
    while mask < n {
        if rel & mask != 0 {
            let src = (me + n - mask) % n;
            let v = c.recv(nbytes, src, tag::BCAST);
            check_len(v.len(), nbytes, me);
            buf.copy_from_slice(&v);
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if rel + mask < n {
            let dst = (me + mask) % n;
            c.send(buf, dst, tag::BCAST);
        }
        mask >>= 1;
    }
}

/// scatter_for_bcast: binomial scatter of `ceil(nbytes / p)`-byte pieces;
/// relative rank r ends with piece r at offset `r * scatter_size`.
/// Returns the piece size.
fn scatter<L: Link>(c: &mut Comm<L>, buf: &mut [u8], root: usize) -> usize {
    let (n, me, nbytes) = (c.size(), c.me, buf.len());
    let rel = (me + n - root) % n;
    let ss = nbytes.div_ceil(n);
    let mut curr = if me == root { nbytes } else { 0 };
    let mut mask = 1;
    while mask < n {
        if rel & mask != 0 {
            let src = (me + n - mask) % n;
            // Posted larger than what may come, as MPICH does.
            let want = nbytes.saturating_sub(rel * ss);
            if want == 0 {
                curr = 0;
            } else {
                let v = c.recv(want, src, tag::BCAST);
                put(buf, rel * ss, &v);
                curr = v.len();
            }
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if rel + mask < n {
            let send_size = curr.saturating_sub(ss * mask);
            if send_size > 0 {
                let dst = (me + mask) % n;
                let off = ss * (rel + mask);
                c.send(&buf[off..off + send_size], dst, tag::BCAST);
                curr -= send_size;
            }
        }
        mask >>= 1;
    }
    ss
}

/// Bytes of piece `r` (relative rank) of a `nbytes` buffer cut in `ss`-byte
/// pieces.
fn piece(nbytes: usize, ss: usize, r: usize) -> usize {
    ss.min(nbytes.saturating_sub(r * ss))
}

/// MPIR_Bcast_scatter_doubling_allgather: scatter, then a recursive-doubling
/// allgather of the pieces on relative ranks ([`doubling`], as in
/// Allgather). For a size that is not a power of two MPICH's code sends the
/// missing pieces down a halving tree inside each subtree (its
/// "experimental" branch, which MPICH's default rule never reaches); that
/// branch is kept so forcing this algorithm works for any size.
pub fn scatter_doubling_allgather<L: Link>(c: &mut Comm<L>, buf: &mut [u8], root: usize) {
    let (n, me, nbytes) = (c.size(), c.me, buf.len());
    let rel = (me + n - root) % n;
    let ss = scatter(c, buf, root);
    let curr = doubling(
        c,
        buf,
        nbytes,
        rel,
        |r| (r + root) % n,
        |r| r * ss,
        piece(nbytes, ss, rel),
        tag::BCAST,
    );
    check_len(curr, nbytes, me);
}

/// MPIR_Bcast_scatter_ring_allgather: scatter, then p-1 ring steps; in step
/// i each rank passes right the piece it got in step i-1.
pub fn scatter_ring_allgather<L: Link>(c: &mut Comm<L>, buf: &mut [u8], root: usize) {
    let (n, me, nbytes) = (c.size(), c.me, buf.len());
    let ss = scatter(c, buf, root);
    let mut curr = piece(nbytes, ss, (me + n - root) % n);
    let left = (n + me - 1) % n;
    let right = (me + 1) % n;
    let (mut j, mut jnext) = (me, left);
    for _ in 1..n {
        let rel_j = (j + n - root) % n;
        let rel_jnext = (jnext + n - root) % n;
        let left_count = piece(nbytes, ss, rel_jnext);
        let right_count = piece(nbytes, ss, rel_j);
        let v = c.sendrecv(
            seg(buf, rel_j * ss, right_count),
            right,
            left_count,
            left,
            tag::BCAST,
        );
        put(buf, rel_jnext * ss, &v);
        curr += v.len();
        j = jnext;
        jnext = (n + jnext - 1) % n;
    }
    check_len(curr, nbytes, me);
}
