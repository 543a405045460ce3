//! The sensitivity fit of the DIMEMAS linear-model paper: from predicted
//! times at several network latencies L and bandwidths BW, the least-squares
//! T = a + b·L + c/BW, with a the constant part (computation and everything
//! that depends on neither), b the number of latencies on the critical path,
//! c the bytes whose transfer is on it.
//!
//! The fit is exact: times are integer picoseconds, L is an integer of
//! picoseconds and 1/BW = 1e12/BW picoseconds per byte a rational, so the
//! normal equations are solved over the rationals (big integers). Points
//! that lie on such a plane give its coefficients exactly, and an integer b
//! comes out as that integer. A parameter that does not vary among the
//! points is not fitted: its term is constant and stays in a.
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};

/// One configuration's point: its latency (ps), bandwidth (bytes per
/// second) and predicted time (ps).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Point {
    pub latency_ps: u64,
    pub bandwidth: u64,
    pub time_ps: u64,
}

/// T = a + b·L + c/BW fitted over some points.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// a, in picoseconds.
    pub a_ps: BigRational,
    /// b, a count of latencies (None when L did not vary).
    pub b: Option<BigRational>,
    /// c, in bytes (None when BW did not vary).
    pub c_bytes: Option<BigRational>,
    /// Per point, the prediction minus the fit (ps).
    pub residuals_ps: Vec<BigRational>,
}

/// How a time splits at one configuration under a fit, as fractions of the
/// fitted time there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shares {
    /// a / T: computation and whatever depends on neither L nor BW (and the
    /// bandwidth part when BW was not swept, the latency part when L was not).
    pub constant: f64,
    /// b·L / T (None when L was not fitted).
    pub latency: Option<f64>,
    /// (c/BW) / T (None when BW was not fitted).
    pub bandwidth: Option<f64>,
}

fn int(x: u64) -> BigRational {
    BigRational::from_integer(BigInt::from(x))
}

/// 1/BW in picoseconds per byte.
fn per_byte(bandwidth: u64) -> BigRational {
    BigRational::new(BigInt::from(1_000_000_000_000u64), BigInt::from(bandwidth))
}

/// A rational as the nearest double.
pub fn to_f64(x: &BigRational) -> f64 {
    x.to_f64().unwrap_or(f64::NAN)
}

/// A rational of picoseconds as seconds (the nearest double).
pub fn ps_to_s(x: &BigRational) -> f64 {
    to_f64(&(x / int(1_000_000_000_000)))
}

impl Fit {
    /// The fitted time at latency `latency_ps` and bandwidth `bandwidth`
    /// (ps).
    pub fn at(&self, latency_ps: u64, bandwidth: u64) -> BigRational {
        let mut t = self.a_ps.clone();
        if let Some(b) = &self.b {
            t += b * int(latency_ps);
        }
        if let Some(c) = &self.c_bytes {
            t += c * per_byte(bandwidth);
        }
        t
    }

    /// The split of the fitted time at (`latency_ps`, `bandwidth`).
    pub fn shares(&self, latency_ps: u64, bandwidth: u64) -> Shares {
        let total = self.at(latency_ps, bandwidth);
        let share = |part: BigRational| {
            if total.is_zero() {
                0.0
            } else {
                to_f64(&(part / &total))
            }
        };
        Shares {
            constant: share(self.a_ps.clone()),
            latency: self.b.as_ref().map(|b| share(b * int(latency_ps))),
            bandwidth: self
                .c_bytes
                .as_ref()
                .map(|c| share(c * per_byte(bandwidth))),
        }
    }

    /// The largest |residual|, in picoseconds.
    pub fn max_residual_ps(&self) -> f64 {
        self.residuals_ps
            .iter()
            .map(|r| to_f64(r).abs())
            .fold(0.0, f64::max)
    }
}

/// Least squares T = a + b·L + c/BW over `points`: b only if L varies among
/// them, c only if BW does. Errs when neither varies, or when the points do
/// not separate the parameters (L and BW varying together).
pub fn fit(points: &[Point]) -> Result<Fit, String> {
    let varies = |f: fn(&Point) -> u64| points.iter().any(|p| f(p) != f(&points[0]));
    if points.is_empty() {
        return Err("no points to fit".into());
    }
    let with_l = varies(|p| p.latency_ps);
    let with_bw = varies(|p| p.bandwidth);
    if !with_l && !with_bw {
        return Err("neither the latency nor the bandwidth varies".into());
    }
    // The design matrix's rows: 1, L, 1/BW (the columns that vary).
    let row = |p: &Point| {
        let mut r = vec![int(1)];
        if with_l {
            r.push(int(p.latency_ps));
        }
        if with_bw {
            r.push(per_byte(p.bandwidth));
        }
        r
    };
    let rows: Vec<Vec<BigRational>> = points.iter().map(row).collect();
    let k = rows[0].len();
    // Normal equations (X^T X) beta = X^T y, as an augmented k x (k+1) matrix.
    let mut m = vec![vec![BigRational::zero(); k + 1]; k];
    for (r, p) in rows.iter().zip(points) {
        let y = int(p.time_ps);
        for i in 0..k {
            for j in 0..k {
                m[i][j] += &r[i] * &r[j];
            }
            m[i][k] += &r[i] * &y;
        }
    }
    let beta = solve(m).ok_or_else(|| {
        "the configurations do not separate the latency from the bandwidth \
         (they vary together): sweep them independently"
            .to_string()
    })?;
    let mut it = beta.into_iter();
    let a_ps = it.next().expect("a");
    let b = if with_l { it.next() } else { None };
    let c_bytes = if with_bw { it.next() } else { None };
    let mut f = Fit {
        a_ps,
        b,
        c_bytes,
        residuals_ps: Vec::new(),
    };
    f.residuals_ps = points
        .iter()
        .map(|p| int(p.time_ps) - f.at(p.latency_ps, p.bandwidth))
        .collect();
    Ok(f)
}

/// Gauss-Jordan elimination of an augmented k x (k+1) system over the
/// rationals; None when it is singular.
fn solve(mut m: Vec<Vec<BigRational>>) -> Option<Vec<BigRational>> {
    let k = m.len();
    for col in 0..k {
        let pivot = (col..k).find(|&r| !m[r][col].is_zero())?;
        m.swap(col, pivot);
        let p = m[col][col].clone();
        for x in m[col].iter_mut() {
            *x /= &p;
        }
        for r in 0..k {
            if r != col && !m[r][col].is_zero() {
                let f = m[r][col].clone();
                let (src, dst) = if r < col {
                    let (a, b) = m.split_at_mut(col);
                    (&b[0], &mut a[r])
                } else {
                    let (a, b) = m.split_at_mut(r);
                    (&a[col], &mut b[0])
                };
                for (d, s) in dst.iter_mut().zip(src.iter()) {
                    *d -= &f * s;
                }
            }
        }
    }
    Some(m.into_iter().map(|r| r[k].clone()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(n: i64, d: i64) -> BigRational {
        BigRational::new(BigInt::from(n), BigInt::from(d))
    }

    /// T(L, BW) in ps of a = 1234567 ps, b = 6, c = 8320 B: exact integers
    /// at bandwidths that divide 1e12 * 8320.
    fn plane(l: u64, bw: u64) -> u64 {
        let t = q(1_234_567, 1) + q(6, 1) * int(l) + q(8320, 1) * per_byte(bw);
        assert!(t.is_integer());
        t.to_integer().try_into().unwrap()
    }

    fn pt(l: u64, bw: u64, t: u64) -> Point {
        Point {
            latency_ps: l,
            bandwidth: bw,
            time_ps: t,
        }
    }

    #[test]
    fn latency_and_bandwidth_recovered_exactly() {
        let mut pts = Vec::new();
        for l in [1_000_000, 2_000_000, 5_000_000] {
            for bw in [1_000_000_000, 2_000_000_000, 4_000_000_000] {
                pts.push(pt(l, bw, plane(l, bw)));
            }
        }
        let f = fit(&pts).unwrap();
        assert_eq!(f.a_ps, q(1_234_567, 1));
        assert_eq!(f.b, Some(q(6, 1)));
        assert_eq!(f.c_bytes, Some(q(8320, 1)));
        assert!(f.residuals_ps.iter().all(|r| r.is_zero()));
        assert_eq!(f.max_residual_ps(), 0.0);
        assert_eq!(to_f64(f.b.as_ref().unwrap()), 6.0);
        assert_eq!(ps_to_s(&f.a_ps), 1_234_567.0 / 1e12);
        // Shares at L = 1 us, BW = 1 GB/s: 1234567 : 6000000 : 8320000.
        let s = f.shares(1_000_000, 1_000_000_000);
        let total = 1_234_567.0 + 6_000_000.0 + 8_320_000.0;
        assert_eq!(s.constant, 1_234_567.0 / total);
        assert_eq!(s.latency, Some(6_000_000.0 / total));
        assert_eq!(s.bandwidth, Some(8_320_000.0 / total));
    }

    /// 4.16 GB/s: 1/BW = 3125/13 ps per byte, not a whole number; with
    /// c = 832 B the time is whole at 4.16 GB/s, not at 6.38 GB/s (rounded
    /// there, as the model rounds). Three points, three parameters: the fit
    /// goes through them, b exact, c close to 832 B.
    #[test]
    fn awkward_bandwidths() {
        let (a, b, c) = (q(777, 1), q(3, 1), q(832, 1));
        let pts: Vec<Point> = [
            (15_000_000, 4_160_000_000),
            (7_000_000, 4_160_000_000),
            (15_000_000, 6_380_000_000),
        ]
        .iter()
        .map(|&(l, bw)| {
            let t = &a + &b * int(l) + &c * per_byte(bw);
            pt(l, bw, t.round().to_integer().try_into().unwrap())
        })
        .collect();
        let f = fit(&pts).unwrap();
        assert_eq!(f.b, Some(b));
        assert!(f.residuals_ps.iter().all(|r| r.is_zero()));
        let cc = to_f64(f.c_bytes.as_ref().unwrap());
        assert!((cc - 832.0).abs() < 1e-2, "{cc}");
    }

    #[test]
    fn latency_only_puts_the_bandwidth_in_a() {
        let bw = 2_000_000_000;
        let pts: Vec<Point> = [1_000_000u64, 2_000_000, 5_000_000]
            .iter()
            .map(|&l| pt(l, bw, plane(l, bw)))
            .collect();
        let f = fit(&pts).unwrap();
        assert_eq!(f.b, Some(q(6, 1)));
        assert_eq!(f.c_bytes, None);
        assert_eq!(f.a_ps, q(1_234_567 + 8320 * 500, 1));
        let s = f.shares(1_000_000, bw);
        assert_eq!(s.bandwidth, None);
        assert!((s.constant + s.latency.unwrap() - 1.0).abs() < 1e-15);
    }

    #[test]
    fn bandwidth_only() {
        let l = 3_000_000;
        let pts: Vec<Point> = [1_000_000_000u64, 4_000_000_000]
            .iter()
            .map(|&bw| pt(l, bw, plane(l, bw)))
            .collect();
        let f = fit(&pts).unwrap();
        assert_eq!(f.b, None);
        assert_eq!(f.c_bytes, Some(q(8320, 1)));
        assert_eq!(f.a_ps, q(1_234_567 + 6 * 3_000_000, 1));
    }

    /// Noisy points: the least-squares line, and residuals that sum to zero.
    #[test]
    fn least_squares_with_residuals() {
        // T = 10 + 2 L, with +1, -1, +1, -1 at L = 0, 1, 2, 3 (ps).
        let pts: Vec<Point> = [(0, 11), (1, 11), (2, 15), (3, 15)]
            .iter()
            .map(|&(l, t)| pt(l, 1, t))
            .collect();
        let f = fit(&pts).unwrap();
        // Centered: mean L = 1.5, mean T = 13; Sxy = (-1.5)(-2) + (-0.5)(-2)
        // + 0.5*2 + 1.5*2 = 8, Sxx = 5: b = 8/5, a = 13 - 1.5*8/5 = 10.6.
        assert_eq!(f.b, Some(q(8, 5)));
        assert_eq!(f.a_ps, q(53, 5));
        let sum: BigRational = f.residuals_ps.iter().sum();
        assert!(sum.is_zero());
        // Fitted 10.6, 12.2, 13.8, 15.4: residuals 0.4, -1.2, 1.2, -0.4.
        assert_eq!(f.residuals_ps, [q(2, 5), q(-6, 5), q(6, 5), q(-2, 5)]);
        assert_eq!(f.max_residual_ps(), 1.2);
    }

    #[test]
    fn what_cannot_be_fitted() {
        assert_eq!(fit(&[]).unwrap_err(), "no points to fit");
        let same = [pt(1, 1, 5), pt(1, 1, 6)];
        assert!(fit(&same).unwrap_err().contains("neither"));
        // L and BW moving together: 1/BW is a multiple of L.
        let together = [
            pt(1_000_000, 1_000_000_000, 10),
            pt(2_000_000, 500_000_000, 20),
        ];
        assert!(fit(&together).unwrap_err().contains("do not separate"));
    }
}
