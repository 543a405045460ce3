//! `--plot DIR` of the harness: SVG figures of a table's results, drawn with
//! plotters' SVG backend. `npb`: predicted vs real time and RE per case
//! (bench-npb/run); `scale`: slowdown and efficiency against ranks
//! (bench/scale). `chart` draws the two kinds of chart they use (grouped
//! bars, lines against ranks) from plain numbers, so that they are tested
//! without running anything.
pub mod chart;
pub mod npb;
pub mod scale;

use std::path::{Path, PathBuf};

/// Writes `svg` to `dir/name` (creating `dir`); the path written.
pub fn write(dir: &Path, name: &str, svg: &str) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let p = dir.join(name);
    std::fs::write(&p, svg).map_err(|e| format!("{}: {e}", p.display()))?;
    Ok(p)
}

/// The median of each key's values, keys in first-seen order.
pub fn medians<K: PartialEq + Clone>(items: impl IntoIterator<Item = (K, f64)>) -> Vec<(K, f64)> {
    let mut groups: Vec<(K, Vec<f64>)> = Vec::new();
    for (k, v) in items {
        match groups.iter_mut().find(|(g, _)| *g == k) {
            Some((_, vs)) => vs.push(v),
            None => groups.push((k, vec![v])),
        }
    }
    groups
        .into_iter()
        .filter_map(|(k, vs)| crate::npb::median(&vs).map(|m| (k, m)))
        .collect()
}

#[cfg(test)]
pub(crate) mod svg {
    //! Reading the figures back in tests: rectangles and polylines by
    //! colour, texts.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Rect {
        pub x: f64,
        pub y: f64,
        pub w: f64,
        pub h: f64,
    }

    pub struct Svg {
        pub rects: Vec<(String, Rect)>,
        pub lines: Vec<(String, Vec<(f64, f64)>)>,
        pub texts: Vec<String>,
    }

    pub fn hex(c: plotters::style::RGBColor) -> String {
        format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
    }

    impl Svg {
        pub fn parse(text: &str) -> Svg {
            let doc = roxmltree::Document::parse(text).expect("well-formed SVG");
            let num =
                |n: &roxmltree::Node, a: &str| -> f64 { n.attribute(a).unwrap().parse().unwrap() };
            let mut s = Svg {
                rects: vec![],
                lines: vec![],
                texts: vec![],
            };
            for n in doc.descendants() {
                match n.tag_name().name() {
                    "rect" => s.rects.push((
                        n.attribute("fill").unwrap_or("").into(),
                        Rect {
                            x: num(&n, "x"),
                            y: num(&n, "y"),
                            w: num(&n, "width"),
                            h: num(&n, "height"),
                        },
                    )),
                    "polyline" => s.lines.push((
                        n.attribute("stroke").unwrap_or("").into(),
                        n.attribute("points")
                            .unwrap()
                            .split_whitespace()
                            .map(|p| {
                                let (x, y) = p.split_once(',').unwrap();
                                (x.parse().unwrap(), y.parse().unwrap())
                            })
                            .collect(),
                    )),
                    "text" => s.texts.push(n.text().unwrap_or("").trim().into()),
                    _ => {}
                }
            }
            s
        }

        /// Rectangles of colour `c` inside x in [x_min, x_max), left to right.
        pub fn rects(&self, c: plotters::style::RGBColor, x_min: f64, x_max: f64) -> Vec<Rect> {
            let mut v: Vec<Rect> = self
                .rects
                .iter()
                .filter(|(f, r)| *f == hex(c) && r.x >= x_min && r.x < x_max)
                .map(|x| x.1)
                .collect();
            v.sort_by(|a, b| a.x.total_cmp(&b.x));
            v
        }

        pub fn lines(&self, c: plotters::style::RGBColor) -> Vec<Vec<(f64, f64)>> {
            self.lines
                .iter()
                .filter(|(s, _)| *s == hex(c))
                .map(|x| x.1.clone())
                .collect()
        }

        pub fn has_text(&self, t: &str) -> bool {
            self.texts.iter().any(|x| x == t)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_by_key_in_first_seen_order() {
        let m = medians([
            ("b", 3.0),
            ("a", 1.0),
            ("b", 1.0),
            ("b", 2.0),
            ("a", f64::NAN),
        ]);
        assert_eq!(m, [("b", 2.0), ("a", 1.0)]);
    }
}
