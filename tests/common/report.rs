//! Reading the `--report` JSON: `predicted_ps` (exact, also `predicted_s` in
//! seconds), `nranks`, `slowest_rank`, `efficiency`, `host_wall_s`, ... and a
//! `ranks` array with one entry per rank (`rank`, `vtime_ps`, `vtime_s`,
//! `compute_s`, `comm_s`, `wait_s`, ...).

use serde_json::Value;

pub fn read(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read report {}: {e}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("report {} is not JSON: {e}\n{text}", path.display()))
}

/// `obj[key]` as an integer.
pub fn uint(obj: &Value, key: &str) -> u64 {
    obj.get(key)
        .and_then(Value::as_u64)
        .unwrap_or_else(|| panic!("report: `{key}` missing or not an integer in {obj}"))
}

/// `obj[key]` as a number.
pub fn float(obj: &Value, key: &str) -> f64 {
    obj.get(key)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("report: `{key}` missing or not a number in {obj}"))
}

/// The predicted time (max of the ranks' final virtual times), in ps. The
/// seconds field must say the same.
pub fn predicted_ps(report: &Value) -> u64 {
    let ps = uint(report, "predicted_ps");
    assert_eq!((float(report, "predicted_s") * 1e12).round() as u64, ps);
    ps
}

/// The per-rank entries, in rank order (checked: entry i has rank i).
pub fn ranks(report: &Value) -> Vec<Value> {
    let v = report
        .get("ranks")
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("report: no `ranks` array in {report}"))
        .clone();
    for (i, r) in v.iter().enumerate() {
        assert_eq!(uint(r, "rank"), i as u64, "ranks are not in rank order");
    }
    v
}

/// A rank entry's final virtual time in ps (the seconds field agrees).
pub fn vtime_ps(rank: &Value) -> u64 {
    let ps = uint(rank, "vtime_ps");
    assert_eq!((float(rank, "vtime_s") * 1e12).round() as u64, ps);
    ps
}

/// Exact seconds with twelve decimals, as the stderr table shows them.
pub fn exact_secs(ps: u64) -> String {
    format!(
        "{}.{:012} s",
        ps / 1_000_000_000_000,
        ps % 1_000_000_000_000
    )
}
