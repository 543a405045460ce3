//! `vaced plot` on the report of a real run: the per-rank figure has one
//! stacked bar per rank whose parts are the report's computation,
//! communication and waiting times at one scale (within the 1-pixel
//! rounding of the SVG's integer coordinates), the summary figure names the
//! run, and a missing, non-JSON or incomplete report is an error naming the
//! file and the field.
mod common;

use common::{program, report, Run};
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;
use vaced::plot::{ranks, style};

fn plot(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(common::vaced())
        .arg("plot")
        .args(args)
        .output()
        .expect("run vaced plot")
}

fn hex(c: plotters::style::RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// (y, height) of the rects filled with `color` left of `x_max`, by x.
fn bars(doc: &roxmltree::Document, color: &str, x_max: f64) -> Vec<(f64, f64)> {
    let num = |n: &roxmltree::Node, a| n.attribute(a).unwrap().parse::<f64>().unwrap();
    let mut v: Vec<(f64, f64, f64)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some(color))
        .map(|n| (num(&n, "x"), num(&n, "y"), num(&n, "height")))
        .filter(|r| r.0 < x_max)
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v.into_iter().map(|r| (r.1, r.2)).collect()
}

fn texts(doc: &roxmltree::Document) -> Vec<String> {
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").trim().to_string())
        .collect()
}

/// A real 4-rank report (made once): ranks 0 and 3 exchange 64 KiB while
/// computing 2 ms.
fn real_report() -> PathBuf {
    static REPORT: OnceLock<PathBuf> = OnceLock::new();
    REPORT
        .get_or_init(|| {
            let out = common::scratch().join("exchange.json");
            Run::exact(4, &program("exchange"))
                .report(&out)
                .args(&["3", "65536", "0.002"])
                .run()
                .assert_success();
            out
        })
        .clone()
}

#[test]
fn plots_a_real_report() {
    let rep = real_report();
    let json = report::read(&rep);
    let dir = common::scratch().join("figures");
    let o = plot(&[rep.as_os_str(), "-o".as_ref(), dir.as_os_str()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ranks_svg = dir.join("exchange-ranks.svg");
    let summary_svg = dir.join("exchange-summary.svg");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("{}\n{}\n", ranks_svg.display(), summary_svg.display())
    );

    let text = std::fs::read_to_string(&ranks_svg).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let plot_w = (ranks::WIDTH - ranks::LEGEND_WIDTH) as f64;
    let parts = [
        (style::COMPUTE, "compute_s"),
        (style::COMM, "comm_s"),
        (style::WAIT, "wait_s"),
    ]
    .map(|(c, key)| (bars(&doc, &hex(c), plot_w), key));
    let predicted = report::float(&json, "predicted_s");
    // the tallest stack is the predicted time (the slowest rank's)
    let slowest = report::uint(&json, "slowest_rank") as usize;
    let top = parts[2].0[slowest].0;
    let base = parts[0].0[slowest].0 + parts[0].0[slowest].1;
    let px_per_s = (base - top) / predicted;
    assert!(px_per_s * predicted > 400.0, "{px_per_s}");
    let rs = report::ranks(&json);
    for (bars, key) in &parts {
        assert_eq!(bars.len(), 4, "one {key} bar per rank");
        for (i, r) in rs.iter().enumerate() {
            let v = report::float(r, key);
            assert!(
                (bars[i].1 - v * px_per_s).abs() <= 1.0,
                "rank {i} {key}: {} px for {v} s at {px_per_s} px/s",
                bars[i].1
            );
        }
    }
    // ranks 0 and 3 computed 2 ms; ranks 1 and 2 did not
    assert!(parts[0].0[0].1 > 100.0 && parts[0].0[1].1 == 0.0);
    let t = texts(&doc);
    for want in [
        "exchange: virtual time of each of the 4 ranks on tianhe1a-scale0",
        "rank",
        "virtual time (ms)",
        "computation",
        "communication",
        "waiting",
        &format!("predicted {}", style::secs(predicted)),
    ] {
        assert!(t.iter().any(|x| x == want), "no `{want}` in {t:?}");
    }

    let text = std::fs::read_to_string(&summary_svg).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let t = texts(&doc);
    let title = format!(
        "exchange: 4 ranks on tianhe1a-scale0, predicted {} (slowest rank {slowest})",
        style::secs(predicted)
    );
    assert!(t.contains(&title), "no `{title}` in {t:?}");

    // Without -o, the figures go next to the report.
    let o = plot(&[rep.as_os_str()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(rep.with_file_name("exchange-ranks.svg").is_file());
    assert!(rep.with_file_name("exchange-summary.svg").is_file());
}

fn fails(args: &[&std::ffi::OsStr], code: i32, stderr: &str) {
    let o = plot(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(code), "{err}");
    assert!(err.contains(stderr), "no `{stderr}` in:\n{err}");
}

#[test]
fn bad_reports_and_arguments() {
    let dir = common::scratch().join("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("missing.json");
    fails(
        &[missing.as_os_str()],
        1,
        &format!(
            "vaced plot: {}: cannot read the report: No such file",
            missing.display()
        ),
    );
    let not_json = dir.join("notes.json");
    std::fs::write(&not_json, "predicted: 3 s\n").unwrap();
    fails(
        &[not_json.as_os_str()],
        1,
        &format!("vaced plot: {}: not a JSON report: ", not_json.display()),
    );
    // A real report less one rank's communication time.
    let mut v = report::read(&real_report());
    v["ranks"][2].as_object_mut().unwrap().remove("comm_s");
    let partial = dir.join("partial.json");
    std::fs::write(&partial, v.to_string()).unwrap();
    fails(
        &[partial.as_os_str()],
        1,
        &format!(
            "vaced plot: {}: field `ranks[2].comm_s` is missing",
            partial.display()
        ),
    );
    assert!(!dir.join("partial-ranks.svg").exists(), "no figure drawn");
    fails(&[], 2, "<REPORT.json>");
    fails(&[partial.as_os_str(), "-o".as_ref()], 2, "--out <DIR>");
    fails(&["a.json".as_ref(), "b.json".as_ref()], 2, "'b.json'");
    fails(&["--bins".as_ref()], 2, "'--bins'");
}

#[test]
fn help_is_on_stdout() {
    let o = plot(&["--help".as_ref()]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("vaced plot [OPTIONS] <REPORT.json>"), "{out}");
    assert!(out.contains("NAME-ranks.svg"), "{out}");
}
