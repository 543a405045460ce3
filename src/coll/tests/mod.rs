//! Tests of the collectives over the in-memory link (ranks as threads,
//! tianhe1a at `cpu.scale = 0`): correct data for every algorithm forced one
//! at a time ([`results`]), and predicted times equal to the message
//! schedule walked through the model equations ([`timing`]).
use super::select::Algorithm;
use super::Comm;
use crate::p2p::testing::{run, MemLink};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

mod results;
pub(crate) mod schedules;
mod timing;

/// A communicator for a test: `world` ranks in all, the members listed by
/// world rank in communicator order.
#[derive(Clone, Debug)]
pub(super) struct Shape {
    pub world: u32,
    pub ranks: Vec<u32>,
}

impl Shape {
    /// World ranks 0..n.
    pub fn world(n: usize) -> Shape {
        Shape {
            world: n as u32,
            ranks: (0..n as u32).collect(),
        }
    }
    /// The odd world ranks of a world of 2n, in reverse order.
    pub fn odd_reversed(n: usize) -> Shape {
        Shape {
            world: 2 * n as u32,
            ranks: (0..n as u32).rev().map(|i| 2 * i + 1).collect(),
        }
    }
    /// Given world ranks (in communicator order).
    pub fn of(world: u32, ranks: &[u32]) -> Shape {
        Shape {
            world,
            ranks: ranks.to_vec(),
        }
    }
}

/// How long a collective test may run before it counts as hung: generous,
/// as tests share a loaded host.
const HANG_GUARD: Duration = Duration::from_secs(300);

/// Runs `f` on every member of `shape`; returns each world rank's final
/// virtual time (ps) and the failures the members reported. A panicking
/// rank fails the test at once; [`HANG_GUARD`] only turns a hang (a
/// deadlocked schedule) into a failure, it is no limit on speed.
pub(super) fn on_comm<F>(shape: &Shape, f: F) -> (Vec<u64>, Vec<String>)
where
    F: Fn(&mut Comm<MemLink>, &mut Vec<String>) + Send + Sync + 'static,
{
    let fails = Arc::new(Mutex::new(Vec::new()));
    let ranks = Arc::new(shape.ranks.clone());
    let (fl, world) = (fails.clone(), shape.world);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let times = run(world, 1 << 16, move |core| {
            let w = core.rank();
            if let Some(me) = ranks.iter().position(|&r| r == w) {
                let mut c = Comm {
                    core,
                    ranks: &ranks,
                    me,
                    ctx: 3,
                };
                let mut mine = Vec::new();
                f(&mut c, &mut mine);
                fl.lock().unwrap().extend(mine);
            }
        });
        let _ = tx.send(times);
    });
    let times = match rx.recv_timeout(HANG_GUARD) {
        Ok(t) => t,
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!(
            "collective test on {shape:?}: a rank panicked; failures so far: {:?}",
            fails.lock().unwrap()
        ),
        Err(mpsc::RecvTimeoutError::Timeout) => panic!(
            "collective test on {shape:?} hung ({HANG_GUARD:?} without finishing); \
             failures so far: {:?}",
            fails.lock().unwrap()
        ),
    };
    let f = std::mem::take(&mut *fails.lock().unwrap());
    (times, f)
}

/// Runs `f` on every shape and fails the test with the first failures.
pub(super) fn check_all<F>(shapes: &[Shape], f: F)
where
    F: Fn(&mut Comm<MemLink>, &mut Vec<String>) + Send + Sync + Clone + 'static,
{
    let mut all = Vec::new();
    for s in shapes {
        let (_, fails) = on_comm(s, f.clone());
        all.extend(fails.into_iter().map(|e| format!("{s:?}: {e}")));
    }
    assert!(
        all.is_empty(),
        "{} failures, first: {:#?}",
        all.len(),
        &all[..all.len().min(10)]
    );
}

/// Every algorithm of an enumeration.
pub(super) fn all<A: Algorithm>() -> Vec<A> {
    A::NAMES.iter().map(|n| A::parse(n).unwrap()).collect()
}
