//! The packets of one-sided communication and their byte encoding.
//!
//! Requests (origin -> target) are active messages on the window's context
//! with [`crate::p2p::ACTIVE_CTX_BIT`] set, the packet kind as tag:
//! PUT and ACCUMULATE carry the data, GET asks for it, LOCK / UNLOCK /
//! FLUSH synchronize a passive-target epoch. Answers (target -> origin) are
//! plain eager messages on the window's own context, received by receives
//! the origin posted: LOCK_GRANTED, ACK (of an UNLOCK or FLUSH that asked for
//! one) and the GET response (the data), under a tag of its own per GET.
//!
//! A request names the target bytes it touches as a list of (offset, length)
//! runs of the target window, in the packed order of the data: the origin
//! resolves the target datatype (MPI's rule: it is interpreted at the
//! origin), so the target needs no datatype of its own.
use crate::mpi::error::{fail, MpiResult};
use crate::sys;

/// Request kinds (the tag of the active message).
pub const PUT: i32 = 1;
pub const GET: i32 = 2;
pub const ACC: i32 = 3;
pub const LOCK: i32 = 4;
pub const UNLOCK: i32 = 5;
pub const FLUSH: i32 = 6;
/// End of a post/start/complete/wait access epoch at one target; `arg`:
/// the operations that preceded it.
pub const DONE: i32 = 7;
/// Get_accumulate / Fetch_and_op: accumulate, answering with the old data.
pub const GACC: i32 = 8;
/// Compare_and_swap: `data` is the new value then the compare value.
pub const CAS: i32 = 9;

/// Answer tags (plain messages on the window's context).
pub const LOCK_GRANTED: i32 = 1;
pub const ACK: i32 = 2;
/// MPI_Win_post's message to each origin of its group (0 bytes).
pub const POST: i32 = 3;
/// GET responses use tags from here on, one per outstanding GET.
pub const FIRST_GET_TAG: i32 = 16;

/// Flag: the packet belongs to a fence epoch (the target counts it).
pub const COUNTED: u8 = 1;
/// UNLOCK flag: answer with an ACK.
pub const WANT_ACK: u8 = 2;
/// Flag: the packet belongs to a post/start/complete/wait epoch.
pub const PSCW: u8 = 4;

/// A decoded request.
#[derive(Debug, Clone, PartialEq)]
pub struct Packet {
    pub flags: u8,
    /// LOCK: MPI_LOCK_SHARED / EXCLUSIVE; GET, GACC, CAS: the response
    /// tag; DONE: the operations before it.
    pub arg: i32,
    /// ACC, GACC: the operator.
    pub op: i32,
    /// ACC: the basic datatype of the elements.
    pub dtype: i32,
    /// Target runs (byte offset, length) in packed order.
    pub runs: Vec<(u64, u64)>,
    /// PUT / ACC data (packed).
    pub data: Vec<u8>,
}

impl Packet {
    pub fn control(flags: u8, arg: i32) -> Packet {
        Packet {
            flags,
            arg,
            op: 0,
            dtype: 0,
            runs: Vec::new(),
            data: Vec::new(),
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(17 + 16 * self.runs.len() + self.data.len());
        v.push(self.flags);
        v.extend_from_slice(&self.arg.to_le_bytes());
        v.extend_from_slice(&self.op.to_le_bytes());
        v.extend_from_slice(&self.dtype.to_le_bytes());
        v.extend_from_slice(&(self.runs.len() as u32).to_le_bytes());
        for &(o, l) in &self.runs {
            v.extend_from_slice(&o.to_le_bytes());
            v.extend_from_slice(&l.to_le_bytes());
        }
        v.extend_from_slice(&self.data);
        v
    }

    pub fn decode(b: &[u8]) -> Packet {
        let i32_at = |o: usize| i32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        let n = u32::from_le_bytes(b[13..17].try_into().expect("4 bytes")) as usize;
        let runs = (0..n)
            .map(|k| (u64_at(17 + 16 * k), u64_at(25 + 16 * k)))
            .collect();
        Packet {
            flags: b[0],
            arg: i32_at(1),
            op: i32_at(5),
            dtype: i32_at(9),
            runs,
            data: b[17 + 16 * n..].to_vec(),
        }
    }
}

/// The target runs of `count` elements of a datatype (its blocks relative
/// to its origin, its origin and extent) at byte displacement `disp`, checked
/// against a window of `size` bytes (MPI_ERR_RMA_RANGE).
pub fn target_runs(
    disp: i64,
    count: usize,
    blocks: &[(usize, usize)],
    origin: isize,
    extent: isize,
    size: u64,
) -> MpiResult<Vec<(u64, u64)>> {
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for i in 0..count {
        for &(o, len) in blocks {
            if len == 0 {
                continue;
            }
            let at = disp + i as i64 * extent as i64 + origin as i64 + o as i64;
            if at < 0 || at as u64 + len as u64 > size {
                return fail(
                    sys::MPI_ERR_RMA_RANGE,
                    format!(
                        "the access [{at}, {}) lies outside the target window of {size} bytes",
                        at + len as i64
                    ),
                );
            }
            match runs.last_mut() {
                Some(last) if last.0 + last.1 == at as u64 => last.1 += len as u64,
                _ => runs.push((at as u64, len as u64)),
            }
        }
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_round_trip() {
        let p = Packet {
            flags: COUNTED,
            arg: -7,
            op: 5,
            dtype: 3,
            runs: vec![(0, 8), (16, 4)],
            data: vec![1, 2, 3],
        };
        assert_eq!(Packet::decode(&p.encode()), p);
    }

    #[test]
    fn runs_merge_and_check_the_range() {
        // two ints at displacement 8 of a 16-byte window
        let r = target_runs(8, 2, &[(0, 4)], 0, 4, 16).unwrap();
        assert_eq!(r, vec![(8, 8)]);
        let e = target_runs(12, 2, &[(0, 4)], 0, 4, 16).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_RMA_RANGE);
        let e = target_runs(-4, 1, &[(0, 4)], 0, 4, 16).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_RMA_RANGE);
    }
}
