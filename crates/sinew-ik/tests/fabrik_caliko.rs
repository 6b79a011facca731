//! FABRIK on Caliko's standard demo chains (unconstrained, 45° rotors, local hinges).
//! Expected values come from geometry, not from Caliko's output.

mod common;

use core::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};

use common::*;
use glam::{EulerRot, Quat, Vec3};
use sinew_ik::*;

fn solve(
    joints: &[ChainJoint],
    links: &[FabrikLink],
    target: Vec3,
    params: &FabrikParams,
) -> (SolveResult, Vec<Quat>) {
    let mut scratch = FabrikScratch::new();
    let mut c = vec![Quat::IDENTITY; links.len()];
    let r = solve_fabrik(joints, links, target, params, &mut scratch, &mut c).unwrap();
    (r, c)
}

fn dirs(joints: &[ChainJoint]) -> Vec<Vec3> {
    joints
        .windows(2)
        .map(|w| (w[1].position - w[0].position).normalize())
        .collect()
}

fn assert_lengths(before: &[ChainJoint], after: &[ChainJoint]) {
    for (la, lb) in bone_lengths(before, after) {
        assert!((la - lb).abs() < 1e-4, "length {la} became {lb}");
    }
}

#[test]
fn unconstrained_reaches_reachable_target() {
    let joints = straight_chain(10, 1.0);
    let links = [FabrikLink::FREE; 10];
    let target = Vec3::new(3.0, 4.0, 2.0);
    let (r, c) = solve(&joints, &links, target, &FabrikParams::default());
    assert!(r.satisfied, "{r:?}");
    let out = fk(&joints, &c);
    assert!((out[10].position - target).length() < 2e-4);
    assert!(((out[10].position - target).length() - r.residual).abs() < 1e-4);
    assert_lengths(&joints, &out);
    assert_eq!(out[0].position, Vec3::ZERO, "the base is fixed");
}

#[test]
fn unconstrained_unreachable_straightens_toward_target() {
    let joints = straight_chain(10, 1.0);
    let links = [FabrikLink::FREE; 10];
    let target = Vec3::new(-12.0, 9.0, 5.0);
    let (r, c) = solve(&joints, &links, target, &FabrikParams::default());
    assert!(!r.satisfied);
    assert!(
        (r.residual - (target.length() - 10.0)).abs() < 1e-4,
        "{r:?}"
    );
    let out = fk(&joints, &c);
    for d in dirs(&out) {
        assert!(d.dot(target.normalize()) > 1.0 - 1e-5);
    }
}

#[test]
fn unconstrained_at_target_stays_put() {
    let joints = straight_chain(4, 1.0);
    let links = [FabrikLink::FREE; 4];
    let (r, c) = solve(
        &joints,
        &links,
        Vec3::new(4.0, 0.0, 0.00005),
        &FabrikParams::default(),
    );
    assert_eq!(r.iterations, 0);
    assert!(r.satisfied);
    assert!(c.iter().all(|&q| q == Quat::IDENTITY));
}

#[test]
fn unconstrained_target_at_base_and_huge_target() {
    let joints = straight_chain(5, 1.0);
    let links = [FabrikLink::FREE; 5];
    for target in [
        Vec3::ZERO,
        Vec3::new(1e30, -3e29, 1e28),
        Vec3::new(2.0, 0.0, 0.0),
        Vec3::new(-1e-20, 0.0, 0.0),
    ] {
        let (r, c) = solve(&joints, &links, target, &FabrikParams::default());
        assert!(r.residual.is_finite(), "{target}: {r:?}");
        assert!(c.iter().all(|q| is_unit(*q)), "{target}");
        assert_lengths(&joints, &fk(&joints, &c));
    }
    let (r, c) = solve(
        &joints,
        &links,
        Vec3::new(3e30, 0.0, 4e30),
        &FabrikParams::default(),
    );
    assert!((r.residual / 5e30 - 1.0).abs() < 1e-4);
    let out = fk(&joints, &c);
    assert!(dirs(&out)[0].dot(Vec3::new(0.6, 0.0, 0.8)) > 1.0 - 1e-4);
}

/// Bones 1e9 long and a target 1e-15 from a joint at the origin: the first pulled segment is
/// `length / |v|²` ≈ 1e39 times its raw vector — beyond f32 — so it must take the guarded path.
#[test]
fn long_bones_and_a_target_next_to_a_joint() {
    let joints: Vec<ChainJoint> = straight_chain(3, 1e9)
        .into_iter()
        .map(|j| ChainJoint::at(j.position - Vec3::X * 2e9))
        .collect();
    assert_eq!(joints[2].position, Vec3::ZERO);
    let free = vec![FabrikLink::FREE; 3];
    for (name, links) in [
        ("free", free),
        ("rotors", rotor_links(3)),
        ("hinges", hinge_links(3)),
    ] {
        for target in [Vec3::new(1e-15, 1e-15, 0.0), Vec3::new(0.0, 7e-16, 0.0)] {
            let (r, c) = solve(&joints, &links, target, &FabrikParams::default());
            assert!(r.residual.is_finite(), "{name} {target}: {r:?}");
            assert!(c.iter().all(|q| is_unit(*q)), "{name} {target}: {c:?}");
            let out = fk(&joints, &c);
            for (la, lb) in bone_lengths(&joints, &out) {
                assert!(
                    (la / lb - 1.0).abs() < 1e-5,
                    "{name}: length {la} became {lb}"
                );
            }
        }
    }
}

#[test]
fn rotor_chain_reaches_and_respects_cones() {
    let joints = straight_chain(10, 1.0);
    let links = rotor_links(10);
    let params = FabrikParams::new(64, 1e-3, PI).unwrap();
    let mut rng = Rng::new(11);
    let mut solved = 0;
    for _ in 0..100 {
        let target = random_rotor_target(&mut rng, 10, 1.0);
        let (r, c) = solve(&joints, &links, target, &params);
        solved += usize::from(r.satisfied);
        let out = fk(&joints, &c);
        let d = dirs(&out);
        assert!(
            d[0].dot(Vec3::X) >= FRAC_PI_4.cos() - 1e-4,
            "first segment leaves its rotor"
        );
        for w in d.windows(2) {
            assert!(
                w[0].dot(w[1]) >= FRAC_PI_4.cos() - 1e-4,
                "segment leaves its rotor"
            );
        }
        assert_lengths(&joints, &out);
    }
    assert!(solved >= 97, "solved {solved}/100");
}

/// A case found by `fabrik_any_scale_is_sane` (a rotor chain 1.5e-4 long, the target 1e-11
/// from a joint): cone rim points, each the next link's cone axis, compounded their rounding
/// until the corrections were off unit by 1.5e-5; rim points are now renormalised.
#[test]
fn cone_rim_points_do_not_compound_rounding() {
    let raw = [
        (
            [-1.357_841_8, -2.156_738_5, 0.0],
            [0.0, 0.365_475_24, -0.896_378_46, 0.250_865_37],
        ),
        (
            [-1.878_767_3, -2.424_754_1, -0.109_276_47],
            [0.0, -0.136_301_14, 0.224_792_23, 0.964_826_64],
        ),
        (
            [-0.171_866_77, -1.565_598_4, 0.411_666_45],
            [0.0, 1.0, -0.0, -4.371_139e-8],
        ),
        (
            [-1.170_795, -1.565_598_4, 0.411_666_45],
            [0.0, -0.767_620_1, -0.315_634, 0.557_794_4],
        ),
        (
            [-1.815_951_8, -2.167_008_6, 1.874_292_6],
            [0.0, 0.0, 0.0, 1.0],
        ),
        (
            [-1.492_698_7, -2.167_008_6, 1.874_292_6],
            [0.0, 0.0, 0.0, 1.0],
        ),
    ];
    let scale = 10f32.powf(-3.815_56);
    let origin = Vec3::from_array(raw[1].0);
    let joints: Vec<ChainJoint> = raw
        .iter()
        .map(|(p, q)| {
            ChainJoint::new(
                (Vec3::from_array(*p) - origin) * scale,
                Quat::from_array(*q),
            )
        })
        .collect();
    let target = Vec3::new(0.0, -0.386_904, 0.0) * (scale * 10f32.powf(-6.759_739));
    let (r, c) = solve(&joints, &rotor_links(5), target, &FabrikParams::default());
    assert!(r.residual.is_finite());
    for q in &c {
        let off = (q.length_squared() - 1.0).abs();
        assert!(off <= 2e-6, "|q|² − 1 = {off:e}: {c:?}");
    }
}

#[test]
fn rotor_chain_target_behind_base_is_unreachable_but_constrained() {
    let joints = straight_chain(10, 1.0);
    let links = rotor_links(10);
    let (r, c) = solve(
        &joints,
        &links,
        Vec3::new(-5.0, 0.0, 0.0),
        &FabrikParams::default(),
    );
    assert!(!r.satisfied && r.residual.is_finite());
    let d = dirs(&fk(&joints, &c));
    assert!(d[0].dot(Vec3::X) >= FRAC_PI_4.cos() - 1e-4);
    for w in d.windows(2) {
        assert!(w[0].dot(w[1]) >= FRAC_PI_4.cos() - 1e-4);
    }
}

#[test]
fn local_hinge_chain_stays_planar_and_in_range() {
    let joints = straight_chain(10, 1.0);
    let links = hinge_links(10);
    let params = FabrikParams::new(64, 1e-3, PI).unwrap();
    let mut rng = Rng::new(12);
    let mut solved = 0;
    for _ in 0..100 {
        let target = random_hinge_target(&mut rng, 10, 1.0);
        let (r, c) = solve(&joints, &links, target, &params);
        solved += usize::from(r.satisfied);
        let out = fk(&joints, &c);
        let d = dirs(&out);
        let mut prev = Vec3::X;
        for (i, &di) in d.iter().enumerate() {
            assert!(di.z.abs() < 1e-4, "segment {i} left the hinge plane: {di}");
            let angle = prev.cross(di).z.atan2(prev.dot(di));
            assert!(
                angle.abs() <= FRAC_PI_2 + 1e-3,
                "segment {i} hinge angle {angle}"
            );
            prev = di;
            // A hinge turns its bone about the hinge axis only: the correction is about local Z.
            let (axis, a) = c[i].to_axis_angle();
            assert!(
                a.abs() < 1e-6 || axis.cross(Vec3::Z).length() < 1e-3,
                "link {i} correction axis {axis}"
            );
        }
    }
    assert!(solved >= 95, "solved {solved}/100");
}

#[test]
fn shortest_arc_keeps_twist() {
    // Bones rolled about their own axis: the correction's axis is orthogonal to the bone.
    let mut joints = straight_chain(4, 1.0);
    for (i, j) in joints.iter_mut().enumerate() {
        j.rotation = Quat::from_rotation_x(0.7 * i as f32 + 0.3);
    }
    let links = [FabrikLink::FREE; 4];
    let (r, c) = solve(
        &joints,
        &links,
        Vec3::new(1.0, 2.0, 1.5),
        &FabrikParams::default(),
    );
    assert!(r.satisfied);
    for q in c {
        // Bone direction is local +X for every bone (rotations are rolls about X).
        assert!(q.x.abs() < 1e-4, "correction {q} twists the bone");
    }
}

#[test]
fn zero_step_freezes_and_small_step_caps() {
    let joints = straight_chain(3, 1.0);
    let links = [FabrikLink::FREE; 3];
    let (r, c) = solve(
        &joints,
        &links,
        Vec3::new(0.0, 2.0, 0.0),
        &FabrikParams::new(8, 1e-4, 0.0).unwrap(),
    );
    assert!(!r.satisfied);
    assert!(c.iter().all(|q| q.abs_diff_eq(Quat::IDENTITY, 1e-6)));
    let step = 0.1;
    let (_, c) = solve(
        &joints,
        &links,
        Vec3::new(0.0, 2.0, 0.0),
        &FabrikParams::new(1, 1e-4, step).unwrap(),
    );
    for (a, b) in dirs(&joints).iter().zip(dirs(&fk(&joints, &c))) {
        assert!(a.angle_between(b) <= step + 1e-4);
    }
}

#[test]
fn euler_box_bounds_the_local_correction() {
    let joints = straight_chain(3, 1.0);
    let limit = RotationLimit::new(Vec3::new(-0.1, -0.3, -0.3), Vec3::new(0.1, 0.3, 0.3)).unwrap();
    let links = [FabrikLink::with_limit(limit); 3];
    let (r, c) = solve(
        &joints,
        &links,
        Vec3::new(0.5, 2.0, 1.0),
        &FabrikParams::default(),
    );
    assert!(r.residual.is_finite());
    for q in c {
        assert!(limit.contains(q, 1e-4), "{:?}", q.to_euler(EulerRot::XYZ));
    }
}

/// skeleton-dynamics-api.md, "IkLink, RotationLimit, and IkJoint": "When both are given, both
/// restrictions participate". Each link carries a hinge (or a rotor) *and* an Euler box, and the
/// target asks for more than either allows: every correction must stay in the box and every
/// segment must keep to its hinge plane and range (or its rotor's cone). Dropping the box when a
/// joint is present lets the corrections leave the box; dropping the joint when a box is present
/// lets the segments leave the hinge plane (or the cone).
#[test]
fn joint_and_euler_box_on_one_link_both_hold() {
    let joints = straight_chain(3, 1.0);
    let params = FabrikParams::new(64, 1e-4, PI).unwrap();

    // Hinges about Z (±90°) with a box of ±0.5 rad per axis; the target is out of the hinge
    // plane and asks for more bend than the box allows (≈ 1.3 rad per link in the plane).
    let hinge = Hinge::new(Vec3::Z, Vec3::X, -FRAC_PI_2, FRAC_PI_2).unwrap();
    let limit = RotationLimit::new(Vec3::splat(-0.5), Vec3::splat(0.5)).unwrap();
    let links = [FabrikLink {
        limit: Some(limit),
        joint: Some(IkJoint::Hinge(hinge)),
    }; 3];
    let (r, c) = solve(&joints, &links, Vec3::new(0.5, 2.0, 0.8), &params);
    assert!(r.residual.is_finite() && !r.satisfied, "{r:?}");
    let out = fk(&joints, &c);
    let mut prev = Vec3::X;
    for (i, (q, d)) in c.iter().zip(dirs(&out)).enumerate() {
        assert!(
            limit.contains(*q, 1e-4),
            "hinge link {i} correction leaves its box: {:?}",
            q.to_euler(EulerRot::XYZ)
        );
        assert!(d.z.abs() < 1e-4, "segment {i} left the hinge plane: {d}");
        let angle = prev.cross(d).z.atan2(prev.dot(d));
        assert!(
            angle.abs() <= FRAC_PI_2 + 1e-3,
            "segment {i} hinge angle {angle}"
        );
        prev = d;
    }

    // Rotors of 0.4 rad with a box that is wider about Y (1.2 rad) but narrower about Z
    // (0.25 rad): the box alone would let a segment swing 1.2 rad about Y, the rotor alone
    // 0.4 rad about Z.
    let rotor = Rotor::new(0.4).unwrap();
    let limit =
        RotationLimit::new(Vec3::new(-1.0, -1.2, -0.25), Vec3::new(1.0, 1.2, 0.25)).unwrap();
    let links = [FabrikLink {
        limit: Some(limit),
        joint: Some(IkJoint::Rotor(rotor)),
    }; 3];
    let (r, c) = solve(&joints, &links, Vec3::new(0.6, 1.6, -1.6), &params);
    assert!(r.residual.is_finite() && !r.satisfied, "{r:?}");
    let d = dirs(&fk(&joints, &c));
    let mut prev = Vec3::X;
    for (i, (q, di)) in c.iter().zip(d).enumerate() {
        assert!(
            limit.contains(*q, 1e-4),
            "rotor link {i} correction leaves its box: {:?}",
            q.to_euler(EulerRot::XYZ)
        );
        assert!(
            prev.angle_between(di) <= 0.4 + 1e-3,
            "segment {i} leaves its rotor: {}",
            prev.angle_between(di)
        );
        prev = di;
    }
}

#[test]
fn invalid_input_is_a_typed_error() {
    let joints = straight_chain(3, 1.0);
    let links = [FabrikLink::FREE; 3];
    let mut scratch = FabrikScratch::new();
    let mut c = [Quat::IDENTITY; 3];
    let p = FabrikParams::default();
    assert_eq!(
        solve_fabrik(&joints, &links, Vec3::NAN, &p, &mut scratch, &mut c),
        Err(IkError::NonFiniteInput {
            name: "target_model",
            index: 0
        })
    );
    assert!(matches!(
        solve_fabrik(&joints[..3], &links, Vec3::X, &p, &mut scratch, &mut c),
        Err(IkError::LengthMismatch {
            name: "joints_model",
            expected: 4,
            actual: 3
        })
    ));
    assert!(matches!(
        solve_fabrik(&joints, &links, Vec3::X, &p, &mut scratch, &mut c[..2]),
        Err(IkError::LengthMismatch {
            name: "corrections_local",
            ..
        })
    ));
    assert!(matches!(
        solve_fabrik(&joints[..1], &[], Vec3::X, &p, &mut scratch, &mut []),
        Err(IkError::EmptyChain { .. })
    ));
    assert!(matches!(
        FabrikParams::new(0, 1e-4, 1.0),
        Err(IkError::InvalidCount {
            name: "iterations",
            ..
        })
    ));
    assert!(matches!(
        FabrikParams::new(257, 1e-4, 1.0),
        Err(IkError::InvalidCount { .. })
    ));
    assert!(matches!(
        FabrikParams::new(1, 0.0, 1.0),
        Err(IkError::InvalidParameter {
            name: "tolerance",
            ..
        })
    ));
    assert!(matches!(
        FabrikParams::new(1, 1e-4, -1.0),
        Err(IkError::InvalidParameter {
            name: "max_rotation_step",
            ..
        })
    ));
    let mut bad = joints.clone();
    bad[2].position.y = f32::INFINITY;
    assert!(matches!(
        solve_fabrik(&bad, &links, Vec3::X, &p, &mut scratch, &mut c),
        Err(IkError::NonFiniteInput {
            name: "joints_model",
            index: 2
        })
    ));
}

#[test]
fn zero_length_bones_are_harmless() {
    let joints = [
        ChainJoint::at(Vec3::ZERO),
        ChainJoint::at(Vec3::ZERO),
        ChainJoint::at(Vec3::X),
        ChainJoint::at(Vec3::X),
        ChainJoint::at(Vec3::new(2.0, 0.0, 0.0)),
    ];
    for links in [vec![FabrikLink::FREE; 4], rotor_links(4), hinge_links(4)] {
        let (r, c) = solve(
            &joints,
            &links,
            Vec3::new(0.5, 1.2, 0.3),
            &FabrikParams::default(),
        );
        assert!(r.residual.is_finite());
        assert!(c.iter().all(|q| q.is_finite()));
        assert_lengths(&joints, &fk(&joints, &c));
    }
}
