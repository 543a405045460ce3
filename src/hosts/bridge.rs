//! A host's bridge: the one thread that joins its host's segment to the
//! other hosts' (one ordered stream per pair of hosts).
//!
//! Each turn it handles what came in (records delivered to local ranks,
//! other hosts' published words stored in their ranks' mirrors, acks),
//! forwards the records local ranks staged for remote ones, forgets their
//! noted arrivals once acknowledged, sends what its own ranks published
//! when it changed (one consistent snapshot, see `transport::remote`),
//! acknowledges the records it noted (after the state that shows them), and
//! reports to the coordinator when its host is quiet (see `detect`). Then
//! it sleeps on its bell until a local rank or a stream rings it.
//!
//! Order: every record a host received is noted in its rank's inbox
//! before the host's next state goes out, and its ack follows that state on
//! the same stream; so a sender's host forgets a record's arrival only
//! after the receiving host's state, as mirrored at the sender's host,
//! shows it.

use super::detect::{Coordinator, Report, Say};
use super::frame::{self, Frame};
use crate::engine::wire::{self, Body, Msg};
use crate::transport::remote::{Delivery, HostSide, RankView};
use crate::transport::RankState;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::io::{self, BufWriter, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// A stream between two hosts' bridges.
pub trait Stream: Read + Write + Send {
    /// Another handle on the same stream (for the reader thread).
    fn another(&self) -> io::Result<Box<dyn Stream>>;
    /// Shut the stream down both ways (the reader thread then ends).
    fn close(&self);
}

impl Stream for UnixStream {
    fn another(&self) -> io::Result<Box<dyn Stream>> {
        Ok(Box::new(self.try_clone()?))
    }
    fn close(&self) {
        let _ = self.shutdown(Shutdown::Both);
    }
}

impl Stream for TcpStream {
    fn another(&self) -> io::Result<Box<dyn Stream>> {
        Ok(Box::new(self.try_clone()?))
    }
    fn close(&self) {
        let _ = self.shutdown(Shutdown::Both);
    }
}

/// The stream to another host.
pub struct Peer {
    pub host: u32,
    pub stream: Box<dyn Stream>,
}

/// What a bridge did (the tests read it).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    pub frames_sent: u64,
    pub frames_received: u64,
    pub records_forwarded: u64,
    /// Times the whole job was found quiescent (go said).
    pub goes: u64,
}

/// Frames read by the reader threads: (host, frame, or the end of its
/// stream, or an error).
type Incoming = Arc<Mutex<VecDeque<(u32, Result<Option<Frame>, String>)>>>;

pub struct Bridge {
    side: HostSide,
    me: u32,
    host_of: Vec<u32>,
    writers: Vec<Option<BufWriter<Box<dyn Stream>>>>,
    incoming: Incoming,
    readers: Vec<JoinHandle<()>>,
    /// Data frames sent to / received from each host.
    sent: Vec<u64>,
    recv: Vec<u64>,
    /// Records received from each host, and the count last acknowledged.
    records_in: Vec<u64>,
    acks_sent: Vec<u64>,
    /// Records sent to each host, and the count it acknowledged.
    records_out: Vec<u64>,
    acked: Vec<u64>,
    /// Per rank (remote ones): the records sent to its host when its
    /// staging inbox was last emptied; its arrivals are forgotten once the
    /// host acknowledged that many.
    staged_upto: Vec<u64>,
    /// Per local rank (by its index in `side.local()`): what was last sent.
    last: Vec<Option<RankView>>,
    /// Records for local ranks whose inbox was full, in arrival order.
    pending: VecDeque<(u32, Vec<u8>, Option<u64>)>,
    reported: Option<Report>,
    coord: Option<Coordinator>,
    closed: Vec<bool>,
    max_record: usize,
    stats: Stats,
}

impl Bridge {
    /// The bridge of host `me` (`host_of`: each rank's host; every host
    /// runs at least one rank; host 0 coordinates), with a stream to every
    /// other host.
    pub fn new(
        side: HostSide,
        me: u32,
        host_of: Vec<u32>,
        peers: Vec<Peer>,
    ) -> Result<Bridge, String> {
        let nhosts = host_of.iter().max().map_or(1, |&h| h as usize + 1);
        assert_eq!(
            peers.len(),
            nhosts - 1,
            "a bridge needs a stream to each other host"
        );
        let incoming: Incoming = Arc::default();
        let mut writers: Vec<Option<BufWriter<Box<dyn Stream>>>> =
            (0..nhosts).map(|_| None).collect();
        let mut readers = Vec::new();
        for p in peers {
            let mut r = p
                .stream
                .another()
                .map_err(|e| format!("the stream to host {}: {e}", p.host))?;
            writers[p.host as usize] = Some(BufWriter::new(p.stream));
            let inc = incoming.clone();
            let ringer = side.ringer();
            let h = p.host;
            readers.push(std::thread::spawn(move || loop {
                let f = frame::read(&mut r).map_err(|e| e.to_string());
                let end = !matches!(f, Ok(Some(_)));
                inc.lock().push_back((h, f));
                ringer.ring();
                if end {
                    return;
                }
            }));
        }
        let nranks = side.segment().nranks() as usize;
        let nlocal = side.local().len();
        let max_record = side.segment().max_record();
        Ok(Bridge {
            side,
            me,
            host_of,
            writers,
            incoming,
            readers,
            sent: vec![0; nhosts],
            recv: vec![0; nhosts],
            records_in: vec![0; nhosts],
            acks_sent: vec![0; nhosts],
            records_out: vec![0; nhosts],
            acked: vec![0; nhosts],
            staged_upto: vec![0; nranks],
            last: vec![None; nlocal],
            pending: VecDeque::new(),
            reported: None,
            coord: (me == 0).then(|| Coordinator::new(nhosts as u32)),
            closed: vec![false; nhosts],
            max_record,
            stats: Stats::default(),
        })
    }

    /// Serve until every rank of the job has finalized.
    pub fn run(mut self) -> Result<Stats, String> {
        loop {
            let pulse = self.side.pulse();
            loop {
                let next = self.incoming.lock().pop_front();
                let Some((h, f)) = next else { break };
                match f {
                    Ok(Some(f)) => self.handle(h, f)?,
                    // a host leaves once it saw every rank finalized,
                    // after saying its own are
                    Ok(None) | Err(_) if self.finalized_on(h) => self.closed[h as usize] = true,
                    Ok(None) => {
                        return Err(format!(
                            "host {h}'s bridge closed its stream while ranks still run there"
                        ))
                    }
                    Err(e) => return Err(format!("the stream from host {h}: {e}")),
                }
            }
            self.retry_pending();
            self.forward_staged()?;
            self.settle_staged();
            self.send_state()?;
            self.send_acks()?;
            self.maybe_report()?;
            self.flush();
            if self.done() {
                break;
            }
            if !self.pending.is_empty() {
                // a local inbox is full: its reader frees space without
                // ringing us
                std::thread::sleep(Duration::from_micros(50));
                continue;
            }
            let inc = &self.incoming;
            let side = &self.side;
            side.wait_until(|| {
                !inc.lock().is_empty() || side.pulse() != pulse || side.has_staged()
            });
        }
        self.flush();
        for w in self.writers.iter_mut().flatten() {
            w.get_ref().close();
        }
        for r in self.readers.drain(..) {
            let _ = r.join();
        }
        Ok(self.stats)
    }

    fn handle(&mut self, h: u32, f: Frame) -> Result<(), String> {
        let hi = h as usize;
        if f.is_data() {
            self.recv[hi] += 1;
            self.stats.frames_received += 1;
            // the job is active again
            self.side.retake();
        }
        match f {
            Frame::Record { dest, note, bytes } => {
                self.records_in[hi] += 1;
                if self.host_of.get(dest as usize) != Some(&self.me) {
                    return Err(format!("host {h} sent a record for rank {dest}, not ours"));
                }
                // behind any record still waiting: per-sender order
                if !self.pending.is_empty()
                    || self.side.deliver(dest, &bytes, note) == Delivery::Full
                {
                    self.pending.push_back((dest, bytes, note));
                }
            }
            Frame::State(views) => {
                if let Some(v) = views.iter().find(|v| self.host_of[v.rank as usize] != h) {
                    return Err(format!("host {h} spoke for rank {}, not its own", v.rank));
                }
                self.side.apply(&views);
            }
            Frame::Ack(n) => self.acked[hi] = n,
            Frame::Report { stamp, sent, recv } => {
                let say = self.coordinator()?.report(h, Report { stamp, sent, recv });
                self.say(say)?;
            }
            Frame::Probe(w) => {
                let still = self.still_as_reported();
                self.answer(w, still)?;
            }
            Frame::ProbeAck(w, still) => {
                let say = self.coordinator()?.answer(h, w, still);
                self.say(say)?;
            }
            Frame::Go(_) => self.go(),
        }
        Ok(())
    }

    fn coordinator(&mut self) -> Result<&mut Coordinator, String> {
        self.coord
            .as_mut()
            .ok_or_else(|| "a detection frame reached a host that does not coordinate".into())
    }

    /// The coordinator's word to every host, itself included.
    fn say(&mut self, say: Option<Say>) -> Result<(), String> {
        let Some(say) = say else { return Ok(()) };
        self.send_all(&match say {
            Say::Probe(w) => Frame::Probe(w),
            Say::Go(w) => Frame::Go(w),
        })?;
        match say {
            Say::Probe(w) => {
                let still = self.still_as_reported();
                self.answer(w, still)
            }
            Say::Go(_) => {
                self.go();
                Ok(())
            }
        }
    }

    fn answer(&mut self, w: u64, still: bool) -> Result<(), String> {
        if self.me == 0 {
            let say = self.coordinator()?.answer(0, w, still);
            self.say(say)
        } else {
            self.send(0, &Frame::ProbeAck(w, still))
        }
    }

    /// The job is quiescent: if its next event is on this host, give the
    /// host unit back and nudge that event's rank, which finds the job
    /// quiescent when it goes idle again and acts. With no event at all,
    /// the lowest rank still running is nudged (it reports the deadlock).
    fn go(&mut self) {
        if !self.still_as_reported() {
            return;
        }
        self.stats.goes += 1;
        let seg = self.side.segment();
        let owner = match seg.earliest_event() {
            Some((_, _, r)) => r,
            None => {
                match (0..seg.nranks()).find(|&r| seg.slot(r).state() != RankState::Finalized) {
                    Some(r) => r,
                    None => return,
                }
            }
        };
        if self.host_of[owner as usize] != self.me {
            return;
        }
        let mut rec = Vec::new();
        wire::encode(&Msg::nudge(owner), Body::None, self.max_record, |parts| {
            parts.iter().for_each(|p| rec.extend_from_slice(p))
        });
        self.side.release();
        if self.side.deliver(owner, &rec, None) == Delivery::Full {
            self.pending.push_back((owner, rec, None));
        }
    }

    fn retry_pending(&mut self) {
        while let Some((dest, bytes, note)) = self.pending.front() {
            if self.side.deliver(*dest, bytes, *note) == Delivery::Full {
                return;
            }
            self.pending.pop_front();
        }
    }

    fn forward_staged(&mut self) -> Result<(), String> {
        let mut rec = Vec::new();
        for i in 0..self.side.remote().len() {
            let j = self.side.remote()[i];
            let h = self.host_of[j as usize];
            if self.side.segment().inbox_pending(j) {
                // before a record leaves the count of this host's in flight
                self.side.retake();
            }
            let mut any = false;
            while self.side.take_staged(j, &mut rec) {
                any = true;
                // read after the record is taken: a record is noted before
                // it is written, and only we forget, so this covers it and
                // every one before (read before the take, it would miss a
                // record written in between with an earlier arrival)
                let note = self.side.staged_unread(j);
                self.records_out[h as usize] += 1;
                self.stats.records_forwarded += 1;
                let f = Frame::Record {
                    dest: j,
                    note,
                    bytes: std::mem::take(&mut rec),
                };
                self.send(h, &f)?;
            }
            if any {
                self.staged_upto[j as usize] = self.records_out[h as usize];
            }
        }
        Ok(())
    }

    fn settle_staged(&mut self) {
        for i in 0..self.side.remote().len() {
            let j = self.side.remote()[i];
            if self.acked[self.host_of[j as usize] as usize] >= self.staged_upto[j as usize] {
                self.side.settle_staged(j);
            }
        }
    }

    /// Send the local ranks' published words that changed since last sent
    /// (a rank's state as others need it: finalized, aborted, or not).
    fn send_state(&mut self) -> Result<(), String> {
        let mut changed = Vec::new();
        for (i, mut v) in self.side.snapshot().into_iter().enumerate() {
            if !matches!(v.state, RankState::Finalized | RankState::Aborted) {
                v.state = RankState::Blocked;
            }
            if self.last[i].as_ref() != Some(&v) {
                self.last[i] = Some(v.clone());
                changed.push(v);
            }
        }
        if changed.is_empty() {
            return Ok(());
        }
        self.send_all(&Frame::State(changed))
    }

    fn send_acks(&mut self) -> Result<(), String> {
        for h in 0..self.writers.len() {
            if self.records_in[h] > self.acks_sent[h] {
                self.acks_sent[h] = self.records_in[h];
                self.send(h as u32, &Frame::Ack(self.records_in[h]))?;
            }
        }
        Ok(())
    }

    /// This host's report if it is quiet now: every local rank idle,
    /// nothing in flight here, nothing staged, waiting or unsent.
    fn quiet_report(&self) -> Option<Report> {
        let stamp = self.side.quiet_stamp()?;
        let staged = self
            .side
            .remote()
            .iter()
            .any(|&j| self.side.staged_unread(j).is_some());
        if staged || !self.pending.is_empty() || self.side.has_staged() {
            return None;
        }
        if self.records_in != self.acks_sent {
            return None;
        }
        Some(Report {
            stamp,
            sent: self.sent.clone(),
            recv: self.recv.clone(),
        })
    }

    fn still_as_reported(&self) -> bool {
        self.reported.is_some() && self.quiet_report() == self.reported
    }

    fn maybe_report(&mut self) -> Result<(), String> {
        let Some(r) = self.quiet_report() else {
            return Ok(());
        };
        if self.reported.as_ref() == Some(&r) {
            return Ok(());
        }
        self.reported = Some(r.clone());
        if self.me == 0 {
            let say = self.coordinator()?.report(0, r);
            self.say(say)
        } else {
            let Report { stamp, sent, recv } = r;
            self.send(0, &Frame::Report { stamp, sent, recv })
        }
    }

    /// Every rank has finalized and the other hosts were told of ours.
    fn done(&self) -> bool {
        self.side.all_finalized()
            && self.pending.is_empty()
            && !self.side.has_staged()
            && self
                .last
                .iter()
                .all(|v| v.as_ref().is_some_and(|v| v.state == RankState::Finalized))
    }

    /// Whether every rank of host `h` has finalized, as mirrored here.
    fn finalized_on(&self, h: u32) -> bool {
        let seg = self.side.segment();
        (0..seg.nranks())
            .filter(|&r| self.host_of[r as usize] == h)
            .all(|r| seg.slot(r).state() == RankState::Finalized)
    }

    /// Send `f` to every other host.
    fn send_all(&mut self, f: &Frame) -> Result<(), String> {
        for h in 0..self.writers.len() as u32 {
            if h != self.me {
                self.send(h, f)?;
            }
        }
        Ok(())
    }

    /// Send `f` to host `h`. A data frame may make that host active: this
    /// one holds its unit again first.
    fn send(&mut self, h: u32, f: &Frame) -> Result<(), String> {
        if f.is_data() {
            self.side.retake();
            self.sent[h as usize] += 1;
            self.stats.frames_sent += 1;
        }
        let w = self.writers[h as usize]
            .as_mut()
            .ok_or_else(|| format!("no stream to host {h}"))?;
        if self.closed[h as usize] {
            return Ok(());
        }
        // A host that is done no longer reads: whether it was done is
        // known once its stream's end is read (after its last frames).
        if frame::write(w, f).is_err() {
            self.closed[h as usize] = true;
        }
        Ok(())
    }

    fn flush(&mut self) {
        for h in 0..self.writers.len() {
            let Some(w) = self.writers[h].as_mut() else {
                continue;
            };
            if !self.closed[h] && w.flush().is_err() {
                self.closed[h] = true;
            }
        }
    }
}
