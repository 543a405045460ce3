//! Unit tests of World's MPI semantics over the scripted fake endpoint.
use super::*;
use crate::mpi::fake::Fake;
use crate::mpi::status::{status_bytes, status_cancelled};
use std::sync::Mutex;

const W: MPI_Comm = sys::MPI_COMM_WORLD;
const NULL: MPI_Request = sys::MPI_REQUEST_NULL;

fn world(rank: u32, size: u32) -> World<Fake> {
    World::new(Fake::new(rank, size), sys::MPI_THREAD_SERIALIZED)
}

fn isend(
    w: &mut World<Fake>,
    count: c_int,
    dest: c_int,
    tag: c_int,
    mode: SendMode,
) -> MpiResult<MPI_Request> {
    let a = w.send_args(W, count, sys::MPI_INT, dest, tag, false)?;
    let p = SendPayload {
        buf: a.bytes,
        keep: None,
    };
    let r = w.start_send(&a, p, mode)?;
    Ok(w.reqs.insert(r))
}

fn irecv_on(
    w: &mut World<Fake>,
    comm: MPI_Comm,
    count: c_int,
    src: c_int,
    tag: c_int,
) -> MPI_Request {
    let a = w
        .recv_args(comm, count, sys::MPI_INT, src, tag, false)
        .unwrap();
    let t = RecvTarget {
        buf: a.bytes,
        staging: None,
    };
    let r = w.start_recv(&a, t);
    w.reqs.insert(r)
}

fn irecv(w: &mut World<Fake>, count: c_int, src: c_int, tag: c_int) -> MPI_Request {
    irecv_on(w, W, count, src, tag)
}

fn msg(source: i32, tag: i32, bytes: u64) -> Status {
    Status {
        source,
        tag,
        bytes,
        ..Status::default()
    }
}

fn src_tag_bytes(st: &MPI_Status) -> (i32, i32, u64) {
    (st.MPI_SOURCE, st.MPI_TAG, status_bytes(st))
}

#[test]
fn argument_checks_in_order() {
    let w = world(0, 4);
    let e = |r: MpiResult<SendArgs>| r.unwrap_err();
    // the communicator is checked before everything else
    assert_eq!(
        e(w.send_args(sys::MPI_COMM_NULL, -1, 0, 99, -5, true)).class,
        sys::MPI_ERR_COMM
    );
    assert_eq!(
        e(w.send_args(W, -1, 0, 99, -5, true)).class,
        sys::MPI_ERR_COUNT
    );
    assert_eq!(
        e(w.send_args(W, -1, 0, 99, -5, true)).msg,
        "invalid count -1 (negative)"
    );
    assert_eq!(
        e(w.send_args(W, 1, 0, 99, -5, true)).class,
        sys::MPI_ERR_TYPE
    );
    assert_eq!(
        e(w.send_args(W, 1, sys::MPI_INT, 99, -5, true)).class,
        sys::MPI_ERR_RANK
    );
    assert_eq!(
        e(w.send_args(W, 1, sys::MPI_INT, 3, -5, true)).class,
        sys::MPI_ERR_TAG
    );
    assert_eq!(
        e(w.send_args(W, 1, sys::MPI_INT, 3, sys::MPI_ANY_TAG, true)).class,
        sys::MPI_ERR_TAG
    );
    let b = e(w.send_args(W, 2, sys::MPI_INT, 3, 5, true));
    assert_eq!(
        (b.class, b.msg.as_str()),
        (sys::MPI_ERR_BUFFER, "null buffer for 2 elements of MPI_INT")
    );
    // a null buffer is fine for zero elements
    let a = w.send_args(W, 0, sys::MPI_INT, 3, 5, true).unwrap();
    assert_eq!((a.bytes, a.dest, a.ctx), (0, Some(3), 0));
    let a = w
        .send_args(W, 3, sys::MPI_DOUBLE_INT, sys::MPI_PROC_NULL, 0, false)
        .unwrap();
    assert_eq!((a.bytes, a.dest, a.count), (36, None, 3));
    // receives accept the wildcards and still reject bad values
    let r = w
        .recv_args(
            W,
            1,
            sys::MPI_INT,
            sys::MPI_ANY_SOURCE,
            sys::MPI_ANY_TAG,
            false,
        )
        .unwrap();
    assert_eq!((r.src, r.tag, r.bytes), (Source::Any, None, 4));
    assert_eq!(
        w.recv_args(W, 1, sys::MPI_INT, 4, 0, false)
            .unwrap_err()
            .class,
        sys::MPI_ERR_RANK
    );
    assert_eq!(
        w.recv_args(W, 1, sys::MPI_INT, 0, -3, false)
            .unwrap_err()
            .class,
        sys::MPI_ERR_TAG
    );
    assert_eq!(
        w.recv_args(W, -2, sys::MPI_INT, 0, 0, false)
            .unwrap_err()
            .class,
        sys::MPI_ERR_COUNT
    );
}

#[test]
fn proc_null_completes_without_p2p() {
    let mut w = world(0, 4);
    let mut s = isend(&mut w, 4, sys::MPI_PROC_NULL, 1, SendMode::Standard).unwrap();
    let mut r = irecv(&mut w, 4, sys::MPI_PROC_NULL, 1);
    assert!(w.ep.calls.is_empty());
    let c = w.wait(&mut r).unwrap();
    assert_eq!(
        src_tag_bytes(&c.status),
        (sys::MPI_PROC_NULL, sys::MPI_ANY_TAG, 0)
    );
    assert_eq!(r, NULL);
    assert!(w.test(&mut s).unwrap().is_some());
    assert_eq!(s, NULL);
    assert!(w.ep.calls.is_empty());
    assert!(w.reqs.is_empty());
}

#[test]
fn wait_translates_source_and_frees() {
    let mut w = world(2, 4);
    w.ep.script.push_back(msg(3, 9, 8));
    let mut r = irecv(&mut w, 4, sys::MPI_ANY_SOURCE, sys::MPI_ANY_TAG);
    let c = w.wait(&mut r).unwrap();
    assert!(c.error.is_none());
    assert_eq!(src_tag_bytes(&c.status), (3, 9, 8));
    assert_eq!(c.status.MPI_ERROR, sys::MPI_SUCCESS);
    assert_eq!(r, NULL);
    assert_eq!(
        w.ep.calls,
        [
            "irecv cap 16 src None tag None ctx 0",
            "wait_all [100]",
            "free 100"
        ]
    );
    // on MPI_COMM_SELF, world rank 2 is rank 0 and the context is 1
    w.ep.script.push_back(msg(2, 1, 4));
    let mut r = irecv_on(&mut w, sys::MPI_COMM_SELF, 1, 0, 1);
    assert_eq!(w.ep.calls[3], "irecv cap 4 src Some(2) tag Some(1) ctx 1");
    let c = w.wait(&mut r).unwrap();
    assert_eq!(src_tag_bytes(&c.status), (0, 1, 4));
    // waiting on MPI_REQUEST_NULL gives the empty status
    let c = w.wait(&mut r).unwrap();
    assert_eq!(
        src_tag_bytes(&c.status),
        (sys::MPI_ANY_SOURCE, sys::MPI_ANY_TAG, 0)
    );
}

#[test]
fn truncation_is_reported_in_status_and_error() {
    let mut w = world(0, 2);
    w.ep.script.push_back(Status {
        truncated: true,
        ..msg(1, 4, 8)
    });
    let mut r = irecv(&mut w, 2, 1, 4);
    let c = w.wait(&mut r).unwrap();
    assert_eq!(c.status.MPI_ERROR, sys::MPI_ERR_TRUNCATE);
    let e = c.error.unwrap();
    assert_eq!(e.class, sys::MPI_ERR_TRUNCATE);
    assert_eq!(e.comm, Some(W));
    assert_eq!(
        e.msg,
        "message from rank 1 with tag 4 truncated: it is longer than the receive buffer of 8 bytes"
    );
    assert_eq!(r, NULL);
}

#[test]
fn waitall_skips_inactive_entries() {
    let mut w = world(0, 4);
    let a = irecv(&mut w, 1, 1, 0);
    let b = isend(&mut w, 2, sys::MPI_PROC_NULL, 0, SendMode::Standard).unwrap();
    let c = isend(&mut w, 3, 2, 7, SendMode::Standard).unwrap();
    let mut hs = [NULL, a, b, c];
    let cs = w.wait_all(&mut hs).unwrap();
    assert_eq!(hs, [NULL; 4]);
    assert_eq!(w.ep.calls[2], "wait_all [100, 101]");
    assert_eq!(
        src_tag_bytes(&cs[0].status),
        (sys::MPI_ANY_SOURCE, sys::MPI_ANY_TAG, 0)
    );
    assert_eq!(src_tag_bytes(&cs[1].status), (1, 0, 4));
    assert_eq!(
        src_tag_bytes(&cs[2].status),
        (sys::MPI_PROC_NULL, sys::MPI_ANY_TAG, 0)
    );
    assert_eq!(status_bytes(&cs[3].status), 12);
    assert!(cs.iter().all(|c| c.error.is_none()));
    assert!(w.reqs.is_empty());
    assert!(w.ep.reqs.values().all(|r| r.freed));
}

#[test]
fn invalid_handle_in_array_names_its_index() {
    let mut w = world(0, 2);
    let a = irecv(&mut w, 1, 1, 0);
    let mut hs = [a, 0x2c0000ff];
    let e = w.wait_all(&mut hs).unwrap_err();
    assert_eq!(e.class, sys::MPI_ERR_REQUEST);
    assert_eq!(
        e.msg,
        "array_of_requests[1]: invalid request handle 0x2c0000ff"
    );
    // nothing was waited for or freed
    assert_eq!(hs[0], a);
    assert_eq!(w.ep.calls.len(), 1);
}

#[test]
fn waitany_and_waitsome() {
    let mut w = world(0, 4);
    let mut none = [NULL, NULL];
    assert!(w.wait_any(&mut none).unwrap().is_none());
    assert!(w.wait_some(&mut none).unwrap().is_none());
    assert!(w.wait_any(&mut []).unwrap().is_none());
    assert!(w.ep.calls.is_empty());

    let a = irecv(&mut w, 1, 1, 0); // p2p 100
    let b = irecv(&mut w, 1, 2, 0); // p2p 101
    let c = irecv(&mut w, 1, 3, 0); // p2p 102
    w.ep.complete(102);
    w.ep.complete(101);
    let mut hs = [a, b, c];
    // Waitany takes the earliest completion
    let (i, comp) = w.wait_any(&mut hs).unwrap().unwrap();
    assert_eq!(i, 2);
    assert_eq!(comp.status.MPI_SOURCE, 3);
    assert_eq!(hs, [a, b, NULL]);
    // Waitsome takes all that are complete
    let done = w.wait_some(&mut hs).unwrap().unwrap();
    assert_eq!(done.iter().map(|d| d.0).collect::<Vec<_>>(), [1]);
    assert_eq!(hs, [a, NULL, NULL]);
    // nothing complete: p2p decides (the fake completes the first)
    let done = w.wait_some(&mut hs).unwrap().unwrap();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].0, 0);
    assert_eq!(hs, [NULL; 3]);

    // a null-process request is complete at once
    let d = irecv(&mut w, 1, 1, 0);
    let e = irecv(&mut w, 1, sys::MPI_PROC_NULL, 0);
    let mut hs = [d, e];
    let (i, comp) = w.wait_any(&mut hs).unwrap().unwrap();
    assert_eq!((i, comp.status.MPI_SOURCE), (1, sys::MPI_PROC_NULL));
    assert_eq!(hs, [d, NULL]);
}

#[test]
fn testall_completes_all_or_none() {
    let mut w = world(0, 4);
    let a = irecv(&mut w, 1, 1, 0); // 100
    let b = irecv(&mut w, 1, 2, 0); // 101
    let mut hs = [a, NULL, b];
    w.ep.complete(100);
    assert!(w.test_all(&mut hs).unwrap().is_none());
    assert_eq!(hs, [a, NULL, b]);
    assert!(!w.ep.reqs[&100].freed);
    w.ep.complete(101);
    let cs = w.test_all(&mut hs).unwrap().unwrap();
    assert_eq!(hs, [NULL; 3]);
    assert_eq!(
        cs.iter().map(|c| c.status.MPI_SOURCE).collect::<Vec<_>>(),
        [1, sys::MPI_ANY_SOURCE, 2]
    );
    // all inactive: flag true
    assert_eq!(w.test_all(&mut hs).unwrap().unwrap().len(), 3);
}

#[test]
fn testany_and_testsome() {
    let mut w = world(0, 4);
    let mut none = [NULL];
    let (i, c) = w.test_any(&mut none).unwrap().unwrap();
    assert_eq!(i, None);
    assert_eq!(
        src_tag_bytes(&c.status),
        (sys::MPI_ANY_SOURCE, sys::MPI_ANY_TAG, 0)
    );
    assert!(w.test_some(&mut none).unwrap().is_none());

    let a = irecv(&mut w, 1, 1, 0); // 100
    let b = irecv(&mut w, 1, 2, 0); // 101
    let mut hs = [a, b];
    assert!(w.test_any(&mut hs).unwrap().is_none());
    assert_eq!(w.test_some(&mut hs).unwrap().unwrap().len(), 0);
    assert_eq!(hs, [a, b]);
    w.ep.complete(101);
    let (i, c) = w.test_any(&mut hs).unwrap().unwrap();
    assert_eq!((i, c.status.MPI_SOURCE), (Some(1), 2));
    w.ep.complete(100);
    let done = w.test_some(&mut hs).unwrap().unwrap();
    assert_eq!(done.iter().map(|d| d.0).collect::<Vec<_>>(), [0]);
    assert_eq!(hs, [NULL, NULL]);
    // single Test: not complete, then complete
    let mut r = irecv(&mut w, 1, 3, 0); // 102
    assert!(w.test(&mut r).unwrap().is_none());
    w.ep.complete(102);
    assert_eq!(w.test(&mut r).unwrap().unwrap().status.MPI_SOURCE, 3);
    assert_eq!(r, NULL);
}

#[test]
fn bsend_needs_attached_space() {
    let mut w = world(0, 2);
    let e = isend(&mut w, 4, 1, 0, SendMode::Buffered).unwrap_err();
    assert_eq!(e.class, sys::MPI_ERR_BUFFER);
    assert!(w.ep.calls.is_empty());
    w.bsend
        .attach(0x1000, 16 + sys::MPI_BSEND_OVERHEAD)
        .unwrap();
    // exactly fits, and the space is free again once p2p has copied the data
    for _ in 0..2 {
        let mut r = isend(&mut w, 4, 1, 0, SendMode::Buffered).unwrap();
        w.wait(&mut r).unwrap();
    }
    assert_eq!(
        isend(&mut w, 5, 1, 0, SendMode::Buffered)
            .unwrap_err()
            .class,
        sys::MPI_ERR_BUFFER
    );
    // to MPI_PROC_NULL no space is needed
    w.bsend.detach();
    let mut r = isend(&mut w, 5, sys::MPI_PROC_NULL, 0, SendMode::Buffered).unwrap();
    w.wait(&mut r).unwrap();
    assert_eq!(
        w.ep.calls
            .iter()
            .filter(|c| c.ends_with("Buffered"))
            .count(),
        2
    );
}

#[test]
fn request_free_detaches_and_keeps_send_data() {
    let mut w = world(0, 2);
    let a = w.send_args(W, 2, sys::MPI_SHORT_INT, 1, 0, false).unwrap();
    let r = w
        .start_send(
            &a,
            SendPayload {
                buf: 12,
                keep: Some(vec![7; 12]),
            },
            SendMode::Standard,
        )
        .unwrap();
    let mut h = w.reqs.insert(r);
    w.request_free(&mut h).unwrap();
    assert_eq!(h, NULL);
    assert!(w.ep.reqs[&100].detached);
    assert_eq!(w.retired, vec![vec![7u8; 12]]);
    assert_eq!(
        w.request_free(&mut h).unwrap_err().class,
        sys::MPI_ERR_REQUEST
    );
    w.release_retired();
    assert!(w.retired.is_empty());
}

#[test]
fn staged_receive_unpacks_received_prefix() {
    let mut w = world(0, 2);
    let got = Arc::new(Mutex::new(Vec::new()));
    let sink = got.clone();
    let staging = Staging {
        tmp: vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
        deliver: Box::new(move |b: &[u8]| sink.lock().unwrap().extend_from_slice(b)),
    };
    let a = w.recv_args(W, 2, sys::MPI_SHORT_INT, 1, 0, false).unwrap();
    w.ep.script.push_back(msg(1, 0, 6));
    let r = w.start_recv(
        &a,
        RecvTarget {
            buf: a.bytes,
            staging: Some(staging),
        },
    );
    let mut h = w.reqs.insert(r);
    // an active staged receive cannot be freed
    let e = w.request_free(&mut h).unwrap_err();
    assert_eq!(e.class, sys::MPI_ERR_REQUEST);
    let c = w.wait(&mut h).unwrap();
    assert_eq!(status_bytes(&c.status), 6);
    assert_eq!(*got.lock().unwrap(), vec![1, 2, 3, 4, 5, 6]);
}

#[test]
fn cancel_sends_and_receives() {
    let mut w = world(0, 2);
    // a send not yet complete: p2p asks the receiver, the status tells
    let mut s = isend(&mut w, 1, 1, 0, SendMode::Standard).unwrap();
    w.cancel(s).unwrap();
    let id = match w.reqs.get(s).unwrap().state {
        ReqState::Active(id) => id,
        _ => panic!("an active send"),
    };
    assert_eq!(w.ep.calls.last().unwrap(), &format!("cancel {id}"));
    let c = w.wait(&mut s).unwrap();
    assert!(status_cancelled(&c.status));
    assert_eq!(status_bytes(&c.status), 0);
    // one that p2p completes normally (the receiver matched it)
    let mut s = isend(&mut w, 2, 1, 0, SendMode::Synchronous).unwrap();
    let id = match w.reqs.get(s).unwrap().state {
        ReqState::Active(id) => id,
        _ => panic!("an active send"),
    };
    w.ep.complete(id);
    w.cancel(s).unwrap();
    let c = w.wait(&mut s).unwrap();
    assert!(!status_cancelled(&c.status));
    assert_eq!(status_bytes(&c.status), 8);
    let mut r = irecv(&mut w, 1, 1, 0);
    w.cancel(r).unwrap();
    let c = w.wait(&mut r).unwrap();
    assert!(status_cancelled(&c.status));
    assert_eq!(status_bytes(&c.status), 0);
    assert_eq!(w.cancel(NULL).unwrap_err().class, sys::MPI_ERR_REQUEST);
    // null-process requests are complete: nothing to cancel
    let mut n = irecv(&mut w, 1, sys::MPI_PROC_NULL, 0);
    w.cancel(n).unwrap();
    assert!(!status_cancelled(&w.wait(&mut n).unwrap().status));
    let mut n = isend(&mut w, 1, sys::MPI_PROC_NULL, 0, SendMode::Standard).unwrap();
    w.cancel(n).unwrap();
    assert!(!status_cancelled(&w.wait(&mut n).unwrap().status));
}

#[test]
fn sendrecv_waits_both_and_returns_the_receive_status() {
    let mut w = world(1, 3);
    let sa = w.send_args(W, 2, sys::MPI_INT, 2, 5, false).unwrap();
    let ra = w.recv_args(W, 4, sys::MPI_INT, 0, 6, false).unwrap();
    w.ep.script.push_back(msg(0, 6, 12));
    let c = w
        .sendrecv(
            &sa,
            SendPayload { buf: 8, keep: None },
            &ra,
            RecvTarget {
                buf: 16,
                staging: None,
            },
        )
        .unwrap();
    assert_eq!(src_tag_bytes(&c.status), (0, 6, 12));
    assert_eq!(w.ep.calls[2], "wait_all [100, 101]");
    assert!(w.ep.reqs.values().all(|r| r.freed));
}

#[test]
fn probe_translates_and_handles_proc_null() {
    let mut w = world(0, 4);
    let st = w.probe(W, sys::MPI_PROC_NULL, 3).unwrap();
    assert_eq!(
        src_tag_bytes(&st),
        (sys::MPI_PROC_NULL, sys::MPI_ANY_TAG, 0)
    );
    w.ep.script.push_back(msg(2, 8, 40));
    let st = w.probe(W, sys::MPI_ANY_SOURCE, sys::MPI_ANY_TAG).unwrap();
    assert_eq!(src_tag_bytes(&st), (2, 8, 40));
    assert_eq!(w.ep.calls, ["probe None None 0"]);
    assert!(w.iprobe(W, 1, 0).unwrap().is_none());
    assert_eq!(w.iprobe(W, 9, 0).unwrap_err().class, sys::MPI_ERR_RANK);
    assert_eq!(w.probe(W, 0, -4).unwrap_err().class, sys::MPI_ERR_TAG);
}

#[test]
fn error_handlers() {
    let mut w = world(0, 2);
    assert_eq!(w.errhandler_for(W), sys::MPI_ERRORS_ARE_FATAL);
    w.set_errhandler(W, sys::MPI_ERRORS_RETURN).unwrap();
    assert_eq!(w.errhandler_for(W), sys::MPI_ERRORS_RETURN);
    // an invalid communicator's errors go to MPI_COMM_WORLD's handler
    assert_eq!(w.errhandler_for(sys::MPI_COMM_NULL), sys::MPI_ERRORS_RETURN);
    assert_eq!(
        w.errhandler_for(sys::MPI_COMM_SELF),
        sys::MPI_ERRORS_ARE_FATAL
    );
    let e = w.set_errhandler(W, 77).unwrap_err();
    assert_eq!(e.class, sys::MPI_ERR_ARG);
    assert_eq!(
        w.set_errhandler(sys::MPI_COMM_NULL, sys::MPI_ERRORS_RETURN)
            .unwrap_err()
            .class,
        sys::MPI_ERR_COMM
    );
}
