//! Reading and writing target files (TOML, the format of DESIGN.md "Target
//! configuration"), and `Model::load` of a preset name or a file path.
//!
//! The file is parsed into a `toml::Table` and walked by hand so that every
//! error names the dotted key it is about (`network.latency`,
//! `topology.levels[1].ranks`) and unknown keys get a closest-match hint.
use super::presets;
use super::units::{self, Quantity};
use super::{ConfigError, Model, VTime};
use std::collections::BTreeMap;
use std::path::Path;
use toml::{Table, Value};

const TOP_KEYS: &[&str] = &["name", "cpu", "network", "topology", "collectives", "io"];
const CPU_KEYS: &[&str] = &["scale"];
const NETWORK_KEYS: &[&str] = &[
    "mem_bandwidth",
    "net_bandwidth",
    "latency",
    "hop_latency",
    "eager_limit",
    "header_bytes",
    "o_send",
    "o_recv",
    "node",
    "rendezvous_overhead",
    "rendezvous_bandwidth",
    "contention",
];

/// Builds errors for one origin.
pub(super) struct Ctx<'a> {
    origin: &'a str,
}

impl Ctx<'_> {
    pub(super) fn err(&self, key: &str, message: impl Into<String>) -> ConfigError {
        ConfigError {
            origin: self.origin.to_string(),
            key: key.to_string(),
            message: message.into(),
        }
    }

    /// Rejects keys of `table` that are not in `allowed`.
    pub(super) fn no_unknown(
        &self,
        table: &Table,
        prefix: &str,
        allowed: &[&str],
    ) -> Result<(), ConfigError> {
        for k in table.keys() {
            if !allowed.contains(&k.as_str()) {
                let msg = match closest(k, allowed) {
                    Some(s) => format!("unknown key (did you mean `{s}`?)"),
                    None => format!("unknown key (expected one of: {})", allowed.join(", ")),
                };
                return Err(self.err(&join(prefix, k), msg));
            }
        }
        Ok(())
    }

    fn required<'t>(&self, t: &'t Table, prefix: &str, k: &str) -> Result<&'t Value, ConfigError> {
        t.get(k)
            .ok_or_else(|| self.err(&join(prefix, k), "missing (required)"))
    }

    /// The sub-table `k` of `t` (an empty one when absent and optional).
    pub(super) fn table<'t>(
        &self,
        t: &'t Table,
        k: &str,
        required: bool,
        empty: &'t Table,
    ) -> Result<&'t Table, ConfigError> {
        match t.get(k) {
            None if required => Err(self.err(k, "missing section (required)")),
            None => Ok(empty),
            Some(Value::Table(sub)) => Ok(sub),
            Some(v) => Err(self.err(
                k,
                format!("expected a section [{k}], found {}", describe(v)),
            )),
        }
    }

    /// A string value with a unit of quantity `q`.
    pub(super) fn quantity(&self, key: &str, v: &Value, q: Quantity) -> Result<u64, ConfigError> {
        let s = match v {
            Value::String(s) => s,
            Value::Integer(_) | Value::Float(_) => {
                return Err(self.err(
                    key,
                    format!(
                        "missing unit: write a quoted value with a unit, e.g. \"{}\" (accepted units: {})",
                        q.example(),
                        q.units()
                    ),
                ))
            }
            _ => {
                return Err(self.err(
                    key,
                    format!(
                        "expected a quoted value with a unit such as \"{}\", found {}",
                        q.example(),
                        describe(v)
                    ),
                ))
            }
        };
        let r = match q {
            Quantity::Bandwidth => units::parse_bandwidth(s),
            Quantity::Time => units::parse_time(s).map(|t| t.ps()),
            Quantity::Size => units::parse_size(s),
        };
        r.map_err(|m| self.err(key, m))
    }

    /// Key `k` of section `t` (named `prefix`), a quantity `q` with a unit:
    /// `default` when absent, or an error when there is none.
    pub(super) fn value(
        &self,
        t: &Table,
        prefix: &str,
        k: &str,
        q: Quantity,
        default: Option<u64>,
    ) -> Result<u64, ConfigError> {
        match (t.get(k), default) {
            (None, Some(d)) => Ok(d),
            _ => {
                let v = self.required(t, prefix, k)?;
                self.quantity(&join(prefix, k), v, q)
            }
        }
    }

    pub(super) fn time(
        &self,
        t: &Table,
        prefix: &str,
        k: &str,
        default: Option<VTime>,
    ) -> Result<VTime, ConfigError> {
        self.value(t, prefix, k, Quantity::Time, default.map(VTime::ps))
            .map(VTime::from_ps)
    }

    /// A non-negative integer that fits `u32`.
    pub(super) fn count(&self, key: &str, v: &Value) -> Result<u32, ConfigError> {
        match v {
            Value::Integer(i) => u32::try_from(*i).map_err(|_| {
                self.err(
                    key,
                    format!("must be an integer from 0 to {}, found {i}", u32::MAX),
                )
            }),
            _ => Err(self.err(key, format!("expected an integer, found {}", describe(v)))),
        }
    }
}

pub(super) fn join(prefix: &str, k: &str) -> String {
    if prefix.is_empty() {
        k.to_string()
    } else {
        format!("{prefix}.{k}")
    }
}

pub(super) fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("the string \"{s}\""),
        Value::Integer(i) => format!("the integer {i}"),
        Value::Float(f) => format!("the number {f}"),
        Value::Boolean(b) => format!("the boolean {b}"),
        other => format!("a {}", other.type_str()),
    }
}

/// `k` as a TOML key: bare when it can be, quoted otherwise.
fn toml_key(k: &str) -> String {
    let bare = !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        k.to_string()
    } else {
        Value::String(k.to_string()).to_string()
    }
}

/// Levenshtein distance between two short strings.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The allowed key closest to `k`, if it is close enough to be a likely typo.
fn closest<'a>(k: &str, allowed: &[&'a str]) -> Option<&'a str> {
    let (best, d) = allowed
        .iter()
        .map(|a| (*a, distance(k, a)))
        .min_by_key(|(_, d)| *d)?;
    (d <= 2.max(k.chars().count() / 3)).then_some(best)
}

impl Model {
    /// Parses a target file. `origin` (a path or `preset NAME`) prefixes
    /// every error.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Model, ConfigError> {
        Model::from_toml_in(text, origin, None)
    }

    /// [`Model::from_toml_str`] of a file in directory `dir` (a placement
    /// file's relative path starts there; without one, at the current
    /// directory).
    pub fn from_toml_in(
        text: &str,
        origin: &str,
        dir: Option<&Path>,
    ) -> Result<Model, ConfigError> {
        let cx = Ctx { origin };
        let root: Table = text.parse().map_err(|e: toml::de::Error| {
            cx.err("", format!("not valid TOML: {}", e.to_string().trim_end()))
        })?;
        cx.no_unknown(&root, "", TOP_KEYS)?;
        let empty = Table::new();

        let name = match cx.required(&root, "", "name")? {
            Value::String(s) if !s.trim().is_empty() => s.clone(),
            Value::String(_) => return Err(cx.err("name", "must not be empty")),
            v => return Err(cx.err("name", format!("expected a string, found {}", describe(v)))),
        };

        let cpu = cx.table(&root, "cpu", false, &empty)?;
        cx.no_unknown(cpu, "cpu", CPU_KEYS)?;
        let cpu_scale = match cpu.get("scale") {
            None => 1.0,
            Some(Value::Float(f)) => *f,
            Some(Value::Integer(i)) => *i as f64,
            Some(v) => {
                return Err(cx.err(
                    "cpu.scale",
                    format!("expected a number, found {}", describe(v)),
                ))
            }
        };
        if !cpu_scale.is_finite() || cpu_scale < 0.0 {
            return Err(cx.err(
                "cpu.scale",
                format!("must be a number >= 0 (0 makes computation free), found {cpu_scale}"),
            ));
        }

        let net = cx.table(&root, "network", true, &empty)?;
        cx.no_unknown(net, "network", NETWORK_KEYS)?;
        let p = "network";
        let mem_bandwidth = cx.value(net, p, "mem_bandwidth", Quantity::Bandwidth, None)?;
        let net_bandwidth = cx.value(net, p, "net_bandwidth", Quantity::Bandwidth, None)?;
        let latency = cx.time(net, p, "latency", None)?;
        let hop_latency = cx.time(net, p, "hop_latency", None)?;
        let eager_limit = cx.value(net, p, "eager_limit", Quantity::Size, None)?;
        let header_bytes = match cx.required(net, p, "header_bytes")? {
            Value::Integer(i) => u64::try_from(*i).map_err(|_| {
                cx.err(
                    "network.header_bytes",
                    format!("must not be negative, found {i}"),
                )
            })?,
            v => cx.quantity("network.header_bytes", v, Quantity::Size)?,
        };
        let o_send = cx.time(net, p, "o_send", Some(VTime::ZERO))?;
        let o_recv = cx.time(net, p, "o_recv", Some(VTime::ZERO))?;
        let rendezvous = super::rendezvous::parse(&cx, net, p, net_bandwidth)?;

        let node = super::node::parse(
            &cx,
            net,
            &empty,
            super::NodeNet::defaults(mem_bandwidth, eager_limit),
        )?;
        let topology = super::topology::parse(&cx, &root, &empty, dir)?;
        let contention = super::contention::parse(&cx, net)?;
        if contention != super::Contention::None
            && latency.ps() + hop_latency.ps() * topology.min_node_hops() as u64 == 0
        {
            return Err(cx.err(
                "network.contention",
                "needs a positive latency between nodes (the least one is the model's window)",
            ));
        }

        // [collectives]: algorithm names by collective; the names are
        // checked by coll::select::validate (the model does not know them).
        let coll = cx.table(&root, "collectives", false, &empty)?;
        let mut collectives = BTreeMap::new();
        for (k, v) in coll {
            match v {
                Value::String(s) => {
                    collectives.insert(k.clone(), s.clone());
                }
                v => {
                    return Err(cx.err(
                        &join("collectives", k),
                        format!(
                            "expected a quoted algorithm name such as \"binomial\", found {}",
                            describe(v)
                        ),
                    ))
                }
            }
        }

        let io = super::io::parse(&cx, &root, &empty)?;

        Ok(Model {
            io,
            name,
            cpu_scale,
            mem_bandwidth,
            net_bandwidth,
            latency,
            hop_latency,
            eager_limit,
            header_bytes,
            o_send,
            o_recv,
            rendezvous,
            node,
            topology,
            contention,
            collectives,
        })
    }

    /// Loads a target: a path (contains `/` or ends in `.toml`), else a preset
    /// name, else an existing file.
    pub fn load(spec: &str) -> Result<Model, ConfigError> {
        let looks_like_path = spec.contains('/') || spec.ends_with(".toml");
        if !looks_like_path {
            if let Some(text) = presets::preset_toml(spec) {
                return Model::from_toml_str(text, &format!("preset {spec}"));
            }
        }
        if looks_like_path || Path::new(spec).is_file() {
            let text = std::fs::read_to_string(spec).map_err(|e| ConfigError {
                origin: spec.to_string(),
                key: String::new(),
                message: format!("cannot read target file: {e}"),
            })?;
            return Model::from_toml_in(&text, spec, Path::new(spec).parent());
        }
        Err(ConfigError {
            origin: format!("target `{spec}`"),
            key: String::new(),
            message: format!(
                "no such preset or file (presets: {}; a file path must contain '/' or end in .toml)",
                presets::preset_names().join(", ")
            ),
        })
    }

    /// The model as a target file that `from_toml_str` reads back to an equal
    /// model.
    pub fn to_toml(&self) -> String {
        let mut text = format!(
            "name = {name}\n\
             \n\
             [cpu]\n\
             scale = {scale:?}\n\
             \n\
             [network]\n\
             mem_bandwidth = \"{mem}\"\n\
             net_bandwidth = \"{net}\"\n\
             latency = \"{lat}\"\n\
             hop_latency = \"{hop}\"\n\
             eager_limit = \"{eager}\"\n\
             header_bytes = {header}\n\
             o_send = \"{os}\"\n\
             o_recv = \"{or}\"\n{rdv}",
            name = Value::String(self.name.clone()),
            scale = self.cpu_scale,
            mem = units::format_bandwidth(self.mem_bandwidth),
            net = units::format_bandwidth(self.net_bandwidth),
            lat = units::format_time(self.latency),
            hop = units::format_time(self.hop_latency),
            eager = units::format_size(self.eager_limit),
            header = self.header_bytes,
            os = units::format_time(self.o_send),
            or = units::format_time(self.o_recv),
            rdv = self.rendezvous.to_toml(self.net_bandwidth),
        );
        if self.contention == super::Contention::Links {
            text.push_str("contention = \"links\"\n");
        }
        if self.node != super::NodeNet::defaults(self.mem_bandwidth, self.eager_limit) {
            text.push_str(&self.node.to_toml());
        }
        text.push_str(&self.topology.to_toml());
        if self.io != super::IoModel::default() {
            text.push_str(&self.io.to_toml());
        }
        if !self.collectives.is_empty() {
            text.push_str("\n[collectives]\n");
            for (k, v) in &self.collectives {
                text.push_str(&format!("{} = {}\n", toml_key(k), Value::String(v.clone())));
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
name = "test"
[cpu]
scale = 0.5
[network]
mem_bandwidth = "1 GB/s"
net_bandwidth = "500 MB/s"
latency = "10 us"
hop_latency = "1 us"
eager_limit = "64 KiB"
header_bytes = "32 B"
o_send = "100 ns"
[topology]
levels = [ { ranks = 4, hops = 0 }, { ranks = 16, hops = 2 } ]
default_hops = 4
"#;

    fn err(text: &str) -> String {
        Model::from_toml_str(text, "t.toml")
            .unwrap_err()
            .to_string()
    }

    /// GOOD with `from` replaced by `to` (which must occur once).
    fn edit(from: &str, to: &str) -> String {
        assert_eq!(GOOD.matches(from).count(), 1, "{from}");
        GOOD.replace(from, to)
    }

    #[test]
    fn parses_every_field() {
        let m = Model::from_toml_str(GOOD, "t.toml").unwrap();
        assert_eq!(
            m,
            Model {
                name: "test".into(),
                cpu_scale: 0.5,
                mem_bandwidth: 1_000_000_000,
                net_bandwidth: 500_000_000,
                latency: VTime::from_ps(10_000_000),
                hop_latency: VTime::from_ps(1_000_000),
                eager_limit: 65_536,
                header_bytes: 32,
                o_send: VTime::from_ps(100_000),
                o_recv: VTime::ZERO,
                rendezvous: crate::model::Rendezvous::defaults(500_000_000),
                node: crate::model::NodeNet::defaults(1_000_000_000, 65_536),
                topology: crate::model::Topology::Levels {
                    levels: vec![
                        crate::model::Level { ranks: 4, hops: 0 },
                        crate::model::Level { ranks: 16, hops: 2 }
                    ],
                    default_hops: 4,
                },
                contention: crate::model::Contention::None,
                collectives: BTreeMap::new(),
                io: crate::model::IoModel::default(),
            }
        );
    }

    #[test]
    fn defaults_and_plain_forms() {
        let text = edit("[cpu]\nscale = 0.5\n", "")
            .replace("header_bytes = \"32 B\"", "header_bytes = 32");
        let m = Model::from_toml_str(&text, "t.toml").unwrap();
        assert_eq!(m.cpu_scale, 1.0);
        assert_eq!(m.header_bytes, 32);
        let m = Model::from_toml_str(&edit("scale = 0.5", "scale = 0"), "t").unwrap();
        assert_eq!(m.cpu_scale, 0.0);
        let m = Model::from_toml_str(&edit("scale = 0.5", "scale = 2"), "t").unwrap();
        assert_eq!(m.cpu_scale, 2.0);
        let m = Model::from_toml_str(
            &edit(
                "levels = [ { ranks = 4, hops = 0 }, { ranks = 16, hops = 2 } ]",
                "levels = []",
            ),
            "t",
        )
        .unwrap();
        assert_eq!(m.hops(0, 1), 4);
    }

    #[test]
    fn unit_errors_name_the_key() {
        assert_eq!(
            err(&edit("\"1 GB/s\"", "\"1 Gb/s\"")),
            "t.toml: key `network.mem_bandwidth`: unknown unit `Gb/s` in `1 Gb/s` (accepted units: B/s, kB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s)"
        );
        assert_eq!(
            err(&edit("\"10 us\"", "10")),
            "t.toml: key `network.latency`: missing unit: write a quoted value with a unit, e.g. \"15 us\" (accepted units: s, ms, us, \u{b5}s, \u{3bc}s, ns, ps)"
        );
        assert_eq!(
            err(&edit("\"10 us\"", "\"10\"")),
            "t.toml: key `network.latency`: `10` has no unit (write e.g. \"15 us\"; accepted units: s, ms, us, \u{b5}s, \u{3bc}s, ns, ps)"
        );
        assert_eq!(
            err(&edit("\"64 KiB\"", "65536")),
            "t.toml: key `network.eager_limit`: missing unit: write a quoted value with a unit, e.g. \"128 KiB\" (accepted units: B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)"
        );
        assert_eq!(
            err(&edit("\"500 MB/s\"", "\"0 MB/s\"")),
            "t.toml: key `network.net_bandwidth`: `0 MB/s`: a bandwidth must be greater than 0 B/s"
        );
        assert_eq!(
            err(&edit("\"100 ns\"", "\"-100 ns\"")),
            "t.toml: key `network.o_send`: must not be negative"
        );
        assert_eq!(
            err(&edit("\"32 B\"", "-1")),
            "t.toml: key `network.header_bytes`: must not be negative, found -1"
        );
        assert_eq!(
            err(&edit("\"1 us\"", "true")),
            "t.toml: key `network.hop_latency`: expected a quoted value with a unit such as \"15 us\", found the boolean true"
        );
    }

    #[test]
    fn unknown_keys() {
        assert_eq!(
            err(&edit("mem_bandwidth", "mem_bandwith")),
            "t.toml: key `network.mem_bandwith`: unknown key (did you mean `mem_bandwidth`?)"
        );
        assert_eq!(
            err(&edit("scale = 0.5", "scale = 0.5\ncores = 4")),
            "t.toml: key `cpu.cores`: unknown key (expected one of: scale)"
        );
        assert_eq!(
            err(&format!("{GOOD}[disk]\nspeed = \"1 GB/s\"\n")),
            "t.toml: key `disk`: unknown key (expected one of: name, cpu, network, topology, collectives, io)"
        );
        assert_eq!(
            err(&edit("hops = 2 }", "hop = 2 }")),
            "t.toml: key `topology.levels[1].hop`: unknown key (did you mean `hops`?)"
        );
    }

    #[test]
    fn missing_keys() {
        assert_eq!(
            err(&edit("latency = \"10 us\"\n", "")),
            "t.toml: key `network.latency`: missing (required)"
        );
        assert_eq!(
            err(&edit("name = \"test\"\n", "")),
            "t.toml: key `name`: missing (required)"
        );
        assert_eq!(
            err(&edit("default_hops = 4\n", "")),
            "t.toml: key `topology.default_hops`: missing (required)"
        );
        assert_eq!(
            err(&edit(", hops = 0", "")),
            "t.toml: key `topology.levels[0].hops`: missing (required)"
        );
        let no_net = GOOD.split("[network]").next().unwrap();
        assert_eq!(
            err(no_net),
            "t.toml: key `network`: missing section (required)"
        );
    }

    #[test]
    fn value_errors() {
        assert_eq!(
            err(&edit("scale = 0.5", "scale = -1.0")),
            "t.toml: key `cpu.scale`: must be a number >= 0 (0 makes computation free), found -1"
        );
        assert_eq!(
            err(&edit("scale = 0.5", "scale = \"fast\"")),
            "t.toml: key `cpu.scale`: expected a number, found the string \"fast\""
        );
        assert_eq!(
            err(&edit("ranks = 4", "ranks = 0")),
            "t.toml: key `topology.levels[0].ranks`: must be greater than 0"
        );
        assert_eq!(
            err(&edit("ranks = 16", "ranks = 4")),
            "t.toml: key `topology.levels[1].ranks`: levels must be listed with increasing ranks, but 4 follows 4"
        );
        assert_eq!(
            err(&edit("default_hops = 4", "default_hops = -2")),
            "t.toml: key `topology.default_hops`: must be an integer from 0 to 4294967295, found -2"
        );
        assert_eq!(
            err(&edit("name = \"test\"", "name = \"\"")),
            "t.toml: key `name`: must not be empty"
        );
        let cpu_not_table = GOOD
            .replace("[cpu]\nscale = 0.5\n", "")
            .replace("name = \"test\"", "name = \"test\"\ncpu = 3");
        assert_eq!(
            err(&cpu_not_table),
            "t.toml: key `cpu`: expected a section [cpu], found the integer 3"
        );
        let e = err("name = ");
        assert!(e.starts_with("t.toml: not valid TOML: "), "{e}");
    }

    #[test]
    fn collectives_table() {
        let text = format!("{GOOD}[collectives]\nbcast = \"binomial\"\nalltoall = \"bruck\"\n");
        let m = Model::from_toml_str(&text, "t.toml").unwrap();
        assert_eq!(m.collectives.len(), 2);
        assert_eq!(m.collectives["bcast"], "binomial");
        assert_eq!(m.collectives["alltoall"], "bruck");
        assert_eq!(Model::from_toml_str(&m.to_toml(), "again").unwrap(), m);
        assert!(Model::from_toml_str(GOOD, "t.toml")
            .unwrap()
            .collectives
            .is_empty());
        assert_eq!(
            err(&format!("{GOOD}[collectives]\nbcast = 3\n")),
            "t.toml: key `collectives.bcast`: expected a quoted algorithm name such as \"binomial\", found the integer 3"
        );
        assert_eq!(
            err(&format!("collectives = \"bcast\"\n{GOOD}")),
            "t.toml: key `collectives`: expected a section [collectives], found the string \"bcast\""
        );
    }

    #[test]
    fn to_toml_round_trips() {
        let m = Model::from_toml_str(GOOD, "t.toml").unwrap();
        let text = m.to_toml();
        assert_eq!(Model::from_toml_str(&text, "again").unwrap(), m);
        let odd = Model {
            name: "we\"ird \\ name".into(),
            cpu_scale: 0.1 + 0.2,
            mem_bandwidth: 1_610_612_736,
            net_bandwidth: 7,
            latency: VTime::from_ps(1_234_567),
            hop_latency: VTime::ZERO,
            eager_limit: 0,
            header_bytes: 0,
            o_send: VTime::from_ps(1),
            o_recv: VTime::from_ps(999_999_999_999_999),
            rendezvous: crate::model::Rendezvous {
                overhead: VTime::from_ps(11),
                bandwidth: 13,
            },
            node: crate::model::NodeNet {
                latency: VTime::from_ps(7),
                bandwidth: 3,
                eager_limit: 5,
                single_copy: true,
                rendezvous: crate::model::Rendezvous {
                    overhead: VTime::from_ps(17),
                    bandwidth: 19,
                },
            },
            topology: crate::model::Topology::Levels {
                levels: vec![],
                default_hops: 0,
            },
            contention: crate::model::Contention::Links,
            collectives: [
                ("bcast".to_string(), "binomial".to_string()),
                ("odd key".to_string(), "x\"y".to_string()),
            ]
            .into_iter()
            .collect(),
            io: crate::model::IoModel {
                latency: VTime::from_ps(3),
                bandwidth: 123_456_789,
            },
        };
        assert_eq!(Model::from_toml_str(&odd.to_toml(), "odd").unwrap(), odd);
    }

    #[test]
    fn load_errors() {
        let e = Model::load("nosuchmachine").unwrap_err().to_string();
        assert_eq!(
            e,
            "target `nosuchmachine`: no such preset or file (presets: tianhe1a; a file path must contain '/' or end in .toml)"
        );
        let e = Model::load("/nonexistent/dir/x.toml").unwrap_err();
        assert_eq!(e.origin, "/nonexistent/dir/x.toml");
        assert!(e.message.starts_with("cannot read target file: "), "{e}");
    }

    #[test]
    fn load_file() {
        let dir = std::env::temp_dir().join(format!("vaced-model-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.toml");
        std::fs::write(&path, GOOD).unwrap();
        let m = Model::load(path.to_str().unwrap()).unwrap();
        assert_eq!(m.name, "test");
        std::fs::write(&path, edit("\"10 us\"", "\"10 ys\"")).unwrap();
        let e = Model::load(path.to_str().unwrap()).unwrap_err();
        assert_eq!(e.origin, path.to_str().unwrap());
        assert_eq!(e.key, "network.latency");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
