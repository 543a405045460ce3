//! A rank's inbox: a multi-producer, single-consumer ring of variable-length
//! records in the shared segment.
//!
//! Producers serialise on the inbox's futex lock, copy a record in, then
//! publish it by advancing `widx` (Release). The consumer needs no lock: it
//! reads committed records up to `widx` (Acquire) and frees their space by
//! advancing `ridx` (Release). Indices are byte positions that only grow;
//! `pos % cap` is the place in the ring, and a record may wrap around its end.
//!
//! Record framing: an 8-byte header (little-endian u32 length, 4 unused bytes)
//! and the payload padded to a multiple of 8, so headers never wrap.
//!
//! Producers that find the ring full queue on the inbox's waiter list (an
//! intrusive FIFO through the ranks' slots, under the lock) and the consumer
//! rings their doorbells when it frees enough space.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Bytes of a record header.
pub const REC_HDR: u64 = 8;

/// Ring bytes taken by a record with a `len`-byte payload.
pub fn rec_size(len: usize) -> u64 {
    REC_HDR + (len as u64).next_multiple_of(8)
}

/// Largest payload of a ring of `cap` bytes (a quarter of the ring, so a few
/// records always fit in an empty inbox).
pub fn max_record(cap: u64) -> usize {
    ((cap / 4) & !7).saturating_sub(REC_HDR) as usize
}

/// The shared control words of one inbox: the producers' line and the
/// consumer's line, on separate cache lines.
#[repr(C, align(64))]
#[derive(Default)]
pub struct InboxHdr {
    /// Producers' lock (see `futex::lock`).
    pub lock: AtomicU32,
    /// Queue of producers waiting for space (see `waiters`): first and last
    /// rank + 1, 0 = none.
    pub waiters: AtomicU32,
    pub waiters_tail: AtomicU32,
    /// End of the committed records (written by producers under the lock).
    widx: AtomicU64,
    /// Bitwise NOT of the earliest target arrival time (ps) among the
    /// records written since the consumer last found the inbox empty (0:
    /// none): producers raise it with `fetch_max` under the lock before their
    /// record is visible; the consumer clears it, under the lock, only once it
    /// has read (and accounted for) everything.
    unread_min_not: AtomicU64,
    /// Several hosts (see `remote`): 1 when the inbox's rank runs on
    /// another host; the inbox then stages the records on their way there,
    /// and `remote_unread_not` mirrors (as `unread_min_not`) the arrivals
    /// the rank's own host noted unread.
    remote: AtomicU32,
    remote_unread_not: AtomicU64,
    consumer: ConsumerLine,
}

#[repr(C, align(64))]
#[derive(Default)]
struct ConsumerLine {
    /// Start of the unread records (written by the consumer only).
    ridx: AtomicU64,
}

/// One inbox: its control words and its ring.
#[derive(Clone, Copy)]
pub struct Inbox<'a> {
    hdr: &'a InboxHdr,
    data: *mut u8,
    cap: u64,
}

impl<'a> Inbox<'a> {
    /// # Safety
    /// `data` must point to `cap` bytes of the shared ring that belongs to
    /// `hdr`, valid for `'a`, accessed only through this protocol; `cap` must
    /// be a non-zero multiple of 8.
    pub unsafe fn new(hdr: &'a InboxHdr, data: *mut u8, cap: u64) -> Inbox<'a> {
        debug_assert!(cap > 0 && cap.is_multiple_of(8));
        Inbox { hdr, data, cap }
    }

    pub fn hdr(&self) -> &'a InboxHdr {
        self.hdr
    }

    /// Free ring bytes (exact for a producer holding the lock, a hint
    /// otherwise).
    pub fn free_space(&self) -> u64 {
        // `ridx` first: it never passes the `widx` of its time, so `r <= w`.
        // Without the lock `w - r` may mix two moments and exceed `cap`.
        let r = self.hdr.consumer.ridx.load(Ordering::Acquire);
        let w = self.hdr.widx.load(Ordering::Acquire);
        self.cap.saturating_sub(w - r)
    }

    /// No committed record is waiting to be read.
    pub fn is_empty(&self) -> bool {
        self.hdr.consumer.ridx.load(Ordering::Acquire) == self.hdr.widx.load(Ordering::Acquire)
    }

    /// Note, under the lock, that a record arriving at `ta_ps` is about to be
    /// written.
    pub fn note_arrival(&self, ta_ps: u64) {
        self.hdr.unread_min_not.fetch_max(!ta_ps, Ordering::SeqCst);
    }

    /// Earliest arrival among records not yet accounted for by the consumer.
    pub fn unread_min(&self) -> Option<u64> {
        match self.hdr.unread_min_not.load(Ordering::SeqCst) {
            0 => None,
            v => Some(!v),
        }
    }

    /// Whether the inbox's rank runs on another host.
    pub fn is_remote(&self) -> bool {
        self.hdr.remote.load(Ordering::Relaxed) != 0
    }
    pub fn set_remote(&self) {
        self.hdr.remote.store(1, Ordering::SeqCst)
    }
    /// Of a remote rank: the earliest arrival its host noted unread, as
    /// its host last said.
    pub fn remote_unread(&self) -> Option<u64> {
        match self.hdr.remote_unread_not.load(Ordering::SeqCst) {
            0 => None,
            v => Some(!v),
        }
    }
    pub fn set_remote_unread(&self, t: Option<u64>) {
        self.hdr
            .remote_unread_not
            .store(t.map_or(0, |t| !t), Ordering::SeqCst)
    }

    /// Consumer, under the lock, with nothing left to read: forget arrivals.
    pub fn clear_unread(&self) {
        self.hdr.unread_min_not.store(0, Ordering::SeqCst);
    }

    /// Append one record made of `parts` (`len` bytes in all). The caller holds
    /// the lock and has checked `free_space() >= rec_size(len)`.
    pub fn write(&self, parts: &[&[u8]], len: usize) {
        let need = rec_size(len);
        let w = self.hdr.widx.load(Ordering::Relaxed);
        assert!(
            self.cap - (w - self.hdr.consumer.ridx.load(Ordering::Acquire)) >= need,
            "inbox write without room"
        );
        let mut header = [0u8; REC_HDR as usize];
        header[..4].copy_from_slice(&(len as u32).to_le_bytes());
        self.copy_in(w, &header);
        let mut pos = w + REC_HDR;
        for p in parts {
            self.copy_in(pos, p);
            pos += p.len() as u64;
        }
        self.hdr.widx.store(w + need, Ordering::Release);
    }

    /// Pop the next committed record into `out` (consumer only).
    pub fn pop(&self, out: &mut Vec<u8>) -> bool {
        self.pop_split(usize::MAX, out, &mut Vec::new())
    }

    /// Pop the next committed record: its first `n` bytes (or all, if
    /// shorter) into `head`, the rest into `body`, each cleared first and
    /// filled straight from the ring (consumer only).
    pub fn pop_split(&self, n: usize, head: &mut Vec<u8>, body: &mut Vec<u8>) -> bool {
        let r = self.hdr.consumer.ridx.load(Ordering::Relaxed);
        let w = self.hdr.widx.load(Ordering::Acquire);
        if r == w {
            return false;
        }
        let mut header = [0u8; REC_HDR as usize];
        self.copy_out(r, header.as_mut_ptr(), header.len());
        let len = u32::from_le_bytes(header[..4].try_into().unwrap()) as usize;
        let size = rec_size(len);
        assert!(
            len <= max_record(self.cap) && size <= w - r,
            "corrupt inbox record (length {len}, {} bytes committed)",
            w - r
        );
        let h = len.min(n);
        let mut pos = r + REC_HDR;
        for (out, k) in [(head, h), (body, len - h)] {
            out.clear();
            out.reserve_exact(k);
            self.copy_out(pos, out.as_mut_ptr(), k);
            // SAFETY: `copy_out` initialised the first `k` bytes of the
            // capacity reserved above.
            unsafe { out.set_len(k) };
            pos += k as u64;
        }
        self.hdr.consumer.ridx.store(r + size, Ordering::Release);
        true
    }

    fn copy_in(&self, pos: u64, src: &[u8]) {
        let off = (pos % self.cap) as usize;
        let first = src.len().min(self.cap as usize - off);
        // SAFETY: `off + first <= cap` and `src.len() - first <= cap - first`
        // (records are at most a quarter of the ring), so both copies stay in
        // the ring. The bytes written lie in the free part of the ring, which
        // the consumer does not read until `widx` is published (Release) and
        // other producers do not touch while we hold the lock.
        unsafe {
            std::ptr::copy_nonoverlapping(src.as_ptr(), self.data.add(off), first);
            std::ptr::copy_nonoverlapping(src.as_ptr().add(first), self.data, src.len() - first);
        }
    }

    /// Copy `len` ring bytes from `pos` to `dst` (room for `len` bytes,
    /// possibly uninitialised: no need to zero a buffer only to overwrite
    /// it).
    fn copy_out(&self, pos: u64, dst: *mut u8, len: usize) {
        let off = (pos % self.cap) as usize;
        let first = len.min(self.cap as usize - off);
        // SAFETY: both copies stay in the ring (as in `copy_in`); the bytes
        // were committed before the `widx` we loaded with Acquire, and no
        // producer overwrites them until we advance `ridx` (Release). The
        // caller gives `dst` room for `len` bytes, not overlapping the ring.
        unsafe {
            std::ptr::copy_nonoverlapping(self.data.add(off), dst, first);
            std::ptr::copy_nonoverlapping(self.data, dst.add(first), len - first);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_sizes() {
        assert_eq!(rec_size(0), 8);
        assert_eq!(rec_size(1), 16);
        assert_eq!(rec_size(8), 16);
        assert_eq!(rec_size(9), 24);
        assert_eq!(max_record(4096), 1016);
        assert_eq!(max_record(256 * 1024), 65528);
        assert_eq!(rec_size(max_record(4096)) * 4, 4096);
    }

    #[test]
    fn records_wrap_around_the_ring() {
        let hdr = InboxHdr::default();
        let mut ring = vec![0u64; 32]; // 256 bytes, u64 for alignment
                                       // SAFETY: the ring is 256 bytes owned by this test, used only here.
        let inbox = unsafe { Inbox::new(&hdr, ring.as_mut_ptr().cast(), 256) };
        let mut out = Vec::new();
        // Sizes that make records straddle the end of the ring many times.
        for i in 0..500usize {
            let len = (i * 7) % (max_record(256) + 1);
            let a: Vec<u8> = (0..len).map(|k| (k + i) as u8).collect();
            let (p, q) = a.split_at(len / 3);
            assert!(inbox.free_space() >= rec_size(len));
            inbox.write(&[p, q], len);
            assert!(!inbox.is_empty());
            if i % 2 == 0 {
                assert!(inbox.pop(&mut out));
                assert_eq!(out, a);
            } else {
                // Split anywhere, also past the end of the record.
                let mut body = vec![1, 2, 3];
                assert!(inbox.pop_split(i % 61, &mut out, &mut body));
                assert_eq!(out.len(), len.min(i % 61));
                assert_eq!([&out[..], &body[..]].concat(), a);
            }
            assert!(inbox.is_empty());
            assert!(!inbox.pop(&mut out));
        }
        assert_eq!(inbox.free_space(), 256);
    }
}
