//! What the point-to-point engine needs from the host below it. The real
//! implementation is the shared-memory transport ([`crate::p2p::PortLink`]);
//! tests plug in an in-process one.
use crate::engine::wire::{self, Body, Msg};
use crate::model::VTime;
use crate::transport::FlowRecord;

/// What [`Link::take_msg`] found.
pub enum Taken {
    /// A whole message, as it was sent.
    Msg(Msg),
    /// Nothing to read now.
    Empty,
    /// Records: read them with [`Link::try_recv_split`] and decode them.
    Records,
}

/// What a rank that found the job quiescent learns ([`Link::next_event`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// The job's next event: (time, kind, rank).
    Event(VTime, u8, u32),
    /// None at all: nothing can happen any more (a deadlock).
    Nothing,
    /// A rank stopped being idle since (woken by a poke): the job is not
    /// quiescent; whoever goes idle last looks again.
    Stirred,
}

impl Next {
    /// From the earliest event read while the job stayed quiescent (None:
    /// it did not stay so).
    pub fn of(read: Option<Option<(VTime, u8, u32)>>) -> Next {
        match read {
            Some(Some((t, kind, r))) => Next::Event(t, kind, r),
            Some(None) => Next::Nothing,
            None => Next::Stirred,
        }
    }
}

/// [`Link::send_msg`] as records: `m` encoded, each record [`Link::send`].
#[inline]
pub fn send_records<L: Link + ?Sized>(
    link: &mut L,
    dest: u32,
    m: &Msg,
    body: Body,
    ta: Option<VTime>,
) -> bool {
    let max = link.max_record();
    let mut delivered = true;
    wire::encode(m, body, max, |p| delivered &= link.send(dest, p, ta));
    delivered
}

pub trait Link {
    fn rank(&self) -> u32;
    fn size(&self) -> u32;
    /// Largest record `send` accepts.
    fn max_record(&self) -> usize;
    /// Deliver one record (the concatenation of `parts`) to `dest`; `ta`: the
    /// target arrival time of the message it carries (noted in `dest`'s
    /// unread arrivals), None for host-only records (nudges). Returns false,
    /// the record dropped, if `dest` has finalized ([`Link::close`]).
    fn send(&mut self, dest: u32, parts: &[&[u8]], ta: Option<VTime>) -> bool;
    /// Deliver protocol message `m` (its `payload` ignored) with `body` to
    /// `dest`, as [`Link::send`] does its records (the same `ta` and
    /// result): encoded into records, unless the link carries messages as
    /// they are (in one process: no encoding, no decoding).
    #[inline]
    fn send_msg(&mut self, dest: u32, m: &Msg, body: Body, ta: Option<VTime>) -> bool {
        send_records(self, dest, m, body, ta)
    }
    /// The next incoming message if the link carries messages as they are
    /// (see [`Link::send_msg`]); [`Taken::Records`] if what comes next are
    /// records.
    #[inline]
    fn take_msg(&mut self) -> Taken {
        Taken::Records
    }
    /// Finalizing: records sent to us from now on are dropped by their
    /// senders (`send` returns false), so that none stays counted in flight
    /// for ever. Records already here stay: the caller reads them, then
    /// settles ([`Link::settle_unread`]).
    fn close(&mut self);
    /// Next incoming record, in per-sender order; false if none now. The
    /// noted arrivals stay until [`Link::settle_unread`].
    fn try_recv(&mut self, out: &mut Vec<u8>) -> bool;
    /// [`Link::try_recv`] that puts the record's first `n` bytes in `head`
    /// and the rest in `body`.
    fn try_recv_split(&mut self, n: usize, head: &mut Vec<u8>, body: &mut Vec<u8>) -> bool {
        if !self.try_recv(head) {
            return false;
        }
        *body = head.split_off(n.min(head.len()));
        true
    }
    /// Every record read has been handled: forget the noted arrivals if the
    /// inbox is empty. Returns the earliest one forgotten, if any.
    fn settle_unread(&mut self) -> Option<VTime>;
    /// Sleep until a record is there.
    fn wait_incoming(&mut self);
    /// The next [`Link::wait_incoming`] waits for a record from `rank`
    /// (a hint for who should run next on the host).
    fn prefer_next(&mut self, _rank: Option<u32>) {}
    /// This thread's CPU time in nanoseconds, on entering the library (may
    /// be estimated after a short computation, see `transport::cputime`).
    fn cpu_now_ns(&self) -> u64;
    /// This thread's CPU time on leaving the library: may be estimated from
    /// the last [`Link::cpu_now_ns`] (see `transport::cputime`).
    fn cpu_leave_ns(&self) -> u64 {
        self.cpu_now_ns()
    }
    /// Our process id if peers may pull from our memory (single copy).
    fn pull_pid(&self) -> Option<u32>;
    /// Copy `dst.len()` bytes from `addr` in process `pid`.
    fn pull(&mut self, pid: u32, addr: u64, dst: &mut [u8]) -> Result<(), String>;
    /// Publish our virtual time for observers.
    fn publish_vtime(&self, t: VTime);
    /// Let another rank run application code (a poll found nothing).
    fn yield_core(&mut self);

    // ---- several host threads (MPI_THREAD_MULTIPLE) ----------------------

    /// Another thread of this rank waits to enter the library.
    fn yield_requested(&self) -> bool {
        false
    }
    /// Another thread of this rank runs (it may call MPI at any time).
    fn others_running(&self) -> bool {
        false
    }
    /// Look again at which threads of this rank run, before going idle.
    fn refresh_threads(&self) {}

    // ---- quiescence: the whole job idle, nothing in flight --------------

    /// Publish, before going idle, the arrival time of the earliest message
    /// in our early queue and what we wait for.
    fn publish_blocked(&self, early_min: Option<VTime>, waiting_on: &str);
    /// Whether what a rank waits for is worth putting in words each time
    /// it goes idle (for a deadlock report); a replay's is not.
    fn describes_waits(&self) -> bool {
        true
    }
    // ---- conservative decisions (see `decide`) --------------------------

    /// The bound generation (unchanged across a scan: consistent snapshot).
    fn generation(&self) -> u64;
    /// Rank `j`'s unread arrivals (ps), then its own bound word, read in
    /// that order.
    fn peer_bound(&self, j: u32) -> (Option<u64>, u64);
    /// Publish our own bound word (was `old`).
    fn publish_bound(&self, old: u64, new: u64);
    /// Publish the time of the decision we wait to take (None: none).
    fn set_deciding(&self, t: Option<VTime>);
    fn deciding_at(&self, j: u32) -> Option<VTime>;
    /// Ranks waiting to take a decision.
    fn deciders(&self) -> u32;
    /// Wake rank `j` from [`Link::wait_poked`].
    fn poke(&self, j: u32);
    /// Times we were poked.
    fn pokes(&self) -> u32;
    /// Sleep until a record is there or our poke count is no longer `seen`.
    fn wait_poked(&mut self, seen: u32);

    // ---- the flow registry (contention, see `flows`) ---------------------

    /// Entries each rank owns in the job's flow registry (0: none).
    fn flow_slots(&self) -> u32 {
        0
    }
    /// Store a flow in our entry `slot`; returns its sequence word.
    fn flow_write(&self, _slot: u32, _f: &FlowRecord) -> u64 {
        unreachable!("no flow registry")
    }
    /// Our entry `slot` holds nothing any more.
    fn flow_free(&self, _slot: u32) {}
    /// Publish the end of the flow in our entry `slot`.
    fn flow_set_end(&self, _slot: u32, _end: VTime) {}
    /// Rank `j`'s entry `slot`: its sequence word and flow, if it holds one.
    fn flow_read(&self, _j: u32, _slot: u32) -> Option<(u64, FlowRecord)> {
        None
    }
    /// How many of its entries rank `j` ever used.
    fn flow_used(&self, _j: u32) -> u32 {
        0
    }
    /// Say we used `n` of our entries.
    fn set_flow_used(&self, _n: u32) {}
    /// The flow `seq` in rank `j`'s entry `slot` reached its receiver (us);
    /// it ended at `end`.
    fn flow_consume(&self, _j: u32, _slot: u32, _seq: u64, _end: VTime) {}
    /// Whether the flow `seq` in our entry `slot` was consumed.
    fn flow_consumed(&self, _slot: u32, _seq: u64) -> bool {
        false
    }
    /// Publish the flow window end we wait to see closed (None: none).
    fn set_resolving(&self, _t: Option<VTime>) {}
    fn resolving_at(&self, _j: u32) -> Option<VTime> {
        None
    }

    /// Count ourselves idle; true if the whole job is now quiescent (every
    /// rank idle or finalized, no record in flight).
    fn idle_begin(&mut self) -> bool;
    fn idle_end(&mut self);
    /// After [`Link::idle_begin`] said the job is quiescent: its next event,
    /// the least (time, kind, rank) over early-queued messages (kind 0, at
    /// their arrival) and pending decisions (kind 1, at their time), read
    /// while the job stays quiescent.
    fn next_event(&mut self) -> Next;
    /// Every rank's published waiting-on text, `None` for finalized ranks.
    fn waiting_report(&self) -> Vec<Option<String>>;
    /// End the job: it can make no progress.
    fn deadlock(&mut self, report: &str) -> !;
    /// End the job: this rank cannot go on, for the reason `message` gives.
    fn fail(&mut self, message: &str) -> !;
}
