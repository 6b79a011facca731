//! Two-bone limb IK: ik3d's "How a limb reaches".

mod common;

use common::*;
use glam::{Quat, Vec3};
use sinew_ik::*;

fn solve(target: Vec3, pole: Vec3, params: &TwoBoneParams) -> (TwoBoneResult, Vec<ChainJoint>) {
    let arm = arm();
    let r = solve_two_bone(&arm, target, None, pole, params).unwrap();
    (r, fk(&arm, &r.corrections[..2]))
}

#[test]
fn reaches_in_reach_with_lengths_kept_and_elbow_toward_pole() {
    let target = Vec3::new(0.2, 0.3, 0.1);
    for pole in [Vec3::Y, -Vec3::Z, Vec3::new(1.0, -1.0, 0.0)] {
        let (r, out) = solve(target, pole, &TwoBoneParams::default());
        assert!(r.reached && r.short == 0.0);
        assert!((out[2].position - target).length() < 1e-5);
        let arm = arm();
        for k in 0..2 {
            let before = (arm[k + 1].position - arm[k].position).length();
            assert!(((out[k + 1].position - out[k].position).length() - before).abs() < 1e-5);
        }
        // The middle joint lies on the pole's side of the upper→target line.
        let line = target.normalize();
        let off = out[1].position - line * out[1].position.dot(line);
        let pole_perp = pole - line * pole.dot(line);
        assert!(off.dot(pole_perp) > 0.0, "elbow not toward pole {pole}");
    }
}

#[test]
fn out_of_reach_stops_a_margin_short() {
    let arm = arm();
    let l1 = (arm[1].position - arm[0].position).length();
    let l2 = (arm[2].position - arm[1].position).length();
    let target = Vec3::new(0.0, 2.0, 0.0);
    let (r, out) = solve(target, Vec3::Z, &TwoBoneParams::default());
    assert!(!r.reached);
    let expected = 2.0 - (l1 + l2 - 0.001);
    assert!(
        (r.short - expected).abs() < 1e-5,
        "{} vs {expected}",
        r.short
    );
    assert!(((out[2].position - target).length() - r.short).abs() < 1e-4);
    // Too close: no closer than |l1 − l2|.
    let (r, out) = solve(
        Vec3::new(0.0, 0.01, 0.0),
        Vec3::Z,
        &TwoBoneParams::default(),
    );
    assert!(!r.reached && (out[2].position.length() - (l1 - l2).abs()).abs() < 1e-4);
}

#[test]
fn degenerate_inputs_do_not_nan() {
    let arm = arm();
    for (target, pole) in [
        (Vec3::ZERO, Vec3::Y),                 // target at the base
        (Vec3::new(0.3, 0.0, 0.0), Vec3::X),   // pole parallel to the limb line
        (Vec3::new(0.4, 0.0, 0.0), -Vec3::X),  // pole anti-parallel
        (Vec3::new(1e30, 1e30, 0.0), Vec3::Y), // huge target
        (Vec3::new(0.55, 0.0, 0.0), Vec3::Y),  // target exactly at full stretch
    ] {
        let r = solve_two_bone(
            &arm,
            target,
            Some(Quat::from_rotation_y(0.5)),
            pole,
            &TwoBoneParams::default(),
        )
        .unwrap();
        assert!(r.corrections.iter().all(|q| is_unit(*q)), "{target} {pole}");
        assert!(r.short.is_finite());
    }
    // Zero-length bones.
    let flat = [ChainJoint::at(Vec3::ZERO); 3];
    let r = solve_two_bone(&flat, Vec3::X, None, Vec3::Y, &TwoBoneParams::default()).unwrap();
    assert!(r.corrections.iter().all(|q| q.is_finite()));
    assert!((r.short - 1.0).abs() < 1e-6);
}

#[test]
fn target_rotation_weight_and_errors() {
    let arm = arm();
    let target_rotation = Quat::from_rotation_z(1.0);
    let r = solve_two_bone(
        &arm,
        Vec3::new(0.2, 0.3, 0.0),
        Some(target_rotation),
        Vec3::Y,
        &TwoBoneParams::default(),
    )
    .unwrap();
    let mut out = arm;
    apply_corrections(&arm[..], &r.corrections[..2], &mut out).unwrap();
    // End bone's model rotation = (mid's new model rotation) * local_end * c_end.
    let mid_new = out[1].rotation;
    let end_local = arm[1].rotation.inverse() * arm[2].rotation;
    let end_new = mid_new * end_local * r.corrections[2];
    assert!(end_new.dot(target_rotation).abs() > 1.0 - 1e-5);

    let zero = solve_two_bone(
        &arm,
        Vec3::new(0.2, 0.3, 0.0),
        None,
        Vec3::Y,
        &TwoBoneParams::new(0.0, 1.0, 0.001).unwrap(),
    )
    .unwrap();
    assert!(zero
        .corrections
        .iter()
        .all(|q| q.abs_diff_eq(Quat::IDENTITY, 1e-6)));
    let half = solve_two_bone(
        &arm,
        Vec3::new(0.2, 0.3, 0.0),
        None,
        Vec3::Y,
        &TwoBoneParams::new(0.5, 1.0, 0.001).unwrap(),
    )
    .unwrap();
    let full = solve_two_bone(
        &arm,
        Vec3::new(0.2, 0.3, 0.0),
        None,
        Vec3::Y,
        &TwoBoneParams::default(),
    )
    .unwrap();
    assert!(
        (half.corrections[0].angle_between(Quat::IDENTITY) * 2.0
            - full.corrections[0].angle_between(Quat::IDENTITY))
        .abs()
            < 1e-4
    );

    assert!(matches!(
        solve_two_bone(&arm, Vec3::X, None, Vec3::ZERO, &TwoBoneParams::default()),
        Err(IkError::InvalidVector {
            name: "pole_model",
            ..
        })
    ));
    assert!(matches!(
        solve_two_bone(&arm, Vec3::NAN, None, Vec3::Y, &TwoBoneParams::default()),
        Err(IkError::NonFiniteInput {
            name: "target_model",
            ..
        })
    ));
    assert!(matches!(
        TwoBoneParams::new(1.5, 1.0, 0.0),
        Err(IkError::InvalidParameter { name: "weight", .. })
    ));
    assert!(matches!(
        TwoBoneParams::new(1.0, 0.0, 0.0),
        Err(IkError::InvalidParameter { name: "soften", .. })
    ));
    assert!(matches!(
        TwoBoneParams::new(1.0, 1.0, -1.0),
        Err(IkError::InvalidParameter {
            name: "straight_margin",
            ..
        })
    ));
}

#[test]
fn soften_slows_the_approach_to_straight() {
    let soft = TwoBoneParams::new(1.0, 0.8, 0.001).unwrap();
    let (r, out) = solve(Vec3::new(0.0, 0.5, 0.0), Vec3::Z, &soft);
    assert!(!r.reached && r.short > 0.0);
    assert!(out[2].position.length() < 0.5);
    let (r, _) = solve(Vec3::new(0.0, 0.3, 0.0), Vec3::Z, &soft);
    assert!(r.reached, "below the soft start nothing changes");
}

/// A limb with bones `l1` and `l2` long, its upper joint within 0.5 of the origin, bones in
/// random directions and joints in random rotations.
fn random_limb(rng: &mut Rng, l1: f32, l2: f32) -> [ChainJoint; 3] {
    let upper = rng.direction() * 0.5;
    let mid = upper + rng.direction() * l1;
    let end = mid + rng.direction() * l2;
    [
        ChainJoint::new(upper, rng.quat()),
        ChainJoint::new(mid, rng.quat()),
        ChainJoint::new(end, rng.quat()),
    ]
}

/// A pole a hair off the target line (1e-6 to 1e-2 rad, either way along it): the bend
/// plane is then a ratio of tiny lengths, and its part along the target line — rounding —
/// used to tilt the limb out of its plane, missing the target by up to 0.27 on these limbs
/// (0.2–2 long).
#[test]
fn pole_nearly_along_the_target_line_still_reaches() {
    let mut rng = Rng::new(8);
    let mut worst = 0.0f32;
    for k in 0..2000 {
        let (l1, l2) = (rng.range(0.1, 1.0), rng.range(0.1, 1.0));
        let joints = random_limb(&mut rng, l1, l2);
        let upper = joints[0].position;
        let along = rng.direction();
        let target = upper + along * rng.range((l1 - l2).abs() + 0.01, l1 + l2 - 0.01);
        let angle = 10f32.powf(rng.range(-6.0, -2.0));
        let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
        let pole = (along * sign * angle.cos() + along.any_orthonormal_vector() * angle.sin())
            * rng.range(0.5, 4.0);
        let r = solve_two_bone(&joints, target, None, pole, &TwoBoneParams::default()).unwrap();
        assert!(
            r.reached && r.corrections.iter().all(|q| is_unit(*q)),
            "{r:?}"
        );
        let out = fk(&joints, &r.corrections[..2]);
        worst = worst.max((out[2].position - target).length());
    }
    assert!(worst < 2e-5, "worst miss {worst}");
}

/// Bones of about equal length folded onto themselves (target within a millimetre of the
/// upper joint): `l1² − l2²` cancels there unless taken as `(l1 − l2)·(l1 + l2)`, and the
/// cosine then disagrees with the sine taken from Heron's product.
#[test]
fn folded_limb_of_equal_bones_reaches() {
    let mut rng = Rng::new(9);
    let mut worst = 0.0f32;
    for _ in 0..2000 {
        let l1 = rng.range(0.3, 1.0);
        let l2 = l1 * (1.0 + rng.range(-1e-3, 1e-3));
        let joints = random_limb(&mut rng, l1, l2);
        let upper = joints[0].position;
        let target = upper + rng.direction() * rng.range(0.0, 2e-3);
        let r = solve_two_bone(
            &joints,
            target,
            None,
            rng.direction(),
            &TwoBoneParams::default(),
        )
        .unwrap();
        let out = fk(&joints, &r.corrections[..2]);
        let miss = (out[2].position - target).length() - r.short;
        worst = worst.max(miss.abs());
    }
    assert!(worst < 1e-5, "worst miss {worst}");
}

/// A target on the middle joint of a short upper bone over a long lower one: the limb must
/// fold (the upper bone turns a half-turn) with its new direction a few ulps off unit —
/// the shortest arc took that as "nearly" opposite and divided by an axis of zero (NaN;
/// found by the scale proptest).
#[test]
fn folding_a_half_turn_stays_finite() {
    for scale in [1e-6f32, 1.8e-3, 1.0, 1e3, 3e9] {
        for (upper, end) in [
            (Vec3::new(-0.1, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0)),
            (
                Vec3::new(0.6027, -2.5297, -3.8515) - Vec3::new(0.5644, -2.5644, -3.8032),
                Vec3::new(1.0730, -3.7569, -4.8778) - Vec3::new(0.5644, -2.5644, -3.8032),
            ),
        ] {
            let joints = [
                ChainJoint::new(upper * scale, Quat::from_rotation_z(0.4)),
                ChainJoint::new(Vec3::ZERO, Quat::IDENTITY),
                ChainJoint::new(end * scale, Quat::IDENTITY),
            ];
            let params = TwoBoneParams::new(1.0, 1.0, 1e-3 * scale).unwrap();
            let r = solve_two_bone(&joints, Vec3::ZERO, None, Vec3::X, &params).unwrap();
            assert!(r.corrections.iter().all(|q| is_unit(*q)), "×{scale}: {r:?}");
            let out = fk(&joints, &r.corrections[..2]);
            let reach_min = (end.length() - upper.length()).abs() * scale;
            assert!(
                ((out[2].position - out[0].position).length() - reach_min).abs() < 1e-4 * reach_min,
                "×{scale}: {out:?}"
            );
        }
    }
}
