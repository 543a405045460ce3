//! The two charts of the harness's figures, drawn from plain numbers: grouped
//! bars (one group per case, one bar per series, a linear or logarithmic
//! axis) and lines against ranks (panels side by side, ranks on a log2
//! axis). A legend strip at the right names the series, so that nothing
//! covers the data.
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub const WIDTH: u32 = 1200;
pub const HEIGHT: u32 = 600;
pub const LEGEND_WIDTH: u32 = 290;
pub const FONT: &str = "sans-serif";
/// Real (measured) times.
pub const REAL: RGBColor = RGBColor(70, 70, 70);
/// The other series, in order.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(174, 199, 232),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(214, 39, 40),
    RGBColor(140, 86, 75),
    RGBColor(23, 190, 207),
];

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("drawing failed: {e:?}")
}

#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub name: String,
    pub color: RGBColor,
}

/// A grouped bar chart: `values[group][series]`.
pub struct Bars {
    pub title: String,
    pub y_desc: String,
    pub groups: Vec<String>,
    pub series: Vec<Series>,
    pub values: Vec<Vec<Option<f64>>>,
    /// A logarithmic axis (bars then rise from the decade below the smallest
    /// value); else linear through 0, negative values below it.
    pub log_y: bool,
    /// Each bar's value printed at its end.
    pub label: Option<fn(f64) -> String>,
    pub notes: Vec<String>,
}

/// The x span of bar `s` of `n` in group `g` (groups at integers, 0.8 wide).
pub fn bar_span(g: usize, s: usize, n: usize) -> (f64, f64) {
    let w = 0.8 / n as f64;
    let x0 = g as f64 - 0.4 + s as f64 * w;
    (x0 + 0.06 * w, x0 + 0.94 * w)
}

/// The decades around `lo..hi` (both > 0), widened by a hair so that the
/// axis keeps its end labels despite rounding (10^-3 is not 0.001 exactly).
pub fn decades(lo: f64, hi: f64) -> (f64, f64) {
    let a = 10f64.powf(lo.log10().floor());
    let mut b = 10f64.powf(hi.log10().ceil());
    if b <= a {
        b = a * 10.0;
    }
    (a * (1.0 - 1e-9), b * (1.0 + 1e-9))
}

/// An axis tick: the shortest decimal of `v` rounded to 1e-9.
pub fn tick(v: f64) -> String {
    let r = (v * 1e9).round() / 1e9;
    if r == 0.0 {
        "0".into()
    } else {
        format!("{r}")
    }
}

pub fn bars(b: &Bars) -> Result<String, String> {
    let vals = b.values.iter().flatten().flatten().copied();
    let (min, max) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, c), v| {
        (a.min(v), c.max(v))
    });
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, side) = root.split_horizontally(WIDTH - LEGEND_WIDTH);
        if !min.is_finite() {
            plot.draw(&Text::new(
                "(no values)",
                (300, 280),
                (FONT, 20).into_font().color(&BLACK),
            ))
            .map_err(err)?;
        } else if b.log_y && min > 0.0 {
            let (lo, hi) = decades(min, max);
            bars_on(&plot, b, (lo..hi).log_scale(), lo)?;
        } else {
            let lo = min.min(0.0);
            let hi = max.max(0.0);
            let pad = (hi - lo).max(f64::MIN_POSITIVE) * 0.12;
            let lo = if lo < 0.0 { lo - pad } else { 0.0 };
            let hi = hi + pad;
            bars_on(&plot, b, lo..hi, 0.0)?;
        }
        legend(&side, &b.series, &b.notes)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

fn bars_on<DB: DrawingBackend, Y>(
    area: &DrawingArea<DB, Shift>,
    b: &Bars,
    y: Y,
    base: f64,
) -> Result<(), String>
where
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let g = b.groups.len();
    // Case names side by side while they fit (about 8 px a character at
    // 14 px), else turned upright.
    let plot_px = (WIDTH - LEGEND_WIDTH - 100) as usize;
    let longest = b
        .groups
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0);
    let many = g * (longest * 8 + 8) > plot_px;
    let mut chart = ChartBuilder::on(area)
        .caption(&b.title, (FONT, 20))
        .margin(12)
        .x_label_area_size(if many { 90 } else { 40 })
        .y_label_area_size(80)
        .build_cartesian_2d(-0.5..g as f64 - 0.5, y)
        .map_err(err)?;
    let names = &b.groups;
    let label_style = if many {
        TextStyle::from((FONT, 14).into_font()).transform(FontTransform::Rotate90)
    } else {
        TextStyle::from((FONT, 14).into_font())
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(TRANSPARENT)
        .x_labels(g)
        .x_label_formatter(&|v: &f64| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
                names[i as usize].clone()
            } else {
                String::new()
            }
        })
        .label_style((FONT, 14))
        .x_label_style(label_style)
        .set_tick_mark_size(LabelAreaPosition::Bottom, if many { 0 } else { 5 })
        .y_label_formatter(&|v: &f64| tick(*v))
        .y_desc(&b.y_desc)
        .axis_desc_style((FONT, 16))
        .draw()
        .map_err(err)?;
    let n = b.series.len();
    for (s, series) in b.series.iter().enumerate() {
        chart
            .draw_series(b.values.iter().enumerate().filter_map(|(gi, row)| {
                let v = row.get(s).copied().flatten()?;
                let (x0, x1) = bar_span(gi, s, n);
                Some(Rectangle::new([(x0, base), (x1, v)], series.color.filled()))
            }))
            .map_err(err)?;
    }
    if base == 0.0 {
        // the zero line over the bars' feet (RE: above and below it)
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(-0.5, 0.0), (g as f64 - 0.5, 0.0)],
                BLACK.stroke_width(1),
            )))
            .map_err(err)?;
    }
    // Values over the bars where a bar is wide enough for "-12.3%".
    let bar_px = plot_px as f64 * 0.8 / (g * n) as f64;
    if let Some(f) = b.label.filter(|_| bar_px >= 46.0) {
        let font = (FONT, 13).into_font().color(&BLACK);
        for (s, _) in b.series.iter().enumerate() {
            chart
                .draw_series(b.values.iter().enumerate().filter_map(|(gi, row)| {
                    let v = row.get(s).copied().flatten()?;
                    let (x0, x1) = bar_span(gi, s, n);
                    let v_pos = if v < 0.0 { VPos::Top } else { VPos::Bottom };
                    Some(Text::new(
                        f(v),
                        ((x0 + x1) / 2.0, v),
                        font.pos(Pos::new(HPos::Center, v_pos)),
                    ))
                }))
                .map_err(err)?;
        }
    }
    Ok(())
}

/// One panel of a lines chart: `points[series]` = (ranks, value), by ranks.
pub struct Panel {
    pub caption: String,
    pub y_desc: String,
    pub log_y: bool,
    pub points: Vec<Vec<(u32, f64)>>,
}

pub struct Lines {
    pub title: String,
    pub series: Vec<Series>,
    pub panels: Vec<Panel>,
    pub notes: Vec<String>,
}

pub fn lines(l: &Lines) -> Result<String, String> {
    let ranks: Vec<u32> = l
        .panels
        .iter()
        .flat_map(|p| p.points.iter().flatten().map(|q| q.0))
        .collect();
    let lo = ranks.iter().copied().min().unwrap_or(1).max(1) as f64;
    let hi = ranks.iter().copied().max().unwrap_or(1).max(1) as f64;
    let x = (lo.log2() - 0.4)..(hi.log2() + 0.4);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let root = root.titled(&l.title, (FONT, 22)).map_err(err)?;
        let (plots, side) = root.split_horizontally(WIDTH - LEGEND_WIDTH);
        let areas = plots.split_evenly((1, l.panels.len().max(1)));
        for (p, area) in l.panels.iter().zip(&areas) {
            let vals = p.points.iter().flatten().map(|q| q.1);
            let (min, max) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
            if !min.is_finite() {
                area.draw(&Text::new(
                    format!("{}: no values", p.caption),
                    (40, 200),
                    (FONT, 16).into_font().color(&BLACK),
                ))
                .map_err(err)?;
            } else if p.log_y && min > 0.0 {
                let (a, b) = decades(min, max);
                panel_on(area, p, &l.series, x.clone(), (a..b).log_scale())?;
            } else {
                panel_on(
                    area,
                    p,
                    &l.series,
                    x.clone(),
                    0.0..(max.max(0.0) * 1.15).max(1e-9),
                )?;
            }
        }
        legend(&side, &l.series, &l.notes)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

fn panel_on<DB: DrawingBackend, Y>(
    area: &DrawingArea<DB, Shift>,
    p: &Panel,
    series: &[Series],
    x: std::ops::Range<f64>,
    y: Y,
) -> Result<(), String>
where
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let span = (x.end - x.start).ceil() as usize + 1;
    let mut chart = ChartBuilder::on(area)
        .caption(&p.caption, (FONT, 17))
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(x, y)
        .map_err(err)?;
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .x_labels(span)
        .x_label_formatter(&|v: &f64| {
            // ranks on a log2 axis: a label at each power of two
            if (v - v.round()).abs() < 1e-6 {
                format!("{}", 2f64.powf(v.round()) as u64)
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|v: &f64| tick(*v))
        .x_desc("ranks")
        .y_desc(&p.y_desc)
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 16))
        .draw()
        .map_err(err)?;
    for (pts, s) in p.points.iter().zip(series) {
        let xy: Vec<(f64, f64)> = pts.iter().map(|(r, v)| ((*r as f64).log2(), *v)).collect();
        chart
            .draw_series(LineSeries::new(xy.clone(), s.color.stroke_width(2)))
            .map_err(err)?;
        chart
            .draw_series(xy.iter().map(|q| Circle::new(*q, 4, s.color.filled())))
            .map_err(err)?;
    }
    Ok(())
}

/// The legend strip: a swatch and a name per series, then notes.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    series: &[Series],
    notes: &[String],
) -> Result<(), String> {
    let mut y = 60;
    for s in series {
        area.draw(&Rectangle::new([(8, y), (28, y + 16)], s.color.filled()))
            .map_err(err)?;
        area.draw(&Text::new(
            s.name.clone(),
            (36, y + 1),
            (FONT, 15).into_font().color(&BLACK),
        ))
        .map_err(err)?;
        y += 26;
    }
    y += 8;
    for n in notes {
        area.draw(&Text::new(
            n.clone(),
            (8, y),
            (FONT, 13).into_font().color(&RGBColor(70, 70, 70)),
        ))
        .map_err(err)?;
        y += 18;
    }
    Ok(())
}
