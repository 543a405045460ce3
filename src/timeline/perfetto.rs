//! The Chrome / Perfetto trace-event JSON writer (opens in ui.perfetto.dev
//! and chrome://tracing): the rank files are streamed, one after the other,
//! into one `{"traceEvents": [...]}` object, so memory stays bounded.
//!
//! * one process (pid 1) named after the program and target, one thread per
//!   rank (tid = rank, named `rank R`, sorted by rank);
//! * computation bursts: complete events (`"ph": "X"`), name `compute`,
//!   category `compute`;
//! * MPI calls: complete events, name the call, category `mpi`, args
//!   `comm` (context id), `bytes`, `partner` (world rank) and `tag` (the last
//!   two when every operation of the call had the same);
//! * messages: a flow from the sender at its send time (`"ph": "s"`) to the
//!   receiver at its arrival time (`"ph": "f"`, bound to the slice around
//!   it), name the kind (`eager`, `REQ`, `ACK`, `DATA`, ...), category
//!   `message`, args `from`, `to`, `comm`, `tag`, `bytes`, `ts_ps`, `ta_ps`.
//!
//! Times: the format's `ts` and `dur` are microseconds; they are written
//! with 6 decimals, which is exact in picoseconds (1 ps = 0.000001 us), but
//! readers parse them as floating point: every event also carries the exact
//! integer picoseconds in its args (`ts_ps` and `dur_ps`; `ts_ps` and
//! `ta_ps` for messages).
use super::record::{read_rank, Record};
use super::JobInfo;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Picoseconds as microseconds with 6 decimals (exact).
pub fn us(ps: u64) -> String {
    format!("{}.{:06}", ps / 1_000_000, ps % 1_000_000)
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

/// Write the events of the rank files in `dir` as one JSON file `out`.
pub fn write(dir: &Path, out: &Path, job: &JobInfo) -> Result<(), String> {
    let file = File::create(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut w = BufWriter::with_capacity(1 << 16, file);
    let io = |e: std::io::Error| format!("cannot write {}: {e}", out.display());
    let process = format!("{} on {} ({} ranks)", job.program, job.target, job.nranks);
    write!(
        w,
        "{{\"displayTimeUnit\":\"ns\",\"otherData\":{{\"generator\":\"vaced\",\"program\":{},\
         \"target\":{},\"ranks\":{},\"time\":\"virtual; ts and dur in microseconds, \
         exact picoseconds in args ts_ps, dur_ps, ta_ps\"}},\"traceEvents\":[\n\
         {{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{{\"name\":{}}}}}",
        json_str(&job.program),
        json_str(&job.target),
        job.nranks,
        json_str(&process)
    )
    .map_err(io)?;
    for r in 0..job.nranks {
        write!(
            w,
            ",\n{{\"ph\":\"M\",\"pid\":1,\"tid\":{r},\"name\":\"thread_name\",\"args\":{{\"name\":\"rank {r}\"}}}}\
             ,\n{{\"ph\":\"M\",\"pid\":1,\"tid\":{r},\"name\":\"thread_sort_index\",\"args\":{{\"sort_index\":{r}}}}}"
        )
        .map_err(io)?;
    }
    for r in 0..job.nranks {
        let mut failed = None;
        let mut msgs: u64 = 0;
        read_rank(dir, r, |rec| {
            if failed.is_some() {
                return;
            }
            if let Err(e) = event(&mut w, r, &rec, &mut msgs) {
                failed = Some(e);
            }
        })?;
        if let Some(e) = failed {
            return Err(io(e));
        }
    }
    w.write_all(b"\n]}\n").map_err(io)?;
    w.flush().map_err(io)
}

/// Write record `rec` of rank `r` (`msgs`: its messages so far, for ids).
fn event(w: &mut impl Write, r: u32, rec: &Record, msgs: &mut u64) -> std::io::Result<()> {
    match rec {
        Record::Burst { t0, t1 } => write!(
            w,
            ",\n{{\"ph\":\"X\",\"cat\":\"compute\",\"name\":\"compute\",\"pid\":1,\"tid\":{r},\
             \"ts\":{},\"dur\":{},\"args\":{{\"ts_ps\":{t0},\"dur_ps\":{}}}}}",
            us(*t0),
            us(t1 - t0),
            t1 - t0
        ),
        Record::Call {
            name,
            ctx,
            t0,
            t1,
            bytes,
            partner,
            tag,
        } => {
            write!(
                w,
                ",\n{{\"ph\":\"X\",\"cat\":\"mpi\",\"name\":{},\"pid\":1,\"tid\":{r},\"ts\":{},\
                 \"dur\":{},\"args\":{{",
                json_str(name),
                us(*t0),
                us(t1 - t0)
            )?;
            if let Some(c) = ctx {
                write!(w, "\"comm\":{c},")?;
            }
            if let Some(p) = partner {
                write!(w, "\"partner\":{p},")?;
            }
            if let Some(t) = tag {
                write!(w, "\"tag\":{t},")?;
            }
            write!(
                w,
                "\"bytes\":{bytes},\"ts_ps\":{t0},\"dur_ps\":{}}}}}",
                t1 - t0
            )
        }
        Record::Message {
            kind,
            dest,
            ctx,
            tag,
            bytes,
            ts,
            ta,
            from,
        } => {
            let id = (u64::from(r) << 32) | *msgs;
            *msgs += 1;
            let k = kind.name();
            let src = from.unwrap_or(r);
            let args = format!(
                "\"args\":{{\"from\":{src},\"to\":{dest},\"comm\":{ctx},\"tag\":{tag},\
                 \"bytes\":{bytes},\"ts_ps\":{ts},\"ta_ps\":{ta}}}"
            );
            write!(
                w,
                ",\n{{\"ph\":\"s\",\"cat\":\"message\",\"name\":\"{k}\",\"pid\":1,\"tid\":{src},\
                 \"ts\":{},\"id\":{id},{args}}}\
                 ,\n{{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"message\",\"name\":\"{k}\",\"pid\":1,\
                 \"tid\":{dest},\"ts\":{},\"id\":{id},{args}}}",
                us(*ts),
                us(*ta)
            )
        }
        Record::Head { .. } | Record::End { .. } => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn microseconds_keep_every_picosecond() {
        assert_eq!(us(0), "0.000000");
        assert_eq!(us(1), "0.000001");
        assert_eq!(us(15_001_254), "15.001254");
        assert_eq!(us(u64::MAX), "18446744073709.551615");
    }
}
