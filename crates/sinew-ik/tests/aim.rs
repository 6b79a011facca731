//! Aim / look-at.

mod common;

use core::f32::consts::FRAC_PI_4;

use common::is_unit;
use glam::{Quat, Vec3};
use sinew_ik::*;

fn head() -> ChainJoint {
    ChainJoint::new(Vec3::new(0.0, 1.6, 0.0), Quat::from_rotation_y(0.3))
}

#[test]
fn aims_forward_at_target_and_up_toward_pole() {
    let params = AimParams::new(Vec3::Z, Vec3::Y, Vec3::ZERO, 0.0, 1.0, None).unwrap();
    let target = Vec3::new(2.0, 2.5, -1.0);
    let r = solve_aim(&head(), target, Vec3::Y, &params).unwrap();
    assert!(r.reached && r.angle_error < 1e-3);
    let rot = head().rotation * r.correction;
    let fwd = rot * Vec3::Z;
    assert!(fwd.dot((target - head().position).normalize()) > 1.0 - 1e-5);
    let up = rot * Vec3::Y;
    // Up lies in the plane of forward and the pole, on the pole's side.
    assert!(up.dot(fwd.cross(Vec3::Y)).abs() < 1e-4 && up.y > 0.0);
}

#[test]
fn offset_line_passes_through_target() {
    let offset = Vec3::new(0.0, 0.07, 0.1);
    let params = AimParams::new(Vec3::Z, Vec3::Y, offset, 0.0, 1.0, None).unwrap();
    let target = Vec3::new(-1.0, 1.2, 2.0);
    let r = solve_aim(&head(), target, Vec3::Y, &params).unwrap();
    assert!(r.reached && r.angle_error < 1e-3);
    let rot = head().rotation * r.correction;
    let origin = head().position + rot * offset;
    assert!((rot * Vec3::Z).dot((target - origin).normalize()) > 1.0 - 1e-5);
    // Inside the offset radius: not reachable, no NaN.
    let r = solve_aim(
        &head(),
        head().position + Vec3::new(0.0, 0.01, 0.0),
        Vec3::Y,
        &params,
    )
    .unwrap();
    assert!(!r.reached && r.correction.is_finite() && r.angle_error.is_finite());
}

#[test]
fn twist_weight_cone_and_degenerate() {
    let base = AimParams::new(Vec3::Z, Vec3::Y, Vec3::ZERO, 0.0, 1.0, None).unwrap();
    let twisted = AimParams::new(Vec3::Z, Vec3::Y, Vec3::ZERO, 0.5, 1.0, None).unwrap();
    let target = Vec3::new(1.0, 1.6, 3.0);
    let a = solve_aim(&head(), target, Vec3::Y, &base).unwrap();
    let b = solve_aim(&head(), target, Vec3::Y, &twisted).unwrap();
    assert!(b.angle_error < 1e-3);
    assert!(
        ((a.correction.inverse() * b.correction).angle_between(Quat::IDENTITY) - 0.5).abs() < 1e-3
    );

    let coned = AimParams::new(Vec3::Z, Vec3::Y, Vec3::ZERO, 0.0, 1.0, Some(FRAC_PI_4)).unwrap();
    let behind =
        head().position + head().rotation * Vec3::new(0.0, 0.0, -3.0) + Vec3::new(0.1, 0.0, 0.0);
    let r = solve_aim(&head(), behind, Vec3::Y, &coned).unwrap();
    assert!(!r.reached);
    assert!((r.correction * Vec3::Z).angle_between(Vec3::Z) <= FRAC_PI_4 + 1e-4);

    let half = AimParams::new(Vec3::Z, Vec3::Y, Vec3::ZERO, 0.0, 0.5, None).unwrap();
    let h = solve_aim(&head(), target, Vec3::Y, &half).unwrap();
    assert!(
        (h.correction.angle_between(Quat::IDENTITY) * 2.0
            - a.correction.angle_between(Quat::IDENTITY))
        .abs()
            < 1e-3
    );

    for (t, pole) in [
        (head().position, Vec3::Y),
        (target, Vec3::ZERO),
        (head().position + Vec3::Y, Vec3::Y),
        (Vec3::splat(1e30), Vec3::Y),
    ] {
        let r = solve_aim(&head(), t, pole, &base).unwrap();
        assert!(
            is_unit(r.correction) && r.angle_error.is_finite(),
            "{t} {pole}"
        );
    }
    assert!(matches!(
        AimParams::new(Vec3::ZERO, Vec3::Y, Vec3::ZERO, 0.0, 1.0, None),
        Err(IkError::InvalidVector {
            name: "forward_local",
            ..
        })
    ));
    assert!(matches!(
        AimParams::new(Vec3::Z, Vec3::Y, Vec3::ZERO, 0.0, 1.0, Some(4.0)),
        Err(IkError::InvalidParameter {
            name: "cone_angle",
            ..
        })
    ));
    assert!(matches!(
        solve_aim(&head(), Vec3::NAN, Vec3::Y, &base),
        Err(IkError::NonFiniteInput { .. })
    ));
}

/// Targets almost behind the forward axis with a pole almost on the aim line, about every
/// side of it: the turn about the aim line is then a ratio of tiny lengths, and the
/// correction's scale must come out finite anyway.
#[test]
fn near_degenerate_pole_and_target_stay_finite() {
    let joint = ChainJoint::new(Vec3::ZERO, Quat::IDENTITY);
    let params = AimParams::new(Vec3::Z, Vec3::Y, Vec3::ZERO, 0.0, 1.0, None).unwrap();
    for behind in [1e-3f32, 0.0447, 0.05, 0.3] {
        let dir = Quat::from_rotation_x(core::f32::consts::PI - behind) * Vec3::Z;
        for tiny in [1e-6f32, 1e-9, 1e-12, 1e-20] {
            for k in 0..16 {
                let angle = k as f32 * core::f32::consts::TAU / 16.0;
                let across = Quat::from_axis_angle(dir, angle) * dir.any_orthonormal_vector();
                let pole = dir + across * tiny;
                let r = solve_aim(&joint, dir * 2.0, pole, &params).unwrap();
                assert!(is_unit(r.correction), "{behind} {tiny} {k}: {r:?}");
                assert!((r.correction * Vec3::Z).dot(dir) > 1.0 - 1e-4, "{r:?}");
            }
        }
    }
}

/// A pole within a few degrees of the aim line (either way along it): the turn about the
/// line is poorly conditioned there (1e-4 relative at 1e-3 rad), but the correction must stay
/// unit to f32 rounding and still aim exactly.
#[test]
fn pole_near_the_aim_line_keeps_the_correction_unit() {
    let offset = Vec3::new(0.05, 0.07, 0.1);
    for (i, rotation) in [
        Quat::IDENTITY,
        Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.0),
        Quat::from_xyzw(-0.8066756, 0.0656984, -0.26133338, 0.52598774),
    ]
    .into_iter()
    .enumerate()
    {
        let joint = ChainJoint::new(Vec3::new(0.4, 1.5, -0.2), rotation);
        let params = AimParams::new(Vec3::Z, Vec3::Y, offset, 0.0, 1.0, None).unwrap();
        let target = Vec3::new(2.0, -1.0, 3.0);
        let aim = (target - joint.position).normalize();
        for sign in [1.0f32, -1.0] {
            for angle in [3e-2f32, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4] {
                for k in 0..8 {
                    let around = k as f32 * core::f32::consts::TAU / 8.0;
                    let across = Quat::from_axis_angle(aim, around) * aim.any_orthonormal_vector();
                    let pole = aim * (sign * angle.cos()) + across * angle.sin();
                    let r = solve_aim(&joint, target, pole, &params).unwrap();
                    let unit = (r.correction.length_squared() - 1.0).abs();
                    assert!(unit <= 1e-6, "{i} {sign} {angle} {k}: |q|² − 1 = {unit:e}");
                    assert!(r.reached && r.angle_error == 0.0, "{r:?}");
                }
            }
        }
    }
}

/// Axes given as tiny vectors are directions all the same: normalised exactly (a subnormal
/// squared length would leave them off unit).
#[test]
fn tiny_parameter_vectors_are_normalised_exactly() {
    let params = AimParams::new(
        Vec3::new(0.0, 0.0, 3e-23),
        Vec3::new(2e-23, 3e-23, 0.0),
        Vec3::ZERO,
        0.0,
        1.0,
        None,
    )
    .unwrap();
    assert!((params.forward_local().length() - 1.0).abs() < 1e-6);
    assert!((params.up_local().length() - 1.0).abs() < 1e-6);
    let hinge = Hinge::new(
        Vec3::new(0.0, 0.0, 3e-23),
        Vec3::new(5e-24, 0.0, 0.0),
        -1.0,
        1.0,
    )
    .unwrap();
    assert!(
        (hinge.axis().length() - 1.0).abs() < 1e-6
            && (hinge.reference().length() - 1.0).abs() < 1e-6
    );
}

/// The solver's composed correction (closed forms for the swing and the products) against
/// the plain composition in f64: `twist · plane · swing`, with the swing from
/// `DQuat::from_rotation_arc` and the plane turn's angle from `atan2`. Random joints, offsets,
/// twists and poles; targets anywhere, and many nearly behind the forward axis, where the
/// closed forms hand over to the general path (`1 + cos` = 1e-2).
#[test]
fn matches_the_plain_composition_in_f64() {
    use common::Rng;
    use glam::{DQuat, DVec3};

    let mut rng = Rng::new(41);
    let mut worst = 0.0f64;
    for case in 0..4000 {
        let joint = ChainJoint::new(rng.direction() * rng.range(0.0, 2.0), rng.quat());
        let forward = rng.direction();
        let up = rng.direction();
        let offset = rng.direction() * rng.range(0.0, 0.2);
        let twist = if case % 3 == 0 {
            0.0
        } else {
            rng.range(-3.0, 3.0)
        };
        let params = AimParams::new(forward, up, offset, twist, 1.0, None).unwrap();
        let pole = rng.direction();
        let distance = rng.range(0.5, 5.0);
        // Every other target within 3–12° of straight behind the offsetted forward (its
        // offset is small against the distance, so roughly behind the forward axis).
        let target_local = if case % 2 == 0 {
            let behind = rng.range(3f32.to_radians(), 12f32.to_radians());
            let tilt = Quat::from_axis_angle(forward.any_orthonormal_vector(), behind);
            Quat::from_axis_angle(forward, rng.range(0.0, core::f32::consts::TAU))
                * (tilt * -forward)
        } else {
            rng.direction()
        } * distance;
        let target = joint.position + joint.rotation * target_local;
        let r = solve_aim(&joint, target, pole, &params).unwrap();
        if !r.reached {
            continue;
        }

        // The reference, in the joint's frame and f64.
        let d64 = |v: Vec3| DVec3::new(v.x.into(), v.y.into(), v.z.into());
        let inverse = joint.rotation.inverse().as_dquat();
        let t = inverse * d64(target - joint.position);
        let (f, u, o) = (d64(forward).normalize(), d64(up).normalize(), d64(offset));
        let foot = o - f * o.dot(f);
        let along = (t.length_squared() - foot.length_squared()).sqrt();
        let (aim, d) = ((foot + f * along).normalize(), t.normalize());
        let swing = DQuat::from_rotation_arc(aim, d);
        let n = swing * aim.cross(u);
        let p = inverse * d64(pole);
        let pn = d.cross(p);
        // A turn about the aim line between two normals is ill-conditioned when either is
        // short: only compare where both are at least 0.1 long.
        if n.length() < 0.1 || pn.length() < 0.1 {
            continue;
        }
        let angle = n.cross(pn).dot(d).atan2(n.dot(pn));
        let expected =
            DQuat::from_axis_angle(d, f64::from(twist)) * DQuat::from_axis_angle(d, angle) * swing;
        let got = r.correction.as_dquat();
        let error = (got - expected).length().min((got + expected).length());
        // f32 rounding (1e-7 relative) is amplified near behind, where the swing's axis and
        // the swung up turn fast with the target (by `1 / (1 + cos)`), and by short normals.
        let bound = 5e-7 + 3e-7 * (1.0 / (1.0 + aim.dot(d)) + 1.0 / (n.length() * pn.length()));
        worst = worst.max(error / bound);
        assert!(
            error < bound,
            "case {case}: {got:?} vs {expected:?} ({error:e} > {bound:e})"
        );
        assert!(is_unit(r.correction), "case {case}: {:?}", r.correction);
    }
    eprintln!("worst error / bound {worst}");
    assert!(worst > 0.0, "no case compared");
}

/// The pole is a direction: its length, from 1e-30 to 3e38, must not change the turn (its
/// products underflowed or overflowed before, and the pole was then silently ignored).
#[test]
fn pole_length_does_not_matter() {
    let params =
        AimParams::new(Vec3::Z, Vec3::Y, Vec3::new(0.0, 0.07, 0.1), 0.4, 1.0, None).unwrap();
    for (rotation, pole) in [
        (Quat::from_rotation_y(0.3), Vec3::new(0.3, 1.0, 0.2)),
        (Quat::from_rotation_y(3.0), Vec3::new(1.0, 0.3, 0.0)),
        (
            Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.0),
            Vec3::new(-0.2, 0.5, 1.0),
        ),
    ] {
        let joint = ChainJoint::new(Vec3::new(0.0, 1.6, 0.0), rotation);
        for target in [Vec3::new(2.0, 2.5, -1.0), Vec3::new(-0.3, 1.2, 4.0)] {
            let unit = solve_aim(&joint, target, pole, &params).unwrap();
            for scale in [1e-30f32, 1e-12, 1e-6, 1e6, 1e18, 1e20, 1e30, 3e38] {
                let r = solve_aim(&joint, target, pole * scale, &params).unwrap();
                let d = (r.correction - unit.correction).length();
                assert!(
                    d < 1e-5,
                    "{rotation} {target} ×{scale:e}: {r:?} vs {unit:?}"
                );
                assert!(is_unit(r.correction) && r.reached && r.angle_error == 0.0);
            }
        }
    }
}

/// Aiming is scale-free: the target and the eye offset scaled together, from 1e-20 (squared
/// distances below f32's normal range) to 1e18, turn the joint the same way.
#[test]
fn target_and_offset_scaled_together_aim_the_same() {
    let rotation = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.0);
    let joint = ChainJoint::new(Vec3::ZERO, rotation);
    let (offset, pole) = (Vec3::new(0.03, 0.07, 0.1), Vec3::new(-0.2, 0.5, 1.0));
    for target in [Vec3::new(2.0, 2.5, -1.0), Vec3::new(-0.3, 1.2, 4.0)] {
        let unit_params = AimParams::new(Vec3::Z, Vec3::Y, offset, 0.2, 1.0, None).unwrap();
        let unit = solve_aim(&joint, target, pole, &unit_params).unwrap();
        for scale in [1e-20f32, 1e-16, 1e-12, 1e-6, 1e6, 1e12, 1e18] {
            let params = AimParams::new(Vec3::Z, Vec3::Y, offset * scale, 0.2, 1.0, None).unwrap();
            let r = solve_aim(&joint, target * scale, pole, &params).unwrap();
            let d = (r.correction - unit.correction).length();
            assert!(d < 1e-5, "{target} ×{scale:e}: {r:?} vs {unit:?}");
            assert!(
                r.reached && is_unit(r.correction) && r.angle_error == 0.0,
                "{r:?}"
            );
        }
    }
}
