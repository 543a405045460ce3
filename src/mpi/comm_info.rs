//! Communicator info hints (MPI_Comm_set_info, MPI_Comm_get_info,
//! MPI_Comm_dup_with_info, the info of MPI_Comm_split_type): the hints
//! vaced honours are MPI-4's four assertions, the ones MPICH 4.0.2
//! registers for every communicator (`MPIR_Comm_hint_init`). As in MPICH,
//! other keys are ignored, a value is "true", "false" or an integer
//! (non-zero: true), and MPI_Comm_get_info returns every honoured hint with
//! its current value ("true" / "false"). MPI_Comm_dup copies the hints;
//! MPI_Comm_dup_with_info starts from the defaults (all false) and applies
//! its info. Setting hints is local (MPICH runs no consistency check).
use crate::mpi::info::Info;

/// The honoured hints, in MPICH's registration order.
pub const HINT_KEYS: [&str; 4] = [
    "mpi_assert_no_any_tag",
    "mpi_assert_no_any_source",
    "mpi_assert_exact_length",
    "mpi_assert_allow_overtaking",
];

/// The hints of a communicator (one flag per [`HINT_KEYS`] entry).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hints {
    pub flags: [bool; 4],
}

/// MPICH's reading of a boolean hint: "true", "false", else atoi.
fn parse_bool(s: &str) -> bool {
    match s {
        "true" => true,
        "false" => false,
        _ => atoi(s) != 0,
    }
}

/// C's atoi: optional blanks and sign, then digits; 0 if none.
fn atoi(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        v = v.saturating_mul(10).saturating_add((b - b'0') as i64);
    }
    if neg {
        -v
    } else {
        v
    }
}

impl Hints {
    /// Apply the honoured keys of `info` (others are ignored).
    pub fn apply(&mut self, info: &Info) {
        for (k, v) in info.entries() {
            if let Some(i) = HINT_KEYS.iter().position(|h| h == k) {
                self.flags[i] = parse_bool(v);
            }
        }
    }

    /// The defaults with `info` applied.
    pub fn from_info(info: Option<&Info>) -> Hints {
        let mut h = Hints::default();
        if let Some(i) = info {
            h.apply(i);
        }
        h
    }

    /// MPI_Comm_get_info: every honoured hint and its value.
    pub fn to_info(&self) -> Info {
        Info::from_pairs(
            HINT_KEYS
                .iter()
                .zip(self.flags)
                .map(|(k, f)| (*k, if f { "true" } else { "false" })),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_as_mpich_reads_them() {
        let mut h = Hints::default();
        h.apply(&Info::from_pairs([
            ("mpi_assert_no_any_tag", "true"),
            ("mpi_assert_exact_length", " 7x"),
            ("mpi_assert_allow_overtaking", "yes"),
            ("unknown_key", "true"),
        ]));
        assert_eq!(h.flags, [true, false, true, false]);
        h.apply(&Info::from_pairs([("mpi_assert_no_any_tag", "false")]));
        let out = h.to_info();
        assert_eq!(out.nkeys(), 4);
        assert_eq!(out.get("mpi_assert_no_any_tag"), Some("false"));
        assert_eq!(out.get("mpi_assert_exact_length"), Some("true"));
        assert_eq!(out.get("unknown_key"), None);
        assert_eq!(atoi("-12abc"), -12);
        assert_eq!(atoi("abc"), 0);
        assert_eq!(Hints::from_info(None), Hints::default());
    }
}
