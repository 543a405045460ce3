//! Reading the `--report` JSON. Times may be written either as integer
//! picoseconds under `<name>_ps` or as seconds under `<name>_s` / `<name>`;
//! both are read back as exact picoseconds.

use serde_json::Value;

/// The value of the first of `names` present in `obj`, in picoseconds.
pub fn time_ps(obj: &Value, names: &[&str]) -> Option<u64> {
    let map = obj.as_object()?;
    for name in names {
        if let Some(v) = map.get(&format!("{name}_ps")) {
            return Some(
                v.as_u64()
                    .unwrap_or_else(|| panic!("`{name}_ps` is not an integer: {v}")),
            );
        }
        for key in [format!("{name}_s"), name.to_string()] {
            if let Some(v) = map.get(&key) {
                let x = v
                    .as_f64()
                    .unwrap_or_else(|| panic!("`{key}` is not a number: {v}"));
                return Some((x * 1e12).round() as u64);
            }
        }
    }
    None
}

/// Like [`time_ps`], panicking with the keys that are there.
pub fn require_time_ps(obj: &Value, names: &[&str], what: &str) -> u64 {
    time_ps(obj, names).unwrap_or_else(|| {
        panic!(
            "report: no {what} (looked for {names:?} with _ps / _s); keys: {:?}",
            keys(obj)
        )
    })
}

pub fn keys(obj: &Value) -> Vec<String> {
    obj.as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

/// Names under which the predicted run time (max over ranks) may appear.
pub const PREDICTED: &[&str] = &["predicted", "predicted_time", "prediction"];
/// Names under which a rank's final virtual time may appear.
pub const RANK_VTIME: &[&str] = &["vtime", "final_vtime", "virtual_time", "time"];

/// The per-rank entries, in rank order (sorted by their `rank` field if
/// they have one).
pub fn ranks(report: &Value) -> Vec<Value> {
    let mut v = report
        .get("ranks")
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("report: no `ranks` array; keys: {:?}", keys(report)))
        .clone();
    if v.iter().all(|r| r.get("rank").is_some()) {
        v.sort_by_key(|r| r["rank"].as_u64().expect("`rank` is not an integer"));
        for (i, r) in v.iter().enumerate() {
            assert_eq!(r["rank"].as_u64(), Some(i as u64), "ranks are not 0..n");
        }
    }
    v
}

pub fn read(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read report {}: {e}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("report {} is not JSON: {e}\n{text}", path.display()))
}
