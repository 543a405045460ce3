//! What a sweep reports: the table of configurations and their predicted
//! times, the sensitivity fits (per group of configurations that differ only
//! in `network.latency` and `network.net_bandwidth`: per rank and for the
//! job), printed on stdout and written as `sweep.json`.
use super::config::{numeric, Base, Config};
use super::fit::{self, Fit, Point};
use super::run::Outcome;
use crate::model::units::{format_bandwidth, format_time};
use crate::model::VTime;
use num_rational::BigRational;
use serde_json::{json, Value};
use std::path::Path;

/// The keys the fit reads: L and BW.
pub const LATENCY_KEY: &str = "network.latency";
pub const BANDWIDTH_KEY: &str = "network.net_bandwidth";

/// What the output says about how the configurations were run.
/// How the configurations were predicted (`separate`: one run each).
pub fn how(separate: bool) -> &'static str {
    if separate {
        "one run per configuration"
    } else {
        "one execution (the first configuration ran, the others were replayed)"
    }
}

/// A group of configurations that differ only in L and BW, and its fits.
#[derive(Debug, Clone)]
pub struct GroupFit {
    pub base: usize,
    /// The other swept keys' values, the same for the whole group.
    pub fixed: Vec<(String, String)>,
    /// Indices of its configurations.
    pub members: Vec<usize>,
    /// The base target's L (ps) and BW: where the shares are given.
    pub base_latency_ps: u64,
    pub base_bandwidth: u64,
    pub job: Result<Fit, String>,
    pub ranks: Vec<Result<Fit, String>>,
}

/// The fits of a sweep: none unless it sweeps L or BW.
pub fn fits(bases: &[Base], configs: &[Config], outcomes: &[Outcome]) -> Vec<GroupFit> {
    let fit_key = |k: &str| k == LATENCY_KEY || k == BANDWIDTH_KEY;
    if !configs
        .first()
        .is_some_and(|c| c.values.iter().any(|(k, _)| fit_key(k)))
    {
        return Vec::new();
    }
    let mut groups: Vec<GroupFit> = Vec::new();
    for (i, c) in configs.iter().enumerate() {
        let fixed: Vec<(String, String)> = c
            .values
            .iter()
            .filter(|(k, _)| !fit_key(k))
            .cloned()
            .collect();
        match groups
            .iter_mut()
            .find(|g| g.base == c.base && g.fixed == fixed)
        {
            Some(g) => g.members.push(i),
            None => groups.push(GroupFit {
                base: c.base,
                fixed,
                members: vec![i],
                base_latency_ps: bases[c.base].model.latency.ps(),
                base_bandwidth: bases[c.base].model.net_bandwidth,
                job: Err(String::new()),
                ranks: Vec::new(),
            }),
        }
    }
    for g in &mut groups {
        let points = |time: &dyn Fn(&Outcome) -> u64| -> Vec<Point> {
            g.members
                .iter()
                .map(|&i| Point {
                    latency_ps: configs[i].model.latency.ps(),
                    bandwidth: configs[i].model.net_bandwidth,
                    time_ps: time(&outcomes[i]),
                })
                .collect()
        };
        g.job = fit::fit(&points(&|o| o.predicted_ps));
        let nranks = g
            .members
            .iter()
            .map(|&i| outcomes[i].ranks_ps.len())
            .min()
            .unwrap_or(0);
        g.ranks = (0..nranks)
            .map(|r| fit::fit(&points(&|o| o.ranks_ps[r])))
            .collect();
    }
    groups
}

/// A coefficient: the integer when it is one, else 6 significant digits.
fn coef(x: &BigRational) -> String {
    if x.is_integer() {
        x.to_integer().to_string()
    } else {
        format!("{:.6}", fit::to_f64(x))
    }
}

/// A time in ps: exact when whole, else 6 significant digits.
fn time_ps(x: &BigRational) -> String {
    match x.is_integer().then(|| u64::try_from(x.to_integer())) {
        Some(Ok(ps)) => format_time(VTime::from_ps(ps)),
        _ => secs6(fit::ps_to_s(x)),
    }
}

/// Seconds with 6 significant digits in the unit that suits them (ps
/// below a nanosecond).
fn secs6(s: f64) -> String {
    if s == 0.0 {
        return "0 s".into();
    }
    let units = [
        ("s", 1.0),
        ("ms", 1e3),
        ("us", 1e6),
        ("ns", 1e9),
        ("ps", 1e12),
    ];
    let (name, per) = units
        .iter()
        .find(|(_, per)| s.abs() * per >= 1.0)
        .unwrap_or(&units[4]);
    let x = s * per;
    let digits = (5 - x.abs().log10().floor() as i32).clamp(0, 9) as usize;
    format!("{x:.digits$} {name}")
}

fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{:.1} %", x * 100.0))
}

/// The JSON of one fit, or of why there is none.
fn fit_json(f: &Result<Fit, String>, lat: u64, bw: u64) -> Value {
    match f {
        Err(e) => json!({ "error": e }),
        Ok(f) => {
            let s = f.shares(lat, bw);
            json!({
                "a_s": fit::ps_to_s(&f.a_ps),
                "a_ps": fit::to_f64(&f.a_ps),
                "b_latencies": f.b.as_ref().map(fit::to_f64),
                "c_bytes": f.c_bytes.as_ref().map(fit::to_f64),
                "residuals_s": f.residuals_ps.iter().map(fit::ps_to_s).collect::<Vec<_>>(),
                "residuals_ps": f.residuals_ps.iter().map(fit::to_f64).collect::<Vec<_>>(),
                "max_residual_s": f.max_residual_ps() / 1e12,
                "shares_at_base": {
                    "constant": s.constant,
                    "latency": s.latency,
                    "bandwidth": s.bandwidth,
                },
            })
        }
    }
}

/// Everything `sweep.json` holds.
pub struct Sweep<'a> {
    pub bases: &'a [Base],
    pub configs: &'a [Config],
    pub outcomes: &'a [Outcome],
    pub fits: &'a [GroupFit],
    pub dir: &'a Path,
    pub nranks: u32,
    pub command: Vec<String>,
    /// One run per configuration (`--separate`).
    pub separate: bool,
}

impl Sweep<'_> {
    pub fn to_json(&self) -> Value {
        let configs: Vec<Value> = self
            .configs
            .iter()
            .zip(self.outcomes)
            .enumerate()
            .map(|(i, (c, o))| {
                let (t, r) = super::config::paths(self.dir, i);
                let values: serde_json::Map<String, Value> = c
                    .values
                    .iter()
                    .map(|(k, v)| (k.clone(), json!(v)))
                    .collect();
                let numbers: serde_json::Map<String, Value> = c
                    .values
                    .iter()
                    .map(|(k, v)| {
                        let n = numeric(v).expect("checked when built");
                        (k.clone(), json!({ "value": n.value(), "unit": n.unit() }))
                    })
                    .collect();
                json!({
                    "index": i,
                    "base": self.bases[c.base].spec,
                    "values": values,
                    "numeric": numbers,
                    "latency_s": c.model.latency.as_secs_f64(),
                    "net_bandwidth_bytes_per_s": c.model.net_bandwidth,
                    "target_file": t,
                    "report": r,
                    "predicted_s": o.predicted_ps as f64 / 1e12,
                    "predicted_ps": o.predicted_ps,
                    "slowest_rank": o.slowest_rank,
                    "ranks_ps": o.ranks_ps,
                    "exact": o.differing == 0,
                    "differing_outcomes": o.differing,
                    "ranks_s": o.ranks_ps.iter().map(|&p| p as f64 / 1e12).collect::<Vec<_>>(),
                })
            })
            .collect();
        let fits: Vec<Value> = self
            .fits
            .iter()
            .map(|g| {
                let fixed: serde_json::Map<String, Value> =
                    g.fixed.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
                let (l, bw) = (g.base_latency_ps, g.base_bandwidth);
                json!({
                    "model": "T = a + b*L + c/BW",
                    "base": self.bases[g.base].spec,
                    "fixed": fixed,
                    "configurations": g.members,
                    "base_latency_s": l as f64 / 1e12,
                    "base_net_bandwidth_bytes_per_s": bw,
                    "job": fit_json(&g.job, l, bw),
                    "ranks": g.ranks.iter().map(|f| fit_json(f, l, bw)).collect::<Vec<_>>(),
                })
            })
            .collect();
        json!({
            "note": how(self.separate),
            "command": self.command,
            "nranks": self.nranks,
            "bases": self.bases.iter().map(|b| b.spec.clone()).collect::<Vec<_>>(),
            "configurations": configs,
            "fits": fits,
        })
    }

    /// The text printed at the end: the configurations, then the fits.
    pub fn text(&self) -> String {
        let mut out = format!(
            "vaced sweep: {} configurations, {}\n\n",
            self.configs.len(),
            how(self.separate)
        );
        let mut rows = vec![vec![
            "#".to_string(),
            "configuration".into(),
            "predicted".into(),
            "slowest rank".into(),
            "".into(),
        ]];
        for (i, (c, o)) in self.configs.iter().zip(self.outcomes).enumerate() {
            rows.push(vec![
                i.to_string(),
                c.label(self.bases),
                format_time(VTime::from_ps(o.predicted_ps)),
                o.slowest_rank.to_string(),
                if o.differing > 0 {
                    format!("approximate ({} outcomes differ)", o.differing)
                } else {
                    String::new()
                },
            ]);
        }
        out += &table(&rows);
        for g in self.fits {
            out += &self.fit_text(g);
        }
        out
    }

    fn fit_text(&self, g: &GroupFit) -> String {
        let mut out = format!(
            "\nSensitivity fit T = a + b*L + c/BW (L = {LATENCY_KEY}, BW = {BANDWIDTH_KEY}): \
             least squares over the {} configurations",
            g.members.len()
        );
        let mut with: Vec<String> = Vec::new();
        if self.bases.len() > 1 {
            with.push(format!("of {}", self.bases[g.base].spec));
        }
        if !g.fixed.is_empty() {
            let kv: Vec<String> = g.fixed.iter().map(|(k, v)| format!("{k}={v}")).collect();
            with.push(format!("with {}", kv.join(" ")));
        }
        for w in with {
            out += " ";
            out += &w;
        }
        out += &format!(
            "\na in time, b in latencies, c in bytes; shares of the fitted time at the base \
             (L = {}, BW = {})\n",
            format_time(VTime::from_ps(g.base_latency_ps)),
            format_bandwidth(g.base_bandwidth)
        );
        if let Err(e) = &g.job {
            out += &format!("  no fit: {e}\n");
            return out;
        }
        let mut rows = vec![[
            "",
            "a",
            "b",
            "c",
            "max |residual|",
            "constant",
            "latency",
            "bandwidth",
        ]
        .map(String::from)
        .to_vec()];
        let row = |name: String, f: &Result<Fit, String>| match f {
            Err(e) => vec![name, format!("no fit: {e}")],
            Ok(f) => {
                let s = f.shares(g.base_latency_ps, g.base_bandwidth);
                vec![
                    name,
                    time_ps(&f.a_ps),
                    f.b.as_ref().map_or("(L not swept)".into(), coef),
                    f.c_bytes.as_ref().map_or("(BW not swept)".into(), coef),
                    secs6(f.max_residual_ps() / 1e12),
                    pct(Some(s.constant)),
                    pct(s.latency),
                    pct(s.bandwidth),
                ]
            }
        };
        rows.push(row("job".into(), &g.job));
        const SHOWN: usize = 16;
        for (r, f) in g.ranks.iter().enumerate().take(SHOWN) {
            rows.push(row(format!("rank {r}"), f));
        }
        out += &table(&rows);
        if g.ranks.len() > SHOWN {
            out += &format!("  ({} more ranks in sweep.json)\n", g.ranks.len() - SHOWN);
        }
        if let Ok(f) = &g.job {
            out += "  job residuals (ps):";
            for (i, r) in g.members.iter().zip(&f.residuals_ps) {
                out += &format!(" #{i} {}", coef(r));
            }
            out += "\n";
            if f.c_bytes.is_none() {
                out += "  BW was not swept: the bandwidth-bound part is in a\n";
            }
            if f.b.is_none() {
                out += "  L was not swept: the latency-bound part is in a\n";
            }
        }
        out
    }
}

/// Rows as left-aligned columns, two spaces apart, indented by two.
fn table(rows: &[Vec<String>]) -> String {
    let ncols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width = |c: usize| {
        rows.iter()
            .filter(|r| r.len() > 1)
            .filter_map(|r| r.get(c))
            .map(|s| s.chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..ncols).map(width).collect();
    let mut out = String::new();
    for r in rows {
        let mut line = String::from(" ");
        for (c, cell) in r.iter().enumerate() {
            line += " ";
            if c + 1 == r.len() {
                line += cell;
            } else {
                line += &format!("{cell:<w$} ", w = widths[c]);
            }
        }
        out += line.trim_end();
        out += "\n";
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align() {
        let rows = vec![
            vec!["a".to_string(), "bb".into(), "c".into()],
            vec!["ddd".to_string(), "e".into(), "f".into()],
        ];
        assert_eq!(table(&rows), "  a    bb  c\n  ddd  e   f\n");
    }

    #[test]
    fn coefficients_print_exactly_when_whole() {
        use num_bigint::BigInt;
        let q = |n: i64, d: i64| BigRational::new(BigInt::from(n), BigInt::from(d));
        assert_eq!(coef(&q(8, 1)), "8");
        assert_eq!(coef(&q(8, 5)), "1.600000");
        assert_eq!(
            time_ps(&q(1_500_000, 1)),
            format_time(VTime::from_ps(1_500_000))
        );
        assert_eq!(time_ps(&q(1, 2)), "0.500000 ps");
        assert_eq!(time_ps(&q(7_210_696_123, 10)), "721.070 us");
        assert_eq!(secs6(0.0), "0 s");
        assert_eq!(secs6(-1.5e-11), "-15.0000 ps");
        assert_eq!(secs6(2.5), "2.50000 s");
    }
}
