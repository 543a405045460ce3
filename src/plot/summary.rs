//! The summary figure of a report: left, the mean over ranks of computation,
//! communication, waiting and final virtual time with whiskers from the
//! smallest to the largest rank; right, how the job's rank-time (summed over
//! ranks) splits into the three parts, as one 100 % stacked bar; the run's
//! figures (messages, bytes, host wall, slowdown, efficiency) underneath.
use super::input::{RankTimes, ReportData};
use super::style::{self, err, Entry, PlotResult, COMM, COMPUTE, FONT, PREDICTED, WAIT};
use crate::report::human_bytes;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub const WIDTH: u32 = 1200;
pub const HEIGHT: u32 = 560;

/// Min, mean and max over ranks of one figure, in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub min: f64,
    pub mean: f64,
    pub max: f64,
}

pub fn spread(ranks: &[RankTimes], f: fn(&RankTimes) -> f64) -> Spread {
    let v = ranks.iter().map(f);
    Spread {
        min: v.clone().fold(f64::INFINITY, f64::min),
        mean: v.clone().sum::<f64>() / ranks.len() as f64,
        max: v.fold(0.0, f64::max),
    }
}

/// The four columns of the left panel: name, colour, spread over ranks.
pub fn columns(r: &ReportData) -> [(&'static str, RGBColor, Spread); 4] {
    [
        ("computation", COMPUTE, spread(&r.ranks, |x| x.compute_s)),
        ("communication", COMM, spread(&r.ranks, |x| x.comm_s)),
        ("waiting", WAIT, spread(&r.ranks, |x| x.wait_s)),
        ("virtual time", PREDICTED, spread(&r.ranks, |x| x.vtime_s)),
    ]
}

/// The shares of computation, communication and waiting in the summed
/// rank-time (0 each when it is zero).
pub fn shares(r: &ReportData) -> [f64; 3] {
    let sum = |f: fn(&RankTimes) -> f64| r.ranks.iter().map(f).sum::<f64>();
    let parts = [sum(|x| x.compute_s), sum(|x| x.comm_s), sum(|x| x.wait_s)];
    let total: f64 = parts.iter().sum();
    if total > 0.0 {
        parts.map(|p| p / total)
    } else {
        [0.0; 3]
    }
}

/// The SVG of the summary figure of report `r` named `name`.
pub fn render(r: &ReportData, name: &str) -> PlotResult<String> {
    let cols = columns(r);
    let top_s = cols.iter().map(|c| c.2.max).fold(0.0, f64::max);
    let unit = style::time_unit(top_s);
    let u = |s: f64| s * unit.per_s;
    // Room above the tallest whisker for its value.
    let y_max = if top_s > 0.0 { u(top_s) * 1.15 } else { 1.0 };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let root = root
            .titled(
                &format!(
                    "{name}: {} ranks on {}, predicted {} (slowest rank {})",
                    r.ranks.len(),
                    r.target,
                    style::secs(r.predicted_s),
                    r.slowest_rank
                ),
                (FONT, 22),
            )
            .map_err(err)?;
        let (body, foot) = root.split_vertically(HEIGHT as i32 - 40 - 30);
        let (left, right) = body.split_horizontally(720);
        let mut chart = ChartBuilder::on(&left)
            .caption("per rank: mean, whiskers min .. max", (FONT, 17))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(72)
            .build_cartesian_2d(-0.5..3.5, 0.0..y_max)
            .map_err(err)?;
        style::draw_mesh(
            chart
                .configure_mesh()
                .disable_x_mesh()
                .y_desc(format!("virtual time ({})", unit.name))
                .x_labels(4)
                .x_label_formatter(&|v: &f64| {
                    cols[v.round().clamp(0.0, 3.0) as usize].0.to_string()
                }),
        )?;
        chart
            .draw_series(cols.iter().enumerate().map(|(i, (_, color, s))| {
                let x = i as f64;
                Rectangle::new([(x - 0.3, 0.0), (x + 0.3, u(s.mean))], color.filled())
            }))
            .map_err(err)?;
        chart
            .draw_series(cols.iter().enumerate().map(|(i, (_, _, s))| {
                let x = i as f64;
                PathElement::new(
                    vec![
                        (x - 0.08, u(s.min)),
                        (x + 0.08, u(s.min)),
                        (x, u(s.min)),
                        (x, u(s.max)),
                        (x - 0.08, u(s.max)),
                        (x + 0.08, u(s.max)),
                    ],
                    BLACK.stroke_width(1),
                )
            }))
            .map_err(err)?;
        let value_font = (FONT, 13)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Bottom));
        chart
            .draw_series(cols.iter().enumerate().map(|(i, (_, _, s))| {
                Text::new(
                    format!("mean {}", style::secs(s.mean)),
                    (i as f64, u(s.max) + y_max * 0.02),
                    value_font.clone(),
                )
            }))
            .map_err(err)?;

        // Right: the split of the summed rank-time.
        let sh = shares(r);
        let (bar, legend) = right.split_horizontally(150);
        let mut share = ChartBuilder::on(&bar)
            .caption("rank-time", (FONT, 17))
            .margin(12)
            .margin_left(40)
            .x_label_area_size(40)
            .y_label_area_size(48)
            .build_cartesian_2d(0.0..1.0, 0.0..100.0)
            .map_err(err)?;
        style::draw_mesh(
            share
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(0)
                .y_desc("%"),
        )?;
        let mut base = 0.0;
        let mut rects = Vec::new();
        for (p, color) in sh.iter().zip([COMPUTE, COMM, WAIT]) {
            let top = base + p * 100.0;
            rects.push(Rectangle::new([(0.15, base), (0.85, top)], color.filled()));
            base = top;
        }
        share.draw_series(rects).map_err(err)?;
        let pct = |x: f64| {
            if x > 0.0 && x < 0.0005 {
                "< 0.1 %".to_string()
            } else {
                format!("{:.1} %", x * 100.0)
            }
        };
        let entries = [
            (WAIT, "waiting", sh[2]),
            (COMM, "communication", sh[1]),
            (COMPUTE, "computation", sh[0]),
        ]
        .map(|(color, what, p)| Entry {
            color,
            line: false,
            text: format!("{what} {}", pct(p)),
        });
        style::legend(
            &legend,
            60,
            "share of rank-time",
            &entries,
            &[
                "rank-time: the ranks' virtual".into(),
                "times summed".into(),
            ],
        )?;

        let mut facts = vec![
            format!("messages {}", r.msgs_sent),
            format!("bytes sent {}", human_bytes(r.bytes_sent)),
            format!("host cores {}", r.cores),
            format!("host wall {}", style::secs(r.host_wall_s)),
        ];
        if let Some(s) = r.slowdown {
            facts.push(format!("slowdown {}", style::sig4(s)));
        }
        if let Some(e) = r.efficiency {
            facts.push(format!("efficiency {:.2}", e));
        }
        foot.draw(&Text::new(
            facts.join("  ·  "),
            (24, 6),
            (FONT, 15).into_font().color(&BLACK),
        ))
        .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}
