//! The frames two bridges exchange over their stream (one stream per pair
//! of hosts, in order): a little-endian u32 length, a kind byte, the body.
//!
//! Data frames (counted for termination detection): `Record` (one
//! transport record for a rank of the receiving host, with the arrival
//! its sender's host had noted for it), `State` (what the sending host's
//! ranks published) and `Ack` (how many `Record`s the sender has noted so
//! far). Control frames (not counted) run the detection: `Report`,
//! `Probe`, `ProbeAck`, `Go` (see `detect`).

use crate::transport::remote::RankView;
use crate::transport::RankState;
use std::io::{self, Read, Write};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    Record {
        dest: u32,
        note: Option<u64>,
        bytes: Vec<u8>,
    },
    State(Vec<RankView>),
    Ack(u64),
    /// A host is quiet: its stamp and its data frames sent to and received
    /// from each host (indexed by host).
    Report {
        stamp: u64,
        sent: Vec<u64>,
        recv: Vec<u64>,
    },
    Probe(u64),
    /// Whether the host is still as it reported.
    ProbeAck(u64, bool),
    Go(u64),
}

impl Frame {
    /// Whether the frame counts in the detection's sent / received totals.
    pub fn is_data(&self) -> bool {
        matches!(self, Frame::Record { .. } | Frame::State(_) | Frame::Ack(_))
    }
}

/// Longest frame accepted (a corrupt length is an error, not an allocation).
const MAX_FRAME: usize = 64 << 20;

fn opt(v: Option<u64>) -> u64 {
    v.map_or(0, |t| t.saturating_add(1))
}
fn unopt(v: u64) -> Option<u64> {
    v.checked_sub(1)
}

struct Out(Vec<u8>);
impl Out {
    fn u8(&mut self, v: u8) {
        self.0.push(v)
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes())
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes())
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u32(b.len() as u32);
        self.0.extend_from_slice(b)
    }
    fn u64s(&mut self, v: &[u64]) {
        self.u32(v.len() as u32);
        v.iter().for_each(|&x| self.u64(x))
    }
}

struct In<'a>(&'a [u8]);
impl In<'_> {
    fn take(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.0.len() < n {
            return Err(bad("truncated frame"));
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }
    fn u8(&mut self) -> io::Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> io::Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn u64(&mut self) -> io::Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    fn bytes(&mut self) -> io::Result<Vec<u8>> {
        let n = self.u32()? as usize;
        Ok(self.take(n)?.to_vec())
    }
    fn u64s(&mut self) -> io::Result<Vec<u64>> {
        let n = self.u32()? as usize;
        (0..n).map(|_| self.u64()).collect()
    }
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("bridge stream: {what}"))
}

fn state_code(s: RankState) -> u8 {
    s as u8
}
fn state_of(c: u8) -> io::Result<RankState> {
    Ok(match c {
        0 => RankState::Unstarted,
        1 => RankState::Running,
        2 => RankState::Blocked,
        3 => RankState::Finalized,
        4 => RankState::Aborted,
        _ => return Err(bad("bad rank state")),
    })
}

/// Append `f`, framed, to `w`.
pub fn write(w: &mut impl Write, f: &Frame) -> io::Result<()> {
    let mut o = Out(Vec::with_capacity(64));
    o.u32(0);
    match f {
        Frame::Record { dest, note, bytes } => {
            o.u8(1);
            o.u32(*dest);
            o.u64(opt(*note));
            o.bytes(bytes);
        }
        Frame::State(views) => {
            o.u8(2);
            o.u32(views.len() as u32);
            for v in views {
                o.u32(v.rank);
                o.u64(v.bound);
                o.u64(opt(v.unread));
                o.u64(opt(v.deciding));
                o.u64(opt(v.early));
                o.u8(state_code(v.state));
                o.bytes(v.waiting_on.as_bytes());
            }
        }
        Frame::Ack(n) => {
            o.u8(3);
            o.u64(*n);
        }
        Frame::Report { stamp, sent, recv } => {
            o.u8(4);
            o.u64(*stamp);
            o.u64s(sent);
            o.u64s(recv);
        }
        Frame::Probe(w) => {
            o.u8(5);
            o.u64(*w);
        }
        Frame::ProbeAck(w, ok) => {
            o.u8(6);
            o.u64(*w);
            o.u8(u8::from(*ok));
        }
        Frame::Go(w) => {
            o.u8(7);
            o.u64(*w);
        }
    }
    let len = (o.0.len() - 4) as u32;
    o.0[..4].copy_from_slice(&len.to_le_bytes());
    w.write_all(&o.0)
}

/// The next frame from `r`; `Ok(None)` at the end of the stream.
pub fn read(r: &mut impl Read) -> io::Result<Option<Frame>> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u32::from_le_bytes(len) as usize;
    if len == 0 || len > MAX_FRAME {
        return Err(bad(&format!("frame of {len} bytes")));
    }
    let mut buf = vec![0u8; len];
    r.read_exact(&mut buf)?;
    let mut i = In(&buf);
    let f = match i.u8()? {
        1 => Frame::Record {
            dest: i.u32()?,
            note: unopt(i.u64()?),
            bytes: i.bytes()?,
        },
        2 => {
            let n = i.u32()? as usize;
            let mut views = Vec::with_capacity(n.min(1 << 16));
            for _ in 0..n {
                views.push(RankView {
                    rank: i.u32()?,
                    bound: i.u64()?,
                    unread: unopt(i.u64()?),
                    deciding: unopt(i.u64()?),
                    early: unopt(i.u64()?),
                    state: state_of(i.u8()?)?,
                    waiting_on: String::from_utf8_lossy(&i.bytes()?).into_owned(),
                });
            }
            Frame::State(views)
        }
        3 => Frame::Ack(i.u64()?),
        4 => Frame::Report {
            stamp: i.u64()?,
            sent: i.u64s()?,
            recv: i.u64s()?,
        },
        5 => Frame::Probe(i.u64()?),
        6 => Frame::ProbeAck(i.u64()?, i.u8()? != 0),
        7 => Frame::Go(i.u64()?),
        k => return Err(bad(&format!("frame kind {k}"))),
    };
    if !i.0.is_empty() {
        return Err(bad("trailing bytes in a frame"));
    }
    Ok(Some(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_frame_reads_back_as_written() {
        let frames = vec![
            Frame::Record {
                dest: 7,
                note: Some(0),
                bytes: vec![1, 2, 3],
            },
            Frame::Record {
                dest: 0,
                note: None,
                bytes: vec![],
            },
            Frame::State(vec![RankView {
                rank: 3,
                bound: u64::MAX,
                unread: Some(42),
                deciding: None,
                early: Some(u64::MAX - 1),
                state: RankState::Finalized,
                waiting_on: "MPI_Recv from 2".into(),
            }]),
            Frame::Ack(9),
            Frame::Report {
                stamp: 5,
                sent: vec![0, 3],
                recv: vec![1, 0],
            },
            Frame::Probe(2),
            Frame::ProbeAck(2, true),
            Frame::Go(2),
        ];
        let mut buf = Vec::new();
        for f in &frames {
            write(&mut buf, f).unwrap();
        }
        let mut r = &buf[..];
        for f in &frames {
            assert_eq!(read(&mut r).unwrap().as_ref(), Some(f));
        }
        assert_eq!(read(&mut r).unwrap(), None);
    }

    #[test]
    fn a_corrupt_frame_is_an_error() {
        let mut buf = Vec::new();
        write(&mut buf, &Frame::Go(1)).unwrap();
        buf[4] = 99;
        let e = read(&mut &buf[..]).unwrap_err();
        assert_eq!(e.to_string(), "bridge stream: frame kind 99");
        let e = read(&mut &[0u8, 0, 0, 0][..]).unwrap_err();
        assert_eq!(e.to_string(), "bridge stream: frame of 0 bytes");
    }
}
