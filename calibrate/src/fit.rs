//! Fitting vaced's message model to measured one-way times (pure code: no
//! MPI, unit-tested on data generated from the model itself).
//!
//! The model (vaced's, see DESIGN.md), with `M(b) = b / mem_bandwidth`, for a
//! message of `b` bytes whose receiver already waits, over a link of latency
//! `lat` and bandwidth `B`:
//! * eager (`b <= eager_limit`):
//!   `T(b) = o_send + M(b) + lat + b/B + M(b) + o_recv`;
//! * rendezvous: a REQ and an ACK of `H = header_bytes` each, then the DATA,
//!   which leaves `O = rendezvous_overhead` after the ACK and crosses at
//!   `Br = rendezvous_bandwidth`:
//!   `T(b) = o_send + 2 (M(H) + lat + H/B) + O + [M(b) + lat + b/Br + M(b)] + o_recv`,
//!   the bracket being `[lat + b/Br]` on a single-copy on-node path.
//!
//! How a pair's measurements are fitted (`fit_pair`):
//! 1. the eager/rendezvous switch: two straight lines with a break, the break
//!    minimising the residual (`find_switch`); the eager limit is the largest
//!    size of the eager segment;
//! 2. `lat` = the eager line's intercept less `o_send + o_recv` (not below 0);
//! 3. `1/B` by least squares over the eager sizes of the time left once the
//!    overheads, latency and copies are taken off; if that is not positive
//!    (the per-byte time is below the two copies) the copies are not taken
//!    off: the whole per-byte time goes to `B`;
//! 4. `O` and `1/Br` by a weighted straight line through the rendezvous
//!    sizes' time left once the overheads, the REQ and ACK, the DATA's
//!    latency and its copies are taken off (`O` not below 0: a negative
//!    intercept keeps the line's slope; copies not taken off when the
//!    per-byte time is below them, as in 3);
//! 5. on-node, both single_copy = false and true are fitted so, and the one
//!    with the smaller RMS error is kept (two copies on a tie: with `Br`
//!    free, a ping-pong tells them apart only when the rendezvous per-byte
//!    time is below two copies).
//!
//! Every least-squares fit here weighs each size by `1 / T²`: it minimises
//! relative errors, so that small messages count as much as large ones.

/// The model's fixed costs: what is measured or chosen before the fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Costs {
    /// bytes per second of a memory copy
    pub mem_bandwidth: f64,
    /// seconds
    pub o_send: f64,
    pub o_recv: f64,
    pub header_bytes: u64,
}

/// A link's parameters: what `[network]` (off-node) or `[network.node]`
/// (on-node) hold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    /// seconds
    pub latency: f64,
    /// bytes per second
    pub bandwidth: f64,
    /// bytes: the largest eager message
    pub eager_limit: u64,
    /// rendezvous DATA without copies in and out (on-node only)
    pub single_copy: bool,
    /// seconds from the ACK to the rendezvous DATA's start
    pub rendezvous_overhead: f64,
    /// bytes per second of the rendezvous DATA
    pub rendezvous_bandwidth: f64,
}

/// vaced's one-way time of a `b`-byte message on `link` (the receiver
/// already waits).
pub fn model_time(c: &Costs, link: &Link, b: u64) -> f64 {
    let m = |x: u64| x as f64 / c.mem_bandwidth;
    let wire = |x: u64| link.latency + x as f64 / link.bandwidth;
    let h = c.header_bytes;
    if b <= link.eager_limit {
        c.o_send + m(b) + wire(b) + m(b) + c.o_recv
    } else {
        let wire_r = link.latency + b as f64 / link.rendezvous_bandwidth;
        let data = if link.single_copy {
            wire_r
        } else {
            m(b) + wire_r + m(b)
        };
        c.o_send + 2.0 * (m(h) + wire(h)) + link.rendezvous_overhead + data + c.o_recv
    }
}

/// `t = intercept + slope * bytes`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    pub intercept: f64,
    pub slope: f64,
}

impl Line {
    pub fn at(&self, b: u64) -> f64 {
        self.intercept + self.slope * b as f64
    }
}

/// Least squares line through (bytes, seconds) with weights 1/t², and its
/// residual: the sum of squared relative errors. None below 2 points or when
/// every size is the same.
pub fn line_fit(s: &[(u64, f64)]) -> Option<(Line, f64)> {
    let points: Vec<(f64, f64, f64)> = s
        .iter()
        .map(|&(b, t)| (b as f64, t, 1.0 / (t * t)))
        .collect();
    let (intercept, slope) = weighted_line(&points)?;
    let line = Line { intercept, slope };
    let ssr = s.iter().map(|&(b, t)| ((t - line.at(b)) / t).powi(2)).sum();
    Some((line, ssr))
}

/// The eager/rendezvous switch found in a pair's one-way times.
#[derive(Clone, Debug, PartialEq)]
pub struct Switch {
    /// The largest eager size measured (the largest size of all when no
    /// switch was found).
    pub eager_limit: u64,
    /// The smallest rendezvous size measured (None: no switch).
    pub first_rendezvous: Option<u64>,
    pub eager: Line,
    pub rendezvous: Option<Line>,
    /// Residuals (sums of squared relative errors) of the two lines with the
    /// break, and of one line through every size.
    pub residual_two: f64,
    pub residual_one: f64,
}

/// Each segment of a two-line fit has at least this many sizes.
const MIN_SEGMENT: usize = 3;

/// Fits two lines with a break to `s` (sorted by size, sizes distinct),
/// trying every break, and keeps the one with the smallest total residual. It
/// is the eager/rendezvous switch if the time jumps there (the rendezvous
/// line is at least 5 % above or below the eager one at the first rendezvous
/// size: a single-copy rendezvous can be faster than eager) and the break at
/// least halves the residual of one line; otherwise every size counts as
/// eager.
pub fn find_switch(s: &[(u64, f64)]) -> Result<Switch, String> {
    let (one, residual_one) =
        line_fit(s).ok_or("too few message sizes to fit (at least two distinct ones)")?;
    let mut best: Option<(usize, Line, Line, f64)> = None;
    for k in MIN_SEGMENT..=s.len().saturating_sub(MIN_SEGMENT) {
        let (Some((e, re)), Some((r, rr))) = (line_fit(&s[..k]), line_fit(&s[k..])) else {
            continue;
        };
        if best.as_ref().is_none_or(|b| re + rr < b.3) {
            best = Some((k, e, r, re + rr));
        }
    }
    let none = Switch {
        eager_limit: s[s.len() - 1].0,
        first_rendezvous: None,
        eager: one,
        rendezvous: None,
        residual_two: residual_one,
        residual_one,
    };
    let Some((k, e, r, residual_two)) = best else {
        return Ok(none);
    };
    let first = s[k].0;
    let jumps = (r.at(first) - e.at(first)).abs() > 0.05 * e.at(first);
    if !jumps || residual_two > 0.5 * residual_one {
        return Ok(none);
    }
    Ok(Switch {
        eager_limit: s[k - 1].0,
        first_rendezvous: Some(first),
        eager: e,
        rendezvous: Some(r),
        residual_two,
        residual_one,
    })
}

/// One measured size next to the model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row {
    pub bytes: u64,
    pub measured: f64,
    pub modelled: f64,
    pub rendezvous: bool,
}

impl Row {
    /// (modelled - measured) / measured
    pub fn rel_error(&self) -> f64 {
        (self.modelled - self.measured) / self.measured
    }
}

/// A pair's fit: the link parameters and how well they reproduce the data.
#[derive(Clone, Debug, PartialEq)]
pub struct PairFit {
    pub link: Link,
    pub switch: Switch,
    /// The per-byte time beyond the copies was not positive: the whole of it
    /// was charged to the bandwidth.
    pub charged_all: bool,
    /// The same for the rendezvous bandwidth.
    pub charged_all_rendezvous: bool,
    /// RMS of the relative errors over every size.
    pub rms: f64,
    /// The RMS with the other single_copy choice (on-node fits only).
    pub rms_other: Option<f64>,
    pub rows: Vec<Row>,
}

fn rms(rows: &[Row]) -> f64 {
    (rows.iter().map(|r| r.rel_error().powi(2)).sum::<f64>() / rows.len() as f64).sqrt()
}

/// The weighted least-squares line through (x, y) points with weights w:
/// (intercept, slope). None below 2 points or when every x is the same.
fn weighted_line(p: &[(f64, f64, f64)]) -> Option<(f64, f64)> {
    let (mut sw, mut sx, mut sy, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(x, y, w) in p {
        sw += w;
        sx += w * x;
        sy += w * y;
        sxx += w * x * x;
        sxy += w * x * y;
    }
    let det = sw * sxx - sx * sx;
    if p.len() < 2 || det.abs() <= f64::EPSILON * sw * sxx {
        return None;
    }
    let slope = (sw * sxy - sx * sy) / det;
    Some(((sy - slope * sx) / sw, slope))
}

/// The weighted least-squares slope of a line through the origin.
fn origin_slope(p: &[(f64, f64, f64)]) -> f64 {
    let (n, d) = p.iter().fold((0.0, 0.0), |(n, d), &(x, y, w)| {
        (n + w * x * y, d + w * x * x)
    });
    if d > 0.0 {
        n / d
    } else {
        0.0
    }
}

/// Fits `solve` (a weighted line: intercept, per-byte time) to each size's
/// time left once `fixed(size)` and, with `copies`, the two copies
/// (2 size / mem_bandwidth) are taken off, weighted 1/t²; if the per-byte
/// time left is not positive, fits again without taking the copies off.
/// Returns (intercept, bandwidth = 1 / per-byte time, at most 1 PB/s, and
/// whether the copies had to be charged to it).
fn per_byte_fit(
    sizes: &[(u64, f64)],
    c: &Costs,
    copies: bool,
    fixed: impl Fn(u64) -> f64,
    solve: impl Fn(&[(f64, f64, f64)]) -> (f64, f64),
) -> (f64, f64, bool) {
    let points = |copies: bool| -> Vec<(f64, f64, f64)> {
        let m = if copies { 2.0 / c.mem_bandwidth } else { 0.0 };
        sizes
            .iter()
            .map(|&(b, t)| (b as f64, t - (fixed(b) + m * b as f64), 1.0 / (t * t)))
            .collect()
    };
    let (o, x) = solve(&points(copies));
    if x > 0.0 {
        return (o, 1.0 / x, false);
    }
    // Below the copies: everything per byte goes to the bandwidth.
    let (o, x) = solve(&points(false));
    (o, 1.0 / x.max(1e-15), true)
}

/// The least-squares eager bandwidth for a latency and switch, and whether
/// the copies had to be charged to it.
fn fit_bandwidth(s: &[(u64, f64)], c: &Costs, link: &Link) -> (f64, bool) {
    let eager: Vec<(u64, f64)> = s
        .iter()
        .copied()
        .filter(|&(b, _)| b <= link.eager_limit)
        .collect();
    let fixed = |_| c.o_send + c.o_recv + link.latency;
    let (_, bandwidth, charged) = per_byte_fit(&eager, c, true, fixed, |p| (0.0, origin_slope(p)));
    (bandwidth, charged)
}

/// The rendezvous DATA's overhead and bandwidth for a fitted eager link
/// and copy choice, and whether the copies had to be charged to the
/// bandwidth. Without rendezvous sizes: no overhead, the eager bandwidth.
fn fit_rendezvous(s: &[(u64, f64)], c: &Costs, link: &Link) -> (f64, f64, bool) {
    let h = c.header_bytes as f64;
    let rdv: Vec<(u64, f64)> = s
        .iter()
        .copied()
        .filter(|&(b, _)| b > link.eager_limit)
        .collect();
    if rdv.len() < 2 {
        return (0.0, link.bandwidth, false);
    }
    let handshake = 2.0 * (h / c.mem_bandwidth + link.latency + h / link.bandwidth);
    let fixed = |_| c.o_send + c.o_recv + handshake + link.latency;
    // A negative intercept (the fixed part over-counted, e.g. a shaped
    // link whose first sizes pass in its bucket) keeps the line's per-byte
    // time, which large messages follow, with no overhead.
    let solve = |p: &[(f64, f64, f64)]| -> (f64, f64) {
        match weighted_line(p) {
            Some((o, x)) => (o.max(0.0), x),
            None => (0.0, origin_slope(p)),
        }
    };
    per_byte_fit(&rdv, c, !link.single_copy, fixed, solve)
}

fn fit_with(s: &[(u64, f64)], c: &Costs, sw: &Switch, single_copy: bool) -> PairFit {
    let mut link = Link {
        latency: (sw.eager.intercept - c.o_send - c.o_recv).max(0.0),
        bandwidth: 0.0,
        eager_limit: sw.eager_limit,
        single_copy,
        rendezvous_overhead: 0.0,
        rendezvous_bandwidth: 0.0,
    };
    let (bandwidth, charged_all) = fit_bandwidth(s, c, &link);
    link.bandwidth = bandwidth;
    let (overhead, rdv_bandwidth, charged_all_rendezvous) = fit_rendezvous(s, c, &link);
    link.rendezvous_overhead = overhead;
    link.rendezvous_bandwidth = rdv_bandwidth;
    let rows: Vec<Row> = s
        .iter()
        .map(|&(b, t)| Row {
            bytes: b,
            measured: t,
            modelled: model_time(c, &link, b),
            rendezvous: b > link.eager_limit,
        })
        .collect();
    PairFit {
        link,
        switch: sw.clone(),
        charged_all,
        charged_all_rendezvous,
        rms: rms(&rows),
        rms_other: None,
        rows,
    }
}

/// Fits a link to one pair's (bytes, best one-way seconds). With
/// `on_node`, single_copy is chosen by the smaller RMS error (off-node links
/// always copy in and out).
pub fn fit_pair(samples: &[(u64, f64)], c: &Costs, on_node: bool) -> Result<PairFit, String> {
    let mut s = samples.to_vec();
    s.sort_by_key(|x| x.0);
    s.dedup_by_key(|x| x.0);
    if let Some(&(b, t)) = s.iter().find(|(_, t)| !(t.is_finite() && *t > 0.0)) {
        return Err(format!("the one-way time of {b} B is not positive: {t}"));
    }
    let sw = find_switch(&s)?;
    let two = fit_with(&s, c, &sw, false);
    if !on_node || sw.rendezvous.is_none() {
        return Ok(two);
    }
    let one = fit_with(&s, c, &sw, true);
    // two copies on a tie (see the module doc)
    Ok(if one.rms < two.rms * (1.0 - 1e-6) {
        PairFit {
            rms_other: Some(two.rms),
            ..one
        }
    } else {
        PairFit {
            rms_other: Some(one.rms),
            ..two
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const COSTS: Costs = Costs {
        mem_bandwidth: 10e9,
        o_send: 150e-9,
        o_recv: 120e-9,
        header_bytes: 64,
    };

    /// The ping-pong sizes of `measure::sizes(4 MiB)`.
    fn sizes() -> Vec<u64> {
        let mut v = vec![0];
        let mut p = 1u64;
        while p <= 4 << 20 {
            v.push(p);
            if p >= 2 && p + p / 2 <= 4 << 20 {
                v.push(p + p / 2);
            }
            p *= 2;
        }
        v
    }

    fn synthetic(link: &Link) -> Vec<(u64, f64)> {
        sizes()
            .into_iter()
            .map(|b| (b, model_time(&COSTS, link, b)))
            .collect()
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        ((a - b) / b).abs() <= tol
    }

    /// Recovers latency and bandwidth within 1e-9 relative (the data is
    /// exact), the switch exactly, and the copy choice.
    fn recovers(link: Link, on_node: bool) {
        let f = fit_pair(&synthetic(&link), &COSTS, on_node).unwrap();
        assert_eq!(f.link.eager_limit, link.eager_limit, "{f:?}");
        assert_eq!(f.link.single_copy, link.single_copy, "{f:?}");
        assert!(close(f.link.latency, link.latency, 1e-9), "{f:?}");
        assert!(close(f.link.bandwidth, link.bandwidth, 1e-9), "{f:?}");
        assert!(
            close(f.link.rendezvous_overhead, link.rendezvous_overhead, 1e-6),
            "{f:?}"
        );
        assert!(
            close(f.link.rendezvous_bandwidth, link.rendezvous_bandwidth, 1e-6),
            "{f:?}"
        );
        assert!(!f.charged_all && !f.charged_all_rendezvous);
        assert!(f.rms < 1e-9, "{}", f.rms);
        assert!(f.rows.iter().all(|r| r.rel_error().abs() < 1e-9));
    }

    #[test]
    fn recovers_an_off_node_link() {
        recovers(
            Link {
                latency: 1.9e-6,
                bandwidth: 3.2e9,
                eager_limit: 64 << 10,
                single_copy: false,
                rendezvous_overhead: 4e-6,
                rendezvous_bandwidth: 2.5e9,
            },
            false,
        );
    }

    #[test]
    fn recovers_an_on_node_single_copy_link() {
        recovers(
            Link {
                latency: 0.3e-6,
                bandwidth: 8e9,
                eager_limit: 12 << 10,
                single_copy: true,
                rendezvous_overhead: 2.5e-6,
                rendezvous_bandwidth: 6e9,
            },
            true,
        );
    }

    #[test]
    fn recovers_an_on_node_two_copy_link() {
        recovers(
            Link {
                latency: 0.5e-6,
                bandwidth: 20e9,
                eager_limit: 8 << 10,
                single_copy: false,
                rendezvous_overhead: 1e-6,
                rendezvous_bandwidth: 9e9,
            },
            true,
        );
    }

    #[test]
    fn switch_at_a_size_between_powers_of_two() {
        let link = Link {
            latency: 1e-6,
            bandwidth: 5e9,
            eager_limit: 48 << 10,
            single_copy: false,
            rendezvous_overhead: 0.0,
            rendezvous_bandwidth: 5e9,
        };
        let sw = find_switch(&synthetic(&link)).unwrap();
        assert_eq!(sw.eager_limit, 48 << 10);
        assert_eq!(sw.first_rendezvous, Some(64 << 10));
    }

    #[test]
    fn no_switch_when_everything_is_eager() {
        let link = Link {
            latency: 1e-6,
            bandwidth: 5e9,
            eager_limit: 1 << 30,
            single_copy: false,
            rendezvous_overhead: 0.0,
            rendezvous_bandwidth: 5e9,
        };
        let f = fit_pair(&synthetic(&link), &COSTS, true).unwrap();
        assert_eq!(f.switch.first_rendezvous, None);
        assert_eq!(f.link.eager_limit, 4 << 20);
        assert!(close(f.link.bandwidth, 5e9, 1e-9));
        assert_eq!(f.rms_other, None);
    }

    #[test]
    fn latency_is_not_negative() {
        // Overheads larger than the whole small-message time.
        let c = Costs {
            o_send: 2e-6,
            o_recv: 2e-6,
            ..COSTS
        };
        let data: Vec<(u64, f64)> = sizes()
            .into_iter()
            .map(|b| (b, 1e-6 + b as f64 * 3e-10))
            .collect();
        let f = fit_pair(&data, &c, false).unwrap();
        assert_eq!(f.link.latency, 0.0);
    }

    #[test]
    fn below_two_copies_charges_everything_to_the_bandwidth() {
        // 0.1 ns per byte, less than two copies at 10 GB/s (0.2 ns per byte).
        let data: Vec<(u64, f64)> = sizes()
            .into_iter()
            .map(|b| (b, 1e-6 + b as f64 * 1e-10))
            .collect();
        let f = fit_pair(&data, &COSTS, false).unwrap();
        assert!(f.charged_all);
        assert!(close(f.link.bandwidth, 10e9, 1e-9), "{f:?}");
        assert!(close(f.link.latency, 1e-6 - 270e-9, 1e-9), "{f:?}");
    }

    #[test]
    fn noisy_data_keeps_the_switch() {
        let link = Link {
            latency: 0.4e-6,
            bandwidth: 6e9,
            eager_limit: 16 << 10,
            single_copy: true,
            rendezvous_overhead: 3e-6,
            rendezvous_bandwidth: 6e9,
        };
        // +-3 % deterministic noise.
        let data: Vec<(u64, f64)> = synthetic(&link)
            .into_iter()
            .enumerate()
            .map(|(i, (b, t))| (b, t * (1.0 + 0.03 * ((i * 7 % 5) as f64 - 2.0) / 2.0)))
            .collect();
        let f = fit_pair(&data, &COSTS, true).unwrap();
        assert_eq!(f.link.eager_limit, 16 << 10);
        assert!(f.link.single_copy);
        assert!(close(f.link.bandwidth, 6e9, 0.05), "{f:?}");
        assert!(close(f.link.rendezvous_bandwidth, 6e9, 0.05), "{f:?}");
        assert!(close(f.link.rendezvous_overhead, 3e-6, 0.2), "{f:?}");
        assert!(f.rms < 0.05, "{}", f.rms);
    }

    #[test]
    fn a_negative_rendezvous_intercept_keeps_the_slope() {
        // eager: 6 us + 0.5 ns/B up to 2 KiB; then 12.5 MB/s (80 ns/B)
        // with a line that would cross 0 at 2.6 KiB: the large sizes set
        // the bandwidth, the overhead is 0.
        let data: Vec<(u64, f64)> = sizes()
            .into_iter()
            .map(|b| {
                let t = if b <= 2048 {
                    6e-6 + b as f64 * 0.5e-9
                } else {
                    b as f64 * 80e-9 - 200e-6
                };
                (b, t.max(40e-6))
            })
            .collect();
        let f = fit_pair(&data, &COSTS, false).unwrap();
        assert_eq!(f.link.eager_limit, 2048, "{f:?}");
        assert_eq!(f.link.rendezvous_overhead, 0.0, "{f:?}");
        assert!(close(f.link.rendezvous_bandwidth, 12.5e6, 0.02), "{f:?}");
    }

    #[test]
    fn rejects_bad_times() {
        let e = fit_pair(&[(0, 1e-6), (8, 0.0), (16, 1e-6)], &COSTS, false).unwrap_err();
        assert_eq!(e, "the one-way time of 8 B is not positive: 0");
        assert!(fit_pair(&[(0, 1e-6)], &COSTS, false).is_err());
    }
}
