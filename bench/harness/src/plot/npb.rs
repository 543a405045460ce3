//! The figures of `bench-npb/run --plot DIR`: per case (kernel, class,
//! ranks), the real time (MPICH) beside each predicted time (vaced at each
//! --cores, SMPI), and the RE of each prediction against the real time;
//! with --repeat, the medians of the runs.
use super::chart::{self, Bars, Series, PALETTE, REAL};
use crate::kernels::Runner;
use crate::npb::CaseKey;

/// A figure: its file name and SVG.
pub type Figure = (String, String);

fn series_name(r: Runner, cores: u32) -> String {
    match r {
        Runner::Mpich => "MPICH (real time)".into(),
        Runner::Vaced => format!("vaced --cores {cores}"),
        Runner::Smpi => "SMPI".into(),
    }
}

/// The figures of a table: `<stem>-time.svg` and, when there are real
/// times, `<stem>-re.svg`. `timers`: each case's timer values in run order.
pub fn figures(
    stem: &str,
    timers: &[(CaseKey, Vec<f64>)],
    repeat: u32,
) -> Result<Vec<Figure>, String> {
    let mut groups: Vec<(String, String, u32)> = Vec::new();
    let mut series: Vec<(Runner, u32)> = Vec::new();
    for ((k, c, r, runner, cores), _) in timers {
        let g = (k.clone(), c.clone(), *r);
        if !groups.contains(&g) {
            groups.push(g);
        }
        let s = (*runner, if *runner == Runner::Vaced { *cores } else { 0 });
        if !series.contains(&s) {
            series.push(s);
        }
    }
    // MPICH first, then the predictions in the order they ran.
    series.sort_by_key(|s| s.0 != Runner::Mpich);
    let median = |g: &(String, String, u32), s: &(Runner, u32)| {
        let v: Vec<f64> = timers
            .iter()
            .filter(|((k, c, r, run, cores), _)| {
                (k, c, *r) == (&g.0, &g.1, g.2)
                    && *run == s.0
                    && (s.0 != Runner::Vaced || *cores == s.1)
            })
            .flat_map(|(_, v)| v.iter().copied())
            .collect();
        crate::npb::median(&v)
    };
    let group_names: Vec<String> = groups
        .iter()
        .map(|g| format!("{} {} {}", g.0, g.1, g.2))
        .collect();
    let mut colors = PALETTE.iter().copied();
    let legend: Vec<Series> = series
        .iter()
        .map(|s| Series {
            name: series_name(s.0, s.1),
            color: if s.0 == Runner::Mpich {
                REAL
            } else {
                colors.next().unwrap_or(REAL)
            },
        })
        .collect();
    let times: Vec<Vec<Option<f64>>> = groups
        .iter()
        .map(|g| series.iter().map(|s| median(g, s)).collect())
        .collect();
    let all: Vec<f64> = times.iter().flatten().flatten().copied().collect();
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = all.iter().copied().fold(0.0, f64::max);
    let log_y = lo > 0.0 && hi / lo > 10.0;
    let of_runs = if repeat > 1 {
        format!(", median of {repeat} runs")
    } else {
        String::new()
    };
    let notes = vec![
        "each case: kernel class ranks".to_string(),
        "time: the kernel's own timer".to_string(),
        "(virtual under vaced and SMPI)".to_string(),
    ];
    let mut out = vec![(
        format!("{stem}-time.svg"),
        chart::bars(&Bars {
            title: format!("predicted and real time per case{of_runs}"),
            y_desc: if log_y {
                "time (s, log scale)".into()
            } else {
                "time (s)".into()
            },
            groups: group_names.clone(),
            series: legend.clone(),
            values: times.clone(),
            log_y,
            label: None,
            notes,
        })?,
    )];
    if series.first().map(|s| s.0) == Some(Runner::Mpich) {
        let re: Vec<Vec<Option<f64>>> = times
            .iter()
            .map(|row| {
                row[1..]
                    .iter()
                    .map(|p| {
                        let (p, r) = ((*p)?, row[0]?);
                        crate::metrics::relative_error(p, r).map(|e| e * 100.0)
                    })
                    .collect()
            })
            .collect();
        out.push((
            format!("{stem}-re.svg"),
            chart::bars(&Bars {
                title: format!("relative error of the predicted time per case{of_runs}"),
                y_desc: "RE = predicted / real - 1 (%)".into(),
                groups: group_names,
                series: legend[1..].to_vec(),
                values: re,
                log_y: false,
                label: Some(|v| format!("{v:+.1}%")),
                notes: vec![
                    "real: MPICH on this host".into(),
                    "each case: kernel class ranks".into(),
                ],
            })?,
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::chart::{LEGEND_WIDTH, WIDTH};
    use crate::plot::svg::Svg;

    fn key(k: &str, r: Runner, cores: u32) -> CaseKey {
        (k.into(), "S".into(), 4, r, cores)
    }

    #[test]
    fn time_and_re_per_case() {
        // two cases; MPICH, vaced at 1 and 2 cores; repeated runs give medians
        let timers = vec![
            (key("cg", Runner::Mpich, 2), vec![0.40, 0.50, 0.45]),
            (key("cg", Runner::Vaced, 1), vec![0.50, 0.50, 0.50]),
            (key("cg", Runner::Vaced, 2), vec![0.36, 0.36, 0.36]),
            (key("is", Runner::Mpich, 2), vec![0.20, 0.20, 0.20]),
            (key("is", Runner::Vaced, 1), vec![0.25, 0.25, 0.25]),
            (key("is", Runner::Vaced, 2), vec![0.15, 0.15, 0.15]),
        ];
        let figs = figures("npb-x", &timers, 3).unwrap();
        assert_eq!(figs.len(), 2);
        assert_eq!(figs[0].0, "npb-x-time.svg");
        assert_eq!(figs[1].0, "npb-x-re.svg");
        let plot = (WIDTH - LEGEND_WIDTH) as f64;
        let t = Svg::parse(&figs[0].1);
        let [real, c1, c2] = [REAL, PALETTE[0], PALETTE[1]].map(|c| t.rects(c, 0.0, plot));
        // linear axis (0.15 .. 0.5 s is within a decade): heights proportional
        let px = real[0].h / 0.45;
        for (r, v) in [
            (real[1], 0.20),
            (c1[0], 0.50),
            (c1[1], 0.25),
            (c2[0], 0.36),
            (c2[1], 0.15),
        ] {
            assert!((r.h - v * px).abs() <= 1.0, "{r:?} for {v} s");
        }
        // in each group: real, then cores 1, then cores 2, left to right
        assert!(real[0].x < c1[0].x && c1[0].x < c2[0].x && c2[0].x < real[1].x);
        for s in [
            "predicted and real time per case, median of 3 runs",
            "time (s)",
            "cg S 4",
            "is S 4",
            "MPICH (real time)",
            "vaced --cores 1",
            "vaced --cores 2",
        ] {
            assert!(t.has_text(s), "no `{s}` in {:?}", t.texts);
        }
        // RE: cg +11.1 % and -20 %, is +25 % and -25 %, around the zero line
        let re = Svg::parse(&figs[1].1);
        let [c1, c2] = [PALETTE[0], PALETTE[1]].map(|c| re.rects(c, 0.0, plot));
        assert_eq!((c1.len(), c2.len()), (2, 2));
        let zero = c1[0].y + c1[0].h;
        assert_eq!(c2[0].y, zero, "negative RE hangs from the zero line");
        let px = c1[1].h / 25.0;
        assert!((c1[0].h - px * (0.5 / 0.45 - 1.0) * 100.0).abs() <= 1.0);
        assert!((c2[0].h - px * 20.0).abs() <= 1.0);
        assert!((c2[1].h - px * 25.0).abs() <= 1.0);
        for s in [
            "+11.1%",
            "-20.0%",
            "+25.0%",
            "-25.0%",
            "RE = predicted / real - 1 (%)",
        ] {
            assert!(re.has_text(s), "no `{s}` in {:?}", re.texts);
        }
        assert!(!re.has_text("MPICH (real time)"));
    }

    #[test]
    fn without_mpich_no_re_and_a_log_axis_over_decades() {
        let timers = vec![
            (key("ep", Runner::Vaced, 2), vec![2.0]),
            (key("is", Runner::Vaced, 2), vec![0.02]),
            (key("is", Runner::Smpi, 1), vec![0.002]),
        ];
        let figs = figures("n", &timers, 1).unwrap();
        assert_eq!(figs.len(), 1, "no RE without real times");
        let t = Svg::parse(&figs[0].1);
        let plot = (WIDTH - LEGEND_WIDTH) as f64;
        let v = t.rects(PALETTE[0], 0.0, plot);
        let s = t.rects(PALETTE[1], 0.0, plot);
        assert_eq!((v.len(), s.len()), (2, 1));
        // log axis from 0.001 to 10: each decade the same height
        let decade = (v[0].h - v[1].h) / 2.0;
        assert!((v[1].h - s[0].h - decade).abs() <= 1.0, "{v:?} {s:?}");
        // 2 ms rises from the 1 ms floor: log10(2) of a decade
        assert!((s[0].h - decade * 2f64.log10()).abs() <= 1.0, "{s:?}");
        assert!(t.has_text("time (s, log scale)"));
        assert!(t.has_text("SMPI") && t.has_text("ep S 4"));
    }
}
