//! What every figure shares: the colours of computation, communication and
//! waiting, the time unit of an axis, number formats, a legend drawn beside
//! the plot (so it never covers a bar) and the error type.
use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;

pub const COMPUTE: RGBColor = RGBColor(31, 119, 180);
pub const COMM: RGBColor = RGBColor(255, 127, 14);
pub const WAIT: RGBColor = RGBColor(158, 158, 158);
pub const PREDICTED: RGBColor = RGBColor(214, 39, 40);
pub const FONT: &str = "sans-serif";

/// A plotting failure (the SVG backend writes into a string, so in practice
/// only a bug).
pub type PlotResult<T> = Result<T, String>;

pub fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("drawing failed: {e:?}")
}

/// A unit for an axis of times: the largest of s, ms, µs, ns in which
/// `max_s` is at least 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeUnit {
    pub name: &'static str,
    pub per_s: f64,
}

pub fn time_unit(max_s: f64) -> TimeUnit {
    let units = [("s", 1.0), ("ms", 1e3), ("µs", 1e6)];
    for (name, per_s) in units {
        if max_s * per_s >= 1.0 {
            return TimeUnit { name, per_s };
        }
    }
    TimeUnit {
        name: "ns",
        per_s: 1e9,
    }
}

/// Seconds with 4 significant digits in their own unit ("12.35 ms").
pub fn secs(s: f64) -> String {
    if s == 0.0 {
        return "0 s".into();
    }
    let u = time_unit(s);
    format!("{} {}", sig4(s * u.per_s), u.name)
}

/// 4 significant digits, no exponent for 1e-3 <= x < 1e6.
pub fn sig4(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let digits = 3 - x.abs().log10().floor() as i32;
    format!("{:.*}", digits.clamp(0, 6) as usize, x)
}

/// An axis tick: the shortest decimal of `v` rounded to 1e-9 of its unit.
pub fn tick(v: f64) -> String {
    let r = (v * 1e9).round() / 1e9;
    if r == 0.0 {
        "0".into()
    } else {
        format!("{r}")
    }
}

/// An axis tick of a value as the mesh hands it over (by reference).
fn tick_label(v: &f64) -> String {
    tick(*v)
}

/// Draws the grid and axes of a chart, whose own settings (descriptions,
/// x labels) `mesh` holds, in the style all figures share: y ticks as
/// [`tick`], no light grid lines, 14-pt labels and 16-pt axis descriptions.
pub fn draw_mesh<X, Y, DB>(mesh: &mut MeshStyle<'_, '_, X, Y, DB>) -> PlotResult<()>
where
    X: Ranged + ValueFormatter<X::ValueType>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    DB: DrawingBackend,
{
    mesh.y_label_formatter(&tick_label)
        .light_line_style(TRANSPARENT)
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 16))
        .draw()
        .map_err(err)
}

/// One legend entry: a swatch (a filled box, or a line when `line`) and its text.
pub struct Entry {
    pub color: RGBColor,
    pub line: bool,
    pub text: String,
}

/// Draws `entries` top-down in `area` (a strip beside the plot), under
/// `heading` if any, then `notes` (plain lines) below them.
pub fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    top: i32,
    heading: &str,
    entries: &[Entry],
    notes: &[String],
) -> PlotResult<()> {
    let mut y = top;
    let text = (FONT, 15).into_font().color(&BLACK);
    if !heading.is_empty() {
        area.draw(&Text::new(
            heading.to_string(),
            (8, y),
            (FONT, 15).into_font().style(FontStyle::Bold).color(&BLACK),
        ))
        .map_err(err)?;
        y += 26;
    }
    for e in entries {
        if e.line {
            area.draw(&PathElement::new(
                vec![(8, y + 8), (28, y + 8)],
                e.color.stroke_width(3),
            ))
            .map_err(err)?;
        } else {
            area.draw(&Rectangle::new([(8, y), (28, y + 16)], e.color.filled()))
                .map_err(err)?;
        }
        area.draw(&Text::new(e.text.clone(), (36, y + 1), text.clone()))
            .map_err(err)?;
        y += 26;
    }
    y += 8;
    let small = (FONT, 13).into_font().color(&RGBColor(70, 70, 70));
    for n in notes {
        area.draw(&Text::new(n.clone(), (8, y), small.clone()))
            .map_err(err)?;
        y += 18;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_formats() {
        assert_eq!(time_unit(2.5).name, "s");
        assert_eq!(time_unit(0.5).name, "ms");
        assert_eq!(time_unit(1e-3).name, "ms");
        assert_eq!(time_unit(5e-6).per_s, 1e6);
        assert_eq!(time_unit(5e-10).name, "ns");
        assert_eq!(time_unit(0.0).name, "ns");
        assert_eq!(secs(0.0123456), "12.35 ms");
        assert_eq!(secs(2.0), "2.000 s");
        assert_eq!(secs(3.5e-6), "3.500 µs");
        assert_eq!(sig4(1234.4), "1234");
        assert_eq!(tick(0.30000000000000004), "0.3");
        assert_eq!(tick(15.0), "15");
    }
}
