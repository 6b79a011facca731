//! Property tests over random chains and targets, degenerate ones included.

mod common;

use core::f32::consts::PI;

use common::strategies::{quat, unit, vec3};
use common::*;
use glam::{Quat, Vec3};
use proptest::prelude::*;
use sinew_ik::*;

/// A random chain: base anywhere, 1..7 links, lengths possibly zero, arbitrary bone rolls.
fn chain() -> impl Strategy<Value = Vec<ChainJoint>> {
    (
        vec3(5.0),
        prop::collection::vec(
            (
                unit(),
                prop_oneof![1 => Just(0.0f32), 6 => 0.05f32..2.0],
                quat(),
            ),
            1..7,
        ),
    )
        .prop_map(|(base, segs)| {
            let mut p = base;
            let mut joints = Vec::new();
            for (d, l, roll) in &segs {
                joints.push(ChainJoint::new(
                    p,
                    Quat::from_rotation_arc(Vec3::X, *d) * *roll,
                ));
                p += *d * *l;
            }
            joints.push(ChainJoint::new(p, Quat::IDENTITY));
            joints
        })
}

fn target() -> impl Strategy<Value = Vec3> {
    prop_oneof![6 => vec3(15.0), 1 => Just(Vec3::ZERO), 1 => vec3(1e25)]
}

fn reach(joints: &[ChainJoint]) -> f32 {
    joints
        .windows(2)
        .map(|w| (w[1].position - w[0].position).length())
        .sum()
}

fn check_lengths(before: &[ChainJoint], after: &[ChainJoint]) -> Result<(), TestCaseError> {
    for (la, lb) in bone_lengths(before, after) {
        prop_assert!(
            (la - lb).abs() <= 1e-4 * (1.0 + la),
            "length {} -> {}",
            la,
            lb
        );
    }
    Ok(())
}

/// `joints` scaled by `10^exponent` about joint `near` (clamped), which is put at the origin
/// so that offsets far below the bones' size stay representable, and a target `offset` times
/// `10^offset_exponent` of that scale from it; with the scale.
fn scaled_about(
    joints: &[ChainJoint],
    near: usize,
    exponent: f32,
    offset: Vec3,
    offset_exponent: f32,
) -> (Vec<ChainJoint>, Vec3, f32) {
    let scale = 10f32.powf(exponent);
    let origin = joints[near.min(joints.len() - 1)].position;
    let scaled = joints
        .iter()
        .map(|j| ChainJoint::new((j.position - origin) * scale, j.rotation))
        .collect();
    (
        scaled,
        offset * (scale * 10f32.powf(offset_exponent)),
        scale,
    )
}

fn fabrik(
    joints: &[ChainJoint],
    links: &[FabrikLink],
    t: Vec3,
    p: &FabrikParams,
) -> (SolveResult, Vec<Quat>) {
    let mut c = vec![Quat::IDENTITY; links.len()];
    let r = solve_fabrik(joints, links, t, p, &mut FabrikScratch::new(), &mut c).unwrap();
    (r, c)
}

/// Whether `q` lies in `limit` decomposed in the Euler order babylon-mmd applies it in (YXZ when
/// X's range is within ±90°, else ZYX when Y's is, else XZY), within 1e-3 rad. A box whose
/// middle axis reaches past ±88° (the solver clamps that angle to ±88° before limiting, and
/// the limit may then put it past 90°, where the rotation has another decomposition) is not
/// judged.
fn in_box(q: Quat, limit: RotationLimit) -> bool {
    use glam::EulerRot;
    let (min, max) = (limit.min(), limit.max());
    let h = core::f32::consts::FRAC_PI_2;
    let order = if -h < min.x && max.x < h {
        0
    } else if -h < min.y && max.y < h {
        1
    } else {
        2
    };
    let middle = [0, 1, 2][order];
    if min[middle] < -88f32.to_radians() || max[middle] > 88f32.to_radians() {
        return true;
    }
    let (x, y, z) = match order {
        0 => {
            let (y, x, z) = q.to_euler(EulerRot::YXZ);
            (x, y, z)
        }
        1 => {
            let (z, y, x) = q.to_euler(EulerRot::ZYX);
            (x, y, z)
        }
        _ => {
            let (x, z, y) = q.to_euler(EulerRot::XZY);
            (x, y, z)
        }
    };
    let e = Vec3::new(x, y, z);
    // An axis limited to [0, 0] is rebuilt as the identity whatever its angle.
    (0..3).all(|i| {
        (min[i] == 0.0 && max[i] == 0.0) || (e[i] >= min[i] - 1e-3 && e[i] <= max[i] + 1e-3)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { max_global_rejects: 1 << 20, ..ProptestConfig::default() })]

    #[test]
    fn fabrik_unconstrained_is_sane(joints in chain(), t in target()) {
        let links = vec![FabrikLink::FREE; joints.len() - 1];
        let p = FabrikParams::default();
        let (r, c) = fabrik(&joints, &links, t, &p);
        prop_assert!(r.residual.is_finite() && c.iter().all(|q| is_unit(*q)));
        let out = fk(&joints, &c);
        check_lengths(&joints, &out)?;
        let fk_residual = (out.last().unwrap().position - t).length();
        if t.abs().max_element() < 1e3 {
            prop_assert!((fk_residual - r.residual).abs() <= 1e-3 * (1.0 + reach(&joints)), "{} vs {}", fk_residual, r.residual);
        }
        // Deterministic.
        let (r2, c2) = fabrik(&joints, &links, t, &p);
        prop_assert_eq!(r, r2);
        prop_assert_eq!(c, c2);
    }

    #[test]
    fn fabrik_reaches_reachable_targets(joints in chain(), dirs in prop::collection::vec(unit(), 6)) {
        // A target the same chain can reach: its effector in another pose.
        let n = joints.len() - 1;
        let mut t = joints[0].position;
        for i in 0..n {
            t += dirs[i] * (joints[i + 1].position - joints[i].position).length();
        }
        // FABRIK converges only linearly for targets at the fold limit (the chain doubled back
        // on its longest bone); keep 20% of the reach away from that singular shell.
        let longest = joints.windows(2).map(|w| (w[1].position - w[0].position).length()).fold(0.0, f32::max);
        let min_reach = (2.0 * longest - reach(&joints)).max(0.0);
        prop_assume!((t - joints[0].position).length() > min_reach + 0.2 * reach(&joints));
        let links = vec![FabrikLink::FREE; n];
        let tol = 1e-3 * (1.0 + reach(&joints));
        let p = FabrikParams::new(256, tol, PI).unwrap();
        let (r, c) = fabrik(&joints, &links, t, &p);
        // FABRIK converges linearly; in about 1 case in 5000 it is still creeping in after 256
        // iterations. Those must at least be within 10 × tolerance.
        prop_assert!(r.residual <= 10.0 * tol, "{:?}", r);
        prop_assert!((fk(&joints, &c).last().unwrap().position - t).length() <= r.residual + 1e-4 * (1.0 + reach(&joints)));
    }

    #[test]
    fn fabrik_unreachable_residual_is_distance_minus_reach(joints in chain(), d in unit(), extra in 0.01f32..50.0) {
        let n = joints.len() - 1;
        let l = reach(&joints);
        let t = joints[0].position + d * (l + extra);
        let (r, _) = fabrik(&joints, &vec![FabrikLink::FREE; n], t, &FabrikParams::default());
        prop_assert!((r.residual - extra).abs() <= 1e-4 * (1.0 + l + extra), "{} vs {}", r.residual, extra);
    }

    #[test]
    fn fabrik_at_target_stays_put(joints in chain(), nudge in vec3(5e-5)) {
        let n = joints.len() - 1;
        let t = joints[n].position + nudge;
        let links: Vec<FabrikLink> = (0..n).map(|i| if i % 2 == 0 { FabrikLink::FREE } else { rotor_links(1)[0] }).collect();
        let (r, c) = fabrik(&joints, &links, t, &FabrikParams::default());
        prop_assert_eq!(r.iterations, 0);
        prop_assert!(c.iter().all(|&q| q == Quat::IDENTITY));
    }

    #[test]
    fn fabrik_rotors_hold(bones in 1usize..8, angle in 0.0f32..PI, t in target()) {
        let joints = straight_chain(bones, 1.0);
        let links = vec![FabrikLink::with_joint(IkJoint::Rotor(Rotor::new(angle).unwrap())); bones];
        let (r, c) = fabrik(&joints, &links, t, &FabrikParams::default());
        prop_assert!(r.residual.is_finite());
        let out = fk(&joints, &c);
        let mut prev = Vec3::X;
        for w in out.windows(2) {
            let d = (w[1].position - w[0].position).normalize();
            prop_assert!(d.angle_between(prev) <= angle + 2e-3, "{} > {}", d.angle_between(prev), angle);
            prev = d;
        }
    }

    #[test]
    fn fabrik_hinges_hold(bones in 1usize..8, min in -PI..0.0f32, max in 0.0f32..PI, t in target()) {
        let joints = straight_chain(bones, 1.0);
        let h = Hinge::new(Vec3::Z, Vec3::X, min, max).unwrap();
        let links = vec![FabrikLink::with_joint(IkJoint::Hinge(h)); bones];
        let (r, c) = fabrik(&joints, &links, t, &FabrikParams::default());
        prop_assert!(r.residual.is_finite());
        let out = fk(&joints, &c);
        let mut prev = Vec3::X;
        for w in out.windows(2) {
            let d = (w[1].position - w[0].position).normalize();
            prop_assert!(d.z.abs() < 1e-3, "left plane {}", d);
            let a = prev.cross(d).z.atan2(prev.dot(d));
            prop_assert!(a >= min - 2e-3 && a <= max + 2e-3, "{} not in [{}, {}]", a, min, max);
            prev = d;
        }
    }

    /// Any scale (bones from 1e-7 to 6e9 long) and targets from the chain's size down to 1e-40
    /// of it beside a joint: free, rotor, hinge, Euler-box and mixed chains, with or without a
    /// step cap, stay finite, unit and length-preserving.
    #[test]
    fn fabrik_any_scale_is_sane(
        joints in chain(),
        exponent in -6.0f32..9.5,
        near in 0usize..8,
        offset in vec3(1.0),
        offset_exponent in -40.0f32..0.5,
        kind in 0usize..5,
        angles in prop::collection::vec(-PI..PI, 1..7),
        step in prop_oneof![Just(PI), 0.01f32..PI],
    ) {
        // Hinges about bone-local Z over a chain in the XY plane: the hinge chains' own passes.
        let joints = if kind == 2 {
            let dirs: Vec<Vec3> = angles.iter().map(|a| Vec3::new(a.cos(), a.sin(), 0.0)).collect();
            chain_from_directions(&dirs, 1.0)
        } else {
            joints
        };
        let (joints, t, scale) = scaled_about(&joints, near, exponent, offset, offset_exponent);
        let n = joints.len() - 1;
        let links = match kind {
            0 => vec![FabrikLink::FREE; n],
            1 => rotor_links(n),
            2 => hinge_links(n),
            // Euler boxes (the general passes with frames), and a mix of everything.
            3 => vec![FabrikLink::with_limit(RotationLimit::new(Vec3::splat(-0.5), Vec3::new(0.3, 0.7, 0.2)).unwrap()); n],
            _ => (0..n)
                .map(|i| match i % 3 {
                    0 => rotor_links(1)[0],
                    1 => FabrikLink::with_limit(RotationLimit::new(Vec3::splat(-1.0), Vec3::splat(1.0)).unwrap()),
                    _ => FabrikLink::FREE,
                })
                .collect(),
        };
        // A step cap too, sometimes (the capped passes).
        let params = FabrikParams::new(32, 1e-4 * scale, step).unwrap();
        let (r, c) = fabrik(&joints, &links, t, &params);
        prop_assert!(r.residual.is_finite(), "{:?}", r);
        prop_assert!(c.iter().all(|q| is_unit(*q)), "{:?}", c);
        let out = fk(&joints, &c);
        for (la, lb) in bone_lengths(&joints, &out) {
            prop_assert!((la - lb).abs() <= 1e-4 * la + 1e-5 * scale, "length {} -> {}", la, lb);
        }
    }

    #[test]
    fn fabrik_euler_boxes_hold(joints in chain(), lo in vec3(1.5), span in vec3(1.5), t in target()) {
        let min = lo.min(Vec3::ZERO);
        let limit = RotationLimit::new(min, min + span.abs()).unwrap();
        let n = joints.len() - 1;
        let (r, c) = fabrik(&joints, &vec![FabrikLink::with_limit(limit); n], t, &FabrikParams::default());
        prop_assert!(r.residual.is_finite());
        for q in c {
            // A chain already at its target stays put even if the box excludes identity.
            prop_assert!(q.is_finite() && (r.iterations == 0 || limit.contains(q, 1e-3)));
        }
    }

    #[test]
    fn two_bone_props(
        upper in vec3(2.0), a in unit(), b in unit(), l1 in prop_oneof![1 => Just(0.0f32), 8 => 0.05f32..1.0],
        l2 in prop_oneof![1 => Just(0.0f32), 8 => 0.05f32..1.0], rolls in (quat(), quat(), quat()),
        t in target(), pole in prop_oneof![4 => unit(), 1 => Just(Vec3::X)],
    ) {
        let mid = upper + a * l1;
        let end = mid + b * l2;
        let joints = [
            ChainJoint::new(upper, rolls.0),
            ChainJoint::new(mid, rolls.1),
            ChainJoint::new(end, rolls.2),
        ];
        let t = if t == Vec3::ZERO { upper } else { t };
        let params = TwoBoneParams::default();
        let r = solve_two_bone(&joints, t, None, pole, &params).unwrap();
        prop_assert!(r.corrections.iter().all(|q| is_unit(*q)) && r.short.is_finite());
        let out = fk(&joints, &r.corrections[..2]);
        check_lengths(&joints, &out)?;
        let d = (t - upper).length();
        if t.abs().max_element() < 1e3 {
            let lo = (l1 - l2).abs();
            let hi = (l1 + l2 - 0.001).max(lo);
            if d >= lo && d <= hi {
                prop_assert!(r.reached);
                prop_assert!((out[2].position - t).length() < 1e-4);
            } else {
                prop_assert!(!r.reached);
                let expected = if d < lo { lo - d } else { d - hi };
                prop_assert!((r.short - expected).abs() < 1e-4, "{} vs {}", r.short, expected);
            }
        }
        prop_assert_eq!(r, solve_two_bone(&joints, t, None, pole, &params).unwrap());
    }

    #[test]
    fn ccd_props(
        joints in chain(), t in target(), limits in prop::collection::vec((0u8..3, vec3(2.0), vec3(2.0)), 6),
        iterations in 1u32..50, unit_angle in 0.01f32..3.0,
    ) {
        let n = joints.len() - 1;
        let links: Vec<CcdLink> = (0..n).map(|i| {
            let (kind, lo, span) = limits[i];
            let limit = match kind {
                0 => None,
                1 => Some(RotationLimit::new(lo.min(Vec3::ZERO), lo.min(Vec3::ZERO) + span.abs()).unwrap()),
                _ => Some(RotationLimit::new(Vec3::new(-span.x.abs() - 0.1, 0.0, 0.0), Vec3::new(-0.01, 0.0, 0.0)).unwrap()),
            };
            let local = if i == 0 { joints[0].rotation } else { joints[i - 1].rotation.inverse() * joints[i].rotation };
            CcdLink { position: joints[i].position, rotation: joints[i].rotation, local_rotation: local, limit }
        }).collect();
        let params = CcdParams::new(iterations, unit_angle, 1e-4).unwrap();
        let mut c = vec![Quat::IDENTITY; n];
        let r = solve_ccd(&links, joints[n].position, t, &params, &mut CcdScratch::new(), &mut c).unwrap();
        prop_assert!(r.residual.is_finite() && c.iter().all(|q| is_unit(*q)));
        let out = fk(&joints, &c);
        check_lengths(&joints, &out)?;
        if t.abs().max_element() < 1e3 && r.iterations > 0 {
            let fk_residual = (out[n].position - t).length();
            prop_assert!((fk_residual - r.residual).abs() <= 1e-3 * (1.0 + reach(&joints)), "{} vs {}", fk_residual, r.residual);
        }
        // babylon-mmd limits each link's full local rotation after every step, so a limited link
        // ends inside its box (in the Euler order it is applied in).
        for (l, q) in links.iter().zip(&c) {
            if let (Some(limit), true) = (l.limit, *q != Quat::IDENTITY) {
                prop_assert!(in_box(l.local_rotation * *q, limit), "{:?}", (l.local_rotation * *q).to_euler(glam::EulerRot::XYZ));
            }
        }
        let mut c2 = vec![Quat::IDENTITY; n];
        let r2 = solve_ccd(&links, joints[n].position, t, &params, &mut CcdScratch::new(), &mut c2).unwrap();
        prop_assert_eq!(r, r2);
        prop_assert_eq!(&c, &c2);
        // Solved in SIMD lanes beside other chains, the chain gives the same result.
        let limits: Vec<_> = links.iter().map(|l| l.limit).collect();
        let mut batch = CcdBatch::new(&limits, params);
        for k in 0..3 {
            batch.push(&links, joints[n].position, t + Vec3::splat(k as f32)).unwrap();
        }
        batch.solve();
        prop_assert_eq!(batch.result(0), r);
        prop_assert_eq!(batch.corrections(0), &c[..]);
    }

    /// MMD legs (a free thigh over a knee limited about one axis whose local rotation is a
    /// turn about it).
    #[test]
    fn ccd_leg_props(
        hip in vec3(3.0), thigh in quat(), bend in quat(), axis in 0usize..3,
        lengths in (0.0f32..1.5, 0.0f32..1.5), directions in (unit(), unit()),
        range in (-PI..PI, -PI..PI), start in 0.0f32..=1.0, t in target(),
        iterations in 1u32..50, unit_angle in 0.01f32..4.0, tolerance in prop_oneof![Just(0.0f32), Just(1e-4f32)],
    ) {
        let (lo, hi) = (range.0.min(range.1), range.0.max(range.1));
        let (mut min, mut max) = (Vec3::ZERO, Vec3::ZERO);
        min[axis] = lo;
        max[axis] = hi;
        let limit = RotationLimit::new(min, max).unwrap();
        let knee_local = Quat::from_axis_angle(Vec3::AXES[axis], lo + (hi - lo) * start);
        let knee_rotation = (thigh * bend * knee_local).normalize();
        let knee = hip + directions.0 * lengths.0;
        let joints = [
            ChainJoint::new(hip, thigh),
            ChainJoint::new(knee, knee_rotation),
            ChainJoint::new(knee + directions.1 * lengths.1, knee_rotation),
        ];
        let links = [
            CcdLink { position: hip, rotation: thigh, local_rotation: bend, limit: None },
            CcdLink { position: knee, rotation: knee_rotation, local_rotation: knee_local, limit: Some(limit) },
        ];
        let params = CcdParams::new(iterations, unit_angle, tolerance).unwrap();
        let mut c = [Quat::IDENTITY; 2];
        let r = solve_ccd(&links, joints[2].position, t, &params, &mut CcdScratch::new(), &mut c).unwrap();
        prop_assert!(r.residual.is_finite() && c.iter().all(|q| is_unit(*q)));
        let out = fk(&joints, &c);
        check_lengths(&joints, &out)?;
        if t.abs().max_element() < 1e3 && r.iterations > 0 {
            let fk_residual = (out[2].position - t).length();
            prop_assert!((fk_residual - r.residual).abs() <= 1e-4 * (1.0 + reach(&joints)), "{} vs {}", fk_residual, r.residual);
        }
        // The knee stays in its range (it starts inside).
        if c[1] != Quat::IDENTITY {
            prop_assert!(in_box(knee_local * c[1], limit), "{:?}", (knee_local * c[1]).to_euler(glam::EulerRot::XYZ));
        }
        let mut c2 = [Quat::IDENTITY; 2];
        let r2 = solve_ccd(&links, joints[2].position, t, &params, &mut CcdScratch::new(), &mut c2).unwrap();
        prop_assert_eq!(r, r2);
        prop_assert_eq!(c, c2);
    }

    #[test]
    fn aim_props(rot in quat(), pos in vec3(3.0), t in target(), pole in prop_oneof![3 => unit(), 1 => Just(Vec3::ZERO)],
                 offset in vec3(0.2), twist in -PI..PI, cone in prop::option::of(0.0f32..PI)) {
        let joint = ChainJoint::new(pos, rot);
        let params = AimParams::new(Vec3::Z, Vec3::Y, offset, twist, 1.0, cone).unwrap();
        let r = solve_aim(&joint, t, pole, &params).unwrap();
        prop_assert!(is_unit(r.correction) && r.angle_error.is_finite());
        if let Some(cone) = cone {
            prop_assert!((r.correction * Vec3::Z).angle_between(Vec3::Z) <= cone + 1e-3);
        } else if (t - pos).length() > 1.0 && t.abs().max_element() < 1e3 {
            prop_assert!(r.reached && r.angle_error < 1e-3, "{:?}", r);
        }
    }
    /// Two-bone, CCD (legs included) and aim at any scale (1e-7 to 6e9) with targets from the
    /// problem's size down to 1e-40 of it beside a joint put at the origin: finite, unit,
    /// length-preserving.
    #[test]
    fn other_solvers_any_scale_are_sane(
        joints in chain(),
        exponent in -6.0f32..9.5,
        near in 0usize..8,
        offset in vec3(1.0),
        offset_exponent in -40.0f32..0.5,
        pole in unit(),
        eye in vec3(0.2),
        knee in (0usize..3, -PI..0.0f32),
        options in (0.0f32..=1.0, prop_oneof![Just(1.0f32), 0.05f32..=1.0], prop::option::of(quat()), prop::option::of(0.0f32..PI), 0u8..3),
    ) {
        let (weight, soften, end_rotation, cone, boxes) = options;
        let (joints, t, scale) = scaled_about(&joints, near, exponent, offset, offset_exponent);
        let n = joints.len() - 1;

        // Two-bone over the first two links (or the chain's end repeated).
        let three = [joints[0], joints[1.min(n)], joints[2.min(n)]];
        let two_bone_params = TwoBoneParams::new(weight, soften, 1e-3 * scale).unwrap();
        let r = solve_two_bone(&three, t, end_rotation, pole, &two_bone_params).unwrap();
        prop_assert!(r.corrections.iter().all(|q| is_unit(*q)) && r.short.is_finite(), "{:?}", r);
        let out = fk(&three, &r.corrections[..2]);
        for (la, lb) in bone_lengths(&three, &out) {
            prop_assert!((la - lb).abs() <= 1e-4 * la + 1e-5 * scale, "two-bone length {} -> {}", la, lb);
        }

        // CCD over the whole chain, the second link a knee when there is one.
        let links: Vec<CcdLink> = (0..n).map(|i| {
            let local = if i == 0 { joints[0].rotation } else { joints[i - 1].rotation.inverse() * joints[i].rotation };
            // The second link a knee; with `boxes`, every other link an Euler box too.
            let limit = if i == 1 {
                let (mut min, max) = (Vec3::ZERO, Vec3::ZERO);
                min[knee.0] = knee.1;
                Some(RotationLimit::new(min, max).unwrap())
            } else if boxes > 0 && i % 2 == 0 {
                Some(RotationLimit::new(Vec3::new(-0.4, -1.0, -0.2), Vec3::new(0.6, 0.3, 1.2)).unwrap())
            } else {
                None
            };
            CcdLink { position: joints[i].position, rotation: joints[i].rotation, local_rotation: local, limit }
        }).collect();
        let mut c = vec![Quat::IDENTITY; n];
        let r = solve_ccd(&links, joints[n].position, t, &CcdParams::new(40, 1.0, 1e-4 * scale).unwrap(), &mut CcdScratch::new(), &mut c).unwrap();
        prop_assert!(r.residual.is_finite() && c.iter().all(|q| is_unit(*q)), "{:?} {:?}", r, c);
        let out = fk(&joints, &c);
        for (la, lb) in bone_lengths(&joints, &out) {
            prop_assert!((la - lb).abs() <= 1e-4 * la + 1e-5 * scale, "CCD length {} -> {}", la, lb);
        }

        // Aim from the first joint, its eye offset at the problem's scale.
        let params = AimParams::new(Vec3::Z, Vec3::Y, eye * scale, 0.3, weight, cone).unwrap();
        let r = solve_aim(&joints[0], t, pole, &params).unwrap();
        prop_assert!(is_unit(r.correction) && r.angle_error.is_finite(), "{:?}", r);
    }
}
