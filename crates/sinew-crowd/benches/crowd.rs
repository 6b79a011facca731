//! Crowd frames: the sinew-humanoid rig (64 joints, 2 two-bone legs, 2 FABRIK arms,
//! 2 inheritance constraints) sampling a baked walk, feet on wavy ground, one hand reaching.
//! 1,000 and 10,000 instances on the default rayon pool (all cores) and on one thread.
//! Target: 10,000 instances in ≤ 16 ms per frame on 2 threads.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use sinew_humanoid::Humanoid;

#[path = "../tests/common/mod.rs"]
mod common;

fn bench(c: &mut Criterion) {
    let h = Humanoid::new();
    let model = h.model_with_ik();
    let clip = common::walk_clip(&h);
    let mut g = c.benchmark_group("crowd");
    g.sample_size(20);
    for n in [1_000usize, 10_000] {
        let mut crowd = common::crowd(&h, &model, &clip, n);
        g.throughput(Throughput::Elements(n as u64));
        for threads in [1usize, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool");
            let mut clock = sinew_testkit::BenchClock::new(1.0 / 60.0, clip.duration());
            g.bench_function(format!("{n} instances, {threads} thread(s)"), |b| {
                b.iter(|| {
                    let t = clock.tick();
                    pool.install(|| crowd.update(t));
                    black_box(crowd.all_world());
                });
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
