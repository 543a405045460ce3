//! Timelines (`mpirun --timeline FILE`): the predicted execution, in virtual
//! time, as a Chrome / Perfetto trace-event JSON file or a Paraver trace.
//!
//! Two halves:
//! * in each rank, a [`recorder::Recorder`] streams the rank's events to its
//!   own file (`$VACED_TIMELINE_DIR/rank-<r>.tl`, a buffered writer, one
//!   line per event: [`record`]) as the rank runs, so memory stays bounded
//!   whatever the run's length or number of ranks. The hooks below are
//!   called by the library (abi: MPI calls; p2p: messages and receives);
//!   with no timeline they cost one relaxed atomic load and a branch. The
//!   recorder is the rank's (`crate::ranks`: a host of many ranks has one
//!   per rank);
//! * at the end of a job that completed, `mpirun` merges the rank files into
//!   the output ([`write`]): [`perfetto`] streams them into one JSON file,
//!   [`paraver`] sorts their records by time (an external merge sort, in
//!   bounded memory) into `.prv`, with `.pcf` and `.row`.
//!
//! What a rank records (all times virtual, integer picoseconds):
//! * computation bursts: from the end of an MPI call to the start of the
//!   next (computation measured and scaled, and `MPIX_Vaced_compute`, which
//!   is computation, not an MPI call); empty bursts are left out;
//! * MPI calls, from entry (after the computation before it is charged) to
//!   exit: name; communicator (its context id; MPI_COMM_WORLD for calls that
//!   name none); the bytes of the point-to-point operations the call started
//!   (sends) or completed (receives), including those a collective is made
//!   of; the partner (a world rank) and tag when all of them had one;
//! * protocol messages it sends: kind (eager DATA, rendezvous REQ / ACK /
//!   DATA, cancel request / answer, one-sided active message), destination
//!   (world rank), context id, tag, the bytes of the MPI message, the send
//!   time ts (when the sender starts sending it) and the arrival time ta at
//!   the receiver (DESIGN.md, Eq. 3-4).
//!
//! A job that fails (abort, deadlock, crash, timeout) writes no timeline.

pub mod paraver;
pub mod perfetto;
pub mod record;
pub mod recorder;

use crate::engine::wire::Msg;
use crate::model::VTime;
use crate::p2p::Status;
use crate::ranks::local::RankLocal;
use parking_lot::Mutex;
use recorder::Recorder;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// The directory where ranks write their timeline files (set by mpirun).
pub const ENV_DIR: &str = "VACED_TIMELINE_DIR";

/// The output formats of `--timeline-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Chrome / Perfetto trace-event JSON (the default).
    Perfetto,
    /// Paraver: `.prv`, `.pcf` and `.row`.
    Paraver,
}

impl Format {
    /// `perfetto` or `paraver`.
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "perfetto" => Some(Format::Perfetto),
            "paraver" => Some(Format::Paraver),
            _ => None,
        }
    }
}

/// Some rank of this process opened a timeline (never cleared): without
/// one, the hooks stop at this process-wide flag.
static ANY: AtomicBool = AtomicBool::new(false);
/// The rank records a timeline.
static ON: RankLocal<AtomicBool> = RankLocal::new(|| AtomicBool::new(false));
static REC: RankLocal<Mutex<Option<Recorder>>> = RankLocal::new(|| parking_lot::const_mutex(None));

/// Whether this rank records a timeline.
#[inline]
pub fn on() -> bool {
    ANY.load(Ordering::Relaxed) && ON.get().load(Ordering::Relaxed)
}

#[cold]
fn with(f: impl FnOnce(&mut Recorder)) {
    if let Some(r) = REC.get().lock().as_mut() {
        f(r)
    }
}

/// Start recording rank `rank`'s timeline if mpirun asked for one
/// (`VACED_TIMELINE_DIR` set), at tV = 0 (the start event).
pub fn open_from_env(rank: u32) -> Result<(), String> {
    let Some(dir) = std::env::var_os(ENV_DIR) else {
        return Ok(());
    };
    let path = rank_file(Path::new(&dir), rank);
    let r = Recorder::create(&path, rank)
        .map_err(|e| format!("cannot create the timeline file {}: {e}", path.display()))?;
    *REC.get().lock() = Some(r);
    ON.get().store(true, Ordering::Relaxed);
    ANY.store(true, Ordering::Relaxed);
    Ok(())
}

/// The file of rank `rank` in directory `dir`.
pub fn rank_file(dir: &Path, rank: u32) -> PathBuf {
    dir.join(format!("rank-{rank}.tl"))
}

/// MPI call `name` entered at `t` on the communicator of context id `ctx()`.
#[inline]
pub fn enter(name: &str, ctx: impl FnOnce() -> Option<u32>, t: VTime) {
    if on() {
        let ctx = ctx();
        with(|r| r.enter(name, ctx, t))
    }
}

/// The MPI call in progress ends at `t`.
#[inline]
pub fn leave(t: VTime) {
    if on() {
        with(|r| r.leave(t))
    }
}

/// Protocol message `m` sent to `dest` at `ts` (it arrives at `m.ta`).
#[inline]
pub fn message(dest: u32, m: &Msg, ts: VTime) {
    if on() {
        with(|r| r.message(dest, m, ts))
    }
}

/// A flow of the contention model sent at `ts` (to us, `me`), resolved:
/// it arrives at `m.ta` (recorded here rather than by its sender, who did
/// not know its arrival).
#[inline]
pub fn flow_arrival(me: u32, m: &Msg, ts: VTime) {
    if on() {
        with(|r| r.flow_arrival(me, m, ts))
    }
}

/// A receive completed with status `st` (in the MPI call in progress).
#[inline]
pub fn received(st: &Status) {
    if on() && !st.cancelled {
        with(|r| r.received(st))
    }
}

/// The end event (MPI_Finalize publishing the rank's time `t`): close the
/// call in progress, flush and close the file.
#[inline]
pub fn finish(t: VTime) {
    if on() {
        ON.get().store(false, Ordering::Relaxed);
        if let Some(r) = REC.get().lock().take() {
            r.finish(t);
        }
    }
}

/// What the merged timeline says about the job.
#[derive(Debug, Clone)]
pub struct JobInfo {
    pub nranks: u32,
    /// The program, as given to mpirun.
    pub program: String,
    /// The target's name.
    pub target: String,
}

/// Merge the rank files in `dir` into `out` in `format` (mpirun, at the end
/// of a job that completed). Returns the files written.
pub fn write(
    dir: &Path,
    out: &Path,
    format: Format,
    job: &JobInfo,
) -> Result<Vec<PathBuf>, String> {
    match format {
        Format::Perfetto => perfetto::write(dir, out, job).map(|()| vec![out.to_path_buf()]),
        Format::Paraver => paraver::write(dir, out, job),
    }
}

/// The rank files' directory for output `out` of job `job_id`: next to the
/// output (on the disk the user chose for it).
pub fn parts_dir(out: &Path, job_id: &str) -> PathBuf {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "timeline".into());
    out.with_file_name(format!(".{name}.{job_id}.ranks"))
}
