//! MPI_T categories: `vaced` holds the five others (`vaced_target`,
//! `vaced_engine`, `vaced_collectives` with the control variables,
//! `vaced_p2p` and `vaced_time` with the performance variables). They never
//! change, so MPI_T_category_changed returns a constant stamp.
use super::cvars::{self, Cvar};
use super::pvars::{self, Pvar};
use std::os::raw::c_int;

/// A category: its variables and sub-categories, by index.
#[derive(Debug)]
pub struct Category {
    pub name: &'static str,
    pub desc: &'static str,
    pub cvars: Vec<c_int>,
    pub pvars: Vec<c_int>,
    pub categories: Vec<c_int>,
}

/// The stamp MPI_T_category_changed returns.
pub const STAMP: c_int = 1;

/// The categories of `cvars` and `pvars` (each variable names its own).
pub fn all(cv: &[Cvar], pv: &[Pvar]) -> Vec<Category> {
    let leaves: [(&'static str, &'static str); 5] = [
        (
            cvars::TARGET,
            "the target machine: CPU scale and network model",
        ),
        (cvars::ENGINE, "the timing engine's settings"),
        (
            cvars::COLLECTIVES,
            "collective algorithms forced for what-if studies",
        ),
        (pvars::P2P, "messages sent and decisions taken by this rank"),
        (pvars::TIME, "this rank's virtual time and its breakdown"),
    ];
    let mut out = vec![Category {
        name: "vaced",
        desc: "everything vaced exposes through MPI_T",
        cvars: Vec::new(),
        pvars: Vec::new(),
        categories: (1..=leaves.len() as c_int).collect(),
    }];
    for (name, desc) in leaves {
        let pick = |cats: Vec<&str>| {
            cats.iter()
                .enumerate()
                .filter(|(_, c)| **c == name)
                .map(|(i, _)| i as c_int)
                .collect()
        };
        out.push(Category {
            name,
            desc,
            cvars: pick(cv.iter().map(|c| c.category).collect()),
            pvars: pick(pv.iter().map(|p| p.category).collect()),
            categories: Vec::new(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::model::Model;
    use crate::mpit::Registry;

    #[test]
    fn every_variable_in_exactly_one_leaf() {
        let r = Registry::new(&Model::load("tianhe1a").unwrap(), |_| None);
        let nc: usize = r.categories.iter().map(|c| c.cvars.len()).sum();
        let np: usize = r.categories.iter().map(|c| c.pvars.len()).sum();
        assert_eq!((nc, np), (r.cvars.len(), r.pvars.len()));
        assert_eq!(r.categories[0].categories, [1, 2, 3, 4, 5]);
        assert_eq!(r.categories[5].pvars, [3, 4, 5, 6]);
    }
}
