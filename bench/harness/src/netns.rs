//! Two emulated nodes on this host, for `bench-npb/run --shaped`: two
//! network namespaces joined by a veth pair, each end's egress shaped with
//! `tc` (rate with tbf, delay with netem where the kernel has sch_netem), and
//! the system MPICH (Hydra, UCX's TCP transport) running one rank in each.
//!
//! * Namespaces `vaced-<pid>-a` and `-b`; the veth ends carry the same name
//!   (`vcd<pid>`) in both, so one Hydra `-iface` fits both nodes. Addresses 10.212.0.1/24 and 10.212.0.2/24 exist only on
//!   that pair; the namespaces have no other interface than `lo` and no
//!   route, so no traffic can leave them.
//! * Each namespace also gets a hostname of its own (a UTS namespace made by
//!   `unshare --uts` for the processes started in it), and Hydra is given one
//!   host per namespace, so MPICH sees two nodes; UCX is limited to
//!   `UCX_TLS=self,tcp`. shaped.rs reads the veth's byte counters around
//!   every run (the calibration ping-pong must have carried at least its
//!   messages each way).
//! * [`NsPair`] removes what it made when dropped (errors included); a thread
//!   that takes SIGINT, SIGTERM and SIGHUP ([`guard_signals`]) removes every
//!   pair still alive, killing the processes left inside, before exiting.
use std::process::Command;
use std::sync::Mutex;

/// The private test subnet of the veth pair (only inside our namespaces).
pub const ADDRS: [&str; 2] = ["10.212.0.1", "10.212.0.2"];
pub const PREFIX: u32 = 24;
/// MTU of the veth pair (Ethernet's).
pub const MTU: u64 = 1500;
/// Bytes tc counts per frame beyond the MTU (the Ethernet header).
pub const FRAME_EXTRA: u64 = 14;

/// One shaping of the link: a rate, and optionally a one-way delay, applied
/// to the egress of each veth end (so to each direction once).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shaping {
    /// bits per second
    pub rate_bit: u64,
    /// one-way delay, nanoseconds (0: none)
    pub delay_ns: u64,
}

fn split_num(s: &str) -> Option<(f64, &str)> {
    let i = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let n: f64 = s[..i].parse().ok()?;
    Some((n, s[i..].trim()))
}

/// "1gbit" -> 1e9, "100mbit", "2.5gbit", "800kbit", "1tbit" (tc's SI bit
/// units; byte units such as tc's "mbps" are refused as ambiguous).
pub fn parse_rate(s: &str) -> Result<u64, String> {
    let bad =
        || format!("rate `{s}`: expected a number and bit, kbit, mbit, gbit or tbit (e.g. 1gbit)");
    let (n, unit) = split_num(s.trim()).ok_or_else(bad)?;
    let mul = match unit.to_ascii_lowercase().as_str() {
        "bit" => 1.0,
        "kbit" => 1e3,
        "mbit" => 1e6,
        "gbit" => 1e9,
        "tbit" => 1e12,
        _ => return Err(bad()),
    };
    let r = (n * mul).round();
    if r < 8000.0 {
        return Err(format!("rate `{s}`: below 8 kbit/s"));
    }
    Ok(r as u64)
}

/// "100us" -> 100_000 ns ("0", "ns", "us", "ms", "s").
pub fn parse_delay(s: &str) -> Result<u64, String> {
    let bad = || format!("delay `{s}`: expected a number and ns, us, ms or s (e.g. 100us)");
    let (n, unit) = split_num(s.trim()).ok_or_else(bad)?;
    let mul = match unit {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "" if n == 0.0 => 0.0,
        _ => return Err(bad()),
    };
    Ok((n * mul).round() as u64)
}

impl Shaping {
    /// `RATE[:DELAY]`, e.g. "1gbit" or "10gbit:20us".
    pub fn parse(s: &str) -> Result<Shaping, String> {
        let (rate, delay) = s.split_once(':').unwrap_or((s, "0"));
        Ok(Shaping {
            rate_bit: parse_rate(rate)?,
            delay_ns: parse_delay(delay)?,
        })
    }

    /// The shaping as given ("1gbit", "10gbit:20us"), in the largest exact units.
    pub fn label(&self) -> String {
        let rate = fmt_rate(self.rate_bit);
        if self.delay_ns == 0 {
            rate
        } else {
            format!("{rate}:{}", fmt_delay(self.delay_ns))
        }
    }

    /// The label as a file-name part ("10gbit-20us").
    pub fn file_label(&self) -> String {
        self.label().replace([':', '.'], "-")
    }

    /// bytes per second
    pub fn rate_bytes(&self) -> f64 {
        self.rate_bit as f64 / 8.0
    }
}

/// Bits per second in the largest unit that divides them ("1gbit", "1500kbit").
pub fn fmt_rate(b: u64) -> String {
    for (u, m) in [
        ("tbit", 1e12 as u64),
        ("gbit", 1e9 as u64),
        ("mbit", 1e6 as u64),
    ] {
        if b.is_multiple_of(m) {
            return format!("{}{u}", b / m);
        }
    }
    if b.is_multiple_of(1000) {
        format!("{}kbit", b / 1000)
    } else {
        format!("{b}bit")
    }
}

/// Nanoseconds in the largest unit that divides them ("20us", "1500ns").
pub fn fmt_delay(ns: u64) -> String {
    for (u, m) in [("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1000)] {
        if ns.is_multiple_of(m) {
            return format!("{}{u}", ns / m);
        }
    }
    format!("{ns}ns")
}

/// Nanoseconds as tc's microseconds ("20us", "1.500us": iproute2 reads
/// times as decimal microseconds at most).
fn tc_time(ns: u64) -> String {
    if ns.is_multiple_of(1000) {
        format!("{}us", ns / 1000)
    } else {
        format!("{}.{:03}us", ns / 1000, ns % 1000)
    }
}

/// The default tbf bucket: 20 us of the rate, and at least two full frames
/// (tbf cannot pass a frame larger than its bucket). A bucket lets that many
/// bytes through at once after an idle time, so it is kept small.
pub fn default_burst(rate_bit: u64) -> u64 {
    // rate_bit x 20e-6 / 8 bytes, rounded up, in integers
    let t = (rate_bit * 20).div_ceil(8_000_000);
    t.max(2 * (MTU + FRAME_EXTRA))
}

/// netem's queue, in packets: four times the packets in flight over the
/// delay at the rate, at least netem's default of 1000.
pub fn netem_limit(s: &Shaping) -> u64 {
    let in_flight = s.rate_bytes() * s.delay_ns as f64 * 1e-9 / (MTU + FRAME_EXTRA) as f64;
    ((4.0 * in_flight).ceil() as u64).max(1000)
}

/// The tc commands (arguments after `tc`) that shape device `dev`'s egress:
/// tbf alone for a rate; for a delay netem as the root and tbf under it (the
/// netem documentation's layout: delay, then rate). tbf's `latency 100ms`
/// bounds its queue.
pub fn tc_commands(dev: &str, s: &Shaping, burst: u64) -> Vec<Vec<String>> {
    let tbf = |parent: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = ["qdisc", "replace", "dev", dev]
            .iter()
            .chain(parent)
            .map(|x| x.to_string())
            .collect();
        v.extend([
            "tbf".into(),
            "rate".into(),
            format!("{}bit", s.rate_bit),
            "burst".into(),
            burst.to_string(),
            "latency".into(),
            "100ms".into(),
        ]);
        v
    };
    if s.delay_ns == 0 {
        return vec![tbf(&["root", "handle", "1:"])];
    }
    let netem: Vec<String> = [
        "qdisc", "replace", "dev", dev, "root", "handle", "1:", "netem", "delay",
    ]
    .iter()
    .map(|x| x.to_string())
    .chain([
        tc_time(s.delay_ns),
        "limit".into(),
        netem_limit(s).to_string(),
    ])
    .collect();
    vec![netem, tbf(&["parent", "1:1", "handle", "10:"])]
}

/// The Hydra "ssh" launcher script (`mpiexec -launcher ssh -launcher-exec
/// SCRIPT`): Hydra runs `SCRIPT [-x] HOST COMMAND`, as `ssh` would; the
/// script runs COMMAND with `sh -c` in HOST's namespace under that node's
/// hostname, and refuses any other host.
pub fn launcher_script(
    ip: &str,
    unshare: &str,
    ns: &[String; 2],
    hostnames: &[String; 2],
) -> String {
    format!(
        "#!/bin/sh\n\
         # Written by vaced-bench (bench/harness/src/netns.rs): Hydra's ssh launcher for the two\n\
         # emulated nodes. Hydra runs `$0 [ssh options] HOST COMMAND`; COMMAND runs in HOST's\n\
         # network namespace, with a hostname of its own (a UTS namespace), as ssh runs it there.\n\
         while [ $# -gt 0 ]; do case \"$1\" in -*) shift ;; *) break ;; esac; done\n\
         host=$1\n\
         shift\n\
         case \"$host\" in\n\
         {a}) ns={na}; name={ha} ;;\n\
         {b}) ns={nb}; name={hb} ;;\n\
         *) echo \"$0: $host is not one of the emulated nodes ({a}, {b})\" >&2; exit 255 ;;\n\
         esac\n\
         exec {ip} netns exec \"$ns\" {unshare} --uts /bin/sh -c 'hostname \"$0\" && exec /bin/sh -c \"$1\"' \"$name\" \"$*\"\n",
        a = ADDRS[0],
        b = ADDRS[1],
        na = ns[0],
        nb = ns[1],
        ha = hostnames[0],
        hb = hostnames[1],
    )
}

/// Refuses unless this process is root.
pub fn require_root() -> Result<(), String> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Err(
            "--shaped needs root: it makes network namespaces, a veth pair and tc qdiscs \
             (run bench-npb/run as root)"
                .into(),
        );
    }
    Ok(())
}

/// Runs `program args`, returning stdout, or an error with stderr.
fn sh(program: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`{program} {}` failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Pairs alive now: (namespaces, veth name), for the signal thread.
static ALIVE: Mutex<Vec<([String; 2], String)>> = Mutex::new(Vec::new());

/// Kills every process left in the namespaces, deletes the veth pair and the
/// namespaces. Errors are ignored (a part may not exist yet).
fn remove(ns: &[String; 2], dev: &str) {
    for n in ns {
        if let Ok(p) = sh("ip", &["netns", "pids", n]) {
            for pid in p.split_whitespace().filter_map(|x| x.parse::<i32>().ok()) {
                // SAFETY: kill(2) takes plain integers; a stale pid yields ESRCH.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
    }
    let _ = sh("ip", &["-n", &ns[0], "link", "del", dev]);
    for n in ns {
        let _ = sh("ip", &["netns", "del", n]);
    }
}

/// Blocks SIGINT, SIGTERM and SIGHUP in this thread (and the threads it
/// starts later) and starts a thread that waits for them: on one, it removes
/// every namespace pair still alive and exits with 128 + the signal. Call it
/// first, before any other thread starts. Children do not inherit the mask
/// (std's Command empties it).
pub fn guard_signals() {
    // SAFETY: sigset_t is plain data, initialised by sigemptyset before use;
    // pthread_sigmask only changes this thread's mask.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::sigaddset(&mut set, s);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        set
    };
    std::thread::spawn(move || loop {
        let mut sig = 0;
        // SAFETY: set is a valid, initialised sigset_t; sig a valid out-pointer.
        if unsafe { libc::sigwait(&set, &mut sig) } != 0 {
            continue;
        }
        eprintln!("\nvaced-bench: signal {sig}: removing the emulated nodes");
        let alive: Vec<_> = ALIVE.lock().map(|a| a.clone()).unwrap_or_default();
        for (ns, dev) in &alive {
            remove(ns, dev);
        }
        std::process::exit(128 + sig);
    });
}

/// Two namespaces joined by a veth pair; removed on drop.
pub struct NsPair {
    pub ns: [String; 2],
    /// The veth ends' name (the same in both namespaces).
    pub dev: String,
    pub hostnames: [String; 2],
}

impl NsPair {
    /// Makes the pair; names from this process's id.
    pub fn create() -> Result<NsPair, String> {
        let pid = std::process::id();
        let pair = NsPair {
            ns: [format!("vaced-{pid}-a"), format!("vaced-{pid}-b")],
            dev: format!("vcd{pid}"),
            hostnames: [format!("vaced-{pid}-node0"), format!("vaced-{pid}-node1")],
        };
        for n in &pair.ns {
            if std::path::Path::new("/run/netns").join(n).exists() {
                return Err(format!("network namespace {n} exists already"));
            }
        }
        ALIVE
            .lock()
            .map_err(|_| "namespace registry poisoned")?
            .push((pair.ns.clone(), pair.dev.clone()));
        // from here on, Drop removes whatever was made
        for n in &pair.ns {
            sh("ip", &["netns", "add", n])?;
        }
        let (a, b, d) = (&pair.ns[0], &pair.ns[1], &pair.dev);
        sh(
            "ip",
            &[
                "link", "add", d, "netns", a, "type", "veth", "peer", "name", d, "netns", b,
            ],
        )?;
        for (n, addr) in pair.ns.iter().zip(ADDRS) {
            let mtu = MTU.to_string();
            sh("ip", &["-n", n, "link", "set", "lo", "up"])?;
            sh("ip", &["-n", n, "link", "set", d, "mtu", &mtu])?;
            sh(
                "ip",
                &[
                    "-n",
                    n,
                    "addr",
                    "add",
                    &format!("{addr}/{PREFIX}"),
                    "dev",
                    d,
                ],
            )?;
            sh("ip", &["-n", n, "link", "set", d, "up"])?;
        }
        Ok(pair)
    }

    fn tc(&self, i: usize, args: &[String]) -> Result<String, String> {
        let mut v = vec!["netns", "exec", &self.ns[i], "tc"];
        v.extend(args.iter().map(String::as_str));
        sh("ip", &v)
    }

    /// Whether sch_netem can be used here: Ok, or the error tc gave.
    pub fn probe_netem(&self) -> Result<(), String> {
        let add = [
            "qdisc", "add", "dev", &self.dev, "root", "netem", "delay", "0us",
        ]
        .map(String::from);
        self.tc(0, &add)?;
        self.tc(
            0,
            &["qdisc", "del", "dev", &self.dev, "root"].map(String::from),
        )?;
        Ok(())
    }

    /// Shapes both ends' egress (replacing any earlier shaping).
    pub fn shape(&self, s: &Shaping, burst: u64) -> Result<(), String> {
        for i in 0..2 {
            // a delay-less shaping after a delayed one: drop netem first
            let _ = self.tc(
                i,
                &["qdisc", "del", "dev", &self.dev, "root"].map(String::from),
            );
            for c in tc_commands(&self.dev, s, burst) {
                self.tc(i, &c)?;
            }
        }
        Ok(())
    }

    /// `tc qdisc show` of both ends, for the logs.
    pub fn qdiscs(&self) -> String {
        (0..2)
            .map(|i| {
                let q = self
                    .tc(
                        i,
                        &["-s", "qdisc", "show", "dev", &self.dev].map(String::from),
                    )
                    .unwrap_or_else(|e| e);
                format!("{} {}:\n{}", self.ns[i], self.dev, q.trim_end())
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Bytes each end has sent (tx counters of the veth in a and in b).
    pub fn tx_bytes(&self) -> Result<[u64; 2], String> {
        let mut r = [0; 2];
        for (i, n) in self.ns.iter().enumerate() {
            let j = sh(
                "ip",
                &["-n", n, "-j", "-s", "link", "show", "dev", &self.dev],
            )?;
            r[i] = tx_of_ip_json(&j).ok_or_else(|| format!("ip -j -s link: no tx bytes in {j}"))?;
        }
        Ok(r)
    }

    /// Kills processes left in the namespaces (after a job).
    pub fn kill_leftovers(&self) -> usize {
        let mut n = 0;
        for ns in &self.ns {
            if let Ok(p) = sh("ip", &["netns", "pids", ns]) {
                for pid in p.split_whitespace().filter_map(|x| x.parse::<i32>().ok()) {
                    // SAFETY: kill(2) takes plain integers; a stale pid yields ESRCH.
                    unsafe {
                        libc::kill(pid, libc::SIGKILL);
                    }
                    n += 1;
                }
            }
        }
        n
    }
}

impl Drop for NsPair {
    fn drop(&mut self) {
        remove(&self.ns, &self.dev);
        if let Ok(mut a) = ALIVE.lock() {
            a.retain(|(ns, _)| ns != &self.ns);
        }
    }
}

/// tx bytes from `ip -j -s link show dev X`.
pub fn tx_of_ip_json(text: &str) -> Option<u64> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let s = &v.get(0)?;
    s.get("stats64")
        .or_else(|| s.get("stats"))?
        .get("tx")?
        .get("bytes")?
        .as_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_shapings() {
        assert_eq!(
            Shaping::parse("1gbit"),
            Ok(Shaping {
                rate_bit: 1_000_000_000,
                delay_ns: 0
            })
        );
        assert_eq!(
            Shaping::parse("10gbit:20us"),
            Ok(Shaping {
                rate_bit: 10_000_000_000,
                delay_ns: 20_000
            })
        );
        assert_eq!(
            Shaping::parse("2.5Gbit:1.5ms").unwrap().rate_bit,
            2_500_000_000
        );
        assert_eq!(Shaping::parse("100mbit:1.5ms").unwrap().delay_ns, 1_500_000);
        assert_eq!(Shaping::parse("800kbit:0").unwrap().delay_ns, 0);
        assert_eq!(
            Shaping::parse("1gbps").unwrap_err(),
            "rate `1gbps`: expected a number and bit, kbit, mbit, gbit or tbit (e.g. 1gbit)"
        );
        assert_eq!(
            Shaping::parse("1gbit:20").unwrap_err(),
            "delay `20`: expected a number and ns, us, ms or s (e.g. 100us)"
        );
        assert_eq!(
            Shaping::parse("100bit").unwrap_err(),
            "rate `100bit`: below 8 kbit/s"
        );
    }

    #[test]
    fn labels() {
        let s = Shaping::parse("10gbit:20us").unwrap();
        assert_eq!(s.label(), "10gbit:20us");
        assert_eq!(s.file_label(), "10gbit-20us");
        assert_eq!(Shaping::parse("2.5gbit").unwrap().label(), "2500mbit");
        assert_eq!(
            Shaping::parse("1gbit:1500us").unwrap().label(),
            "1gbit:1500us"
        );
        assert_eq!(
            Shaping::parse("1gbit:1.5us").unwrap().label(),
            "1gbit:1500ns"
        );
        assert_eq!(fmt_rate(12_345), "12345bit");
        assert_eq!(fmt_delay(2_000_000_000), "2s");
    }

    #[test]
    fn bursts_and_limits() {
        // 1 Gbit/s: 20 us is 2500 B, less than two frames
        assert_eq!(default_burst(1_000_000_000), 3028);
        // 10 Gbit/s: 20 us is 25000 B
        assert_eq!(default_burst(10_000_000_000), 25_000);
        let s = Shaping::parse("10gbit:1ms").unwrap();
        // 1.25 MB in flight = 825.6 frames, x4
        assert_eq!(netem_limit(&s), 3303);
        assert_eq!(netem_limit(&Shaping::parse("1gbit:20us").unwrap()), 1000);
    }

    #[test]
    fn tc_rate_only_and_with_delay() {
        let s = Shaping::parse("1gbit").unwrap();
        assert_eq!(
            tc_commands("vcd7", &s, 3028),
            vec![[
                "qdisc",
                "replace",
                "dev",
                "vcd7",
                "root",
                "handle",
                "1:",
                "tbf",
                "rate",
                "1000000000bit",
                "burst",
                "3028",
                "latency",
                "100ms"
            ]
            .map(String::from)
            .to_vec()]
        );
        let d = Shaping::parse("1gbit:20500ns").unwrap();
        let c = tc_commands("vcd7", &d, 3028);
        assert_eq!(
            c[0],
            [
                "qdisc", "replace", "dev", "vcd7", "root", "handle", "1:", "netem", "delay",
                "20.500us", "limit", "1000"
            ]
            .map(String::from)
        );
        assert_eq!(
            c[1],
            [
                "qdisc",
                "replace",
                "dev",
                "vcd7",
                "parent",
                "1:1",
                "handle",
                "10:",
                "tbf",
                "rate",
                "1000000000bit",
                "burst",
                "3028",
                "latency",
                "100ms"
            ]
            .map(String::from)
        );
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn launcher_maps_hosts_to_namespaces() {
        let s = launcher_script(
            "/usr/sbin/ip",
            "/usr/bin/unshare",
            &["na".into(), "nb".into()],
            &["h0".into(), "h1".into()],
        );
        assert!(s.starts_with("#!/bin/sh\n"));
        assert!(s.contains("10.212.0.1) ns=na; name=h0 ;;\n"));
        assert!(s.contains("10.212.0.2) ns=nb; name=h1 ;;\n"));
        assert!(s.contains("*) echo \"$0: $host is not one of the emulated nodes"));
        assert!(s.contains(
            "exec /usr/sbin/ip netns exec \"$ns\" /usr/bin/unshare --uts /bin/sh -c 'hostname \"$0\" && exec /bin/sh -c \"$1\"' \"$name\" \"$*\"\n"
        ));
    }

    #[test]
    fn reads_tx_bytes() {
        let j = r#"[{"ifindex":2,"ifname":"vt-a","stats64":{"rx":{"bytes":5,"packets":1},"tx":{"bytes":138386502,"packets":10418}}}]"#;
        assert_eq!(tx_of_ip_json(j), Some(138386502));
        assert_eq!(tx_of_ip_json("[]"), None);
    }
}
