//! Collective access (`MPI_File_*_all`, ordered, split and nonblocking
//! collectives) as ROMIO's generic two-phase algorithm does it
//! (adio/common/ad_write_coll.c, ad_read_coll.c, ad_aggregate.c), every
//! message a real message of the engine on the file's private
//! communicator:
//!
//! 1. each rank's first and last byte (two MPI_Allgather of 8 bytes);
//! 2. unless `romio_cb_*` is "enable", ranks whose ranges do not interleave
//!    (ROMIO's test: rank i starts before rank i-1 ends) access the file
//!    independently and the call ends there ("disable": always);
//! 3. the range [min start, max end] is cut into one file domain per
//!    aggregator (ceiling division); each rank splits its runs by domain;
//! 4. an MPI_Alltoall of 4-byte counts of runs, then each rank sends each
//!    aggregator its (offset, length) list (16 bytes a run; to itself: a
//!    copy);
//! 5. an MPI_Allreduce (max) of the number of rounds: an aggregator's
//!    rounds are its requested range / `cb_buffer_size`, rounded up;
//! 6. per round, writing: an MPI_Alltoall of 4-byte sizes (the aggregator
//!    says how much each rank sends), the aggregator reads its window
//!    first if the data has holes in it (read-modify-write), the ranks
//!    send their pieces (non-blocking sends and receives, one wait), and
//!    the aggregator writes the window: latency + window / bandwidth.
//!    Reading: the aggregator reads the window, an MPI_Alltoall of sizes,
//!    the aggregators send the pieces back;
//! 7. after a write: an MPI_Bcast of the error code from the aggregator
//!    when there is one, else an MPI_Allreduce (max) of the error codes.
use super::file::{comm, io_error};
use super::hints::Cb;
use crate::coll;
use crate::mpi::coll_args::CollComm;
use crate::mpi::error::{MpiError, MpiResult};
use crate::mpi::World;
use crate::p2p::ReqId;
use crate::sys::{self, MPI_File};
use std::os::unix::fs::FileExt;

const TAG_LISTS: i32 = 1;
/// Data of round m: tag TAG_DATA + m.
const TAG_DATA: i32 = 2;

/// What two-phase needs of a file.
struct Ctx {
    cc: CollComm,
    aggs: Vec<usize>,
    cb: u64,
    host: std::fs::File,
    me: usize,
    n: usize,
}

/// My pieces, the runs of each rank in my file domain, the rounds.
type Plan = (Vec<Piece>, Vec<Vec<(u64, u64)>>, usize);

/// One piece of my data: file offset, length, aggregator, data offset.
#[derive(Clone, Copy)]
struct Piece {
    off: u64,
    len: u64,
    agg: usize,
    data: usize,
}

fn i64s(b: &[u8]) -> Vec<i64> {
    b.chunks(8)
        .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

fn bytes_i32(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

impl World {
    fn tp_ctx(&self, fh: MPI_File) -> MpiResult<Ctx> {
        let f = self.io.get(fh)?;
        Ok(Ctx {
            cc: f.cc.clone(),
            aggs: f.aggregators.clone(),
            cb: f.hints.cb_buffer_size,
            host: f
                .host
                .try_clone()
                .map_err(|e| io_error(&e, "cannot use the file"))?,
            me: f.cc.me,
            n: f.cc.size(),
        })
    }

    fn io_charge(&mut self, bytes: u64) {
        let t = self.ep.vtime() + self.ep.model().io.access_time(bytes);
        self.ep.advance_io(t);
    }

    /// Steps 1-2: the ranges of every rank; whether two-phase is used.
    fn tp_ranges(
        &mut self,
        c: &Ctx,
        runs: &[(u64, u64)],
        empty_at: u64,
        mode: Cb,
    ) -> (Vec<i64>, Vec<i64>, bool) {
        let (st, end) = match (runs.first(), runs.last()) {
            (Some(a), Some(b)) => (a.0 as i64, (b.0 + b.1) as i64 - 1),
            _ => (empty_at as i64, empty_at as i64 - 1),
        };
        if mode == Cb::Disable {
            return (vec![], vec![], false);
        }
        let mut sts = vec![0u8; 8 * c.n];
        sts[8 * c.me..8 * c.me + 8].copy_from_slice(&st.to_le_bytes());
        coll::allgather::allgather(&mut comm(self, &c.cc), &mut sts);
        let mut ends = vec![0u8; 8 * c.n];
        ends[8 * c.me..8 * c.me + 8].copy_from_slice(&end.to_le_bytes());
        coll::allgather::allgather(&mut comm(self, &c.cc), &mut ends);
        let (sts, ends) = (i64s(&sts), i64s(&ends));
        let interleaved = (1..c.n).any(|i| sts[i] < ends[i - 1] && sts[i] <= ends[i]);
        let two_phase = mode == Cb::Enable || interleaved;
        (sts, ends, two_phase)
    }

    /// Steps 3-5: my pieces by aggregator, the runs of every rank in my
    /// domain (if I am an aggregator), the number of rounds.
    fn tp_plan(&mut self, c: &Ctx, runs: &[(u64, u64)], sts: &[i64], ends: &[i64]) -> Plan {
        let naggr = c.aggs.len();
        let min = *sts.iter().min().expect("ranks");
        let max = *ends.iter().max().expect("ranks");
        let fd_size = ((max - min + 1).max(0) as u64)
            .div_ceil(naggr as u64)
            .max(1);
        let mut pieces = Vec::new();
        let mut data = 0usize;
        for &(mut off, mut len) in runs {
            while len > 0 {
                let k = ((off - min as u64) / fd_size) as usize;
                let k = k.min(naggr - 1);
                let fd_end = min as u64 + (k as u64 + 1) * fd_size;
                let take = len.min(fd_end - off);
                pieces.push(Piece {
                    off,
                    len: take,
                    agg: c.aggs[k],
                    data,
                });
                data += take as usize;
                off += take;
                len -= take;
            }
        }
        // step 4: counts, then the lists
        let mut counts = vec![0i32; c.n];
        for p in &pieces {
            counts[p.agg] += 1;
        }
        let mut theirs = vec![0u8; 4 * c.n];
        coll::alltoall::alltoall(
            &mut comm(self, &c.cc),
            Some(&bytes_i32(&counts)),
            &mut theirs,
        );
        let theirs = i32s(&theirs);
        let ctx = c.cc.ctx;
        let mut recvs: Vec<(usize, ReqId)> = Vec::new();
        let mut sends = Vec::new();
        for (i, &k) in theirs.iter().enumerate() {
            if k > 0 && i != c.me {
                let r =
                    self.ep
                        .irecv_vec(16 * k as usize, Some(c.cc.ranks[i]), Some(TAG_LISTS), ctx);
                recvs.push((i, r));
            }
        }
        let list_of = |a: usize| -> Vec<u8> {
            pieces
                .iter()
                .filter(|p| p.agg == a)
                .flat_map(|p| {
                    let mut b = p.off.to_le_bytes().to_vec();
                    b.extend_from_slice(&p.len.to_le_bytes());
                    b
                })
                .collect()
        };
        for (a, &k) in counts.iter().enumerate() {
            if k > 0 && a != c.me {
                sends.push(self.ep.isend_vec(list_of(a), c.cc.ranks[a], TAG_LISTS, ctx));
            }
        }
        let mut others: Vec<Vec<(u64, u64)>> = vec![Vec::new(); c.n];
        let to_pairs = |b: &[u8]| -> Vec<(u64, u64)> {
            b.chunks(16)
                .map(|x| {
                    (
                        u64::from_le_bytes(x[..8].try_into().expect("8")),
                        u64::from_le_bytes(x[8..].try_into().expect("8")),
                    )
                })
                .collect()
        };
        others[c.me] = to_pairs(&list_of(c.me));
        let ids: Vec<ReqId> = recvs
            .iter()
            .map(|r| r.1)
            .chain(sends.iter().copied())
            .collect();
        self.ep.wait_all(&ids);
        for (i, r) in recvs {
            others[i] = to_pairs(&self.ep.take_vec(r));
        }
        for s in sends {
            self.ep.free(s);
        }
        // step 5: rounds
        let lo = others.iter().flatten().map(|p| p.0).min();
        let hi = others.iter().flatten().map(|p| p.0 + p.1).max();
        let ntimes = match (lo, hi) {
            (Some(lo), Some(hi)) => (hi - lo).div_ceil(c.cb) as i32,
            _ => 0,
        };
        let mut v = [ntimes];
        super::file::allreduce_i32(self, &c.cc, &mut v, i32::max);
        (pieces, others, v[0] as usize)
    }

    /// The window of round `m` of an aggregator whose requested range is
    /// [lo, hi): its start and size.
    fn window(lo: u64, hi: u64, cb: u64, m: usize) -> (u64, u64) {
        let off = lo + m as u64 * cb;
        (off, cb.min(hi.saturating_sub(off)))
    }

    /// Per rank: the segments of its runs inside [off, off + size), taken
    /// from the front of `others` (cursor `at`: run index, bytes done).
    fn segments(
        others: &[Vec<(u64, u64)>],
        at: &mut [(usize, u64)],
        off: u64,
        size: u64,
    ) -> Vec<Vec<(u64, u64)>> {
        let mut out = vec![Vec::new(); others.len()];
        for (i, runs) in others.iter().enumerate() {
            let (j, done) = &mut at[i];
            while *j < runs.len() {
                let (o, l) = runs[*j];
                let start = o + *done;
                if start >= off + size {
                    break;
                }
                let take = (l - *done).min(off + size - start);
                out[i].push((start, take));
                *done += take;
                if *done == l {
                    *j += 1;
                    *done = 0;
                } else {
                    break;
                }
            }
        }
        out
    }

    /// Collective write of `data` (in data order) to `runs`.
    pub(crate) fn two_phase_write(
        &mut self,
        fh: MPI_File,
        runs: &[(u64, u64)],
        data: &[u8],
        empty_at: u64,
    ) -> MpiResult<()> {
        let mode = self.io.get(fh)?.hints.cb_write;
        let c = self.tp_ctx(fh)?;
        let (sts, ends, two) = self.tp_ranges(&c, runs, empty_at, mode);
        if !two {
            return self.write_runs(fh, runs, data).map(|_| ());
        }
        let (pieces, others, max_ntimes) = self.tp_plan(&c, runs, &sts, &ends);
        // my data by aggregator, in order
        let mut stream: Vec<Vec<u8>> = vec![Vec::new(); c.n];
        for p in &pieces {
            stream[p.agg].extend_from_slice(&data[p.data..p.data + p.len as usize]);
        }
        let mut sent = vec![0usize; c.n];
        let lo = others.iter().flatten().map(|p| p.0).min().unwrap_or(0);
        let hi = others
            .iter()
            .flatten()
            .map(|p| p.0 + p.1)
            .max()
            .unwrap_or(0);
        let mut at = vec![(0usize, 0u64); c.n];
        let mut err: Option<MpiError> = None;
        let ctx = c.cc.ctx;
        for m in 0..max_ntimes {
            let (off, size) = Self::window(lo, hi, c.cb, m);
            let segs = if size > 0 {
                Self::segments(&others, &mut at, off, size)
            } else {
                vec![Vec::new(); c.n]
            };
            let recv_size: Vec<i32> = segs
                .iter()
                .map(|s| s.iter().map(|x| x.1).sum::<u64>() as i32)
                .collect();
            let mut send_size = vec![0u8; 4 * c.n];
            coll::alltoall::alltoall(
                &mut comm(self, &c.cc),
                Some(&bytes_i32(&recv_size)),
                &mut send_size,
            );
            let send_size = i32s(&send_size);
            let any = recv_size.iter().any(|&s| s > 0);
            let mut buf = Vec::new();
            if any {
                buf = vec![0u8; size as usize];
                // holes: read-modify-write
                let mut cov: Vec<(u64, u64)> = segs.iter().flatten().copied().collect();
                cov.sort_unstable();
                let mut reach = off;
                let mut hole = false;
                for (o, l) in &cov {
                    if *o > reach {
                        hole = true;
                    }
                    reach = reach.max(o + l);
                }
                if hole || reach < off + size {
                    if let Err(e) = read_full(&c.host, &mut buf, off) {
                        err.get_or_insert(io_error(&e, "collective write (read-modify-write)"));
                    }
                    self.io_charge(size);
                }
            }
            let mut recvs = Vec::new();
            for (i, &s) in recv_size.iter().enumerate() {
                if s > 0 && i != c.me {
                    let r = self.ep.irecv_vec(
                        s as usize,
                        Some(c.cc.ranks[i]),
                        Some(TAG_DATA + m as i32),
                        ctx,
                    );
                    recvs.push((i, r));
                }
            }
            let mut sends = Vec::new();
            for (a, &s) in send_size.iter().enumerate() {
                if s > 0 && a != c.me {
                    let chunk = stream[a][sent[a]..sent[a] + s as usize].to_vec();
                    sent[a] += s as usize;
                    sends.push(
                        self.ep
                            .isend_vec(chunk, c.cc.ranks[a], TAG_DATA + m as i32, ctx),
                    );
                }
            }
            let mut got: Vec<Vec<u8>> = vec![Vec::new(); c.n];
            if send_size[c.me] > 0 {
                let s = send_size[c.me] as usize;
                got[c.me] = stream[c.me][sent[c.me]..sent[c.me] + s].to_vec();
                sent[c.me] += s;
            }
            let ids: Vec<ReqId> = recvs
                .iter()
                .map(|r| r.1)
                .chain(sends.iter().copied())
                .collect();
            if !ids.is_empty() {
                self.ep.wait_all(&ids);
            }
            for (i, r) in recvs {
                got[i] = self.ep.take_vec(r);
            }
            for s in sends {
                self.ep.free(s);
            }
            if any {
                for (i, s) in segs.iter().enumerate() {
                    let mut k = 0;
                    for &(o, l) in s {
                        let d = (o - off) as usize;
                        buf[d..d + l as usize].copy_from_slice(&got[i][k..k + l as usize]);
                        k += l as usize;
                    }
                }
                if let Err(e) = c.host.write_all_at(&buf, off) {
                    err.get_or_insert(io_error(&e, "collective write"));
                }
                self.io_charge(size);
            }
        }
        // step 7: agree on the outcome
        let mine = err.as_ref().map_or(0, |e| e.class);
        let agreed = if c.aggs.len() == 1 {
            let mut b = mine.to_le_bytes();
            coll::bcast::bcast(&mut comm(self, &c.cc), &mut b, c.aggs[0]);
            i32::from_le_bytes(b)
        } else {
            let mut v = [mine];
            super::file::allreduce_i32(self, &c.cc, &mut v, i32::max);
            v[0]
        };
        match err {
            Some(e) => Err(e),
            None if agreed != 0 => Err(MpiError::new(
                sys::MPI_ERR_IO,
                "the collective write failed at an aggregator",
            )),
            None => Ok(()),
        }
    }

    /// Collective read of `runs` into `out` (data order).
    pub(crate) fn two_phase_read(
        &mut self,
        fh: MPI_File,
        runs: &[(u64, u64)],
        out: &mut [u8],
        empty_at: u64,
    ) -> MpiResult<usize> {
        let mode = self.io.get(fh)?.hints.cb_read;
        let c = self.tp_ctx(fh)?;
        let (sts, ends, two) = self.tp_ranges(&c, runs, empty_at, mode);
        if !two {
            return self.read_runs(fh, runs, out);
        }
        let (pieces, others, max_ntimes) = self.tp_plan(&c, runs, &sts, &ends);
        let lo = others.iter().flatten().map(|p| p.0).min().unwrap_or(0);
        let hi = others
            .iter()
            .flatten()
            .map(|p| p.0 + p.1)
            .max()
            .unwrap_or(0);
        let mut at = vec![(0usize, 0u64); c.n];
        let mut stream: Vec<Vec<u8>> = vec![Vec::new(); c.n];
        let mut err: Option<MpiError> = None;
        let ctx = c.cc.ctx;
        for m in 0..max_ntimes {
            let (off, size) = Self::window(lo, hi, c.cb, m);
            let segs = if size > 0 {
                Self::segments(&others, &mut at, off, size)
            } else {
                vec![Vec::new(); c.n]
            };
            let send_size: Vec<i32> = segs
                .iter()
                .map(|s| s.iter().map(|x| x.1).sum::<u64>() as i32)
                .collect();
            let mut buf = Vec::new();
            if send_size.iter().any(|&s| s > 0) {
                buf = vec![0u8; size as usize];
                if let Err(e) = read_full(&c.host, &mut buf, off) {
                    err.get_or_insert(io_error(&e, "collective read"));
                }
                self.io_charge(size);
            }
            let mut recv_size = vec![0u8; 4 * c.n];
            coll::alltoall::alltoall(
                &mut comm(self, &c.cc),
                Some(&bytes_i32(&send_size)),
                &mut recv_size,
            );
            let recv_size = i32s(&recv_size);
            let mut recvs = Vec::new();
            for (a, &s) in recv_size.iter().enumerate() {
                if s > 0 && a != c.me {
                    let r = self.ep.irecv_vec(
                        s as usize,
                        Some(c.cc.ranks[a]),
                        Some(TAG_DATA + m as i32),
                        ctx,
                    );
                    recvs.push((a, r));
                }
            }
            let mut sends = Vec::new();
            for (i, s) in segs.iter().enumerate() {
                if s.is_empty() {
                    continue;
                }
                let mut chunk = Vec::new();
                for &(o, l) in s {
                    let d = (o - off) as usize;
                    chunk.extend_from_slice(&buf[d..d + l as usize]);
                }
                if i == c.me {
                    stream[c.me].extend_from_slice(&chunk);
                } else {
                    sends.push(
                        self.ep
                            .isend_vec(chunk, c.cc.ranks[i], TAG_DATA + m as i32, ctx),
                    );
                }
            }
            let ids: Vec<ReqId> = recvs
                .iter()
                .map(|r| r.1)
                .chain(sends.iter().copied())
                .collect();
            if !ids.is_empty() {
                self.ep.wait_all(&ids);
            }
            for (a, r) in recvs {
                let v = self.ep.take_vec(r);
                stream[a].extend_from_slice(&v);
            }
            for s in sends {
                self.ep.free(s);
            }
        }
        let mut used = vec![0usize; c.n];
        for p in &pieces {
            let l = p.len as usize;
            let src = &stream[p.agg][used[p.agg]..used[p.agg] + l];
            out[p.data..p.data + l].copy_from_slice(src);
            used[p.agg] += l;
        }
        match err {
            Some(e) => Err(e),
            None => Ok(out.len()),
        }
    }
}

/// Read `buf.len()` bytes at `off`; what lies beyond the end of the file
/// reads as zeros.
fn read_full(f: &std::fs::File, buf: &mut [u8], off: u64) -> std::io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        let n = f.read_at(&mut buf[done..], off + done as u64)?;
        if n == 0 {
            buf[done..].fill(0);
            break;
        }
        done += n;
    }
    Ok(())
}
