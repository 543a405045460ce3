//! The sweep's figures: for each swept key with two values or more,
//! `sweep-KEY.svg`, the job's predicted time against that key's value, one
//! line per combination of the other keys' values (and base target), drawn
//! with plotters in the style of `vaced plot` (src/plot/style.rs).
use super::config::{numeric, Base, Config, Numeric};
use super::run::Outcome;
use crate::plot::style::{self, err, Entry, PlotResult, FONT};
use plotters::prelude::*;

pub const WIDTH: u32 = 1200;
pub const HEIGHT: u32 = 560;
const LEGEND_WIDTH: u32 = 400;

/// Line colours (the tab10 palette), in turn.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// What the lines' labels list: the base target (when there are several)
/// and the other swept keys, in order.
pub fn label_keys(bases: &[Base], configs: &[Config], key: &str) -> Vec<String> {
    let mut v = Vec::new();
    if bases.len() > 1 {
        v.push("target".to_string());
    }
    if let Some(c) = configs.first() {
        v.extend(c.values.iter().map(|(k, _)| k.clone()).filter(|k| k != key));
    }
    v
}

/// One line: its label (the other keys' values) and its points (key value, predicted seconds),
/// sorted by the key's value.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// The lines of the figure of swept key `key`.
pub fn lines(bases: &[Base], configs: &[Config], outcomes: &[Outcome], key: &str) -> Vec<Line> {
    let mut lines: Vec<(Vec<String>, Line)> = Vec::new();
    for (c, o) in configs.iter().zip(outcomes) {
        let Some((_, v)) = c.values.iter().find(|(k, _)| k == key) else {
            continue;
        };
        let x = numeric(v).expect("checked when built").value();
        let mut id: Vec<String> = Vec::new();
        if bases.len() > 1 {
            id.push(bases[c.base].spec.clone());
        }
        id.extend(
            c.values
                .iter()
                .filter(|(k, _)| k != key)
                .map(|(_, v)| v.clone()),
        );
        let y = o.predicted_ps as f64 / 1e12;
        match lines.iter_mut().find(|(i, _)| *i == id) {
            Some((_, l)) => l.points.push((x, y)),
            None => {
                let label = if id.is_empty() {
                    "predicted time".to_string()
                } else {
                    id.join(", ")
                };
                lines.push((
                    id,
                    Line {
                        label,
                        points: vec![(x, y)],
                    },
                ))
            }
        }
    }
    let mut out: Vec<Line> = lines.into_iter().map(|(_, l)| l).collect();
    for l in &mut out {
        l.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

/// The x axis of a key whose values are `kind`: its scale (per base unit)
/// and its description.
fn x_axis(key: &str, kind: Numeric, max: f64) -> (f64, String) {
    match kind {
        Numeric::Seconds(_) => {
            let u = style::time_unit(max);
            (u.per_s, format!("{key} ({})", u.name))
        }
        Numeric::BytesPerSecond(_) => (1e-9, format!("{key} (GB/s)")),
        Numeric::Bytes(_) => (1.0, format!("{key} (bytes)")),
        Numeric::Number(_) => (1.0, key.to_string()),
    }
}

/// The SVG of the figure of key `key` (`kind`: what its values are).
/// `label_keys` names what the lines' labels list; `how` says how the
/// configurations were predicted (`results::how`).
pub fn render(
    key: &str,
    kind: Numeric,
    lines: &[Line],
    label_keys: &[String],
    title: &str,
    how: &str,
) -> PlotResult<String> {
    let all = lines.iter().flat_map(|l| l.points.iter());
    let x_lo = all.clone().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let x_hi = all.clone().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let y_hi = all.map(|p| p.1).fold(0.0, f64::max);
    let (xs, x_desc) = x_axis(key, kind, x_hi);
    let unit = style::time_unit(y_hi);
    let pad = ((x_hi - x_lo) * xs * 0.05).max(f64::MIN_POSITIVE);
    let (x0, x1) = (x_lo * xs - pad, x_hi * xs + pad);
    let y1 = if y_hi > 0.0 {
        y_hi * unit.per_s * 1.1
    } else {
        1.0
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, side) = root.split_horizontally(WIDTH - LEGEND_WIDTH);
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, (FONT, 20))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(80)
            .build_cartesian_2d(x0..x1, 0.0..y1)
            .map_err(err)?;
        style::draw_mesh(
            chart
                .configure_mesh()
                .x_desc(x_desc)
                .y_desc(format!("predicted time ({})", unit.name))
                .x_label_formatter(&|v| style::tick(*v)),
        )?;
        let mut entries = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let pts: Vec<(f64, f64)> = l
                .points
                .iter()
                .map(|&(x, y)| (x * xs, y * unit.per_s))
                .collect();
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(err)?;
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 4, color.filled())))
                .map_err(err)?;
            entries.push(Entry {
                color,
                line: true,
                text: l.label.clone(),
            });
        }
        let joined = label_keys.join(", ");
        let (heading, mut notes) = if joined.chars().count() <= 40 {
            (joined, Vec::new())
        } else {
            let mut n = vec!["lines: the values of".to_string()];
            n.extend(label_keys.iter().map(|k| format!("  {k}")));
            n.push(String::new());
            ("lines".to_string(), n)
        };
        notes.extend(wrap(how, 28));
        style::legend(&side, 40, &heading, &entries, &notes)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// The file name of key `key`'s figure: `sweep-KEY.svg`, with `[`, `]`
/// made `_`.
pub fn file_name(key: &str) -> String {
    let safe: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("sweep-{safe}.svg")
}

/// `text` in lines of at most `width` characters, cut between words.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in text.split_whitespace() {
        match out.last_mut() {
            Some(l) if l.chars().count() + 1 + w.chars().count() <= width => {
                l.push(' ');
                l.push_str(w);
            }
            _ => out.push(w.to_string()),
        }
    }
    out
}

/// Writes the figure of every swept key with two values or more into
/// `dir`; the files written. `how`: see [`render`].
pub fn write_all(
    dir: &std::path::Path,
    bases: &[Base],
    configs: &[Config],
    outcomes: &[Outcome],
    program: &str,
    how: &str,
) -> Result<Vec<std::path::PathBuf>, String> {
    let Some(first) = configs.first() else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (key, _) in &first.values {
        let values: Vec<&str> = configs
            .iter()
            .filter_map(|c| c.values.iter().find(|(k, _)| k == key))
            .map(|(_, v)| v.as_str())
            .collect();
        let kind = numeric(values[0]).expect("checked when built");
        let distinct = values
            .iter()
            .filter_map(|v| numeric(v))
            .map(|n| n.value().to_bits())
            .collect::<std::collections::BTreeSet<_>>();
        if distinct.len() < 2 {
            continue;
        }
        let ls = lines(bases, configs, outcomes, key);
        let title = format!("{program}: predicted time against {key}");
        let svg = render(
            key,
            kind,
            &ls,
            &label_keys(bases, configs, key),
            &title,
            how,
        )?;
        let path = dir.join(file_name(key));
        std::fs::write(&path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
        out.push(path);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::config::{build, parse_sweep};

    #[test]
    fn one_line_per_other_combination() {
        let bases = [Base::load("tianhe1a").unwrap()];
        let sweeps = [
            parse_sweep("cpu.scale=0,1").unwrap(),
            parse_sweep("network.latency=2us,1us").unwrap(),
        ];
        let cs = build(&bases, &sweeps).unwrap();
        let os: Vec<Outcome> = (0..cs.len() as u64)
            .map(|i| Outcome {
                predicted_ps: 1_000_000 * (i + 1),
                slowest_rank: 0,
                ranks_ps: vec![],
                differing: 0,
            })
            .collect();
        let ls = lines(&bases, &cs, &os, "network.latency");
        assert_eq!(
            ls,
            [
                Line {
                    label: "0".into(),
                    points: vec![(1e-6, 2e-6), (2e-6, 1e-6)]
                },
                Line {
                    label: "1".into(),
                    points: vec![(1e-6, 4e-6), (2e-6, 3e-6)]
                },
            ]
        );
        let keys = label_keys(&bases, &cs, "network.latency");
        assert_eq!(keys, ["cpu.scale"]);
        let svg = render(
            "network.latency",
            Numeric::Seconds(0.0),
            &ls,
            &keys,
            "t: predicted time against network.latency",
            "one run per configuration",
        )
        .unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let texts: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .map(|n| n.text().unwrap_or("").trim())
            .collect();
        for s in [
            "network.latency (µs)",
            "predicted time (µs)",
            "cpu.scale",
            "0",
            "1",
            "one run per configuration",
        ] {
            assert!(texts.contains(&s), "`{s}` missing: {texts:?}");
        }
        assert_eq!(
            file_name("topology.levels[0].ranks"),
            "sweep-topology.levels_0_.ranks.svg"
        );
    }
}
