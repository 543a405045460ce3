//! How far back a rank's progress-interval history must reach: the earliest
//! target arrival time any message can still have at this rank, from a
//! consistent snapshot of the bounds every rank publishes (see `decide`).
//! Only exact mode publishes bounds; in fast mode nothing is forgotten.
use super::decide::{decode, min_latency, FINAL, NONE};
use super::link::Link;
use crate::model::Model;

/// The earliest arrival (ps) a message not yet read by rank `me` can have:
/// over every other rank `j`, its effective bound plus the least latency
/// from `j` to `me` (what it may still send, or what its unread records may
/// make it send, arrives no earlier), and `me`'s own unread arrivals.
/// `u64::MAX`: nothing can arrive any more.
pub fn earliest_arrival<L: Link>(link: &L, model: &Model, me: u32) -> u64 {
    loop {
        let g1 = link.generation();
        let mut h = u64::MAX;
        for j in 0..link.size() {
            let (unread, own) = link.peer_bound(j);
            if j == me {
                h = h.min(unread.unwrap_or(u64::MAX));
                continue;
            }
            if own == FINAL {
                continue;
            }
            let eff = decode(own).0.min(unread.unwrap_or(NONE));
            if eff < NONE {
                h = h.min(eff.saturating_add(min_latency(model, j, me)));
            }
        }
        if link.generation() == g1 {
            return h;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::p2p::testing::run;
    use crate::transport::{RecvBuf, SendBuf};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// A long ping-pong: each round trip is two waits per rank, yet each
    /// keeps a fraction of its history (how much lags behind depends on when
    /// the ranks forget the arrivals they have read, so only a loose bound
    /// is asserted), and the times are those of the equations.
    #[test]
    fn a_long_exchange_keeps_a_short_history() {
        const ROUNDS: u64 = 1000;
        let most = Arc::new(AtomicUsize::new(0));
        let seen = most.clone();
        let times = run(2, 1 << 20, move |c| {
            let me = c.rank();
            let peer = 1 - me;
            let data = [me as u8; 8];
            let mut buf = [0u8; 8];
            for _ in 0..ROUNDS {
                for turn in [me, peer] {
                    let r = if turn == 0 {
                        // SAFETY (test): `data` outlives the wait below.
                        let b = unsafe { SendBuf::from_raw(data.as_ptr(), 8) };
                        c.isend(b, peer, 0, 0, crate::p2p::SendMode::Standard)
                    } else {
                        // SAFETY (test): `buf` outlives the wait below.
                        let b = unsafe { RecvBuf::from_raw(buf.as_mut_ptr(), 8) };
                        c.irecv(b, Some(peer), None, 0)
                    };
                    c.wait_all(&[r]);
                    c.free(r);
                }
                seen.fetch_max(c.history_len(), Ordering::Relaxed);
            }
        });
        // Same node (L(8, 0) = M = 8 / Bmem): a send takes M, the message
        // arrives M later and its copy-in takes M, so a round trip is 6 M;
        // rank 1 ends after its last send, 2 M before rank 0's last receive.
        let m = crate::model::transfer_time(8, 6_380_000_000).ps();
        assert_eq!(times, vec![6 * m * ROUNDS, 6 * m * ROUNDS - 2 * m]);
        let kept = most.load(Ordering::Relaxed);
        assert!(
            kept < ROUNDS as usize,
            "kept {kept} of {} intervals",
            2 * ROUNDS
        );
    }
}
