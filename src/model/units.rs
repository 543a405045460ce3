//! Values with units in target files: bandwidths, times and sizes.
//!
//! Parsing is exact: the decimal digits become an integer mantissa and a power
//! of ten (no `f64` on the way), so `"0.6 us"` is exactly 600 000 ps and
//! `"6.38 GB/s"` exactly 6 380 000 000 B/s. Decimal prefixes (kB, MB, GB, TB)
//! are powers of 1000, binary ones (KiB, MiB, GiB, TiB) powers of 1024.
//! Formatting gives strings that parse back to the same value.
//!
//! Errors are plain messages (without the key); the configuration parser adds
//! the key.
use super::VTime;

/// Accepted bandwidth units and their factor in bytes per second.
const BANDWIDTH: &[(&str, u128)] = &[
    ("B/s", 1),
    ("kB/s", 1_000),
    ("MB/s", 1_000_000),
    ("GB/s", 1_000_000_000),
    ("TB/s", 1_000_000_000_000),
    ("KiB/s", 1 << 10),
    ("MiB/s", 1 << 20),
    ("GiB/s", 1 << 30),
    ("TiB/s", 1 << 40),
];

/// Accepted time units and their factor in picoseconds.
const TIME: &[(&str, u128)] = &[
    ("s", 1_000_000_000_000),
    ("ms", 1_000_000_000),
    ("us", 1_000_000),
    ("\u{b5}s", 1_000_000),  // micro sign
    ("\u{3bc}s", 1_000_000), // Greek small letter mu
    ("ns", 1_000),
    ("ps", 1),
];

/// Accepted size units and their factor in bytes.
const SIZE: &[(&str, u128)] = &[
    ("B", 1),
    ("kB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("TB", 1_000_000_000_000),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
    ("TiB", 1 << 40),
];

/// What kind of quantity a value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    Bandwidth,
    Time,
    Size,
}

impl Quantity {
    fn table(self) -> &'static [(&'static str, u128)] {
        match self {
            Quantity::Bandwidth => BANDWIDTH,
            Quantity::Time => TIME,
            Quantity::Size => SIZE,
        }
    }

    /// The accepted units, comma separated, for error messages.
    pub fn units(self) -> String {
        let names: Vec<&str> = self.table().iter().map(|(u, _)| *u).collect();
        names.join(", ")
    }

    /// An example value, for error messages.
    pub fn example(self) -> &'static str {
        match self {
            Quantity::Bandwidth => "6.38 GB/s",
            Quantity::Time => "15 us",
            Quantity::Size => "128 KiB",
        }
    }
}

/// A non-negative decimal number `mantissa * 10^exp10`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Decimal {
    mantissa: u128,
    exp10: i32,
}

/// Splits `"6.38 GB/s"` into `("6.38", "GB/s")` (the space is optional).
fn split_number(s: &str) -> (&str, &str) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let in_number = c.is_ascii_digit()
            || c == b'.'
            || ((c == b'+' || c == b'-') && (i == 0 || matches!(b[i - 1], b'e' | b'E')))
            || (matches!(c, b'e' | b'E')
                && i > 0
                && b.get(i + 1)
                    .is_some_and(|n| n.is_ascii_digit() || *n == b'+' || *n == b'-'));
        if !in_number {
            break;
        }
        i += 1;
    }
    (s[..i].trim(), s[i..].trim())
}

/// Parses `[+]digits[.digits][e[+-]digits]` exactly.
fn parse_decimal(s: &str) -> Result<Decimal, String> {
    let bad = || format!("`{s}` is not a number");
    let (body, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let body = body.strip_prefix('+').unwrap_or(body);
    if body.starts_with('-') {
        return Err("must not be negative".to_string());
    }
    let (int, frac) = match body.split_once('.') {
        Some((i, f)) => (i, f),
        None => (body, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return Err(bad());
    }
    let mut mantissa: u128 = 0;
    for c in int.chars().chain(frac.chars()) {
        let d = c.to_digit(10).ok_or_else(bad)?;
        mantissa = mantissa
            .checked_mul(10)
            .and_then(|m| m.checked_add(d as u128))
            .ok_or_else(|| format!("`{s}` has too many digits"))?;
    }
    let mut exp10 = -(frac.len() as i32);
    if let Some(e) = exp {
        let e: i32 = e.parse().map_err(|_| bad())?;
        if e.abs() > 1000 {
            return Err(format!("`{s}`: exponent out of range"));
        }
        exp10 += e;
    }
    Ok(Decimal { mantissa, exp10 })
}

/// `mantissa * 10^exp10 * factor`, rounded to the nearest integer (ties away
/// from zero); the second value tells whether it was exact.
fn scale(d: Decimal, factor: u128) -> Option<(u128, bool)> {
    let x = d.mantissa.checked_mul(factor)?;
    if x == 0 {
        return Some((0, true));
    }
    if d.exp10 >= 0 {
        let p = 10u128.checked_pow(d.exp10 as u32)?;
        return Some((x.checked_mul(p)?, true));
    }
    // x < 2^128 < 10^39, so dividing by 10^39 or more leaves less than 0.5.
    let Some(div) = 10u128.checked_pow(d.exp10.unsigned_abs()) else {
        return Some((0, false));
    };
    let (q, r) = (x / div, x % div);
    Some((if r >= div - r { q + 1 } else { q }, r == 0))
}

/// Parses a value of `q` to its integer base unit (B/s, ps or B). Times below
/// a picosecond round to the nearest picosecond; sizes must be whole bytes.
pub fn parse(q: Quantity, s: &str) -> Result<u64, String> {
    let (num, unit) = split_number(s.trim());
    if num.is_empty() {
        return Err(format!(
            "`{s}` does not start with a number (write e.g. \"{}\")",
            q.example()
        ));
    }
    if unit.is_empty() {
        return Err(format!(
            "`{s}` has no unit (write e.g. \"{}\"; accepted units: {})",
            q.example(),
            q.units()
        ));
    }
    let Some(&(_, factor)) = q.table().iter().find(|(u, _)| *u == unit) else {
        return Err(format!(
            "unknown unit `{unit}` in `{s}` (accepted units: {})",
            q.units()
        ));
    };
    let d = parse_decimal(num)?;
    let too_large = || format!("`{s}` is too large");
    let (v, exact) = scale(d, factor).ok_or_else(too_large)?;
    let v = u64::try_from(v).map_err(|_| too_large())?;
    if q == Quantity::Size && !exact {
        return Err(format!("`{s}` is not a whole number of bytes"));
    }
    Ok(v)
}

/// Parses a bandwidth such as `"6.38 GB/s"` to bytes per second (rounded to
/// the nearest integer; must be > 0).
pub fn parse_bandwidth(s: &str) -> Result<u64, String> {
    let v = parse(Quantity::Bandwidth, s)?;
    if v == 0 {
        return Err(format!("`{s}`: a bandwidth must be greater than 0 B/s"));
    }
    Ok(v)
}

/// Parses a time such as `"0.6 us"` to picoseconds.
pub fn parse_time(s: &str) -> Result<VTime, String> {
    parse(Quantity::Time, s).map(VTime::from_ps)
}

/// Parses a size such as `"128 KiB"` to bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    parse(Quantity::Size, s)
}

/// `n / 10^k` written exactly, without trailing zeros.
fn decimal_string(n: u64, k: u32) -> String {
    let p = 10u64.pow(k);
    let (int, frac) = (n / p, n % p);
    if frac == 0 {
        return int.to_string();
    }
    let f = format!("{:0width$}", frac, width = k as usize);
    format!("{int}.{}", f.trim_end_matches('0'))
}

/// A bandwidth in the largest decimal unit it reaches, e.g. `"6.38 GB/s"`.
pub fn format_bandwidth(bytes_per_sec: u64) -> String {
    const UNITS: &[(&str, u32)] = &[("TB/s", 12), ("GB/s", 9), ("MB/s", 6), ("kB/s", 3)];
    for &(u, k) in UNITS {
        if bytes_per_sec >= 10u64.pow(k) {
            return format!("{} {u}", decimal_string(bytes_per_sec, k));
        }
    }
    format!("{bytes_per_sec} B/s")
}

/// A time in the largest unit it reaches, e.g. `"15 us"`, `"600 ns"`.
pub fn format_time(t: VTime) -> String {
    const UNITS: &[(&str, u32)] = &[("s", 12), ("ms", 9), ("us", 6), ("ns", 3)];
    let ps = t.ps();
    if ps == 0 {
        return "0 s".to_string();
    }
    for &(u, k) in UNITS {
        if ps >= 10u64.pow(k) {
            return format!("{} {u}", decimal_string(ps, k));
        }
    }
    format!("{ps} ps")
}

/// A size in the largest binary unit dividing it exactly (else decimal, else
/// bytes), e.g. `"128 KiB"`.
pub fn format_size(bytes: u64) -> String {
    if bytes == 0 {
        return "0 B".to_string();
    }
    const BIN: &[(&str, u32)] = &[("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)];
    for &(u, sh) in BIN {
        if bytes.is_multiple_of(1u64 << sh) {
            return format!("{} {u}", bytes >> sh);
        }
    }
    const DEC: &[(&str, u32)] = &[("TB", 12), ("GB", 9), ("MB", 6), ("kB", 3)];
    for &(u, k) in DEC {
        if bytes.is_multiple_of(10u64.pow(k)) {
            return format!("{} {u}", bytes / 10u64.pow(k));
        }
    }
    format!("{bytes} B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bandwidth_units() {
        assert_eq!(parse_bandwidth("6.38 GB/s"), Ok(6_380_000_000));
        assert_eq!(parse_bandwidth("4.16 GB/s"), Ok(4_160_000_000));
        assert_eq!(parse_bandwidth("4160 MB/s"), Ok(4_160_000_000));
        assert_eq!(parse_bandwidth("1.5 GiB/s"), Ok(1_610_612_736));
        assert_eq!(parse_bandwidth("800 MiB/s"), Ok(838_860_800));
        assert_eq!(parse_bandwidth("100 B/s"), Ok(100));
        assert_eq!(parse_bandwidth("2.5 kB/s"), Ok(2_500));
        assert_eq!(parse_bandwidth("1 KiB/s"), Ok(1_024));
        assert_eq!(parse_bandwidth("0.001 TB/s"), Ok(1_000_000_000));
        assert_eq!(parse_bandwidth("12GB/s"), Ok(12_000_000_000));
        assert_eq!(parse_bandwidth("  1e3 MB/s "), Ok(1_000_000_000));
        // rounded to the nearest byte per second, ties away from zero
        assert_eq!(parse_bandwidth("1.5 B/s"), Ok(2));
        assert_eq!(parse_bandwidth("1.49 B/s"), Ok(1));
        assert_eq!(
            parse_bandwidth("0.0000001 KiB/s"),
            Err("`0.0000001 KiB/s`: a bandwidth must be greater than 0 B/s".to_string())
        );
    }

    #[test]
    fn time_units() {
        assert_eq!(parse_time("15 us").unwrap().ps(), 15_000_000);
        assert_eq!(parse_time("0.6 us").unwrap().ps(), 600_000);
        assert_eq!(parse_time("1.5 ns").unwrap().ps(), 1_500);
        assert_eq!(parse_time("2 ms").unwrap().ps(), 2_000_000_000);
        assert_eq!(parse_time("1 s").unwrap().ps(), 1_000_000_000_000);
        assert_eq!(parse_time("250 ps").unwrap().ps(), 250);
        assert_eq!(parse_time("0 s").unwrap().ps(), 0);
        assert_eq!(parse_time("3 \u{b5}s").unwrap().ps(), 3_000_000);
        assert_eq!(parse_time("3 \u{3bc}s").unwrap().ps(), 3_000_000);
        assert_eq!(parse_time(".5 us").unwrap().ps(), 500_000);
        assert_eq!(parse_time("1.5e-6 s").unwrap().ps(), 1_500_000);
        // 0.1 + 0.2 style values stay exact: 0.3 s is 3e11 ps, not 299999999999
        assert_eq!(parse_time("0.3 s").unwrap().ps(), 300_000_000_000);
        assert_eq!(
            parse_time("0.123456789012 s").unwrap().ps(),
            123_456_789_012
        );
        // below a picosecond: nearest picosecond
        assert_eq!(parse_time("1.2345 ns").unwrap().ps(), 1_235);
        assert_eq!(parse_time("0.4 ps").unwrap().ps(), 0);
    }

    #[test]
    fn size_units() {
        assert_eq!(parse_size("128 KiB"), Ok(131_072));
        assert_eq!(parse_size("64 B"), Ok(64));
        assert_eq!(parse_size("1 MB"), Ok(1_000_000));
        assert_eq!(parse_size("1.5 KiB"), Ok(1_536));
        assert_eq!(parse_size("4 MiB"), Ok(4_194_304));
        assert_eq!(parse_size("0 B"), Ok(0));
        assert_eq!(
            parse_size("0.3 B"),
            Err("`0.3 B` is not a whole number of bytes".to_string())
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            parse_size("12"),
            Err("`12` has no unit (write e.g. \"128 KiB\"; accepted units: B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)".to_string())
        );
        assert_eq!(
            parse_bandwidth("6.38 Gb/s"),
            Err("unknown unit `Gb/s` in `6.38 Gb/s` (accepted units: B/s, kB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s)".to_string())
        );
        assert_eq!(
            parse_time("15 sec"),
            Err("unknown unit `sec` in `15 sec` (accepted units: s, ms, us, \u{b5}s, \u{3bc}s, ns, ps)".to_string())
        );
        assert_eq!(parse_time("-1 us"), Err("must not be negative".to_string()));
        assert_eq!(
            parse_time("us"),
            Err("`us` does not start with a number (write e.g. \"15 us\")".to_string())
        );
        assert_eq!(
            parse_time("1.2.3 us"),
            Err("`1.2.3` is not a number".to_string())
        );
        assert_eq!(parse_time(". us"), Err("`.` is not a number".to_string()));
        assert_eq!(
            parse_time("20000000 s"),
            Err("`20000000 s` is too large".to_string())
        );
        assert_eq!(
            parse_size("99999999999999999999999999999999999999999 B"),
            Err("`99999999999999999999999999999999999999999` has too many digits".to_string())
        );
    }

    #[test]
    fn format_round_trips() {
        assert_eq!(format_bandwidth(6_380_000_000), "6.38 GB/s");
        assert_eq!(format_bandwidth(1_610_612_736), "1.610612736 GB/s");
        assert_eq!(format_bandwidth(100), "100 B/s");
        assert_eq!(format_time(VTime::from_ps(15_000_000)), "15 us");
        assert_eq!(format_time(VTime::from_ps(600_000)), "600 ns");
        assert_eq!(format_time(VTime::from_ps(1_234_567)), "1.234567 us");
        assert_eq!(format_time(VTime::from_ps(250)), "250 ps");
        assert_eq!(format_time(VTime::ZERO), "0 s");
        assert_eq!(format_size(131_072), "128 KiB");
        assert_eq!(format_size(1_000_000), "1 MB");
        assert_eq!(format_size(1_536), "1536 B");
        assert_eq!(format_size(64), "64 B");
        for v in [1, 999, 1_000, 1_001, 6_380_000_000, 1_610_612_736, u64::MAX] {
            assert_eq!(parse_bandwidth(&format_bandwidth(v)), Ok(v));
            assert_eq!(parse_size(&format_size(v)), Ok(v));
            assert_eq!(parse_time(&format_time(VTime::from_ps(v))).unwrap().ps(), v);
        }
    }
}
