//! The configurations of a sweep: `--sweep KEY=V1,V2,...` lists, base
//! targets (a preset or a target file, read as a TOML table), and their
//! cartesian product, each configuration a target file with the keys set
//! and checked by loading it with the model (so a bad key or value gets
//! the model's own error, naming the key).
use crate::model::{self, units, Model};
use std::path::{Path, PathBuf};
use toml::{Table, Value};

/// One `--sweep KEY=V1,V2,...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sweep {
    pub key: String,
    pub values: Vec<String>,
}

/// clap's parser of `--sweep KEY=V1,V2,...`.
pub fn parse_sweep(s: &str) -> Result<Sweep, String> {
    let form = "expected KEY=V1,V2,... (e.g. network.latency=1us,2us,5us)";
    let Some((key, list)) = s.split_once('=') else {
        return Err(format!("no `=`: {form}"));
    };
    let key = key.trim();
    if key.is_empty() {
        return Err(format!("no key before `=`: {form}"));
    }
    let values: Vec<String> = list.split(',').map(|v| v.trim().to_string()).collect();
    if values.iter().any(String::is_empty) {
        return Err(format!("an empty value for `{key}`: {form}"));
    }
    Ok(Sweep {
        key: key.to_string(),
        values,
    })
}

/// A base target: what `--target` (or VACED_TARGET, or the default) names.
#[derive(Debug, Clone)]
pub struct Base {
    /// As given (a preset name or a path).
    pub spec: String,
    /// Where its errors come from (`preset NAME` or the path).
    pub origin: String,
    /// Its TOML, relative paths made absolute.
    pub table: Table,
    pub model: Model,
}

impl Base {
    /// Loads a preset name or a target file (the model's error if it is
    /// not a valid target).
    pub fn load(spec: &str) -> Result<Base, String> {
        let resolved = crate::launch::job::resolve_target(Some(spec), None);
        let model = Model::load(&resolved).map_err(|e| e.to_string())?;
        let is_path = resolved.contains('/') || resolved.ends_with(".toml");
        let (text, origin, dir) = match model::preset_toml(&resolved) {
            Some(t) if !is_path => (t.to_string(), format!("preset {resolved}"), None),
            _ => {
                let t = std::fs::read_to_string(&resolved).map_err(|e| format!("{spec}: {e}"))?;
                let dir = Path::new(&resolved).parent().map(Path::to_path_buf);
                (t, resolved.clone(), dir)
            }
        };
        let mut table: Table = text
            .parse()
            .map_err(|e| format!("{origin}: not valid TOML: {e}"))?;
        // A placement file is relative to the target file's directory: the
        // configurations are written elsewhere.
        if let (Some(dir), Some(Value::Table(topo))) = (dir, table.get_mut("topology")) {
            if let Some(Value::String(p)) = topo.get_mut("placement_file") {
                if Path::new(p.as_str()).is_relative() {
                    *p = dir.join(&*p).to_string_lossy().into_owned();
                }
            }
        }
        Ok(Base {
            spec: spec.to_string(),
            origin,
            table,
            model,
        })
    }
}

/// One configuration: a base target with some keys set.
#[derive(Debug, Clone)]
pub struct Config {
    /// Index of its base in the list of bases.
    pub base: usize,
    /// (key, value as written), in the order of the `--sweep` options.
    pub values: Vec<(String, String)>,
    /// The target file's text.
    pub toml: String,
    pub model: Model,
}

impl Config {
    /// `KEY=V KEY=V` (or `base` alone when nothing is swept).
    pub fn label(&self, bases: &[Base]) -> String {
        let mut parts = Vec::new();
        if bases.len() > 1 || self.values.is_empty() {
            parts.push(bases[self.base].spec.clone());
        }
        parts.extend(self.values.iter().map(|(k, v)| format!("{k}={v}")));
        parts.join(" ")
    }
}

/// A value as TOML: an integer or a number when it reads as one (for
/// `cpu.scale`, `header_bytes`, `topology.levels[0].ranks`), else a string
/// (a quantity with its unit, `"2 us"`): the model says which it wants.
fn toml_value(v: &str) -> Value {
    if let Ok(i) = v.parse::<i64>() {
        Value::Integer(i)
    } else if let Ok(f) = v.parse::<f64>() {
        Value::Float(f)
    } else {
        Value::String(v.to_string())
    }
}

/// Sets the dotted `key` (segments may index an array: `levels[1]`) of
/// `table` to `value`, creating missing sections.
pub fn set_key(table: &mut Table, key: &str, value: &str) -> Result<(), String> {
    let segs: Vec<&str> = key.split('.').collect();
    if segs.iter().any(|s| s.is_empty()) {
        return Err(format!(
            "`{key}` is not a dotted key such as network.latency"
        ));
    }
    let mut cur = table;
    for (i, seg) in segs.iter().enumerate() {
        let last = i + 1 == segs.len();
        let (name, index) = match seg.split_once('[') {
            Some((n, rest)) => {
                let idx = rest
                    .strip_suffix(']')
                    .and_then(|x| x.parse::<usize>().ok())
                    .ok_or_else(|| format!("key `{key}`: bad index in `{seg}`"))?;
                (n, Some(idx))
            }
            None => (*seg, None),
        };
        let so_far = segs[..=i].join(".");
        let slot = match index {
            None if last => {
                cur.insert(name.to_string(), toml_value(value));
                return Ok(());
            }
            None => cur
                .entry(name.to_string())
                .or_insert_with(|| Value::Table(Table::new())),
            Some(idx) => {
                let arr = match cur.get_mut(name) {
                    Some(Value::Array(a)) => a,
                    _ => return Err(format!("key `{key}`: `{name}` is not an array")),
                };
                let n = arr.len();
                let slot = arr
                    .get_mut(idx)
                    .ok_or_else(|| format!("key `{key}`: `{name}` has {n} elements, no [{idx}]"))?;
                if last {
                    *slot = toml_value(value);
                    return Ok(());
                }
                slot
            }
        };
        cur = match slot {
            Value::Table(t) => t,
            _ => return Err(format!("key `{key}`: `{so_far}` is not a section")),
        };
    }
    unreachable!("the last segment returns")
}

/// What a swept value means as a number: a time (seconds), a bandwidth
/// (bytes per second), a size (bytes) or a plain number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Numeric {
    Seconds(f64),
    BytesPerSecond(f64),
    Bytes(f64),
    Number(f64),
}

impl Numeric {
    pub fn value(self) -> f64 {
        match self {
            Numeric::Seconds(x)
            | Numeric::BytesPerSecond(x)
            | Numeric::Bytes(x)
            | Numeric::Number(x) => x,
        }
    }

    /// The unit's name for JSON and axes.
    pub fn unit(self) -> &'static str {
        match self {
            Numeric::Seconds(_) => "s",
            Numeric::BytesPerSecond(_) => "B/s",
            Numeric::Bytes(_) => "B",
            Numeric::Number(_) => "",
        }
    }
}

/// `value` as a number, or None when it is not a number or a quantity.
pub fn numeric(value: &str) -> Option<Numeric> {
    if let Ok(x) = value.trim().parse::<f64>() {
        return x.is_finite().then_some(Numeric::Number(x));
    }
    if let Ok(t) = units::parse_time(value) {
        return Some(Numeric::Seconds(t.as_secs_f64()));
    }
    if let Ok(b) = units::parse_bandwidth(value) {
        return Some(Numeric::BytesPerSecond(b as f64));
    }
    units::parse_size(value)
        .ok()
        .map(|b| Numeric::Bytes(b as f64))
}

/// The configurations: for each base in turn, the cartesian product of the
/// sweeps' values (the first `--sweep` varying slowest). Every one is
/// loaded with the model; the first that fails gives its error.
pub fn build(bases: &[Base], sweeps: &[Sweep]) -> Result<Vec<Config>, String> {
    for (i, s) in sweeps.iter().enumerate() {
        if sweeps[..i].iter().any(|o| o.key == s.key) {
            return Err(format!("--sweep {}: the key is swept twice", s.key));
        }
    }
    let mut out = Vec::new();
    for (bi, base) in bases.iter().enumerate() {
        let total: usize = sweeps.iter().map(|s| s.values.len()).product();
        for n in 0..total {
            // Mixed radix, the last sweep fastest.
            let mut rest = n;
            let mut pick = vec![0; sweeps.len()];
            for (i, s) in sweeps.iter().enumerate().rev() {
                pick[i] = rest % s.values.len();
                rest /= s.values.len();
            }
            let values: Vec<(String, String)> = sweeps
                .iter()
                .zip(&pick)
                .map(|(s, &p)| (s.key.clone(), s.values[p].clone()))
                .collect();
            let mut table = base.table.clone();
            for (k, v) in &values {
                set_key(&mut table, k, v).map_err(|e| format!("--sweep {k}={v}: {e}"))?;
            }
            let toml = toml::to_string(&table).map_err(|e| format!("{}: {e}", base.origin))?;
            let origin = format!(
                "{} with {}",
                base.origin,
                values
                    .iter()
                    .map(|(k, v)| format!("{k} = {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let model = Model::from_toml_str(&toml, &origin).map_err(|e| e.to_string())?;
            for (k, v) in &values {
                if numeric(v).is_none() {
                    return Err(format!(
                        "--sweep {k}={v}: `{v}` is not a number or a quantity with a unit \
                         (only numeric keys can be swept)"
                    ));
                }
            }
            out.push(Config {
                base: bi,
                values,
                toml,
                model,
            });
        }
    }
    Ok(out)
}

/// Where configuration `i`'s files go in `dir`: `config-NNN.toml` and
/// `config-NNN.json` (its report).
pub fn paths(dir: &Path, i: usize) -> (PathBuf, PathBuf) {
    (
        dir.join(format!("config-{i:03}.toml")),
        dir.join(format!("config-{i:03}.json")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(name: &str) -> Base {
        Base::load(name).unwrap()
    }

    fn sweep(s: &str) -> Sweep {
        parse_sweep(s).unwrap()
    }

    #[test]
    fn sweep_options() {
        assert_eq!(
            sweep("network.latency=1us, 2 us,5us"),
            Sweep {
                key: "network.latency".into(),
                values: vec!["1us".into(), "2 us".into(), "5us".into()]
            }
        );
        assert_eq!(sweep("cpu.scale=0").values, ["0"]);
        assert!(parse_sweep("network.latency")
            .unwrap_err()
            .contains("no `=`"));
        assert!(parse_sweep("=1us").unwrap_err().contains("no key"));
        assert!(parse_sweep("k=1,,2").unwrap_err().contains("empty value"));
        assert!(parse_sweep("k=").unwrap_err().contains("empty value"));
    }

    #[test]
    fn cartesian_product_in_order() {
        let bases = [base("tianhe1a")];
        let cs = build(
            &bases,
            &[
                sweep("network.latency=1us,2us"),
                sweep("network.net_bandwidth=1GB/s,2GB/s,4GB/s"),
            ],
        )
        .unwrap();
        assert_eq!(cs.len(), 6);
        let got: Vec<(u64, u64)> = cs
            .iter()
            .map(|c| (c.model.latency.ps(), c.model.net_bandwidth))
            .collect();
        let (l1, l2) = (1_000_000, 2_000_000);
        let (g1, g2, g4) = (1_000_000_000, 2_000_000_000, 4_000_000_000);
        assert_eq!(
            got,
            [(l1, g1), (l1, g2), (l1, g4), (l2, g1), (l2, g2), (l2, g4)]
        );
        assert_eq!(
            cs[4].label(&bases),
            "network.latency=2us network.net_bandwidth=2GB/s"
        );
        // Everything else is the base's.
        let mut m = cs[0].model.clone();
        m.latency = bases[0].model.latency;
        m.net_bandwidth = bases[0].model.net_bandwidth;
        m.rendezvous = bases[0].model.rendezvous;
        assert_eq!(m, bases[0].model);
    }

    #[test]
    fn numbers_and_nested_keys() {
        let bases = [base("tianhe1a")];
        let cs = build(
            &bases,
            &[
                sweep("cpu.scale=0,0.5"),
                sweep("topology.levels[0].ranks=4"),
                sweep("network.node.latency=1us"),
            ],
        )
        .unwrap();
        assert_eq!(cs[0].model.cpu_scale, 0.0);
        assert_eq!(cs[1].model.cpu_scale, 0.5);
        assert_eq!(cs[0].model.node_of(4), 1);
        assert_eq!(cs[0].model.node.latency.ps(), 1_000_000);
    }

    #[test]
    fn bad_keys_and_values_get_the_models_error() {
        let bases = [base("tianhe1a")];
        let e = |s: &str| build(&bases, &[sweep(s)]).unwrap_err();
        let msg = e("network.latncy=1us");
        assert!(msg.contains("key `network.latncy`"), "{msg}");
        assert!(msg.contains("did you mean `latency`"), "{msg}");
        let msg = e("network.latency=fast");
        assert!(msg.contains("key `network.latency`"), "{msg}");
        assert!(msg.contains("`fast` does not start with a number"), "{msg}");
        let msg = e("network.latency=5");
        assert!(msg.contains("key `network.latency`: missing unit"), "{msg}");
        let msg = e("cpu.scale=-1");
        assert!(msg.contains("key `cpu.scale`"), "{msg}");
        let msg = e("network.latency.x=1");
        assert!(msg.contains("`network.latency` is not a section"), "{msg}");
        let msg = e("topology.levels[7].ranks=1");
        assert!(msg.contains("no [7]"), "{msg}");
        let msg = e("name=x");
        assert!(msg.contains("not a number or a quantity"), "{msg}");
        let msg = build(&bases, &[sweep("cpu.scale=1"), sweep("cpu.scale=2")]).unwrap_err();
        assert!(msg.contains("swept twice"), "{msg}");
    }

    #[test]
    fn numeric_values() {
        assert_eq!(numeric("2us"), Some(Numeric::Seconds(2e-6)));
        assert_eq!(numeric("2 GB/s"), Some(Numeric::BytesPerSecond(2e9)));
        assert_eq!(numeric("4 KiB"), Some(Numeric::Bytes(4096.0)));
        assert_eq!(numeric("0.5"), Some(Numeric::Number(0.5)));
        assert_eq!(numeric("fast"), None);
        assert_eq!(numeric("nan"), None);
    }
}
