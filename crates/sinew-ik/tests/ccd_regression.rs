//! MMD CCD outputs pinned to recorded values, so speed work on `solve_ccd` cannot change
//! results silently: every correction must match within 1e-6 and every iteration count exactly.
//! A change meant to move results only by rounding (such as the two-link leg path, itself
//! checked against the general loop in `ccd_leg`'s unit test) is re-recorded with
//! `SINEW_IK_BLESS=1 cargo test -p sinew-ik --test ccd_regression`, which rewrites
//! `tests/data/ccd_regression.txt`.

mod common;

use core::f32::consts::PI;
use std::fmt::Write as _;

use common::*;
use glam::{Quat, Vec3};
use sinew_ik::*;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ccd_regression.txt");

/// One line per solve: case, index, iterations, residual, then the corrections (x y z w).
fn record() -> String {
    let mut out = String::new();
    let mut scratch = CcdScratch::new();
    let mut line = |case: &str,
                    k: usize,
                    links: &[CcdLink],
                    effector: Vec3,
                    target: Vec3,
                    params: &CcdParams| {
        let mut c = vec![Quat::IDENTITY; links.len()];
        let r = solve_ccd(links, effector, target, params, &mut scratch, &mut c).unwrap();
        write!(out, "{case} {k} {} {:?}", r.iterations, r.residual).unwrap();
        for q in c {
            write!(out, " {:?} {:?} {:?} {:?}", q.x, q.y, q.z, q.w).unwrap();
        }
        out.push('\n');
    };

    // The bench's leg and 10-link chain, plus MMD's unchanged loop (tolerance 0).
    let (leg, effector) = mmd_leg();
    let mut rng = Rng::new(5);
    for k in 0..200 {
        let t = random_leg_target(&mut rng);
        line(
            "leg",
            k,
            &leg,
            effector,
            t,
            &CcdParams::new(40, 2.0, 1e-4).unwrap(),
        );
        line(
            "leg_tol0",
            k,
            &leg,
            effector,
            t,
            &CcdParams::new(40, 2.0, 0.0).unwrap(),
        );
    }
    let mut rng = Rng::new(15);
    for k in 0..50 {
        // Out of reach and near the hip too.
        let t = Vec3::new(0.0, 1.0, 0.0) + rng.direction() * rng.range(0.0, 2.5);
        line(
            "leg_any",
            k,
            &leg,
            effector,
            t,
            &CcdParams::new(40, 0.5, 0.0).unwrap(),
        );
    }
    let (chain, effector) = ccd_chain(10);
    let mut rng = Rng::new(6);
    for k in 0..100 {
        let t = rng.direction() * rng.range(1.0, 9.5);
        line(
            "chain10",
            k,
            &chain,
            effector,
            t,
            &CcdParams::new(10, 2.0, 1e-4).unwrap(),
        );
        line(
            "chain10_u02",
            k,
            &chain,
            effector,
            t,
            &CcdParams::new(16, 0.2, 0.0).unwrap(),
        );
    }

    // Euler boxes, a non-identity start, random model rotations.
    let (mut boxed, effector) = ccd_chain(4);
    let limit = RotationLimit::new(Vec3::new(-0.3, -0.6, -0.2), Vec3::new(0.4, 0.3, 0.5)).unwrap();
    for l in &mut boxed {
        l.limit = Some(limit);
        l.local_rotation = Quat::from_rotation_z(0.1);
    }
    let mut rng = Rng::new(7);
    for k in 0..100 {
        let t = rng.direction() * rng.range(0.5, 4.0);
        line(
            "box4",
            k,
            &boxed,
            effector,
            t,
            &CcdParams::new(20, 0.4, 1e-4).unwrap(),
        );
    }

    // Mixed chain: random poses, single-axis limits on each axis, a wide box, a free link.
    let mut rng = Rng::new(8);
    for k in 0..100 {
        let mut links = Vec::new();
        let mut parent = rng.quat();
        let mut p = Vec3::new(rng.range(-1.0, 1.0), rng.range(0.0, 2.0), 0.0);
        let limits = [
            None,
            Some(RotationLimit::new(Vec3::new(0.0, -PI, 0.0), Vec3::new(0.0, -0.01, 0.0)).unwrap()),
            Some(RotationLimit::new(Vec3::new(0.0, 0.0, 0.1), Vec3::new(0.0, 0.0, 2.0)).unwrap()),
            Some(RotationLimit::new(Vec3::splat(-1.2), Vec3::splat(1.0)).unwrap()),
            Some(knee_limit()),
        ];
        for (i, limit) in limits.into_iter().enumerate() {
            let local = if i % 2 == 0 {
                Quat::IDENTITY
            } else {
                Quat::from_axis_angle(rng.direction(), rng.range(0.0, 0.3))
            };
            let rotation = (parent * local).normalize();
            links.push(CcdLink {
                position: p,
                rotation,
                local_rotation: local,
                limit,
            });
            p += rotation * Vec3::new(0.0, -rng.range(0.2, 0.6), 0.0);
            parent = rotation * Quat::from_axis_angle(rng.direction(), rng.range(0.0, 0.2));
        }
        let t = links[0].position + rng.direction() * rng.range(0.1, 2.0);
        let unit = [2.0, 0.5, 0.05][k % 3];
        line(
            "mixed5",
            k,
            &links,
            p,
            t,
            &CcdParams::new(30, unit, 0.0).unwrap(),
        );
    }
    out
}

#[test]
fn ccd_outputs_match_recorded() {
    let now = record();
    if std::env::var_os("SINEW_IK_BLESS").is_some() {
        std::fs::write(DATA, &now).unwrap();
        return;
    }
    let recorded = std::fs::read_to_string(DATA).unwrap();
    let (mut lines, mut worst) = (0, 0.0f32);
    for (a, b) in recorded.lines().zip(now.lines()) {
        lines += 1;
        let (a, b): (Vec<&str>, Vec<&str>) = (a.split(' ').collect(), b.split(' ').collect());
        assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
        assert_eq!(a[..3], b[..3], "case/index/iterations: {a:?} vs {b:?}");
        let num = |s: &str| s.parse::<f32>().unwrap();
        let residual_diff = (num(a[3]) - num(b[3])).abs();
        assert!(residual_diff <= 1e-6, "residual {a:?} vs {b:?}");
        // Corrections: compare as rotations (q and -q are the same rotation).
        for (qa, qb) in a[4..].chunks(4).zip(b[4..].chunks(4)) {
            let qa = Quat::from_xyzw(num(qa[0]), num(qa[1]), num(qa[2]), num(qa[3]));
            let qb = Quat::from_xyzw(num(qb[0]), num(qb[1]), num(qb[2]), num(qb[3]));
            let (va, vb) = (glam::Vec4::from(qa), glam::Vec4::from(qb));
            let d = (va - vb)
                .abs()
                .max_element()
                .min((va + vb).abs().max_element());
            worst = worst.max(d);
            assert!(d <= 1e-6, "correction {qa} vs {qb} in {a:?}");
        }
    }
    assert_eq!(lines, recorded.lines().count());
    assert_eq!(lines, now.lines().count());
    eprintln!("{lines} solves, worst component difference {worst:e}");
}
