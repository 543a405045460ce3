//! The `--report FILE.json` output: the predicted time is the maximum of
//! the ranks' final virtual times, and every rank's final virtual time is
//! there (64 entries for a 64-rank job). Checked on a token ring whose times
//! are derived exactly (`common::model::token_ring`).
mod common;

use common::model;
use common::{program, report, Run};

#[test]
fn report_of_64_rank_ring() {
    const N: u32 = 64;
    // 2 laps of an 8-byte token. Over 64 ranks, one lap has 58 hops inside a
    // 12-rank node, and 6 between nodes (12, 24, 36, 48, 60 and 63 -> 0, all
    // inside the first 192-rank group: 3 hops).
    let expected = model::token_ring(N, 2, 8);
    let lap = 64 * 2 * model::m(8) + 58 * model::m(8) + 6 * (model::n(8) + model::l(3));
    assert_eq!(expected[0], 2 * lap);
    let predicted = *expected.iter().max().unwrap();
    // The last rank to finish is rank 0 (it receives the token last).
    assert_eq!(predicted, expected[0]);

    let out = common::scratch().join("report-64.json");
    let _ = std::fs::remove_file(&out);
    let job = Run::exact(N, &program("ring"))
        .report(&out)
        .args(&["token", "2", "2"])
        .run();
    job.assert_success();

    let json = report::read(&out);
    assert_eq!(
        report::predicted_ps(&json),
        predicted,
        "in {}",
        out.display()
    );
    assert_eq!(report::uint(&json, "nranks"), N as u64);
    assert_eq!(report::uint(&json, "slowest_rank"), 0);
    let ranks = report::ranks(&json);
    assert_eq!(ranks.len(), N as usize, "one entry per rank");
    for (i, r) in ranks.iter().enumerate() {
        assert_eq!(
            report::vtime_ps(r),
            expected[i],
            "rank {i}'s final virtual time"
        );
        // cpu.scale = 0 and no MPIX_Vaced_compute: no computation at all.
        assert_eq!(report::float(r, "compute_s"), 0.0, "rank {i}");
        assert_eq!(
            report::uint(r, "msgs_sent"),
            2,
            "rank {i} sent the token twice"
        );
    }
    assert_eq!(report::uint(&json, "msgs_sent"), 2 * N as u64);
    assert!(report::float(&json, "host_wall_s") > 0.0);
    let eff = report::float(&json, "efficiency");
    assert!(eff.is_finite() && eff >= 0.0, "efficiency {eff}");

    // The printed times agree with the report.
    let printed = common::times_by_rank_op(&job.stdout, "ring");
    for (i, e) in expected.iter().enumerate() {
        assert_eq!(printed[&(i as i64, "end".to_string())], *e, "rank {i}");
    }

    // The stderr table gives the exact prediction too.
    let exact = report::exact_secs(predicted);
    assert!(
        job.stderr.contains("predicted") && job.stderr.contains(&exact),
        "no `predicted ... {exact}` on stderr:\n{}",
        job.stderr
    );
}
