//! Conservative decisions (DESIGN.md, paper section 3.3): the published lower
//! bounds and the test that no message arriving by a virtual time `T` can
//! still reach a rank.
//!
//! Every rank `j` publishes, in its slot, a lower bound on the send time of
//! anything it may still send (its *own* bound), and every inbox keeps the
//! earliest arrival among records its consumer has not yet handled
//! (`unread`). The effective bound of `j` is `min(own_j, unread_j)`:
//! * running (user code, or a call that is not a blocking wait):
//!   `own = min(tV at the last MPI entry, earliest early-queued arrival)`
//!   (handling a message from the past may send at its arrival time);
//! * blocked in a blocking wait (passive): `own = earliest early arrival`:
//!   such a rank sends only when a message triggers it (at or after the
//!   trigger's arrival) or once its wait ends (after the trigger that ended it);
//! * waiting to decide at `T` in a blocking wait: `min(held, T, f)`, `f` the
//!   earliest completion (or probed message) during that wait, since the wait
//!   may end there (a message handled while deciding can complete a request
//!   earlier than `T`); in a test at
//!   `T = tV`: `min(tV, held)`. When the bound is `T` itself (nothing held at or
//!   before `T`), it is marked as a *decision tie*;
//! * finalized: +inf.
//!
//! A message from `k` reaching `X` through other ranks arrives no earlier
//! than `lb_k + L(0, hop(k, X))` (hop levels nest, so latencies add up).
//! Rank `X` may decide at `T` once, in a consistent snapshot, every other
//! rank `j` has `lb_j + L(0, hop(j, X)) > T`, or is a decision tie at exactly
//! `T` with zero latency and a higher rank: simultaneous events are ordered
//! by (time, kind, rank), kind 0 = an early-queued message handled at its
//! arrival, kind 1 = a decision. What a decision at `T` by rank `X` lets the
//! program send next counts for decisions at `T` by higher ranks, not lower.
//! When every rank is idle (quiescence), the holder of the least event acts.
//!
//! Consistent snapshot: a lowering store (a noted arrival, a lower own bound)
//! is followed by a bump of the segment's generation, a raising store
//! (forgetting read arrivals, a higher own bound) preceded by one; a bound only
//! moves from one place to another by lowering the new place before raising
//! the old one. A scan that reads the generation unchanged before and after
//! cannot have seen a raise without the lowering that justified it.
//!
//! Wake-ups: a decider publishes `deciding_at` (and counts itself among the
//! deciders) before it scans; a rank whose effective bound rises, seeing
//! deciders, pokes those it no longer blocks (SeqCst on both sides: either
//! the scan sees the rise or the riser sees the decider). Deciders sleep on
//! their doorbell until a record or a poke arrives; nothing polls. A decider
//! also counts as idle for quiescence (the activity word): when every rank is
//! idle and nothing is in flight, the least event (time, kind, rank) over
//! early-queued messages and pending decisions is the next thing that happens
//! on the target; its holder is nudged and acts (a decision then is exact).
//!
//! Where bounds are published (`Core`): the own bound at every MPI entry
//! (tV), at the end of every waiting activity, and before the rank forgets
//! the arrivals it has read ([`Link::settle_unread`], called only when the
//! inbox is empty and no message is half-decoded), so the earliest held
//! arrival is always visible before the unread one disappears.
//!
//! Which operations decide, and at what `T` (exact mode, the default):
//! * MPI_Test / Testany / Testsome / Testall, MPI_Iprobe: at tV, unless the
//!   answer is already final (every request done by tV; a specific-source
//!   probe found). The test is then a zero-length wait at tV that has seen
//!   every message arriving by tV.
//! * MPI_Waitany / Waitsome: the blocking wait runs as usual; once its goal is
//!   met, at the earliest completion `d` (one settle suffices: whatever it
//!   brings completes at or after its arrival, and everything arriving by `d`
//!   is then in hand).
//! * Receives with MPI_ANY_SOURCE are *undecided* when posted: no message is
//!   bound to one, and no later receive may take a message it could take
//!   (matching stops at it: non-overtaking). In a blocking wait (or a test at
//!   `T`, for candidates arriving by `T`) the first undecided wildcard with a
//!   candidate is decided: among the first matching pending message of each
//!   source, the least (arrival, source), decided at that arrival; then
//!   pending messages are matched again in arrival order, as if the receives
//!   had been posted with them already there. A blocking MPI_Probe with
//!   MPI_ANY_SOURCE picks the same way, decided at the picked arrival.
//! * Collectives (src/coll) use only specific sources and Waitall: nothing
//!   to decide.
//! * MPI_Cancel of a send is decided by the receiver when it handles the
//!   cancel request (a timed message, so decisions at `T` see every request
//!   arriving by `T`); it adds no decision of its own (see `core`'s doc for
//!   the rule and its one host-dependent case, a receive racing the cancel).
//!
//! Fast mode (`mpirun --sync fast`, `VACED_SYNC=fast` for the ranks):
//! nothing is decided conservatively, outcomes follow host arrival (quicker,
//! approximate; the report says so). `VACED_HOST_JITTER=seed` adds random
//! host delays (transport: before sends and after wake-ups; ranks start in a
//! random order) to test that exact predictions do not depend on the host.
//! The report gives the number of operations decided conservatively (a test,
//! probe or Waitany that had to wait for a safe snapshot, a wildcard receive
//! bound) and the host time ranks spent waiting for safe snapshots.
use super::link::Link;
use crate::model::{Model, VTime};

/// The own bound of a finalized rank: nothing it could ever send (its
/// unread arrivals, if any, are ignored: nobody reads them).
pub const FINAL: u64 = u64::MAX;
/// An own bound of +inf (a passive rank holding nothing): only what it has
/// not yet read may still make it send.
pub const NONE: u64 = u64::MAX - 1;

/// Encode an own bound (`None`: +inf) and whether it is a decision tie.
pub fn encode(t: Option<VTime>, tie: bool) -> u64 {
    match t {
        None => NONE,
        Some(t) => (t.ps() << 1) | tie as u64,
    }
}

/// (bound in ps, decision tie); `NONE` is +inf.
pub fn decode(w: u64) -> (u64, bool) {
    if w >= NONE {
        (NONE, false)
    } else {
        (w >> 1, w & 1 == 1)
    }
}

/// Whether rank `j`, with own bound word `own` and unread arrivals `unread`
/// (ps), may still make something arrive at rank `x` by `t` (ps), `lat` being
/// L(0, hop(j, x)) in ps.
pub fn blocks(own: u64, unread: Option<u64>, j: u32, x: u32, t: u64, lat: u64) -> bool {
    if own == FINAL {
        return false;
    }
    let (lb, tie) = decode(own);
    let u = unread.unwrap_or(NONE);
    let eff = lb.min(u);
    if eff == NONE {
        return false;
    }
    let e = eff.saturating_add(lat);
    if e > t {
        return false;
    }
    // A decision tie at exactly t by a higher rank, nothing unread at t.
    !(e == t && lat == 0 && tie && lb == t && u > t && j > x)
}

/// The effective bound `min(own, unread)` in ps (u64::MAX: +inf, or
/// finalized).
pub fn effective(own: u64, unread: Option<u64>) -> u64 {
    if own == FINAL {
        return u64::MAX;
    }
    let (lb, _) = decode(own);
    let eff = lb.min(unread.unwrap_or(NONE));
    if eff == NONE {
        u64::MAX
    } else {
        eff
    }
}

/// Whether a rank with own bound word `own` and unread arrivals `unread`
/// may still start a flow (send anything) before `w` ps.
pub fn flow_blocks(own: u64, unread: Option<u64>, w: u64) -> bool {
    effective(own, unread) < w
}

/// Whether the contention window `[w - width, w)` is closed for a flow
/// that `me` receives: no other rank may still start a flow before `w`,
/// and `me` nothing before `w - width` (consistent snapshot). `Err(j)`:
/// rank `j` may. `me`'s own later flows leave its node, so they never share
/// a link with a flow into it; they could slow only flows of earlier
/// windows, and a flow another rank starts because of a message from `me`
/// starts a latency (at least `width`) after it: neither can change the
/// flow's share once `me` is past the window's start.
pub fn window_closed<L: Link>(link: &L, me: u32, w: u64, width: u64) -> Result<(), u32> {
    loop {
        let g1 = link.generation();
        for j in 0..link.size() {
            let (unread, own) = link.peer_bound(j);
            let need = if j == me { w.saturating_sub(width) } else { w };
            if flow_blocks(own, unread, need) {
                return Err(j);
            }
        }
        if link.generation() == g1 {
            return Ok(());
        }
    }
}

/// L(0, hop(j, x)) in ps: the least time a message from j takes to x.
pub fn min_latency(model: &Model, j: u32, x: u32) -> u64 {
    model.pair_latency(j, x).ps()
}

/// Scan the job's bounds for a decision by `me` at `t`. `Ok(())`: no message
/// arriving by `t` can still reach `me` (consistent snapshot). `Err(j)`: rank
/// `j` (possibly `me`, with unread records arriving by `t`) may still.
pub fn scan<L: Link>(link: &L, model: &Model, me: u32, t: VTime) -> Result<(), u32> {
    let t = t.ps();
    loop {
        let g1 = link.generation();
        for j in 0..link.size() {
            let (unread, own) = link.peer_bound(j);
            if j == me {
                if unread.is_some_and(|u| u <= t) {
                    return Err(me);
                }
                continue;
            }
            if blocks(own, unread, j, me, t, min_latency(model, j, me)) {
                return Err(j);
            }
        }
        if link.generation() == g1 {
            return Ok(());
        }
    }
}

/// After our effective bound rose from `old` to `new` (own word, unread),
/// poke the deciders we blocked and no longer block.
pub fn poke_unblocked<L: Link>(
    link: &L,
    model: &Model,
    me: u32,
    old: (u64, Option<u64>),
    new: (u64, Option<u64>),
) {
    if link.deciders() == 0 {
        return;
    }
    for d in 0..link.size() {
        if d == me {
            continue;
        }
        if let Some(w) = link.resolving_at(d) {
            let w = w.ps();
            if flow_blocks(old.0, old.1, w) && !flow_blocks(new.0, new.1, w) {
                link.poke(d);
                continue;
            }
        }
        let Some(t) = link.deciding_at(d) else {
            continue;
        };
        let lat = min_latency(model, me, d);
        let t = t.ps();
        if blocks(old.0, old.1, me, d, t, lat) && !blocks(new.0, new.1, me, d, t, lat) {
            link.poke(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_and_ties() {
        let w = encode(Some(VTime::from_ps(10)), false);
        assert_eq!(decode(w), (10, false));
        assert_eq!(decode(encode(Some(VTime::from_ps(10)), true)), (10, true));
        assert_eq!(decode(encode(None, false)), (NONE, false));
        // Strictly later, or +inf: no block.
        assert!(!blocks(
            encode(Some(VTime::from_ps(11)), false),
            None,
            1,
            0,
            10,
            0
        ));
        assert!(!blocks(NONE, None, 1, 0, 10, 0));
        assert!(!blocks(FINAL, Some(3), 1, 0, 10, 0));
        // Equal: blocks, unless a higher rank's decision tie at t.
        assert!(blocks(w, None, 1, 0, 10, 0));
        let tie = encode(Some(VTime::from_ps(10)), true);
        assert!(!blocks(tie, None, 1, 0, 10, 0));
        assert!(blocks(tie, None, 0, 1, 10, 0));
        // Unread arrivals at t, or latency making it exact: blocks.
        assert!(blocks(tie, Some(10), 1, 0, 10, 0));
        assert!(blocks(
            encode(Some(VTime::from_ps(4)), true),
            None,
            1,
            0,
            10,
            6
        ));
        // Unread arrivals bound a passive rank.
        assert!(blocks(NONE, Some(9), 1, 0, 10, 0));
        assert!(!blocks(NONE, Some(9), 1, 0, 10, 2));
    }
}
