//! The job's shared-memory segment: header, per-rank published slots, inboxes.
//!
//! Layout (every part 64-byte aligned, memory linear in the number of ranks):
//! `Header` (magic, version, sizes, core-token state), then `nranks` x
//! [`RankSlot`], then `nranks` x `InboxHdr`, then `nranks` rings of
//! `inbox_bytes` each, then `nranks` x `flow_slots` [`FlowEntry`] (the flow
//! registry, [`super::flows`]). Everything another process writes is an
//! atomic, or ring bytes copied through raw pointers under the inbox protocol.

use super::doorbell::Doorbell;
use super::flows::FlowEntry;
use super::inbox::{self, Inbox, InboxHdr};
use super::shm::{self, Mapping};
use super::tokens::TokenState;
use std::io;
use std::mem::size_of;
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;

/// Sizes fixed when the launcher creates the segment.
#[derive(Debug, Clone, Copy)]
pub struct SegmentConfig {
    pub nranks: u32,
    /// At most this many ranks run application code at once (core tokens).
    pub cores: u32,
    /// Bytes of each rank's inbox ring.
    pub inbox_bytes: u32,
    /// Entries each rank owns in the flow registry (0: contention is off).
    pub flow_slots: u32,
}

/// What a rank is doing, as published for the launcher and for conservative
/// decisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum RankState {
    Unstarted = 0,
    Running = 1,
    Blocked = 2,
    Finalized = 3,
    Aborted = 4,
}

impl RankState {
    fn from_u32(v: u32) -> RankState {
        match v {
            1 => RankState::Running,
            2 => RankState::Blocked,
            3 => RankState::Finalized,
            4 => RankState::Aborted,
            _ => RankState::Unstarted,
        }
    }
}

/// Figures a rank leaves in its slot at MPI_Finalize (all in ps or ns).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RankResult {
    pub vtime_ps: u64,
    pub compute_ps: u64,
    pub comm_ps: u64,
    pub wait_ps: u64,
    pub host_cpu_ns: u64,
    pub msgs_sent: u64,
    pub bytes_sent: u64,
    /// Conservative decisions taken.
    pub decisions: u64,
    /// Host time spent waiting for them (ns).
    pub decide_wait_ns: u64,
    /// Times the rank's process slept on the host (futex waits and
    /// deliberate delays): each gave its core away, and its next
    /// computation starts with cold caches.
    pub sleeps: u64,
}

/// Bytes of a rank's abort message buffer.
pub const ABORT_MESSAGE_BYTES: usize = 256;

/// A short text in shared memory (bytes as atomics, length published last).
#[repr(C)]
pub struct SlotText {
    len: AtomicU32,
    bytes: [AtomicU8; ABORT_MESSAGE_BYTES],
}

impl SlotText {
    /// Store `msg`, cut to [`ABORT_MESSAGE_BYTES`] at a character boundary.
    pub fn set(&self, msg: &str) {
        let mut n = msg.len().min(ABORT_MESSAGE_BYTES);
        while !msg.is_char_boundary(n) {
            n -= 1;
        }
        for (cell, b) in self.bytes.iter().zip(&msg.as_bytes()[..n]) {
            cell.store(*b, Ordering::Relaxed);
        }
        self.len.store(n as u32, Ordering::Release);
    }
    pub fn get(&self) -> String {
        let n = (self.len.load(Ordering::Acquire) as usize).min(ABORT_MESSAGE_BYTES);
        let bytes: Vec<u8> = self.bytes[..n]
            .iter()
            .map(|c| c.load(Ordering::Relaxed))
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// A rank's published slot in the segment (atomics only).
#[repr(C, align(64))]
pub struct RankSlot {
    pid: AtomicU32,
    state: AtomicU32,
    vtime: AtomicU64,
    aborted: AtomicU32,
    abort_code: AtomicI32,
    result: [AtomicU64; 10],
    abort_msg: SlotText,
    /// Arrival time + 1 of the earliest message in the rank's early queue
    /// (0: none), published before it goes idle.
    early_min: AtomicU64,
    /// What the rank is blocked on, published before it goes idle.
    waiting_on: SlotText,
    /// Virtual time + 1 of the decision the rank waits to take (0: none).
    deciding_at: AtomicU64,
    /// The rank's own lower bound on the send time of anything it may still
    /// send, as a word the p2p layer encodes (0 = time 0, the bound of a
    /// rank that has not started; written by the rank only).
    lower_bound: AtomicU64,
    /// Bumped (then the doorbell rung) when another rank's lower bound rose
    /// past the decision this rank waits to take.
    poke: AtomicU32,
    /// Virtual time + 1 of the earliest flow window this rank waits to see
    /// closed (0: none), see `p2p::flows`.
    resolving_at: AtomicU64,
    /// How many of its flow registry entries the rank ever used (readers
    /// look at those only).
    flow_used: AtomicU32,
    /// The fatal signal the rank received (0: none), recorded by its own
    /// handler (`transport::fatal`) for a launcher that is not its parent.
    signal: AtomicU32,
    /// The rank's doorbell (its own cache line).
    pub(super) bell: Doorbell,
    /// Next and previous rank + 1 in the core-token queue (0 = end).
    pub(super) tok_next: AtomicU32,
    pub(super) tok_prev: AtomicU32,
    /// 1 while the rank is on the core-token queue.
    pub(super) tok_queued: AtomicU32,
    /// Set when a token was handed to this rank while it queued.
    pub(super) tok_granted: AtomicU32,
    /// Id of the core token the rank holds or was last given (u32::MAX:
    /// tokens are not pinned).
    pub(super) tok_id: AtomicU32,
    /// CPU + 1 the rank is pinned to (0: not pinned by us).
    pub(super) pinned_cpu: AtomicU32,
    /// Next rank + 1 in the space-waiter queue of the inbox it waits on.
    pub(super) space_next: AtomicU32,
    /// Whether this rank is on some inbox's space-waiter queue (changed only
    /// under that inbox's lock).
    pub(super) space_waiting: AtomicU32,
    /// Ring bytes the waiting send needs.
    pub(super) space_need: AtomicU64,
    /// Non-zero while the rank sleeps for a record or a poke having given
    /// its core token back (parked, see `tokens::park`): whoever gives it a
    /// reason to wake first claims it (1 -> 2) and queues it for a token
    /// instead of waking it, so that it wakes once, token in hand, on the
    /// CPU of whoever hands the token over; later reasons need nothing.
    pub(super) parked: AtomicU32,
    /// Many-ranks mode (see `hosting`): the first rank + 1 of the host
    /// process that runs this rank (0: the rank is a process of its own).
    pub(super) host: AtomicU32,
    /// Whether the rank is on its host's ready stack, and the next rank + 1
    /// there (0 = end).
    pub(super) rq_queued: AtomicU32,
    pub(super) rq_next: AtomicU32,
    /// In the slot of a host's first rank: the host's ready stack (top
    /// rank + 1, 0 = empty; also the futex word the host sleeps on, see
    /// `hosting`), and the rank it runs now + 1 (0: none).
    pub(super) rq_head: AtomicU32,
    pub(super) host_current: AtomicU32,
}

impl RankSlot {
    /// The first rank of the host process that runs this rank, in the
    /// many-ranks mode.
    pub fn host(&self) -> Option<u32> {
        self.host.load(Ordering::Acquire).checked_sub(1)
    }
    /// In a host's first slot: the rank the host runs now, if any.
    pub fn host_current(&self) -> Option<u32> {
        self.host_current.load(Ordering::Acquire).checked_sub(1)
    }
    pub fn set_pid(&self, pid: u32) {
        self.pid.store(pid, Ordering::Release);
    }
    pub fn pid(&self) -> u32 {
        self.pid.load(Ordering::Acquire)
    }
    /// The fatal signal the rank recorded receiving, if any.
    pub fn signal(&self) -> Option<i32> {
        match self.signal.load(Ordering::Acquire) {
            0 => None,
            s => Some(s as i32),
        }
    }
    /// Record the fatal signal the rank died of (a launcher copying what
    /// another host's segment holds).
    pub fn set_signal(&self, sig: i32) {
        self.signal.store(sig as u32, Ordering::Release);
    }
    pub(super) fn signal_word(&self) -> &AtomicU32 {
        &self.signal
    }
    /// Publish the state (Release: whatever was stored before, e.g. the
    /// result, is visible to whoever reads this state).
    pub fn set_state(&self, s: RankState) {
        self.state.store(s as u32, Ordering::Release);
    }
    pub fn state(&self) -> RankState {
        RankState::from_u32(self.state.load(Ordering::Acquire))
    }
    pub fn publish_vtime(&self, ps: u64) {
        self.vtime.store(ps, Ordering::Release);
    }
    pub fn vtime(&self) -> u64 {
        self.vtime.load(Ordering::Acquire)
    }
    /// Record that the rank called MPI_Abort (or a fatal MPI error) with
    /// `code`; the state becomes [`RankState::Aborted`].
    pub fn set_abort(&self, code: i32) {
        self.abort_code.store(code, Ordering::Relaxed);
        self.aborted.store(1, Ordering::Release);
        self.set_state(RankState::Aborted);
    }
    pub fn abort_code(&self) -> Option<i32> {
        (self.aborted.load(Ordering::Acquire) != 0).then(|| self.abort_code.load(Ordering::Relaxed))
    }
    /// Say which call failed (kept to [`ABORT_MESSAGE_BYTES`] bytes, cut at a
    /// character boundary). Call before `set_abort`.
    pub fn set_abort_message(&self, msg: &str) {
        self.abort_msg.set(msg)
    }
    pub fn abort_message(&self) -> String {
        self.abort_msg.get()
    }
    /// Publish the arrival time (ps) of the earliest early-queued message.
    pub fn set_early_min(&self, ta_ps: Option<u64>) {
        self.early_min
            .store(ta_ps.map_or(0, |t| t.saturating_add(1)), Ordering::Release);
    }
    pub fn early_min(&self) -> Option<u64> {
        self.early_min.load(Ordering::Acquire).checked_sub(1)
    }
    /// Publish the virtual time of a decision we wait to take (None: none).
    pub fn set_deciding_at(&self, t_ps: Option<u64>) {
        self.deciding_at
            .store(t_ps.map_or(0, |t| t.saturating_add(1)), Ordering::SeqCst);
    }
    pub fn deciding_at(&self) -> Option<u64> {
        self.deciding_at.load(Ordering::SeqCst).checked_sub(1)
    }
    /// The rank's published lower bound word (see `p2p::decide`).
    pub fn lower_bound(&self) -> u64 {
        self.lower_bound.load(Ordering::SeqCst)
    }
    pub(super) fn store_lower_bound(&self, w: u64) {
        self.lower_bound.store(w, Ordering::SeqCst)
    }
    /// Publish the flow window end we wait for (None: none).
    pub fn set_resolving_at(&self, t_ps: Option<u64>) {
        self.resolving_at
            .store(t_ps.map_or(0, |t| t.saturating_add(1)), Ordering::SeqCst);
    }
    pub fn resolving_at(&self) -> Option<u64> {
        self.resolving_at.load(Ordering::SeqCst).checked_sub(1)
    }
    /// Entries of the flow registry the rank ever used.
    pub fn flow_used(&self) -> u32 {
        self.flow_used.load(Ordering::SeqCst)
    }
    pub fn set_flow_used(&self, n: u32) {
        self.flow_used.store(n, Ordering::SeqCst)
    }
    /// How many times the rank was poked.
    pub fn pokes(&self) -> u32 {
        self.poke.load(Ordering::SeqCst)
    }
    /// Count that a bound the rank waits on rose (the caller then wakes
    /// it, [`super::Port::poke`]).
    pub(super) fn add_poke(&self) {
        self.poke.fetch_add(1, Ordering::SeqCst);
    }
    /// Publish what the rank waits for (for deadlock reports).
    pub fn set_waiting_on(&self, what: &str) {
        self.waiting_on.set(what)
    }
    pub fn waiting_on(&self) -> String {
        self.waiting_on.get()
    }
    /// Store the final figures; publish them with `set_state(Finalized)`.
    pub fn store_result(&self, r: &RankResult) {
        let v = [
            r.vtime_ps,
            r.compute_ps,
            r.comm_ps,
            r.wait_ps,
            r.host_cpu_ns,
            r.msgs_sent,
            r.bytes_sent,
            r.decisions,
            r.decide_wait_ns,
            r.sleeps,
        ];
        for (cell, x) in self.result.iter().zip(v) {
            cell.store(x, Ordering::Relaxed);
        }
    }
    /// The figures stored by `store_result` (read after seeing `Finalized`).
    pub fn result(&self) -> RankResult {
        let g = |i: usize| self.result[i].load(Ordering::Relaxed);
        RankResult {
            vtime_ps: g(0),
            compute_ps: g(1),
            comm_ps: g(2),
            wait_ps: g(3),
            host_cpu_ns: g(4),
            msgs_sent: g(5),
            bytes_sent: g(6),
            decisions: g(7),
            decide_wait_ns: g(8),
            sleeps: g(9),
        }
    }
}

const MAGIC: u64 = u64::from_le_bytes(*b"VACEDSEG");
const VERSION: u32 = 10;
/// Smallest accepted inbox.
pub const MIN_INBOX_BYTES: u32 = 256;
/// Largest accepted inbox.
pub const MAX_INBOX_BYTES: u32 = 1 << 30;
/// Most ranks a segment holds.
pub const MAX_RANKS: u32 = 1 << 20;

#[repr(C, align(64))]
struct Header {
    magic: AtomicU64,
    version: AtomicU32,
    nranks: AtomicU32,
    cores: AtomicU32,
    inbox_bytes: AtomicU32,
    flow_slots: AtomicU32,
    total_bytes: AtomicU64,
    tokens: TokenState,
    /// (ranks idle << 32) | records in flight: idle ranks sleep in a wait (or
    /// have finalized); records are sent but not yet received. One word, so
    /// a single atomic operation sees a consistent snapshot of both.
    activity: AtomicU64,
    /// Bumped each time a rank stops being idle (after it leaves the idle
    /// count): a rank that saw the job quiescent and sees this unchanged
    /// after reading what the ranks published read it while nobody could
    /// change it (see [`super::Port::quiet`]).
    idle_ends: AtomicU64,
    /// Bumped after every store that lowers a published bound (a noted
    /// arrival) and before every store that raises one: a reader that sees
    /// it unchanged across a scan of the slots saw a consistent snapshot.
    generation: AtomicU64,
    /// Ranks waiting to take a conservative decision.
    deciders: AtomicU32,
    /// 1: the many-ranks mode's host processes share the core tokens (more
    /// of them than cores); the token fields of a host's first rank are
    /// then the host's (see `tokens`).
    hosts_share_tokens: AtomicU32,
    /// 1: a bridge serves this segment (the job spans several hosts, see
    /// `remote`); it sleeps on `bridge_bell`, rung whenever it may have
    /// something to forward or report.
    bridge: AtomicU32,
    bridge_bell: Doorbell,
}

/// Byte offsets of the parts of a segment.
#[derive(Debug, Clone, Copy)]
struct Layout {
    slots: usize,
    inbox_hdrs: usize,
    rings: usize,
    ring_stride: usize,
    flows: usize,
    total: usize,
}

impl Layout {
    fn new(nranks: u32, inbox_bytes: u32, flow_slots: u32) -> Option<Layout> {
        let n = nranks as usize;
        let slots = size_of::<Header>();
        let inbox_hdrs = slots.checked_add(n.checked_mul(size_of::<RankSlot>())?)?;
        let rings = inbox_hdrs.checked_add(n.checked_mul(size_of::<InboxHdr>())?)?;
        let ring_stride = (inbox_bytes as usize).next_multiple_of(64);
        let flows = rings.checked_add(n.checked_mul(ring_stride)?)?;
        let entries = n.checked_mul(flow_slots as usize)?;
        let total = flows.checked_add(entries.checked_mul(size_of::<FlowEntry>())?)?;
        Some(Layout {
            slots,
            inbox_hdrs,
            rings,
            ring_stride,
            flows,
            total,
        })
    }
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

fn check_config(name: &str, cfg: &SegmentConfig) -> io::Result<()> {
    if cfg.nranks == 0 || cfg.nranks > MAX_RANKS {
        return Err(invalid(format!(
            "segment {name}: nranks = {} (want 1..={MAX_RANKS})",
            cfg.nranks
        )));
    }
    if cfg.cores == 0 {
        return Err(invalid(format!(
            "segment {name}: cores = 0 (want at least 1)"
        )));
    }
    if !(MIN_INBOX_BYTES..=MAX_INBOX_BYTES).contains(&cfg.inbox_bytes)
        || !cfg.inbox_bytes.is_multiple_of(8)
    {
        return Err(invalid(format!(
            "segment {name}: inbox_bytes = {} (want a multiple of 8 in {MIN_INBOX_BYTES}..={MAX_INBOX_BYTES})",
            cfg.inbox_bytes
        )));
    }
    Ok(())
}

/// The segments this process has mapped, by the shared-memory object's
/// identity (device, inode). The ranks of a host process (the many-ranks
/// mode) each attach to the job's segment: they share one mapping instead
/// of mapping the whole segment once each, which would fault every page
/// they touch in once per rank and hold one page table per rank. Weak: a
/// segment no one uses any more is unmapped as before.
static ATTACHED: parking_lot::Mutex<Vec<Attached>> = parking_lot::const_mutex(Vec::new());

/// An entry of [`ATTACHED`]: the object's (device, inode) and its mapping.
type Attached = ((u64, u64), std::sync::Weak<Mapping>);

/// The live mapping of the object `id` in this process, or a new one by
/// `map`.
fn shared_mapping(
    id: (u64, u64),
    map: impl FnOnce() -> io::Result<Mapping>,
) -> io::Result<Arc<Mapping>> {
    let mut attached = ATTACHED.lock();
    attached.retain(|(_, w)| w.strong_count() > 0);
    if let Some(m) = attached
        .iter()
        .find(|(i, _)| *i == id)
        .and_then(|(_, w)| w.upgrade())
    {
        return Ok(m);
    }
    let m = Arc::new(map()?);
    attached.push((id, Arc::downgrade(&m)));
    Ok(m)
}

/// The mapped segment. Clones share the one mapping (another thread of
/// the rank may hold a clone to wake the rank, see `transport::threads`).
#[derive(Clone)]
pub struct Segment {
    map: Arc<Mapping>,
    name: String,
    nranks: u32,
    cores: u32,
    inbox_bytes: u32,
    flow_slots: u32,
    layout: Layout,
}

impl Segment {
    /// Create the segment `name` ("/vaced-<job>"); fails if it exists.
    pub fn create(name: &str, cfg: &SegmentConfig) -> io::Result<Segment> {
        check_config(name, cfg)?;
        let layout = Layout::new(cfg.nranks, cfg.inbox_bytes, cfg.flow_slots)
            .ok_or_else(|| invalid(format!("segment {name}: size overflows")))?;
        let fd = shm::open(name, libc::O_RDWR | libc::O_CREAT | libc::O_EXCL)?;
        let seg = (|| {
            shm::allocate(&fd, name, layout.total as u64)?;
            let map = Arc::new(Mapping::new(&fd, name, layout.total)?);
            Ok::<_, io::Error>(Segment {
                map,
                name: name.to_string(),
                nranks: cfg.nranks,
                cores: cfg.cores,
                inbox_bytes: cfg.inbox_bytes,
                flow_slots: cfg.flow_slots,
                layout,
            })
        })();
        let seg = match seg {
            Ok(s) => s,
            Err(e) => {
                let _ = shm::unlink(name);
                return Err(e);
            }
        };
        // The object is zero-filled: every counter, list head (0 = none) and
        // index starts at zero. Fill in the header, magic last.
        let h = seg.header();
        h.version.store(VERSION, Ordering::Relaxed);
        h.nranks.store(cfg.nranks, Ordering::Relaxed);
        h.cores.store(cfg.cores, Ordering::Relaxed);
        h.inbox_bytes.store(cfg.inbox_bytes, Ordering::Relaxed);
        h.flow_slots.store(cfg.flow_slots, Ordering::Relaxed);
        h.total_bytes.store(layout.total as u64, Ordering::Relaxed);
        h.tokens.init(cfg.cores);
        h.magic.store(MAGIC, Ordering::Release);
        Ok(seg)
    }

    /// Map the existing segment `name` and check its header.
    pub fn attach(name: &str) -> io::Result<Segment> {
        let fd = shm::open(name, libc::O_RDWR)?;
        let (id, size) = shm::identity(&fd, name)?;
        let bad = |what: String| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("segment {name}: {what}"),
            )
        };
        if size < size_of::<Header>() as u64 {
            return Err(bad(format!("only {size} bytes, not a vaced segment")));
        }
        let size = usize::try_from(size).map_err(|_| bad(format!("{size} bytes is too big")))?;
        let map = shared_mapping(id, || Mapping::new(&fd, name, size))?;
        // SAFETY: the mapping is at least one page-aligned `Header` long and
        // `Header` is atomics only (valid for any bytes).
        let h = unsafe { &*(map.ptr() as *const Header) };
        if h.magic.load(Ordering::Acquire) != MAGIC {
            return Err(bad("bad magic, not a vaced segment".into()));
        }
        let version = h.version.load(Ordering::Relaxed);
        if version != VERSION {
            return Err(bad(format!(
                "version {version}, this library speaks {VERSION}"
            )));
        }
        let cfg = SegmentConfig {
            nranks: h.nranks.load(Ordering::Relaxed),
            cores: h.cores.load(Ordering::Relaxed),
            inbox_bytes: h.inbox_bytes.load(Ordering::Relaxed),
            flow_slots: h.flow_slots.load(Ordering::Relaxed),
        };
        check_config(name, &cfg).map_err(|e| bad(e.to_string()))?;
        let layout = Layout::new(cfg.nranks, cfg.inbox_bytes, cfg.flow_slots)
            .ok_or_else(|| bad("size overflows".into()))?;
        if layout.total != size || h.total_bytes.load(Ordering::Relaxed) != size as u64 {
            return Err(bad(format!(
                "{size} bytes, but its header implies {}",
                layout.total
            )));
        }
        Ok(Segment {
            map,
            name: name.to_string(),
            nranks: cfg.nranks,
            cores: cfg.cores,
            inbox_bytes: cfg.inbox_bytes,
            flow_slots: cfg.flow_slots,
            layout,
        })
    }

    /// Remove the segment's name (mappings stay valid until dropped).
    pub fn unlink(name: &str) -> io::Result<()> {
        shm::unlink(name)
    }

    pub fn name(&self) -> &str {
        &self.name
    }
    /// The job part of the name ("/vaced-<job>" gives "<job>").
    pub fn job(&self) -> &str {
        let n = self.name.trim_start_matches('/');
        n.strip_prefix("vaced-").unwrap_or(n)
    }
    pub fn nranks(&self) -> u32 {
        self.nranks
    }
    pub fn cores(&self) -> u32 {
        self.cores
    }
    pub fn inbox_bytes(&self) -> u32 {
        self.inbox_bytes
    }
    /// Total bytes of the segment.
    pub fn size(&self) -> usize {
        self.layout.total
    }
    /// Largest record an inbox takes.
    pub fn max_record(&self) -> usize {
        inbox::max_record(self.inbox_bytes as u64)
    }
    pub fn slot(&self, rank: u32) -> &RankSlot {
        assert!(
            rank < self.nranks,
            "rank {rank} out of range (segment {} has {} ranks)",
            self.name,
            self.nranks
        );
        let off = self.layout.slots + rank as usize * size_of::<RankSlot>();
        // SAFETY: `off` is inside the mapping (layout checked against its
        // size), 64-byte aligned like `RankSlot`, and `RankSlot` is atomics
        // only (valid for any bytes, shared mutation through `&`).
        unsafe { &*(self.map.ptr().add(off) as *const RankSlot) }
    }
    /// Whether `rank`'s inbox holds unread records (its private overflow queue
    /// is not visible here; it is empty while the rank is Blocked).
    pub fn inbox_pending(&self, rank: u32) -> bool {
        !self.inbox(rank).is_empty()
    }
    /// Earliest target arrival time among the records sent to `rank` that
    /// it has not yet read and handled (a lower bound for what it may still
    /// do because of them).
    pub fn unread_min(&self, rank: u32) -> Option<u64> {
        let inbox = self.inbox(rank);
        match (inbox.unread_min(), inbox.remote_unread()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    /// Whether `rank` runs on another host (its slot is a mirror, see
    /// `remote`).
    pub fn is_remote(&self, rank: u32) -> bool {
        self.inbox(rank).is_remote()
    }
    /// Wake the bridge, if there is one, to look at what changed.
    pub(super) fn ring_bridge(&self) {
        let h = self.header();
        if h.bridge.load(Ordering::Relaxed) != 0 {
            let _ = h.bridge_bell.ring();
        }
    }
    pub(super) fn bridge_bell(&self) -> &Doorbell {
        &self.header().bridge_bell
    }
    pub(super) fn set_bridged(&self) {
        self.header().bridge.store(1, Ordering::SeqCst)
    }
    /// Core tokens not held by any rank.
    pub fn tokens_free(&self) -> u32 {
        self.header().tokens.free()
    }
    /// Ranks queued for a core token.
    pub fn token_waiters(&self) -> u32 {
        self.header().tokens.queued()
    }

    /// The bound generation (see `Header::generation`).
    pub fn generation(&self) -> u64 {
        self.header().generation.load(Ordering::SeqCst)
    }
    pub(super) fn bump_generation(&self) {
        self.header().generation.fetch_add(1, Ordering::SeqCst);
        self.ring_bridge();
    }
    /// Publish `rank`'s lower bound word: a rise is announced (generation
    /// bumped) before it is visible, a fall after.
    pub fn publish_lower_bound(&self, rank: u32, old: u64, new: u64) {
        let slot = self.slot(rank);
        if new > old {
            self.bump_generation();
            slot.store_lower_bound(new);
        } else if new < old {
            slot.store_lower_bound(new);
            self.bump_generation();
        }
    }
    /// The job's next event as the ranks published it before going idle:
    /// the least (time in ps, kind, rank) over early-queued messages (kind
    /// 0, at their arrival) and pending decisions (kind 1, at their time).
    /// Consistent only while the job is quiescent (see `Port::quiet`).
    pub fn earliest_event(&self) -> Option<(u64, u8, u32)> {
        (0..self.nranks)
            .flat_map(|r| {
                let s = self.slot(r);
                [
                    s.early_min().map(|t| (t, 0, r)),
                    s.deciding_at().map(|t| (t, 1, r)),
                ]
            })
            .flatten()
            .min()
    }
    /// Ranks waiting to take a conservative decision.
    pub fn deciders(&self) -> u32 {
        self.header().deciders.load(Ordering::SeqCst)
    }
    /// Publish that `rank` waits to take a decision at `t_ps` (None: no
    /// longer), keeping the count of deciders.
    pub fn set_deciding(&self, rank: u32, t_ps: Option<u64>) {
        let slot = self.slot(rank);
        let was = slot.deciding_at().is_some();
        slot.set_deciding_at(t_ps);
        self.count_decider(was, t_ps.is_some());
    }

    /// Publish the flow window end `rank` waits to see closed (counted among
    /// the deciders, so that rising bounds poke it).
    pub fn set_resolving(&self, rank: u32, t_ps: Option<u64>) {
        let slot = self.slot(rank);
        let was = slot.resolving_at().is_some();
        slot.set_resolving_at(t_ps);
        self.count_decider(was, t_ps.is_some());
    }

    /// One more decider if a wait began (`was` false, `now` true), one
    /// fewer if it ended.
    fn count_decider(&self, was: bool, now: bool) {
        match (was, now) {
            (false, true) => {
                self.header().deciders.fetch_add(1, Ordering::SeqCst);
            }
            (true, false) => {
                self.header().deciders.fetch_sub(1, Ordering::SeqCst);
            }
            _ => {}
        }
    }

    /// Everything the ranks publish: a count of ranks per state, then one
    /// line per rank neither finalized nor unstarted (for `vaced inspect`, to
    /// look at a job that seems stuck; values are read without a consistent
    /// snapshot).
    pub fn describe(&self) -> String {
        let h = self.header();
        let act = h.activity.load(Ordering::SeqCst);
        let mut out = format!(
            "segment {}: {} ranks, {} cores; idle {}, in flight {}, generation {}, deciders {}\n",
            self.name,
            self.nranks,
            self.cores,
            act >> 32,
            act & 0xffff_ffff,
            h.generation.load(Ordering::SeqCst),
            h.deciders.load(Ordering::SeqCst),
        );
        let mut counts = [0u32; 5];
        for r in 0..self.nranks {
            counts[self.slot(r).state() as usize] += 1;
        }
        out.push_str(&format!(
            "unstarted {}, running {}, blocked {}, finalized {}, aborted {}\n",
            counts[0], counts[1], counts[2], counts[3], counts[4]
        ));
        for r in 0..self.nranks {
            let s = self.slot(r);
            if matches!(s.state(), RankState::Finalized | RankState::Unstarted) {
                continue;
            }
            let inbox = self.inbox(r);
            out.push_str(&format!(
                "rank {r}: {:?} pid {} vtime {} ps, bound word {:#x}, deciding {:?}, early {:?}, \
                 pokes {}, inbox {} (unread min {:?}), space waiting {}, parked {}, \
                 token queued {}, waiting on: {}\n",
                s.state(),
                s.pid(),
                s.vtime(),
                s.lower_bound(),
                s.deciding_at(),
                s.early_min(),
                s.pokes(),
                if inbox.is_empty() {
                    "empty"
                } else {
                    "not empty"
                },
                inbox.unread_min(),
                s.space_waiting.load(Ordering::SeqCst),
                s.parked.load(Ordering::SeqCst),
                s.tok_queued.load(Ordering::SeqCst),
                s.waiting_on(),
            ));
        }
        out
    }

    /// The job's activity word (see [`Activity`]).
    pub(super) fn activity(&self) -> &AtomicU64 {
        &self.header().activity
    }
    /// How many times a rank stopped being idle.
    pub(super) fn idle_ends(&self) -> &AtomicU64 {
        &self.header().idle_ends
    }
    /// The many-ranks mode's hosts share the core tokens (set by each host
    /// before it queues for one).
    pub(super) fn set_hosts_share_tokens(&self) {
        self.header().hosts_share_tokens.store(1, Ordering::SeqCst)
    }
    /// Whether the token fields of `rank`'s slot are its host process's: the
    /// hosts share the tokens and `rank` is the first of its host (whose
    /// own port, like every hosted rank's, takes none).
    pub(super) fn token_is_hosts(&self, rank: u32) -> bool {
        self.header().hosts_share_tokens.load(Ordering::SeqCst) != 0
            && self.slot(rank).host() == Some(rank)
    }

    pub(super) fn tokens(&self) -> &TokenState {
        &self.header().tokens
    }

    pub(super) fn inbox(&self, rank: u32) -> Inbox<'_> {
        assert!(
            rank < self.nranks,
            "rank {rank} out of range (segment {} has {} ranks)",
            self.name,
            self.nranks
        );
        let r = rank as usize;
        let hdr_off = self.layout.inbox_hdrs + r * size_of::<InboxHdr>();
        let ring_off = self.layout.rings + r * self.layout.ring_stride;
        // SAFETY: both offsets lie inside the mapping (layout checked against
        // its size); `InboxHdr` is atomics only and 64-byte aligned like
        // `hdr_off`; the ring has `inbox_bytes` (a multiple of 8) bytes at
        // `ring_off`, used only through the inbox protocol.
        unsafe {
            let hdr = &*(self.map.ptr().add(hdr_off) as *const InboxHdr);
            Inbox::new(hdr, self.map.ptr().add(ring_off), self.inbox_bytes as u64)
        }
    }

    /// Entries each rank owns in the flow registry (0: none).
    pub fn flow_slots(&self) -> u32 {
        self.flow_slots
    }

    /// Entry `slot` of rank `rank` in the flow registry.
    pub fn flow(&self, rank: u32, slot: u32) -> &FlowEntry {
        assert!(
            rank < self.nranks && slot < self.flow_slots,
            "flow entry {rank}/{slot} out of range (segment {}: {} ranks, {} entries each)",
            self.name,
            self.nranks,
            self.flow_slots
        );
        let i = rank as usize * self.flow_slots as usize + slot as usize;
        let off = self.layout.flows + i * size_of::<FlowEntry>();
        // SAFETY: `off` is inside the mapping (layout checked against its
        // size), 64-byte aligned like `FlowEntry` (the inbox rings' stride
        // is a multiple of 64), and `FlowEntry` is atomics only (valid for
        // any bytes, shared mutation through `&`).
        unsafe { &*(self.map.ptr().add(off) as *const FlowEntry) }
    }

    fn header(&self) -> &Header {
        // SAFETY: the mapping starts with a `Header` (page-aligned, atomics
        // only), checked at create/attach.
        unsafe { &*(self.map.ptr() as *const Header) }
    }
}
