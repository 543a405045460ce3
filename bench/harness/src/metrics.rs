//! The derived figures of the tables: relative error, slowdown, efficiency,
//! spread and speed-up, and how numbers are printed in them.

/// RE = predicted / real - 1.
pub fn relative_error(predicted: f64, real: f64) -> Option<f64> {
    (real > 0.0 && predicted.is_finite()).then(|| predicted / real - 1.0)
}

/// slowdown = host wall / predicted.
pub fn slowdown(wall: f64, predicted: f64) -> Option<f64> {
    (predicted > 0.0).then(|| wall / predicted)
}

/// efficiency = total computation / (cores x wall).
pub fn efficiency(computation: f64, cores: u32, wall: f64) -> Option<f64> {
    (cores > 0 && wall > 0.0).then(|| computation / (cores as f64 * wall))
}

/// (max - min) / min of a set of values (0 when they are all equal).
pub fn spread(values: &[f64]) -> Option<f64> {
    let min = values.iter().copied().reduce(f64::min)?;
    let max = values.iter().copied().reduce(f64::max)?;
    if max == min {
        return Some(0.0);
    }
    (min > 0.0).then(|| (max - min) / min)
}

/// Seconds with 4 significant digits ("0.01234", "12.35", "1235").
pub fn secs(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let digits = 3 - x.abs().log10().floor() as i32;
    if (-6..=9).contains(&digits) {
        format!("{:.*}", digits.max(0) as usize, x)
    } else {
        format!("{x:.3e}")
    }
}

/// A signed percentage with 2 decimals ("+1.25%").
pub fn percent(x: f64) -> String {
    format!("{:+.2}%", x * 100.0)
}

/// A ratio with 2 decimals, or 3 significant digits below 0.1.
pub fn ratio(x: f64) -> String {
    if x.abs() < 0.1 && x != 0.0 {
        secs(x)
    } else {
        format!("{x:.2}")
    }
}

/// Bytes as MiB with 1 decimal.
pub fn mib(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / (1024.0 * 1024.0))
}

/// "-" for a missing figure.
pub fn opt(x: Option<f64>, f: fn(f64) -> String) -> String {
    x.map_or_else(|| "-".to_string(), f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_figures() {
        assert_eq!(relative_error(1.1, 1.0), Some(1.1 / 1.0 - 1.0));
        assert_eq!(relative_error(0.5, 2.0), Some(-0.75));
        assert_eq!(relative_error(1.0, 0.0), None);
        assert_eq!(slowdown(30.0, 1.5), Some(20.0));
        assert_eq!(slowdown(30.0, 0.0), None);
        assert_eq!(efficiency(3.0, 2, 2.0), Some(0.75));
        assert_eq!(efficiency(3.0, 0, 2.0), None);
        assert_eq!(spread(&[2.0, 2.0]), Some(0.0));
        assert_eq!(spread(&[2.0, 2.5, 2.25]), Some(0.25));
        assert_eq!(spread(&[]), None);
    }

    #[test]
    fn formats() {
        assert_eq!(secs(0.0123456), "0.01235");
        assert_eq!(secs(12.3456), "12.35");
        assert_eq!(secs(1234.4), "1234");
        assert_eq!(secs(0.5), "0.5000");
        assert_eq!(secs(0.0), "0");
        assert_eq!(secs(1.5e-9), "1.500e-9");
        assert_eq!(percent(0.01254), "+1.25%");
        assert_eq!(percent(-0.5), "-50.00%");
        assert_eq!(ratio(0.8567), "0.86");
        assert_eq!(ratio(0.012345), "0.01235");
        assert_eq!(ratio(123.456), "123.46");
        assert_eq!(mib(3 * 1024 * 1024 / 2), "1.5");
        assert_eq!(opt(None, secs), "-");
        assert_eq!(opt(Some(2.0), ratio), "2.00");
    }
}
