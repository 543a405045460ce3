//! The what-if figure of a report written by a what-if run (`mpirun
//! --target A --target B`, `--sweep`): one horizontal bar per configuration,
//! its predicted time split into the mean computation, communication and
//! waiting over ranks is not what a designer compares first, so the bar is
//! the prediction itself, with the first configuration's as a reference
//! line; approximate configurations are drawn lighter and say how many
//! timing-dependent outcomes differ, failed ones say so.
use super::style::{self, err, PlotResult, FONT, PREDICTED};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde_json::Value;

pub const WIDTH: u32 = 1400;

/// One configuration of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub label: String,
    /// None: its replay failed.
    pub predicted_s: Option<f64>,
    pub differing: u64,
}

/// The configurations of report `v`, if it has them (a what-if run's).
pub fn configurations(v: &Value) -> Option<Vec<Config>> {
    let cs = v.get("configurations")?.as_array()?;
    Some(
        cs.iter()
            .map(|c| Config {
                label: c["label"].as_str().unwrap_or("?").to_string(),
                predicted_s: c["report"]["predicted_s"].as_f64(),
                differing: c["differing_outcomes"].as_u64().unwrap_or(0),
            })
            .collect(),
    )
}

/// The SVG of the what-if figure of configurations `cs`, from report `name`.
pub fn render(cs: &[Config], name: &str) -> PlotResult<String> {
    let n = cs.len().max(1);
    let height = (120 + 56 * n) as u32;
    let top_s = cs.iter().filter_map(|c| c.predicted_s).fold(0.0, f64::max);
    let unit = style::time_unit(top_s);
    let u = |s: f64| s * unit.per_s;
    let x_max = if top_s > 0.0 { u(top_s) * 1.45 } else { 1.0 };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let root = root
            .titled(
                &format!(
                    "{name}: predicted time of {} configurations, one execution",
                    cs.len()
                ),
                (FONT, 22),
            )
            .map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(40)
            .build_cartesian_2d(0.0..x_max, -0.5..(n as f64 - 0.5))
            .map_err(err)?;
        style::draw_mesh(
            chart
                .configure_mesh()
                .disable_y_mesh()
                .x_desc(format!("predicted time ({})", unit.name))
                .y_desc("configurations")
                .y_labels(0),
        )?;
        // the first configuration at the top
        let row = |i: usize| (n - 1 - i) as f64;
        let light = RGBColor(240, 160, 160);
        chart
            .draw_series(cs.iter().enumerate().filter_map(|(i, c)| {
                let s = c.predicted_s?;
                let color = if c.differing > 0 { light } else { PREDICTED };
                Some(Rectangle::new(
                    [(0.0, row(i) - 0.42), (u(s), row(i) + 0.06)],
                    color.filled(),
                ))
            }))
            .map_err(err)?;
        if let Some(first) = cs.first().and_then(|c| c.predicted_s) {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(u(first), -0.5), (u(first), n as f64 - 0.5)],
                    BLACK.stroke_width(1),
                )))
                .map_err(err)?;
        }
        let font = (FONT, 13)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        // each configuration's name above its bar, the prediction beside it
        let name_font = (FONT, 14)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Bottom));
        chart
            .draw_series(cs.iter().enumerate().map(|(i, c)| {
                let ran = if i == 0 {
                    " (ran; the line marks it)"
                } else {
                    ""
                };
                Text::new(
                    format!("#{i} {}{ran}", c.label),
                    (x_max * 0.005, row(i) + 0.12),
                    name_font.clone(),
                )
            }))
            .map_err(err)?;
        let first = cs.first().and_then(|c| c.predicted_s);
        chart
            .draw_series(cs.iter().enumerate().map(|(i, c)| {
                let text = match (c.predicted_s, first) {
                    (None, _) => "replay failed".to_string(),
                    (Some(s), f) => {
                        let mut t = style::secs(s);
                        if let Some(f) = f.filter(|&f| f > 0.0 && i > 0) {
                            t += &format!("  ({:+.1} %)", (s / f - 1.0) * 100.0);
                        }
                        if c.differing > 0 {
                            t += &format!("  approximate: {} outcomes differ", c.differing);
                        }
                        t
                    }
                };
                let x = c.predicted_s.map_or(0.0, u) + x_max * 0.01;
                Text::new(text, (x, row(i) - 0.18), font.clone())
            }))
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configurations_are_read_and_drawn() {
        let v: Value = serde_json::from_str(
            r#"{"configurations": [
                {"label": "network.latency=1us", "differing_outcomes": 0,
                 "report": {"predicted_s": 0.002}},
                {"label": "network.latency=5us", "differing_outcomes": 3,
                 "report": {"predicted_s": 0.003}},
                {"label": "network.latency=9us", "differing_outcomes": 1,
                 "report": null}]}"#,
        )
        .unwrap();
        let cs = configurations(&v).unwrap();
        assert_eq!(
            cs[1],
            Config {
                label: "network.latency=5us".into(),
                predicted_s: Some(0.003),
                differing: 3
            }
        );
        assert_eq!(cs[2].predicted_s, None);
        let svg = render(&cs, "app").unwrap();
        for s in [
            "3 configurations",
            "network.latency=9us",
            "replay failed",
            "+50.0 %",
            "approximate: 3 outcomes differ",
        ] {
            assert!(svg.contains(s), "`{s}` missing");
        }
        assert!(configurations(&serde_json::json!({"ranks": []})).is_none());
    }
}
