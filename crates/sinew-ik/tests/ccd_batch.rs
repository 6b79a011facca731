//! `CcdBatch`: many chains in SIMD lanes give, chain for chain, the bits `solve_ccd` gives.

mod common;

use common::*;
use glam::{Quat, Vec3};
use sinew_ik::*;

fn bits(q: &[Quat]) -> Vec<u32> {
    q.iter()
        .flat_map(|q| q.to_array().map(f32::to_bits))
        .collect()
}

/// A random chain of `shape`'s limits: random link rotations and offsets.
fn chain(rng: &mut Rng, shape: &[Option<RotationLimit>]) -> (Vec<CcdLink>, Vec3) {
    let mut position = rng.direction() * rng.range(0.0, 1.0);
    let mut rotation = Quat::from_axis_angle(rng.direction(), rng.range(0.0, 3.0));
    let links = shape
        .iter()
        .map(|&limit| {
            let local = Quat::from_axis_angle(rng.direction(), rng.range(0.0, 1.5));
            let link = CcdLink {
                position,
                rotation,
                local_rotation: local,
                limit,
            };
            position += rotation * (rng.direction() * rng.range(0.3, 1.0));
            rotation *= Quat::from_axis_angle(rng.direction(), rng.range(0.0, 1.0));
            link
        })
        .collect();
    let effector = position + rotation * (rng.direction() * rng.range(0.0, 0.8));
    (links, effector)
}

/// Shapes: the MMD leg, free chains, one-axis limits about each axis (reflected in the first
/// half), box limits (the lane-by-lane Euler path), fixed links.
fn shapes() -> Vec<Vec<Option<RotationLimit>>> {
    let axis = |a: usize, lo: f32, hi: f32| {
        let (mut min, mut max) = (Vec3::ZERO, Vec3::ZERO);
        min[a] = lo;
        max[a] = hi;
        Some(RotationLimit::new(min, max).unwrap())
    };
    let boxed = Some(RotationLimit::new(Vec3::splat(-0.6), Vec3::new(0.4, 0.8, 0.3)).unwrap());
    let fixed = Some(RotationLimit::new(Vec3::ZERO, Vec3::ZERO).unwrap());
    let knee = axis(0, -std::f32::consts::PI, -0.5f32.to_radians());
    vec![
        vec![None, knee],
        vec![None],
        vec![None, None, None, None],
        vec![axis(1, -1.0, 1.2), None, axis(2, 0.2, 2.5)],
        vec![None, boxed, knee],
        vec![knee, fixed, None],
        vec![None; 10],
    ]
}

#[test]
fn batch_gives_solve_ccd_bits() {
    let mut rng = Rng::new(0xba7c);
    let mut scratch = CcdScratch::new();
    let (mut solved, mut sweeps, mut at_once) = (0, 0, 0);
    for (s, shape) in shapes().iter().enumerate() {
        for (iterations, tolerance) in [(40, 1e-4), (10, 1e-3), (7, 0.0)] {
            let params = CcdParams::new(iterations, 0.3 + s as f32 * 0.3, tolerance).unwrap();
            let mut batch = CcdBatch::new(shape, params);
            // More chains than lanes, so that finished lanes are refilled.
            let chains: Vec<_> = (0..53)
                .map(|k| {
                    let (links, effector) = chain(&mut rng, shape);
                    let target = match k % 5 {
                        // Already there: done at push.
                        0 => effector,
                        // Out of reach.
                        1 => rng.direction() * 30.0,
                        _ => links[0].position + rng.direction() * rng.range(0.1, 2.0),
                    };
                    (links, effector, target)
                })
                .collect();
            for (links, effector, target) in &chains {
                batch.push(links, *effector, *target).unwrap();
            }
            batch.solve();
            assert_eq!(batch.len(), chains.len());
            for (j, (links, effector, target)) in chains.iter().enumerate() {
                let mut c = vec![Quat::IDENTITY; links.len()];
                let alone =
                    solve_ccd(links, *effector, *target, &params, &mut scratch, &mut c).unwrap();
                let r = batch.result(j);
                assert_eq!(bits(batch.corrections(j)), bits(&c), "shape {s} chain {j}");
                assert_eq!(r.iterations, alone.iterations, "shape {s} chain {j}");
                assert_eq!(r.residual.to_bits(), alone.residual.to_bits());
                assert_eq!(r.satisfied, alone.satisfied);
                solved += usize::from(r.satisfied);
                sweeps += r.iterations;
                at_once += usize::from(r.iterations == 0);
            }
        }
    }
    // The chains were solved, some reached their targets, some were done at push.
    assert!(sweeps > 10_000, "{sweeps} sweeps");
    // Tolerance 0 leaves no chain done at push.
    assert!(
        solved > 300 && at_once == 7 * 2 * 11,
        "{solved} solved, {at_once} at once"
    );
}

#[test]
fn leg_bench_case_in_one_batch() {
    let (leg, effector, params, targets) = ccd_leg_case();
    let mut batch = CcdBatch::new(&[leg[0].limit, leg[1].limit], params);
    let mut scratch = CcdScratch::new();
    for round in 0..2 {
        // A second round reuses the buffers.
        batch.clear();
        for &t in &targets {
            batch.push(&leg, effector, t).unwrap();
        }
        batch.solve();
        for (j, &t) in targets.iter().enumerate() {
            let mut c = [Quat::IDENTITY; 2];
            let alone = solve_ccd(&leg, effector, t, &params, &mut scratch, &mut c).unwrap();
            assert_eq!(
                bits(batch.corrections(j)),
                bits(&c),
                "round {round} target {j}"
            );
            assert_eq!(batch.result(j), alone);
        }
    }
    // Solving again is a no-op: nothing is pending.
    let before = batch.result(7);
    batch.solve();
    assert_eq!(batch.result(7), before);
}

#[test]
fn batch_refuses_bad_chains() {
    let (leg, effector) = mmd_leg();
    let params = CcdParams::default();
    let mut batch = CcdBatch::new(&[leg[0].limit, leg[1].limit], params);
    assert!(matches!(
        batch.push(&leg[..1], effector, Vec3::ONE),
        Err(IkError::LengthMismatch { .. })
    ));
    assert!(matches!(
        batch.push(&[], effector, Vec3::ONE),
        Err(IkError::EmptyChain { .. })
    ));
    let mut other = leg;
    other[1].limit = None;
    assert!(matches!(
        batch.push(&other, effector, Vec3::ONE),
        Err(IkError::ShapeMismatch { index: 1, .. })
    ));
    assert!(matches!(
        batch.push(&leg, effector, Vec3::new(f32::NAN, 0.0, 0.0)),
        Err(IkError::NonFiniteInput { .. })
    ));
    let mut bad = leg;
    bad[0].rotation = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    assert!(matches!(
        batch.push(&bad, effector, Vec3::ONE),
        Err(IkError::NonFiniteInput { .. })
    ));
    // Nothing refused was added.
    assert!(batch.is_empty());
    batch.solve();
}
