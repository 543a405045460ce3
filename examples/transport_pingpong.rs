//! Round-trip time of the host transport between two processes.
//!
//! `cargo run --release --example transport_pingpong [ROUNDS] [BYTES]`: the
//! parent creates a two-rank segment and runs itself again as rank 1; the two
//! bounce a record ROUNDS times, each waiting with `wait_incoming` (so a rank
//! that gets there first sleeps on its doorbell), holding one of `cores = 1`
//! core tokens while running.
use std::time::Instant;
use vaced::transport::{Port, Segment, SegmentConfig};

fn play(name: &str, rank: u32, rounds: u64, bytes: usize) {
    let mut port = Port::new(Segment::attach(name).expect("attach"), rank);
    port.acquire_token();
    let msg = vec![rank as u8; bytes];
    let mut rec = Vec::new();
    for _ in 0..rounds {
        if rank == 0 {
            port.send(1, &[&msg]);
        }
        port.wait_incoming();
        assert!(port.try_recv(&mut rec) && rec.len() == bytes);
        if rank == 1 {
            port.send(0, &[&msg]);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let bytes: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(8);
    if let Ok(name) = std::env::var("VACED_PINGPONG_SEGMENT") {
        play(&name, 1, rounds, bytes);
        return;
    }
    let name = format!("/vaced-pingpong-{}", std::process::id());
    let cfg = SegmentConfig {
        nranks: 2,
        cores: 1,
        inbox_bytes: 256 * 1024,
        flow_slots: 0,
    };
    let seg = Segment::create(&name, &cfg).expect("create segment");
    assert!(
        bytes <= seg.max_record(),
        "at most {} bytes",
        seg.max_record()
    );
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(&args[1..])
        .env("VACED_PINGPONG_SEGMENT", &name)
        .spawn()
        .expect("spawn rank 1");
    let start = Instant::now();
    play(&name, 0, rounds, bytes);
    let took = start.elapsed();
    let ok = child.wait().map(|s| s.success()).unwrap_or(false);
    Segment::unlink(&name).expect("unlink segment");
    assert!(ok, "rank 1 failed");
    println!(
        "{rounds} round trips of {bytes} B: {:.2} us each",
        took.as_secs_f64() * 1e6 / rounds as f64
    );
}
