//! Helpers shared by the core benches.

/// Minimum over many short batches, in ns per joint: robust on a shared, loaded machine where
/// criterion's mean drifts with other processes. Printed before the criterion run.
pub fn min_ns_per_joint(joints: usize, mut f: impl FnMut()) -> f64 {
    const BATCH: u32 = 64;
    let mut best = f64::INFINITY;
    for _ in 0..3000 {
        let start = std::time::Instant::now();
        for _ in 0..BATCH {
            f();
        }
        best = best.min(start.elapsed().as_nanos() as f64 / f64::from(BATCH));
    }
    best / joints as f64
}
