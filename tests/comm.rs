//! Communicators, groups, attributes and Cartesian topologies, end to end:
//! the C programs `tests/programs/comm_*.c` built with our `mpicc` and run
//! with our `mpirun`; every printed value is checked against what the MPI
//! standard (and MPICH, where the standard leaves a choice) gives, computed
//! here independently of the crate. One exact timing test checks that
//! creating a communicator costs the messages MPICH's context-id agreement
//! costs.
mod common;

use common::model::{self, Node};
use common::{fmt_ps, program, records, Job, Record, Run, CORE_VARIANTS};
use std::collections::{BTreeMap, HashMap};

const UNDEFINED: i64 = -32766;
const PROC_NULL: i64 = -1;

fn run(n: u32, prog: &str, args: &[&str]) -> Job {
    let job = Run::exact(n, &program(prog)).args(args).run();
    job.assert_success();
    job
}

/// The `tag` records of `job`, keyed by (rank, `key` field).
fn by_rank_key(job: &Job, tag: &str, key: &str) -> BTreeMap<(i64, String), Record> {
    let mut out = BTreeMap::new();
    for r in records(&job.stdout, tag) {
        let k = (r.int("rank"), r.get(key).to_string());
        assert!(out.insert(k.clone(), r).is_none(), "duplicate {tag} {k:?}");
    }
    out
}

fn list(v: &[i64]) -> String {
    if v.is_empty() {
        return "-".to_string();
    }
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

// ---------------------------------------------------------------------------
// MPI_Comm_split
// ---------------------------------------------------------------------------

/// MPI_Comm_split semantics: for each parent rank, the world ranks of the
/// members of its new communicator in order (None: MPI_UNDEFINED). Members
/// share a color and are ordered by key, ties by parent rank.
fn split(
    parent: &[i64],
    color: impl Fn(usize) -> Option<i64>,
    key: impl Fn(usize) -> i64,
) -> Vec<Option<Vec<i64>>> {
    (0..parent.len())
        .map(|p| {
            let c = color(p)?;
            let mut same: Vec<(i64, usize)> = (0..parent.len())
                .filter(|&q| color(q) == Some(c))
                .map(|q| (key(q), q))
                .collect();
            same.sort();
            Some(same.iter().map(|&(_, q)| parent[q]).collect())
        })
        .collect()
}

/// Checks the `split` and `ring` lines of test `test` for world rank
/// `rank` whose new communicator has `members`.
fn check_member(
    job: &Job,
    splits: &BTreeMap<(i64, String), Record>,
    rings: &BTreeMap<(i64, String), Record>,
    test: &str,
    rank: i64,
    members: &Option<Vec<i64>>,
) {
    let k = (rank, test.to_string());
    let s = &splits[&k];
    match members {
        None => {
            assert_eq!((s.int("newrank"), s.int("newsize")), (-1, 0), "{}", s.line);
            assert!(!rings.contains_key(&k), "{}", job.dump());
        }
        Some(m) => {
            let n = m.len();
            let me = m.iter().position(|&w| w == rank).unwrap();
            let left = (me + n - 1) % n;
            assert_eq!(
                (s.int("newrank"), s.int("newsize")),
                (me as i64, n as i64),
                "test {test}: {}",
                s.line
            );
            let r = &rings[&k];
            assert_eq!(
                (r.int("got"), r.int("src")),
                (m[left], left as i64),
                "test {test}: {}",
                r.line
            );
        }
    }
}

#[test]
fn comm_split_on_sizes_1_to_17_and_33() {
    let prog = program("comm_split");
    for n in (1..=17).chain([33]) {
        let job = Run::exact(n, &prog).run();
        job.assert_success();
        let splits = by_rank_key(&job, "split", "test");
        let rings = by_rank_key(&job, "ring", "test");
        let world: Vec<i64> = (0..n as i64).collect();
        let a = split(&world, |r| Some(r as i64 % 3), |r| n as i64 - r as i64);
        let b = split(&world, |r| (r % 2 == 0).then_some(0), |_| 0);
        let d = split(&world, |r| Some(r as i64 / 4), |r| (r as i64 % 4) / 2);
        for r in 0..n as usize {
            let rank = r as i64;
            check_member(&job, &splits, &rings, "A", rank, &a[r]);
            check_member(&job, &splits, &rings, "B", rank, &b[r]);
            check_member(&job, &splits, &rings, "D", rank, &d[r]);
            // C splits A: color = rank in A % 2, key = rank in A
            let am = a[r].as_ref().unwrap();
            let c = split(am, |p| Some(p as i64 % 2), |p| p as i64);
            let me = am.iter().position(|&w| w == rank).unwrap();
            check_member(&job, &splits, &rings, "C", rank, &c[me]);
        }
        assert_eq!(splits.len(), 4 * n as usize, "{}", job.dump());
    }
}

// ---------------------------------------------------------------------------
// Point-to-point isolation
// ---------------------------------------------------------------------------

#[test]
fn messages_on_different_communicators_do_not_mix() {
    for n in [2u32, 4] {
        let job = run(n, "comm_isolation", &[]);
        let iso = records(&job.stdout, "iso");
        let got: Vec<(String, i64, i64, i64)> = iso
            .iter()
            .map(|r| {
                (
                    r.get("comm").to_string(),
                    r.int("value"),
                    r.int("source"),
                    r.int("tag"),
                )
            })
            .collect();
        // world rank 0 is rank n-1 of the reversed communicator
        let want = vec![
            ("W".to_string(), 300, 0, 7),
            ("R".to_string(), 200, n as i64 - 1, 7),
            ("D".to_string(), 100, 0, 7),
        ];
        assert_eq!(got, want, "{}", job.dump());
        let big = records(&job.stdout, "big");
        assert_eq!(big.len(), 1, "{}", job.dump());
        // world rank 1 is rank n-2 of the reversed communicator
        assert_eq!(
            (big[0].int("source"), big[0].int("count")),
            (n as i64 - 2, 300_000)
        );
    }
}

// ---------------------------------------------------------------------------
// Groups, MPI_Comm_create, MPI_Comm_compare, names
// ---------------------------------------------------------------------------

fn check_groups(n: i64) {
    let job = run(n as u32, "comm_groups", &[]);
    let grp = by_rank_key(&job, "grp", "op");
    let val = by_rank_key(&job, "val", "op");
    let tr = by_rank_key(&job, "tr", "op");
    let name = by_rank_key(&job, "name", "op");
    let world: Vec<i64> = (0..n).collect();
    let evens: Vec<i64> = world.iter().copied().filter(|r| r % 2 == 0).collect();
    let odds: Vec<i64> = world.iter().copied().filter(|r| r % 2 == 1).collect();
    let revevens: Vec<i64> = evens.iter().rev().copied().collect();
    let mut union = odds.clone();
    union.extend(&evens);
    let incl = if n >= 2 { vec![n - 1, 0] } else { vec![0] };
    let expect_lists: Vec<(&str, Vec<i64>)> = vec![
        ("incl", incl),
        ("excl", world[1..].to_vec()),
        ("evens", evens.clone()),
        ("odds", odds.clone()),
        ("union", union),
        ("revevens", revevens.clone()),
        ("inter_re_w", revevens.clone()),
        ("inter_w_re", evens.clone()),
        ("diff", odds.clone()),
    ];
    let pos = |v: &[i64], x: i64| v.iter().position(|&y| y == x).map(|p| p as i64);
    // MPI_IDENT 0, MPI_CONGRUENT 1, MPI_SIMILAR 2, MPI_UNEQUAL 3
    let cmp_e_re = if evens.len() > 1 { 2 } else { 0 };
    for r in 0..n {
        let g = |op: &str| grp[&(r, op.to_string())].get("v").to_string();
        let v = |op: &str| val[&(r, op.to_string())].int("v");
        for (op, want) in &expect_lists {
            assert_eq!(g(op), list(want), "rank {r} op {op}\n{}", job.dump());
        }
        assert_eq!(v("size_e"), evens.len() as i64);
        assert_eq!(v("rank_e"), pos(&evens, r).unwrap_or(UNDEFINED));
        assert_eq!(v("cmp_e_re"), cmp_e_re);
        assert_eq!(v("cmp_e_o"), 3);
        assert_eq!(v("cmp_w_w"), 0);
        assert_eq!(v("empty"), 1);
        let mut e_o = vec![UNDEFINED; evens.len()];
        e_o.push(PROC_NULL);
        assert_eq!(tr[&(r, "e_o".to_string())].get("v"), list(&e_o));
        let w_re: Vec<i64> = world
            .iter()
            .map(|&x| pos(&revevens, x).unwrap_or(UNDEFINED))
            .collect();
        assert_eq!(tr[&(r, "w_re".to_string())].get("v"), list(&w_re));
        // MPI_Comm_create(MPI_COMM_WORLD, revevens)
        match pos(&revevens, r) {
            None => {
                assert_eq!(g("commgroup"), "null");
                assert_eq!((v("crank"), v("csize")), (-1, -1));
            }
            Some(p) => {
                let k = revevens.len() as i64;
                assert_eq!(g("commgroup"), list(&revevens));
                assert_eq!((v("crank"), v("csize")), (p, k));
                assert_eq!(v("ring"), revevens[((p + k - 1) % k) as usize]);
                // same members as MPI_COMM_WORLD only if n == 1
                let want = if n == 1 { 1 } else { 3 };
                assert_eq!(v("ccmp_created"), want);
            }
        }
        assert_eq!(v("ccmp_ident"), 0);
        assert_eq!(v("ccmp_dup"), 1);
        assert_eq!(v("ccmp_rev"), if n > 1 { 2 } else { 1 });
        assert_eq!(v("inter"), 0);
        let nm = |op: &str| name[&(r, op.to_string())].get("v").to_string();
        assert_eq!(nm("world"), "MPI_COMM_WORLD");
        assert_eq!(nm("dup"), "-");
        assert_eq!(nm("named"), "my_duplicate");
    }
}

#[test]
fn group_operations_create_and_compare() {
    for n in [1, 5, 8] {
        check_groups(n);
    }
}

// ---------------------------------------------------------------------------
// Attributes
// ---------------------------------------------------------------------------

/// The callbacks each rank must run, in order: (step, callback, keyval
/// label, value). See comm_attr.c:
/// * dup: kv1 (copy_plus) and kv4 (copy_skip) are called in the order the
///   attributes were set; kv2 (MPI_COMM_NULL_COPY_FN) is not copied, kv3
///   (MPI_COMM_DUP_FN) is copied without a program callback;
/// * replace: setting kv1 again deletes the old value first;
/// * delete: the delete callback of kv2; deleting it again does nothing;
/// * free_keyval: kv1 freed while attributes hold it is still usable
///   through a saved copy of its handle (as in MPICH): setting c's kv1 to 9
///   deletes the old value 5;
/// * free_d: d has kv1 (1001) and kv3: kv1's callback runs although the
///   keyval was freed, the attributes in the reverse order of setting;
/// * free_c: c has kv1 (9), kv3, kv4 (4): kv4 then kv1;
/// * reentrant: a delete callback calling MPI_Comm_rank / MPI_Comm_size on
///   the communicator being freed;
/// * failing: a copy callback failing makes MPI_Comm_dup fail; a delete
///   callback failing once makes the first MPI_Comm_free fail (the
///   communicator stays), the second succeed;
/// * finalize: MPI_Finalize deletes MPI_COMM_SELF's attributes in the
///   reverse order of setting (kv8, whose keyval was freed, then kv7), then
///   MPI_COMM_WORLD's (kv9).
const EVENTS: [(&str, &str, i64, i64); 15] = [
    ("dup", "copy", 1, 1),
    ("dup", "copy", 4, 4),
    ("replace", "delete", 1, 1),
    ("delete", "delete", 2, 2),
    ("free_keyval", "delete", 1, 5),
    ("free_d", "delete", 1, 1001),
    ("free_c", "delete", 4, 4),
    ("free_c", "delete", 1, 9),
    ("reentrant", "delete", 6, 60),
    ("failing", "copy", 11, 110),
    ("failing", "delete", 10, 100),
    ("failing", "delete", 10, 100),
    ("finalize", "delete", 8, 80),
    ("finalize", "delete", 7, 70),
    ("finalize", "delete", 9, 90),
];

#[test]
fn attributes_and_callbacks() {
    let n = 3;
    let job = run(n, "comm_attr", &[]);
    for r in 0..n as i64 {
        let ev: Vec<(String, String, i64, i64)> = records(&job.stdout, "ev")
            .into_iter()
            .filter(|e| e.int("rank") == r)
            .map(|e| {
                (
                    e.get("step").to_string(),
                    e.get("cb").to_string(),
                    e.int("kv"),
                    e.int("val"),
                )
            })
            .collect();
        let want: Vec<(String, String, i64, i64)> = EVENTS
            .iter()
            .map(|&(s, c, k, v)| (s.to_string(), c.to_string(), k, v))
            .collect();
        assert_eq!(ev, want, "rank {r}\n{}", job.dump());

        let res: HashMap<(String, String), i64> = records(&job.stdout, "res")
            .into_iter()
            .filter(|e| e.int("rank") == r)
            .map(|e| ((e.get("step").into(), e.get("what").into()), e.int("v")))
            .collect();
        let keyval = 48; // MPI_ERR_KEYVAL
        let other = 15; // MPI_ERR_OTHER, returned by the failing callbacks
        let want: Vec<(&str, &str, i64)> = vec![
            ("dup", "d_kv1", 1001),
            ("dup", "d_kv2", -1),
            ("dup", "d_kv3", 3),
            ("dup", "d_kv4", -1),
            ("dup", "c_kv1", 1),
            ("replace", "c_kv1", 5),
            ("delete", "rc", 0),
            ("delete", "c_kv2", -1),
            ("delete", "rc_again", 0),
            ("free_keyval", "rc", 0),
            ("free_keyval", "invalid", 1),
            // as in MPICH, a freed keyval lives while attributes hold it:
            // a saved copy of the handle still reads and sets them
            ("free_keyval", "c_kv1", 5),
            ("free_keyval", "rc_set", 0),
            ("free_d", "rc", 0),
            ("free_d", "null", 1),
            ("free_c", "rc", 0),
            ("predefined", "tag_ub", 2147483647),
            ("predefined", "host", PROC_NULL),
            ("predefined", "io", -2), // MPI_ANY_SOURCE
            ("predefined", "wtime_is_global", 1),
            ("predefined", "attr_get_tag_ub", 2147483647),
            ("predefined", "rc_set", keyval),
            ("predefined", "rc_delete", keyval),
            ("predefined", "rc_free", keyval),
            ("deprecated", "e_kv5", 77),
            ("deprecated", "rc_delete", 0),
            ("deprecated", "e_kv5_after", -1),
            ("deprecated", "invalid", 1),
            ("reentrant", "reentrant_rank", r),
            ("reentrant", "reentrant_size", n as i64),
            ("failing", "rc_dup", other),
            ("failing", "h_null", 1),
            ("failing", "rc_free", other),
            ("failing", "still_there", 1),
            ("failing", "rc_free_again", 0),
            ("finalize", "before", 1),
            ("after", "done", 1),
        ];
        for (s, w, v) in &want {
            assert_eq!(
                res.get(&(s.to_string(), w.to_string())),
                Some(v),
                "rank {r} step {s} {w}\n{}",
                job.dump()
            );
        }
        assert_eq!(res.len(), want.len(), "rank {r}\n{}", job.dump());
    }
}

// ---------------------------------------------------------------------------
// Cartesian topologies
// ---------------------------------------------------------------------------

/// Row-major coordinates of `rank` in `dims`.
fn coords(dims: &[i64], rank: i64) -> Vec<i64> {
    let mut out = vec![0; dims.len()];
    let mut r = rank;
    for i in (0..dims.len()).rev() {
        out[i] = r % dims[i];
        r /= dims[i];
    }
    out
}

fn rank_of(dims: &[i64], c: &[i64]) -> i64 {
    c.iter().zip(dims).fold(0, |acc, (&x, &d)| acc * d + x)
}

/// The rank `disp` steps along `dim` from `c`, or MPI_PROC_NULL.
fn neighbour(dims: &[i64], periods: &[bool], c: &[i64], dim: usize, disp: i64) -> i64 {
    let mut p = c.to_vec();
    p[dim] += disp;
    if periods[dim] {
        p[dim] = p[dim].rem_euclid(dims[dim]);
    } else if p[dim] < 0 || p[dim] >= dims[dim] {
        return PROC_NULL;
    }
    rank_of(dims, &p)
}

fn check_cart(n: u32, reorder: bool, dims: &[i64], periods: &[bool]) {
    let mut args = vec![(reorder as i32).to_string(), dims.len().to_string()];
    for (d, p) in dims.iter().zip(periods) {
        args.push(d.to_string());
        args.push((*p as i32).to_string());
    }
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let job = run(n, "comm_cart", &args);
    let what = format!("{n} ranks, dims {dims:?}, periods {periods:?}, reorder {reorder}");
    let cart = by_rank_key(&job, "cart", "rank");
    let nnodes: i64 = dims.iter().product();
    let nd = dims.len();
    let key = |r: i64, k: &str| (r, k.to_string());
    let shifts: HashMap<(i64, i64, i64), (i64, i64)> = records(&job.stdout, "shift")
        .iter()
        .map(|s| {
            (
                (s.int("rank"), s.int("dim"), s.int("disp")),
                (s.int("src"), s.int("dst")),
            )
        })
        .collect();
    let get = by_rank_key(&job, "get", "rank");
    let wrap = by_rank_key(&job, "wrap", "rank");
    let nb = by_rank_key(&job, "nb", "dim");
    let sub = by_rank_key(&job, "sub", "keep");
    for r in 0..n as i64 {
        let line = &cart[&key(r, &r.to_string())];
        if r >= nnodes {
            assert_eq!(line.int("crank"), -1, "{what}: {}", line.line);
            continue;
        }
        // ranks are kept, whether reorder is set or not
        let c = coords(dims, r);
        assert_eq!(line.int("crank"), r, "{what}: {}", line.line);
        assert_eq!(line.get("coords"), list(&c), "{what}");
        let g = &get[&key(r, &r.to_string())];
        let per: Vec<i64> = periods.iter().map(|&p| p as i64).collect();
        assert_eq!(g.int("ndims"), nd as i64);
        assert_eq!(g.get("dims"), list(dims), "{what}");
        assert_eq!(g.get("periods"), list(&per), "{what}");
        assert_eq!(g.int("topo"), 2, "MPI_CART");
        for d in 0..nd {
            for disp in [1, -2] {
                let want = (
                    neighbour(dims, periods, &c, d, -disp),
                    neighbour(dims, periods, &c, d, disp),
                );
                assert_eq!(
                    shifts[&(r, d as i64, disp)],
                    want,
                    "{what}: rank {r} dim {d} disp {disp}"
                );
            }
            let got = nb[&key(r, &d.to_string())].int("got");
            assert_eq!(
                got,
                neighbour(dims, periods, &c, d, -1),
                "{what}: nb {r} {d}"
            );
        }
        assert_eq!(wrap[&key(r, &r.to_string())].int("v"), r);
        // Cart_sub keeping dim 0: the ranks that share the other coords
        let s = &sub[&key(r, "first")];
        assert_eq!(
            (s.int("srank"), s.int("ssize"), s.get("scoords")),
            (c[0], dims[0], c[0].to_string().as_str()),
            "{what}: {}",
            s.line
        );
        // Cart_sub keeping no dimension: a 0-d grid over the whole parent,
        // as MPICH (only its rank 0 gets a communicator, of itself)
        let want = if r == 0 { (0, 1, "-") } else { (-1, 0, "null") };
        let rest = &sub[&key(r, "rest")];
        let rest_size: i64 = dims[1..].iter().product();
        let rest_coords = list(&c[1..]);
        assert_eq!(
            (rest.int("srank"), rest.int("ssize"), rest.get("scoords")),
            if nd == 1 {
                want
            } else {
                (
                    rank_of(&dims[1..], &c[1..]),
                    rest_size,
                    rest_coords.as_str(),
                )
            },
            "{what}: {}",
            rest.line
        );
        let none = &sub[&key(r, "none")];
        assert_eq!(
            (none.int("srank"), none.int("ssize"), none.get("scoords")),
            want,
            "{what}: {}",
            none.line
        );
    }
}

#[test]
fn cartesian_topologies() {
    check_cart(12, false, &[3, 2, 2], &[true, false, true]);
    check_cart(12, true, &[4, 3], &[false, true]);
    check_cart(7, false, &[2, 3], &[false, false]);
    check_cart(7, true, &[3, 2], &[true, true]);
    check_cart(6, false, &[6], &[true]);
    check_cart(1, false, &[1, 1], &[true, false]);
}

/// MPI_Dims_create: the standard's examples, MPICH's results for balanced
/// factorizations, fixed entries, errors (MPI_ERR_DIMS = 11).
#[test]
fn dims_create_cases() {
    let cases: &[(i64, &[i64], i64, &[i64])] = &[
        (16, &[0, 0], 0, &[4, 4]),
        (12, &[0, 0, 0], 0, &[3, 2, 2]),
        (7, &[0, 0], 0, &[7, 1]),
        (6, &[0, 0], 0, &[3, 2]),
        (6, &[0, 3, 0], 0, &[2, 3, 1]),
        (7, &[0, 3, 0], 11, &[0, 3, 0]),
        (24, &[0, 0, 0], 0, &[4, 3, 2]),
        (64, &[0, 0, 0], 0, &[4, 4, 4]),
        (100, &[0, 0, 0], 0, &[5, 5, 4]),
        (1024, &[0, 0], 0, &[32, 32]),
        (1000, &[0, 0, 0], 0, &[10, 10, 10]),
        (20, &[0, 0, 0, 0], 0, &[5, 2, 2, 1]),
        (1, &[0, 0, 0], 0, &[1, 1, 1]),
        (8, &[2, 0, 0], 0, &[2, 2, 2]),
        (30, &[0, 2, 0], 0, &[5, 2, 3]),
        (4, &[2, 2], 0, &[2, 2]),
        (6, &[-1, 0], 11, &[-1, 0]),
    ];
    let mut args = Vec::new();
    for (n, dims, _, _) in cases {
        args.push(n.to_string());
        args.push(dims.len().to_string());
        args.extend(dims.iter().map(|d| d.to_string()));
    }
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let job = run(1, "comm_dims", &args);
    let got = records(&job.stdout, "dims");
    assert_eq!(got.len(), cases.len(), "{}", job.dump());
    for (g, (n, _, rc, want)) in got.iter().zip(cases) {
        assert_eq!(g.int("n"), *n);
        assert_eq!(
            (g.int("rc"), g.get("v")),
            (*rc, list(want).as_str()),
            "{}",
            g.line
        );
    }
}

// ---------------------------------------------------------------------------
// MPI_Comm_split_type
// ---------------------------------------------------------------------------

#[test]
fn split_type_shared_groups_ranks_by_target_node() {
    // tianhe1a: 12 ranks per node (world rank / 12)
    for n in [24u32, 25] {
        let job = run(n, "comm_split_type", &[]);
        let node = by_rank_key(&job, "node", "rank");
        let undef = by_rank_key(&job, "undef", "rank");
        let world: Vec<i64> = (0..n as i64).collect();
        let want = split(&world, |r| Some(r as i64 / 12), |r| -(r as i64));
        for r in 0..n as i64 {
            let m = want[r as usize].as_ref().unwrap();
            let k = m.len();
            let me = m.iter().position(|&w| w == r).unwrap();
            let line = &node[&(r, r.to_string())];
            assert_eq!(
                (line.int("newrank"), line.int("newsize"), line.int("got")),
                (me as i64, k as i64, m[(me + k - 1) % k]),
                "{}",
                line.line
            );
            // the same node as the model's
            assert_eq!(m.iter().map(|w| w / 12).min(), Some(r / 12));
            assert_eq!(undef[&(r, r.to_string())].int("null"), 1);
            // MPI-4's hardware splits: by target node too
            let hw = &by_rank_key(&job, "hw", "rank")[&(r, r.to_string())];
            assert_eq!(
                (hw.int("guided"), hw.int("unguided"), hw.int("inner")),
                (k as i64, k as i64, 1),
                "{}",
                hw.line
            );
            assert_eq!(hw.get("resource"), "mpi_shared_memory", "{}", hw.line);
        }
    }
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

#[test]
fn error_classes_under_errors_return() {
    let (comm, rank, group, arg, topology, dims, keyval) = (5, 6, 8, 12, 10, 11, 48);
    let want: &[(&str, i64)] = &[
        ("Comm_dup_null", comm),
        ("Comm_free_world", comm),
        ("Comm_size_freed", comm),
        ("Send_freed", comm),
        ("Comm_free_freed", comm),
        ("Comm_compare_null", comm),
        ("Comm_split_color", arg),
        ("Comm_split_type", arg),
        ("Group_size_null", group),
        ("Group_incl_dup", rank),
        ("Group_incl_range", rank),
        ("Group_excl_neg_n", arg),
        ("Group_range_stride0", arg),
        ("Group_translate", rank),
        ("Group_rank_freed", group),
        ("Comm_create_not_subgroup", group),
        ("Cart_coords_world", topology),
        ("Cart_shift_world", topology),
        ("Cartdim_get_world", topology),
        ("Cart_sub_world", topology),
        ("Cart_create_dim0", dims),
        ("Cart_create_neg_ndims", dims),
        // MPICH: MPI_ERR_ARG for a grid larger than the communicator
        ("Cart_create_too_big", arg),
        // MPICH: MPI_ERR_ARG for coordinates out of a non-periodic range
        ("Cart_rank_out", arg),
        ("Cart_coords_rank", rank),
        ("Cart_coords_maxdims", arg),
        ("Cart_shift_dir", arg),
        ("Dims_create_divide", dims),
        ("Dims_create_negative", dims),
        ("Dims_create_nnodes", arg),
        ("Comm_get_attr_bad", keyval),
        ("Comm_set_attr_invalid", keyval),
        ("Comm_free_keyval_invalid", keyval),
        ("inherited", topology),
    ];
    let n = 4;
    let job = run(n, "comm_errors", &["return"]);
    for r in 0..n as i64 {
        let got: Vec<(String, i64)> = records(&job.stdout, "err")
            .into_iter()
            .filter(|e| e.int("rank") == r)
            .map(|e| (e.get("call").to_string(), e.int("class")))
            .collect();
        let want: Vec<(String, i64)> = want.iter().map(|&(c, k)| (c.to_string(), k)).collect();
        assert_eq!(got, want, "rank {r}\n{}", job.dump());
    }
    assert_eq!(records(&job.stdout, "done").len(), n as usize);
}

#[test]
fn error_on_a_communicator_with_errors_are_fatal_ends_the_job() {
    let job = Run::exact(4, &program("comm_errors"))
        .args(&["fatal"])
        .run();
    assert!(!job.status.success(), "{}", job.dump());
    for w in [
        "rank 1",
        "MPI_Cart_coords",
        "no Cartesian topology",
        "MPI_ERR_TOPOLOGY",
    ] {
        assert!(job.stderr.contains(w), "no `{w}` in:\n{}", job.dump());
    }
    assert!(!job.stdout.contains("returned"), "{}", job.dump());
}

// ---------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------

/// At cpu.scale = 0, on 4 ranks of one target node, each constructor
/// started at the same time on every rank (1 us, 2 us):
/// * MPI_Comm_dup agrees on a context id with one allreduce (MPI_BAND) of
///   the context mask and MPICH 4.0.2's flag, 65 ints: reduce-scatter +
///   allgather (MPICH 4.0.2 takes it above 8 bytes for a predefined op and
///   65 >= 4 elements, `Node::mask_allreduce4`), then broadcasts the new
///   communicator's sequence number (`Node::seq_bcast4`);
/// * MPI_Comm_split first allgathers (color, key), 8 bytes per rank, by
///   recursive doubling (32 bytes in all, power of two): exchanges of 8 then
///   16 bytes, then the same allreduce and broadcast on the new
///   communicator (the same 4 ranks in the same order);
/// * MPI_Comm_free exchanges nothing.
///
/// Identical with 1 and 2 host cores.
#[test]
fn comm_dup_costs_one_allreduce_of_the_context_mask() {
    assert_eq!(model::hop(0, 3), 0);
    const US: u64 = 1_000_000;
    let mut n = Node::new(4, US);
    n.mask_allreduce4();
    n.seq_bcast4();
    let dup = n.t.clone();
    let mut n = Node::new(4, 2 * US);
    n.doubling4([8, 16]);
    n.mask_allreduce4();
    n.seq_bcast4();
    let split = n.t;
    let prog = program("comm_timing");
    for cores in CORE_VARIANTS {
        let job = Run::exact(4, &prog).cores(cores).run();
        job.assert_success();
        let t = common::times_by_rank_op(&job.stdout, "t");
        for r in 0..4 {
            for (op, want) in [("dup", dup[r]), ("split", split[r]), ("free", split[r])] {
                let got = t[&(r as i64, op.to_string())];
                assert_eq!(
                    got,
                    want,
                    "cores {cores:?} rank {r} op {op}: got {}, expected {}\n{}",
                    fmt_ps(got),
                    fmt_ps(want),
                    job.dump()
                );
            }
        }
    }
}
