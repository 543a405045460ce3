//! Unit tests of persistent requests, MPI_Isendrecv pairs, matched probes
//! and generalized requests over the scripted fake endpoint.
use crate::mpi::fake::Fake;
use crate::mpi::grequest::Hooks;
use crate::mpi::state::{RecvTarget, SendPayload, World};
use crate::mpi::status::status_bytes;
use crate::p2p::{SendMode, Status};
use crate::sys::{self, MPI_Request, MPI_Status};
use std::os::raw::c_int;
use std::sync::Arc;

const W: sys::MPI_Comm = sys::MPI_COMM_WORLD;

fn world() -> World<Fake> {
    World::new(Fake::new(0, 2), sys::MPI_THREAD_SERIALIZED)
}

fn persistent_pair(w: &mut World<Fake>) -> [MPI_Request; 2] {
    let ra = w.recv_args(W, 4, sys::MPI_INT, 1, 5, false).unwrap();
    let n = ra.bytes;
    let r = w.recv_init(
        ra,
        Box::new(move || RecvTarget {
            buf: n,
            staging: None,
        }),
    );
    let sa = w.send_args(W, 4, sys::MPI_INT, 1, 5, false).unwrap();
    let n = sa.bytes;
    let s = w.send_init(
        sa,
        SendMode::Standard,
        Box::new(move || SendPayload { buf: n, keep: None }),
    );
    [r, s]
}

#[test]
fn persistent_requests_restart_and_stay() {
    let mut w = world();
    let mut hs = persistent_pair(&mut w);
    let keep = hs;
    // inactive: complete at once, empty status, handle kept
    let c = w.wait(&mut hs[0]).unwrap();
    assert_eq!(c.status.MPI_SOURCE, sys::MPI_ANY_SOURCE);
    assert_eq!(hs, keep);
    for round in 0..3 {
        w.start_all(&hs).unwrap();
        // starting an active one is an error
        assert_eq!(w.start(hs[0]).unwrap_err().class, sys::MPI_ERR_REQUEST);
        let cs = w.wait_all(&mut hs).unwrap();
        assert_eq!(hs, keep, "round {round}");
        assert_eq!(cs[0].status.MPI_SOURCE, 1);
        assert_eq!(status_bytes(&cs[0].status), 16);
    }
    // p2p saw one isend and one irecv per Start
    let starts = w.ep.calls.iter().filter(|c| c.starts_with("irecv")).count();
    assert_eq!(starts, 3);
    // a request that is not persistent cannot be started
    let mut x = hs[0];
    w.request_free(&mut x).unwrap();
    assert_eq!(x, sys::MPI_REQUEST_NULL);
    assert_eq!(w.start(keep[0]).unwrap_err().class, sys::MPI_ERR_REQUEST);
    // freeing an active persistent request: it completes in the background
    w.start(hs[1]).unwrap();
    let mut y = hs[1];
    w.request_free(&mut y).unwrap();
    assert!(w.reqs.is_empty());
}

#[test]
fn startall_checks_everything_first() {
    let mut w = world();
    let hs = persistent_pair(&mut w);
    let e = w.start_all(&[hs[0], hs[0]]).unwrap_err();
    assert_eq!(e.class, sys::MPI_ERR_REQUEST);
    assert!(e.msg.contains("appears twice"), "{}", e.msg);
    // nothing was started
    assert!(!w.ep.calls.iter().any(|c| c.starts_with("irecv")));
}

#[test]
fn isendrecv_completes_when_both_halves_have() {
    let mut w = world();
    let sa = w.send_args(W, 2, sys::MPI_INT, 1, 3, false).unwrap();
    let ra = w.recv_args(W, 2, sys::MPI_INT, 1, 3, false).unwrap();
    let p = SendPayload {
        buf: sa.bytes,
        keep: None,
    };
    let t = RecvTarget {
        buf: ra.bytes,
        staging: None,
    };
    let req = w.isendrecv(&sa, p, &ra, t).unwrap();
    let mut h = w.reqs.insert(req);
    // neither half complete: Test says no
    assert!(w.test(&mut h).unwrap().is_none());
    let c = w.wait(&mut h).unwrap();
    assert_eq!(h, sys::MPI_REQUEST_NULL);
    assert_eq!((c.status.MPI_SOURCE, c.status.MPI_TAG), (1, 3));
    assert_eq!(status_bytes(&c.status), 8);
}

#[test]
fn matched_probe_then_receive() {
    let mut w = world();
    w.ep.script.push_back(Status {
        source: 1,
        tag: 9,
        bytes: 12,
        ..Status::default()
    });
    let (st, m) = w.mprobe(W, 1, 9).unwrap();
    assert_eq!((st.MPI_SOURCE, st.MPI_TAG, status_bytes(&st)), (1, 9, 12));
    let a = w.mrecv_args(m, 3, sys::MPI_INT, false).unwrap();
    let t = RecvTarget {
        buf: a.bytes,
        staging: None,
    };
    let req = w.start_mrecv(m, &a, t);
    let c = w.wait_req(req);
    assert_eq!(status_bytes(&c.status), 12);
    // the handle is consumed
    assert_eq!(
        w.mrecv_args(m, 3, sys::MPI_INT, false).unwrap_err().class,
        sys::MPI_ERR_REQUEST
    );
    assert_eq!(
        w.mrecv_args(sys::MPI_MESSAGE_NULL, 3, sys::MPI_INT, false)
            .unwrap_err()
            .msg,
        "MPI_MESSAGE_NULL is not a matched message"
    );
    let (st, m) = w.mprobe(W, sys::MPI_PROC_NULL, 0).unwrap();
    assert_eq!(m, sys::MPI_MESSAGE_NO_PROC);
    assert_eq!(st.MPI_SOURCE, sys::MPI_PROC_NULL);
}

struct Counting;
impl Hooks for Counting {
    fn query(&self, st: &mut MPI_Status) -> c_int {
        st.MPI_TAG = 44;
        0
    }
    fn free(&self) -> c_int {
        0
    }
    fn cancel(&self, _: bool) -> c_int {
        0
    }
}

#[test]
fn generalized_requests_complete_by_the_program_only() {
    let mut w = world();
    let mut g = w.grequest_start(Arc::new(Counting)).unwrap();
    assert!(w.test(&mut g).unwrap().is_none());
    let e = w.wait(&mut g).unwrap_err();
    assert_eq!(e.class, sys::MPI_ERR_REQUEST);
    assert!(e.msg.contains("not complete"), "{}", e.msg);
    // a Waitany with nothing else that can complete fails the same way
    assert!(w.wait_any(&mut [g]).is_err());
    w.grequest_complete(g).unwrap();
    // the ABI layer runs the query callback before the Wait
    let todo = w.greqs_to_query(&[g]);
    assert_eq!(todo.len(), 1);
    let mut st = crate::mpi::status::empty_status();
    let rc = todo[0].1.query(&mut st);
    w.greqs.get_mut(todo[0].0).queried = Some((st, rc));
    let c = w.wait(&mut g).unwrap();
    assert_eq!(c.status.MPI_TAG, 44);
    assert_eq!(g, sys::MPI_REQUEST_NULL);
    assert_eq!(w.greqs.due_free.len(), 1);
}
