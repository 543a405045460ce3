//! The figure of `bench/scale --plot DIR`: slowdown (host wall / predicted
//! time, for vaced and SMPI) and efficiency (computation / (host cores x
//! wall), every runner) against ranks, one line per kernel, runner, vaced's
//! mode and --cores; with --repeat, the medians of the runs.
use super::chart::{self, Lines, Panel, Series, PALETTE, REAL};
use super::medians;
use crate::case::{Measurement, Mode};
use crate::kernels::Runner;

/// One point of a series: (kernel, runner, mode, cores), ranks, slowdown,
/// efficiency.
pub type Point = ((String, Runner, Mode, u32), u32, Option<f64>, Option<f64>);

/// The figure's points from the measurements: runs that timed out or failed
/// have none.
pub fn points(all: &[Measurement]) -> Vec<Point> {
    all.iter()
        .filter(|m| m.problem.is_none())
        .map(|m| {
            let c = &m.case;
            let slowdown = match c.runner {
                Runner::Mpich => None,
                _ => m
                    .timer_s()
                    .and_then(|t| crate::metrics::slowdown(m.wall_s(), t)),
            };
            (
                (c.kernel.clone(), c.runner, c.mode, c.cores),
                c.ranks,
                slowdown,
                m.efficiency(),
            )
        })
        .collect()
}

fn series_name(k: &str, r: Runner, mode: Mode, cores: u32) -> String {
    match (r, mode) {
        (Runner::Vaced, Mode::Process) => format!("{k} vaced --cores {cores}"),
        (Runner::Vaced, Mode::Hosted) => format!("{k} vaced hosted --cores {cores}"),
        (Runner::Smpi, _) => format!("{k} SMPI"),
        (Runner::Mpich, _) => format!("{k} MPICH (oversubscribed)"),
    }
}

/// `<stem>.svg`: slowdown and efficiency against ranks.
pub fn figure(
    stem: &str,
    class: &str,
    pts: &[Point],
    repeat: u32,
) -> Result<(String, String), String> {
    let mut keys: Vec<(String, Runner, Mode, u32)> = Vec::new();
    for p in pts {
        if !keys.contains(&p.0) {
            keys.push(p.0.clone());
        }
    }
    // MPICH (real runs) in grey, the simulators in the palette's colours.
    let mut colors = PALETTE.iter().cycle();
    let series: Vec<Series> = keys
        .iter()
        .map(|k| Series {
            name: series_name(&k.0, k.1, k.2, k.3),
            color: if k.1 == Runner::Mpich {
                REAL
            } else {
                *colors.next().unwrap()
            },
        })
        .collect();
    let panel = |get: fn(&Point) -> Option<f64>| -> Vec<Vec<(u32, f64)>> {
        keys.iter()
            .map(|k| {
                let mut v = medians(
                    pts.iter()
                        .filter(|p| p.0 == *k)
                        .filter_map(|p| get(p).map(|x| (p.1, x))),
                );
                v.sort_by_key(|q| q.0);
                v
            })
            .collect()
    };
    let of_runs = if repeat > 1 {
        format!(", median of {repeat} runs")
    } else {
        String::new()
    };
    let svg = chart::lines(&Lines {
        title: format!("NPB class {class} on this host: cost of the simulation{of_runs}"),
        series,
        panels: vec![
            Panel {
                caption: "slowdown = host wall / predicted".into(),
                y_desc: "slowdown (log scale)".into(),
                log_y: true,
                points: panel(|p| p.2),
            },
            Panel {
                caption: "efficiency = computation / (cores x wall)".into(),
                y_desc: "efficiency".into(),
                log_y: false,
                points: panel(|p| p.3),
            },
        ],
        notes: vec![
            "predicted: the kernel's timer".into(),
            "computation: application CPU time".into(),
            "MPICH: real runs, no slowdown".into(),
        ],
    })?;
    Ok((format!("{stem}.svg"), svg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::svg::Svg;

    fn pt(k: &str, r: Runner, c: u32, ranks: u32, s: Option<f64>, e: f64) -> Point {
        ((k.into(), r, Mode::Process, c), ranks, s, Some(e))
    }

    #[test]
    fn slowdown_and_efficiency_against_ranks() {
        let pts = vec![
            pt("cg", Runner::Vaced, 1, 64, Some(10.0), 0.9),
            pt("cg", Runner::Vaced, 1, 256, Some(100.0), 0.8),
            pt("cg", Runner::Vaced, 1, 1024, Some(1000.0), 0.4),
            // a repeated run: the median of 1000, 1000 and 4000 is 1000
            pt("cg", Runner::Vaced, 1, 1024, Some(4000.0), 0.4),
            pt("cg", Runner::Vaced, 1, 1024, Some(1000.0), 0.4),
            pt("cg", Runner::Mpich, 2, 64, None, 0.5),
            // the other mode: a series of its own, not in the medians above
            (
                ("cg".into(), Runner::Vaced, Mode::Hosted, 1),
                1024,
                Some(9000.0),
                Some(0.1),
            ),
        ];
        let (name, text) = figure("scale-x", "A", &pts, 1).unwrap();
        assert_eq!(name, "scale-x.svg");
        let svg = Svg::parse(&text);
        // vaced: a line in each panel (3 points in both); MPICH: efficiency only
        let v: Vec<_> = svg
            .lines(PALETTE[0])
            .into_iter()
            .filter(|l| l.len() > 1)
            .collect();
        assert_eq!(v.len(), 2, "{v:?}");
        let slow = &v[0];
        assert_eq!(slow.len(), 3);
        // log2 x: 64 -> 256 -> 1024 equally spaced; log10 y: a decade each
        let dx = slow[1].0 - slow[0].0;
        assert!((slow[2].0 - slow[1].0 - dx).abs() <= 1.0, "{slow:?}");
        let dy = slow[0].1 - slow[1].1;
        assert!(
            dy > 50.0 && (slow[1].1 - slow[2].1 - dy).abs() <= 1.0,
            "{slow:?}"
        );
        // efficiency: linear, 0.9 / 0.8 / 0.4 above the panel's zero
        let eff = &v[1];
        let d1 = eff[1].1 - eff[0].1;
        let d2 = eff[2].1 - eff[1].1;
        assert!((d2 - 4.0 * d1).abs() <= 1.5, "{eff:?}");
        let m: Vec<_> = svg
            .lines(REAL)
            .into_iter()
            .filter(|l| l.len() > 1)
            .collect();
        assert!(m.is_empty(), "one MPICH point: no line, a marker");
        for s in [
            "NPB class A on this host: cost of the simulation",
            "slowdown = host wall / predicted",
            "efficiency = computation / (cores x wall)",
            "slowdown (log scale)",
            "efficiency",
            "ranks",
            "64",
            "256",
            "1024",
            "cg vaced --cores 1",
            "cg vaced hosted --cores 1",
            "cg MPICH (oversubscribed)",
        ] {
            assert!(svg.has_text(s), "no `{s}` in {:?}", svg.texts);
        }
    }
}
