//! Minimum, average and maximum of a per-rank figure (picoseconds).

/// min / avg / max over ranks of a virtual time in picoseconds (all zero when
/// there are no ranks).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub min_ps: u64,
    pub max_ps: u64,
    pub total_ps: u128,
    pub count: u64,
}

impl Stats {
    pub fn of(values: impl IntoIterator<Item = u64>) -> Stats {
        let mut s = Stats {
            min_ps: u64::MAX,
            ..Stats::default()
        };
        for v in values {
            s.min_ps = s.min_ps.min(v);
            s.max_ps = s.max_ps.max(v);
            s.total_ps += v as u128;
            s.count += 1;
        }
        if s.count == 0 {
            s.min_ps = 0;
        }
        s
    }

    pub fn min_s(&self) -> f64 {
        self.min_ps as f64 / 1e12
    }

    pub fn max_s(&self) -> f64 {
        self.max_ps as f64 / 1e12
    }

    pub fn avg_s(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        self.total_ps as f64 / self.count as f64 / 1e12
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_avg_max() {
        let s = Stats::of([3_000, 1_000, 2_000, 6_000]);
        assert_eq!(
            (s.min_ps, s.max_ps, s.total_ps, s.count),
            (1_000, 6_000, 12_000, 4)
        );
        assert_eq!((s.min_s(), s.avg_s(), s.max_s()), (1e-9, 3e-9, 6e-9));
        assert_eq!(Stats::of([]), Stats::default());
    }
}
