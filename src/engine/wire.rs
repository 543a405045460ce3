//! The protocol messages exchanged between ranks and their byte encoding.
//!
//! Every message carries its target arrival time `ta` (Eq. 3), so a receiver
//! can time it whatever the host did. Payloads travel inline, split into
//! continuation fragments when a record cannot hold them, or are pulled by the
//! receiver straight from the sender's memory (rendezvous, single copy).
use crate::model::VTime;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// Eager DATA: the payload follows.
    Eager = 1,
    /// Rendezvous request: envelope and size; may describe the sender's buffer.
    Req = 2,
    /// Rendezvous acknowledgement (receiver -> sender).
    Ack = 3,
    /// Rendezvous DATA (sender -> receiver).
    Data = 4,
    /// Host only, no virtual meaning: wake up and look at the job's state
    /// (sent to the rank holding the job's earliest pending event).
    Nudge = 5,
    /// Cancel request (sender -> receiver): remove the DATA or REQ whose
    /// serial is `rreq` if it is still unmatched; `sreq` is the sender's
    /// request that waits for the answer.
    Cancel = 6,
    /// Answer to a cancel request (receiver -> sender): `size` 1 when the
    /// message was removed, 0 when a receive had matched it; `sreq` and
    /// `rreq` as in the request.
    CancelAnswer = 7,
}

impl Kind {
    fn from_u8(b: u8) -> Option<Kind> {
        Some(match b {
            1 => Kind::Eager,
            2 => Kind::Req,
            3 => Kind::Ack,
            4 => Kind::Data,
            5 => Kind::Nudge,
            6 => Kind::Cancel,
            7 => Kind::CancelAnswer,
            _ => return None,
        })
    }
}

/// Where a message's payload is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Payload {
    None,
    /// Carried in the message itself.
    Inline(Vec<u8>),
    /// In the sender's memory, to be pulled by the receiver (process, address).
    Remote {
        pid: u32,
        addr: u64,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Msg {
    pub kind: Kind,
    /// Sender's world rank.
    pub src: u32,
    pub ctx: u32,
    pub tag: i32,
    /// Size of the MPI message's data in bytes (for REQ / ACK: of the data
    /// they negotiate, not of themselves).
    pub size: u64,
    /// Arrival time at the receiver on the target.
    pub ta: VTime,
    /// The sender's request (REQ, ACK).
    pub sreq: u32,
    /// The receiver's request (ACK, DATA); for eager DATA and REQ the
    /// sender's serial number of the message (unique per sender, from 1),
    /// by which a cancel request names it.
    pub rreq: u32,
    /// DATA that is a flow of the contention model (`p2p::flows`): its
    /// entry and sequence word in the sender's part of the flow registry;
    /// `ta` is then a lower bound until the receiver resolves the flow.
    pub flow: Option<(u32, u64)>,
    pub payload: Payload,
}

impl Msg {
    /// A nudge from `src`: a host-only record that wakes its receiver to
    /// look at the job again (it carries no message).
    pub fn nudge(src: u32) -> Msg {
        Msg {
            kind: Kind::Nudge,
            src,
            ctx: 0,
            tag: 0,
            size: 0,
            ta: VTime::ZERO,
            sreq: 0,
            rreq: 0,
            flow: None,
            payload: Payload::None,
        }
    }
}

/// Size of the fixed header of a record.
pub const HEADER: usize = 56;
const FIRST: u8 = 0;
const CONT: u8 = 1;
const PL_NONE: u8 = 0;
const PL_INLINE: u8 = 1;
const PL_REMOTE: u8 = 2;

/// An outgoing payload, borrowed (so user data is copied only into records).
#[derive(Debug, Clone, Copy)]
pub enum Body<'a> {
    None,
    Inline(&'a [u8]),
    Remote { pid: u32, addr: u64 },
}

/// Encode `m` (its own `payload` field is ignored) with `body` into one or
/// more records of at most `max_record` bytes each. Records after the first
/// are continuation fragments of an inline payload.
pub fn encode(m: &Msg, body: Body, max_record: usize, mut emit: impl FnMut(&[&[u8]])) {
    assert!(max_record > HEADER, "records too small for a header");
    let mut h = [0u8; HEADER];
    h[0] = FIRST;
    h[1] = m.kind as u8;
    let (pl, pid, addr, data): (u8, u32, u64, &[u8]) = match body {
        Body::None => (PL_NONE, 0, 0, &[]),
        Body::Inline(v) => (PL_INLINE, 0, 0, v),
        Body::Remote { pid, addr } => (PL_REMOTE, pid, addr, &[]),
    };
    h[2] = pl;
    // Bytes 40..52 hold the flow (entry + 1, sequence word) when the
    // payload is not remote (a flow is DATA, whose payload never is).
    let (pid, addr) = match m.flow {
        Some((slot, seq)) => {
            assert!(pl != PL_REMOTE, "a flow with a remote payload");
            (slot + 1, seq)
        }
        None => (pid, addr),
    };
    h[4..8].copy_from_slice(&m.src.to_le_bytes());
    h[8..12].copy_from_slice(&m.ctx.to_le_bytes());
    h[12..16].copy_from_slice(&m.tag.to_le_bytes());
    h[16..24].copy_from_slice(&m.size.to_le_bytes());
    h[24..32].copy_from_slice(&m.ta.ps().to_le_bytes());
    h[32..36].copy_from_slice(&m.sreq.to_le_bytes());
    h[36..40].copy_from_slice(&m.rreq.to_le_bytes());
    h[40..44].copy_from_slice(&pid.to_le_bytes());
    h[44..52].copy_from_slice(&addr.to_le_bytes());
    h[52..56].copy_from_slice(&(data.len() as u32).to_le_bytes());
    let room = max_record - HEADER;
    let first = data.len().min(room);
    emit(&[&h, &data[..first]]);
    let mut off = first;
    while off < data.len() {
        let n = (data.len() - off).min(max_record - 8);
        let mut c = [0u8; 8];
        c[0] = CONT;
        c[4..8].copy_from_slice(&m.src.to_le_bytes());
        emit(&[&c, &data[off..off + n]]);
        off += n;
    }
}

/// Reassembles records into messages (continuations are per sender, and a
/// sender's records arrive in order).
#[derive(Default)]
pub struct Decoder {
    partial: std::collections::HashMap<u32, (Msg, usize)>,
}

impl Decoder {
    /// Feed one record; returns a message once it is complete.
    /// No message is half-decoded (every record read so far made a message).
    pub fn is_idle(&self) -> bool {
        self.partial.is_empty()
    }

    pub fn feed(&mut self, rec: &[u8]) -> Result<Option<Msg>, String> {
        self.feed_split(rec, Vec::new())
    }

    /// [`Decoder::feed`] of the record `head` followed by `body`. With the
    /// record split after [`HEADER`] bytes, a whole message's payload is
    /// `body` itself, not a copy.
    pub fn feed_split(&mut self, head: &[u8], body: Vec<u8>) -> Result<Option<Msg>, String> {
        let rec = head;
        let u32at = |o: usize| u32::from_le_bytes(rec[o..o + 4].try_into().unwrap());
        let u64at = |o: usize| u64::from_le_bytes(rec[o..o + 8].try_into().unwrap());
        match rec.first() {
            Some(&FIRST) if rec.len() >= HEADER => {
                let kind = Kind::from_u8(rec[1]).ok_or("bad message kind")?;
                let src = u32at(4);
                let len = u32at(52) as usize;
                let payload = match rec[2] {
                    PL_NONE => Payload::None,
                    PL_INLINE => {
                        let mut v = body;
                        if rec.len() > HEADER {
                            v.splice(0..0, rec[HEADER..].iter().copied());
                        }
                        v.reserve_exact(len.saturating_sub(v.len()));
                        Payload::Inline(v)
                    }
                    PL_REMOTE => Payload::Remote {
                        pid: u32at(40),
                        addr: u64at(44),
                    },
                    _ => return Err("bad payload kind".into()),
                };
                let have = match &payload {
                    Payload::Inline(v) => v.len(),
                    _ => 0,
                };
                let m = Msg {
                    kind,
                    src,
                    ctx: u32at(8),
                    tag: i32::from_le_bytes(rec[12..16].try_into().unwrap()),
                    size: u64at(16),
                    ta: VTime::from_ps(u64at(24)),
                    sreq: u32at(32),
                    rreq: u32at(36),
                    flow: match (rec[2], u32at(40)) {
                        (PL_REMOTE, _) | (_, 0) => None,
                        (_, slot) => Some((slot - 1, u64at(44))),
                    },
                    payload,
                };
                if have >= len {
                    Ok(Some(m))
                } else {
                    self.partial.insert(src, (m, len));
                    Ok(None)
                }
            }
            Some(&CONT) if rec.len() >= 8 => {
                let src = u32at(4);
                let (mut m, len) = self
                    .partial
                    .remove(&src)
                    .ok_or("continuation without a first fragment")?;
                if let Payload::Inline(v) = &mut m.payload {
                    v.extend_from_slice(&rec[8..]);
                    v.extend_from_slice(&body);
                    if v.len() >= len {
                        return Ok(Some(m));
                    }
                }
                self.partial.insert(src, (m, len));
                Ok(None)
            }
            _ => Err(format!(
                "malformed record of {} bytes",
                rec.len() + body.len()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn msg(payload: Payload) -> Msg {
        Msg {
            kind: Kind::Eager,
            src: 7,
            ctx: 3,
            tag: -5,
            size: 1000,
            ta: VTime::from_ps(123_456_789_012),
            sreq: 9,
            rreq: 11,
            flow: None,
            payload,
        }
    }
    fn roundtrip(m: &Msg, max: usize) -> (Msg, usize) {
        let mut recs: Vec<Vec<u8>> = Vec::new();
        let body = match &m.payload {
            Payload::None => Body::None,
            Payload::Inline(v) => Body::Inline(v),
            Payload::Remote { pid, addr } => Body::Remote {
                pid: *pid,
                addr: *addr,
            },
        };
        encode(m, body, max, |parts| recs.push(parts.concat()));
        assert!(recs.iter().all(|r| r.len() <= max));
        let n = recs.len();
        let mut outs = Vec::new();
        // Whole records, and records split after the header (the receive
        // path) or a little later.
        for split in [None, Some(HEADER), Some(HEADER + 10)] {
            let mut d = Decoder::default();
            let mut out = None;
            for (i, r) in recs.iter().enumerate() {
                let got = match split {
                    None => d.feed(r),
                    Some(k) => {
                        let k = k.min(r.len());
                        d.feed_split(&r[..k], r[k..].to_vec())
                    }
                }
                .unwrap();
                assert_eq!(got.is_some(), i == n - 1);
                out = got;
            }
            outs.push(out.unwrap());
        }
        assert!(outs.iter().all(|o| *o == outs[0]));
        (outs.swap_remove(0), n)
    }
    #[test]
    fn messages_roundtrip_whole_and_in_fragments() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
        let m = msg(Payload::Inline(data));
        assert_eq!(roundtrip(&m, 4096), (m.clone(), 1));
        // 1000 bytes, 100-byte records: 44 in the first, 92 per continuation
        let (back, n) = roundtrip(&m, 100);
        assert_eq!(back, m);
        assert_eq!(n, 1 + (1000 - 44usize).div_ceil(92));
        let r = msg(Payload::Remote {
            pid: 42,
            addr: 0xdead_beef_0000,
        });
        assert_eq!(roundtrip(&r, 64).0, r);
        let e = msg(Payload::Inline(Vec::new()));
        assert_eq!(roundtrip(&e, 64).0, e);
        let mut f = msg(Payload::Inline(vec![1, 2, 3]));
        f.flow = Some((0, u64::MAX - 1));
        assert_eq!(roundtrip(&f, 64).0, f);
        f.payload = Payload::None;
        assert_eq!(roundtrip(&f, 64).0, f);
    }
    #[test]
    fn garbage_is_an_error() {
        let mut d = Decoder::default();
        assert!(d.feed(&[9, 9, 9]).is_err());
        assert!(d.feed(&[1, 0, 0, 0, 5, 0, 0, 0]).is_err());
    }
}
