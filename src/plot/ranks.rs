//! The per-rank figure: one stacked bar per rank of its virtual computation,
//! communication and waiting time, and the predicted time (the largest final
//! virtual time) as a line across. Above `MAX_BARS` ranks, consecutive ranks
//! are binned (at most `BINS` bins, the last one possibly smaller): a bin's
//! bar stacks the mean of each part over its ranks, and a whisker spans the
//! smallest to the largest rank total in the bin, so that a 1024-rank job
//! still shows its imbalance and its outliers.
use super::input::{RankTimes, ReportData};
use super::style::{self, err, Entry, PlotResult, COMM, COMPUTE, FONT, PREDICTED, WAIT};
use plotters::prelude::*;

/// Up to this many ranks, one bar per rank.
pub const MAX_BARS: usize = 128;
/// Above `MAX_BARS`, at most this many bins.
pub const BINS: usize = 64;

pub const WIDTH: u32 = 1200;
pub const HEIGHT: u32 = 600;
/// The legend strip at the right.
pub const LEGEND_WIDTH: u32 = 260;

/// One bar: ranks `first..=last`, the (mean) parts in seconds, and the
/// smallest and largest rank total (computation + communication + waiting).
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub first: usize,
    pub last: usize,
    pub compute_s: f64,
    pub comm_s: f64,
    pub wait_s: f64,
    pub min_total_s: f64,
    pub max_total_s: f64,
}

/// The ranks per bar: 1 up to `MAX_BARS` ranks, else ceil(n / `BINS`).
pub fn ranks_per_bar(n: usize) -> usize {
    if n <= MAX_BARS {
        1
    } else {
        n.div_ceil(BINS)
    }
}

/// The bars of `ranks` (bins of `ranks_per_bar` consecutive ranks).
pub fn bars(ranks: &[RankTimes]) -> Vec<Bar> {
    let per = ranks_per_bar(ranks.len());
    ranks
        .chunks(per)
        .enumerate()
        .map(|(i, c)| {
            let n = c.len() as f64;
            let mean = |f: fn(&RankTimes) -> f64| c.iter().map(f).sum::<f64>() / n;
            let totals = c.iter().map(RankTimes::total_s);
            Bar {
                first: i * per,
                last: i * per + c.len() - 1,
                compute_s: mean(|r| r.compute_s),
                comm_s: mean(|r| r.comm_s),
                wait_s: mean(|r| r.wait_s),
                min_total_s: totals.clone().fold(f64::INFINITY, f64::min),
                max_total_s: totals.fold(0.0, f64::max),
            }
        })
        .collect()
}

/// The SVG of the per-rank figure of report `r` named `name`.
pub fn render(r: &ReportData, name: &str) -> PlotResult<String> {
    let n = r.ranks.len();
    let per = ranks_per_bar(n);
    let bars = bars(&r.ranks);
    let top_s = bars
        .iter()
        .map(|b| b.max_total_s)
        .fold(r.predicted_s, f64::max);
    let unit = style::time_unit(top_s);
    let u = |s: f64| s * unit.per_s;
    let y_max = if top_s > 0.0 { u(top_s) * 1.05 } else { 1.0 };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, side) = root.split_horizontally(WIDTH - LEGEND_WIDTH);
        let title = if per == 1 {
            format!(
                "{name}: virtual time of each of the {n} ranks on {}",
                r.target
            )
        } else {
            format!(
                "{name}: virtual time of {n} ranks on {} (bins of {per} ranks)",
                r.target
            )
        };
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, (FONT, 20))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d(-0.5..n as f64 - 0.5, 0.0..y_max)
            .map_err(err)?;
        style::draw_mesh(
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_desc("rank")
                .x_labels(n.min(16))
                .y_desc(format!("virtual time ({})", unit.name))
                .x_label_formatter(&|v| format!("{}", v.round() as i64)),
        )?;
        // The predicted time behind the bars (it would hide their tops).
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(-0.5, u(r.predicted_s)), (n as f64 - 0.5, u(r.predicted_s))],
                PREDICTED.stroke_width(2),
            )))
            .map_err(err)?;
        // Bars fill their ranks' span less a gap of 15 %.
        let gap = 0.15 * per as f64;
        let x0 = |b: &Bar| b.first as f64 - 0.5 + gap / 2.0;
        let x1 = |b: &Bar| b.last as f64 + 0.5 - gap / 2.0;
        type Part = fn(&Bar) -> (f64, f64);
        let parts: [(Part, RGBColor); 3] = [
            (|b| (0.0, b.compute_s), COMPUTE),
            (|b| (b.compute_s, b.compute_s + b.comm_s), COMM),
            (
                |b| {
                    let base = b.compute_s + b.comm_s;
                    (base, base + b.wait_s)
                },
                WAIT,
            ),
        ];
        for (part, color) in parts {
            chart
                .draw_series(bars.iter().map(|b| {
                    let (lo, hi) = part(b);
                    Rectangle::new([(x0(b), u(lo)), (x1(b), u(hi))], color.filled())
                }))
                .map_err(err)?;
        }
        if per > 1 {
            chart
                .draw_series(bars.iter().map(|b| {
                    let x = (b.first + b.last) as f64 / 2.0;
                    let w = (b.last - b.first) as f64 / 4.0;
                    PathElement::new(
                        vec![
                            (x - w, u(b.min_total_s)),
                            (x + w, u(b.min_total_s)),
                            (x, u(b.min_total_s)),
                            (x, u(b.max_total_s)),
                            (x - w, u(b.max_total_s)),
                            (x + w, u(b.max_total_s)),
                        ],
                        BLACK.stroke_width(1),
                    )
                }))
                .map_err(err)?;
        }
        let what = if per == 1 { "" } else { " (bin mean)" };
        let mut entries = vec![
            Entry {
                color: WAIT,
                line: false,
                text: format!("waiting{what}"),
            },
            Entry {
                color: COMM,
                line: false,
                text: format!("communication{what}"),
            },
            Entry {
                color: COMPUTE,
                line: false,
                text: format!("computation{what}"),
            },
            Entry {
                color: PREDICTED,
                line: true,
                text: format!("predicted {}", style::secs(r.predicted_s)),
            },
        ];
        if per > 1 {
            entries.push(Entry {
                color: BLACK,
                line: true,
                text: "min .. max rank total".into(),
            });
        }
        let mut notes = vec![
            format!("slowest rank: {}", r.slowest_rank),
            format!("host cores: {}", r.cores),
        ];
        if per > 1 {
            notes.push(format!("{n} ranks in bins of {per}"));
        }
        style::legend(&side, 60, "", &entries, &notes)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}
