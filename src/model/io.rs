//! The `[io]` section of a target file: the target's parallel file system
//! as MPI-IO sees it (see `crate::io` for how the calls use it).
//!
//! ```toml
//! [io]
//! latency = "100 us"     # per file-system operation (a read, a write, an open, ...)
//! bandwidth = "1 GB/s"   # bytes per second of one client's read or write
//! ```
//!
//! Both keys are optional; the defaults (`latency = "100 us"`,
//! `bandwidth = "1 GB/s"`) are those of a modest parallel file system
//! reached over the network (one client stream). An access of `b > 0`
//! bytes costs `latency + b / bandwidth`; an access of 0 bytes costs
//! nothing (MPI-IO does not call the file system for it).
use super::config::Ctx;
use super::units::{self, Quantity};
use super::{transfer_time, ConfigError, VTime};
use toml::Table;

const IO_KEYS: &[&str] = &["latency", "bandwidth"];

/// The target's file system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoModel {
    /// Cost of one file-system operation.
    pub latency: VTime,
    /// Bytes per second of one read or write.
    pub bandwidth: u64,
}

impl Default for IoModel {
    fn default() -> Self {
        IoModel {
            latency: VTime::from_ps(100_000_000),
            bandwidth: 1_000_000_000,
        }
    }
}

impl IoModel {
    /// One read or write of `bytes`: latency + bytes / bandwidth (0 for no
    /// bytes).
    pub fn access_time(&self, bytes: u64) -> VTime {
        if bytes == 0 {
            VTime::ZERO
        } else {
            self.latency + transfer_time(bytes, self.bandwidth)
        }
    }

    /// The section as a target file writes it.
    pub fn to_toml(&self) -> String {
        format!(
            "\n[io]\nlatency = \"{}\"\nbandwidth = \"{}\"\n",
            units::format_time(self.latency),
            units::format_bandwidth(self.bandwidth)
        )
    }
}

/// Reads `[io]` of `root` (defaults for what is missing).
pub(super) fn parse(cx: &Ctx, root: &Table, empty: &Table) -> Result<IoModel, ConfigError> {
    let t = cx.table(root, "io", false, empty)?;
    cx.no_unknown(t, "io", IO_KEYS)?;
    let d = IoModel::default();
    let latency = cx.time(t, "io", "latency", Some(d.latency))?;
    let bandwidth = cx.value(t, "io", "bandwidth", Quantity::Bandwidth, Some(d.bandwidth))?;
    Ok(IoModel { latency, bandwidth })
}

#[cfg(test)]
mod tests {
    use crate::model::{Model, VTime};

    const BASE: &str = "name = \"t\"\n[network]\nmem_bandwidth = \"1 GB/s\"\n\
        net_bandwidth = \"1 GB/s\"\nlatency = \"1 us\"\nhop_latency = \"0 us\"\n\
        eager_limit = \"1 KiB\"\nheader_bytes = 8\n[topology]\nlevels = []\ndefault_hops = 1\n";

    #[test]
    fn defaults_and_values() {
        let m = Model::from_toml_str(BASE, "t").unwrap();
        assert_eq!(m.io.latency, VTime::from_ps(100_000_000));
        assert_eq!(m.io.bandwidth, 1_000_000_000);
        let m = Model::from_toml_str(
            &format!("{BASE}[io]\nlatency = \"20 us\"\nbandwidth = \"2 GB/s\"\n"),
            "t",
        )
        .unwrap();
        assert_eq!(m.io.latency, VTime::from_ps(20_000_000));
        assert_eq!(m.io.bandwidth, 2_000_000_000);
        // 1000 bytes at 2 GB/s = 500 ns, plus the latency
        assert_eq!(m.io.access_time(1000), VTime::from_ps(20_500_000));
        assert_eq!(m.io.access_time(0), VTime::ZERO);
        assert_eq!(Model::from_toml_str(&m.to_toml(), "t").unwrap(), m);
    }

    #[test]
    fn errors_name_the_key() {
        let e = Model::from_toml_str(&format!("{BASE}[io]\nlatncy = \"1 us\"\n"), "t.toml")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "t.toml: key `io.latncy`: unknown key (did you mean `latency`?)"
        );
        let e = Model::from_toml_str(&format!("{BASE}[io]\nbandwidth = 5\n"), "t.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.toml: key `io.bandwidth`: missing unit"),
            "{e}"
        );
        let e = Model::from_toml_str(&format!("{BASE}[io]\nbandwidth = \"0 B/s\"\n"), "t.toml")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "t.toml: key `io.bandwidth`: `0 B/s`: a bandwidth must be greater than 0 B/s"
        );
        let e = Model::from_toml_str(&format!("io = 3\n{BASE}"), "t.toml")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "t.toml: key `io`: expected a section [io], found the integer 3"
        );
    }
}
