//! The point-to-point engine bound to the host transport: joining the job
//! `mpirun` set up (or a singleton job), publishing results, aborting.
use super::core::Core;
use super::link::{Link, Next};
use crate::launch::job::ENV_RANK;
use crate::model::{Model, VTime};
use crate::ranks::local::{PerThread, RankCell};
use crate::transport::threads;
use crate::transport::Port;
use crate::transport::{cma, cputime, FlowRecord, RankState, Segment, SegmentConfig};
use std::cell::Cell;

thread_local! {
    static CALL_CLOCK_THREAD: Cell<Option<cputime::CallClock>> = const { Cell::new(None) };
}

/// The calling thread's CPU clock at its library entries and exits (each
/// thread that calls MPI has its own). In the many-ranks mode each rank
/// has its own (`crate::ranks`): its host thread's CPU clock, which only
/// the rank advances between the rank's exit from the library and its
/// next entry (ranks are switched inside MPI calls only).
static CALL_CLOCK: PerThread<Option<cputime::CallClock>> =
    PerThread::new(&CALL_CLOCK_THREAD, || RankCell::new(None));

/// Run `f` on the calling thread's [`cputime::CallClock`].
fn with_call_clock(f: impl FnOnce(&mut cputime::CallClock) -> u64) -> u64 {
    let mut clock = CALL_CLOCK.get().unwrap_or_default();
    let t = f(&mut clock);
    CALL_CLOCK.set(Some(clock));
    t
}

/// The shared-memory transport as a [`Link`].
pub struct PortLink {
    port: Port,
    pid: u32,
    cma: bool,
}

impl PortLink {
    /// A link over `port` whose peers never read our memory (records carry
    /// every payload): for ranks joined by a bridge and for tests.
    pub fn new(port: Port) -> PortLink {
        PortLink {
            port,
            pid: std::process::id(),
            cma: false,
        }
    }
}

impl Link for PortLink {
    fn rank(&self) -> u32 {
        self.port.rank()
    }
    fn size(&self) -> u32 {
        self.port.segment().nranks()
    }
    fn max_record(&self) -> usize {
        self.port.max_record()
    }
    fn send(&mut self, dest: u32, parts: &[&[u8]], ta: Option<VTime>) -> bool {
        self.port.send_timed(dest, parts, ta.map(|t| t.ps()))
    }
    fn close(&mut self) {
        self.port.close()
    }
    fn try_recv(&mut self, out: &mut Vec<u8>) -> bool {
        self.port.try_recv_keep(out)
    }
    fn try_recv_split(&mut self, n: usize, head: &mut Vec<u8>, body: &mut Vec<u8>) -> bool {
        self.port.try_recv_split(n, head, body)
    }
    fn settle_unread(&mut self) -> Option<VTime> {
        self.port.settle_unread().map(VTime::from_ps)
    }
    fn generation(&self) -> u64 {
        self.port.segment().generation()
    }
    fn peer_bound(&self, j: u32) -> (Option<u64>, u64) {
        let seg = self.port.segment();
        let u = seg.unread_min(j);
        (u, seg.slot(j).lower_bound())
    }
    fn publish_bound(&self, old: u64, new: u64) {
        self.port
            .segment()
            .publish_lower_bound(self.port.rank(), old, new)
    }
    fn set_deciding(&self, t: Option<VTime>) {
        self.port
            .segment()
            .set_deciding(self.port.rank(), t.map(|t| t.ps()))
    }
    fn deciding_at(&self, j: u32) -> Option<VTime> {
        self.port
            .segment()
            .slot(j)
            .deciding_at()
            .map(VTime::from_ps)
    }
    fn deciders(&self) -> u32 {
        self.port.segment().deciders()
    }
    fn poke(&self, j: u32) {
        self.port.poke(j)
    }
    fn pokes(&self) -> u32 {
        self.port.segment().slot(self.port.rank()).pokes()
    }
    fn wait_poked(&mut self, seen: u32) {
        self.port.wait_poked(seen)
    }
    fn wait_incoming(&mut self) {
        self.port.wait_incoming()
    }
    fn prefer_next(&mut self, rank: Option<u32>) {
        self.port.prefer_next(rank)
    }
    fn cpu_now_ns(&self) -> u64 {
        with_call_clock(|c| c.enter())
    }
    fn cpu_leave_ns(&self) -> u64 {
        with_call_clock(|c| c.leave())
    }
    fn yield_requested(&self) -> bool {
        threads::yield_requested()
    }
    fn others_running(&self) -> bool {
        threads::others_running()
    }
    fn refresh_threads(&self) {
        threads::refresh()
    }
    fn pull_pid(&self) -> Option<u32> {
        self.cma.then_some(self.pid)
    }
    fn pull(&mut self, pid: u32, addr: u64, dst: &mut [u8]) -> Result<(), String> {
        cma::pull_as(self.pid, pid, addr, dst).map_err(|e| e.to_string())
    }
    fn publish_vtime(&self, t: VTime) {
        self.port
            .segment()
            .slot(self.port.rank())
            .publish_vtime(t.ps());
    }
    fn yield_core(&mut self) {
        self.port.yield_token()
    }
    fn publish_blocked(&self, early_min: Option<VTime>, waiting_on: &str) {
        let slot = self.port.segment().slot(self.port.rank());
        slot.set_early_min(early_min.map(|t| t.ps()));
        slot.set_waiting_on(waiting_on);
    }
    fn idle_begin(&mut self) -> bool {
        self.port.idle_begin().quiescent()
    }
    fn idle_end(&mut self) {
        self.port.idle_end()
    }
    fn next_event(&mut self) -> Next {
        let earliest = |seg: &Segment| {
            seg.earliest_event()
                .map(|(t, kind, r)| (VTime::from_ps(t), kind, r))
        };
        Next::of(self.port.quiet(earliest))
    }
    fn flow_slots(&self) -> u32 {
        self.port.segment().flow_slots()
    }
    fn flow_write(&self, slot: u32, f: &FlowRecord) -> u64 {
        let seg = self.port.segment();
        seg.flow(self.port.rank(), slot).write(f)
    }
    fn flow_free(&self, slot: u32) {
        let seg = self.port.segment();
        seg.flow(self.port.rank(), slot).free()
    }
    fn flow_set_end(&self, slot: u32, end: VTime) {
        let seg = self.port.segment();
        seg.flow(self.port.rank(), slot).set_end(end.ps())
    }
    fn flow_read(&self, j: u32, slot: u32) -> Option<(u64, FlowRecord)> {
        self.port.segment().flow(j, slot).read()
    }
    fn flow_used(&self, j: u32) -> u32 {
        self.port.segment().slot(j).flow_used()
    }
    fn set_flow_used(&self, n: u32) {
        let seg = self.port.segment();
        seg.slot(self.port.rank()).set_flow_used(n)
    }
    fn flow_consume(&self, j: u32, slot: u32, seq: u64, end: VTime) {
        self.port.segment().flow(j, slot).consume(seq, end.ps())
    }
    fn flow_consumed(&self, slot: u32, seq: u64) -> bool {
        let seg = self.port.segment();
        seg.flow(self.port.rank(), slot).is_consumed(seq)
    }
    fn set_resolving(&self, t: Option<VTime>) {
        self.port
            .segment()
            .set_resolving(self.port.rank(), t.map(|t| t.ps()))
    }
    fn resolving_at(&self, j: u32) -> Option<VTime> {
        self.port
            .segment()
            .slot(j)
            .resolving_at()
            .map(VTime::from_ps)
    }
    fn waiting_report(&self) -> Vec<Option<String>> {
        let seg = self.port.segment();
        (0..seg.nranks())
            .map(|r| {
                let s = seg.slot(r);
                (s.state() != RankState::Finalized).then(|| s.waiting_on())
            })
            .collect()
    }
    fn deadlock(&mut self, report: &str) -> ! {
        eprint!("vaced: {report}");
        let rank = self.port.rank();
        let slot = self.port.segment().slot(rank);
        slot.set_abort_message("deadlock: every rank is blocked and no message is in flight");
        slot.set_abort(1);
        std::process::exit(1)
    }
    fn fail(&mut self, message: &str) -> ! {
        let rank = self.port.rank();
        let slot = self.port.segment().slot(rank);
        slot.set_abort_message(message);
        slot.set_abort(1);
        std::process::exit(1)
    }
}

/// One rank's point-to-point engine on the host transport.
pub type Endpoint = Core<PortLink>;

fn env_u32(name: &str) -> Result<u32, String> {
    let v = std::env::var(name).map_err(|_| format!("{name} is not set"))?;
    v.parse()
        .map_err(|_| format!("{name}={v:?} is not a number"))
}

impl Core<PortLink> {
    /// Join the job described by the VACED_* environment that `mpirun` sets,
    /// or, without one, run as a singleton job of one rank.
    pub fn from_env() -> Result<Endpoint, String> {
        Self::join_env(true, None)
    }

    /// [`Core::from_env`] for a library that moves the data itself and has
    /// the engine time it (`abi::engine_api`): its sends carry lengths, not
    /// bytes, so no receiver may copy from the sender's memory
    /// (`single_copy` false), whatever `VACED_CMA` says. `rank`: the rank
    /// the library says this process is (its own launcher's numbering),
    /// instead of `VACED_RANK`.
    pub fn join_env(single_copy: bool, rank: Option<u32>) -> Result<Endpoint, String> {
        let spec = std::env::var("VACED_TARGET").unwrap_or_else(|_| "tianhe1a".to_string());
        let model = Model::load(&spec).map_err(|e| e.to_string())?;
        let (seg, rank, use_cma) = match std::env::var("VACED_SEGMENT") {
            Ok(name) => {
                let seg = Segment::attach(&name)
                    .map_err(|e| format!("cannot attach to the job's segment {name}: {e}"))?;
                // a hosted rank's is its host's to say (the environment is
                // the host process's, shared by all its ranks)
                let (rank, from) = match (crate::ranks::local::hosted_rank(), rank) {
                    (Some(r), _) => (r, "hosted rank "),
                    (None, Some(r)) => (r, "rank "),
                    (None, None) => (env_u32(ENV_RANK)?, "VACED_RANK="),
                };
                if rank >= seg.nranks() {
                    return Err(format!(
                        "{from}{rank} but the job has {} ranks",
                        seg.nranks()
                    ));
                }
                let use_cma =
                    single_copy && std::env::var("VACED_CMA").map(|v| v != "0").unwrap_or(true);
                (seg, rank, use_cma)
            }
            Err(_) => {
                let name = format!("/vaced-single-{}", std::process::id());
                let cfg = SegmentConfig {
                    nranks: 1,
                    cores: 1,
                    inbox_bytes: 256 * 1024,
                    flow_slots: 0,
                };
                let seg = Segment::create(&name, &cfg)
                    .map_err(|e| format!("cannot create a singleton segment {name}: {e}"))?;
                // The mapping outlives the name.
                let _ = Segment::unlink(&name);
                (seg, 0, false)
            }
        };
        if let Some(mut j) = crate::transport::jitter::Jitter::from_env(rank) {
            // Chaos: ranks join in a random order.
            std::thread::sleep(std::time::Duration::from_micros(j.below(2000)));
        }
        if use_cma {
            cma::allow_peers();
        }
        let pid = std::process::id();
        seg.slot(rank).set_pid(pid);
        let mut port = Port::new(seg, rank);
        crate::transport::batch_policy();
        port.acquire_token();
        port.segment().slot(rank).set_state(RankState::Running);
        CALL_CLOCK.set(Some(cputime::CallClock::new()));
        let link = PortLink {
            port,
            pid,
            cma: use_cma,
        };
        let mut core = Core::new(link, model);
        crate::timeline::open_from_env(rank)?;
        match std::env::var("VACED_SYNC").as_deref() {
            Ok("fast") => core.set_exact(false),
            Ok("exact") | Err(_) => {}
            Ok(other) => {
                return Err(format!(
                    "VACED_SYNC={other:?}: want \"exact\" (conservative decisions) or \"fast\""
                ))
            }
        }
        // A what-if run: log the calls for the replay under the other
        // configurations (see `crate::replay`).
        if let Some(dir) = std::env::var_os(super::record::ENV_DIR) {
            let path = super::record::path(std::path::Path::new(&dir), rank);
            let cached = super::record::CACHED_LOGS / u64::from(core.size().max(1));
            core.start_recording(super::record::Recorder::create_keeping(&path, cached)?);
        }
        Ok(core)
    }

    /// MPI_Init_thread provided MPI_THREAD_MULTIPLE: other threads may wake
    /// this rank (see `transport::threads`).
    pub fn enable_threads(&self) {
        threads::enable(self.link.port.segment().clone(), self.rank());
    }

    /// Record a fatal signal this process receives in the rank's slot, for
    /// a launcher that is not the rank's parent (`transport::fatal`).
    pub fn record_fatal_signals(&self) {
        crate::transport::fatal::record(self.link.port.segment(), self.link.port.rank());
    }

    /// Let another library in this process wake ranks it delivers to
    /// (`transport::ring_other`).
    pub fn share_ring(&self) {
        crate::transport::set_ring_segment(self.link.port.segment().clone());
    }

    /// Another library's own wait found nothing to do: store the records
    /// that reached us ([`Core::absorb`]), then sleep or offer the core
    /// ([`crate::transport::Port::idle_other`]).
    pub fn idle_other(&mut self) {
        self.absorb();
        self.link.port.idle_other();
    }

    /// The job's name (its shared-memory objects are `/vaced-<job>*`).
    pub fn job(&self) -> String {
        self.link.port.segment().job().to_string()
    }

    /// MPI_Finalize: settle background sends, publish the results, give the
    /// core back.
    pub fn finalize(&mut self) {
        self.drain_background();
        let r = self.result(crate::transport::host_sleeps());
        let rank = self.rank();
        let port = &mut self.link.port;
        let slot = port.segment().slot(rank);
        slot.publish_vtime(r.vtime_ps);
        slot.store_result(&r);
        port.release_token();
        // Publishes RankState::Finalized (the launcher reads the result).
        self.retire();
        crate::timeline::finish(self.vtime());
    }

    /// End the whole job: record why in our slot (the launcher reports it and
    /// stops every other rank), then exit.
    pub fn abort(&mut self, code: i32, message: &str) -> ! {
        let rank = self.rank();
        let slot = self.link.port.segment().slot(rank);
        slot.set_abort_message(message);
        slot.set_abort(code);
        slot.set_state(RankState::Aborted);
        let status = if (1..=255).contains(&code) { code } else { 1 };
        std::process::exit(status)
    }
}
