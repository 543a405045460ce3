//! The memory a window exposes at one rank, and the data movements of the
//! operations on it (copy in, copy out, accumulate) over a packet's target
//! runs.
//!
//! * Win_create / Win_allocate / Win_allocate_shared: one region; a run's
//!   offset is a byte displacement from the window's base (checked at the
//!   origin against the window's size).
//! * Win_create_dynamic: the regions attached with MPI_Win_attach, keyed by
//!   their address; a run's offset is an absolute address (MPI_BOTTOM +
//!   target_disp, MPI_Get_address). Only the target knows what is attached:
//!   it checks each run before touching anything (a run outside every
//!   attached region is MPI_ERR_RMA_RANGE, see `target`).
//! * A mirror window (`crate::abi::engine_api`: another MPI library moves
//!   the data, vaced times it): no memory at all; every run is accepted,
//!   copies in and accumulates do nothing, copies out give zeros of the
//!   run's length (the length is what the timing needs).
use super::packet::Packet;
use super::target::acc_kernel;
use crate::transport::RecvBuf;
use std::collections::BTreeMap;

pub enum WinMem {
    Fixed(RecvBuf),
    Dynamic(BTreeMap<u64, RecvBuf>),
    Phantom,
}

impl WinMem {
    /// The first run outside the memory, described, if any.
    pub fn check(&self, runs: &[(u64, u64)]) -> Result<(), String> {
        for &(o, l) in runs {
            if !self.holds(o, l) {
                return Err(match self {
                    WinMem::Fixed(b) => format!(
                        "bytes [{o}, {}) lie outside the window's {} bytes",
                        o.saturating_add(l),
                        b.len()
                    ),
                    WinMem::Dynamic(_) => format!(
                        "address range [{o:#x}, {:#x}) is not in memory attached to the \
                         dynamic window (MPI_Win_attach)",
                        o.saturating_add(l)
                    ),
                    WinMem::Phantom => unreachable!("a phantom holds every run"),
                });
            }
        }
        Ok(())
    }

    fn holds(&self, o: u64, l: u64) -> bool {
        let Some(end) = o.checked_add(l) else {
            return false;
        };
        match self {
            WinMem::Fixed(b) => end <= b.len() as u64,
            WinMem::Dynamic(_) => self.pieces(o, l).is_some(),
            WinMem::Phantom => true,
        }
    }

    /// A dynamic window's run as pieces of attached regions (a run may
    /// cross from one region into the next when they are adjacent, as
    /// consecutive arrays attached one by one): (region, offset in it,
    /// length); None if some byte is not attached.
    fn pieces(&self, o: u64, l: u64) -> Option<Vec<(u64, usize, usize)>> {
        let WinMem::Dynamic(m) = self else {
            return Some(vec![(0, o as usize, l as usize)]);
        };
        let end = o.checked_add(l)?;
        let mut v = Vec::new();
        let mut at = o;
        while at < end {
            let (&a, b) = m.range(..=at).next_back()?;
            let r_end = a + b.len() as u64;
            if at >= r_end {
                return None;
            }
            let n = end.min(r_end) - at;
            v.push((a, (at - a) as usize, n as usize));
            at += n;
        }
        Some(v)
    }

    /// The bytes of a piece.
    fn piece(&mut self, (a, off, n): (u64, usize, usize)) -> &mut [u8] {
        match self {
            WinMem::Fixed(b) => &mut b.as_mut_slice()[off..off + n],
            WinMem::Dynamic(m) => {
                &mut m.get_mut(&a).expect("checked run").as_mut_slice()[off..off + n]
            }
            WinMem::Phantom => unreachable!("a phantom has no pieces"),
        }
    }

    /// Copy packed `data` into the runs (checked).
    pub fn scatter(&mut self, runs: &[(u64, u64)], data: &[u8]) {
        if matches!(self, WinMem::Phantom) {
            return;
        }
        let mut at = 0;
        for &(o, l) in runs {
            for p in self.pieces(o, l).expect("checked run") {
                self.piece(p).copy_from_slice(&data[at..at + p.2]);
                at += p.2;
            }
        }
    }

    /// The runs' bytes, packed (checked).
    pub fn gather(&mut self, runs: &[(u64, u64)]) -> Vec<u8> {
        if matches!(self, WinMem::Phantom) {
            return vec![0; runs.iter().map(|r| r.1 as usize).sum()];
        }
        let mut v = Vec::new();
        for &(o, l) in runs {
            for p in self.pieces(o, l).expect("checked run") {
                v.extend_from_slice(self.piece(p));
            }
        }
        v
    }

    /// Apply an accumulate packet (operator `p.op` on elements of basic
    /// type `p.dtype`) to the runs (checked). A run split between two
    /// attached regions is combined in a copy, then copied back.
    pub fn accumulate(&mut self, p: &Packet) {
        if matches!(self, WinMem::Phantom) {
            return;
        }
        let f = acc_kernel(p.op, p.dtype);
        let mut at = 0;
        for &(o, l) in &p.runs {
            let data = &p.data[at..at + l as usize];
            let ps = self.pieces(o, l).expect("checked run");
            if let [one] = ps[..] {
                f(data, self.piece(one));
            } else {
                let mut tmp = self.gather(&[(o, l)]);
                f(data, &mut tmp);
                self.scatter(&[(o, l)], &tmp);
            }
            at += l as usize;
        }
    }

    /// MPI_Win_attach: expose `buf` (its address is the key); regions may
    /// not overlap.
    pub fn attach(&mut self, buf: RecvBuf) -> Result<(), String> {
        let WinMem::Dynamic(m) = self else {
            return Err("not a dynamic window".into());
        };
        let (a, l) = (buf.addr(), buf.len() as u64);
        let clash = m.contains_key(&a)
            || m.range(..a)
                .next_back()
                .is_some_and(|(&b, r)| b + r.len() as u64 > a)
            || m.range(a..).next().is_some_and(|(&b, _)| b < a + l);
        if clash {
            return Err(format!(
                "memory [{a:#x}, {:#x}) overlaps memory already attached to the window",
                a + l
            ));
        }
        m.insert(a, buf);
        Ok(())
    }

    /// MPI_Win_detach of the region attached at `base`.
    pub fn detach(&mut self, base: u64) -> Result<(), String> {
        let WinMem::Dynamic(m) = self else {
            return Err("not a dynamic window".into());
        };
        match m.remove(&base) {
            Some(_) => Ok(()),
            None => Err(format!(
                "no memory attached to the window starts at {base:#x}"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf(v: &mut [u8]) -> RecvBuf {
        // SAFETY: `v` outlives every use in the test.
        unsafe { RecvBuf::from_raw(v.as_mut_ptr(), v.len()) }
    }

    #[test]
    fn dynamic_regions_resolve_absolute_addresses() {
        let mut a = vec![0u8; 16];
        let mut b = vec![0u8; 8];
        let (pa, pb) = (a.as_ptr() as u64, b.as_ptr() as u64);
        let mut m = WinMem::Dynamic(BTreeMap::new());
        m.attach(buf(&mut a)).unwrap();
        m.attach(buf(&mut b)).unwrap();
        assert!(m.attach(buf(&mut a[4..8])).is_err());
        m.check(&[(pa + 4, 4), (pb, 8)]).unwrap();
        m.scatter(&[(pa + 4, 4), (pb, 8)], &[1; 12]);
        assert_eq!(m.gather(&[(pa + 3, 2)]), vec![0, 1]);
        assert!(m.check(&[(pb + 4, 8)]).is_err());
        // a run across two adjacent regions
        let mut c = [0u8; 16];
        let pc = c.as_ptr() as u64;
        let mut m2 = WinMem::Dynamic(BTreeMap::new());
        m2.attach(buf(&mut c[..8])).unwrap();
        m2.attach(buf(&mut c[8..])).unwrap();
        m2.check(&[(pc + 4, 8)]).unwrap();
        m2.scatter(&[(pc + 4, 8)], &[7; 8]);
        assert_eq!(
            m2.gather(&[(pc + 2, 12)]),
            vec![0, 0, 7, 7, 7, 7, 7, 7, 7, 7, 0, 0]
        );
        assert!(m2.check(&[(pc + 12, 8)]).is_err());
        drop(m2);
        m.detach(pb).unwrap();
        assert!(m.check(&[(pb, 1)]).is_err());
        assert!(m.detach(pb).is_err());
        drop(m);
        assert_eq!(b, vec![1; 8]);
        assert_eq!(&a[3..9], &[0, 1, 1, 1, 1, 0]);
    }
}
