//! MPI_T control variables: the real settings of this rank's job, all
//! read-only (MPI_T_SCOPE_CONSTANT: the target file and environment are
//! fixed for the whole job, the same on every rank, and the engine cannot
//! change a setting consistently on every rank while it runs, so
//! MPI_T_cvar_write answers MPI_T_ERR_CVAR_SET_NEVER).
//!
//! * the target machine (`[cpu]`, `[network]`, `[topology]` of the target
//!   file): name, cpu scale, bandwidths, latencies, eager limit, header
//!   size, software overheads, default hops;
//! * the synchronisation mode (`VACED_SYNC`: exact or fast), an enum;
//! * for each collective, the algorithm forced by `VACED_COLL_<NAME>` or
//!   `[collectives]` (the environment wins, as in `coll::select`), an enum
//!   whose item 0 is "auto" (MPICH's default selection rules).
use super::EnumType;
use crate::coll::select::{forced_name, Coll};
use crate::model::Model;
use crate::sys;
use std::os::raw::c_int;

/// The value of a control variable.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(c_int),
    Ull(u64),
    Double(f64),
    /// A string: MPI_CHAR, count = length + 1 (with the terminator).
    Str(String),
}

impl Value {
    pub fn datatype(&self) -> sys::MPI_Datatype {
        match self {
            Value::Int(_) => sys::MPI_INT,
            Value::Ull(_) => sys::MPI_UNSIGNED_LONG_LONG,
            Value::Double(_) => sys::MPI_DOUBLE,
            Value::Str(_) => sys::MPI_CHAR,
        }
    }
    /// Elements of the datatype a read writes (MPI_T_cvar_handle_alloc's
    /// count).
    pub fn count(&self) -> c_int {
        match self {
            Value::Str(s) => s.len() as c_int + 1,
            _ => 1,
        }
    }
    /// The bytes MPI_T_cvar_read stores (native layout).
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            Value::Int(v) => v.to_ne_bytes().to_vec(),
            Value::Ull(v) => v.to_ne_bytes().to_vec(),
            Value::Double(v) => v.to_ne_bytes().to_vec(),
            Value::Str(s) => {
                let mut b = s.as_bytes().to_vec();
                b.push(0);
                b
            }
        }
    }
}

/// A control variable.
#[derive(Debug)]
pub struct Cvar {
    pub name: String,
    pub desc: String,
    pub verbosity: c_int,
    /// Index in the registry's enums, for enum-valued (MPI_INT) variables.
    pub enumtype: Option<usize>,
    pub value: Value,
    /// The category it belongs to (see `categories`).
    pub category: &'static str,
}

impl Cvar {
    pub fn scope(&self) -> c_int {
        sys::MPI_T_SCOPE_CONSTANT
    }
    pub fn bind(&self) -> c_int {
        sys::MPI_T_BIND_NO_OBJECT
    }
}

pub const TARGET: &str = "vaced_target";
pub const ENGINE: &str = "vaced_engine";
pub const COLLECTIVES: &str = "vaced_collectives";

fn var(name: &str, desc: &str, verbosity: c_int, value: Value, category: &'static str) -> Cvar {
    Cvar {
        name: name.to_string(),
        desc: desc.to_string(),
        verbosity,
        enumtype: None,
        value,
        category,
    }
}

/// The control variables of a process on `model`; the enumerations they use
/// are appended to `enums`.
pub fn all(
    model: &Model,
    env: &impl Fn(&str) -> Option<String>,
    enums: &mut Vec<EnumType>,
) -> Vec<Cvar> {
    use sys::{
        MPI_T_VERBOSITY_TUNER_BASIC as TUNER, MPI_T_VERBOSITY_USER_BASIC as USER,
        MPI_T_VERBOSITY_USER_DETAIL as DETAIL,
    };
    use Value::{Double, Int, Str, Ull};
    let ps = |t: crate::model::VTime| Ull(t.ps());
    let mut v = vec![
        var(
            "vaced_target_name",
            "name of the target machine the job predicts",
            USER,
            Str(model.name.clone()),
            TARGET,
        ),
        var(
            "vaced_cpu_scale",
            "target compute time per host CPU second ([cpu] scale; 0: computation is free)",
            USER,
            Double(model.cpu_scale),
            TARGET,
        ),
        var(
            "vaced_mem_bandwidth",
            "Bmem, bytes per second: copies between user and message buffers",
            DETAIL,
            Ull(model.mem_bandwidth),
            TARGET,
        ),
        var(
            "vaced_net_bandwidth",
            "Bnet, bytes per second: transfers between nodes",
            DETAIL,
            Ull(model.net_bandwidth),
            TARGET,
        ),
        var(
            "vaced_latency_ps",
            "network latency in picoseconds: l(h) = latency + h * hop_latency",
            DETAIL,
            ps(model.latency),
            TARGET,
        ),
        var(
            "vaced_hop_latency_ps",
            "latency added per hop, in picoseconds",
            DETAIL,
            ps(model.hop_latency),
            TARGET,
        ),
        var(
            "vaced_eager_limit",
            "largest message (bytes) sent with the eager protocol; larger ones use rendezvous (REQ, ACK, DATA)",
            USER,
            Ull(model.eager_limit),
            TARGET,
        ),
        var(
            "vaced_header_bytes",
            "size in bytes of the REQ and ACK messages of the rendezvous protocol",
            DETAIL,
            Ull(model.header_bytes),
            TARGET,
        ),
        var(
            "vaced_o_send_ps",
            "software overhead per message sent, in picoseconds",
            DETAIL,
            ps(model.o_send),
            TARGET,
        ),
        var(
            "vaced_o_recv_ps",
            "software overhead per message received, in picoseconds",
            DETAIL,
            ps(model.o_recv),
            TARGET,
        ),
        var(
            "vaced_default_hops",
            "hops between ranks that no topology level groups together (a network of nodes: its diameter)",
            DETAIL,
            Int(model.topology.max_hops() as c_int),
            TARGET,
        ),
    ];
    let sync = enums.len();
    enums.push(EnumType {
        name: "vaced_sync_mode".to_string(),
        items: vec![("exact".to_string(), 0), ("fast".to_string(), 1)],
    });
    let fast = env("VACED_SYNC").as_deref() == Some("fast");
    v.push(Cvar {
        enumtype: Some(sync),
        ..var(
            "vaced_sync_mode",
            "how timing-dependent operations are decided (VACED_SYNC): exact (conservative decisions) or fast (on host arrival)",
            TUNER,
            Int(fast as c_int),
            ENGINE,
        )
    });
    for c in Coll::ALL {
        let e = enums.len();
        let mut items = vec![("auto".to_string(), 0)];
        items.extend(
            c.algorithms()
                .iter()
                .enumerate()
                .map(|(i, a)| (a.to_string(), i as c_int + 1)),
        );
        let forced = forced_name(model, c, env)
            .and_then(|(name, _)| items.iter().find(|(n, _)| *n == name).map(|x| x.1))
            .unwrap_or(0);
        enums.push(EnumType {
            name: format!("vaced_coll_{}_algorithm", c.key()),
            items,
        });
        v.push(Cvar {
            enumtype: Some(e),
            ..var(
                &format!("vaced_coll_{}", c.key()),
                &format!(
                    "algorithm forced for MPI_{} ({} or [collectives] {}); auto: MPICH's default selection",
                    coll_name(c),
                    c.env_var(),
                    c.key()
                ),
                TUNER,
                Int(forced),
                COLLECTIVES,
            )
        });
    }
    v
}

/// The MPI name of a collective, after `MPI_`.
fn coll_name(c: Coll) -> String {
    let k = c.key();
    let mut s = k[..1].to_ascii_uppercase();
    s.push_str(&k[1..]);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_the_targets_and_the_environments() {
        let m = Model::load("tianhe1a").unwrap();
        let mut enums = Vec::new();
        let env = |v: &str| match v {
            "VACED_SYNC" => Some("fast".to_string()),
            "VACED_COLL_BCAST" => Some("binomial".to_string()),
            _ => None,
        };
        let vars = all(&m, &env, &mut enums);
        let get = |n: &str| vars.iter().find(|c| c.name == n).unwrap();
        assert_eq!(get("vaced_eager_limit").value, Value::Ull(m.eager_limit));
        assert_eq!(get("vaced_sync_mode").value, Value::Int(1));
        let b = get("vaced_coll_bcast");
        let e = &enums[b.enumtype.unwrap()];
        let Value::Int(i) = b.value else { panic!() };
        assert_eq!(e.items[i as usize].0, "binomial");
        assert_eq!(get("vaced_coll_reduce").value, Value::Int(0));
        assert_eq!(coll_name(Coll::ReduceScatterBlock), "Reduce_scatter_block");
        assert_eq!(Value::Str("ab".into()).bytes(), b"ab\0");
    }
}
