//! The call log of one rank, for what-if runs (see `crate::replay`): every
//! call the MPI layer makes on its [`super::Core`], in order, with the CPU
//! clock readings the engine took and the outcomes the program saw
//! (completions of a test or a wait-any, the source a wildcard receive got).
//! Replaying the log through the same engine under another target gives that
//! target's prediction without running the program again: the program's
//! computation is measured once and scaled by each target's `cpu.scale`.
//!
//! Only what the engine needs is kept: buffer lengths, never their bytes.
//! Requests and matched messages are named by the ids the engine gave them
//! in this run (the replay maps them to its own). The log streams to a file,
//! buffered; beyond its share of [`CACHED_LOGS`] (kept for the replays,
//! which read it right after the run) it leaves the page cache as it goes
//! (`transport::streamfile`): its memory does not grow with the run.
//!
//! The format is this module's own, made for a log that a replay reads a
//! few hundred thousand calls a second of: a call is its kind (one byte),
//! then its fields in order, integers as LEB128 varints (signed ones
//! zigzagged), an option as 0 or 1 then its value, a list as its length then
//! its items; a CPU clock reading as its difference from the one before. The
//! lists of a wait or test (request ids, indices, what receives saw) are
//! written as runs of items in constant steps (`runs`): an all-to-all's
//! wait on 510 requests is a few bytes, decoded without a varint per item.
//! The two commonest pairs of calls are one record each: leaving the library
//! and entering it again ([`Call::Between`]), and a wait on one request then
//! its free ([`Call::WaitFree`]). A generic serializer (bincode was the
//! first) spent a third of a replay's time decoding.
use super::SendMode;
use crate::transport::streamfile::StreamFile;
use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

/// Environment variable naming the directory the ranks write their logs to
/// (`<dir>/<rank>.log`).
pub const ENV_DIR: &str = "VACED_RECORD_DIR";

/// The (source, tag) a completed request's status gave the program.
pub type Seen = (i32, i32);

/// One call on the engine.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// The start event: the CPU clock at MPI_Init's end; exact or fast mode.
    Start {
        cpu: u64,
        exact: bool,
    },
    /// Entering the library (the CPU clock read then).
    Enter {
        cpu: u64,
    },
    /// Leaving it.
    Leave {
        cpu: u64,
    },
    /// MPIX_Vaced_compute, in ps.
    Compute {
        ps: u64,
    },
    /// A send of `len` bytes; `owned`: of bytes the request owns
    /// (`isend_vec` / `issend_vec`).
    Send {
        len: u64,
        dest: u32,
        tag: i32,
        ctx: u32,
        mode: Mode,
        owned: bool,
        id: u32,
    },
    /// A receive of at most `len` bytes; `owned`: into a buffer the request
    /// owns (`irecv_vec`, collected by `take_vec`).
    Recv {
        len: u64,
        src: Option<u32>,
        tag: Option<i32>,
        ctx: u32,
        owned: bool,
        id: u32,
    },
    TakeVec {
        id: u32,
    },
    Free {
        id: u32,
    },
    Detach {
        id: u32,
    },
    Cancel {
        id: u32,
        cancelled: bool,
    },
    /// MPI_Wait / Waitall; what the receives among them got.
    WaitAll {
        ids: Vec<u32>,
        seen: Vec<Seen>,
    },
    /// MPI_Waitany / Waitsome: the indices complete, in the engine's order.
    WaitAny {
        ids: Vec<u32>,
        done: Vec<u32>,
        seen: Vec<Seen>,
    },
    /// MPI_Test*: the indices complete.
    Test {
        ids: Vec<u32>,
        done: Vec<u32>,
        seen: Vec<Seen>,
    },
    /// MPI_Probe (`blocking`) or MPI_Iprobe, and what it found; `matched`:
    /// the message MPI_Mprobe / MPI_Improbe took out of matching.
    Probe {
        src: Option<u32>,
        tag: Option<i32>,
        ctx: u32,
        blocking: bool,
        found: Option<Seen>,
        matched: Option<u64>,
    },
    /// MPI_Mrecv of matched message `m` into `len` bytes.
    Mrecv {
        m: u64,
        len: u64,
        id: u32,
    },
    /// A compound request (a nonblocking collective's schedule) started as
    /// request `id`.
    Compound {
        /// (boxed: a call is moved and overwritten millions of times, and
        /// this, the largest kind, is rare)
        desc: Box<CompoundDesc>,
        id: u32,
    },
    /// A [`Call::Leave`] right followed by a [`Call::Enter`], as the log
    /// holds them (one record: between two MPI calls of a program there is
    /// nothing else to note).
    Between {
        leave: u64,
        enter: u64,
    },
    /// A [`Call::WaitAll`] of one request right followed by its
    /// [`Call::Free`] or [`Call::TakeVec`] (MPI_Wait, a blocking send or
    /// receive), as one record.
    WaitFree {
        id: u32,
        seen: Seen,
    },
    /// Sends one right after the other that differ only in their length,
    /// destination and request (an all-to-all's), as one record: each
    /// one's (len, dest, id).
    Sends {
        tag: i32,
        ctx: u32,
        mode: Mode,
        owned: bool,
        items: Vec<(u64, u32, u32)>,
    },
    /// Receives one right after the other likewise: each one's (len, src,
    /// id).
    Recvs {
        tag: Option<i32>,
        ctx: u32,
        owned: bool,
        items: Vec<(u64, Option<u32>, u32)>,
    },
    /// Several [`Call::Free`] and [`Call::TakeVec`] one right after the
    /// other (the requests a wait completed, freed or their bytes taken),
    /// as one record: the requests, in order.
    Forget {
        ids: Vec<u32>,
    },
    /// MPI_Finalize: background sends settled.
    Drain,
    /// MPI_Finalize: the rank is done.
    Retire,
}

/// A nonblocking collective's schedule as the replay rebuilds it: what it
/// sends and receives, round by round, without the data (`bufs`: each
/// buffer's length) or the local work itself (`locals`: how many steps
/// each round has; their CPU time is in the rank's measurement file).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CompoundDesc {
    pub name: String,
    /// World rank of each peer, and its (send, receive) context.
    pub ranks: Vec<u32>,
    pub ctxs: Vec<(u32, u32)>,
    pub tag: i32,
    pub bufs: Vec<u64>,
    /// When its first round starts (None: at the call's tV), in ps.
    pub start_ps: Option<u64>,
    pub rounds: Vec<RoundDesc>,
}

/// One round of a [`CompoundDesc`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RoundDesc {
    pub xfers: Vec<XferDesc>,
    pub locals: u32,
}

/// A transfer of a round: `peer` is an index in [`CompoundDesc::ranks`];
/// `buf` and `off` where its data comes from or goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XferDesc {
    pub kind: XferKind,
    pub buf: u32,
    pub off: u64,
    pub len: u64,
    pub peer: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XferKind {
    Send,
    Ssend,
    Recv,
}

/// [`SendMode`] in the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Standard,
    Synchronous,
    Ready,
    Buffered,
}

impl From<SendMode> for Mode {
    fn from(m: SendMode) -> Mode {
        match m {
            SendMode::Standard => Mode::Standard,
            SendMode::Synchronous => Mode::Synchronous,
            SendMode::Ready => Mode::Ready,
            SendMode::Buffered => Mode::Buffered,
        }
    }
}

impl From<Mode> for SendMode {
    fn from(m: Mode) -> SendMode {
        match m {
            Mode::Standard => SendMode::Standard,
            Mode::Synchronous => SendMode::Synchronous,
            Mode::Ready => SendMode::Ready,
            Mode::Buffered => SendMode::Buffered,
        }
    }
}

/// A call held back to be written as one record with the next, or with
/// the next few: the first of a pair (a Leave: its CPU reading; a wait on
/// one request: the request, what it got), or the calls of a batch so far:
/// frees ([`Recorder::forget`] holds the requests; `taken`: the first was a
/// [`Call::TakeVec`]), sends or receives (with what they have in common;
/// [`Recorder::sends`] and [`Recorder::recvs`] hold the rest).
#[derive(Clone, Copy, PartialEq)]
enum Held {
    Leave(u64),
    Wait(u32, Seen),
    Forget {
        taken: bool,
    },
    Sends {
        tag: i32,
        ctx: u32,
        mode: Mode,
        owned: bool,
    },
    Recvs {
        tag: Option<i32>,
        ctx: u32,
        owned: bool,
    },
}

/// The most calls a batch (a record of frees, sends or receives) holds.
const MOST_BATCHED: usize = 1 << 16;

impl Held {
    /// The batch call `c` starts: what a send or receive has in common with
    /// those of its batch; for a free, whether it takes a receive's bytes.
    fn batch_of(c: &Call) -> Option<Held> {
        match *c {
            Call::Free { .. } => Some(Held::Forget { taken: false }),
            Call::TakeVec { .. } => Some(Held::Forget { taken: true }),
            Call::Send {
                tag,
                ctx,
                mode,
                owned,
                ..
            } => Some(Held::Sends {
                tag,
                ctx,
                mode,
                owned,
            }),
            Call::Recv {
                tag, ctx, owned, ..
            } => Some(Held::Recvs { tag, ctx, owned }),
            _ => None,
        }
    }
}

/// Writes one rank's log.
pub struct Recorder {
    out: StreamFile,
    buf: Vec<u8>,
    path: String,
    /// The measurement file (created at the first measurement).
    measures: Option<(File, Vec<u8>)>,
    measures_path: std::path::PathBuf,
    /// The CPU clock reading written last (readings are written as the
    /// difference from it: a byte or two instead of five or six).
    cpu: u64,
    /// A call held back to be written with the next if they pair up.
    held: Option<Held>,
    /// The requests of a held [`Held::Forget`] (kept: no allocation).
    forget: Vec<u32>,
    /// The (len, dest, id) of held [`Held::Sends`].
    sends: Vec<(u64, u32, u32)>,
    /// The (len, src, id) of held [`Held::Recvs`].
    recvs: Vec<(u64, Option<u32>, u32)>,
}

/// Bytes buffered before a write.
const CHUNK: usize = 64 * 1024;

/// Bytes of call logs a job leaves in the page cache in all (which its
/// memory counts): the replays read them right after the run, and a what-if
/// run of a few hundred ranks then reads none from the disk (CG class A on
/// 256 ranks logs 57 MB). Beyond it, a log streams out of memory as a
/// timeline does.
pub const CACHED_LOGS: u64 = 128 << 20;

impl Recorder {
    /// A log that streams out of memory as it is written.
    pub fn create(path: &Path) -> Result<Recorder, String> {
        Recorder::create_keeping(path, 0)
    }

    /// A log whose first `cached` bytes stay in the page cache (rank's
    /// share of [`CACHED_LOGS`]).
    pub fn create_keeping(path: &Path, cached: u64) -> Result<Recorder, String> {
        let out = StreamFile::create(path)
            .map_err(|e| format!("cannot create the call log {}: {e}", path.display()))?
            .keeping(cached);
        Ok(Recorder {
            out,
            buf: Vec::with_capacity(CHUNK + 256),
            path: path.display().to_string(),
            measures: None,
            measures_path: path.with_extension("measures"),
            cpu: 0,
            held: None,
            forget: Vec::new(),
            sends: Vec::new(),
            recvs: Vec::new(),
        })
    }

    /// The CPU time `ns` of measurement `k` of compound request `serial`.
    pub fn measure(&mut self, serial: u64, k: u32, ns: u64) {
        if self.measures.is_none() {
            let f = File::create(&self.measures_path).unwrap_or_else(|e| {
                panic!("vaced: cannot create {}: {e}", self.measures_path.display())
            });
            self.measures = Some((f, Vec::new()));
        }
        let (_, b) = self.measures.as_mut().unwrap();
        encode_measure(serial, k, ns, b);
    }

    pub fn put(&mut self, c: &Call) {
        match (self.held, c) {
            (Some(Held::Leave(leave)), &Call::Enter { cpu: enter }) => {
                self.held = None;
                self.write(&Call::Between { leave, enter });
            }
            (
                Some(Held::Wait(id, seen)),
                &Call::Free { id: freed } | &Call::TakeVec { id: freed },
            ) if id == freed => {
                self.held = None;
                self.write(&Call::WaitFree { id, seen });
            }
            (Some(h), _) if self.joins(h, c) => self.push_batched(c),
            _ => {
                self.write_held();
                match (c, Held::batch_of(c)) {
                    (&Call::Leave { cpu }, _) => self.held = Some(Held::Leave(cpu)),
                    (Call::WaitAll { ids, seen }, _) if ids.len() == 1 => {
                        self.held = Some(Held::Wait(ids[0], seen[0]))
                    }
                    (_, Some(h)) => {
                        self.forget.clear();
                        self.sends.clear();
                        self.recvs.clear();
                        self.push_batched(c);
                        self.held = Some(h);
                    }
                    _ => self.write(c),
                }
            }
        }
    }

    /// Whether call `c` goes into the batch `h` held: a free after frees, a
    /// send (receive) with what those held have in common, while the batch
    /// has room.
    fn joins(&self, h: Held, c: &Call) -> bool {
        let (same, len) = match h {
            Held::Forget { .. } => (
                matches!(c, Call::Free { .. } | Call::TakeVec { .. }),
                self.forget.len(),
            ),
            Held::Sends { .. } => (Held::batch_of(c) == Some(h), self.sends.len()),
            Held::Recvs { .. } => (Held::batch_of(c) == Some(h), self.recvs.len()),
            Held::Leave(_) | Held::Wait(..) => return false,
        };
        same && len < MOST_BATCHED
    }

    /// Add free, send or receive `c` to the batch held.
    fn push_batched(&mut self, c: &Call) {
        match *c {
            Call::Free { id } | Call::TakeVec { id } => self.forget.push(id),
            Call::Send { len, dest, id, .. } => self.sends.push((len, dest, id)),
            Call::Recv { len, src, id, .. } => self.recvs.push((len, src, id)),
            _ => unreachable!("only frees, sends and receives are batched"),
        }
    }

    /// [`Recorder::put`] of a wait on request `id` alone, whose receive got
    /// `seen` (the commonest call: no lists built for it).
    pub fn put_wait_one(&mut self, id: u32, seen: Seen) {
        self.write_held();
        self.held = Some(Held::Wait(id, seen));
    }

    /// Write the call held back, if any, alone.
    fn write_held(&mut self) {
        match self.held.take() {
            None => {}
            Some(Held::Leave(cpu)) => self.write(&Call::Leave { cpu }),
            Some(Held::Wait(id, seen)) => self.write(&Call::WaitAll {
                ids: vec![id],
                seen: vec![seen],
            }),
            Some(Held::Forget { taken }) => match *self.forget {
                [id] if taken => self.write(&Call::TakeVec { id }),
                [id] => self.write(&Call::Free { id }),
                _ => {
                    forget(&self.forget, &mut self.buf);
                    self.flushed_if_full();
                }
            },
            Some(Held::Sends {
                tag,
                ctx,
                mode,
                owned,
            }) => match *self.sends {
                [(len, dest, id)] => self.write(&Call::Send {
                    len,
                    dest,
                    tag,
                    ctx,
                    mode,
                    owned,
                    id,
                }),
                _ => {
                    sends(tag, ctx, mode, owned, &self.sends, &mut self.buf);
                    self.flushed_if_full();
                }
            },
            Some(Held::Recvs { tag, ctx, owned }) => match *self.recvs {
                [(len, src, id)] => self.write(&Call::Recv {
                    len,
                    src,
                    tag,
                    ctx,
                    owned,
                    id,
                }),
                _ => {
                    recvs(tag, ctx, owned, &self.recvs, &mut self.buf);
                    self.flushed_if_full();
                }
            },
        }
    }

    fn write(&mut self, c: &Call) {
        encode(c, &mut self.cpu, &mut self.buf);
        self.flushed_if_full();
    }

    fn flushed_if_full(&mut self) {
        if self.buf.len() >= CHUNK {
            self.flush_buffered();
        }
    }

    /// Write out what is buffered and what is held (at MPI_Finalize).
    pub fn flush(&mut self) {
        self.write_held();
        self.flush_buffered();
    }

    fn flush_buffered(&mut self) {
        if let Err(e) = self.out.write_all(&self.buf) {
            panic!("vaced: cannot write the call log {}: {e}", self.path);
        }
        self.buf.clear();
        if let Some((f, b)) = self.measures.as_mut() {
            if let Err(e) = f.write_all(b) {
                panic!("vaced: cannot write {}: {e}", self.measures_path.display());
            }
            b.clear();
        }
    }
}

/// Reads one rank's log back, call by call.
pub struct Reader {
    inp: File,
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    path: String,
    /// The call [`Reader::next_lent`] decoded last, in place.
    cur: Call,
    /// The CPU clock reading read last (see [`Recorder`]).
    cpu: u64,
    /// Lists of calls decoded before, kept for the next (a replay decodes
    /// millions of waits: no allocation for each).
    spare: Spare,
}

/// The lists of a call that is no longer lent, for reuse.
#[derive(Default)]
struct Spare {
    ids: Vec<u32>,
    done: Vec<u32>,
    seen: Vec<Seen>,
    sends: Vec<(u64, u32, u32)>,
    recvs: Vec<(u64, Option<u32>, u32)>,
}

impl Spare {
    /// Keep the lists of `old` (a call about to be replaced) where none are
    /// kept (taken from it in place: the call is not moved).
    fn keep(&mut self, old: &mut Call) {
        fn larger<T>(to: &mut Vec<T>, v: &mut Vec<T>) {
            if v.capacity() > to.capacity() {
                std::mem::swap(to, v);
            }
        }
        match old {
            Call::WaitAll { ids, seen } => {
                larger(&mut self.ids, ids);
                larger(&mut self.seen, seen);
            }
            Call::Forget { ids } => larger(&mut self.ids, ids),
            Call::Sends { items, .. } => larger(&mut self.sends, items),
            Call::Recvs { items, .. } => larger(&mut self.recvs, items),
            Call::WaitAny { ids, done, seen } | Call::Test { ids, done, seen } => {
                larger(&mut self.ids, ids);
                larger(&mut self.done, done);
                larger(&mut self.seen, seen);
            }
            _ => {}
        }
    }
}

impl Reader {
    pub fn open(path: &Path) -> Result<Reader, String> {
        let inp = File::open(path)
            .map_err(|e| format!("cannot open the call log {}: {e}", path.display()))?;
        Ok(Reader {
            inp,
            // (room for a chunk read and the start of a call left before it:
            // no reallocation as the log is read)
            buf: Vec::with_capacity(CHUNK + 1024),
            pos: 0,
            eof: false,
            path: path.display().to_string(),
            cur: Call::Drain,
            cpu: 0,
            spare: Spare::default(),
        })
    }

    /// The next call; `None` at the end of the log.
    pub fn next_call(&mut self) -> Result<Option<Call>, String> {
        Ok(self.next_lent()?.cloned())
    }

    /// The next call, decoded in place and lent; `None` at the end of the
    /// log. (A replay reads millions: a call moved by value right after
    /// its fields were written byte by byte costs the processor a stall
    /// on every read spanning several of those writes, more than the
    /// decoding itself.)
    pub fn next_lent(&mut self) -> Result<Option<&Call>, String> {
        loop {
            let mut c = Cursor {
                b: &self.buf[self.pos..],
            };
            let before = c.b.len();
            if before > 0 {
                match decode(&mut c, self.cpu, &mut self.spare, &mut self.cur) {
                    Ok(true) => {
                        self.pos += before - c.b.len();
                        if let Call::Start { cpu, .. }
                        | Call::Enter { cpu }
                        | Call::Leave { cpu }
                        | Call::Between { enter: cpu, .. } = self.cur
                        {
                            self.cpu = cpu;
                        }
                        return Ok(Some(&self.cur));
                    }
                    Ok(false) => {}
                    Err(e) => return Err(format!("corrupt call log {}: {e}", self.path)),
                }
            }
            // the call is not all here: read more
            if self.eof {
                return if before == 0 {
                    Ok(None)
                } else {
                    Err(format!(
                        "corrupt call log {}: it ends inside a call",
                        self.path
                    ))
                };
            }
            self.buf.drain(..self.pos);
            self.pos = 0;
            // (appended as read: no zero-filling of a chunk first)
            let n = (&mut self.inp)
                .take(CHUNK as u64)
                .read_to_end(&mut self.buf)
                .map_err(|e| format!("cannot read the call log {}: {e}", self.path))?;
            self.eof = n == 0;
        }
    }
}

// ---- the format ------------------------------------------------------------

fn uint(v: u64, out: &mut Vec<u8>) {
    let mut v = v;
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn int(v: i64, out: &mut Vec<u8>) {
    uint(((v << 1) ^ (v >> 63)) as u64, out);
}

fn opt_uint(v: Option<u64>, out: &mut Vec<u8>) {
    match v {
        None => out.push(0),
        Some(x) => {
            out.push(1);
            uint(x, out);
        }
    }
}

fn opt_int(v: Option<i64>, out: &mut Vec<u8>) {
    match v {
        None => out.push(0),
        Some(x) => {
            out.push(1);
            int(x, out);
        }
    }
}

fn seen(v: Seen, out: &mut Vec<u8>) {
    int(v.0 as i64, out);
    int(v.1 as i64, out);
}

fn list<T: Copy>(v: &[T], out: &mut Vec<u8>, item: fn(T, &mut Vec<u8>)) {
    uint(v.len() as u64, out);
    for &x in v {
        item(x, out);
    }
}

fn id(v: u32, out: &mut Vec<u8>) {
    uint(v as u64, out);
}

/// A context id: small numbers, some with the top bit set (a
/// communicator's collective context), rotated so that the top bit comes
/// last: one byte instead of five.
fn context(v: u32, out: &mut Vec<u8>) {
    id(v.rotate_left(1), out);
}

/// A list of integer tuples as runs of constant steps (read back by
/// `Cursor::runs_into`): its length, then each run as its length, its first
/// item's difference from what the run before would have gone on with (zero
/// items at the start), and for a run of more than one item, its step.
fn runs<const N: usize>(n: usize, item: impl Fn(usize) -> [i64; N], out: &mut Vec<u8>) {
    uint(n as u64, out);
    let mut next = [0i64; N];
    let mut i = 0;
    while i < n {
        let first = item(i);
        let mut step = [0i64; N];
        let mut len = 1;
        if i + 1 < n {
            let mut last = item(i + 1);
            for k in 0..N {
                step[k] = last[k].wrapping_sub(first[k]);
            }
            len = 2;
            while i + len < n {
                let x = item(i + len);
                if (0..N).any(|k| x[k].wrapping_sub(last[k]) != step[k]) {
                    break;
                }
                last = x;
                len += 1;
            }
        }
        uint(len as u64, out);
        for k in 0..N {
            int(first[k].wrapping_sub(next[k]), out);
        }
        if len > 1 {
            for s in step {
                int(s, out);
            }
        }
        for k in 0..N {
            next[k] = first[k].wrapping_add(step[k].wrapping_mul(len as i64));
        }
        i += len;
    }
}

/// The most items a list written as runs may have (see `Cursor::runs_into`).
const MOST_LISTED: usize = 1 << 26;

/// Request ids (or indices) as runs: a wait's requests were mostly started
/// one after the other, their ids consecutive (up or down).
fn ids(v: &[u32], out: &mut Vec<u8>) {
    runs(v.len(), |i| [v[i] as i64], out);
}

/// What the receives of a wait saw, as runs: an all-to-all's come from
/// consecutive sources with one tag.
fn seens(v: &[Seen], out: &mut Vec<u8>) {
    runs(v.len(), |i| [v[i].0 as i64, v[i].1 as i64], out);
}

const START: u8 = 0;
const ENTER: u8 = 1;
const LEAVE: u8 = 2;
const COMPUTE: u8 = 3;
const SEND: u8 = 4;
const RECV: u8 = 5;
const TAKE_VEC: u8 = 6;
const FREE: u8 = 7;
const DETACH: u8 = 8;
const CANCEL: u8 = 9;
const WAIT_ALL: u8 = 10;
const WAIT_ANY: u8 = 11;
const TEST: u8 = 12;
const PROBE: u8 = 13;
const MRECV: u8 = 14;
const DRAIN: u8 = 15;
const RETIRE: u8 = 16;
const COMPOUND: u8 = 17;
const BETWEEN: u8 = 18;
const WAIT_FREE: u8 = 19;
const FORGET: u8 = 20;
const SENDS: u8 = 21;
const RECVS: u8 = 22;

/// A [`Call::Sends`]: what they share, then their (len, dest, id) as runs.
fn sends(tag: i32, ctx: u32, mode: Mode, owned: bool, v: &[(u64, u32, u32)], out: &mut Vec<u8>) {
    out.push(SENDS);
    int(tag as i64, out);
    context(ctx, out);
    out.push(mode_byte(mode) | (owned as u8) << 4);
    runs(
        v.len(),
        |i| [v[i].0 as i64, v[i].1 as i64, v[i].2 as i64],
        out,
    );
}

/// A [`Call::Recvs`]: what they share, then their (len, src or -1, id) as
/// runs.
fn recvs(
    tag: Option<i32>,
    ctx: u32,
    owned: bool,
    v: &[(u64, Option<u32>, u32)],
    out: &mut Vec<u8>,
) {
    out.push(RECVS);
    opt_int(tag.map(i64::from), out);
    context(ctx, out);
    out.push(owned as u8);
    runs(
        v.len(),
        |i| [v[i].0 as i64, v[i].1.map_or(-1, i64::from), v[i].2 as i64],
        out,
    );
}

/// A [`Call::Forget`] of `v`.
fn forget(v: &[u32], out: &mut Vec<u8>) {
    out.push(FORGET);
    ids(v, out);
}

fn pair(v: (u32, u32), out: &mut Vec<u8>) {
    id(v.0, out);
    id(v.1, out);
}

fn xfer(x: XferDesc, out: &mut Vec<u8>) {
    out.push(match x.kind {
        XferKind::Send => 0,
        XferKind::Ssend => 1,
        XferKind::Recv => 2,
    });
    id(x.buf, out);
    uint(x.off, out);
    uint(x.len, out);
    id(x.peer, out);
}

fn compound(d: &CompoundDesc, out: &mut Vec<u8>) {
    uint(d.name.len() as u64, out);
    out.extend_from_slice(d.name.as_bytes());
    list(&d.ranks, out, id);
    list(&d.ctxs, out, pair);
    int(d.tag as i64, out);
    list(&d.bufs, out, uint);
    opt_uint(d.start_ps, out);
    uint(d.rounds.len() as u64, out);
    for r in &d.rounds {
        list(&r.xfers, out, xfer);
        id(r.locals, out);
    }
}

fn mode_byte(m: Mode) -> u8 {
    match m {
        Mode::Standard => 0,
        Mode::Synchronous => 1,
        Mode::Ready => 2,
        Mode::Buffered => 3,
    }
}

/// A CPU clock reading `cpu` written as its difference from `last`, the
/// one written before (which it becomes).
fn cpu_delta(cpu: u64, last: &mut u64, out: &mut Vec<u8>) {
    int(cpu.wrapping_sub(*last) as i64, out);
    *last = cpu;
}

/// Append call `c` to `out`; `cpu`: the CPU clock reading written last.
fn encode(c: &Call, cpu: &mut u64, out: &mut Vec<u8>) {
    match c {
        Call::Start { cpu: now, exact } => {
            out.push(START);
            cpu_delta(*now, cpu, out);
            out.push(*exact as u8);
        }
        Call::Enter { cpu: now } => {
            out.push(ENTER);
            cpu_delta(*now, cpu, out);
        }
        Call::Leave { cpu: now } => {
            out.push(LEAVE);
            cpu_delta(*now, cpu, out);
        }
        Call::Compute { ps } => {
            out.push(COMPUTE);
            uint(*ps, out);
        }
        Call::Send {
            len,
            dest,
            tag,
            ctx,
            mode,
            owned,
            id: r,
        } => {
            out.push(SEND);
            uint(*len, out);
            id(*dest, out);
            int(*tag as i64, out);
            context(*ctx, out);
            out.push(mode_byte(*mode) | (*owned as u8) << 4);
            id(*r, out);
        }
        Call::Recv {
            len,
            src,
            tag,
            ctx,
            owned,
            id: r,
        } => {
            out.push(RECV);
            uint(*len, out);
            opt_uint(src.map(u64::from), out);
            opt_int(tag.map(i64::from), out);
            context(*ctx, out);
            out.push(*owned as u8);
            id(*r, out);
        }
        Call::TakeVec { id: r } => {
            out.push(TAKE_VEC);
            id(*r, out);
        }
        Call::Free { id: r } => {
            out.push(FREE);
            id(*r, out);
        }
        Call::Detach { id: r } => {
            out.push(DETACH);
            id(*r, out);
        }
        Call::Cancel { id: r, cancelled } => {
            out.push(CANCEL);
            id(*r, out);
            out.push(*cancelled as u8);
        }
        Call::WaitAll { ids, seen: s } => {
            out.push(WAIT_ALL);
            self::ids(ids, out);
            seens(s, out);
        }
        Call::WaitAny { ids, done, seen: s } | Call::Test { ids, done, seen: s } => {
            out.push(if matches!(c, Call::Test { .. }) {
                TEST
            } else {
                WAIT_ANY
            });
            self::ids(ids, out);
            self::ids(done, out);
            seens(s, out);
        }
        Call::Probe {
            src,
            tag,
            ctx,
            blocking,
            found,
            matched,
        } => {
            out.push(PROBE);
            opt_uint(src.map(u64::from), out);
            opt_int(tag.map(i64::from), out);
            context(*ctx, out);
            out.push(*blocking as u8);
            match found {
                None => out.push(0),
                Some(f) => {
                    out.push(1);
                    seen(*f, out);
                }
            }
            opt_uint(*matched, out);
        }
        Call::Mrecv { m, len, id: r } => {
            out.push(MRECV);
            uint(*m, out);
            uint(*len, out);
            id(*r, out);
        }
        Call::Compound { desc, id: r } => {
            out.push(COMPOUND);
            compound(desc, out);
            id(*r, out);
        }
        Call::Between { leave, enter } => {
            out.push(BETWEEN);
            cpu_delta(*leave, cpu, out);
            cpu_delta(*enter, cpu, out);
        }
        Call::WaitFree { id: r, seen: s } => {
            out.push(WAIT_FREE);
            id(*r, out);
            seen(*s, out);
        }
        Call::Forget { ids } => forget(ids, out),
        Call::Sends {
            tag,
            ctx,
            mode,
            owned,
            items,
        } => sends(*tag, *ctx, *mode, *owned, items, out),
        Call::Recvs {
            tag,
            ctx,
            owned,
            items,
        } => recvs(*tag, *ctx, *owned, items, out),
        Call::Drain => out.push(DRAIN),
        Call::Retire => out.push(RETIRE),
    }
}

/// Bytes being decoded; every read is `None` past their end (the call is
/// not all here yet).
struct Cursor<'a> {
    b: &'a [u8],
}

impl Cursor<'_> {
    #[inline]
    fn byte(&mut self) -> Option<u8> {
        let (&x, rest) = self.b.split_first()?;
        self.b = rest;
        Some(x)
    }
    /// A varint (most are one byte: that case inline).
    #[inline]
    fn uint(&mut self) -> Option<u64> {
        let (&x, rest) = self.b.split_first()?;
        if x < 0x80 {
            self.b = rest;
            return Some(x as u64);
        }
        self.uint_long()
    }
    /// A varint of up to ten bytes (the tenth ends it whatever its top bit).
    fn uint_long(&mut self) -> Option<u64> {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let x = self.byte()?;
            v |= ((x & 0x7f) as u64) << shift;
            if x < 0x80 || shift == 63 {
                return Some(v);
            }
            shift += 7;
        }
    }
    #[inline]
    fn int(&mut self) -> Option<i64> {
        let u = self.uint()?;
        Some((u >> 1) as i64 ^ -((u & 1) as i64))
    }
    #[inline]
    fn u32(&mut self) -> Option<u32> {
        Some(self.uint()? as u32)
    }
    /// A context id ([`context`]).
    #[inline]
    fn ctx(&mut self) -> Option<u32> {
        Some(self.u32()?.rotate_right(1))
    }
    #[inline]
    fn i32(&mut self) -> Option<i32> {
        Some(self.int()? as i32)
    }
    #[inline]
    fn flag(&mut self) -> Option<bool> {
        Some(self.byte()? != 0)
    }
    fn opt<T>(&mut self, f: fn(&mut Self) -> Option<T>) -> Option<Option<T>> {
        Some(if self.flag()? { Some(f(self)?) } else { None })
    }
    fn seen(&mut self) -> Option<Seen> {
        Some((self.i32()?, self.i32()?))
    }
    fn pair(&mut self) -> Option<(u32, u32)> {
        Some((self.u32()?, self.u32()?))
    }
    fn xfer(&mut self) -> Option<XferDesc> {
        let kind = match self.byte()? {
            0 => XferKind::Send,
            1 => XferKind::Ssend,
            _ => XferKind::Recv,
        };
        Some(XferDesc {
            kind,
            buf: self.u32()?,
            off: self.uint()?,
            len: self.uint()?,
            peer: self.u32()?,
        })
    }
    fn round(&mut self) -> Option<RoundDesc> {
        Some(RoundDesc {
            xfers: self.list(Cursor::xfer)?,
            locals: self.u32()?,
        })
    }
    fn compound(&mut self) -> Option<CompoundDesc> {
        let n = self.uint()? as usize;
        if self.b.len() < n {
            return None;
        }
        let (name, rest) = self.b.split_at(n);
        self.b = rest;
        Some(CompoundDesc {
            name: String::from_utf8_lossy(name).into_owned(),
            ranks: self.list(Cursor::u32)?,
            ctxs: self.list(Cursor::pair)?,
            tag: self.i32()?,
            bufs: self.list(Cursor::uint)?,
            start_ps: self.opt(Cursor::uint)?,
            rounds: self.list(Cursor::round)?,
        })
    }
    /// A list as its length, then its items.
    fn list<T>(&mut self, f: fn(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        let n = self.uint()? as usize;
        // (a length beyond what is here is not trusted for the allocation)
        let mut v = Vec::with_capacity(n.min(self.b.len()));
        for _ in 0..n {
            v.push(f(self)?);
        }
        Some(v)
    }
    /// A list [`runs`] wrote, into `v` (emptied first; its allocation
    /// reused), each item made by `make` from its N integers.
    fn runs_into<T, const N: usize>(
        &mut self,
        mut v: Vec<T>,
        make: impl Fn([i64; N]) -> T,
    ) -> Option<Vec<T>> {
        let n = self.uint()? as usize;
        // (a run of many items takes a few bytes: a corrupt length could
        // ask for any memory; no wait is on that many requests)
        if n > MOST_LISTED {
            return None;
        }
        v.clear();
        // (a length beyond what is here is not trusted for the allocation)
        v.reserve(n.min(self.b.len()));
        let mut next = [0i64; N];
        while v.len() < n {
            let len = self.uint()? as usize;
            if len == 0 || len > n - v.len() {
                return None;
            }
            let mut x = [0i64; N];
            for k in 0..N {
                x[k] = next[k].wrapping_add(self.int()?);
            }
            let mut step = [0i64; N];
            if len > 1 {
                for s in step.iter_mut() {
                    *s = self.int()?;
                }
            }
            for _ in 0..len {
                v.push(make(x));
                for k in 0..N {
                    x[k] = x[k].wrapping_add(step[k]);
                }
            }
            next = x;
        }
        Some(v)
    }
    /// Ids [`ids`] wrote, into `v`.
    fn ids_into(&mut self, v: Vec<u32>) -> Option<Vec<u32>> {
        self.runs_into(v, |[x]| x as u32)
    }
    /// What receives saw, as [`seens`] wrote it, into `v`.
    fn seens_into(&mut self, v: Vec<Seen>) -> Option<Vec<Seen>> {
        self.runs_into(v, |[s, g]| (s as i32, g as i32))
    }
    /// A send's mode and whether the request owns its bytes (one byte).
    fn mode(&mut self) -> Option<(Mode, bool)> {
        let m = self.byte()?;
        let mode = match m & 0xf {
            0 => Mode::Standard,
            1 => Mode::Synchronous,
            2 => Mode::Ready,
            _ => Mode::Buffered,
        };
        Some((mode, m & 0x10 != 0))
    }
    /// A CPU clock reading written as its difference from `last`.
    fn cpu(&mut self, last: u64) -> Option<u64> {
        Some(last.wrapping_add(self.int()? as u64))
    }
}

/// Decode the next call in `c` into `out` (written only once the call is
/// whole): false if the bytes end before it does. `cpu`: the CPU clock
/// reading decoded last; the lists of waits and tests come from `spare`
/// (and those of the call `out` held go back there).
fn decode(c: &mut Cursor, cpu: u64, spare: &mut Spare, out: &mut Call) -> Result<bool, String> {
    let Some(kind) = c.byte() else {
        return Ok(false);
    };
    let call = match kind {
        START => (|| {
            Some(Call::Start {
                cpu: c.cpu(cpu)?,
                exact: c.flag()?,
            })
        })(),
        ENTER => c.cpu(cpu).map(|cpu| Call::Enter { cpu }),
        LEAVE => c.cpu(cpu).map(|cpu| Call::Leave { cpu }),
        COMPUTE => c.uint().map(|ps| Call::Compute { ps }),
        SEND => (|| {
            let (len, dest, tag, ctx) = (c.uint()?, c.u32()?, c.i32()?, c.ctx()?);
            let (mode, owned) = c.mode()?;
            Some(Call::Send {
                len,
                dest,
                tag,
                ctx,
                mode,
                owned,
                id: c.u32()?,
            })
        })(),
        SENDS => (|| {
            let (tag, ctx) = (c.i32()?, c.ctx()?);
            let (mode, owned) = c.mode()?;
            let items = c.runs_into(std::mem::take(&mut spare.sends), |[len, dest, id]| {
                (len as u64, dest as u32, id as u32)
            })?;
            Some(Call::Sends {
                tag,
                ctx,
                mode,
                owned,
                items,
            })
        })(),
        RECVS => (|| {
            let (tag, ctx, owned) = (c.opt(Cursor::i32)?, c.ctx()?, c.flag()?);
            let items = c.runs_into(std::mem::take(&mut spare.recvs), |[len, src, id]| {
                (len as u64, (src >= 0).then_some(src as u32), id as u32)
            })?;
            Some(Call::Recvs {
                tag,
                ctx,
                owned,
                items,
            })
        })(),
        RECV => (|| {
            Some(Call::Recv {
                len: c.uint()?,
                src: c.opt(Cursor::u32)?,
                tag: c.opt(Cursor::i32)?,
                ctx: c.ctx()?,
                owned: c.flag()?,
                id: c.u32()?,
            })
        })(),
        TAKE_VEC => c.u32().map(|id| Call::TakeVec { id }),
        FREE => c.u32().map(|id| Call::Free { id }),
        DETACH => c.u32().map(|id| Call::Detach { id }),
        CANCEL => (|| {
            Some(Call::Cancel {
                id: c.u32()?,
                cancelled: c.flag()?,
            })
        })(),
        WAIT_ALL => (|| {
            Some(Call::WaitAll {
                ids: c.ids_into(std::mem::take(&mut spare.ids))?,
                seen: c.seens_into(std::mem::take(&mut spare.seen))?,
            })
        })(),
        WAIT_ANY | TEST => (|| {
            let (ids, done, seen) = (
                c.ids_into(std::mem::take(&mut spare.ids))?,
                c.ids_into(std::mem::take(&mut spare.done))?,
                c.seens_into(std::mem::take(&mut spare.seen))?,
            );
            Some(if kind == TEST {
                Call::Test { ids, done, seen }
            } else {
                Call::WaitAny { ids, done, seen }
            })
        })(),
        PROBE => (|| {
            Some(Call::Probe {
                src: c.opt(Cursor::u32)?,
                tag: c.opt(Cursor::i32)?,
                ctx: c.ctx()?,
                blocking: c.flag()?,
                found: c.opt(Cursor::seen)?,
                matched: c.opt(Cursor::uint)?,
            })
        })(),
        MRECV => (|| {
            Some(Call::Mrecv {
                m: c.uint()?,
                len: c.uint()?,
                id: c.u32()?,
            })
        })(),
        COMPOUND => (|| {
            Some(Call::Compound {
                desc: Box::new(c.compound()?),
                id: c.u32()?,
            })
        })(),
        BETWEEN => (|| {
            let leave = c.cpu(cpu)?;
            Some(Call::Between {
                leave,
                enter: c.cpu(leave)?,
            })
        })(),
        WAIT_FREE => (|| {
            Some(Call::WaitFree {
                id: c.u32()?,
                seen: c.seen()?,
            })
        })(),
        FORGET => c
            .ids_into(std::mem::take(&mut spare.ids))
            .map(|ids| Call::Forget { ids }),
        DRAIN => Some(Call::Drain),
        RETIRE => Some(Call::Retire),
        k => return Err(format!("unknown call kind {k}")),
    };
    match call {
        Some(call) => {
            spare.keep(out);
            *out = call;
            Ok(true)
        }
        None => Ok(false),
    }
}

/// The log of rank `rank` in `dir`.
pub fn path(dir: &Path, rank: u32) -> std::path::PathBuf {
    dir.join(format!("{rank}.log"))
}

/// The measurement file of rank `rank` in `dir`: the CPU time of each local
/// step of its compound requests (a reduction inside a nonblocking
/// collective), keyed by (the compound's serial number, the measurement's
/// index in it). A replay may need one before the call log reaches the
/// place the run took it at (the step completes earlier under another
/// target), so they are kept apart and read whole first.
pub fn measures_path(dir: &Path, rank: u32) -> std::path::PathBuf {
    dir.join(format!("{rank}.measures"))
}

/// One measurement: (serial, index, ns).
pub fn encode_measure(serial: u64, k: u32, ns: u64, out: &mut Vec<u8>) {
    uint(serial, out);
    id(k, out);
    uint(ns, out);
}

/// Every measurement of a measurement file (none if it is not there).
pub fn read_measures(path: &Path) -> Result<std::collections::HashMap<(u64, u32), u64>, String> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let mut c = Cursor { b: &bytes };
    let mut out = std::collections::HashMap::new();
    while !c.b.is_empty() {
        let m = (|| Some(((c.uint()?, c.u32()?), c.uint()?)))()
            .ok_or_else(|| format!("corrupt measurement file {}", path.display()))?;
        out.insert(m.0, m.1);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lists as runs: ascending, descending, constant, scattered, extreme
    /// values, empty; their encoding is short when the items go in steps,
    /// and a run longer than the list is refused.
    #[test]
    fn lists_and_contexts_read_back_as_written() {
        let lists: Vec<Vec<u32>> = vec![
            vec![],
            vec![7],
            (0..510).collect(),
            (0..510).rev().collect(),
            vec![5; 9],
            vec![3, 9, 1, 4, 1, 5, 9, 2, 6],
            vec![0, u32::MAX, 0, u32::MAX, 1],
            (100..200).chain(0..50).chain((300..310).rev()).collect(),
        ];
        for v in &lists {
            let mut out = Vec::new();
            ids(v, &mut out);
            let mut c = Cursor { b: &out };
            assert_eq!(c.ids_into(vec![1, 2]).as_ref(), Some(v));
            assert!(c.b.is_empty());
        }
        let mut out = Vec::new();
        ids(&(0..510).collect::<Vec<u32>>(), &mut out);
        assert!(out.len() <= 6, "{} bytes", out.len());
        // an all-to-all's receives: from the next rank on, wrapping, one tag
        let seen: Vec<Seen> = (0..255)
            .map(|k| ((k + 8) % 256, 11))
            .chain([(-1, -1)])
            .collect();
        let mut out = Vec::new();
        seens(&seen, &mut out);
        assert!(out.len() <= 20, "{} bytes", out.len());
        let mut c = Cursor { b: &out };
        assert_eq!(c.seens_into(Vec::new()), Some(seen));
        let odd: Vec<Seen> = vec![(i32::MIN, i32::MAX), (i32::MAX, i32::MIN), (0, 0)];
        let mut out = Vec::new();
        seens(&odd, &mut out);
        assert_eq!(Cursor { b: &out }.seens_into(Vec::new()), Some(odd));
        // two items, then a run of three
        let mut bad = Vec::new();
        uint(2, &mut bad);
        uint(3, &mut bad);
        int(0, &mut bad);
        int(1, &mut bad);
        assert_eq!(Cursor { b: &bad }.ids_into(Vec::new()), None);
        // a collective context (top bit set) is one byte
        for v in [1 << 31, (1 << 31) | 5, 0, 7, u32::MAX] {
            let mut out = Vec::new();
            context(v, &mut out);
            assert!(out.len() == 1 || v == u32::MAX, "{v}: {} bytes", out.len());
            assert_eq!(Cursor { b: &out }.ctx(), Some(v));
        }
        // a list longer than any wait, in one run of a few bytes
        let mut bad = Vec::new();
        uint(1 << 40, &mut bad);
        uint(1 << 40, &mut bad);
        int(0, &mut bad);
        int(1, &mut bad);
        assert_eq!(Cursor { b: &bad }.ids_into(Vec::new()), None);
        // a run of none
        let mut bad = Vec::new();
        uint(1, &mut bad);
        uint(0, &mut bad);
        assert_eq!(Cursor { b: &bad }.ids_into(Vec::new()), None);
    }

    #[test]
    fn measurements_read_back_as_written() {
        let dir = std::env::temp_dir().join(format!("vaced-measures-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut r = Recorder::create(&path(&dir, 2)).unwrap();
        r.measure(0, 0, 1500);
        r.measure(3, 1, u64::MAX);
        r.measure(3, 0, 0);
        r.flush();
        let m = read_measures(&measures_path(&dir, 2)).unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(m[&(0, 0)], 1500);
        assert_eq!(m[&(3, 1)], u64::MAX);
        assert_eq!(m[&(3, 0)], 0);
        // none measured: no file, no measurements
        assert!(read_measures(&measures_path(&dir, 9)).unwrap().is_empty());
        std::fs::write(measures_path(&dir, 4), [0x80u8]).unwrap();
        assert!(read_measures(&measures_path(&dir, 4))
            .unwrap_err()
            .contains("corrupt"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `calls` recorded into a log at `p`, then read back.
    fn written_and_read(p: &Path, calls: &[Call]) -> Vec<Call> {
        let mut w = Recorder::create(p).unwrap();
        for c in calls {
            w.put(c);
        }
        w.flush();
        drop(w);
        let mut r = Reader::open(p).unwrap();
        let mut back = Vec::new();
        while let Some(c) = r.next_call().unwrap() {
            back.push(c);
        }
        back
    }

    #[test]
    fn pairs_are_written_as_one_call() {
        let dir = std::env::temp_dir().join(format!("vaced-record-pairs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = path(&dir, 0);
        let wait = |ids: Vec<u32>| Call::WaitAll {
            seen: ids.iter().map(|&i| (i as i32, -1)).collect(),
            ids,
        };
        let start = Call::Start {
            cpu: 100,
            exact: true,
        };
        // written and read as they are: no pair, or a pair broken by
        // another call or by another request
        let alone = vec![
            wait(vec![4]),
            Call::Free { id: 5 },
            Call::Leave { cpu: 200 },
            Call::Compute { ps: 7 },
            Call::Enter { cpu: 210 },
            wait(vec![1, 2]),
            Call::Free { id: 1 },
        ];
        let written = [
            vec![
                start.clone(),
                Call::Leave { cpu: 150 },
                Call::Enter { cpu: 90 },
                wait(vec![3]),
                Call::Free { id: 3 },
            ],
            alone.clone(),
            vec![
                Call::Leave { cpu: 300 },
                Call::Enter { cpu: u64::MAX },
                Call::Leave { cpu: 0 },
                wait(vec![6]),
            ],
            // frees and takes in a row; one alone; a wait and its take
            vec![
                Call::Free { id: 8 },
                Call::TakeVec { id: 9 },
                Call::Free { id: 10 },
                Call::Compute { ps: 1 },
                Call::TakeVec { id: 12 },
                Call::Compute { ps: 2 },
                wait(vec![11]),
                Call::TakeVec { id: 11 },
                Call::TakeVec { id: 13 },
                Call::Free { id: 14 },
            ],
        ]
        .concat();
        let read = [
            vec![
                start,
                Call::Between {
                    leave: 150,
                    enter: 90,
                },
                Call::WaitFree {
                    id: 3,
                    seen: (3, -1),
                },
            ],
            alone,
            vec![
                Call::Between {
                    leave: 300,
                    enter: u64::MAX,
                },
                Call::Leave { cpu: 0 },
                wait(vec![6]),
            ],
            vec![
                Call::Forget {
                    ids: vec![8, 9, 10],
                },
                Call::Compute { ps: 1 },
                Call::TakeVec { id: 12 },
                Call::Compute { ps: 2 },
                Call::WaitFree {
                    id: 11,
                    seen: (11, -1),
                },
                // held until the log is flushed
                Call::Forget { ids: vec![13, 14] },
            ],
        ]
        .concat();
        assert_eq!(written_and_read(&p, &written), read);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sends_and_receives_in_a_row_are_written_as_one_call() {
        let dir = std::env::temp_dir().join(format!("vaced-record-batch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = path(&dir, 0);
        let send = |len: u64, dest: u32, tag: i32, id: u32| Call::Send {
            len,
            dest,
            tag,
            ctx: 1 << 31,
            mode: Mode::Standard,
            owned: false,
            id,
        };
        let recv = |len: u64, src: Option<u32>, tag: Option<i32>, id: u32| Call::Recv {
            len,
            src,
            tag,
            ctx: 3,
            owned: true,
            id,
        };
        let ssend = Call::Send {
            len: 5,
            dest: 7,
            tag: 9,
            ctx: 1 << 31,
            mode: Mode::Synchronous,
            owned: false,
            id: 10,
        };
        let written = vec![
            recv(8, Some(1), Some(4), 0),
            recv(1 << 40, Some(2), Some(4), 1),
            recv(0, None, Some(4), 2),
            // another tag: a batch of its own, of one
            recv(8, Some(3), None, 3),
            send(5, 1, 4, 4),
            send(70_000, 2, 4, 5),
            send(5, 3, 4, 6),
            send(5, 4, 4, 7),
            // another tag; then a mode
            send(5, 5, 9, 8),
            send(5, 6, 9, 9),
            ssend.clone(),
            Call::Compute { ps: 3 },
            send(1, 0, -2, 11),
            send(2, 0, -2, 3),
        ];
        let read = vec![
            Call::Recvs {
                tag: Some(4),
                ctx: 3,
                owned: true,
                items: vec![(8, Some(1), 0), (1 << 40, Some(2), 1), (0, None, 2)],
            },
            recv(8, Some(3), None, 3),
            Call::Sends {
                tag: 4,
                ctx: 1 << 31,
                mode: Mode::Standard,
                owned: false,
                items: vec![(5, 1, 4), (70_000, 2, 5), (5, 3, 6), (5, 4, 7)],
            },
            Call::Sends {
                tag: 9,
                ctx: 1 << 31,
                mode: Mode::Standard,
                owned: false,
                items: vec![(5, 5, 8), (5, 6, 9)],
            },
            ssend.clone(),
            Call::Compute { ps: 3 },
            // held until the log is flushed
            Call::Sends {
                tag: -2,
                ctx: 1 << 31,
                mode: Mode::Standard,
                owned: false,
                items: vec![(1, 0, 11), (2, 0, 3)],
            },
        ];
        assert_eq!(written_and_read(&p, &written), read);
        // a batch as long as a record may hold, then one more
        let many: Vec<Call> = (0..MOST_BATCHED as u32 + 1)
            .map(|k| send(k as u64, k % 7, 0, k))
            .collect();
        let back = written_and_read(&p, &many);
        assert_eq!(back.len(), 2);
        assert!(matches!(&back[0], Call::Sends { items, .. } if items.len() == MOST_BATCHED));
        assert_eq!(back[1], many[MOST_BATCHED]);
        // and frees
        let many: Vec<Call> = (0..MOST_BATCHED as u32 + 1)
            .map(|id| Call::Free { id })
            .collect();
        let back = written_and_read(&p, &many);
        assert_eq!(back.len(), 2);
        assert!(matches!(&back[0], Call::Forget { ids } if ids.len() == MOST_BATCHED));
        assert_eq!(back[1], many[MOST_BATCHED]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn calls_read_back_as_written() {
        let dir = std::env::temp_dir().join(format!("vaced-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = path(&dir, 3);
        let calls = vec![
            Call::Start {
                cpu: 7,
                exact: true,
            },
            Call::Send {
                len: 1 << 20,
                dest: 1,
                tag: -5,
                ctx: 2,
                mode: Mode::Synchronous,
                owned: false,
                id: 4,
            },
            Call::Test {
                ids: vec![4, 9],
                done: vec![1],
                seen: vec![(-1, -1), (2, 7)],
            },
            Call::Probe {
                src: None,
                tag: Some(3),
                ctx: 0,
                blocking: false,
                found: None,
                matched: None,
            },
            Call::Compound {
                desc: Box::new(CompoundDesc {
                    name: "MPI_Iallreduce".into(),
                    ranks: vec![0, 5, 9],
                    ctxs: vec![(1 << 30, 1 << 30); 3],
                    tag: 64,
                    bufs: vec![8, 0, 1 << 40],
                    start_ps: Some(12),
                    rounds: vec![
                        RoundDesc {
                            xfers: vec![
                                XferDesc {
                                    kind: XferKind::Recv,
                                    buf: 1,
                                    off: 0,
                                    len: 8,
                                    peer: 2,
                                },
                                XferDesc {
                                    kind: XferKind::Ssend,
                                    buf: 0,
                                    off: 4,
                                    len: 4,
                                    peer: 1,
                                },
                            ],
                            locals: 2,
                        },
                        RoundDesc::default(),
                    ],
                }),
                id: 3,
            },
            Call::Retire,
        ];
        // and enough more to span several reads, with extreme values
        let mut calls = calls;
        for k in 0..20_000u64 {
            calls.push(match k % 5 {
                0 => Call::Enter { cpu: u64::MAX - k },
                1 => Call::Recv {
                    len: k << 20,
                    src: (k % 2 == 0).then_some(k as u32),
                    tag: (k % 3 == 0).then_some(i32::MIN + k as i32),
                    ctx: u32::MAX,
                    owned: k % 2 == 1,
                    id: k as u32,
                },
                2 => Call::WaitAny {
                    ids: (0..(k % 7) as u32).collect(),
                    done: vec![k as u32 % 3],
                    seen: vec![(i32::MAX, -1); (k % 4) as usize],
                },
                3 => Call::Probe {
                    src: None,
                    tag: Some(-(k as i32)),
                    ctx: 7,
                    blocking: true,
                    found: Some((3, i32::MIN)),
                    matched: Some(u64::MAX),
                },
                _ => Call::Mrecv {
                    m: k,
                    len: 0,
                    id: 1,
                },
            });
        }
        calls.push(Call::Retire);
        assert_eq!(written_and_read(&p, &calls), calls);
        std::fs::write(&p, [99u8, 1, 2]).unwrap();
        let e = Reader::open(&p).unwrap().next_call().unwrap_err();
        assert!(e.contains("unknown call kind 99"), "{e}");
        std::fs::write(&p, [SEND, 0x80]).unwrap();
        let e = Reader::open(&p).unwrap().next_call().unwrap_err();
        assert!(e.contains("ends inside a call"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
