//! Test support: ranks as threads over an in-memory link ([`MemLink`]), so
//! the engine and the algorithms above it can be tested without processes.
pub use super::memlink::MemLink;
use super::memlink::Shared;
use super::{Core, Link, SendMode};
use crate::model::{transfer_time, Model, VTime};
use crate::transport::{RecvBuf, SendBuf};
use std::sync::Arc;

/// tianhe1a with `cpu.scale = 0`.
pub fn model() -> Model {
    let mut m = Model::load("tianhe1a").unwrap();
    m.cpu_scale = 0.0;
    m
}

/// Run `n` ranks as threads; each returns its final virtual time in ps.
pub fn run<F>(n: u32, max_record: usize, f: F) -> Vec<u64>
where
    F: Fn(&mut Core<MemLink>) + Send + Sync + 'static,
{
    run_on(model(), 0, n, max_record, f)
}

/// [`run`] on target `model`, with `flow_slots` registry entries per rank.
pub fn run_on<F>(model: Model, flow_slots: u32, n: u32, max_record: usize, f: F) -> Vec<u64>
where
    F: Fn(&mut Core<MemLink>) + Send + Sync + 'static,
{
    run_logged(model, flow_slots, n, max_record, None, f)
}

/// [`run_on`], every rank writing its call log into `log_dir` if given
/// (see `p2p::record`), as MPI_Init to MPI_Finalize would.
pub fn run_logged<F>(
    model: Model,
    flow_slots: u32,
    n: u32,
    max_record: usize,
    log_dir: Option<&std::path::Path>,
    f: F,
) -> Vec<u64>
where
    F: Fn(&mut Core<MemLink>) + Send + Sync + 'static,
{
    let shared = Shared::new(n, flow_slots);
    let f = Arc::new(f);
    let hs: Vec<_> = (0..n)
        .map(|rank| {
            let link = MemLink::new(rank, shared.clone(), max_record);
            let f = f.clone();
            let model = model.clone();
            let log = log_dir.map(|d| super::record::path(d, rank));
            std::thread::spawn(move || {
                let mut c = Core::new(link, model);
                if let Some(p) = log {
                    c.start_recording(super::record::Recorder::create(&p).unwrap());
                }
                c.enter();
                f(&mut c);
                finish(&mut c)
            })
        })
        .collect();
    hs.into_iter().map(|h| h.join().unwrap()).collect()
}

/// A rank's end, as MPI_Finalize: its virtual time, then idle for good.
pub fn finish<L: Link>(c: &mut Core<L>) -> u64 {
    let t = c.vtime().ps();
    c.drain_background();
    c.retire();
    t
}

// ---- programs any link runs (one host here, several in `crate::hosts`) ----

pub const US: u64 = 1_000_000;

/// M(b) = b / Bmem on tianhe1a.
pub fn m(b: u64) -> u64 {
    transfer_time(b, 6_380_000_000).ps()
}

pub fn sbuf(v: &[u8]) -> SendBuf {
    // SAFETY (test): the buffer outlives the wait on its request.
    unsafe { SendBuf::from_raw(v.as_ptr(), v.len()) }
}
pub fn rbuf(v: &mut [u8]) -> RecvBuf {
    // SAFETY (test): as above.
    unsafe { RecvBuf::from_raw(v.as_mut_ptr(), v.len()) }
}

/// Compute `us` of virtual time after a delay of `ms` on the host (no
/// virtual time at scale 0), then send 8 bytes to `dest`.
pub fn late_send<L: Link>(c: &mut Core<L>, dest: u32, tag: i32, us: u64, ms: u64) {
    std::thread::sleep(std::time::Duration::from_millis(ms));
    c.compute(VTime::from_ps(us * US));
    let data = [c.rank() as u8; 8];
    let r = c.isend(sbuf(&data), dest, tag, 0, SendMode::Standard);
    c.wait_all(&[r]);
    c.free(r);
}

/// Rank 1 sends at 10 us but 60 ms late on the host; rank 2 at 20 us at
/// once. MPI_ANY_SOURCE takes rank 1's (arrival 10 us + 2 M(8)) at
/// 10 us + 3 M(8), then rank 2's (arrival 20 us + 2 M(8)) at 20 us + 3 M(8);
/// a specific receive posted behind the undecided wildcard gets nothing
/// the wildcard could take first (non-overtaking). Rank 0 ends at
/// 20 us + 3 M(8).
pub fn wildcard_first_arrival<L: Link>(c: &mut Core<L>) {
    match c.rank() {
        0 => {
            let mut a = [0u8; 8];
            let mut b = [0u8; 8];
            let w = c.irecv(rbuf(&mut a), None, None, 0);
            let s = c.irecv(rbuf(&mut b), Some(2), None, 0);
            c.wait_all(&[w]);
            assert_eq!(c.status(w).source, 1);
            assert_eq!(c.vtime().ps(), 10 * US + 3 * m(8));
            c.wait_all(&[s]);
            assert_eq!(c.status(s).source, 2);
            assert_eq!((a[0], b[0]), (1, 2));
            c.free(w);
            c.free(s);
        }
        1 => late_send(c, 0, 0, 10, 60),
        _ => late_send(c, 0, 0, 20, 0),
    }
}

/// Rank 0: receives from 1 (sent at 10 us, 60 ms late on the host) and
/// 2 (sent at 20 us). Waitany returns rank 1's first, at 10 us + 3 M(8).
/// Then a receive from 3 (sent at 40 us, late on the host) tested at
/// 35 us: not there yet; at 50 us: there (handled at 50 us, the first test
/// after its arrival, complete at 50 us + M(8) > 50 us: still false); at
/// 55 us: true. Rank 0 ends at 55 us.
pub fn waitany_and_test<L: Link>(c: &mut Core<L>) {
    match c.rank() {
        0 => {
            let mut a = [0u8; 8];
            let mut b = [0u8; 8];
            let mut d = [0u8; 8];
            let r1 = c.irecv(rbuf(&mut a), Some(1), None, 0);
            let r2 = c.irecv(rbuf(&mut b), Some(2), None, 0);
            assert_eq!(c.wait_any(&[r2, r1]), vec![1]);
            assert_eq!(c.vtime().ps(), 10 * US + 3 * m(8));
            c.wait_all(&[r2]);
            let r3 = c.irecv(rbuf(&mut d), Some(3), None, 0);
            let mut flags = Vec::new();
            for at in [35, 50, 55] {
                let now = c.vtime().ps();
                c.compute(VTime::from_ps(at * US - now));
                flags.push(!c.test(&[r3]).is_empty());
            }
            assert_eq!(flags, vec![false, false, true]);
            c.free(r1);
            c.free(r2);
            c.free(r3);
        }
        1 => late_send(c, 0, 0, 10, 60),
        2 => late_send(c, 0, 0, 20, 0),
        _ => late_send(c, 0, 0, 40, 80),
    }
}

/// Bytes each rank sends in [`symmetric_rendezvous`].
pub const SYMMETRIC_BYTES: usize = 300_000;

/// Both ranks: Irecv, Isend (rendezvous), Wait(send), Wait(recv), rank 1
/// starting `DELAY_MS` late on the host. Each REQ reaches a rank that is
/// waiting on its own send, so it is early; the job goes quiescent and the
/// earliest event (both REQs arrive at 2M(H); tie -> rank 0) is handled
/// inside the wait, as on the target. Both ranks end at
/// 4M(H) + 3M(SYMMETRIC_BYTES).
pub fn symmetric_rendezvous<L: Link, const DELAY_MS: u64>(c: &mut Core<L>) {
    let me = c.rank();
    let peer = 1 - me;
    let data = vec![me as u8 + 1; SYMMETRIC_BYTES];
    let mut buf = vec![0u8; SYMMETRIC_BYTES];
    if me == 1 {
        std::thread::sleep(std::time::Duration::from_millis(DELAY_MS));
    }
    let rr = c.irecv(rbuf(&mut buf), Some(peer), None, 0);
    let rs = c.isend(sbuf(&data), peer, 0, 0, SendMode::Standard);
    c.wait_all(&[rs]);
    c.free(rs);
    c.wait_all(&[rr]);
    c.free(rr);
    assert!(buf.iter().all(|&b| b == peer as u8 + 1));
}
