//! Test support: ranks as threads over an in-memory link, so the engine and
//! the algorithms above it can be tested without processes.
use super::link::Link;
use super::Core;
use crate::model::{Model, VTime};
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};

struct Inbox {
    q: Mutex<VecDeque<Vec<u8>>>,
    cv: Condvar,
}

pub struct MemLink {
    rank: u32,
    boxes: Arc<Vec<Inbox>>,
    max_record: usize,
}

impl Link for MemLink {
    fn rank(&self) -> u32 {
        self.rank
    }
    fn size(&self) -> u32 {
        self.boxes.len() as u32
    }
    fn max_record(&self) -> usize {
        self.max_record
    }
    fn send(&mut self, dest: u32, parts: &[&[u8]]) {
        let b = &self.boxes[dest as usize];
        b.q.lock().unwrap().push_back(parts.concat());
        b.cv.notify_all();
    }
    fn try_recv(&mut self, out: &mut Vec<u8>) -> bool {
        match self.boxes[self.rank as usize].q.lock().unwrap().pop_front() {
            Some(r) => {
                *out = r;
                true
            }
            None => false,
        }
    }
    fn wait_incoming(&mut self) {
        let b = &self.boxes[self.rank as usize];
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
    let boxes: Arc<Vec<Inbox>> = Arc::new(
        (0..n)
            .map(|_| Inbox {
                q: Mutex::new(VecDeque::new()),
                cv: Condvar::new(),
            })
            .collect(),
    );
    let f = Arc::new(f);
    let hs: Vec<_> = (0..n)
        .map(|rank| {
            let link = MemLink {
                rank,
                boxes: boxes.clone(),
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
