//! Info objects, communicator info, MPI_Comm_create_group, graph and
//! distributed-graph topologies and neighbourhood collectives, end to end:
//! C and Fortran programs of `tests/programs/` built with our wrappers and
//! run with our `mpirun`. Every printed line is compared with what the MPI
//! standard (and MPICH 4.0.2 where the standard leaves a choice) gives;
//! the timing test derives every time from the model's equations.
mod common;

use common::{fortran_program, program, records, Job, Run};

fn run(n: u32, prog: &str, args: &[&str]) -> Job {
    let job = Run::exact(n, &program(prog)).args(args).run();
    job.assert_success();
    job
}

/// The lines of `job` that start with `tag `, in order.
fn lines<'a>(job: &'a Job, tag: &str) -> Vec<&'a str> {
    job.stdout
        .lines()
        .filter(|l| l.split_whitespace().next() == Some(tag))
        .collect()
}

fn assert_lines(job: &Job, tag: &str, want: &[&str]) {
    let got = lines(job, tag);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g, w, "line {i} of `{tag}`\n{}", job.dump());
    }
    assert_eq!(got.len(), want.len(), "`{tag}` lines\n{}", job.dump());
}

// ---------------------------------------------------------------------------
// Info objects
// ---------------------------------------------------------------------------

/// Every info call, with MPICH's results and error classes: order of keys
/// (first set first; overwriting keeps the place), delete (NOKEY = 31 the
/// second time), deep dup, valuelen, MPI_Info_get cut at valuelen with
/// MPI_ERR_INFO_VALUE (30), MPI_Info_get_string (buflen counts the NUL,
/// the value is cut silently), keys of 255 and values of 1024 characters
/// (one more: MPI_ERR_INFO_KEY 29, MPI_ERR_INFO_VALUE 30), nthkey writing
/// at most MPI_MAX_INFO_KEY bytes with the NUL (254 characters), freed
/// handles (MPI_ERR_INFO 28), MPI_INFO_NULL (MPI_ERR_ARG 12), calls before
/// MPI_Init and after MPI_Finalize, MPI_INFO_ENV on every rank (no thread_level: nothing was
/// requested at launch).
#[test]
fn info_semantics() {
    let job = run(3, "info_calls", &["a1", "b2"]);
    assert_lines(
        &job,
        "info",
        &[
            "info step=pre rc=0,0,29",
            "info step=pre rc=0 nkeys=1 keys=[early]=[bird]",
            "info step=env_argv flag=1 v=[a1 b2]",
            "info step=env_soft flag=0",
            "info step=env_dup same=1 set_rc=28 free_rc=0 null=1",
            "info step=empty rc=0 nkeys=0 keys=",
            "info step=set3 rc=0 nkeys=3 keys=[b]=[one],[a]=[two],[c]=[three]",
            "info step=overwrite rc=0 nkeys=3 keys=[b]=[four],[a]=[two],[c]=[three]",
            "info step=blank rc=0 nkeys=4 keys=[b]=[four],[a]=[two],[c]=[three],[ a]=[sp ]",
            "info step=delete rc=0 nkeys=2 keys=[b]=[four],[c]=[three]",
            "info step=delete_rc rc=0 again=31",
            "info step=dup rc=0 nkeys=3 keys=[b]=[changed],[c]=[three],[z]=[new]",
            "info step=orig rc=0 nkeys=2 keys=[b]=[four],[c]=[three]",
            "info step=valuelen rc=0 len=5 flag=1",
            "info step=valuelen_empty len=0 flag=1",
            "info step=valuelen_missing len=-7 flag=0",
            "info step=get_missing rc=0 flag=0 v=[untouched]",
            "info step=get_exact rc=0 flag=1 v=[three]",
            "info step=get_short rc=30 flag=1 v=[thr]",
            "info step=get_zero rc=30 flag=1 v=[]",
            "info step=get_negative rc=12",
            "info step=gs_short rc=0 flag=1 buflen=6 v=[thr]",
            "info step=gs_zero rc=0 flag=1 buflen=6 v=[keep]",
            "info step=gs_full rc=0 flag=1 buflen=6 v=[three]",
            "info step=gs_missing rc=0 flag=0 buflen=9",
            "info step=gs_negative rc=12",
            "info step=limits set=0 len=1024 get=0 got=1024 nthkey_len=254",
            "info step=too_long key=29 value=30 empty=29 get=29 delete=29",
            "info step=nthkey_range rc=12 neg=12",
            "info step=handles null=1 freed=28 info_null=12 refree=28 dupnull=12",
            "info step=post rc=0 flag=1 v=[bird] free=0 null_rc=12",
        ],
    );
    let env = records(&job.stdout, "env");
    assert_eq!(env.len(), 3, "{}", job.dump());
    for r in env {
        assert_eq!(r.get("command"), "info_calls", "{}", r.line);
        assert_eq!(r.get("maxprocs"), "3", "{}", r.line);
        assert_eq!(r.get("flags"), "110", "{}", r.line);
    }
}

/// The Fortran bindings: blanks stripped from keys and values, results
/// blank-padded, VALUE untouched for a missing key, MPI_INFO_GET_STRING's
/// BUFLEN without terminator (the value cut to BUFLEN characters, then
/// blanks, as MPICH),
/// MPI_INFO_CREATE_ENV without ARGC / ARGV.
#[test]
fn info_fortran() {
    let Some(prog) = fortran_program("f90_info.f90", &["-O1"]) else {
        return;
    };
    let job = Run::exact(2, &prog).run();
    job.assert_success();
    assert_lines(
        &job,
        "finfo",
        &[
            "finfo step=nkeys n=2 ierr=0",
            "finfo step=key i=0 k=[alpha] v=[third] flag=T",
            "finfo step=key i=1 k=[beta] v=[second] flag=T",
            "finfo step=valuelen len=5 flag=T",
            "finfo step=get_short v=[sec     ] flag=T ierr=30",
            "finfo step=get_missing v=[xxxxxxxx] flag=F ierr=0",
            "finfo step=get_string v=[seco    ] buflen=6 flag=T",
            "finfo step=get_string_full v=[second  ] buflen=6 flag=T",
            "finfo step=dup_delete n=1 again=31",
            "finfo step=free null=T ierr=0",
            "finfo step=env maxprocs=2 flag=T same=T",
        ],
    );
}

// ---------------------------------------------------------------------------
// Communicator info, MPI_Comm_create_group
// ---------------------------------------------------------------------------

/// MPI_Comm_set_info / get_info (the four MPI-4 assertions MPICH honours,
/// unknown keys ignored, "1" read as true), MPI_Comm_dup copying the hints,
/// MPI_Comm_dup_with_info replacing them (MPI_INFO_NULL: defaults),
/// MPI_Comm_split_type with info; MPI_Comm_create_group over {4, 2, 0}
/// (group order gives the ranks) while the odd ranks exchange on
/// MPI_COMM_WORLD with the same tag, and its errors (MPI_ERR_TAG 4,
/// MPI_ERR_GROUP 8 for a group outside the communicator).
#[test]
fn comm_info_and_create_group() {
    let job = run(6, "comm_info_group", &[]);
    let steps = [
        ("dup_world", "0000"),
        ("set", "1001"),
        ("dup_copies", "1001"),
        ("dup_with_info", "0010"),
        ("dup_with_null", "0000"),
        ("split_type", "0010"),
        ("set_false", "0000"),
    ];
    let mut want_hints = Vec::new();
    for r in 0..6 {
        for (s, v) in steps {
            want_hints.push(format!("hints rank={r} step={s} v={v} n=4 bogus=0"));
        }
    }
    let mut got_hints: Vec<String> = lines(&job, "hints").iter().map(|l| l.to_string()).collect();
    got_hints.sort_by_key(|l| records(l, "hints")[0].int("rank"));
    assert_eq!(got_hints, want_hints, "{}", job.dump());
    let mut groups: Vec<&str> = lines(&job, "group");
    groups.sort();
    assert_eq!(
        groups,
        [
            "group rank=0 grank=2 gsize=3 sum=6",
            "group rank=2 grank=1 gsize=3 sum=6",
            "group rank=4 grank=0 gsize=3 sum=6",
        ],
        "{}",
        job.dump()
    );
    let mut others: Vec<&str> = lines(&job, "other");
    others.sort();
    assert_eq!(
        others,
        [
            "other rank=1 got=5",
            "other rank=3 got=1",
            "other rank=5 got=3"
        ]
    );
    let mut errors: Vec<&str> = lines(&job, "errors");
    errors.sort();
    let want: Vec<String> = (0..6)
        .map(|r| format!("errors rank={r} tag=4 subgroup=8 selfgroup=0 selfsize=1"))
        .collect();
    assert_eq!(errors, want, "{}", job.dump());
}

// ---------------------------------------------------------------------------
// Graph and distributed-graph topologies, neighbourhood collectives
// ---------------------------------------------------------------------------

const NP: i64 = 6;
const UNDEF: i64 = -32766;

fn ints(s: &str) -> Vec<i64> {
    if s == "-" {
        return Vec::new();
    }
    s.split(',').map(|x| x.parse().unwrap()).collect()
}

fn sorted(mut v: Vec<i64>) -> Vec<i64> {
    v.sort();
    v
}

/// What a neighbourhood collective delivers, by the rules MPICH follows:
/// process s starts its sends in order (block k to dsts(s)[k]); process r
/// posts its receives (block l from srcs(r)[l]) in reverse order for
/// MPI_Neighbor_alltoall, in order otherwise; messages between two
/// processes match in the order sent and posted. `payload(s, k)` is what s
/// sends as block k; None for blocks from MPI_PROC_NULL.
fn deliver(
    srcs: &[Vec<i64>],
    dsts: &[Vec<i64>],
    reverse: bool,
    payload: impl Fn(i64, usize) -> i64,
) -> Vec<Vec<Option<i64>>> {
    (0..srcs.len())
        .map(|r| {
            let mut out = vec![None; srcs[r].len()];
            let order: Vec<usize> = if reverse {
                (0..srcs[r].len()).rev().collect()
            } else {
                (0..srcs[r].len()).collect()
            };
            let mut taken: std::collections::HashMap<i64, usize> = Default::default();
            for l in order {
                let s = srcs[r][l];
                if s < 0 {
                    continue;
                }
                let nth = taken.entry(s).or_insert(0);
                let ks: Vec<usize> = (0..dsts[s as usize].len())
                    .filter(|&k| dsts[s as usize][k] == r as i64)
                    .collect();
                out[l] = Some(payload(s, ks[*nth]));
                *nth += 1;
            }
            out
        })
        .collect()
}

fn fmt_opt(v: &[Option<i64>]) -> String {
    if v.is_empty() {
        return "-".to_string();
    }
    v.iter()
        .map(|x| x.unwrap_or(-1).to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Cartesian neighbours (MPICH's order: per dimension the shift source,
/// then its destination) of rank r in a row-major grid.
fn cart_nbs(r: i64, dims: &[i64], periods: &[bool]) -> Vec<i64> {
    let mut coords = Vec::new();
    let mut rest = r;
    let mut stride: i64 = dims.iter().product();
    for &d in dims {
        stride /= d;
        coords.push(rest / stride);
        rest %= stride;
    }
    let rank_of = |c: &[i64]| c.iter().zip(dims).fold(0, |acc, (x, d)| acc * d + x);
    let mut out = Vec::new();
    for (i, (&d, &p)) in dims.iter().zip(periods).enumerate() {
        for delta in [-1, 1] {
            let mut c = coords.clone();
            let x = c[i] + delta;
            if !p && !(0..d).contains(&x) {
                out.push(-1);
            } else {
                c[i] = x.rem_euclid(d);
                out.push(rank_of(&c));
            }
        }
    }
    out
}

/// Graph and distributed-graph topologies on 6 ranks, and every
/// neighbourhood collective on Cartesian (periodic, non-periodic, and a
/// periodic dimension of 2 whose two neighbours are the same process),
/// graph and distributed-graph communicators: queries, MPI_Graph_map /
/// MPI_Cart_map (no reordering), the edges of MPI_Dist_graph_create
/// delivered to both ends with their weights, MPI_PROC_NULL blocks left
/// alone, MPICH's receive orders, and the error classes.
#[test]
fn graphs_and_neighbour_collectives() {
    let job = run(NP as u32, "topo_graph", &[]);
    let by = |tag: &str| -> std::collections::BTreeMap<(String, i64), common::Record> {
        records(&job.stdout, tag)
            .into_iter()
            .map(|r| {
                let name = r.fields.get("name").cloned().unwrap_or_default();
                ((name, r.int("rank")), r)
            })
            .collect()
    };
    // The standard's example graph on the first 4 ranks.
    let ex: [Vec<i64>; 4] = [vec![1, 3], vec![0], vec![3], vec![0, 2]];
    let graphs = by("graph");
    let gnb = records(&job.stdout, "gnb");
    for r in 0..NP {
        let gm = &by("gmap")[&(String::new(), r)];
        let want = if r < 4 { r } else { UNDEF };
        assert_eq!(
            (gm.int("graph"), gm.int("cart")),
            (want, want),
            "{}",
            gm.line
        );
        if r >= 4 {
            assert!(job.stdout.contains(&format!("gnull rank={r}\n")));
            continue;
        }
        let g = &graphs[&(String::new(), r)];
        assert_eq!(
            g.line,
            format!("graph rank={r} topo=1 nnodes=4 nedges=6 index=2,3,4,6 edges=1,3,0,3,0,2")
        );
        for (node, nbs) in ex.iter().enumerate() {
            let line = format!(
                "gnb rank={r} node={node} count={} nbs={}",
                nbs.len(),
                nbs.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            );
            assert!(gnb.iter().any(|x| x.line == line), "missing `{line}`");
        }
    }
    // Distributed graphs.
    let dg = by("dg");
    let m = |x: i64| x.rem_euclid(NP);
    for r in 0..NP {
        let a = &dg[&("adj".to_string(), r)];
        assert_eq!(
            a.line,
            format!(
                "dg name=adj rank={r} topo=3 in=2 out=2 weighted=1 srcs={},{} sw={},{} dsts={},{} dw={},{}",
                m(r - 1), m(r - 2), 1000 + m(r - 1), 2000 + m(r - 2), m(r + 1), m(r + 2), 1000 + r, 2000 + r
            )
        );
        // dgc: rank 0 gave s -> s+1 (weight 10 s) and s -> s+3 (10 s + 1)
        let c = &dg[&("dgc".to_string(), r)];
        assert_eq!((c.int("topo"), c.int("weighted")), (3, 1), "{}", c.line);
        let (s, sw) = (ints(c.get("srcs")), ints(c.get("sw")));
        assert_eq!(
            sorted(s.clone()),
            sorted(vec![m(r - 1), m(r - 3)]),
            "{}",
            c.line
        );
        for (s, w) in s.iter().zip(&sw) {
            let want = if m(s + 1) == r { 10 * s } else { 10 * s + 1 };
            assert_eq!(*w, want, "{}", c.line);
        }
        let (d, dw) = (ints(c.get("dsts")), ints(c.get("dw")));
        assert_eq!(
            sorted(d.clone()),
            sorted(vec![m(r + 1), m(r + 3)]),
            "{}",
            c.line
        );
        for (d, w) in d.iter().zip(&dw) {
            let want = if *d == m(r + 1) { 10 * r } else { 10 * r + 1 };
            assert_eq!(*w, want, "{}", c.line);
        }
        // dgu: each rank gave its own r -> r+2, r -> r+5, unweighted
        let u = &dg[&("dgu".to_string(), r)];
        assert_eq!(
            (u.int("weighted"), u.get("sw"), u.get("dw")),
            (0, "-", "-"),
            "{}",
            u.line
        );
        assert_eq!(ints(u.get("dsts")), vec![m(r + 2), m(r + 5)], "{}", u.line);
        assert_eq!(
            sorted(ints(u.get("srcs"))),
            sorted(vec![m(r - 2), m(r - 5)])
        );
    }
    // Neighbour lists as the collectives see them.
    let nb = by("nb");
    let lists = |name: &str| -> (Vec<Vec<i64>>, Vec<Vec<i64>>) {
        let n = if name == "graph4" { 4 } else { NP };
        (0..n)
            .map(|r| {
                let x = &nb[&(name.to_string(), r)];
                (ints(x.get("srcs")), ints(x.get("dsts")))
            })
            .unzip()
    };
    let expect_nbs = |name: &str, r: i64| -> (Vec<i64>, Vec<i64>) {
        match name {
            "graph4" => (ex[r as usize].clone(), ex[r as usize].clone()),
            "cart1p" | "ring" => (vec![m(r - 1), m(r + 1)], vec![m(r - 1), m(r + 1)]),
            "cart2" => {
                let v = cart_nbs(r, &[2, 3], &[false, false]);
                (v.clone(), v)
            }
            "cart2p" => {
                let v = cart_nbs(r, &[2, 3], &[true, false]);
                (v.clone(), v)
            }
            "adj" => (vec![m(r - 1), m(r - 2)], vec![m(r + 1), m(r + 2)]),
            "dgc" => (
                ints(dg[&("dgc".to_string(), r)].get("srcs")),
                ints(dg[&("dgc".to_string(), r)].get("dsts")),
            ),
            "dgu" => (
                ints(dg[&("dgu".to_string(), r)].get("srcs")),
                ints(dg[&("dgu".to_string(), r)].get("dsts")),
            ),
            _ => unreachable!(),
        }
    };
    for name in [
        "graph4", "cart1p", "cart2", "cart2p", "ring", "adj", "dgc", "dgu",
    ] {
        let (srcs, dsts) = lists(name);
        for r in 0..srcs.len() {
            assert_eq!(
                (srcs[r].clone(), dsts[r].clone()),
                expect_nbs(name, r as i64),
                "neighbours of {r} in {name}"
            );
        }
        let ag = deliver(&srcs, &dsts, false, |s, _| s * 10 + 1);
        let a2a = deliver(&srcs, &dsts, true, |s, k| s * 100 + k as i64);
        let fwd = deliver(&srcs, &dsts, false, |s, k| s * 100 + k as i64);
        for r in 0..srcs.len() {
            let get = |tag: &str| by(tag)[&(name.to_string(), r as i64)].get("v").to_string();
            assert_eq!(get("ag"), fmt_opt(&ag[r]), "ag {name} rank {r}");
            let mut rev = ag[r].clone();
            rev.reverse();
            assert_eq!(get("agv"), fmt_opt(&rev), "agv {name} rank {r}");
            assert_eq!(get("a2a"), fmt_opt(&a2a[r]), "a2a {name} rank {r}");
            let spread: Vec<Option<i64>> = fwd[r].iter().flat_map(|&x| [x, None]).collect();
            assert_eq!(get("a2av"), fmt_opt(&spread), "a2av {name} rank {r}");
            assert_eq!(get("a2aw"), fmt_opt(&fwd[r]), "a2aw {name} rank {r}");
        }
    }
    // Errors.
    let errs = [
        ("graph_on_cart", 10),
        ("dist_on_graph", 10),
        ("graph_get_small", 12),
        ("graph_nb_rank", 6),
        ("no_topology", 10),
        ("bad_index", 12),
        ("too_many_nodes", 12),
        ("bad_dest", 6),
        ("mixed_weights", 10),
        ("dist_small", 12),
        ("zero_nodes", 1),
    ];
    let got = records(&job.stdout, "err");
    assert_eq!(got.len(), errs.len() * NP as usize, "{}", job.dump());
    for r in got {
        let want = errs.iter().find(|e| e.0 == r.get("what")).unwrap().1;
        assert_eq!(r.int("rc"), want, "{}", r.line);
    }
}

/// The exact-test target with 2 ranks per node: 4 ranks on two nodes,
/// 3 hops apart.
const TWO_PER_NODE: &str = r#"name = "tianhe1a-scale0-2pn"
[cpu]
scale = 0.0
[network]
mem_bandwidth = "6.38 GB/s"
net_bandwidth = "4.16 GB/s"
latency = "15 us"
hop_latency = "0.6 us"
eager_limit = "128 KiB"
header_bytes = 64
[topology]
levels = [ { ranks = 2, hops = 0 }, { ranks = 192, hops = 3 } ]
default_hops = 5
"#;

/// MPI_Neighbor_alltoall on a 1-D periodic grid of 4 ranks, nodes {0, 1}
/// and {2, 3}, every clock aligned at T, b-byte eager blocks. Each rank i
/// (MPICH's schedule) starts its send to the left neighbour at T (arriving
/// at T + M(b) + L(b, h)) and to the right one at T + M(b) (arriving at
/// T + 2 M(b) + L(b, h)), then posts both receives and waits from
/// w = T + 2 M(b); each receive completes at max(ta, w) + M(b), where ta is
/// the arrival of the neighbour's send towards i (the left neighbour's
/// second send, the right neighbour's first); the call returns at the
/// later one. So the inter-node neighbour's message decides, and it
/// costs one M(b) more for ranks whose inter-node neighbour is on the
/// left (0 and 2) than for the others.
#[test]
fn neighbor_alltoall_exact_timing() {
    use common::model::{link, m};
    let target = common::write_target("two-per-node-neighbor.toml", TWO_PER_NODE);
    let hop = |x: i64, y: i64| if x / 2 == y / 2 { 0 } else { 3 };
    let start_ps: u64 = 1_000_000_000; // 1 ms, after MPI_Cart_create everywhere
    for b in [8u64, 4000, 65536] {
        let n = 4i64;
        let want: Vec<u64> = (0..n)
            .map(|i| {
                let (left, right) = ((i + n - 1) % n, (i + 1) % n);
                let w = start_ps + 2 * m(b);
                // left's send to its right (its second), right's to its left (first)
                let ta_left = start_ps + 2 * m(b) + link(b, hop(left, i));
                let ta_right = start_ps + m(b) + link(b, hop(right, i));
                (ta_left.max(w) + m(b)).max(ta_right.max(w) + m(b))
            })
            .collect();
        assert_eq!(want[0], want[1] + m(b), "the scenario shows the send order");
        for cores in common::CORE_VARIANTS {
            let job = Run::new(4, target.as_os_str(), &program("neighbor_timing"))
                .cores(cores)
                .args(&[b.to_string(), "1e-3".to_string()])
                .run();
            job.assert_success();
            let mut got = records(&job.stdout, "nt");
            got.sort_by_key(|r| r.int("rank"));
            assert_eq!(got.len(), 4, "{}", job.dump());
            for (i, r) in got.iter().enumerate() {
                assert_eq!(r.ps("t0"), start_ps, "{}", r.line);
                assert_eq!(
                    r.ps("t1"),
                    want[i],
                    "rank {i}, {b} bytes, cores {cores:?}: got {}, want {}",
                    common::fmt_ps(r.ps("t1")),
                    common::fmt_ps(want[i])
                );
            }
        }
    }
}

/// The Fortran bindings of the topology calls and neighbourhood
/// collectives on 4 ranks: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY from
/// Fortran (COMMON blocks recognised by address; weights not written for
/// MPI_UNWEIGHTED), MPI_NEIGHBOR_ALLTOALL on a periodic grid,
/// MPI_NEIGHBOR_ALLGATHER on a ring graph, MPI_COMM_CREATE_GROUP.
#[test]
fn topology_fortran() {
    let Some(prog) = fortran_program("f90_graph.f90", &["-O1"]) else {
        return;
    };
    let job = Run::exact(4, &prog).run();
    job.assert_success();
    let m = |x: i64| x.rem_euclid(4);
    let mut want = Vec::new();
    for r in 0..4i64 {
        want.push(format!(
            "fg step=cart rank={r} ierr=0 left={} right={}",
            100 * m(r - 1) + 1,
            100 * m(r + 1)
        ));
        want.push(format!(
            "fg step=ring rank={r} topo=1 a={} b={}",
            m(r - 1),
            m(r + 1)
        ));
        want.push(format!("fg step=adj rank={r} in=1 out=1 weighted=F"));
        want.push(format!(
            "fg step=dg rank={r} src={} sw={} dst={} dw={}",
            m(r - 1),
            7 * m(r - 1),
            m(r + 1),
            7 * r
        ));
        want.push(format!("fg step=dg_unw rank={r} dw={} ierr=0", 7 * r));
        if r >= 2 {
            want.push(format!("fg step=group rank={r} gsize=2 grank={}", 3 - r));
        }
    }
    want.sort();
    let mut got: Vec<&str> = lines(&job, "fg");
    got.sort();
    assert_eq!(got, want, "{}", job.dump());
}

/// MPI_Comm_create_group costs only its members' messages: on 4 ranks of
/// two nodes ({0, 1}, {2, 3}), clocks aligned at T, ranks 1 and 2 create
/// the communicator of {1, 2}: MPICH's group allreduce of the context
/// mask and its flag (65 ints, 260 bytes) on 2 members is one
/// MPIC_Sendrecv (post the receive, send, wait for the send, then for the
/// receive): the send is copied by T + M(260) and the partner's mask, sent
/// at T, arrives at T + M(260) + L(260, 3), received M(260) later, at A.
/// Then the new communicator's sequence number: rank 1 (its rank 0) sends
/// 4 bytes to rank 2, done at A + M(4); rank 2 receives them at
/// A + 2 M(4) + L(4, 3). Meanwhile ranks 0 and 3
/// exchange 8 bytes with MPI_Sendrecv (tag 7, the tag of the creation),
/// undisturbed: T + 2 M(8) + L(8, 3). Every core variant.
#[test]
fn create_group_exact_timing() {
    use common::model::{link, m};
    let target = common::write_target("two-per-node-group.toml", TWO_PER_NODE);
    let t = 1_000_000_000u64;
    let agreed = t + 2 * m(260) + link(260, 3);
    let members = [agreed + m(4), agreed + 2 * m(4) + link(4, 3)];
    let others = t + 2 * m(8) + link(8, 3);
    for cores in common::CORE_VARIANTS {
        let job = Run::new(4, target.as_os_str(), &program("group_timing"))
            .cores(cores)
            .args(&["1e-3"])
            .run();
        job.assert_success();
        let mut got = records(&job.stdout, "gt");
        got.sort_by_key(|r| r.int("rank"));
        assert_eq!(got.len(), 4, "{}", job.dump());
        for (i, r) in got.iter().enumerate() {
            let member = i == 1 || i == 2;
            assert_eq!(r.ps("t0"), t, "{}", r.line);
            assert_eq!(r.int("size"), if member { 2 } else { 0 }, "{}", r.line);
            let want = if member { members[i - 1] } else { others };
            assert_eq!(
                r.ps("t1"),
                want,
                "rank {i}, cores {cores:?}: got {}, want {}",
                common::fmt_ps(r.ps("t1")),
                common::fmt_ps(want)
            );
        }
    }
}
