//! A target machine as `vaced target show NAME|FILE` prints it, read back
//! into numbers (bytes/s, seconds, bytes) for the SMPI platform.
use serde::Deserialize;

/// One level of `topology.levels`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub struct Level {
    pub ranks: u32,
    pub hops: u32,
}

/// A resolved target, in SI units.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    pub name: String,
    pub cpu_scale: f64,
    /// bytes per second
    pub mem_bandwidth: f64,
    pub net_bandwidth: f64,
    /// seconds
    pub latency: f64,
    pub hop_latency: f64,
    /// bytes
    pub eager_limit: u64,
    pub header_bytes: u64,
    /// seconds
    pub o_send: f64,
    pub o_recv: f64,
    /// `topology.kind`: "levels" (Eq. 5's nested blocks, the only kind
    /// the levels, hops and SMPI platform here describe) or a network of
    /// nodes (fat-tree, torus, mesh, dragonfly: vaced alone runs those).
    pub kind: String,
    pub levels: Vec<Level>,
    pub default_hops: u32,
}

#[derive(Deserialize)]
struct RawCpu {
    scale: f64,
}
#[derive(Deserialize)]
struct RawNet {
    mem_bandwidth: String,
    net_bandwidth: String,
    latency: String,
    hop_latency: String,
    eager_limit: String,
    header_bytes: u64,
    #[serde(default)]
    o_send: Option<String>,
    #[serde(default)]
    o_recv: Option<String>,
}
#[derive(Deserialize)]
struct RawTopo {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    levels: Vec<Level>,
    #[serde(default)]
    default_hops: u32,
}
#[derive(Deserialize)]
struct Raw {
    name: String,
    cpu: RawCpu,
    network: RawNet,
    topology: RawTopo,
}

/// Splits "6.38 GB/s" into the decimal 638 x 10^-2 and the unit "GB/s".
fn split_unit<'a>(key: &str, v: &'a str) -> Result<(u128, i32, &'a str), String> {
    let v = v.trim();
    let bad = || format!("`{key}`: `{v}` does not start with a number");
    let i = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(v.len());
    let (num, unit) = (&v[..i], v[i..].trim());
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if int.is_empty() && frac.is_empty() {
        return Err(bad());
    }
    let digits: u128 = format!("{int}{frac}").parse().map_err(|_| bad())?;
    Ok((digits, -(frac.len() as i32), unit))
}

/// digits x 10^exp x mul, rounded once.
fn value(digits: u128, exp: i32, mul: u128) -> f64 {
    let m = digits * mul;
    if exp >= 0 {
        (m * 10u128.pow(exp as u32)) as f64
    } else {
        m as f64 / 10f64.powi(-exp)
    }
}

/// The (power of ten, multiplier) of a size unit.
fn size_unit(u: &str) -> Option<(i32, u128)> {
    Some(match u {
        "B" => (0, 1),
        "kB" => (3, 1),
        "MB" => (6, 1),
        "GB" => (9, 1),
        "TB" => (12, 1),
        "KiB" => (0, 1 << 10),
        "MiB" => (0, 1 << 20),
        "GiB" => (0, 1 << 30),
        "TiB" => (0, 1 << 40),
        _ => return None,
    })
}

/// "6.38 GB/s" -> 6.38e9 bytes per second.
pub fn parse_bandwidth(key: &str, v: &str) -> Result<f64, String> {
    let (d, e, u) = split_unit(key, v)?;
    u.strip_suffix("/s")
        .and_then(size_unit)
        .map(|(p, m)| value(d, e + p, m))
        .ok_or_else(|| format!("`{key}`: `{v}`: unknown bandwidth unit `{u}`"))
}

/// "15 us" -> 1.5e-5 seconds.
pub fn parse_time(key: &str, v: &str) -> Result<f64, String> {
    let (d, e, u) = split_unit(key, v)?;
    let p = match u {
        "s" => 0,
        "ms" => -3,
        "us" | "µs" => -6,
        "ns" => -9,
        "ps" => -12,
        _ => return Err(format!("`{key}`: `{v}`: unknown time unit `{u}`")),
    };
    Ok(value(d, e + p, 1))
}

/// "128 KiB" -> 131072 bytes.
pub fn parse_size(key: &str, v: &str) -> Result<u64, String> {
    let (d, e, u) = split_unit(key, v)?;
    size_unit(u)
        .map(|(p, m)| value(d, e + p, m).round() as u64)
        .ok_or_else(|| format!("`{key}`: `{v}`: unknown size unit `{u}`"))
}

impl Target {
    /// Reads the output of `vaced target show`.
    pub fn from_show(text: &str) -> Result<Target, String> {
        let raw: Raw = toml::from_str(text).map_err(|e| format!("target: {e}"))?;
        let n = &raw.network;
        let opt_time =
            |k: &str, v: &Option<String>| v.as_deref().map_or(Ok(0.0), |v| parse_time(k, v));
        Ok(Target {
            name: raw.name,
            cpu_scale: raw.cpu.scale,
            mem_bandwidth: parse_bandwidth("network.mem_bandwidth", &n.mem_bandwidth)?,
            net_bandwidth: parse_bandwidth("network.net_bandwidth", &n.net_bandwidth)?,
            latency: parse_time("network.latency", &n.latency)?,
            hop_latency: parse_time("network.hop_latency", &n.hop_latency)?,
            eager_limit: parse_size("network.eager_limit", &n.eager_limit)?,
            header_bytes: n.header_bytes,
            o_send: opt_time("network.o_send", &n.o_send)?,
            o_recv: opt_time("network.o_recv", &n.o_recv)?,
            kind: raw.topology.kind.unwrap_or_else(|| "levels".into()),
            levels: raw.topology.levels,
            default_hops: raw.topology.default_hops,
        })
    }

    /// hop(x, y) as vaced's model computes it: the first level whose block
    /// holds both ranks, else default_hops.
    pub fn hops(&self, x: u32, y: u32) -> u32 {
        self.levels
            .iter()
            .find(|l| x / l.ranks == y / l.ranks)
            .map_or(self.default_hops, |l| l.hops)
    }

    /// l(h) = latency + h * hop_latency, seconds.
    pub fn wire_latency(&self, h: u32) -> f64 {
        self.latency + h as f64 * self.hop_latency
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub const TIANHE: &str = "name = \"tianhe1a\"\n\n[cpu]\nscale = 1.0\n\n[network]\nmem_bandwidth = \"6.38 GB/s\"\nnet_bandwidth = \"4.16 GB/s\"\nlatency = \"15 us\"\nhop_latency = \"600 ns\"\neager_limit = \"128 KiB\"\nheader_bytes = 64\no_send = \"0 s\"\no_recv = \"0 s\"\n\n[topology]\nlevels = [{ ranks = 12, hops = 0 }, { ranks = 192, hops = 3 }]\ndefault_hops = 5\n";

    pub fn tianhe() -> Target {
        Target::from_show(TIANHE).unwrap()
    }

    #[test]
    fn reads_target_show() {
        assert_eq!(
            tianhe(),
            Target {
                name: "tianhe1a".into(),
                cpu_scale: 1.0,
                mem_bandwidth: 6.38e9,
                net_bandwidth: 4.16e9,
                latency: 15e-6,
                hop_latency: 600e-9,
                eager_limit: 131072,
                header_bytes: 64,
                o_send: 0.0,
                o_recv: 0.0,
                kind: "levels".into(),
                levels: vec![
                    Level { ranks: 12, hops: 0 },
                    Level {
                        ranks: 192,
                        hops: 3
                    }
                ],
                default_hops: 5,
            }
        );
    }

    #[test]
    fn reads_a_network_of_nodes() {
        let text = TIANHE.replace(
            "levels = [{ ranks = 12, hops = 0 }, { ranks = 192, hops = 3 }]\ndefault_hops = 5\n",
            "kind = \"fat-tree\"\nk = 4\nn = 3\nranks_per_node = 16\nplacement = \"block\"\n",
        );
        let t = Target::from_show(&text).unwrap();
        assert_eq!(t.kind, "fat-tree");
        assert!(t.levels.is_empty());
        assert_eq!(
            crate::smpi::setup(&t, 64).err().unwrap(),
            "target tianhe1a: a `fat-tree` topology: the SMPI platform is made from `levels` topologies only"
        );
    }

    #[test]
    fn hops_as_the_model() {
        let t = tianhe();
        assert_eq!(t.hops(0, 11), 0);
        assert_eq!(t.hops(11, 12), 3);
        assert_eq!(t.hops(0, 191), 3);
        assert_eq!(t.hops(191, 192), 5);
        assert_eq!(t.wire_latency(3), 15e-6 + 3.0 * 600e-9);
    }

    #[test]
    fn units() {
        assert_eq!(parse_bandwidth("k", "2 GiB/s"), Ok(2.0 * 1024f64.powi(3)));
        assert_eq!(parse_bandwidth("k", "500 kB/s"), Ok(5e5));
        assert_eq!(parse_time("k", "2 ms"), Ok(2e-3));
        assert_eq!(parse_time("k", "250 ps"), Ok(250e-12));
        assert_eq!(parse_size("k", "4 MiB"), Ok(4 << 20));
        assert_eq!(parse_size("k", "1.5 KiB"), Ok(1536));
        assert_eq!(parse_time("k", "0.6 us"), Ok(600e-9));
        assert_eq!(parse_time("k", ".5 s"), Ok(0.5));
        assert_eq!(
            parse_time("network.latency", "3 fortnights"),
            Err("`network.latency`: `3 fortnights`: unknown time unit `fortnights`".into())
        );
        assert_eq!(
            parse_bandwidth("network.x", "fast"),
            Err("`network.x`: `fast` does not start with a number".into())
        );
    }
}
