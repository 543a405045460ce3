//! The hints of a file (its info) that decide how collective access is
//! done, with ROMIO's names and defaults: `cb_buffer_size` (16 MiB, the
//! bytes an aggregator moves per round of two-phase I/O), `cb_nodes` (the
//! number of aggregators; default one per target node of the file's
//! communicator, ROMIO's cb_config_list "*:1"), `romio_cb_read` /
//! `romio_cb_write` ("automatic": two-phase only when the ranks' accesses
//! interleave; "enable": always; "disable": never). Other hints are kept
//! and returned by MPI_File_get_info without effect.
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::info::Info;
use crate::sys;

/// ROMIO's default collective buffer size.
pub const CB_BUFFER_SIZE: u64 = 16 * 1024 * 1024;

/// romio_cb_read / romio_cb_write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cb {
    Auto,
    Enable,
    Disable,
}

impl Cb {
    fn parse(key: &str, v: &str) -> MpiResult<Cb> {
        match v {
            "automatic" => Ok(Cb::Auto),
            "enable" => Ok(Cb::Enable),
            "disable" => Ok(Cb::Disable),
            _ => fail(
                sys::MPI_ERR_INFO_VALUE,
                format!("invalid value \"{v}\" of hint {key} (automatic, enable or disable)"),
            ),
        }
    }
    fn name(self) -> &'static str {
        match self {
            Cb::Auto => "automatic",
            Cb::Enable => "enable",
            Cb::Disable => "disable",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hints {
    pub cb_buffer_size: u64,
    /// Requested aggregators (None: one per node).
    pub cb_nodes: Option<usize>,
    pub cb_read: Cb,
    pub cb_write: Cb,
}

const KNOWN: &[&str] = &[
    "cb_buffer_size",
    "cb_nodes",
    "romio_cb_read",
    "romio_cb_write",
];

fn positive(key: &str, v: &str) -> MpiResult<u64> {
    match v.trim().parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => fail(
            sys::MPI_ERR_INFO_VALUE,
            format!("invalid value \"{v}\" of hint {key} (a positive integer)"),
        ),
    }
}

impl Hints {
    /// The hints of `info` over `base` (the defaults when None). cb_nodes
    /// is taken at open only, as ROMIO does.
    pub fn from_info(info: &Info, base: Option<&Hints>) -> MpiResult<Hints> {
        let mut h = base.cloned().unwrap_or(Hints {
            cb_buffer_size: CB_BUFFER_SIZE,
            cb_nodes: None,
            cb_read: Cb::Auto,
            cb_write: Cb::Auto,
        });
        if let Some(v) = info.get("cb_buffer_size") {
            h.cb_buffer_size = positive("cb_buffer_size", v)?;
        }
        if base.is_none() {
            if let Some(v) = info.get("cb_nodes") {
                h.cb_nodes = Some(positive("cb_nodes", v)? as usize);
            }
        }
        if let Some(v) = info.get("romio_cb_read") {
            h.cb_read = Cb::parse("romio_cb_read", v)?;
        }
        if let Some(v) = info.get("romio_cb_write") {
            h.cb_write = Cb::parse("romio_cb_write", v)?;
        }
        Ok(h)
    }

    /// The hints of `info` that are not interpreted.
    pub fn extra(info: &Info) -> Info {
        let mut out = Info::new();
        for (k, v) in info.entries() {
            if !KNOWN.contains(&k.as_str()) && k != "filename" {
                let _ = out.set(k, v);
            }
        }
        out
    }

    /// The hints in use, as MPI_File_get_info returns them.
    pub fn to_info(&self, aggregators: usize) -> Info {
        let mut i = Info::new();
        let pairs = [
            ("cb_buffer_size", self.cb_buffer_size.to_string()),
            ("romio_cb_read", self.cb_read.name().to_string()),
            ("romio_cb_write", self.cb_write.name().to_string()),
            ("cb_nodes", aggregators.to_string()),
            ("cb_config_list", "*:1".to_string()),
            ("romio_no_indep_rw", "false".to_string()),
        ];
        for (k, v) in pairs {
            let _ = i.set(k, &v);
        }
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_overrides() {
        let h = Hints::from_info(&Info::new(), None).unwrap();
        assert_eq!(h.cb_buffer_size, CB_BUFFER_SIZE);
        assert_eq!(
            (h.cb_nodes, h.cb_read, h.cb_write),
            (None, Cb::Auto, Cb::Auto)
        );
        let mut i = Info::new();
        i.set("cb_buffer_size", "64").unwrap();
        i.set("cb_nodes", "2").unwrap();
        i.set("romio_cb_write", "enable").unwrap();
        i.set("access_style", "read_once").unwrap();
        let h = Hints::from_info(&i, None).unwrap();
        assert_eq!(
            (h.cb_buffer_size, h.cb_nodes, h.cb_write),
            (64, Some(2), Cb::Enable)
        );
        assert_eq!(Hints::extra(&i).get("access_style"), Some("read_once"));
        assert_eq!(Hints::extra(&i).get("cb_nodes"), None);
        i.set("cb_nodes", "-1").unwrap();
        assert_eq!(
            Hints::from_info(&i, None).unwrap_err().class,
            sys::MPI_ERR_INFO_VALUE
        );
        assert_eq!(h.to_info(3).get("cb_nodes"), Some("3"));
    }
}
