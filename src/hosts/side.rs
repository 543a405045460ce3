//! A host's side of a job across hosts (`vaced host-side`), started on each
//! host by the agent (`agent`) in place of MPICH's proxy, which it then
//! runs: it joins the launcher's registry, creates the host's segment (its
//! ranks join it through `VACED_SEGMENT`, which the proxy hands down to
//! them), joins the other hosts' bridges and runs its own, runs the proxy,
//! and at the end sends its ranks' results to the launcher. Ended from
//! outside (SIGTERM, SIGHUP, SIGINT: a remote shell that goes, a batch
//! system) or by the launcher's going away, it kills the proxy and its
//! ranks and removes its segment first. Killed without warning (SIGKILL),
//! it leaves that to its watchdog (`watch`).

use super::bridge::{Bridge, Peer};
use super::registry::{self, HostConfig, RankOut, ToHost, ToLauncher};
use crate::launch::cleanup;
use crate::launch::job::{ENV_RANK, ENV_SEGMENT};
use crate::transport::process as os;
use crate::transport::remote::HostSide;
use crate::transport::{Segment, SegmentConfig};
use parking_lot::Mutex;
use std::ffi::OsString;
use std::io::{BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, SystemTime};

/// How long the launcher may take to copy the results.
const DONE_WAIT: Duration = Duration::from_secs(30);
/// How often this host's ranks are looked at for an abort or a fatal signal.
const FAILURE_WATCH: Duration = Duration::from_millis(20);

/// The name of host `host`'s segment for job `job`.
pub fn segment_name(job: &str, host: u32) -> String {
    format!("/vaced-{job}-h{host}")
}

/// Run host `host`'s side, the registry at `registry`, MPICH's proxy being
/// `cmd`; returns the exit status to end with (the proxy's).
pub fn run(host: u32, registry: &str, cmd: &[OsString]) -> i32 {
    let who = format!("vaced host-side {host}");
    match serve(host, registry, cmd) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{who}: {e}");
            1
        }
    }
}

/// Exchange host indices on a new stream between two bridges.
fn introduce(s: &mut TcpStream, me: u32) -> std::io::Result<u32> {
    s.set_nodelay(true)?;
    s.write_all(&me.to_le_bytes())?;
    let mut b = [0u8; 4];
    s.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

/// Streams to every other host: connect to the lower ones, accept the
/// higher ones.
fn join_bridges(me: u32, cfg: &HostConfig, listener: &TcpListener) -> Result<Vec<Peer>, String> {
    let nhosts = cfg.bridges.len() as u32;
    let mut peers = Vec::new();
    for j in 0..me {
        let addr = &cfg.bridges[j as usize];
        let mut s =
            TcpStream::connect(addr).map_err(|e| format!("host {j}'s bridge at {addr}: {e}"))?;
        let got = introduce(&mut s, me).map_err(|e| format!("host {j}'s bridge: {e}"))?;
        if got != j {
            return Err(format!("host {j}'s bridge at {addr} says it is host {got}"));
        }
        peers.push(Peer {
            host: j,
            stream: Box::new(s),
        });
    }
    for _ in me + 1..nhosts {
        let (mut s, _) = listener.accept().map_err(|e| format!("bridge: {e}"))?;
        let j = introduce(&mut s, me).map_err(|e| format!("bridge: {e}"))?;
        if j <= me || j >= nhosts || peers.iter().any(|p| p.host == j) {
            return Err(format!("bridge: a stream from host {j}, not expected"));
        }
        peers.push(Peer {
            host: j,
            stream: Box::new(s),
        });
    }
    Ok(peers)
}

/// The signals that end a host side from outside (see the module's doc).
const ENDING: [libc::c_int; 3] = [libc::SIGTERM, libc::SIGHUP, libc::SIGINT];

/// What ends this host's processes: the proxy (once started, its pid
/// here) and this host's ranks: the proxy's children, and its orphans.
/// Hydra's proxy puts each rank in a session of its own and does not take
/// it along when it dies; this side is a subreaper, so a rank whose proxy
/// is gone becomes its child instead of init's (read from /proc just
/// before: a rank that has not joined the job yet is one too, and no pid
/// is taken for another process's). A rank left running could hold
/// MPICH's launcher open, or spin in MPI_Init, for ever.
#[derive(Clone)]
struct Killer {
    host: u32,
    /// The proxy's pid while it runs (0 before and once reaped).
    proxy_pid: Arc<AtomicU32>,
    /// The launcher's registry (every message this side sends it goes
    /// through this one writer, so that none is cut into another), told
    /// why (best effort).
    reg: Arc<Mutex<TcpStream>>,
    /// When this side started: MPICH's files its ranks left since are
    /// removed at the end (`cleanup::remove_unheld_mpich_files`).
    started: SystemTime,
    watchdog: Watchdog,
}

/// This side's watchdog (`super::watch`), told that all is well when this
/// side ends its own way.
#[derive(Clone)]
struct Watchdog(Arc<Mutex<Option<std::process::ChildStdin>>>);

impl Watchdog {
    /// Start the watchdog of segment `name` (a warning if it cannot be:
    /// the side then runs without one).
    fn start(who: &str, name: &str, since: SystemTime) -> Watchdog {
        use std::os::unix::process::CommandExt;
        let since_ns = since
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let child = std::env::current_exe().and_then(|exe| {
            Command::new(exe)
                .args(["host-side-watch", "--segment", name, "--since-ns"])
                .arg(since_ns.to_string())
                .stdin(std::process::Stdio::piped())
                .process_group(0)
                .spawn()
        });
        match child {
            Ok(mut c) => Watchdog(Arc::new(Mutex::new(c.stdin.take()))),
            Err(e) => {
                eprintln!(
                    "{who}: warning: no watchdog (a SIGKILL would leave this host's segment): {e}"
                );
                Watchdog(Arc::new(Mutex::new(None)))
            }
        }
    }

    /// This side ends its own way: the watchdog has nothing to do.
    fn all_well(&self) {
        if let Some(mut w) = self.0.lock().take() {
            let _ = w.write_all(&[super::watch::ALL_WELL]);
        }
    }
}

impl Killer {
    fn kill(&self) {
        let proxy = self.proxy_pid.load(Ordering::SeqCst);
        let mut pids = if proxy == 0 {
            Vec::new()
        } else {
            os::children_of(proxy)
        };
        pids.extend(os::children_of(os::getpid()));
        for pid in pids {
            os::kill_pid(pid, libc::SIGKILL);
        }
    }

    /// End this host side now with `code`, from any thread: its processes
    /// killed and its segment `name` removed, `why` said.
    /// (The launcher is told first, and this side's line written, before
    /// anything is killed: the proxy's end makes MPICH's launcher end the
    /// job, which may end this side too; its watchdog then finishes.)
    fn end_now(&self, who: &str, why: &str, name: &str, code: i32) -> ! {
        let gone = ToLauncher::Gone {
            host: self.host,
            why: why.to_string(),
            code,
        };
        let _ = registry::send(&mut *self.reg.lock(), &gone);
        eprintln!(
            "{who}: {why}: its ranks and MPICH's proxy are killed and this host's segment removed"
        );
        self.kill();
        let _ = Segment::unlink(name);
        cleanup::remove_unheld_mpich_files(self.started);
        self.watchdog.all_well();
        os::exit_now(code)
    }
}

fn serve(host: u32, registry: &str, cmd: &[OsString]) -> Result<i32, String> {
    let (program, args) = cmd
        .split_first()
        .ok_or("no command to run (MPICH's proxy) after --")?;
    // taken by a thread of ours (below), in every thread; the proxy starts
    // with an empty mask (std's spawn)
    let ending = os::SignalSet::block(&ENDING).map_err(|e| format!("blocking signals: {e}"))?;
    // the ranks the proxy leaves behind become ours (see `Killer`)
    os::become_subreaper();
    let started = SystemTime::now();
    let mut reg = TcpStream::connect(registry)
        .map_err(|e| format!("cannot reach the launcher's registry at {registry}: {e}"))?;
    let local = reg.local_addr().map_err(|e| e.to_string())?.ip();
    let listener = TcpListener::bind((local, 0)).map_err(|e| format!("bridge: {e}"))?;
    let bridge_addr = listener.local_addr().map_err(|e| e.to_string())?;
    registry::send(
        &mut reg,
        &ToLauncher::Hello {
            host,
            bridge: bridge_addr.to_string(),
        },
    )
    .map_err(|e| format!("registry: {e}"))?;
    let mut rd = BufReader::new(reg.try_clone().map_err(|e| e.to_string())?);
    let cfg = match registry::recv(&mut rd) {
        Ok(ToHost::Config(c)) => c,
        Ok(m) => return Err(format!("registry: unexpected {m:?}")),
        Err(e) => return Err(format!("registry: {e}")),
    };
    let mine: Vec<u32> = (0..cfg.nranks)
        .filter(|&r| cfg.host_of[r as usize] == host)
        .collect();
    let nlocal = mine.len() as u32;
    let name = segment_name(&cfg.job, host);
    let seg = Segment::create(
        &name,
        &SegmentConfig {
            nranks: cfg.nranks,
            cores: cfg.cores.min(nlocal).max(1),
            inbox_bytes: cfg.inbox_bytes,
            flow_slots: 0,
        },
    )
    .map_err(|e| format!("cannot create this host's segment {name}: {e}"))?;
    let who = format!("vaced host-side {host}");
    let proxy_pid = Arc::new(AtomicU32::new(0));
    let reg = Arc::new(Mutex::new(reg));
    let watchdog = Watchdog::start(&who, &name, started);
    let killer = Killer {
        host,
        reg: reg.clone(),
        proxy_pid: proxy_pid.clone(),
        started,
        watchdog: watchdog.clone(),
    };
    {
        let (who, name, killer) = (who.clone(), name.clone(), killer.clone());
        std::thread::spawn(move || loop {
            if let Some(sig) = ending.wait(Duration::from_secs(3600)) {
                let why = format!("ended by {}", crate::launch::signame::name(sig));
                killer.end_now(&who, &why, &name, 128 + sig);
            }
        });
    }
    let outcome = (|| {
        let side = HostSide::adopt(seg.clone(), |r| cfg.host_of[r as usize] == host)
            .map_err(|e| e.to_string())?;
        let peers = join_bridges(host, &cfg, &listener)?;
        let bridge = Bridge::new(side, host, cfg.host_of.clone(), peers)?;
        let bridge = std::thread::spawn(move || bridge.run());
        // a bridge that fails (another host gone) ends the proxy and the
        // ranks at once: they could wait for ever
        let failed = Arc::new(Mutex::new(None::<String>));
        let watcher = {
            let (killer, failed) = (killer.clone(), failed.clone());
            std::thread::spawn(move || {
                let e = match bridge.join() {
                    Ok(Ok(_)) => return,
                    Ok(Err(e)) => e,
                    Err(_) => "the bridge panicked".to_string(),
                };
                // said when the proxy has ended (at once: it is killed)
                *failed.lock() = Some(e);
                killer.kill();
            })
        };

        // the launcher going away ends us (and the proxy, our child)
        let (done_tx, done_rx) = mpsc::channel();
        {
            let (who, name, killer) = (who.clone(), name.clone(), killer.clone());
            std::thread::spawn(move || {
                if registry::recv::<ToHost>(&mut rd).is_err() {
                    killer.end_now(&who, "the launcher is gone", &name, 1);
                }
                let _ = done_tx.send(());
            });
        }

        let mut proxy = Command::new(program);
        proxy
            .args(args)
            .env(ENV_SEGMENT, &name)
            .env_remove(ENV_RANK);
        os::die_with_parent(&mut proxy);
        // aborts and fatal signals go to the launcher as they happen
        let early = reg.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let failures = {
            let (seg, mine, stop) = (seg.clone(), mine.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut said = vec![false; mine.len()];
                while !stop.load(Ordering::SeqCst) {
                    let now: Vec<RankOut> = mine
                        .iter()
                        .zip(said.iter_mut())
                        .filter(|(&r, said)| {
                            let s = seg.slot(r);
                            !**said && (s.abort_code().is_some() || s.signal().is_some())
                        })
                        .map(|(&r, said)| {
                            *said = true;
                            RankOut::of(&seg, r)
                        })
                        .collect();
                    if !now.is_empty()
                        && registry::send(&mut *early.lock(), &ToLauncher::Failures(now)).is_err()
                    {
                        return;
                    }
                    std::thread::sleep(FAILURE_WATCH);
                }
            })
        };
        let mut child = proxy
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", program.to_string_lossy()))?;
        proxy_pid.store(child.id(), Ordering::SeqCst);
        if failed.lock().is_some() {
            killer.kill();
        }
        let status = child.wait().map_err(|e| e.to_string());
        proxy_pid.store(0, Ordering::SeqCst);
        let status = status?;
        if !status.success() {
            // ranks the proxy left running (now ours)
            killer.kill();
        }
        // once every rank of the job has finalized, the bridge ends too
        if status.success() {
            let _ = watcher.join();
        }
        let bridge_error = failed.lock().take();
        stop.store(true, Ordering::SeqCst);
        let _ = failures.join();
        let outs: Vec<RankOut> = mine.iter().map(|&r| RankOut::of(&seg, r)).collect();
        if registry::send(&mut *reg.lock(), &ToLauncher::Results(outs)).is_ok() {
            let _ = done_rx.recv_timeout(DONE_WAIT);
        }
        if let Some(e) = bridge_error {
            return Err(format!("the bridge: {e}"));
        }
        Ok(os::shell_status(&status))
    })();
    let _ = Segment::unlink(&name);
    cleanup::remove_unheld_mpich_files(started);
    watchdog.all_well();
    outcome
}
