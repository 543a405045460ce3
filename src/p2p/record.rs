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
//! in this run (the replay maps them to its own). The log streams to a file
//! (bincode, buffered): its memory does not grow with the run.
use super::SendMode;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;

/// Environment variable naming the directory the ranks write their logs to
/// (`<dir>/<rank>.log`).
pub const ENV_DIR: &str = "VACED_RECORD_DIR";

/// The (source, tag) a completed request's status gave the program.
pub type Seen = (i32, i32);

/// One call on the engine.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
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
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
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
    out: BufWriter<File>,
    path: String,
}

impl Recorder {
    pub fn create(path: &Path) -> Result<Recorder, String> {
        let f = File::create(path)
            .map_err(|e| format!("cannot create the call log {}: {e}", path.display()))?;
        Ok(Recorder {
            out: BufWriter::with_capacity(64 * 1024, f),
            path: path.display().to_string(),
        })
    }

    pub fn put(&mut self, c: &Call) {
        if let Err(e) = bincode::serialize_into(&mut self.out, c) {
            panic!("vaced: cannot write the call log {}: {e}", self.path);
        }
    }

    /// Write out what is buffered (at MPI_Finalize).
    pub fn flush(&mut self) {
        if let Err(e) = self.out.flush() {
            panic!("vaced: cannot write the call log {}: {e}", self.path);
        }
    }
}

/// Reads one rank's log back, call by call.
pub struct Reader {
    inp: BufReader<File>,
    path: String,
}

impl Reader {
    pub fn open(path: &Path) -> Result<Reader, String> {
        let f = File::open(path)
            .map_err(|e| format!("cannot open the call log {}: {e}", path.display()))?;
        Ok(Reader {
            inp: BufReader::with_capacity(16 * 1024, f),
            path: path.display().to_string(),
        })
    }

    /// The next call; `None` at the end of the log.
    pub fn next_call(&mut self) -> Result<Option<Call>, String> {
        match bincode::deserialize_from(&mut self.inp) {
            Ok(c) => Ok(Some(c)),
            Err(e) => match *e {
                bincode::ErrorKind::Io(ref io)
                    if io.kind() == std::io::ErrorKind::UnexpectedEof =>
                {
                    Ok(None)
                }
                _ => Err(format!("corrupt call log {}: {e}", self.path)),
            },
        }
    }
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
        std::fs::write(&p, [9u8, 9, 9, 9, 9]).unwrap();
        let e = Reader::open(&p).unwrap().next_call().unwrap_err();
        assert!(e.contains("corrupt call log"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
