//! Reading a `--report FILE.json` (written by src/report/json.rs) for the
//! figures: only the fields they draw, each checked, and every error names
//! the file and the field (`ranks[3].wait_s`).
use serde_json::Value;
use std::fmt;
use std::path::{Path, PathBuf};

/// One rank's virtual time split, in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankTimes {
    pub compute_s: f64,
    pub comm_s: f64,
    pub wait_s: f64,
    /// The rank's final virtual time.
    pub vtime_s: f64,
}

impl RankTimes {
    /// Computation + communication + waiting: the height of its stacked bar.
    pub fn total_s(&self) -> f64 {
        self.compute_s + self.comm_s + self.wait_s
    }
}

/// What the figures draw from a report.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportData {
    pub target: String,
    pub cores: u64,
    pub predicted_s: f64,
    pub slowest_rank: u64,
    pub msgs_sent: u64,
    pub bytes_sent: u64,
    pub host_wall_s: f64,
    pub slowdown: Option<f64>,
    pub efficiency: Option<f64>,
    /// Indexed by rank (`nranks` entries).
    pub ranks: Vec<RankTimes>,
}

/// Why a report cannot be drawn.
#[derive(Debug)]
pub enum InputError {
    Read(PathBuf, std::io::Error),
    NotJson(PathBuf, serde_json::Error),
    /// `field` (a path such as `ranks[3].wait_s`) is missing or wrong: `problem`.
    Field {
        file: PathBuf,
        field: String,
        problem: String,
    },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            InputError::Read(p, e) => write!(f, "{}: cannot read the report: {e}", p.display()),
            InputError::NotJson(p, e) => write!(f, "{}: not a JSON report: {e}", p.display()),
            InputError::Field {
                file,
                field,
                problem,
            } => write!(f, "{}: field `{field}` {problem}", file.display()),
        }
    }
}

impl std::error::Error for InputError {}

/// Reads and checks the report at `path`.
pub fn read(path: &Path) -> Result<ReportData, InputError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| InputError::Read(path.to_path_buf(), e))?;
    parse(&text, path)
}

/// Parses a report's text; `file` names it in errors.
pub fn parse(text: &str, file: &Path) -> Result<ReportData, InputError> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| InputError::NotJson(file.to_path_buf(), e))?;
    let f = Fields { file };
    let ranks_v = f.get(&v, "", "ranks")?;
    let list = ranks_v
        .as_array()
        .ok_or_else(|| f.bad("ranks", format!("is not a list (found {ranks_v})")))?;
    let nranks = f.uint(&v, "", "nranks")?;
    if nranks != list.len() as u64 {
        return Err(f.bad(
            "ranks",
            format!("has {} entries but `nranks` is {nranks}", list.len()),
        ));
    }
    if list.is_empty() {
        return Err(f.bad("ranks", "is empty".into()));
    }
    let mut ranks = Vec::with_capacity(list.len());
    for (i, r) in list.iter().enumerate() {
        let at = format!("ranks[{i}].");
        ranks.push(RankTimes {
            compute_s: f.secs(r, &at, "compute_s")?,
            comm_s: f.secs(r, &at, "comm_s")?,
            wait_s: f.secs(r, &at, "wait_s")?,
            vtime_s: f.secs(r, &at, "vtime_s")?,
        });
    }
    let target = f.get(&v, "", "target")?;
    Ok(ReportData {
        target: target
            .as_str()
            .ok_or_else(|| f.bad("target", format!("is not a string (found {target})")))?
            .to_string(),
        cores: f.uint(&v, "", "cores")?,
        predicted_s: f.secs(&v, "", "predicted_s")?,
        slowest_rank: f.uint(&v, "", "slowest_rank")?,
        msgs_sent: f.uint(&v, "", "msgs_sent")?,
        bytes_sent: f.uint(&v, "", "bytes_sent")?,
        host_wall_s: f.secs(&v, "", "host_wall_s")?,
        slowdown: f.opt_num(&v, "slowdown")?,
        efficiency: f.opt_num(&v, "efficiency")?,
        ranks,
    })
}

/// Field access with errors that name the file and the field's path.
struct Fields<'a> {
    file: &'a Path,
}

impl Fields<'_> {
    fn bad(&self, field: &str, problem: String) -> InputError {
        InputError::Field {
            file: self.file.to_path_buf(),
            field: field.to_string(),
            problem,
        }
    }

    /// `obj[key]`; `at` is the path of `obj` (e.g. `ranks[3].`).
    fn get<'v>(&self, obj: &'v Value, at: &str, key: &str) -> Result<&'v Value, InputError> {
        match obj.get(key) {
            Some(Value::Null) | None => Err(self.bad(&format!("{at}{key}"), "is missing".into())),
            Some(x) => Ok(x),
        }
    }

    /// A finite, non-negative number of seconds.
    fn secs(&self, obj: &Value, at: &str, key: &str) -> Result<f64, InputError> {
        let x = self.get(obj, at, key)?;
        match x.as_f64() {
            Some(s) if s.is_finite() && s >= 0.0 => Ok(s),
            Some(s) => Err(self.bad(&format!("{at}{key}"), format!("is negative ({s})"))),
            None => Err(self.bad(
                &format!("{at}{key}"),
                format!("is not a number (found {x})"),
            )),
        }
    }

    fn uint(&self, obj: &Value, at: &str, key: &str) -> Result<u64, InputError> {
        let x = self.get(obj, at, key)?;
        x.as_u64().ok_or_else(|| {
            self.bad(
                &format!("{at}{key}"),
                format!("is not a non-negative integer (found {x})"),
            )
        })
    }

    /// A number that the report writes as `null` when it has none.
    fn opt_num(&self, obj: &Value, key: &str) -> Result<Option<f64>, InputError> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(x) => x
                .as_f64()
                .map(Some)
                .ok_or_else(|| self.bad(key, format!("is not a number (found {x})"))),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// A report of `ranks` (compute, comm, wait) in seconds, each rank's
    /// virtual time their sum.
    pub fn report_json(ranks: &[(f64, f64, f64)]) -> Value {
        let predicted = ranks.iter().map(|r| r.0 + r.1 + r.2).fold(0.0, f64::max);
        json!({
            "target": "tianhe1a", "nranks": ranks.len(), "cores": 2,
            "sync_mode": "conservative", "predicted_s": predicted,
            "predicted_ps": (predicted * 1e12) as u64, "slowest_rank": 0,
            "msgs_sent": 12, "bytes_sent": 4096, "host_wall_s": 0.25,
            "efficiency": 0.5, "slowdown": null,
            "ranks": ranks.iter().enumerate().map(|(i, r)| json!({
                "rank": i, "vtime_s": r.0 + r.1 + r.2, "compute_s": r.0,
                "comm_s": r.1, "wait_s": r.2
            })).collect::<Vec<_>>()
        })
    }

    fn err(v: &Value) -> String {
        parse(&v.to_string(), Path::new("r.json"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn reads_the_fields() {
        let v = report_json(&[(1e-3, 2e-3, 0.0), (2e-3, 1e-3, 0.5e-3)]);
        let r = parse(&v.to_string(), Path::new("r.json")).unwrap();
        assert_eq!(r.target, "tianhe1a");
        assert_eq!(
            (r.cores, r.slowest_rank, r.msgs_sent, r.bytes_sent),
            (2, 0, 12, 4096)
        );
        assert_eq!(r.predicted_s, 3.5e-3);
        assert_eq!(r.host_wall_s, 0.25);
        assert_eq!((r.slowdown, r.efficiency), (None, Some(0.5)));
        assert_eq!(
            r.ranks[1],
            RankTimes {
                compute_s: 2e-3,
                comm_s: 1e-3,
                wait_s: 0.5e-3,
                vtime_s: 2e-3 + 1e-3 + 0.5e-3
            }
        );
    }

    #[test]
    fn errors_name_the_file_and_the_field() {
        let good = report_json(&[(1.0, 1.0, 1.0), (1.0, 1.0, 1.0)]);
        let mut v = good.clone();
        v["ranks"][1].as_object_mut().unwrap().remove("wait_s");
        assert_eq!(err(&v), "r.json: field `ranks[1].wait_s` is missing");
        let mut v = good.clone();
        v["ranks"][0]["comm_s"] = json!("fast");
        assert_eq!(
            err(&v),
            "r.json: field `ranks[0].comm_s` is not a number (found \"fast\")"
        );
        let mut v = good.clone();
        v["ranks"][0]["compute_s"] = json!(-1.0);
        assert_eq!(
            err(&v),
            "r.json: field `ranks[0].compute_s` is negative (-1)"
        );
        let mut v = good.clone();
        v.as_object_mut().unwrap().remove("predicted_s");
        assert_eq!(err(&v), "r.json: field `predicted_s` is missing");
        let mut v = good.clone();
        v.as_object_mut().unwrap().remove("ranks");
        assert_eq!(err(&v), "r.json: field `ranks` is missing");
        let mut v = good.clone();
        v["nranks"] = json!(3);
        assert_eq!(
            err(&v),
            "r.json: field `ranks` has 2 entries but `nranks` is 3"
        );
        let mut v = good.clone();
        v["target"] = json!(7);
        assert_eq!(err(&v), "r.json: field `target` is not a string (found 7)");
        let mut v = good;
        v["efficiency"] = json!("high");
        assert_eq!(
            err(&v),
            "r.json: field `efficiency` is not a number (found \"high\")"
        );
        let e = parse("{\"target\":", Path::new("r.json"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("r.json: not a JSON report: EOF"), "{e}");
    }
}
