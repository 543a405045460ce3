//! The results: a table per directory (listed, built, passed, failed, timed
//! out, not built, pass % of listed), a total over the issue's directories,
//! one line per test that did not pass, and the MPI names the unbuilt tests
//! miss; as text (stdout), Markdown (summary.md) and JSON (results.json).

use crate::testlist::TestCase;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The directories issue 11 counts, in its order.
pub const ISSUE_DIRS: [&str; 16] = [
    "pt2pt", "coll", "comm", "group", "datatype", "topo", "init", "errhan", "attr", "info",
    "basic", "rma", "io", "threads", "f77", "f90",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Passed,
    Failed,
    TimedOut,
    NotBuilt,
}

impl State {
    fn word(self) -> &'static str {
        match self {
            State::Passed => "passed",
            State::Failed => "failed",
            State::TimedOut => "timed out",
            State::NotBuilt => "not built",
        }
    }
}

/// One test line's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub dir: String,
    pub name: String,
    pub np: u32,
    pub args: Vec<String>,
    pub env: Vec<String>,
    pub time_limit_s: f64,
    pub xfail: Option<String>,
    pub result_test: Option<String>,
    pub state: State,
    /// Why it did not pass (first error line, exit status, ...).
    pub reason: String,
    /// MPI names it misses (not built).
    pub missing: Vec<String>,
    /// Build or run log, relative to the results directory.
    pub log: String,
    pub seconds: f64,
    #[serde(skip)]
    pub label: String,
    #[serde(skip)]
    pub top: String,
}

impl Outcome {
    pub fn new(t: &TestCase, limit: f64) -> Outcome {
        Outcome {
            dir: t.dir.clone(),
            name: t.name.clone(),
            np: t.np,
            args: t.args.clone(),
            env: t.env.iter().map(|(k, v)| format!("{k}={v}")).collect(),
            time_limit_s: limit,
            xfail: t.xfail.clone(),
            result_test: t.result_test.clone(),
            state: State::NotBuilt,
            reason: String::new(),
            missing: vec![],
            log: String::new(),
            seconds: 0.0,
            label: t.label(),
            top: t.top().to_string(),
        }
    }

    /// The one-line explanation of a test that did not pass.
    pub fn why(&self) -> String {
        let mut s = format!("{}: {}", self.label, self.state.word());
        if self.state == State::NotBuilt && !self.missing.is_empty() {
            s.push_str(&format!(" (missing {})", self.missing.join(", ")));
        } else if !self.reason.is_empty() {
            s.push_str(&format!(" ({})", self.reason));
        }
        if let Some(x) = &self.xfail {
            s.push_str(&format!(" [xfail in MPICH: {x}]"));
        }
        s
    }
}

#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct Counts {
    pub listed: u32,
    pub built: u32,
    pub passed: u32,
    pub failed: u32,
    pub timed_out: u32,
    pub not_built: u32,
}

impl Counts {
    fn add(&mut self, o: &Outcome) {
        self.listed += 1;
        match o.state {
            State::Passed => self.passed += 1,
            State::Failed => self.failed += 1,
            State::TimedOut => self.timed_out += 1,
            State::NotBuilt => self.not_built += 1,
        }
        if o.state != State::NotBuilt {
            self.built += 1;
        }
    }

    fn sum(&mut self, c: &Counts) {
        self.listed += c.listed;
        self.built += c.built;
        self.passed += c.passed;
        self.failed += c.failed;
        self.timed_out += c.timed_out;
        self.not_built += c.not_built;
    }

    pub fn pass_pct(&self) -> f64 {
        if self.listed == 0 {
            0.0
        } else {
            100.0 * self.passed as f64 / self.listed as f64
        }
    }
}

/// Rows: (name, counts, is_subdirectory), in display order, then the total.
pub fn rows(outcomes: &[Outcome]) -> (Vec<(String, Counts, bool)>, Counts) {
    let mut tops: Vec<String> = vec![];
    for o in outcomes {
        if !tops.contains(&o.top) {
            tops.push(o.top.clone());
        }
    }
    // Issue directories first, in the issue's order, then the others.
    tops.sort_by_key(|t| ISSUE_DIRS.iter().position(|d| d == t).unwrap_or(usize::MAX));
    let mut rows = vec![];
    let mut total = Counts::default();
    for top in tops {
        let mut c = Counts::default();
        let mut subs: BTreeMap<String, Counts> = BTreeMap::new();
        for o in outcomes.iter().filter(|o| o.top == top) {
            c.add(o);
            subs.entry(o.dir.clone()).or_default().add(o);
        }
        if ISSUE_DIRS.contains(&top.as_str()) {
            total.sum(&c);
        }
        let only_top = subs.len() == 1 && subs.contains_key(&top);
        rows.push((top.clone(), c, false));
        if !only_top {
            for (d, sc) in subs {
                rows.push((d, sc, true));
            }
        }
    }
    (rows, total)
}

/// MPI name -> (test lines not built that miss it, of which miss nothing
/// else), most wanted first.
pub fn missing_counts(outcomes: &[Outcome]) -> Vec<(String, u32, u32)> {
    let mut m: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    for o in outcomes.iter().filter(|o| o.state == State::NotBuilt) {
        for n in &o.missing {
            let e = m.entry(n.clone()).or_default();
            e.0 += 1;
            if o.missing.len() == 1 {
                e.1 += 1;
            }
        }
    }
    let mut v: Vec<(String, u32, u32)> = m.into_iter().map(|(n, (a, b))| (n, a, b)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)).then(a.0.cmp(&b.0)));
    v
}

const HEAD: [&str; 8] = [
    "directory",
    "listed",
    "built",
    "passed",
    "failed",
    "timed out",
    "not built",
    "pass %",
];

fn cells(name: &str, c: &Counts) -> [String; 8] {
    [
        name.to_string(),
        c.listed.to_string(),
        c.built.to_string(),
        c.passed.to_string(),
        c.failed.to_string(),
        c.timed_out.to_string(),
        c.not_built.to_string(),
        format!("{:.1}", c.pass_pct()),
    ]
}

/// The plain-text report (stdout).
pub fn text(outcomes: &[Outcome], notes: &[String]) -> String {
    let (rows, total) = rows(outcomes);
    let mut s = String::new();
    let line = |s: &mut String, c: &[String; 8]| {
        let _ = write!(s, "{:<22}", c[0]);
        for x in &c[1..] {
            let _ = write!(s, "{:>10}", x);
        }
        s.push('\n');
    };
    line(&mut s, &HEAD.map(String::from));
    for (name, c, sub) in &rows {
        let n = if *sub {
            format!("  {name}")
        } else {
            name.clone()
        };
        line(&mut s, &cells(&n, c));
    }
    line(&mut s, &cells("total (issue dirs)", &total));
    let bad: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| o.state != State::Passed)
        .collect();
    if !bad.is_empty() {
        s.push_str("\ntests that did not pass:\n");
        for o in bad {
            let _ = writeln!(s, "  {}", o.why());
        }
    }
    let miss = missing_counts(outcomes);
    if !miss.is_empty() {
        s.push_str(
            "\nMPI names missing: test lines not built for want of each (of which want nothing else):\n",
        );
        for (n, k, only) in miss {
            let _ = writeln!(s, "  {n}: {k} ({only})");
        }
    }
    for n in notes {
        let _ = writeln!(s, "\nnote: {n}");
    }
    s
}

/// The Markdown report (summary.md).
pub fn markdown(outcomes: &[Outcome], notes: &[String], header: &str) -> String {
    let (rows, total) = rows(outcomes);
    let mut s = format!("# MPICH 4.0.2 conformance of vaced\n\n{header}\n\n");
    s.push_str(&format!("| {} |\n", HEAD.join(" | ")));
    s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (name, c, sub) in &rows {
        let n = if *sub {
            format!("&nbsp;&nbsp;{name}")
        } else {
            format!("**{name}**")
        };
        s.push_str(&format!("| {} |\n", cells(&n, c).join(" | ")));
    }
    s.push_str(&format!(
        "| {} |\n",
        cells("**total (issue dirs)**", &total).join(" | ")
    ));
    let miss = missing_counts(outcomes);
    if !miss.is_empty() {
        s.push_str(
            "\n## MPI names missing\n\nTest lines not built for want of each name (in parentheses: of which want nothing else):\n\n",
        );
        for (n, k, only) in miss {
            s.push_str(&format!("- `{n}`: {k} ({only})\n"));
        }
    }
    let bad: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| o.state != State::Passed)
        .collect();
    if !bad.is_empty() {
        s.push_str("\n## Tests that did not pass\n\n");
        for o in bad {
            s.push_str(&format!(
                "- {} — [log]({})\n",
                o.why().replace('|', "\\|"),
                o.log
            ));
        }
    }
    for n in notes {
        s.push_str(&format!("\nNote: {n}\n"));
    }
    s
}

#[derive(Serialize)]
struct Json<'a> {
    header: &'a str,
    directories: Vec<JsonRow>,
    total_issue_dirs: Counts,
    notes: &'a [String],
    tests: &'a [Outcome],
}

#[derive(Serialize)]
struct JsonRow {
    directory: String,
    #[serde(flatten)]
    counts: Counts,
    pass_pct: f64,
}

/// The JSON report (results.json).
pub fn json(outcomes: &[Outcome], notes: &[String], header: &str) -> String {
    let (rows, total) = rows(outcomes);
    let j = Json {
        header,
        directories: rows
            .into_iter()
            .map(|(d, c, _)| JsonRow {
                directory: d,
                counts: c,
                pass_pct: c.pass_pct(),
            })
            .collect(),
        total_issue_dirs: total,
        notes,
        tests: outcomes,
    };
    serde_json::to_string_pretty(&j).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testlist::parse_line;

    fn out(dir: &str, line: &str, state: State) -> Outcome {
        let mut o = Outcome::new(&parse_line(dir, line).unwrap(), 180.0);
        o.state = state;
        o
    }

    #[test]
    fn counts_rows() {
        let mut nb = out("rma", "win 2", State::NotBuilt);
        nb.missing = vec!["MPI_Win_create".into()];
        let v = vec![
            out("pt2pt", "a 2", State::Passed),
            out("pt2pt", "b 2", State::Failed),
            nb,
            out("f77/attr", "x 1", State::TimedOut),
            out("f77/pt2pt", "y 1", State::Passed),
            out("spawn", "z 1", State::Passed),
        ];
        let (rows, total) = rows(&v);
        let names: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(
            names,
            ["pt2pt", "rma", "f77", "f77/attr", "f77/pt2pt", "spawn"]
        );
        assert_eq!(total.listed, 5);
        assert_eq!(total.passed, 2);
        assert_eq!(total.built, 4);
        assert_eq!(total.not_built, 1);
        assert_eq!(total.timed_out, 1);
        assert_eq!(total.pass_pct(), 40.0);
        assert_eq!(missing_counts(&v), [("MPI_Win_create".to_string(), 1, 1)]);
        assert!(text(&v, &[]).contains("rma/win 2: not built (missing MPI_Win_create)"));
    }
}
