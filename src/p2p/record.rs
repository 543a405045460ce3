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
//! buffered, and leaves the page cache as it goes (`transport::streamfile`):
//! its memory does not grow with the run.
//!
//! The format is this module's own, made for a log that a replay reads a
//! few hundred thousand calls a second of: a call is its kind (one byte),
//! then its fields in order, integers as LEB128 varints (signed ones
//! zigzagged), an option as 0 or 1 then its value, a list as its length then
//! its items. A generic serializer (bincode was the first) spent a third of
//! a replay's time decoding.
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
    /// MPI_Finalize: background sends settled.
    Drain,
    /// MPI_Finalize: the rank is done.
    Retire,
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

/// Writes one rank's log.
pub struct Recorder {
    out: StreamFile,
    buf: Vec<u8>,
    path: String,
}

/// Bytes buffered before a write.
const CHUNK: usize = 64 * 1024;

impl Recorder {
    pub fn create(path: &Path) -> Result<Recorder, String> {
        let out = StreamFile::create(path)
            .map_err(|e| format!("cannot create the call log {}: {e}", path.display()))?;
        Ok(Recorder {
            out,
            buf: Vec::with_capacity(CHUNK + 256),
            path: path.display().to_string(),
        })
    }

    pub fn put(&mut self, c: &Call) {
        encode(c, &mut self.buf);
        if self.buf.len() >= CHUNK {
            self.flush();
        }
    }

    /// Write out what is buffered (at MPI_Finalize).
    pub fn flush(&mut self) {
        if let Err(e) = self.out.write_all(&self.buf) {
            panic!("vaced: cannot write the call log {}: {e}", self.path);
        }
        self.buf.clear();
    }
}

/// Reads one rank's log back, call by call.
pub struct Reader {
    inp: File,
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    path: String,
}

impl Reader {
    pub fn open(path: &Path) -> Result<Reader, String> {
        let inp = File::open(path)
            .map_err(|e| format!("cannot open the call log {}: {e}", path.display()))?;
        Ok(Reader {
            inp,
            buf: Vec::new(),
            pos: 0,
            eof: false,
            path: path.display().to_string(),
        })
    }

    /// The next call; `None` at the end of the log.
    pub fn next_call(&mut self) -> Result<Option<Call>, String> {
        loop {
            let mut cur = Cursor {
                b: &self.buf[self.pos..],
            };
            let before = cur.b.len();
            if before > 0 {
                if let Some(c) = decode(&mut cur).transpose() {
                    let c = c.map_err(|e| format!("corrupt call log {}: {e}", self.path))?;
                    self.pos += before - cur.b.len();
                    return Ok(Some(c));
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
            let have = self.buf.len();
            self.buf.resize(have + CHUNK, 0);
            let n = self
                .inp
                .read(&mut self.buf[have..])
                .map_err(|e| format!("cannot read the call log {}: {e}", self.path))?;
            self.buf.truncate(have + n);
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

fn mode_byte(m: Mode) -> u8 {
    match m {
        Mode::Standard => 0,
        Mode::Synchronous => 1,
        Mode::Ready => 2,
        Mode::Buffered => 3,
    }
}

/// Append call `c` to `out`.
pub fn encode(c: &Call, out: &mut Vec<u8>) {
    match c {
        Call::Start { cpu, exact } => {
            out.push(START);
            uint(*cpu, out);
            out.push(*exact as u8);
        }
        Call::Enter { cpu } => {
            out.push(ENTER);
            uint(*cpu, out);
        }
        Call::Leave { cpu } => {
            out.push(LEAVE);
            uint(*cpu, out);
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
            id(*ctx, out);
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
            id(*ctx, out);
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
            list(ids, out, id);
            list(s, out, seen);
        }
        Call::WaitAny { ids, done, seen: s } | Call::Test { ids, done, seen: s } => {
            out.push(if matches!(c, Call::Test { .. }) {
                TEST
            } else {
                WAIT_ANY
            });
            list(ids, out, id);
            list(done, out, id);
            list(s, out, seen);
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
            id(*ctx, out);
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
    fn byte(&mut self) -> Option<u8> {
        let (&x, rest) = self.b.split_first()?;
        self.b = rest;
        Some(x)
    }
    fn uint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let x = self.byte()?;
            v |= ((x & 0x7f) as u64) << shift;
            if x < 0x80 {
                return Some(v);
            }
        }
        Some(v)
    }
    fn int(&mut self) -> Option<i64> {
        let u = self.uint()?;
        Some((u >> 1) as i64 ^ -((u & 1) as i64))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(self.uint()? as u32)
    }
    fn i32(&mut self) -> Option<i32> {
        Some(self.int()? as i32)
    }
    fn flag(&mut self) -> Option<bool> {
        Some(self.byte()? != 0)
    }
    fn opt<T>(&mut self, f: fn(&mut Self) -> Option<T>) -> Option<Option<T>> {
        Some(if self.flag()? { Some(f(self)?) } else { None })
    }
    fn seen(&mut self) -> Option<Seen> {
        Some((self.i32()?, self.i32()?))
    }
    fn list<T>(&mut self, f: fn(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        let n = self.uint()? as usize;
        // (a length beyond what is here is not trusted for the allocation)
        let mut v = Vec::with_capacity(n.min(self.b.len()));
        for _ in 0..n {
            v.push(f(self)?);
        }
        Some(v)
    }
}

/// The next call in `c`: `Ok(None)` when it is not all there.
fn decode(c: &mut Cursor) -> Result<Option<Call>, String> {
    let Some(kind) = c.byte() else {
        return Ok(None);
    };
    let call = match kind {
        START => (|| {
            Some(Call::Start {
                cpu: c.uint()?,
                exact: c.flag()?,
            })
        })(),
        ENTER => c.uint().map(|cpu| Call::Enter { cpu }),
        LEAVE => c.uint().map(|cpu| Call::Leave { cpu }),
        COMPUTE => c.uint().map(|ps| Call::Compute { ps }),
        SEND => (|| {
            let (len, dest, tag, ctx, m) = (c.uint()?, c.u32()?, c.i32()?, c.u32()?, c.byte()?);
            let mode = match m & 0xf {
                0 => Mode::Standard,
                1 => Mode::Synchronous,
                2 => Mode::Ready,
                _ => Mode::Buffered,
            };
            Some(Call::Send {
                len,
                dest,
                tag,
                ctx,
                mode,
                owned: m & 0x10 != 0,
                id: c.u32()?,
            })
        })(),
        RECV => (|| {
            Some(Call::Recv {
                len: c.uint()?,
                src: c.opt(Cursor::u32)?,
                tag: c.opt(Cursor::i32)?,
                ctx: c.u32()?,
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
                ids: c.list(Cursor::u32)?,
                seen: c.list(Cursor::seen)?,
            })
        })(),
        WAIT_ANY | TEST => (|| {
            let (ids, done, seen) = (
                c.list(Cursor::u32)?,
                c.list(Cursor::u32)?,
                c.list(Cursor::seen)?,
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
                ctx: c.u32()?,
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
        DRAIN => Some(Call::Drain),
        RETIRE => Some(Call::Retire),
        k => return Err(format!("unknown call kind {k}")),
    };
    Ok(call)
}

/// The log of rank `rank` in `dir`.
pub fn path(dir: &Path, rank: u32) -> std::path::PathBuf {
    dir.join(format!("{rank}.log"))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut w = Recorder::create(&p).unwrap();
        for c in &calls {
            w.put(c);
        }
        w.flush();
        drop(w);
        let mut r = Reader::open(&p).unwrap();
        let mut back = Vec::new();
        while let Some(c) = r.next_call().unwrap() {
            back.push(c);
        }
        assert_eq!(back, calls);
        std::fs::write(&p, [99u8, 1, 2]).unwrap();
        let e = Reader::open(&p).unwrap().next_call().unwrap_err();
        assert!(e.contains("unknown call kind 99"), "{e}");
        std::fs::write(&p, [SEND, 0x80]).unwrap();
        let e = Reader::open(&p).unwrap().next_call().unwrap_err();
        assert!(e.contains("ends inside a call"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
