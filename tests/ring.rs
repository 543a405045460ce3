//! Rings of 256 ranks on this small host: a token going around the ring and
//! a shift (every rank MPI_Sendrecv's to its right neighbour each round).
//! Every rank's final MPI_Wtime is checked exactly against the equations
//! (`common::model::token_ring` / `shift_ring` derive them step by step:
//! neighbours i, i + 1 are 0 hops apart inside a block of 12, 3 hops across
//! such blocks inside a block of 192, 5 hops across 192 and from 255 to 0).
//! The wall time and the report's efficiency line are printed (run with
//! `--nocapture` to see them).
mod common;

use common::model;
use common::{fmt_ps, program, report, times_by_rank_op, Run};

const N: u32 = 256;

fn check_ring(mode: &str, count: u32, words: u32, expected: &[u64]) {
    let prog = program("ring");
    let rep = common::scratch().join(format!("ring-{mode}.json"));
    let job = Run::exact(N, &prog)
        .report(&rep)
        .args(&[mode.to_string(), count.to_string(), words.to_string()])
        .run();
    job.assert_success();
    let got = times_by_rank_op(&job.stdout, "ring");
    assert_eq!(got.len(), N as usize, "one line per rank\n{}", job.dump());
    let mut wrong = Vec::new();
    for (rank, &e) in expected.iter().enumerate() {
        let g = got[&(rank as i64, "end".to_string())];
        if g != e {
            wrong.push(format!(
                "rank {rank}: got {}, expected {}",
                fmt_ps(g),
                fmt_ps(e)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}\n{}", wrong.join("\n"), job.dump());

    let predicted = *expected.iter().max().unwrap();
    let json = report::read(&rep);
    assert_eq!(report::predicted_ps(&json), predicted);
    assert_eq!(report::ranks(&json).len(), N as usize);
    let efficiency = json["efficiency"].as_f64().unwrap_or(f64::NAN);
    println!(
        "ring {mode} {count} x {} B over {N} ranks: predicted {}, host wall {:.3} s \
         (mpirun {:.3} s), efficiency {:.1} %",
        4 * words,
        fmt_ps(predicted),
        report::float(&json, "host_wall_s"),
        job.wall.as_secs_f64(),
        efficiency * 100.0
    );
    println!("mpirun's report:\n{}", job.stderr);
}

#[test]
fn token_ring_256() {
    // 3 laps of an 8-byte token (two ints): 768 sequential messages.
    check_ring("token", 3, 2, &model::token_ring(N, 3, 8));
}

#[test]
fn shift_ring_256() {
    // 20 rounds of MPI_Sendrecv of 8 bytes between all neighbours at once.
    check_ring("shift", 20, 2, &model::shift_ring(N, 20, 8));
}

#[test]
fn ring_derivations() {
    // One lap of the token has 256 hops, of which 234 are inside a 12-rank
    // node (L = M(8)), 20 cross nodes inside a 192-rank group (3 hops) and 2
    // cross groups (191 -> 192 and 255 -> 0: 5 hops); each hop costs
    // M(8) + L + M(8).
    let lap = 256 * 2 * model::m(8)
        + 234 * model::m(8)
        + 20 * (model::n(8) + model::l(3))
        + 2 * (model::n(8) + model::l(5));
    let t = model::token_ring(N, 3, 8);
    assert_eq!(t[0], 3 * lap);
    assert_eq!(*t.iter().max().unwrap(), t[0]);
    // Rank 1 gets the token of the last lap one hop (0 hops wide) after
    // rank 0 sent it at 2 laps, then its send takes M(8).
    assert_eq!(t[1], 2 * lap + 3 * model::m(8) + model::m(8));

    // The shift ring: in round 0 everybody starts at 0, rank i's data from
    // i - 1 arrives at M(8) + L(8, hop(i - 1, i)) and is copied out M(8)
    // later. shift_ring asserts that no message falls into an earlier
    // waiting interval of its receiver (the regime these tests cover).
    let one = model::shift_ring(N, 1, 8);
    assert_eq!(one[1], 3 * model::m(8));
    assert_eq!(one[12], 2 * model::m(8) + model::n(8) + model::l(3));
    assert_eq!(one[0], 2 * model::m(8) + model::n(8) + model::l(5));
    let t = model::shift_ring(N, 20, 8);
    assert!(t.iter().zip(&one).all(|(a, b)| a > b));
}
