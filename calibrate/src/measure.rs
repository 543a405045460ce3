//! Timing loops over the machine's real MPI (through `mpi-sys`): memory copy
//! bandwidth, ping-pong one-way times, and LogP-style per-message send and
//! receive overheads, each between two ranks while every other rank idles in
//! a barrier.
//!
//! Every MPI call goes through the raw C API; `MPI_COMM_WORLD` keeps its
//! default error handler (`MPI_ERRORS_ARE_FATAL`), so a failing call aborts
//! the job, and `check` only guards against a library that returns anyway.
//! Times come from `std::time::Instant` (the monotonic clock, nanoseconds).
use mpi_sys as ffi;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_void};
use std::ptr;
use std::time::{Duration, Instant};

/// Tags of the messages of each test (one per purpose, so a stray message
/// can never match the wrong receive).
const TAG_PING: c_int = 1;
const TAG_READY: c_int = 2;
const TAG_BURST: c_int = 3;
const TAG_SENT: c_int = 4;
const TAG_DONE: c_int = 5;
const TAG_MORE: c_int = 6;

/// Panics with the call's name when an MPI call returns an error code.
fn check(rc: c_int, call: &str) {
    assert!(rc == 0, "{call} returned error code {rc}");
}

fn world() -> ffi::MPI_Comm {
    // SAFETY: RSMPI_COMM_WORLD is an immutable handle exported by mpi-sys's
    // C shim; reading it has no side effect.
    unsafe { ffi::RSMPI_COMM_WORLD }
}

fn byte() -> ffi::MPI_Datatype {
    // SAFETY: as `world`, an immutable predefined handle.
    unsafe { ffi::RSMPI_UINT8_T }
}

/// MPI, initialised for the lifetime of this value (finalised on drop).
pub struct Mpi {
    pub rank: i32,
    pub size: i32,
}

impl Mpi {
    pub fn init() -> Mpi {
        // SAFETY: the first MPI call of the process, made once; MPI-2 and
        // later allow null argc/argv.
        check(
            unsafe { ffi::MPI_Init(ptr::null_mut(), ptr::null_mut()) },
            "MPI_Init",
        );
        let (mut rank, mut size) = (0, 0);
        // SAFETY: MPI is initialised; the out-pointers are valid c_ints.
        check(
            unsafe { ffi::MPI_Comm_rank(world(), &mut rank) },
            "MPI_Comm_rank",
        );
        // SAFETY: as above.
        check(
            unsafe { ffi::MPI_Comm_size(world(), &mut size) },
            "MPI_Comm_size",
        );
        Mpi { rank, size }
    }

    /// The MPI library's version string (`MPI_Get_library_version`).
    pub fn library_version(&self) -> String {
        // SAFETY: reading an immutable constant of the C shim.
        let max = unsafe { ffi::RSMPI_MAX_LIBRARY_VERSION_STRING } as usize;
        let mut buf = vec![0 as c_char; max + 1];
        let mut len = 0;
        // SAFETY: `buf` holds MPI_MAX_LIBRARY_VERSION_STRING characters as the
        // standard requires, plus one so the result is always terminated.
        check(
            unsafe { ffi::MPI_Get_library_version(buf.as_mut_ptr(), &mut len) },
            "MPI_Get_library_version",
        );
        c_string(&buf)
    }

    /// This process's host name as MPI reports it.
    pub fn processor_name(&self) -> String {
        // SAFETY: reading an immutable constant of the C shim.
        let max = unsafe { ffi::RSMPI_MAX_PROCESSOR_NAME } as usize;
        let mut buf = vec![0 as c_char; max + 1];
        let mut len = 0;
        // SAFETY: `buf` holds MPI_MAX_PROCESSOR_NAME characters plus one.
        check(
            unsafe { ffi::MPI_Get_processor_name(buf.as_mut_ptr(), &mut len) },
            "MPI_Get_processor_name",
        );
        c_string(&buf)
    }

    /// For every rank, the lowest world rank on its node (the nodes as
    /// `MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)` sees them). Collective.
    pub fn node_leaders(&self) -> Vec<i32> {
        let mut node = ffi::MPI_Comm(0);
        // SAFETY: collective over COMM_WORLD, called by every rank; the key
        // (world rank) orders the node communicator, so its rank 0 is the
        // lowest world rank on the node; `node` receives the new handle.
        check(
            unsafe {
                ffi::MPI_Comm_split_type(
                    world(),
                    ffi::RSMPI_COMM_TYPE_SHARED,
                    self.rank,
                    ffi::RSMPI_INFO_NULL,
                    &mut node,
                )
            },
            "MPI_Comm_split_type",
        );
        let mut leader = self.rank;
        // SAFETY: collective over `node`; one int is broadcast from its rank 0
        // into `leader`, a valid c_int.
        check(
            unsafe {
                ffi::MPI_Bcast(
                    (&mut leader as *mut i32).cast::<c_void>(),
                    1,
                    ffi::RSMPI_INT32_T,
                    0,
                    node,
                )
            },
            "MPI_Bcast",
        );
        let mut all = vec![0i32; self.size as usize];
        // SAFETY: collective over COMM_WORLD; `all` has room for one int per
        // rank.
        check(
            unsafe {
                ffi::MPI_Allgather(
                    (&leader as *const i32).cast::<c_void>(),
                    1,
                    ffi::RSMPI_INT32_T,
                    all.as_mut_ptr().cast::<c_void>(),
                    1,
                    ffi::RSMPI_INT32_T,
                    world(),
                )
            },
            "MPI_Allgather",
        );
        // SAFETY: `node` is a communicator this rank created and no longer uses.
        check(unsafe { ffi::MPI_Comm_free(&mut node) }, "MPI_Comm_free");
        all
    }

    /// A barrier over COMM_WORLD that sleeps while it waits (`MPI_Ibarrier`
    /// tested every 200 us), so that idle ranks do not take the cores of the
    /// two that measure.
    pub fn barrier(&self) {
        // SAFETY: RSMPI_REQUEST_NULL is an immutable predefined handle.
        let mut req = unsafe { ffi::RSMPI_REQUEST_NULL };
        // SAFETY: collective over COMM_WORLD, called by every rank; `req`
        // receives the request.
        check(
            unsafe { ffi::MPI_Ibarrier(world(), &mut req) },
            "MPI_Ibarrier",
        );
        loop {
            let mut done = 0;
            // SAFETY: `req` is the active request above (or, once complete,
            // MPI_REQUEST_NULL, never tested again); STATUS_IGNORE is allowed.
            check(
                unsafe { ffi::MPI_Test(&mut req, &mut done, ffi::RSMPI_STATUS_IGNORE) },
                "MPI_Test",
            );
            if done != 0 {
                return;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }
}

impl Drop for Mpi {
    fn drop(&mut self) {
        // SAFETY: the last MPI call of the process; every request is complete.
        check(unsafe { ffi::MPI_Finalize() }, "MPI_Finalize");
    }
}

fn c_string(buf: &[c_char]) -> String {
    // SAFETY: `buf` ends with a 0 that MPI never overwrites (it was sized one
    // longer than MPI may write).
    unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .trim()
        .to_string()
}

fn send(buf: &[u8], peer: i32, tag: c_int) {
    // SAFETY: `buf` is valid for reading buf.len() bytes for the whole
    // (blocking) call.
    check(
        unsafe {
            ffi::MPI_Send(
                buf.as_ptr().cast::<c_void>(),
                buf.len() as c_int,
                byte(),
                peer,
                tag,
                world(),
            )
        },
        "MPI_Send",
    );
}

fn recv(buf: &mut [u8], peer: i32, tag: c_int) {
    // SAFETY: `buf` is valid for writing buf.len() bytes for the whole
    // (blocking) call.
    check(
        unsafe {
            ffi::MPI_Recv(
                buf.as_mut_ptr().cast::<c_void>(),
                buf.len() as c_int,
                byte(),
                peer,
                tag,
                world(),
                ffi::RSMPI_STATUS_IGNORE,
            )
        },
        "MPI_Recv",
    );
}

/// Who measures with whom, from every rank's node leader (the lowest world
/// rank on its node, `Mpi::node_leaders`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The lowest other rank on rank 0's node (the on-node pair's peer).
    pub on: Option<i32>,
    /// The lowest rank on another node (the off-node pair's peer).
    pub off: Option<i32>,
    pub nodes: usize,
    /// Ranks on rank 0's node.
    pub node0_ranks: u32,
    /// Rank 0's node holds ranks 0, 1, ... node0_ranks - 1, as vaced's
    /// topology places ranks (not so with a round-robin placement).
    pub blocked: bool,
}

impl Layout {
    pub fn new(leaders: &[i32]) -> Layout {
        let l0 = leaders[0];
        let rank = |r: usize| r as i32;
        let mut nodes = leaders.to_vec();
        nodes.sort_unstable();
        nodes.dedup();
        let node0_ranks = leaders.iter().filter(|&&l| l == l0).count();
        Layout {
            on: (1..leaders.len()).find(|&r| leaders[r] == l0).map(rank),
            off: (1..leaders.len()).find(|&r| leaders[r] != l0).map(rank),
            nodes: nodes.len(),
            node0_ranks: node0_ranks as u32,
            blocked: leaders[..node0_ranks].iter().all(|&l| l == l0),
        }
    }
}

/// How many repetitions and rounds the tests make.
#[derive(Clone, Copy, Debug)]
pub struct Effort {
    /// Sweeps over all sizes (the best time of each size over all of them).
    pub rounds: usize,
    /// Ping-pong repetitions per size per round: `bytes_per_size / size`,
    /// clamped to `min_reps..=max_reps`.
    pub bytes_per_size: u64,
    pub min_reps: usize,
    pub max_reps: usize,
    /// Seconds a size's repetitions may take in one round: on a slow link
    /// the repetitions stop there (after at least 3 timed ones), so that a
    /// 100 Mbit/s link is calibrated in minutes, not hours.
    pub seconds_per_size: f64,
    /// Messages per burst of the overhead tests (few enough to fit in the
    /// transport's queues, so that the sender is not held back by the
    /// receiver), and bursts.
    pub burst: usize,
    pub bursts: usize,
    /// Copies of the memcpy test per buffer size.
    pub copies: usize,
}

impl Effort {
    pub const FULL: Effort = Effort {
        rounds: 5,
        bytes_per_size: 64 << 20,
        min_reps: 20,
        max_reps: 2000,
        seconds_per_size: 0.5,
        burst: 32,
        bursts: 200,
        copies: 10,
    };
    pub const QUICK: Effort = Effort {
        rounds: 2,
        bytes_per_size: 16 << 20,
        min_reps: 5,
        max_reps: 200,
        seconds_per_size: 0.1,
        burst: 32,
        bursts: 40,
        copies: 3,
    };

    fn reps(&self, bytes: u64) -> usize {
        ((self.bytes_per_size / bytes.max(1)) as usize).clamp(self.min_reps, self.max_reps)
    }
}

/// The message sizes of the ping-pong: 0, then powers of two and 1.5 times
/// each (1, 2, 3, 4, 6, 8, 12, ...) up to `max` bytes.
pub fn sizes(max: u64) -> Vec<u64> {
    let mut v = vec![0];
    let mut p = 1u64;
    while p <= max {
        v.push(p);
        if p >= 2 && p + p / 2 <= max {
            v.push(p + p / 2);
        }
        p *= 2;
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Bytes per second of the best `memcpy` of `bytes` (one rank alone).
pub fn memcpy_bandwidth(bytes: usize, e: &Effort) -> f64 {
    let src = vec![1u8; bytes];
    let mut dst = vec![0u8; bytes];
    dst.copy_from_slice(&src); // touches both buffers once
    let mut best = f64::INFINITY;
    for _ in 0..e.copies {
        let t = Instant::now();
        dst.copy_from_slice(std::hint::black_box(&src));
        std::hint::black_box(&mut dst);
        best = best.min(t.elapsed().as_secs_f64());
    }
    bytes as f64 / best
}

/// Ping-pong between this rank and `peer`: the side with `lead` times each
/// round trip and returns (size, best one-way time = min round trip / 2);
/// the other side answers and returns nothing. After each repetition, out
/// of the timing, the lead says whether another one follows (a byte,
/// `TAG_MORE`): it stops after `reps(size)` of them, or once the size has
/// taken `seconds_per_size` in this round (at least 3 timed ones).
pub fn pingpong(peer: i32, lead: bool, sizes: &[u64], e: &Effort) -> Vec<(u64, f64)> {
    let max = sizes.iter().copied().max().unwrap_or(0) as usize;
    let mut buf = vec![7u8; max];
    let mut best = vec![f64::INFINITY; sizes.len()];
    for _ in 0..e.rounds {
        for (i, &b) in sizes.iter().enumerate() {
            let b = b as usize;
            let warm_up = 3;
            let reps = warm_up + e.reps(b as u64);
            let began = Instant::now();
            let mut r = 0;
            loop {
                let more = if lead {
                    let t = Instant::now();
                    send(&buf[..b], peer, TAG_PING);
                    recv(&mut buf[..b], peer, TAG_PING);
                    let rtt = t.elapsed().as_secs_f64();
                    if r >= warm_up {
                        best[i] = best[i].min(rtt / 2.0);
                    }
                    r += 1;
                    let out_of_time =
                        r >= warm_up + 3 && began.elapsed().as_secs_f64() > e.seconds_per_size;
                    let more = r < reps && !out_of_time;
                    send(&[u8::from(more)], peer, TAG_MORE);
                    more
                } else {
                    recv(&mut buf[..b], peer, TAG_PING);
                    send(&buf[..b], peer, TAG_PING);
                    let mut go = [0u8];
                    recv(&mut go, peer, TAG_MORE);
                    go[0] == 1
                };
                if !more {
                    break;
                }
            }
        }
    }
    if lead {
        sizes.iter().copied().zip(best).collect()
    } else {
        Vec::new()
    }
}

/// o_send: seconds per `MPI_Send` of 1 byte in a back-to-back burst, timed
/// at the sender (`sender`) while the receiver (the other side) has posted
/// a receive for every message of the burst. Returns the best burst's time
/// per message at the sender, 0 at the receiver.
pub fn send_overhead(peer: i32, sender: bool, e: &Effort) -> f64 {
    let mut best = f64::INFINITY;
    let one = [1u8];
    let mut slots = vec![0u8; e.burst];
    for _ in 0..e.bursts {
        if sender {
            recv(&mut [], peer, TAG_READY);
            let t = Instant::now();
            for _ in 0..e.burst {
                send(&one, peer, TAG_BURST);
            }
            best = best.min(t.elapsed().as_secs_f64() / e.burst as f64);
            recv(&mut [], peer, TAG_DONE);
        } else {
            // SAFETY: an immutable predefined handle.
            let mut reqs = vec![unsafe { ffi::RSMPI_REQUEST_NULL }; e.burst];
            for (slot, req) in slots.iter_mut().zip(reqs.iter_mut()) {
                // SAFETY: `slot` (one byte of `slots`) stays valid and
                // untouched until MPI_Waitall below completes the request.
                check(
                    unsafe {
                        ffi::MPI_Irecv(
                            (slot as *mut u8).cast::<c_void>(),
                            1,
                            byte(),
                            peer,
                            TAG_BURST,
                            world(),
                            req,
                        )
                    },
                    "MPI_Irecv",
                );
            }
            send(&[], peer, TAG_READY);
            // SAFETY: `reqs` holds e.burst requests started above;
            // STATUSES_IGNORE is allowed.
            check(
                unsafe {
                    ffi::MPI_Waitall(
                        reqs.len() as c_int,
                        reqs.as_mut_ptr(),
                        ffi::RSMPI_STATUSES_IGNORE,
                    )
                },
                "MPI_Waitall",
            );
            send(&[], peer, TAG_DONE);
        }
    }
    if sender {
        best
    } else {
        0.0
    }
}

/// o_recv: seconds per `MPI_Recv` of a 1-byte message that has already
/// arrived: the sender (the other side) sends a burst and then a "sent"
/// message; the receiver (`receiver`) receives "sent", sleeps 2 ms, then
/// times the receives of the burst. Returns the best burst's time per
/// message at the receiver, 0 at the sender.
pub fn recv_overhead(peer: i32, receiver: bool, e: &Effort) -> f64 {
    let mut best = f64::INFINITY;
    let mut one = [1u8];
    for _ in 0..e.bursts {
        if receiver {
            recv(&mut [], peer, TAG_SENT);
            std::thread::sleep(Duration::from_millis(2));
            let t = Instant::now();
            for _ in 0..e.burst {
                recv(&mut one, peer, TAG_BURST);
            }
            best = best.min(t.elapsed().as_secs_f64() / e.burst as f64);
            send(&[], peer, TAG_DONE);
        } else {
            for _ in 0..e.burst {
                send(&one, peer, TAG_BURST);
            }
            send(&[], peer, TAG_SENT);
            recv(&mut [], peer, TAG_DONE);
        }
    }
    if receiver {
        best
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_from_the_node_leaders() {
        // One node of 2.
        let l = Layout::new(&[0, 0]);
        assert_eq!((l.on, l.off, l.nodes, l.node0_ranks), (Some(1), None, 1, 2));
        // Two nodes of 2, ranks by node.
        let l = Layout::new(&[0, 0, 2, 2]);
        assert_eq!(
            (l.on, l.off, l.nodes, l.node0_ranks),
            (Some(1), Some(2), 2, 2)
        );
        // Two nodes, ranks round-robin.
        let l = Layout::new(&[0, 1, 0, 1]);
        assert_eq!(
            (l.on, l.off, l.nodes, l.node0_ranks),
            (Some(2), Some(1), 2, 2)
        );
        // One rank per node.
        let l = Layout::new(&[0, 1]);
        assert_eq!((l.on, l.off, l.nodes, l.node0_ranks), (None, Some(1), 2, 1));
    }

    #[test]
    fn message_sizes() {
        let s = sizes(64);
        assert_eq!(s, [0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]);
        let s = sizes(4 << 20);
        assert_eq!(s.len(), 45);
        assert_eq!(s[s.len() - 2..], [3 << 20, 4 << 20]);
    }
}
