//! Test support: ranks as threads over an in-memory link, so the engine and
//! the algorithms above it can be tested without processes.
use super::link::Link;
use super::Core;
use crate::model::{Model, VTime};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

struct Inbox {
    q: Mutex<VecDeque<Vec<u8>>>,
    cv: Condvar,
    early_min: AtomicU64,
    waiting_on: Mutex<String>,
}

/// (idle ranks << 32) | records in flight, as in the shared segment.
struct Shared {
    boxes: Vec<Inbox>,
    activity: AtomicU64,
}

pub struct MemLink {
    rank: u32,
    shared: Arc<Shared>,
    max_record: usize,
}

impl Link for MemLink {
    fn rank(&self) -> u32 {
        self.rank
    }
    fn size(&self) -> u32 {
        self.shared.boxes.len() as u32
    }
    fn max_record(&self) -> usize {
        self.max_record
    }
    fn send(&mut self, dest: u32, parts: &[&[u8]]) {
        let b = &self.shared.boxes[dest as usize];
        self.shared.activity.fetch_add(1, Ordering::SeqCst);
        b.q.lock().unwrap().push_back(parts.concat());
        b.cv.notify_all();
    }
    fn try_recv(&mut self, out: &mut Vec<u8>) -> bool {
        match self.shared.boxes[self.rank as usize]
            .q
            .lock()
            .unwrap()
            .pop_front()
        {
            Some(r) => {
                *out = r;
                self.shared.activity.fetch_sub(1, Ordering::SeqCst);
                true
            }
            None => false,
        }
    }
    fn wait_incoming(&mut self) {
        let b = &self.shared.boxes[self.rank as usize];
        let mut q = b.q.lock().unwrap();
        while q.is_empty() {
            q = b.cv.wait(q).unwrap();
        }
    }
    fn cpu_now_ns(&self) -> u64 {
        0
    }
    fn pull_pid(&self) -> Option<u32> {
        Some(std::process::id())
    }
    fn pull(&mut self, pid: u32, addr: u64, dst: &mut [u8]) -> Result<(), String> {
        crate::transport::cma::pull(pid, addr, dst).map_err(|e| e.to_string())
    }
    fn publish_vtime(&self, _t: VTime) {}
    fn yield_core(&mut self) {}
    fn publish_blocked(&self, early_min: Option<VTime>, waiting_on: &str) {
        let b = &self.shared.boxes[self.rank as usize];
        b.early_min
            .store(early_min.map_or(0, |t| t.ps() + 1), Ordering::SeqCst);
        *b.waiting_on.lock().unwrap() = waiting_on.to_string();
    }
    fn idle_begin(&mut self) -> bool {
        let v = self.shared.activity.fetch_add(1 << 32, Ordering::SeqCst) + (1 << 32);
        (v >> 32) as usize == self.shared.boxes.len() && v as u32 == 0
    }
    fn idle_end(&mut self) {
        self.shared.activity.fetch_sub(1 << 32, Ordering::SeqCst);
    }
    fn earliest_early(&self) -> Option<(VTime, u32)> {
        (0..self.shared.boxes.len())
            .filter_map(|r| {
                let t = self.shared.boxes[r].early_min.load(Ordering::SeqCst);
                t.checked_sub(1).map(|t| (VTime::from_ps(t), r as u32))
            })
            .min()
    }
    fn waiting_report(&self) -> Vec<Option<String>> {
        self.shared
            .boxes
            .iter()
            .map(|b| Some(b.waiting_on.lock().unwrap().clone()))
            .collect()
    }
    fn deadlock(&mut self, report: &str) -> ! {
        panic!("{report}")
    }
}

impl Drop for MemLink {
    /// A rank thread that is done counts as idle for good (as a finalized rank
    /// does); if that leaves the job quiescent, wake the holder of the next
    /// event.
    fn drop(&mut self) {
        self.shared.boxes[self.rank as usize]
            .early_min
            .store(0, Ordering::SeqCst);
        if self.idle_begin() {
            if let Some((_, r)) = self.earliest_early() {
                let b = &self.shared.boxes[r as usize];
                self.shared.activity.fetch_add(1, Ordering::SeqCst);
                // An empty record is not a message: encode a nudge.
                let m = crate::engine::Msg {
                    kind: crate::engine::Kind::Nudge,
                    src: self.rank,
                    ctx: 0,
                    tag: 0,
                    size: 0,
                    ta: VTime::ZERO,
                    sreq: 0,
                    rreq: 0,
                    payload: crate::engine::Payload::None,
                };
                let mut rec = Vec::new();
                crate::engine::wire::encode(&m, crate::engine::Body::None, 1 << 16, |p| {
                    rec = p.concat()
                });
                b.q.lock().unwrap().push_back(rec);
                b.cv.notify_all();
            }
        }
    }
}

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
    let shared = Arc::new(Shared {
        boxes: (0..n)
            .map(|_| Inbox {
                q: Mutex::new(VecDeque::new()),
                cv: Condvar::new(),
                early_min: AtomicU64::new(0),
                waiting_on: Mutex::new(String::new()),
            })
            .collect(),
        activity: AtomicU64::new(0),
    });
    let f = Arc::new(f);
    let hs: Vec<_> = (0..n)
        .map(|rank| {
            let link = MemLink {
                rank,
                shared: shared.clone(),
                max_record,
            };
            let f = f.clone();
            std::thread::spawn(move || {
                let mut c = Core::new(link, model());
                c.enter();
                f(&mut c);
                c.vtime().ps()
            })
        })
        .collect();
    hs.into_iter().map(|h| h.join().unwrap()).collect()
}
