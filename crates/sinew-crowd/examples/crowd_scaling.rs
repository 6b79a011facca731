//! Prints the crowd scaling table: 1 to 10,000 instances × 1 and 2 threads, ms per frame and
//! instance-updates per second. Run in release:
//! `cargo run --release -p sinew-crowd --example crowd_scaling`.

use std::time::Instant;

/// Process CPU time (all threads) in seconds, from `/proc/self/stat` (Linux; 0 elsewhere).
/// The build machine is shared, so CPU time shows the work when wall time shows the wait.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

use sinew_humanoid::Humanoid;

#[path = "../tests/common/mod.rs"]
mod common;

fn main() {
    let h = Humanoid::new();
    let model = h.model_with_ik();
    let clip = common::walk_clip(&h);
    println!(
        "humanoid: {} joints, {} IK chains, {} pose constraints; walk clip {} s",
        h.skeleton.len(),
        model.dynamics().ik_chains().len(),
        model.dynamics().pose_constraints().len(),
        clip.duration()
    );
    println!(
        "| instances | threads | ms / frame (wall) | CPU ms / frame | µs / instance | instance-updates / s |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    for n in [1usize, 10, 100, 1_000, 10_000] {
        let mut crowd = common::crowd(&h, &model, &clip, n);
        for threads in [1usize, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool");
            // Enough frames for ~0.5 s of work, after a warm-up.
            let frames = (200_000 / n).clamp(30, 2_000);
            let mut t = 0.0f32;
            for _ in 0..5 {
                t += 1.0 / 60.0;
                pool.install(|| crowd.update(t));
            }
            let mut best = f64::INFINITY;
            let mut cpu = f64::INFINITY;
            for _ in 0..3 {
                let (start, cpu0) = (Instant::now(), cpu_seconds());
                for _ in 0..frames {
                    t += 1.0 / 60.0;
                    pool.install(|| crowd.update(t));
                }
                best = best.min(start.elapsed().as_secs_f64() / frames as f64);
                cpu = cpu.min((cpu_seconds() - cpu0) / frames as f64);
            }
            println!(
                "| {n} | {threads} | {:.3} | {:.3} | {:.2} | {:.0} |",
                best * 1e3,
                cpu * 1e3,
                best * 1e6 / n as f64,
                n as f64 / best
            );
        }
    }
}
