//! Where the hosts of a job meet: the launcher listens, each host's side
//! (`side`) says which host it is and where its bridge listens, and gets
//! the job's configuration with every bridge's address; at the end it sends
//! its ranks' results, which the launcher copies into its own segment (the
//! board it reports from) before answering, so that they are there when
//! MPICH's launcher exits. One JSON object per line. A job that fails may
//! see MPICH's launcher exit first (MPI_Abort: it kills every host's
//! processes and ends at once): the launcher then waits a little for the
//! hosts' last words ([`Reports::wait`]) before it says which rank did what.

use crate::transport::{RankResult, RankState, Segment};
use serde::{Deserialize, Serialize};
use std::io::{self, BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// What every host is told.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostConfig {
    pub job: String,
    pub nranks: u32,
    /// Core tokens per host (at most its ranks).
    pub cores: u32,
    pub inbox_bytes: u32,
    /// Each rank's host.
    pub host_of: Vec<u32>,
    /// Each host's bridge address.
    pub bridges: Vec<String>,
}

/// What a host's segment holds of one of its ranks at the end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankOut {
    pub rank: u32,
    /// Its process id on its host.
    pub pid: u32,
    pub finalized: bool,
    pub result: RankResult,
    pub abort: Option<(i32, String)>,
    pub signal: Option<i32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ToLauncher {
    Hello {
        host: u32,
        bridge: String,
    },
    /// Ranks that aborted or died of a signal, said at once (MPICH's
    /// launcher may kill the host's side before it ends).
    Failures(Vec<RankOut>),
    /// Every rank of the host at the end; answered with `Done`.
    Results(Vec<RankOut>),
    /// The host's side was ended (`why`: by a signal, or the launcher
    /// lost), its ranks killed, with exit status `code`.
    Gone {
        host: u32,
        why: String,
        code: i32,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ToHost {
    Config(HostConfig),
    Done,
}

/// Send one message as a line.
pub fn send<T: Serialize>(w: &mut impl Write, m: &T) -> io::Result<()> {
    let mut line = serde_json::to_vec(m).map_err(io::Error::other)?;
    line.push(b'\n');
    w.write_all(&line)?;
    w.flush()
}

/// Read one message line (an error at the end of the stream).
pub fn recv<T: for<'a> Deserialize<'a>>(r: &mut impl BufRead) -> io::Result<T> {
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the connection closed",
        ));
    }
    serde_json::from_str(&line).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

impl RankOut {
    /// Rank `rank` as `seg` holds it.
    pub fn of(seg: &Segment, rank: u32) -> RankOut {
        let s = seg.slot(rank);
        RankOut {
            rank,
            pid: s.pid(),
            finalized: s.state() == RankState::Finalized,
            result: s.result(),
            abort: s.abort_code().map(|c| (c, s.abort_message())),
            signal: s.signal(),
        }
    }

    /// Copy it into `board`'s slot of the rank.
    pub fn store(&self, board: &Segment) {
        let s = board.slot(self.rank);
        s.set_pid(self.pid);
        s.store_result(&self.result);
        if let Some(sig) = self.signal {
            s.set_signal(sig);
        }
        if let Some((code, msg)) = &self.abort {
            s.set_abort_message(msg);
            s.set_abort(*code);
        } else if self.finalized {
            s.set_state(RankState::Finalized);
        }
    }
}

/// How many hosts have yet to give their last word (their results, or
/// their connection's end).
pub struct Reports {
    left: Mutex<usize>,
    done: Condvar,
    /// The first host whose side said it was ended ([`ToLauncher::Gone`]).
    gone: Mutex<Option<(u32, String, i32)>>,
    /// The first host whose side's connection ended without its results
    /// or a [`ToLauncher::Gone`]: killed without warning (its watchdog,
    /// `hosts::watch`, ends its ranks), or failed (it says why itself).
    silent: Mutex<Option<u32>>,
}

impl Reports {
    fn new(hosts: usize) -> Arc<Reports> {
        Arc::new(Reports {
            left: Mutex::new(hosts),
            done: Condvar::new(),
            gone: Mutex::new(None),
            silent: Mutex::new(None),
        })
    }

    /// The first host whose side said it was ended: (host, why, status).
    pub fn gone(&self) -> Option<(u32, String, i32)> {
        self.gone.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The first host whose side ended without a word.
    pub fn silent(&self) -> Option<u32> {
        *self.silent.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `hosts` more hosts (`usize::MAX`: all) have nothing more to say.
    fn count(&self, hosts: usize) {
        let mut left = self.left.lock().unwrap_or_else(|e| e.into_inner());
        *left = left.saturating_sub(hosts);
        self.done.notify_all();
    }

    /// Wait until every host has given its last word, `limit` at most;
    /// true if they all did.
    pub fn wait(&self, limit: Duration) -> bool {
        let end = Instant::now() + limit;
        let mut left = self.left.lock().unwrap_or_else(|e| e.into_inner());
        while *left > 0 {
            let now = Instant::now();
            if now >= end {
                return false;
            }
            left = self
                .done
                .wait_timeout(left, end - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }
}

/// Serve the hosts of a job on `listener`: wait for all `cfg.bridges.len()`
/// hosts (`cfg.bridges` is filled in from their hellos), send each the
/// configuration, then copy each host's results into `board` and answer.
/// The handle says when they have all given their last word.
pub fn serve(listener: TcpListener, board: Segment, cfg: HostConfig) -> Arc<Reports> {
    let reports = Reports::new(cfg.bridges.len());
    let r = reports.clone();
    std::thread::spawn(move || {
        let res = serve_hosts(listener, board, cfg, &r);
        r.count(usize::MAX);
        if let Err(e) = res {
            // the hosts cannot go on: MPICH's launcher then ends the job
            eprintln!("vaced: {e}");
        }
    });
    reports
}

fn serve_hosts(
    listener: TcpListener,
    board: Segment,
    mut cfg: HostConfig,
    reports: &Arc<Reports>,
) -> Result<(), String> {
    let nhosts = cfg.bridges.len();
    let mut conns: Vec<Option<(TcpStream, BufReader<TcpStream>)>> =
        (0..nhosts).map(|_| None).collect();
    for _ in 0..nhosts {
        let (s, _) = listener
            .accept()
            .map_err(|e| format!("hosts registry: {e}"))?;
        let mut r = BufReader::new(s.try_clone().map_err(|e| e.to_string())?);
        let (host, bridge) = match recv(&mut r) {
            Ok(ToLauncher::Hello { host, bridge }) => (host as usize, bridge),
            Ok(m) => return Err(format!("hosts registry: {m:?} before a hello")),
            Err(e) => return Err(format!("hosts registry: {e}")),
        };
        if host >= nhosts || conns[host].is_some() {
            return Err(format!("hosts registry: a second or unknown host {host}"));
        }
        cfg.bridges[host] = bridge;
        conns[host] = Some((s, r));
    }
    let mut waits = Vec::new();
    for (h, c) in conns.into_iter().enumerate() {
        let (mut s, mut r) = c.expect("every host said hello");
        send(&mut s, &ToHost::Config(cfg.clone())).map_err(|e| format!("host {h}: {e}"))?;
        let board = board.clone();
        let reports = reports.clone();
        waits.push(std::thread::spawn(move || -> Result<(), String> {
            let store = |ranks: &[RankOut]| {
                ranks
                    .iter()
                    .filter(|o| o.rank < board.nranks())
                    .for_each(|o| o.store(&board))
            };
            let mut said = false;
            let res = loop {
                match recv(&mut r) {
                    Ok(ToLauncher::Failures(ranks)) => store(&ranks),
                    Ok(ToLauncher::Gone { host, why, code }) => {
                        said = true;
                        let mut g = reports.gone.lock().unwrap_or_else(|e| e.into_inner());
                        g.get_or_insert((host, why, code));
                    }
                    Ok(ToLauncher::Results(ranks)) => {
                        store(&ranks);
                        break send(&mut s, &ToHost::Done).map_err(|e| format!("host {h}: {e}"));
                    }
                    Ok(m) => break Err(format!("host {h}: unexpected {m:?}")),
                    // a host that failed says no more: MPICH's
                    // launcher reports it
                    Err(_) => {
                        if !said {
                            let mut q = reports.silent.lock().unwrap_or_else(|e| e.into_inner());
                            q.get_or_insert(h as u32);
                        }
                        break Ok(());
                    }
                }
            };
            reports.count(1);
            res
        }));
    }
    for w in waits {
        w.join()
            .map_err(|_| "hosts registry: a thread panicked".to_string())??;
    }
    Ok(())
}
