//! The figures' SVG, parsed back: one stacked bar per rank (or per bin) whose
//! heights are the values times one scale (within the 1-pixel rounding of
//! plotters' integer coordinates), the axis labels and the legend entries.
use super::input::tests::report_json;
use super::input::{parse, ReportData};
use super::style::{COMM, COMPUTE, PREDICTED, WAIT};
use super::{ranks, summary};
use plotters::style::RGBColor;
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }
}

/// What the tests read from an SVG: its rectangles and polylines by colour,
/// and its texts.
pub struct Svg {
    rects: Vec<(String, Rect)>,
    lines: Vec<(String, Vec<(f64, f64)>)>,
    pub texts: Vec<String>,
}

pub fn hex(c: RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

impl Svg {
    pub fn parse(text: &str) -> Svg {
        let doc = roxmltree::Document::parse(text).expect("the SVG is well-formed XML");
        let num = |n: &roxmltree::Node, a: &str| -> f64 {
            n.attribute(a)
                .unwrap_or_else(|| panic!("no {a}"))
                .parse()
                .unwrap()
        };
        let mut s = Svg {
            rects: Vec::new(),
            lines: Vec::new(),
            texts: Vec::new(),
        };
        for n in doc.descendants() {
            match n.tag_name().name() {
                "rect" => s.rects.push((
                    n.attribute("fill").unwrap_or("").to_string(),
                    Rect {
                        x: num(&n, "x"),
                        y: num(&n, "y"),
                        w: num(&n, "width"),
                        h: num(&n, "height"),
                    },
                )),
                "polyline" => s.lines.push((
                    n.attribute("stroke").unwrap_or("").to_string(),
                    n.attribute("points")
                        .unwrap()
                        .split_whitespace()
                        .map(|p| {
                            let (x, y) = p.split_once(',').unwrap();
                            (x.parse().unwrap(), y.parse().unwrap())
                        })
                        .collect(),
                )),
                "text" => s.texts.push(n.text().unwrap_or("").trim().to_string()),
                _ => {}
            }
        }
        s
    }

    /// The rectangles of colour `c` left of `x_max`, left to right.
    pub fn rects(&self, c: RGBColor, x_max: f64) -> Vec<Rect> {
        let mut v: Vec<Rect> = self
            .rects
            .iter()
            .filter(|(f, r)| *f == hex(c) && r.x < x_max)
            .map(|x| x.1)
            .collect();
        v.sort_by(|a, b| a.x.total_cmp(&b.x));
        v
    }

    /// The polylines of colour `c` left of `x_max`.
    pub fn lines(&self, c: RGBColor, x_max: f64) -> Vec<Vec<(f64, f64)>> {
        self.lines
            .iter()
            .filter(|(s, p)| *s == hex(c) && p.iter().all(|q| q.0 < x_max))
            .map(|x| x.1.clone())
            .collect()
    }

    pub fn has_text(&self, t: &str) -> bool {
        self.texts.iter().any(|x| x == t)
    }
}

fn data(ranks: &[(f64, f64, f64)]) -> ReportData {
    parse(&report_json(ranks).to_string(), Path::new("t.json")).unwrap()
}

/// Checks the stacked bars of a ranks figure against `expected` (one
/// (compute, comm, wait) per bar, in seconds); returns the pixels per second.
fn check_stacks(svg: &Svg, expected: &[(f64, f64, f64)], predicted_s: f64) -> f64 {
    let plot = (ranks::WIDTH - ranks::LEGEND_WIDTH) as f64;
    let [c, m, w] = [COMPUTE, COMM, WAIT].map(|col| svg.rects(col, plot));
    assert_eq!(c.len(), expected.len(), "one computation rect per bar");
    assert_eq!(m.len(), expected.len(), "one communication rect per bar");
    assert_eq!(w.len(), expected.len(), "one waiting rect per bar");
    // The predicted line across the plot gives the scale independently of
    // the bars: (baseline - its y) pixels for predicted_s.
    let pred = svg.lines(PREDICTED, plot);
    let across: Vec<_> = pred.iter().filter(|p| p.len() == 2).collect();
    assert_eq!(across.len(), 1, "one predicted line: {pred:?}");
    let baseline = c[0].bottom();
    let px_per_s = (baseline - across[0][0].1) / predicted_s;
    let step = c[1].x - c[0].x;
    for (i, e) in expected.iter().enumerate() {
        let (rc, rm, rw) = (c[i], m[i], w[i]);
        assert_eq!(rc.bottom(), baseline, "bar {i} stands on the axis");
        assert_eq!(rm.bottom(), rc.y, "bar {i}: communication on computation");
        assert_eq!(rw.bottom(), rm.y, "bar {i}: waiting on communication");
        assert_eq!((rc.x, rc.w), (rm.x, rm.w), "bar {i}");
        assert_eq!((rc.x, rc.w), (rw.x, rw.w), "bar {i}");
        if i > 0 {
            // evenly spaced, in rank order (within a pixel of rounding)
            assert!(
                (rc.x - c[i - 1].x - step).abs() <= 1.0,
                "bar {i} at {}",
                rc.x
            );
        }
        for (what, r, v) in [("compute", rc, e.0), ("comm", rm, e.1), ("wait", rw, e.2)] {
            assert!(
                (r.h - v * px_per_s).abs() <= 1.0,
                "bar {i} {what}: {} px for {v} s at {px_per_s} px/s",
                r.h
            );
        }
    }
    px_per_s
}

#[test]
fn ranks_figure_has_one_stacked_bar_per_rank() {
    let v = [
        (4e-3, 2e-3, 1e-3),
        (2e-3, 2e-3, 2e-3),
        (1e-3, 0.5e-3, 3e-3),
        (3e-3, 0.0, 0.0),
    ];
    let svg = Svg::parse(&ranks::render(&data(&v), "demo").unwrap());
    let px = check_stacks(&svg, &v, 7e-3);
    // 7 ms is 95 % of the axis (5 % headroom): hundreds of pixels.
    assert!(px * 7e-3 > 400.0, "{px}");
    for t in [
        "demo: virtual time of each of the 4 ranks on tianhe1a",
        "rank",
        "virtual time (ms)",
        "0",
        "1",
        "2",
        "3",
        "computation",
        "communication",
        "waiting",
        "predicted 7.000 ms",
        "slowest rank: 0",
    ] {
        assert!(svg.has_text(t), "no text `{t}` in {:?}", svg.texts);
    }
    // no whiskers at one bar per rank
    assert!(!svg.has_text("min .. max rank total"));
}

#[test]
fn bins_hold_consecutive_ranks() {
    assert_eq!(ranks::ranks_per_bar(128), 1);
    assert_eq!(ranks::ranks_per_bar(129), 3);
    assert_eq!(ranks::ranks_per_bar(1024), 16);
    let v: Vec<(f64, f64, f64)> = (0..130)
        .map(|i| (i as f64, 1.0, if i == 4 { 10.0 } else { 0.0 }))
        .collect();
    let d = data(&v);
    let bars = ranks::bars(&d.ranks);
    assert_eq!(bars.len(), 44, "43 bins of 3 and one of 1");
    assert_eq!(
        bars[1],
        ranks::Bar {
            first: 3,
            last: 5,
            compute_s: 4.0,
            comm_s: 1.0,
            wait_s: 10.0 / 3.0,
            min_total_s: 3.0 + 1.0,
            max_total_s: 4.0 + 1.0 + 10.0,
        }
    );
    assert_eq!(
        bars[43],
        ranks::Bar {
            first: 129,
            last: 129,
            compute_s: 129.0,
            comm_s: 1.0,
            wait_s: 0.0,
            min_total_s: 130.0,
            max_total_s: 130.0,
        }
    );
}

#[test]
fn a_thousand_ranks_are_drawn_as_64_bins_with_whiskers() {
    // 1024 ranks: computation 1 ms + 10 us x (rank mod 16), communication
    // 0.5 ms, waiting 0 but 4 ms on rank 1000 (an outlier in bin 62).
    let v: Vec<(f64, f64, f64)> = (0..1024)
        .map(|i| {
            let wait = if i == 1000 { 4e-3 } else { 0.0 };
            (1e-3 + 10e-6 * (i % 16) as f64, 0.5e-3, wait)
        })
        .collect();
    let d = data(&v);
    let svg_text = ranks::render(&d, "big").unwrap();
    let svg = Svg::parse(&svg_text);
    // every bin: mean computation 1.075 ms, communication 0.5 ms; waiting
    // 4 ms / 16 in bin 62
    let expected: Vec<(f64, f64, f64)> = (0..64)
        .map(|b| (1.075e-3, 0.5e-3, if b == 62 { 0.25e-3 } else { 0.0 }))
        .collect();
    let predicted = 1e-3 + 10e-6 * 8.0 + 0.5e-3 + 4e-3;
    let px = check_stacks(&svg, &expected, predicted);
    let plot = (ranks::WIDTH - ranks::LEGEND_WIDTH) as f64;
    let whiskers: Vec<_> = svg
        .lines(plotters::style::BLACK, plot)
        .into_iter()
        .filter(|p| p.len() == 6)
        .collect();
    assert_eq!(whiskers.len(), 64, "one whisker per bin");
    let baseline = svg.rects(COMPUTE, plot)[0].bottom();
    // bin 62's whisker reaches the outlier's total; the others span
    // 1.5 ms .. 1.65 ms
    let mut w: Vec<_> = whiskers.iter().map(|p| (p[0].0, p[0].1, p[3].1)).collect();
    w.sort_by(|a, b| a.0.total_cmp(&b.0));
    let near = |y: f64, s: f64| (baseline - y - s * px).abs() <= 1.0;
    assert!(near(w[62].2, predicted), "{:?}", w[62]);
    assert!(near(w[0].1, 1.5e-3) && near(w[0].2, 1.65e-3), "{:?}", w[0]);
    for t in [
        "big: virtual time of 1024 ranks on tianhe1a (bins of 16 ranks)",
        "computation (bin mean)",
        "communication (bin mean)",
        "waiting (bin mean)",
        "min .. max rank total",
        "1024 ranks in bins of 16",
        "virtual time (ms)",
        "rank",
        "1000",
    ] {
        assert!(svg.has_text(t), "no text `{t}` in {:?}", svg.texts);
    }
    // small enough to open in a browser
    assert!(svg_text.len() < 200_000, "{} bytes", svg_text.len());
}

#[test]
fn summary_figure_gives_the_spread_and_the_shares() {
    let v = [(3e-3, 1e-3, 0.0), (1e-3, 1e-3, 2e-3)];
    let d = data(&v);
    let svg = Svg::parse(&summary::render(&d, "two").unwrap());
    let left = 720.0;
    // the left panel: one bar per column, mean heights 2, 1, 1 and 4 ms
    let [c, m, w, t] = [COMPUTE, COMM, WAIT, PREDICTED].map(|col| svg.rects(col, left));
    for r in [&c, &m, &w, &t] {
        assert_eq!(r.len(), 1, "{r:?}");
    }
    let px = t[0].h / 4e-3;
    for (r, s) in [(c[0], 2e-3), (m[0], 1e-3), (w[0], 1e-3)] {
        assert!((r.h - s * px).abs() <= 1.0, "{r:?} for {s} s");
    }
    // whiskers: computation 1 .. 3 ms, virtual time 4 .. 4 ms
    let whiskers = svg.lines(plotters::style::BLACK, left);
    let comp = whiskers
        .iter()
        .find(|p| p.len() == 6 && (p[2].0 - (c[0].x + c[0].w / 2.0)).abs() <= 1.0)
        .expect("computation's whisker");
    let base = c[0].bottom();
    assert!((base - comp[2].1 - 1e-3 * px).abs() <= 1.0, "{comp:?}");
    assert!((base - comp[3].1 - 3e-3 * px).abs() <= 1.0, "{comp:?}");
    // the right panel: computation 4/8, communication 2/8, waiting 2/8
    let share = [COMPUTE, COMM, WAIT].map(|col| {
        let r = svg.rects(col, summary::WIDTH as f64);
        assert!(r.len() >= 3, "{r:?}");
        r[1] // [0] is the left panel's bar, the last the legend's swatch
    });
    let full = share.iter().map(|r| r.h).sum::<f64>();
    assert!((share[0].h - full / 2.0).abs() <= 1.0, "{share:?}");
    assert!((share[1].h - full / 4.0).abs() <= 1.0, "{share:?}");
    for t in [
        "two: 2 ranks on tianhe1a, predicted 4.000 ms (slowest rank 0)",
        "virtual time (ms)",
        "computation",
        "communication",
        "waiting",
        "virtual time",
        "mean 2.000 ms",
        "mean 4.000 ms",
        "computation 50.0 %",
        "communication 25.0 %",
        "waiting 25.0 %",
        "messages 12  ·  bytes sent 4.0 KiB  ·  host cores 2  ·  host wall 250.0 ms  ·  efficiency 0.50",
    ] {
        assert!(svg.has_text(t), "no text `{t}` in {:?}", svg.texts);
    }
}

#[test]
fn one_rank_and_all_zero_times_still_draw() {
    let d = data(&[(0.0, 0.0, 0.0)]);
    let svg = Svg::parse(&ranks::render(&d, "zero").unwrap());
    let plot = (ranks::WIDTH - ranks::LEGEND_WIDTH) as f64;
    assert_eq!(svg.rects(COMPUTE, plot).len(), 1);
    assert!(svg.rects(COMPUTE, plot)[0].h == 0.0);
    assert!(svg.has_text("predicted 0 s"), "{:?}", svg.texts);
    let svg = Svg::parse(&summary::render(&d, "zero").unwrap());
    for t in ["computation 0.0 %", "waiting 0.0 %", "mean 0 s"] {
        assert!(svg.has_text(t), "no text `{t}` in {:?}", svg.texts);
    }
}
