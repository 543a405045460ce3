//! The rank side of a timeline: turns the library's hooks (calls entered
//! and left, messages sent, receives completed) into [`Record`]s streamed to
//! the rank's file through a buffered writer. It keeps only the call in
//! progress, and the file's written part leaves the page cache
//! ([`StreamFile`]), so its memory does not grow with the run.
use super::record::{MsgKind, Record};
use crate::engine::wire::Msg;
use crate::model::VTime;
use crate::p2p::{Status, ACTIVE_CTX_BIT};
use crate::transport::streamfile::StreamFile;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Calls that are computation, not communication: their time belongs to the
/// burst around them.
const COMPUTATION: &str = "MPIX_Vaced_compute";

/// One value shared by all of a call's operations, or not.
#[derive(Clone, Copy)]
enum Same<T> {
    Unset,
    One(T),
    Mixed,
}

impl<T: PartialEq + Copy> Same<T> {
    fn add(&mut self, v: T) {
        *self = match *self {
            Same::Unset => Same::One(v),
            Same::One(w) if w == v => Same::One(w),
            _ => Same::Mixed,
        }
    }
    fn get(self) -> Option<T> {
        match self {
            Same::One(v) => Some(v),
            _ => None,
        }
    }
}

/// The MPI call in progress.
struct Call {
    name: String,
    ctx: Option<u32>,
    t0: VTime,
    bytes: u64,
    partner: Same<u32>,
    tag: Same<i32>,
}

pub struct Recorder {
    out: BufWriter<StreamFile>,
    path: PathBuf,
    /// The end of the last call: the start of the burst in progress.
    burst_from: VTime,
    call: Option<Call>,
    /// Inside a call that is computation ([`COMPUTATION`]).
    in_computation: bool,
    /// A write failed: the file is incomplete (the launcher reports it).
    failed: bool,
}

impl Recorder {
    /// Create rank `rank`'s file at `path`; the timeline starts at tV = 0.
    pub fn create(path: &Path, rank: u32) -> io::Result<Recorder> {
        let mut out = BufWriter::with_capacity(1 << 14, StreamFile::create(path)?);
        writeln!(out, "{}", Record::Head { rank })?;
        Ok(Recorder {
            out,
            path: path.to_path_buf(),
            burst_from: VTime::ZERO,
            call: None,
            in_computation: false,
            failed: false,
        })
    }

    fn put(&mut self, r: &Record) {
        if self.failed {
            return;
        }
        if let Err(e) = writeln!(self.out, "{r}") {
            self.failed = true;
            eprintln!(
                "vaced: cannot write the timeline file {}: {e}",
                self.path.display()
            );
        }
    }

    pub fn enter(&mut self, name: &str, ctx: Option<u32>, t: VTime) {
        if name == COMPUTATION {
            self.in_computation = true;
            return;
        }
        if self.call.is_some() {
            self.leave(t);
        }
        if t > self.burst_from {
            self.put(&Record::Burst {
                t0: self.burst_from.ps(),
                t1: t.ps(),
            });
        }
        self.call = Some(Call {
            name: name.to_string(),
            ctx,
            t0: t,
            bytes: 0,
            partner: Same::Unset,
            tag: Same::Unset,
        });
    }

    pub fn leave(&mut self, t: VTime) {
        if std::mem::take(&mut self.in_computation) {
            return;
        }
        let Some(c) = self.call.take() else { return };
        self.put(&Record::Call {
            name: c.name,
            ctx: c.ctx,
            t0: c.t0.ps(),
            t1: t.ps(),
            bytes: c.bytes,
            partner: c.partner.get(),
            tag: c.tag.get(),
        });
        self.burst_from = t;
    }

    /// An operation of the call in progress, with `partner` (world rank).
    fn op(&mut self, partner: u32, bytes: u64, tag: i32) {
        if let Some(c) = &mut self.call {
            c.bytes += bytes;
            c.partner.add(partner);
            c.tag.add(tag);
        }
    }

    pub fn message(&mut self, dest: u32, m: &Msg, ts: VTime) {
        let Some(kind) = MsgKind::of(m.kind, m.ctx & ACTIVE_CTX_BIT != 0) else {
            return;
        };
        if kind.is_send() {
            self.op(dest, m.size, m.tag);
        }
        if m.flow.is_some() {
            // its arrival is known once its receiver resolves it
            // (`flow_arrival`)
            return;
        }
        self.put(&Record::Message {
            kind,
            dest,
            ctx: m.ctx,
            tag: m.tag,
            bytes: m.size,
            ts: ts.ps(),
            ta: m.ta.ps(),
            from: None,
        });
    }

    /// A flow from `m.src` to us, sent at `ts`, resolved: it arrives at
    /// `m.ta`.
    pub fn flow_arrival(&mut self, me: u32, m: &Msg, ts: VTime) {
        let Some(kind) = MsgKind::of(m.kind, false) else {
            return;
        };
        self.put(&Record::Message {
            kind,
            dest: me,
            ctx: m.ctx,
            tag: m.tag,
            bytes: m.size,
            ts: ts.ps(),
            ta: m.ta.ps(),
            from: Some(m.src),
        });
    }

    pub fn received(&mut self, st: &Status) {
        self.op(st.source as u32, st.bytes, st.tag);
    }

    /// The rank ends at `t`: the call in progress (MPI_Finalize) ends
    /// there; flush the file.
    pub fn finish(mut self, t: VTime) {
        self.in_computation = false;
        if self.call.is_some() {
            self.leave(t);
        } else if t > self.burst_from {
            self.put(&Record::Burst {
                t0: self.burst_from.ps(),
                t1: t.ps(),
            });
        }
        self.put(&Record::End { t: t.ps() });
        if !self.failed {
            if let Err(e) = self.out.flush() {
                eprintln!(
                    "vaced: cannot write the timeline file {}: {e}",
                    self.path.display()
                );
            }
        }
    }
}
