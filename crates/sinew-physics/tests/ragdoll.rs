//! Modes, shapes, masks, writeback kinds, followers, guards and errors.

use std::sync::Arc;

use proptest::prelude::*;
use sinew::dynamics::{
    BodyMode, BonePoseConstraint, Joint, JointDesc, Physics, RigidBody, RigidBodyDesc, Shape,
    SkeletonDynamicsBuilder, TransformInheritance,
};
use sinew::glam::{Affine3A, DVec3, Quat, Vec3};
use sinew::instance::{Slot, TickLoop};
use sinew::{BoneId, Model, Parent, RootPlacement, SkeletonBuilder, SkeletonInstance, Transform};
use sinew_physics::{
    mmd_collides, BadBodyKind, JointProjection, PhysicsError, PhysicsModule, PhysicsOptions,
    Profile, ProfileBody, Ragdoll, ResetReason,
};

mod common;
use common::Frame;

const DT: f32 = 1.0 / 60.0;

fn body(
    bone: Option<u16>,
    shape: Shape,
    size: Vec3,
    position: Vec3,
    mode: BodyMode,
) -> RigidBodyDesc {
    RigidBodyDesc {
        name: format!("body{bone:?}"),
        bone: bone.map(BoneId::new),
        shape,
        size,
        position,
        mass: 1.0,
        friction: 0.5,
        mode,
        ..RigidBodyDesc::default()
    }
}

fn floor() -> RigidBodyDesc {
    body(
        None,
        Shape::Box,
        Vec3::new(5.0, 0.5, 5.0),
        Vec3::new(0.0, -0.5, 0.0),
        BodyMode::Kinematic,
    )
}

/// root → a (0,1,0) → b (0,-0.3,0)
fn skeleton(scale_a: f32) -> Arc<sinew::Skeleton> {
    let mut s = SkeletonBuilder::new();
    s.push("root", Parent::Root, Transform::IDENTITY);
    s.push(
        "a",
        "root",
        Transform::from_trs(
            Vec3::new(0.0, 1.0, 0.0),
            Quat::IDENTITY,
            Vec3::splat(scale_a),
        ),
    );
    s.push(
        "b",
        "a",
        Transform::from_translation(Vec3::new(0.0, -0.3, 0.0)),
    );
    s.build().unwrap()
}

fn model(
    skel: &Arc<sinew::Skeleton>,
    bodies: Vec<RigidBodyDesc>,
    joints: Vec<JointDesc>,
    affine: bool,
    followers: Vec<BoneId>,
) -> Model {
    let mut m = Model::new(skel.clone());
    let physics = Physics::new(
        bodies
            .into_iter()
            .map(|b| RigidBody::new(b).unwrap())
            .collect(),
        joints.into_iter().map(|j| Joint::new(j).unwrap()).collect(),
        Vec3::ONE,
        false,
        affine,
        1.0,
        followers,
    )
    .unwrap();
    SkeletonDynamicsBuilder::new(skel)
        .physics(physics)
        .attach(&mut m)
        .unwrap();
    m
}

fn run(r: &mut Ragdoll, inst: &mut SkeletonInstance, frames: usize) {
    for f in 0..frames {
        inst.update_transform();
        r.frame(inst, f as f32 * DT, DT).unwrap();
    }
}

fn translation(m: &Affine3A) -> Vec3 {
    m.translation.into()
}

#[test]
fn errors() {
    let skel = skeleton(1.0);
    let empty = model(&skel, vec![], vec![], true, vec![]);
    assert_eq!(
        Ragdoll::new(&empty, PhysicsOptions::default()).unwrap_err(),
        PhysicsError::NoBodies
    );
    // Profile required.
    let mut m = Model::new(skel.clone());
    let p = Physics::new(
        vec![RigidBody::new(floor()).unwrap()],
        vec![],
        Vec3::ONE,
        true,
        true,
        1.0,
        vec![],
    )
    .unwrap();
    SkeletonDynamicsBuilder::new(&skel)
        .physics(p)
        .attach(&mut m)
        .unwrap();
    assert_eq!(
        Ragdoll::new(&m, PhysicsOptions::default()).unwrap_err(),
        PhysicsError::ProfileRequired
    );
    let ok = PhysicsOptions {
        profile: Some(Profile::from_bodies([0])),
        ..PhysicsOptions::default()
    };
    assert!(Ragdoll::new(&m, ok).is_ok());
    let bad = PhysicsOptions {
        profile: Some(Profile::from_bodies([3])),
        ..PhysicsOptions::default()
    };
    assert!(matches!(
        Ragdoll::new(&m, bad).unwrap_err(),
        PhysicsError::ProfileBodyOutOfRange { body: 3, .. }
    ));
    let empty_profile = PhysicsOptions {
        profile: Some(Profile::default()),
        ..PhysicsOptions::default()
    };
    assert_eq!(
        Ragdoll::new(&m, empty_profile).unwrap_err(),
        PhysicsError::NoBodies
    );
    let bad_opt = PhysicsOptions {
        step_hz: 0.0,
        ..PhysicsOptions::default()
    };
    assert!(matches!(
        Ragdoll::new(&m, bad_opt).unwrap_err(),
        PhysicsError::InvalidOption {
            field: "step_hz",
            ..
        }
    ));
    let bad_projection = PhysicsOptions {
        joint_projection: Some(JointProjection {
            angular_tolerance: -0.1,
            ..JointProjection::default()
        }),
        ..PhysicsOptions::default()
    };
    assert!(matches!(
        Ragdoll::new(&m, bad_projection).unwrap_err(),
        PhysicsError::InvalidOption {
            field: "joint_projection.angular_tolerance",
            ..
        }
    ));
}

#[test]
fn degenerate_shapes_are_named() {
    let skel = skeleton(1.0);
    for (shape, size) in [
        (Shape::Sphere, Vec3::ZERO),
        (Shape::Box, Vec3::new(1.0, 1.0, 0.0)),
        (Shape::Capsule, Vec3::new(0.0, 1.0, 0.0)),
    ] {
        let mut b = body(Some(1), shape, size, Vec3::Y, BodyMode::Dynamic);
        b.name = "bad-one".into();
        let m = model(&skel, vec![floor(), b], vec![], true, vec![]);
        match Ragdoll::new(&m, PhysicsOptions::default()).unwrap_err() {
            PhysicsError::DegenerateShape {
                index,
                name,
                shape: s,
                ..
            } => {
                assert_eq!((index, name.as_str(), s), (1, "bad-one", shape));
            }
            e => panic!("{e:?}"),
        }
    }
    // A capsule with zero cylinder height is a valid (ball-like) capsule.
    let b = body(
        Some(1),
        Shape::Capsule,
        Vec3::new(0.1, 0.0, 0.0),
        Vec3::Y,
        BodyMode::Dynamic,
    );
    assert!(Ragdoll::new(
        &model(&skel, vec![b], vec![], true, vec![]),
        PhysicsOptions::default()
    )
    .is_ok());
}

#[test]
fn kinematic_body_follows_animated_bone() {
    let skel = skeleton(1.0);
    let b = body(
        Some(1),
        Shape::Sphere,
        Vec3::splat(0.1),
        Vec3::new(0.0, 1.0, 0.2),
        BodyMode::Kinematic,
    );
    let m = model(&skel, vec![b], vec![], true, vec![]);
    let mut inst = SkeletonInstance::new(&m);
    let mut r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
    for f in 0..30 {
        let t = f as f32 * DT;
        inst.input_mut()[1].rotation = Quat::from_rotation_y(t);
        inst.input_mut()[1].translation = Vec3::new(0.2 * t, 1.0, 0.0);
        inst.update_transform();
        let expected = inst.world()[1].transform_point3(Vec3::new(0.0, 0.0, 0.2));
        let rep = r.frame(&mut inst, t, DT).unwrap();
        assert!(rep.bad_bodies.is_empty());
        let (p, q) = r.body_pose(r.body_of(0).unwrap()).unwrap();
        assert!((p - expected).length() < 1e-5, "{p} vs {expected}");
        assert!(q.angle_between(Quat::from_rotation_y(t)) < 1e-3);
        // Kinematic bodies do not write back.
        assert_eq!(
            inst.state().locals()[1].translation,
            Vec3::new(0.2 * t, 1.0, 0.0)
        );
    }
}

#[test]
fn dynamic_body_falls_and_writes_back_full_pose() {
    let skel = skeleton(1.0);
    let b = body(
        Some(1),
        Shape::Sphere,
        Vec3::splat(0.1),
        Vec3::new(0.0, 1.0, 0.0),
        BodyMode::Dynamic,
    );
    let m = model(&skel, vec![b], vec![], true, vec![]);
    let mut inst = SkeletonInstance::new(&m);
    let mut r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
    assert_eq!(r.body_mode(r.body_of(0).unwrap()), Some(BodyMode::Dynamic));
    run(&mut r, &mut inst, 31);
    // 31 steps of 1/60 s: y ≈ 1 − g t²/2 (semi-implicit Euler falls a little further).
    let y = translation(&inst.world()[1]).y;
    let free_fall = 1.0 - 0.5 * 9.80665 * (31.0f32 / 60.0).powi(2);
    assert!((y - free_fall).abs() < 0.05, "y = {y}");
    let (p, _) = r.body_pose(r.body_of(0).unwrap()).unwrap();
    assert!((translation(&inst.world()[1]) - p).length() < 1e-5);
    // The child follows through the hierarchy.
    assert!((translation(&inst.world()[2]) - (p + Vec3::new(0.0, -0.3, 0.0))).length() < 1e-4);
}

#[test]
fn dynamic_rotation_keeps_animated_translation() {
    let skel = skeleton(1.0);
    let b = body(
        Some(1),
        Shape::Box,
        Vec3::splat(0.1),
        Vec3::new(0.0, 1.0, 0.0),
        BodyMode::DynamicRotation,
    );
    let m = model(&skel, vec![b], vec![], true, vec![]);
    let mut inst = SkeletonInstance::new(&m);
    let mut r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
    run(&mut r, &mut inst, 1);
    r.set_body_velocity(r.body_of(0).unwrap(), Vec3::ZERO, Vec3::new(0.0, 0.0, 2.0));
    run(&mut r, &mut inst, 20);
    let l = inst.state().locals()[1];
    assert_eq!(l.translation, Vec3::new(0.0, 1.0, 0.0));
    let (_, q) = r.body_pose(r.body_of(0).unwrap()).unwrap();
    assert!(q.angle_between(Quat::IDENTITY) > 0.3);
    assert!(l.rotation.angle_between(q) < 1e-3);
}

#[test]
fn bodies_without_bones() {
    let skel = skeleton(1.0);
    let free = body(
        None,
        Shape::Sphere,
        Vec3::splat(0.1),
        Vec3::new(0.0, 3.0, 0.0),
        BodyMode::Dynamic,
    );
    let anchored = body(
        None,
        Shape::Sphere,
        Vec3::splat(0.1),
        Vec3::new(1.0, 0.0, 0.0),
        BodyMode::Kinematic,
    );
    let m = model(&skel, vec![free, anchored], vec![], true, vec![]);
    let mut inst = SkeletonInstance::new(&m);
    inst.state_mut()
        .set_placement(RootPlacement::from_translation(DVec3::new(0.0, 0.0, 2.0)));
    let mut r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
    run(&mut r, &mut inst, 30);
    assert!(r.body_pose(r.body_of(0).unwrap()).unwrap().0.y < 2.0);
    assert!(
        (r.body_pose(r.body_of(1).unwrap()).unwrap().0 - Vec3::new(1.0, 0.0, 2.0)).length() < 1e-5
    );
    assert_eq!(inst.state().locals(), skel.rest_pose());
}

#[test]
fn shapes_rest_on_the_floor_at_their_size() {
    let skel = skeleton(1.0);
    let lying = Vec3::new(0.0, 0.0, std::f32::consts::FRAC_PI_2);
    let cases = [
        (Shape::Sphere, Vec3::new(0.2, 0.0, 0.0), Vec3::ZERO, 0.2),
        (Shape::Box, Vec3::new(0.1, 0.15, 0.1), Vec3::ZERO, 0.15),
        (Shape::Capsule, Vec3::new(0.1, 0.4, 0.0), lying, 0.1),
        (Shape::Capsule, Vec3::new(0.1, 0.4, 0.0), Vec3::ZERO, 0.3),
    ];
    for (shape, size, rot, rest) in cases {
        let mut b = body(
            None,
            shape,
            size,
            Vec3::new(0.0, rest + 0.1, 0.0),
            BodyMode::Dynamic,
        );
        b.rotation = rot;
        b.angular_damping = 0.9;
        let m = model(&skel, vec![floor(), b], vec![], true, vec![]);
        let mut inst = SkeletonInstance::new(&m);
        let mut r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
        run(&mut r, &mut inst, 90);
        let y = r.body_pose(r.body_of(1).unwrap()).unwrap().0.y;
        assert!(
            (y - rest).abs() < 0.02,
            "{shape:?}: rests at {y}, expected {rest}"
        );
    }
}

#[test]
fn collision_mask_rule_over_64_groups() {
    let skel = skeleton(1.0);
    for (group, masked) in [(5u8, false), (5, true), (40, false), (40, true), (63, true)] {
        let mut f = floor();
        f.collision_group = 0;
        f.non_collision_mask = if masked { 1u64 << group } else { 0 };
        let mut ball = body(
            None,
            Shape::Sphere,
            Vec3::splat(0.2),
            Vec3::new(0.0, 0.5, 0.0),
            BodyMode::Dynamic,
        );
        ball.collision_group = group;
        let m = model(&skel, vec![f, ball], vec![], true, vec![]);
        let mut inst = SkeletonInstance::new(&m);
        let mut r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
        run(&mut r, &mut inst, 60);
        let y = r.body_pose(r.body_of(1).unwrap()).unwrap().0.y;
        if masked {
            assert!(
                y < -0.5,
                "group {group} masked should fall through, y = {y}"
            );
        } else {
            assert!((y - 0.2).abs() < 0.02, "group {group} should rest, y = {y}");
        }
    }
}

proptest! {
    #[test]
    fn filter_rule_matches_core(ga in 0u8..64, gb in 0u8..64, ma: u64, mb: u64) {
        let a = RigidBody::new(RigidBodyDesc { collision_group: ga, non_collision_mask: ma, ..RigidBodyDesc::default() }).unwrap();
        let b = RigidBody::new(RigidBodyDesc { collision_group: gb, non_collision_mask: mb, ..RigidBodyDesc::default() }).unwrap();
        prop_assert_eq!(mmd_collides((ga, ma), (gb, mb)), a.collides_with(&b));
    }
}

/// A dynamic body on `b` under a parent `a` scaled ×2, pushed sideways without gravity.
fn scaled_parent_run(affine: bool) -> (Vec3, Vec3, Transform) {
    let skel = skeleton(2.0);
    // b's rest world: (0,1,0) + 2·(0,-0.3,0) = (0, 0.4, 0).
    let b = body(
        Some(2),
        Shape::Sphere,
        Vec3::splat(0.05),
        Vec3::new(0.0, 0.4, 0.0),
        BodyMode::Dynamic,
    );
    let m = model(&skel, vec![b], vec![], affine, vec![]);
    let mut inst = SkeletonInstance::new(&m);
    let mut r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
    r.set_gravity(Vec3::ZERO);
    run(&mut r, &mut inst, 1);
    r.set_body_velocity(r.body_of(0).unwrap(), Vec3::new(1.0, 0.0, 0.0), Vec3::ZERO);
    run(&mut r, &mut inst, 30);
    (
        r.body_pose(r.body_of(0).unwrap()).unwrap().0,
        translation(&inst.world()[2]),
        inst.state().locals()[2],
    )
}

#[test]
fn affine_writeback_solves_within_scaled_parent() {
    let (body_pos, bone_pos, local) = scaled_parent_run(true);
    assert!(body_pos.x > 0.4);
    assert!(
        (bone_pos - body_pos).length() < 1e-4,
        "{bone_pos} vs {body_pos}"
    );
    // The local is in the parent's scaled frame: half the world offset.
    assert!((local.translation - (body_pos - Vec3::Y) * 0.5).length() < 1e-4);
}

#[test]
fn rigid_writeback_ignores_parent_scale() {
    let (body_pos, bone_pos, local) = scaled_parent_run(false);
    // Rigid: local = parent_rigid⁻¹ · body, so the ×2 parent doubles the offset.
    assert!((local.translation - (body_pos - Vec3::Y)).length() < 1e-4);
    assert!((bone_pos - (Vec3::Y + 2.0 * (body_pos - Vec3::Y))).length() < 1e-4);
    assert_eq!(local.scale, Vec3::ONE);
}

#[test]
fn bind_pose_follower_tracks_physics_ancestor() {
    let skel = skeleton(1.0);
    let a = body(
        Some(1),
        Shape::Sphere,
        Vec3::splat(0.1),
        Vec3::new(0.0, 1.0, 0.0),
        BodyMode::Dynamic,
    );
    let m = model(&skel, vec![a], vec![], true, vec![BoneId::new(2)]);
    let mut inst = SkeletonInstance::new(&m);
    let mut r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
    r.set_gravity(Vec3::ZERO);
    run(&mut r, &mut inst, 1);
    r.set_body_velocity(
        r.body_of(0).unwrap(),
        Vec3::new(0.3, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.5),
    );
    for f in 0..20 {
        // The follower's own animation is ignored: it keeps its bind offset from `a`.
        inst.input_mut()[2].rotation = Quat::from_rotation_x(0.8);
        inst.input_mut()[2].translation = Vec3::new(0.5, 0.0, 0.0);
        inst.update_transform();
        r.frame(&mut inst, f as f32 * DT, DT).unwrap();
    }
    let w = inst.world();
    let expected = w[1] * Affine3A::from_translation(Vec3::new(0.0, -0.3, 0.0));
    assert!(
        w[2].abs_diff_eq(expected, 1e-4),
        "{:?} vs {expected:?}",
        w[2]
    );
    assert!(translation(&w[1]).x > 0.05);
}

/// A kinematic box on bone 1 at (0, 1, 0) and a dynamic capsule on bone 2 centred `bob_y`
/// high (not colliding with group 0), to be joined by [`bob_joint`].
fn hanging_bob(bob_y: f32) -> [RigidBodyDesc; 2] {
    let anchor = body(
        Some(1),
        Shape::Box,
        Vec3::splat(0.05),
        Vec3::new(0.0, 1.0, 0.0),
        BodyMode::Kinematic,
    );
    let mut bob = body(
        Some(2),
        Shape::Capsule,
        Vec3::new(0.03, 0.2, 0.0),
        Vec3::new(0.0, bob_y, 0.0),
        BodyMode::Dynamic,
    );
    bob.collision_group = 1;
    bob.non_collision_mask = 1;
    [anchor, bob]
}

/// The joint of [`hanging_bob`]'s two bodies at height `joint_y`, rotation box `[lo, hi]`.
fn bob_joint(joint_y: f32, lo: Vec3, hi: Vec3) -> JointDesc {
    JointDesc {
        name: "j".into(),
        body_a: 0,
        body_b: 1,
        position: Vec3::new(0.0, joint_y, 0.0),
        rotation_min: lo,
        rotation_max: hi,
        ..JointDesc::default()
    }
}

fn pendulum() -> (Arc<sinew::Skeleton>, Model) {
    let skel = skeleton(1.0);
    let (lo, hi) = (Vec3::new(-0.4, 0.0, -0.4), Vec3::new(0.4, 0.0, 0.4));
    let [anchor, bob] = hanging_bob(0.7);
    let m = model(
        &skel,
        vec![anchor, bob],
        vec![bob_joint(1.0, lo, hi)],
        true,
        vec![],
    );
    (skel, m)
}

#[test]
fn joint_limits_hold_under_sideways_gravity() {
    let (_, m) = pendulum();
    let mut inst = SkeletonInstance::new(&m);
    let mut r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
    r.set_gravity(Vec3::new(12.0, -9.8, 6.0));
    let (mut worst, mut sep, mut last) = (0.0f32, 0.0f32, 0.0f32);
    for f in 0..120 {
        inst.update_transform();
        let rep = r.frame(&mut inst, f as f32 * DT, DT).unwrap();
        worst = worst.max(rep.worst_joint_violation);
        sep = sep.max(rep.worst_joint_separation);
        last = rep.worst_joint_violation;
    }
    // The bob is pushed well past 0.4 rad into the corner of its box (x and z at their limits,
    // y locked); the limit rows stop its swing with a soft overshoot (0.16 rad measured, as
    // Bullet's 0.475 ERP allows) and then hold it there, to 0.06–0.07 rad: in a corner the
    // rows of a thin capsule (tiny inertia about its axis) are coupled and ten Gauss–Seidel
    // sweeps leave that much, as they do in Bullet.
    let (p, _) = r.body_pose(r.body_of(1).unwrap()).unwrap();
    assert!(p.x > 0.05, "{p}");
    assert!(worst < 0.3, "violation {worst}");
    assert!(last < 0.12, "resting violation {last}");
    // The anchor gives as the limits do (0.02 of the 0.2 bob measured at the overshoot).
    assert!(sep < 0.04, "separation {sep}");
}

#[test]
fn teleport_reseeds_instead_of_exploding() {
    let (_, m) = pendulum();
    let mut inst = SkeletonInstance::new(&m);
    let mut r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
    inst.update_transform();
    assert_eq!(
        r.frame(&mut inst, 0.0, DT).unwrap().reset,
        Some(ResetReason::Initial)
    );
    run(&mut r, &mut inst, 30);
    // A small move is not a teleport.
    inst.state_mut()
        .set_placement(RootPlacement::from_translation(DVec3::new(0.1, 0.0, 0.0)));
    inst.update_transform();
    assert_eq!(r.frame(&mut inst, 0.6, DT).unwrap().reset, None);
    inst.state_mut()
        .set_placement(RootPlacement::from_translation(DVec3::new(100.0, 0.0, 0.0)));
    inst.update_transform();
    let rep = r.frame(&mut inst, 0.7, DT).unwrap().clone();
    assert_eq!(rep.reset, Some(ResetReason::Teleport));
    assert!(
        rep.worst_body_deviation < 0.05,
        "{}",
        rep.worst_body_deviation
    );
    assert!((translation(&inst.world()[2]).x - 100.0).abs() < 0.05);
    // Rewind also re-seeds.
    inst.update_transform();
    assert_eq!(
        r.frame(&mut inst, 0.0, DT).unwrap().reset,
        Some(ResetReason::Rewind)
    );
}

#[test]
fn nan_never_reaches_the_pose() {
    let (_, m) = pendulum();
    let mut inst = SkeletonInstance::new(&m);
    let mut r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
    run(&mut r, &mut inst, 10);
    // A solver blow-up mid-step (rapier itself sanitises NaN velocities, so corrupt the pose).
    r.set_gravity(Vec3::new(0.0, 0.0, 0.0));
    r.corrupt_body_for_tests(r.body_of(1).unwrap());
    inst.update_transform();
    let rep = r.frame(&mut inst, 0.2, DT).unwrap().clone();
    assert!(rep
        .bad_bodies
        .iter()
        .any(|b| b.body == 1 && b.kind == BadBodyKind::NonFiniteState));
    assert!(inst.state().locals().iter().all(Transform::is_finite));
    assert!(inst.world().iter().all(Affine3A::is_finite));
    // Next frames are clean again.
    run(&mut r, &mut inst, 5);
    assert!(r.last_report().bad_bodies.is_empty());
    // A non-finite animated target is skipped (bodies keep their last target) and reported.
    inst.input_mut()[1].translation = Vec3::NAN;
    inst.update_transform();
    let rep = r.frame(&mut inst, 0.5, DT).unwrap();
    assert!(rep
        .bad_bodies
        .iter()
        .any(|b| b.body == 0 && b.kind == BadBodyKind::NonFiniteTarget));
    assert!(
        r.body_pose(r.body_of(0).unwrap()).unwrap().0.is_finite()
            && r.body_pose(r.body_of(1).unwrap()).unwrap().0.is_finite()
    );
    assert!(inst.state().locals()[2].is_finite());
    inst.input_mut()[1].translation = Vec3::Y;
    run(&mut r, &mut inst, 3);
    assert!(r.last_report().bad_bodies.is_empty());
    assert!(inst.world().iter().all(Affine3A::is_finite));
}

#[test]
fn exploded_body_is_reset_and_reported() {
    let skel = skeleton(1.0);
    let b = body(
        Some(1),
        Shape::Sphere,
        Vec3::splat(0.1),
        Vec3::new(0.0, 1.0, 0.0),
        BodyMode::Dynamic,
    );
    let m = model(&skel, vec![b], vec![], true, vec![]);
    let mut inst = SkeletonInstance::new(&m);
    let opts = PhysicsOptions {
        max_body_deviation: 1.0,
        ..PhysicsOptions::default()
    };
    let mut r = Ragdoll::new(&m, opts).unwrap();
    run(&mut r, &mut inst, 2);
    r.set_body_velocity(
        r.body_of(0).unwrap(),
        Vec3::new(100.0, 0.0, 0.0),
        Vec3::ZERO,
    );
    inst.update_transform();
    let rep = r.frame(&mut inst, 0.1, DT).unwrap();
    assert!(rep
        .bad_bodies
        .iter()
        .any(|b| b.body == 0 && b.kind == BadBodyKind::Exploded));
    assert!((translation(&inst.world()[1]) - Vec3::Y).length() < 1e-4);
}

#[test]
fn floating_origin_shift_keeps_bodies_in_the_world() {
    let (_, m) = pendulum();
    let mut inst = SkeletonInstance::new(&m);
    let far = DVec3::new(1.0e6, 0.0, -2.0e6);
    inst.state_mut()
        .set_placement(RootPlacement::from_translation(far));
    inst.state_mut().set_origin(far);
    let mut r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
    r.set_gravity(Vec3::new(3.0, -9.8, 0.0));
    run(&mut r, &mut inst, 20);
    let before = r.body_world(r.body_of(1).unwrap()).unwrap().0;
    // The sim is local: small coordinates although the character is 2·10⁶ m away.
    assert!(r.body_pose(r.body_of(1).unwrap()).unwrap().0.length() < 2.0);
    inst.state_mut()
        .set_origin(far + DVec3::new(10.0, 0.0, 0.0));
    r.set_gravity(Vec3::ZERO);
    r.set_body_velocity(r.body_of(1).unwrap(), Vec3::ZERO, Vec3::ZERO);
    inst.update_transform();
    let rep = r.frame(&mut inst, 0.4, 0.0).unwrap();
    assert_eq!(rep.reset, None);
    let after = r.body_world(r.body_of(1).unwrap()).unwrap().0;
    assert!((after - before).length() < 1e-3, "{before} → {after}");
}

/// A profile picks the bodies, overrides a mode and scales radii: the pendulum's capsule
/// (radius 0.03, cylinder 0.2) with radius scale 2 is created with radius 0.06 and the same
/// full length (cylinder 0.14); the anchor box, scaled 3, keeps its half extents (the scale is
/// a radius scale). Without the entry's scale the capsule would keep radius 0.03.
#[test]
fn profile_selects_bodies_and_overrides_mode() {
    let (_, m) = pendulum();
    let p = Profile {
        bodies: vec![
            ProfileBody {
                body: 0,
                mode: None,
                radius_scale: 3.0,
            },
            ProfileBody {
                body: 1,
                mode: Some(BodyMode::Kinematic),
                radius_scale: 2.0,
            },
        ],
        joints: Vec::new(),
    };
    let r = Ragdoll::new(
        &m,
        PhysicsOptions {
            profile: Some(p),
            ..PhysicsOptions::default()
        },
    )
    .unwrap();
    assert_eq!(
        r.body_mode(r.body_of(0).unwrap()),
        Some(BodyMode::Kinematic)
    );
    assert_eq!(
        r.body_mode(r.body_of(1).unwrap()),
        Some(BodyMode::Kinematic)
    );
    let (shape, size) = r.body_shape(r.body_of(1).unwrap()).unwrap();
    assert_eq!(shape, Shape::Capsule);
    assert!(
        size.abs_diff_eq(Vec3::new(0.06, 0.14, 0.0), 1e-6),
        "capsule radius doubled, full length kept: {size}"
    );
    assert!((size.y + 2.0 * size.x - (0.2 + 2.0 * 0.03)).abs() < 1e-6);
    assert_eq!(
        r.body_shape(r.body_of(0).unwrap()),
        Some((Shape::Box, Vec3::splat(0.05)))
    );
    // Unscaled: the table's sizes.
    let r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
    assert_eq!(
        r.body_shape(r.body_of(1).unwrap()),
        Some((Shape::Capsule, Vec3::new(0.03, 0.2, 0.0)))
    );
    let only_anchor = PhysicsOptions {
        profile: Some(Profile::from_bodies([0])),
        ..PhysicsOptions::default()
    };
    let r = Ragdoll::new(&m, only_anchor).unwrap();
    assert_eq!((r.body_count(), r.joint_count()), (1, 0));
    assert_eq!(
        r.body_of(1),
        None,
        "a body the profile leaves out is not created"
    );
}

/// skeleton-dynamics-api.md, "Physics": `profileRadiusScale`, "finite positive number; radius
/// scale of generated profile capsules". A table with radius scale 1.5 (and unit scale 2):
/// with a profile its sphere and capsule are created with radii × 1.5 (× the entry's own
/// scale, 2 for the sphere), capsules keeping their full length, boxes as they are; without a
/// profile the table's sizes stand. Scales that are not finite and positive are refused. A
/// ragdoll that ignored the table's scale would create radii × 1 (× 2).
#[test]
fn table_radius_scale_scales_profile_radii() {
    let skel = skeleton(1.0);
    let table = |radius_scale: f32| {
        Physics::new(
            vec![
                body(
                    Some(1),
                    Shape::Sphere,
                    Vec3::splat(0.1),
                    Vec3::Y,
                    BodyMode::Kinematic,
                ),
                body(
                    Some(2),
                    Shape::Capsule,
                    Vec3::new(0.04, 0.3, 0.0),
                    Vec3::new(0.0, 0.8, 0.0),
                    BodyMode::Kinematic,
                ),
                body(
                    None,
                    Shape::Box,
                    Vec3::new(0.1, 0.2, 0.3),
                    Vec3::ZERO,
                    BodyMode::Kinematic,
                ),
            ]
            .into_iter()
            .map(|b| RigidBody::new(b).unwrap())
            .collect(),
            vec![],
            Vec3::splat(2.0),
            false,
            true,
            radius_scale,
            vec![],
        )
    };
    for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        assert!(table(bad).is_err(), "radius scale {bad}");
    }
    let mut m = Model::new(skel.clone());
    SkeletonDynamicsBuilder::new(&skel)
        .physics(table(1.5).unwrap())
        .attach(&mut m)
        .unwrap();
    assert_eq!(m.dynamics().physics().profile_radius_scale(), 1.5);
    let profile = Profile {
        bodies: vec![
            ProfileBody {
                body: 0,
                mode: None,
                radius_scale: 2.0,
            },
            ProfileBody::new(1),
            ProfileBody::new(2),
        ],
        joints: Vec::new(),
    };
    let r = Ragdoll::new(
        &m,
        PhysicsOptions {
            profile: Some(profile),
            ..PhysicsOptions::default()
        },
    )
    .unwrap();
    let close = |body: usize, shape: Shape, want: Vec3| {
        let (s, size) = r.body_shape(r.body_of(body).unwrap()).unwrap();
        assert_eq!(s, shape, "body {body}");
        assert!(
            size.abs_diff_eq(want, 1e-6),
            "body {body}: {size} vs {want}"
        );
    };
    // Sphere: 0.1 × 2 (unit) × 1.5 (table) × 2 (entry).
    close(0, Shape::Sphere, Vec3::new(0.6, 0.0, 0.0));
    // Capsule: radius 0.08 × 1.5 = 0.12; full length 0.6 + 0.16 = 0.76 kept.
    close(1, Shape::Capsule, Vec3::new(0.12, 0.52, 0.0));
    close(2, Shape::Box, Vec3::new(0.2, 0.4, 0.6));
    // Without a profile: no profile capsules, the table's sizes (× the unit scale).
    let r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
    assert_eq!(
        r.body_shape(r.body_of(0).unwrap()),
        Some((Shape::Sphere, Vec3::new(0.2, 0.0, 0.0)))
    );
    assert_eq!(
        r.body_shape(r.body_of(1).unwrap()),
        Some((Shape::Capsule, Vec3::new(0.08, 0.6, 0.0)))
    );
}

#[test]
fn fixed_step_accumulator_and_cap() {
    let (_, m) = pendulum();
    let mut inst = SkeletonInstance::new(&m);
    let mut r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
    inst.update_transform();
    let steps =
        |r: &mut Ragdoll, inst: &mut SkeletonInstance, t, dt| r.frame(inst, t, dt).unwrap().steps;
    assert_eq!(steps(&mut r, &mut inst, 0.0, 1.0 / 120.0), 0);
    assert_eq!(steps(&mut r, &mut inst, 0.01, 1.0 / 120.0), 1);
    assert_eq!(steps(&mut r, &mut inst, 0.05, 1.0 / 30.0), 2);
    let rep = r.frame(&mut inst, 0.6, 0.5).unwrap();
    assert_eq!(rep.steps, 4);
    assert!(rep.dropped_time > 0.4);
}

#[test]
fn tick_module_in_physics_slot() {
    let skel = skeleton(1.0);
    let b = body(
        Some(1),
        Shape::Sphere,
        Vec3::splat(0.1),
        Vec3::new(0.0, 1.0, 0.0),
        BodyMode::Dynamic,
    );
    let m = model(&skel, vec![b], vec![], true, vec![]);
    let mut inst = SkeletonInstance::new(&m);
    let mut tl = TickLoop::new();
    let r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
    tl.add_before(Slot::Physics, "physics", PhysicsModule::new(r))
        .unwrap();
    for f in 0..30 {
        let rep = tl.tick(&mut inst, f as f32 * DT, DT);
        assert!(rep.errors.is_empty());
    }
    assert!(translation(&inst.world()[1]).y < 0.9);
    // A wrong skeleton is reported, not a panic.
    let other = Model::new(skeleton(1.0));
    let mut wrong = SkeletonInstance::new(&other);
    assert_eq!(tl.tick(&mut wrong, 0.0, DT).errors.len(), 1);
}

/// skeleton-dynamics-api.md, "Per-Tick Targets": "transient targets are consumed by both IK and
/// physics within the same cycle", and `clearFrameIkTargets` runs "at the start of a cycle".
/// A frame target published before IK is still the chain's target when the physics slot runs:
/// a late apply there marks the instance dirty, so the ragdoll evaluates it again before it
/// drives its bodies, and the kinematic body on the hand still lands on the frame target. The
/// next cycle starts without it (the persistent target again). Clearing the frame targets once
/// IK has run would send the hand and its body to the persistent target in the first cycle;
/// not clearing them at the start of a cycle would keep the hand on the frame target in the
/// second.
#[test]
fn frame_targets_reach_ik_and_physics_in_the_same_tick() {
    use sinew::dynamics::{IkChain, IkLink};
    use sinew::instance::{ExternalTarget, IkTargetModule, ModuleError, TickContext, TickModule};
    use std::sync::Mutex;

    let mut s = SkeletonBuilder::new();
    s.push("root", Parent::Root, Transform::IDENTITY);
    s.push("upper", "root", Transform::from_translation(Vec3::Y));
    s.push("lower", "upper", Transform::from_translation(Vec3::X * 0.5));
    s.push("hand", "lower", Transform::from_translation(Vec3::X * 0.5));
    s.push(
        "goal",
        "root",
        Transform::from_translation(Vec3::new(1.0, 1.0, 0.0)),
    );
    let skel = s.build().unwrap();
    let f = |n: &str| skel.find(n).unwrap();
    let hand = f("hand");
    let mut m = Model::new(skel.clone());
    let physics = Physics::new(
        vec![RigidBody::new(body(
            Some(3),
            Shape::Sphere,
            Vec3::splat(0.05),
            Vec3::new(1.0, 1.0, 0.0),
            BodyMode::Kinematic,
        ))
        .unwrap()],
        vec![],
        Vec3::ONE,
        false,
        true,
        1.0,
        vec![],
    )
    .unwrap();
    let chain = IkChain::new(
        "arm",
        f("goal"),
        hand,
        vec![IkLink::new(f("upper")), IkLink::new(f("lower"))],
    )
    .unwrap();
    SkeletonDynamicsBuilder::new(&skel)
        .physics(physics)
        .ik(chain)
        .attach(&mut m)
        .unwrap();
    let mut inst = SkeletonInstance::new(&m);
    let persistent = Vec3::new(0.3, 1.6, 0.2);
    let frame = Vec3::new(0.6, 0.4, 0.3);
    inst.set_ik_target("arm", persistent, 1.0).unwrap();

    /// Writes the input in the physics slot (a late apply): the instance is dirty again.
    struct LateApply;
    impl TickModule for LateApply {
        fn tick(&mut self, ctx: &mut TickContext<'_>) -> Result<(), ModuleError> {
            ctx.instance.input_mut()[0].translation = Vec3::ZERO;
            Ok(())
        }
    }
    /// What the chain's target is when the physics slot runs.
    struct Probe(Arc<Mutex<Option<ExternalTarget>>>);
    impl TickModule for Probe {
        fn tick(&mut self, ctx: &mut TickContext<'_>) -> Result<(), ModuleError> {
            *self.0.lock().unwrap() = ctx.instance.effective_target(0);
            Ok(())
        }
    }
    /// The physics module, shared so the test can read its ragdoll.
    struct Shared(Arc<Mutex<PhysicsModule>>);
    impl TickModule for Shared {
        fn tick(&mut self, ctx: &mut TickContext<'_>) -> Result<(), ModuleError> {
            self.0.lock().unwrap().tick(ctx)
        }
    }
    let seen = Arc::new(Mutex::new(None));
    let physics = Arc::new(Mutex::new(PhysicsModule::new(
        Ragdoll::new(&m, PhysicsOptions::default()).unwrap(),
    )));
    let mut tl = TickLoop::new();
    tl.add_pre_ik("frame-target", IkTargetModule::new("arm", frame).unwrap())
        .unwrap();
    tl.add_before(Slot::Physics, "late-apply", LateApply)
        .unwrap();
    tl.add_before(Slot::Physics, "probe", Probe(seen.clone()))
        .unwrap();
    tl.add_before(Slot::Physics, "physics", Shared(physics.clone()))
        .unwrap();
    let body_at = || {
        let p = physics.lock().unwrap();
        let r = p.ragdoll();
        r.body_world(r.body_of(0).unwrap()).unwrap().0.as_vec3()
    };

    let rep = tl.tick(&mut inst, 0.0, DT);
    assert!(rep.errors.is_empty(), "{:?}", rep.errors);
    let target = seen.lock().unwrap().map(|t| t.world);
    assert_eq!(target, Some(frame), "the frame target in the physics slot");
    let at = translation(&inst.world()[hand.index()]);
    assert!(
        at.distance(frame) < 1e-3,
        "hand {at} vs frame target {frame}"
    );
    assert!(
        body_at().distance(frame) < 1e-3,
        "the hand's body {} vs frame target {frame}",
        body_at()
    );

    // Next cycle, nobody publishes a frame target: the persistent one applies again.
    assert!(tl.remove("frame-target"));
    let rep = tl.tick(&mut inst, DT, DT);
    assert!(rep.errors.is_empty(), "{:?}", rep.errors);
    let target = seen.lock().unwrap().map(|t| t.world);
    assert_eq!(
        target,
        Some(persistent),
        "cleared at the start of the cycle"
    );
    let at = translation(&inst.world()[hand.index()]);
    assert!(at.distance(persistent) < 1e-3, "hand {at} vs {persistent}");
    assert!(
        body_at().distance(persistent) < 1e-3,
        "the hand's body {} vs {persistent}",
        body_at()
    );
}

/// A "D-bone" inheriting a simulated bone's rotation follows it after physics (the late pass of
/// `evaluate_after_physics` with `Writeback::Locals`), not the animated pose.
#[test]
fn d_bones_follow_simulated_bones() {
    let mut s = SkeletonBuilder::new();
    s.push("root", Parent::Root, Transform::IDENTITY);
    s.push(
        "a",
        "root",
        Transform::from_translation(Vec3::new(0.0, 1.0, 0.0)),
    );
    s.push(
        "b",
        "a",
        Transform::from_translation(Vec3::new(0.0, -0.3, 0.0)),
    );
    s.push(
        "b_d",
        "a",
        Transform::from_translation(Vec3::new(0.0, -0.3, 0.0)),
    );
    let skel = s.build().unwrap();
    let [anchor, bob] = hanging_bob(0.6);
    let j = bob_joint(0.7, Vec3::new(-1.0, 0.0, -1.0), Vec3::new(1.0, 0.0, 1.0));
    let physics = Physics::new(
        vec![
            RigidBody::new(anchor).unwrap(),
            RigidBody::new(bob).unwrap(),
        ],
        vec![Joint::new(j).unwrap()],
        Vec3::ONE,
        false,
        false,
        1.0,
        vec![],
    )
    .unwrap();
    let (b, b_d) = (skel.find("b").unwrap(), skel.find("b_d").unwrap());
    let mut builder = SkeletonDynamicsBuilder::new(&skel);
    builder.physics(physics);
    builder.pose(
        BonePoseConstraint::new(
            b_d,
            Some(TransformInheritance::new(b, 1.0, true, true).unwrap()),
            None,
        )
        .unwrap(),
    );
    let mut m = Model::new(skel.clone());
    builder.attach(&mut m).unwrap();
    let mut inst = SkeletonInstance::new(&m);
    let mut r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
    r.set_gravity(Vec3::new(6.0, -9.8, 0.0));
    for f in 0..60 {
        inst.update_transform();
        r.frame(&mut inst, f as f32 * DT, DT).unwrap();
    }
    let w = inst.world();
    // Physics swung the bob sideways; its D-bone went with it.
    assert!(
        w[b.index()].transform_vector3(Vec3::Y).x.abs() > 0.1,
        "the bob did not swing"
    );
    assert!(
        w[b.index()].abs_diff_eq(w[b_d.index()], 1e-5),
        "{:?} vs {:?}",
        w[b.index()],
        w[b_d.index()]
    );
}

/// The physics override wins over a fixed axis (skeleton-dynamics-api: "the physics override
/// takes the final simulated pose as authoritative; this axis constraint does not replace
/// physics joint limits"), and a mass-0 body is moved by its bone, not simulated.
#[test]
fn physics_overrides_fixed_axes_and_mass_zero_bodies_follow_their_bones() {
    let skel = skeleton(1.0);
    let b = skel.find("b").unwrap();
    let [anchor, bob] = hanging_bob(0.6);
    let bob = |mass: f32| RigidBodyDesc {
        mass,
        ..bob.clone()
    };
    let j = bob_joint(0.7, Vec3::splat(-1.0), Vec3::splat(1.0));
    let build = |mass: f32| {
        let physics = Physics::new(
            vec![
                RigidBody::new(anchor.clone()).unwrap(),
                RigidBody::new(bob(mass)).unwrap(),
            ],
            vec![Joint::new(j.clone()).unwrap()],
            Vec3::ONE,
            false,
            false,
            1.0,
            vec![],
        )
        .unwrap();
        let mut builder = SkeletonDynamicsBuilder::new(&skel);
        builder.physics(physics);
        // b keeps only its twist about X when animated.
        builder.pose(BonePoseConstraint::new(b, None, Some(Vec3::X)).unwrap());
        let mut m = Model::new(skel.clone());
        builder.attach(&mut m).unwrap();
        m
    };
    let run = |m: &Model| {
        let mut inst = SkeletonInstance::new(m);
        let mut r = Ragdoll::new(m, PhysicsOptions::default()).unwrap();
        r.set_gravity(Vec3::new(6.0, -9.8, 0.0));
        for f in 0..60 {
            inst.update_transform();
            r.frame(&mut inst, f as f32 * DT, DT).unwrap();
        }
        let (p, _) = r.body_pose(r.body_of(1).unwrap()).unwrap();
        (inst.state().locals()[b.index()].rotation, p)
    };
    // Simulated: swung about Z by the sideways gravity, beyond what the fixed axis allows.
    let (q, _) = run(&build(1.0));
    let (axis, angle) = q.to_axis_angle();
    assert!(angle > 0.1 && axis.z.abs() > 0.9, "{axis} {angle}");
    // Mass 0: driven by its bone, the body stays where the bone puts it.
    let (q, p) = run(&build(0.0));
    assert!(q.angle_between(Quat::IDENTITY) < 1e-6, "{q}");
    assert!((p - Vec3::new(0.0, 0.6, 0.0)).length() < 1e-5, "{p}");
}

/// Bodies and joints as typed handles: each body's and joint's source is its definition, bodies
/// read and are placed in world coordinates (the floating-origin anchor added back), and a
/// body placed goes on from where it was put.
#[test]
fn bodies_and_joints_as_handles() {
    let (_, m) = pendulum();
    let table = m.dynamics().physics();
    let mut inst = SkeletonInstance::new(&m);
    inst.state_mut().set_origin(DVec3::new(1000.0, 0.0, -500.0));
    let mut r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
    let bodies: Vec<_> = r.body_ids().collect();
    assert_eq!(bodies.len(), 2);
    for (i, &id) in bodies.iter().enumerate() {
        assert_eq!(r.body_of(i), Some(id));
        assert_eq!(r.body_definition(id), Some(i));
        assert_eq!(r.body_source(id), Some(&table.bodies()[i]));
    }
    let joints: Vec<_> = r.joint_ids().collect();
    assert_eq!(joints.len(), 1);
    assert_eq!(r.joint_source(joints[0]), Some(&table.joints()[0]));
    assert_eq!(r.joint_bodies(joints[0]), Some((bodies[0], bodies[1])));
    assert_eq!(r.body_of(7), None);
    r.frame(&mut inst, 0.0, DT).unwrap();
    // World = the anchor + the simulation-local position.
    let (w, _) = r.body_world(bodies[1]).unwrap();
    let (local, _) = r.body_pose(r.body_of(1).unwrap()).unwrap();
    assert!((w - (DVec3::new(1000.0, 0.0, -500.0) + local.as_dvec3())).length() < 1e-4);
    // Placed 0.1 above where it is, turned: read back, then it falls on from there.
    let (before, _) = r.body_world(bodies[1]).unwrap();
    let target = before + DVec3::new(0.0, 0.1, 0.0);
    let turn = Quat::from_rotation_z(0.3);
    assert!(r.set_body_world(bodies[1], target, turn));
    let (p, q) = r.body_world(bodies[1]).unwrap();
    assert!((p - target).length() < 1e-4 && q.angle_between(turn) < 1e-4);
    inst.update_transform();
    r.frame(&mut inst, DT, DT).unwrap();
    let (after, _) = r.body_world(bodies[1]).unwrap();
    assert!(
        after.y < target.y && after.y > before.y - 0.05,
        "{before} → {target} → {after}"
    );
    assert!(!r.set_body_world(bodies[1], DVec3::NAN, Quat::IDENTITY));
    assert!(!r.set_body_world(bodies[1], target, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)));
}

/// skeleton-dynamics-api.md, `updateTransformAfterPhysics`: "rebuilds the hierarchy after
/// writeback, preserving solved IK corrections without solving IK again" — through a ragdoll's
/// locals writeback. The humanoid's left arm chain takes the ponytail's tip, a simulated bone,
/// as its controller (its default target). Physics swings the ponytail every frame; after the
/// writeback the hand is exactly where the frame's solve put it (aimed at the tip's animated
/// place), not re-aimed at where physics moved the tip, which a second solve would do.
#[test]
fn after_physics_rebuild_does_not_solve_ik_again() {
    use sinew::dynamics::IkChain;
    let h = sinew_humanoid::Humanoid::new();
    let mut m = h.model_with_ik_and_physics();
    let tip = h.bones.ponytail[4];
    let hand = h.bones.arm[0].end;
    let arm = &m.dynamics().ik_chains()[m.dynamics().chain_index("arm_l").unwrap()];
    let chain = IkChain::with_params(
        "arm_l",
        tip,
        arm.effector(),
        arm.links().to_vec(),
        *arm.params(),
    )
    .unwrap();
    SkeletonDynamicsBuilder::new(m.skeleton())
        .ik(chain)
        .attach(&mut m)
        .unwrap();
    let mut inst = SkeletonInstance::new(&m);
    let mut r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
    r.set_gravity(Vec3::new(8.0, -9.8, 4.0));
    let at = |inst: &SkeletonInstance, b: BoneId| translation(&inst.world()[b.index()]);
    let mut swing = 0.0f32;
    for f in 0..40 {
        inst.update_transform();
        let (solved_hand, animated_tip) = (inst.world()[hand.index()], at(&inst, tip));
        let result = *inst.ik_result("arm_l").unwrap();
        r.frame(&mut inst, f as f32 * DT, DT).unwrap();
        swing = swing.max((at(&inst, tip) - animated_tip).length());
        assert!(
            inst.world()[hand.index()].abs_diff_eq(solved_hand, 1e-6),
            "frame {f}: the hand moved after physics: {} → {}",
            Vec3::from(solved_hand.translation),
            at(&inst, hand)
        );
        assert_eq!(inst.ik_result("arm_l"), Some(&result), "frame {f}");
    }
    assert!(swing > 0.05, "physics moved the tip by {swing}");
}
