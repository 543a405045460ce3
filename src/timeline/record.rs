//! One timeline event as a line of a rank's file, and reading a rank's file
//! back. Times are integer picoseconds of virtual time.
//!
//! ```text
//! V1 <rank>                                              first line
//! B <t0> <t1>                                            computation burst
//! C <name> <ctx|-> <t0> <t1> <bytes> <partner|-> <tag|-> MPI call
//! M <kind> <dest> <ctx> <tag> <bytes> <ts> <ta>          message sent
//! E <t>                                                  the rank's end
//! ```
use crate::engine::wire::Kind;
use std::fmt;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

/// The kind of a protocol message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MsgKind {
    /// Eager DATA (the whole message).
    Eager,
    /// Rendezvous request (sender to receiver).
    Req,
    /// Rendezvous acknowledgement (receiver to sender).
    Ack,
    /// Rendezvous DATA.
    Data,
    /// Cancel request of MPI_Cancel on a send.
    Cancel,
    /// Answer to a cancel request.
    CancelAnswer,
    /// One-sided communication (an active message).
    Active,
}

impl MsgKind {
    const ALL: [MsgKind; 7] = [
        MsgKind::Eager,
        MsgKind::Req,
        MsgKind::Ack,
        MsgKind::Data,
        MsgKind::Cancel,
        MsgKind::CancelAnswer,
        MsgKind::Active,
    ];

    /// The kind of wire message `k` (`active`: its context id marks it as
    /// one-sided communication); `None` for host-only messages.
    pub fn of(k: Kind, active: bool) -> Option<MsgKind> {
        Some(match k {
            Kind::Eager if active => MsgKind::Active,
            Kind::Eager => MsgKind::Eager,
            Kind::Req => MsgKind::Req,
            Kind::Ack => MsgKind::Ack,
            Kind::Data => MsgKind::Data,
            Kind::Cancel => MsgKind::Cancel,
            Kind::CancelAnswer => MsgKind::CancelAnswer,
            Kind::Nudge => return None,
        })
    }

    /// Its name in files and traces.
    pub fn name(self) -> &'static str {
        match self {
            MsgKind::Eager => "eager",
            MsgKind::Req => "REQ",
            MsgKind::Ack => "ACK",
            MsgKind::Data => "DATA",
            MsgKind::Cancel => "cancel",
            MsgKind::CancelAnswer => "cancel_answer",
            MsgKind::Active => "active",
        }
    }

    fn parse(s: &str) -> Option<MsgKind> {
        MsgKind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// The message starts an MPI message's send (its data bytes count as
    /// sent by the call).
    pub fn is_send(self) -> bool {
        matches!(self, MsgKind::Eager | MsgKind::Req | MsgKind::Active)
    }
}

/// One event of a rank's timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    Head {
        rank: u32,
    },
    Burst {
        t0: u64,
        t1: u64,
    },
    Call {
        name: String,
        /// Context id of the communicator.
        ctx: Option<u32>,
        t0: u64,
        t1: u64,
        /// Bytes of the sends started and receives completed.
        bytes: u64,
        /// The world rank of every one of them, if it was the same.
        partner: Option<u32>,
        /// Their tag, if it was the same.
        tag: Option<i32>,
    },
    Message {
        kind: MsgKind,
        dest: u32,
        ctx: u32,
        tag: i32,
        bytes: u64,
        ts: u64,
        ta: u64,
        /// The sender when it is not the file's rank: a flow of the
        /// contention model is recorded by its receiver, once resolved.
        from: Option<u32>,
    },
    End {
        t: u64,
    },
}

struct Opt<T>(Option<T>);
impl<T: fmt::Display> fmt::Display for Opt<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(v) => v.fmt(f),
            None => f.write_str("-"),
        }
    }
}

impl fmt::Display for Record {
    /// The record's line, without the newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Record::Head { rank } => write!(f, "V1 {rank}"),
            Record::Burst { t0, t1 } => write!(f, "B {t0} {t1}"),
            Record::Call {
                name,
                ctx,
                t0,
                t1,
                bytes,
                partner,
                tag,
            } => write!(
                f,
                "C {name} {} {t0} {t1} {bytes} {} {}",
                Opt(*ctx),
                Opt(*partner),
                Opt(*tag)
            ),
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
                write!(f, "M {} {dest} {ctx} {tag} {bytes} {ts} {ta}", kind.name())?;
                match from {
                    Some(s) => write!(f, " {s}"),
                    None => Ok(()),
                }
            }
            Record::End { t } => write!(f, "E {t}"),
        }
    }
}

impl Record {
    /// Parse one line (as [`Record`]'s `Display` writes it).
    pub fn parse(line: &str) -> Result<Record, String> {
        let w: Vec<&str> = line.split(' ').collect();
        fn num<T: std::str::FromStr>(w: &[&str], i: usize) -> Result<T, String> {
            let s = w.get(i).ok_or("a field is missing")?;
            s.parse().map_err(|_| format!("bad number `{s}`"))
        }
        fn opt<T: std::str::FromStr>(w: &[&str], i: usize) -> Result<Option<T>, String> {
            match w.get(i) {
                Some(&"-") => Ok(None),
                _ => num(w, i).map(Some),
            }
        }
        let want = |n: usize| {
            if w.len() == n {
                Ok(())
            } else {
                Err(format!("{} fields, want {n}", w.len()))
            }
        };
        let r = match w[0] {
            "V1" => {
                want(2)?;
                Record::Head { rank: num(&w, 1)? }
            }
            "B" => {
                want(3)?;
                Record::Burst {
                    t0: num(&w, 1)?,
                    t1: num(&w, 2)?,
                }
            }
            "C" => {
                want(8)?;
                Record::Call {
                    name: w[1].to_string(),
                    ctx: opt(&w, 2)?,
                    t0: num(&w, 3)?,
                    t1: num(&w, 4)?,
                    bytes: num(&w, 5)?,
                    partner: opt(&w, 6)?,
                    tag: opt(&w, 7)?,
                }
            }
            "M" => {
                if w.len() != 9 {
                    want(8)?;
                }
                Record::Message {
                    kind: MsgKind::parse(w[1]).ok_or(format!("unknown message kind `{}`", w[1]))?,
                    dest: num(&w, 2)?,
                    ctx: num(&w, 3)?,
                    tag: num(&w, 4)?,
                    bytes: num(&w, 5)?,
                    ts: num(&w, 6)?,
                    ta: num(&w, 7)?,
                    from: if w.len() == 9 {
                        Some(num(&w, 8)?)
                    } else {
                        None
                    },
                }
            }
            "E" => {
                want(2)?;
                Record::End { t: num(&w, 1)? }
            }
            other => return Err(format!("unknown record `{other}`")),
        };
        Ok(r)
    }
}

/// Read rank `rank`'s file in `dir`, calling `f` for each event (not the
/// head and end lines). Returns the rank's end time. A missing file, a file
/// of another rank, a bad line or a file cut short (the rank did not reach
/// MPI_Finalize) is an error naming the file.
pub fn read_rank(dir: &Path, rank: u32, mut f: impl FnMut(Record)) -> Result<u64, String> {
    let path = super::rank_file(dir, rank);
    let err = |e: String| format!("timeline file {}: {e}", path.display());
    let file = std::fs::File::open(&path).map_err(|e| err(e.to_string()))?;
    let mut lines = BufReader::with_capacity(1 << 16, file).lines();
    let mut n = 0;
    let mut next = |n: &mut usize| -> Result<Option<Record>, String> {
        let line: Option<io::Result<String>> = lines.next();
        *n += 1;
        match line {
            None => Ok(None),
            Some(Err(e)) => Err(err(e.to_string())),
            Some(Ok(l)) => Record::parse(&l)
                .map(Some)
                .map_err(|e| err(format!("line {n}: {e}: `{l}`"))),
        }
    };
    match next(&mut n)? {
        Some(Record::Head { rank: r }) if r == rank => {}
        _ => return Err(err(format!("does not start with `V1 {rank}`"))),
    }
    loop {
        match next(&mut n)? {
            None => return Err(err("cut short (the rank did not finish)".into())),
            Some(Record::End { t }) => return Ok(t),
            Some(Record::Head { .. }) => return Err(err(format!("line {n}: a second head"))),
            Some(r) => f(r),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip() {
        let rs = [
            Record::Head { rank: 3 },
            Record::Burst { t0: 1, t1: 20 },
            Record::Call {
                name: "MPI_Send".into(),
                ctx: Some(0),
                t0: 5,
                t1: 7,
                bytes: 1000,
                partner: Some(2),
                tag: Some(-4),
            },
            Record::Call {
                name: "MPI_Barrier".into(),
                ctx: None,
                t0: 5,
                t1: 7,
                bytes: 0,
                partner: None,
                tag: None,
            },
            Record::Message {
                kind: MsgKind::CancelAnswer,
                dest: 1,
                ctx: 4,
                tag: 9,
                bytes: 1,
                ts: 10,
                ta: 99,
                from: None,
            },
            Record::Message {
                kind: MsgKind::Data,
                dest: 3,
                ctx: 0,
                tag: 1,
                bytes: 100000,
                ts: 10,
                ta: 99,
                from: Some(5),
            },
            Record::End { t: 100 },
        ];
        for r in rs {
            let line = r.to_string();
            assert_eq!(Record::parse(&line), Ok(r), "{line}");
        }
        assert_eq!(
            Record::parse("C MPI_Send 0 1 2"),
            Err("5 fields, want 8".into())
        );
        assert_eq!(Record::parse("B x 2"), Err("bad number `x`".into()));
        assert_eq!(Record::parse("Q"), Err("unknown record `Q`".into()));
    }
}
