//! MMD-flavoured CCD.

mod common;

use common::*;
use glam::{EulerRot, Quat, Vec3};
use sinew_ik::*;

#[test]
fn leg_reaches_and_knee_bends_within_limit() {
    let (leg, effector) = mmd_leg();
    let params = CcdParams::default();
    let mut scratch = CcdScratch::new();
    let mut c = [Quat::IDENTITY; 2];
    let target = Vec3::new(0.0, 0.3, 0.3);
    let r = solve_ccd(&leg, effector, target, &params, &mut scratch, &mut c).unwrap();
    assert!(r.residual < 1e-3, "{r:?}");
    // Knee: full local rotation is a pure X rotation within [-π, -0.5°].
    let knee_local = leg[1].local_rotation * c[1];
    let (x, y, z) = knee_local.to_euler(EulerRot::XYZ);
    assert!(
        y.abs() < 1e-5 && z.abs() < 1e-5 && x <= -0.5f32.to_radians() + 1e-5,
        "{x} {y} {z}"
    );
    // FK: effector lands where the residual says.
    let mut joints: Vec<ChainJoint> = leg
        .iter()
        .map(|l| ChainJoint::new(l.position, l.rotation))
        .collect();
    joints.push(ChainJoint::at(effector));
    let out = fk(&joints, &c);
    assert!(((out[2].position - target).length() - r.residual).abs() < 1e-4);
    assert!(((out[1].position - out[0].position).length() - 0.5).abs() < 1e-5);
}

#[test]
fn first_iteration_rule_bends_knee_the_right_way() {
    // From a straight leg the knee must bend with negative X (its allowed side).
    let (leg, effector) = mmd_leg();
    let mut scratch = CcdScratch::new();
    let mut c = [Quat::IDENTITY; 2];
    solve_ccd(
        &leg,
        effector,
        Vec3::new(0.0, 0.2, -0.2),
        &CcdParams::default(),
        &mut scratch,
        &mut c,
    )
    .unwrap();
    let (x, _, _) = (leg[1].local_rotation * c[1]).to_euler(EulerRot::XYZ);
    assert!(x < 0.0);
}

#[test]
fn box_limit_clamps_full_local_rotation() {
    let (mut links, effector) = ccd_chain(4);
    let limit = RotationLimit::new(Vec3::splat(-0.3), Vec3::splat(0.3)).unwrap();
    for l in &mut links {
        l.limit = Some(limit);
        l.local_rotation = Quat::from_rotation_z(0.1);
    }
    let mut scratch = CcdScratch::new();
    let mut c = [Quat::IDENTITY; 4];
    let r = solve_ccd(
        &links,
        effector,
        Vec3::new(0.0, 3.0, 1.0),
        &CcdParams::default(),
        &mut scratch,
        &mut c,
    )
    .unwrap();
    assert!(r.residual.is_finite());
    // A box within ±90° on X is applied in YXZ order (babylon-mmd's choice), so each of those
    // angles is in range.
    for (l, q) in links.iter().zip(c) {
        let (y, x, z) = (l.local_rotation * q).to_euler(EulerRot::YXZ);
        assert!(
            [x, y, z].iter().all(|a| a.abs() <= 0.3 + 1e-4),
            "{x} {y} {z}"
        );
    }
}

#[test]
fn at_target_stays_put_deterministic_and_errors() {
    let (links, effector) = ccd_chain(10);
    let mut scratch = CcdScratch::new();
    let mut c = [Quat::IDENTITY; 10];
    let r = solve_ccd(
        &links,
        effector,
        effector,
        &CcdParams::default(),
        &mut scratch,
        &mut c,
    )
    .unwrap();
    assert_eq!(r.iterations, 0);
    assert!(c.iter().all(|&q| q == Quat::IDENTITY));
    let mut c2 = [Quat::IDENTITY; 10];
    let target = Vec3::new(2.0, 5.0, -3.0);
    let a = solve_ccd(
        &links,
        effector,
        target,
        &CcdParams::default(),
        &mut scratch,
        &mut c,
    )
    .unwrap();
    let b = solve_ccd(
        &links,
        effector,
        target,
        &CcdParams::default(),
        &mut CcdScratch::new(),
        &mut c2,
    )
    .unwrap();
    assert_eq!(a, b);
    assert_eq!(c, c2);
    assert!(matches!(
        solve_ccd(
            &links,
            effector,
            Vec3::NAN,
            &CcdParams::default(),
            &mut scratch,
            &mut c
        ),
        Err(IkError::NonFiniteInput {
            name: "target_model",
            ..
        })
    ));
    assert!(matches!(
        solve_ccd(
            &links,
            effector,
            target,
            &CcdParams::default(),
            &mut scratch,
            &mut c[..3]
        ),
        Err(IkError::LengthMismatch { .. })
    ));
    assert!(matches!(
        CcdParams::new(0, 1.0, 0.0),
        Err(IkError::InvalidCount {
            name: "iterations",
            ..
        })
    ));
    assert!(matches!(
        CcdParams::new(1, 0.0, 0.0),
        Err(IkError::InvalidParameter {
            name: "unit_angle",
            ..
        })
    ));
    assert!(matches!(
        CcdParams::new(1, 1.0, -1.0),
        Err(IkError::InvalidParameter {
            name: "tolerance",
            ..
        })
    ));
}

#[test]
fn degenerate_targets_do_not_nan() {
    let (links, effector) = ccd_chain(3);
    let mut scratch = CcdScratch::new();
    let mut c = [Quat::IDENTITY; 3];
    for target in [
        Vec3::ZERO,
        Vec3::X,
        Vec3::new(-3.0, 0.0, 0.0),
        Vec3::splat(1e30),
        Vec3::new(1.5, 0.0, 0.0),
    ] {
        let r = solve_ccd(
            &links,
            effector,
            target,
            &CcdParams::default(),
            &mut scratch,
            &mut c,
        )
        .unwrap();
        assert!(c.iter().all(|q| is_unit(*q)), "{target}");
        assert!(r.residual.is_finite(), "{target}: {r:?}");
    }
    let (leg, effector) = mmd_leg();
    let mut c = [Quat::IDENTITY; 2];
    for target in [
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(0.0, 0.5, 0.0),
        Vec3::new(0.0, -5.0, 0.0),
        Vec3::new(0.0, 3.0, 0.0),
        Vec3::new(0.0, 0.0, 1e24),
        Vec3::new(3e18, 0.0, 0.0),
    ] {
        let r = solve_ccd(
            &leg,
            effector,
            target,
            &CcdParams::default(),
            &mut scratch,
            &mut c,
        )
        .unwrap();
        assert!(c.iter().all(|q| q.is_finite()), "{target}");
        // Beyond f32's squared range the residual is still the distance, not infinity.
        assert!(r.residual.is_finite(), "{target}: {r:?}");
        // (The far targets lie on an axis: their distance is their largest component;
        // `length()` would overflow.)
        let far = target.abs().max_element();
        if far > 1e6 {
            assert!((r.residual / far - 1.0).abs() < 1e-5, "{r:?}");
            // The leg turned toward the far target.
            let solved = fk(&leg_joints(&leg, effector), &c);
            let pointing = (solved[2].position - solved[0].position).normalize();
            assert!(pointing.dot(target / far) > 0.5, "{pointing}");
        }
    }
}

#[test]
fn absurdly_long_leg_gives_finite_results() {
    // A shin 1e20 long: squared distances overflow f32, the solve must not.
    let (leg, _) = mmd_leg();
    let mut c = [Quat::IDENTITY; 2];
    for effector in [Vec3::new(0.0, -1e20, 0.0), Vec3::new(0.0, -1e19, 0.0)] {
        let r = solve_ccd(
            &leg,
            effector,
            Vec3::new(0.0, 0.0, 5e19),
            &CcdParams::default(),
            &mut CcdScratch::new(),
            &mut c,
        )
        .unwrap();
        assert!(r.residual.is_finite(), "{r:?}");
        assert!(c.iter().all(|q| is_unit(*q)));
    }
}

/// The leg's links as a chain view (the effector keeping the knee's rotation).
fn leg_joints(leg: &[CcdLink; 2], effector: Vec3) -> [ChainJoint; 3] {
    [
        ChainJoint::new(leg[0].position, leg[0].rotation),
        ChainJoint::new(leg[1].position, leg[1].rotation),
        ChainJoint::new(effector, leg[1].rotation),
    ]
}
