//! The Paraver writer (BSC's trace format, read by wxparaver; DIMEMAS and
//! Extrae write it): `BASE.prv` (header and time-sorted records), `BASE.pcf`
//! (names of states, event types and values) and `BASE.row` (names of the
//! CPUs, node and threads), BASE being the output file without `.prv`.
//!
//! Objects: one application, one task per rank (task r + 1) with one thread,
//! all on one node with one CPU per rank (CPU r + 1). Records:
//! * `1:cpu:1:task:1:begin:end:state`: a state per computation burst
//!   (1 Running) and per MPI call (its kind, Extrae's numbering: 3 Waiting a
//!   message, 4 Blocking send, 6 Test/Probe, 8 Wait, 10 Immediate send,
//!   11 Immediate receive, 13 Group communication, 15 Others);
//! * `2:cpu:1:task:1:time:type:value...`: at a call's entry, type 50000000
//!   = the call (value: its number in the .pcf), 50000001 = its bytes,
//!   50000002 = its partner's world rank + 1 and 50000003 = its
//!   communicator's context id + 1 (when known); at its exit 50000000 = 0;
//! * `3:cpu:1:task:1:ts:ts:cpu:1:task:1:ta:ta:bytes:tag`: a communication per
//!   message carrying data (eager DATA, rendezvous DATA, one-sided), sent at
//!   ts and arriving at ta (logical = physical times). The protocol's control
//!   messages (REQ, ACK, cancel) are in the Perfetto timeline only.
//!
//! Times are nanoseconds (`_ns` in the header), rounded from picoseconds to
//! the nearest (ties up). Records are sorted by time with an external merge
//! sort (sorted runs of at most [`RUN`] records on disk, then merged), so
//! memory stays bounded whatever the trace's size.
use super::record::{read_rank, MsgKind, Record};
use super::JobInfo;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Records per sorted run held in memory.
pub const RUN: usize = 1 << 18;

/// Event types.
pub const EV_CALL: u32 = 50_000_000;
pub const EV_BYTES: u32 = 50_000_001;
pub const EV_PARTNER: u32 = 50_000_002;
pub const EV_COMM: u32 = 50_000_003;

/// State values (Extrae's).
const STATES: [(u32, &str); 10] = [
    (0, "Idle"),
    (1, "Running"),
    (3, "Waiting a message"),
    (4, "Blocking Send"),
    (6, "Test/Probe"),
    (8, "Wait/WaitAll"),
    (10, "Immediate Send"),
    (11, "Immediate Receive"),
    (13, "Group Communication"),
    (15, "Others"),
];

/// Picoseconds to the nearest nanosecond (ties up).
pub fn ns(ps: u64) -> u64 {
    ps / 1000 + u64::from(ps % 1000 >= 500)
}

/// The state of MPI call `name`.
pub fn state_of(name: &str) -> u32 {
    let n = name
        .strip_prefix("MPI_")
        .unwrap_or(name)
        .to_ascii_lowercase();
    let n = n.strip_suffix("_c").unwrap_or(&n);
    const COLL: [&str; 13] = [
        "barrier",
        "bcast",
        "reduce",
        "allreduce",
        "gather",
        "gatherv",
        "allgather",
        "allgatherv",
        "scatter",
        "scatterv",
        "scan",
        "exscan",
        "reduce_scatter",
    ];
    let blocking_coll =
        |s: &str| COLL.contains(&s) || s.starts_with("alltoall") || s.starts_with("reduce_scatter");
    if blocking_coll(n) || n.strip_prefix('i').is_some_and(blocking_coll) || n.contains("neighbor_")
    {
        13
    } else if n.starts_with("wait") {
        8
    } else if n.starts_with("test") || n.contains("probe") {
        6
    } else if matches!(n, "isend" | "ibsend" | "issend" | "irsend") {
        10
    } else if matches!(n, "irecv" | "imrecv") {
        11
    } else if matches!(n, "send" | "bsend" | "ssend" | "rsend") {
        4
    } else if matches!(n, "recv" | "mrecv" | "sendrecv" | "sendrecv_replace") {
        3
    } else {
        15
    }
}

/// One line of the .prv body with its sort key.
struct Item {
    t: u64,
    rank: u32,
    seq: u64,
    line: String,
}

impl Item {
    fn key(&self) -> (u64, u32, u64) {
        (self.t, self.rank, self.seq)
    }
}

/// Sorted runs on disk and the one being filled.
struct Sorter {
    dir: PathBuf,
    buf: Vec<Item>,
    runs: Vec<PathBuf>,
    seq: u64,
}

impl Sorter {
    fn push(&mut self, t: u64, rank: u32, line: String) -> Result<(), String> {
        self.seq += 1;
        self.buf.push(Item {
            t,
            rank,
            seq: self.seq,
            line,
        });
        if self.buf.len() >= RUN {
            self.spill()?;
        }
        Ok(())
    }

    /// Sort the records in memory and write them as a run.
    fn spill(&mut self) -> Result<(), String> {
        self.buf.sort_unstable_by_key(Item::key);
        let path = self.dir.join(format!("run-{}.tmp", self.runs.len()));
        let io = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
        let mut w = BufWriter::new(File::create(&path).map_err(io)?);
        for it in self.buf.drain(..) {
            writeln!(w, "{} {} {} {}", it.t, it.rank, it.seq, it.line).map_err(io)?;
        }
        w.flush().map_err(io)?;
        self.runs.push(path);
        Ok(())
    }

    /// Every record in order.
    fn drain(mut self, mut f: impl FnMut(&str) -> Result<(), String>) -> Result<(), String> {
        if self.runs.is_empty() {
            self.buf.sort_unstable_by_key(Item::key);
            return self.buf.iter().try_for_each(|it| f(&it.line));
        }
        if !self.buf.is_empty() {
            self.spill()?;
        }
        let parse = |l: &str| -> Option<((u64, u32, u64), String)> {
            let mut p = l.splitn(4, ' ');
            let key = (
                p.next()?.parse().ok()?,
                p.next()?.parse().ok()?,
                p.next()?.parse().ok()?,
            );
            Some((key, p.next()?.to_string()))
        };
        let mut readers = Vec::new();
        let mut heap = BinaryHeap::new();
        let mut heads = Vec::new();
        for (i, path) in self.runs.iter().enumerate() {
            let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let mut lines = BufReader::new(file).lines();
            let head = next_item(&mut lines, path, &parse)?;
            if let Some((k, _)) = &head {
                heap.push(Reverse((*k, i)));
            }
            heads.push(head);
            readers.push(lines);
        }
        while let Some(Reverse((_, i))) = heap.pop() {
            let (_, line) = heads[i].take().expect("a run's head");
            f(&line)?;
            heads[i] = next_item(&mut readers[i], &self.runs[i], &parse)?;
            if let Some((k, _)) = &heads[i] {
                heap.push(Reverse((*k, i)));
            }
        }
        for p in &self.runs {
            let _ = std::fs::remove_file(p);
        }
        Ok(())
    }
}

type Keyed = ((u64, u32, u64), String);

fn next_item(
    lines: &mut std::io::Lines<BufReader<File>>,
    path: &Path,
    parse: &impl Fn(&str) -> Option<Keyed>,
) -> Result<Option<Keyed>, String> {
    match lines.next() {
        None => Ok(None),
        Some(Err(e)) => Err(format!("{}: {e}", path.display())),
        Some(Ok(l)) => parse(&l)
            .map(Some)
            .ok_or_else(|| format!("{}: bad line `{l}`", path.display())),
    }
}

/// The output's base name: `out` without a `.prv` extension.
pub fn base(out: &Path) -> PathBuf {
    match out.extension() {
        Some(e) if e == "prv" => out.with_extension(""),
        _ => out.to_path_buf(),
    }
}

fn with_ext(base: &Path, ext: &str) -> PathBuf {
    let mut s = base.as_os_str().to_os_string();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// Write the rank files in `dir` as `BASE.prv`, `BASE.pcf` and `BASE.row`.
pub fn write(dir: &Path, out: &Path, job: &JobInfo) -> Result<Vec<PathBuf>, String> {
    let base = base(out);
    let (prv, pcf, row) = (
        with_ext(&base, "prv"),
        with_ext(&base, "pcf"),
        with_ext(&base, "row"),
    );
    let mut sorter = Sorter {
        dir: dir.to_path_buf(),
        buf: Vec::new(),
        runs: Vec::new(),
        seq: 0,
    };
    let mut calls: HashMap<String, u32> = HashMap::new();
    let mut names: Vec<String> = Vec::new();
    let mut end = 0;
    for r in 0..job.nranks {
        let mut failed = Ok(());
        let t = read_rank(dir, r, |rec| {
            if failed.is_ok() {
                failed = records(&mut sorter, r, rec, &mut calls, &mut names);
            }
        })?;
        failed?;
        end = end.max(t);
    }

    let io = |p: &Path, e: std::io::Error| format!("cannot write {}: {e}", p.display());
    let file = File::create(&prv).map_err(|e| io(&prv, e))?;
    let mut w = BufWriter::with_capacity(1 << 16, file);
    let n = job.nranks;
    let tasks = vec!["1:1"; n as usize].join(",");
    writeln!(
        w,
        "#Paraver ({}):{}_ns:1({n}):1:{n}({tasks})",
        date_now(),
        ns(end)
    )
    .map_err(|e| io(&prv, e))?;
    sorter.drain(|line| writeln!(w, "{line}").map_err(|e| io(&prv, e)))?;
    w.flush().map_err(|e| io(&prv, e))?;

    std::fs::write(&pcf, pcf_text(&names)).map_err(|e| io(&pcf, e))?;
    std::fs::write(&row, row_text(n)).map_err(|e| io(&row, e))?;
    Ok(vec![prv, pcf, row])
}

/// The .prv lines of record `rec` of rank `r`.
fn records(
    s: &mut Sorter,
    r: u32,
    rec: Record,
    calls: &mut HashMap<String, u32>,
    names: &mut Vec<String>,
) -> Result<(), String> {
    let me = format!("{}:1:{}:1", r + 1, r + 1);
    match rec {
        Record::Burst { t0, t1 } => {
            let (a, b) = (ns(t0), ns(t1));
            s.push(a, r, format!("1:{me}:{a}:{b}:1"))
        }
        Record::Call {
            name,
            ctx,
            t0,
            t1,
            bytes,
            partner,
            ..
        } => {
            let (a, b) = (ns(t0), ns(t1));
            let state = state_of(&name);
            let id = match calls.get(&name) {
                Some(&id) => id,
                None => {
                    names.push(name.clone());
                    let id = names.len() as u32;
                    calls.insert(name, id);
                    id
                }
            };
            s.push(a, r, format!("1:{me}:{a}:{b}:{state}"))?;
            let mut ev = format!("2:{me}:{a}:{EV_CALL}:{id}:{EV_BYTES}:{bytes}");
            if let Some(p) = partner {
                ev += &format!(":{EV_PARTNER}:{}", u64::from(p) + 1);
            }
            if let Some(c) = ctx {
                ev += &format!(":{EV_COMM}:{}", u64::from(c) + 1);
            }
            s.push(a, r, ev)?;
            s.push(b, r, format!("2:{me}:{b}:{EV_CALL}:0"))
        }
        Record::Message {
            kind,
            dest,
            tag,
            bytes,
            ts,
            ta,
            from,
            ..
        } => {
            if matches!(kind, MsgKind::Eager | MsgKind::Data | MsgKind::Active) {
                let (a, b) = (ns(ts), ns(ta));
                let to = format!("{}:1:{}:1", dest + 1, dest + 1);
                let (src, me) = match from {
                    Some(f) => (f, format!("{}:1:{}:1", f + 1, f + 1)),
                    None => (r, me),
                };
                s.push(a, src, format!("3:{me}:{a}:{a}:{to}:{b}:{b}:{bytes}:{tag}"))
            } else {
                Ok(())
            }
        }
        Record::Head { .. } | Record::End { .. } => Ok(()),
    }
}

fn pcf_text(calls: &[String]) -> String {
    let mut s = String::from(
        "DEFAULT_OPTIONS\n\nLEVEL               THREAD\nUNITS               NANOSEC\n\
         LOOK_BACK           100\nSPEED               1\nFLAG_ICONS          ENABLED\n\
         NUM_OF_STATE_COLORS 1000\nYMAX_SCALE          37\n\n\nDEFAULT_SEMANTIC\n\n\
         THREAD_FUNC          State As Is\n\n\nSTATES\n",
    );
    for (v, name) in STATES {
        s += &format!("{v:<4} {name}\n");
    }
    s += &format!("\n\nEVENT_TYPE\n0    {EV_CALL}    MPI call\nVALUES\n0      End\n");
    for (i, name) in calls.iter().enumerate() {
        s += &format!("{:<6} {name}\n", i + 1);
    }
    s += &format!(
        "\n\nEVENT_TYPE\n0    {EV_BYTES}    MPI call bytes (sent and received)\n\n\n\
         EVENT_TYPE\n0    {EV_PARTNER}    MPI call partner (world rank + 1)\n\n\n\
         EVENT_TYPE\n0    {EV_COMM}    MPI call communicator (context id + 1)\n"
    );
    s
}

fn row_text(n: u32) -> String {
    let mut s = format!("LEVEL CPU SIZE {n}\n");
    for r in 0..n {
        s += &format!("CPU {}\n", r + 1);
    }
    s += "\nLEVEL NODE SIZE 1\nvaced host\n";
    s += &format!("\nLEVEL THREAD SIZE {n}\n");
    for r in 0..n {
        s += &format!("rank {r}\n");
    }
    s
}

/// Today's date and time (UTC) as the header wants it: `dd/mm/yy at hh:mm`.
fn date_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil(secs / 86_400);
    let (hh, mm) = (secs % 86_400 / 3600, secs % 3600 / 60);
    format!("{d:02}/{m:02}/{:02} at {hh:02}:{mm:02}", y % 100)
}

/// Year, month and day of `days` since 1970-01-01 (proleptic Gregorian).
fn civil(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nanoseconds_round_to_nearest() {
        assert_eq!(ns(0), 0);
        assert_eq!(ns(499), 0);
        assert_eq!(ns(500), 1);
        assert_eq!(ns(15_001_254), 15_001);
        assert_eq!(ns(15_001_500), 15_002);
    }

    #[test]
    fn dates() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(11_016), (2000, 2, 29));
        assert_eq!(civil(20_819), (2027, 1, 1));
    }

    #[test]
    fn call_states() {
        for (name, s) in [
            ("MPI_Send", 4),
            ("MPI_Recv", 3),
            ("MPI_Isend", 10),
            ("MPI_Irecv", 11),
            ("MPI_Wait", 8),
            ("MPI_Waitall", 8),
            ("MPI_Test", 6),
            ("MPI_Iprobe", 6),
            ("MPI_Allreduce", 13),
            ("MPI_Ialltoallv", 13),
            ("MPI_Bcast_c", 13),
            ("MPI_Neighbor_allgather", 13),
            ("MPI_Sendrecv", 3),
            ("MPI_Comm_rank", 15),
            ("MPI_Finalize", 15),
        ] {
            assert_eq!(state_of(name), s, "{name}");
        }
    }

    #[test]
    fn base_names() {
        assert_eq!(base(Path::new("a/t.prv")), Path::new("a/t"));
        assert_eq!(base(Path::new("t")), Path::new("t"));
        assert_eq!(with_ext(Path::new("a/t.x"), "pcf"), Path::new("a/t.x.pcf"));
    }

    #[test]
    fn external_sort_merges_runs_in_order() {
        let dir = std::env::temp_dir().join(format!("vaced-prv-sort-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut s = Sorter {
            dir: dir.clone(),
            buf: Vec::new(),
            runs: Vec::new(),
            seq: 0,
        };
        // three runs' worth of pseudo-random times
        let n = 2 * RUN + 17;
        let mut x: u64 = 12345;
        let mut want = Vec::new();
        for i in 0..n {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let t = x >> 44;
            s.push(t, (i % 3) as u32, format!("{t} {i}")).unwrap();
            want.push((t, (i % 3) as u32, i as u64 + 1));
        }
        assert_eq!(s.runs.len(), 2);
        want.sort();
        let mut got = Vec::new();
        s.drain(|l| {
            got.push(l.to_string());
            Ok(())
        })
        .unwrap();
        let want: Vec<String> = want
            .iter()
            .map(|(t, _, q)| format!("{t} {}", q - 1))
            .collect();
        assert_eq!(got, want);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "runs removed");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
