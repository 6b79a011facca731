//! The instance runtime (skeleton-dynamics-api.md "SkeletonInstance Runtime Control",
//! "Per-Tick Targets", "Diamond Closure", "Generic Bone Pose Constraints", "Solver Adaptation
//! for Custom Hosts").

use std::sync::Arc;

use glam::{Affine3A, DVec3, Quat, Vec3};
use sinew::dynamics::*;
use sinew::instance::*;
use sinew::{BoneId, Model, Parent, RootPlacement, SkeletonBuilder, SkeletonInstance, Transform};
use sinew_humanoid::Humanoid;

fn humanoid() -> (Humanoid, Model) {
    let h = Humanoid::new();
    let m = h.model_with_ik();
    (h, m)
}

fn pos(inst: &SkeletonInstance, b: BoneId) -> Vec3 {
    inst.world()[b.index()].translation.into()
}

#[test]
fn toggles_default_true_unknown_chains_answer_as_specified() {
    let (_, m) = humanoid();
    let mut inst = SkeletonInstance::new(&m);
    // "isIkEnabled: default true; unknown chains also return true"
    assert!(inst.is_ik_enabled("arm_l") && inst.is_ik_enabled("nope"));
    // "setIkEnabled returns false for an undefined chain"
    assert!(!inst.set_ik_enabled("nope", false));
    assert!(inst.set_ik_enabled("arm_l", false));
    assert!(!inst.is_ik_enabled("arm_l"));
    // "clearIkEnabled returns true when state was removed"
    assert!(inst.clear_ik_enabled("arm_l"));
    assert!(!inst.clear_ik_enabled("arm_l"));
    assert!(inst.is_ik_enabled("arm_l"));
    // "resetIkEnabled clears overrides"
    inst.set_ik_enabled("leg_l", false);
    inst.reset_ik_enabled();
    assert!(inst.is_ik_enabled("leg_l"));
}

#[test]
fn target_validation_and_unknown_chains() {
    let (_, m) = humanoid();
    let mut inst = SkeletonInstance::new(&m);
    // "unknown chains return false before the target value is validated"
    assert_eq!(inst.set_ik_target("nope", Vec3::NAN, 5.0), Ok(false));
    assert_eq!(inst.set_frame_ik_target("nope", Vec3::NAN, 5.0), Ok(false));
    // "targets must be finite, weight finite and within [0,1]"
    assert!(matches!(
        inst.set_ik_target("arm_l", Vec3::new(f32::INFINITY, 0.0, 0.0), 1.0),
        Err(InstanceError::NonFiniteTarget { .. })
    ));
    for w in [-0.1, 1.1, f32::NAN] {
        assert!(matches!(
            inst.set_frame_ik_target("arm_l", Vec3::ZERO, w),
            Err(InstanceError::InvalidWeight { .. })
        ));
    }
    // "clearIkTarget returns false when there is no target"
    assert!(!inst.clear_ik_target("arm_l"));
    assert_eq!(inst.set_ik_target("arm_l", Vec3::ONE, 1.0), Ok(true));
    assert!(inst.clear_ik_target("arm_l"));
}

#[test]
fn setting_a_target_only_marks_the_instance_dirty() {
    let (h, m) = humanoid();
    let mut inst = SkeletonInstance::new(&m);
    inst.update_transform();
    let before = pos(&inst, h.bones.arm[0].end);
    assert!(!inst.is_dirty());
    inst.set_ik_target("arm_l", before + Vec3::new(-0.2, -0.3, 0.2), 1.0)
        .unwrap();
    assert!(inst.is_dirty());
    assert_eq!(
        pos(&inst, h.bones.arm[0].end),
        before,
        "no solve until update"
    );
    inst.update_transform();
    assert_ne!(pos(&inst, h.bones.arm[0].end), before);
}

#[test]
fn reachable_targets_are_reached_and_results_reported() {
    let (h, m) = humanoid();
    let mut inst = SkeletonInstance::new(&m);
    inst.update_transform();
    let shoulder = pos(&inst, h.bones.arm[0].upper);
    let target = shoulder + Vec3::new(0.25, -0.2, 0.3);
    inst.set_ik_target("arm_l", target, 1.0).unwrap();
    let foot = pos(&inst, h.bones.leg[1].end);
    let foot_target = foot + Vec3::new(0.0, 0.25, 0.1);
    inst.set_ik_target("leg_r", foot_target, 1.0).unwrap();
    inst.update_transform();
    let r = inst.ik_result("arm_l").unwrap();
    assert!(r.satisfied, "{r:?}");
    assert!((pos(&inst, h.bones.arm[0].end) - target).length() <= 1e-3 + 1e-5);
    let r = inst.ik_result("leg_r").unwrap();
    assert!(r.residual < 1e-3, "{r:?}");
    assert!((pos(&inst, h.bones.leg[1].end) - foot_target).length() < 1e-3);
    // Results are a borrowed view over all chains that ran.
    assert_eq!(inst.ik_results().count(), 4);
    // Bone lengths preserved.
    let arm = h.bones.arm[0];
    let len = |i: &SkeletonInstance| (pos(i, arm.lower) - pos(i, arm.upper)).length();
    let rest_len = h.skeleton.rest(arm.lower).translation.length();
    assert!((len(&inst) - rest_len).abs() < 1e-4);
}

#[test]
fn weight_blends_from_the_controllers_current_position() {
    let (h, m) = humanoid();
    let mut inst = SkeletonInstance::new(&m);
    inst.update_transform();
    let hand = pos(&inst, h.bones.arm[0].end);
    let far = pos(&inst, h.bones.arm[0].upper) + Vec3::new(0.2, -0.25, 0.2);
    inst.set_ik_target("arm_l", far, 0.0).unwrap();
    inst.update_transform();
    assert!(
        (pos(&inst, h.bones.arm[0].end) - hand).length() < 1e-4,
        "weight 0 keeps the pose"
    );
    inst.set_ik_target("arm_l", far, 0.5).unwrap();
    inst.update_transform();
    let mid = (hand + far) * 0.5;
    assert!((pos(&inst, h.bones.arm[0].end) - mid).length() <= 1e-3 + 1e-5);
}

#[test]
fn frame_targets_win_and_are_cleared_by_the_tick_loop() {
    let (h, m) = humanoid();
    let mut inst = SkeletonInstance::new(&m);
    inst.update_transform();
    let hand = pos(&inst, h.bones.arm[0].end);
    let shoulder = pos(&inst, h.bones.arm[0].upper);
    let _ = hand;
    let persistent = shoulder + Vec3::new(0.3, -0.2, 0.15);
    let frame = shoulder + Vec3::new(0.25, 0.1, 0.3);
    inst.set_ik_target("arm_l", persistent, 1.0).unwrap();
    inst.set_frame_ik_target("arm_l", frame, 1.0).unwrap();
    inst.update_transform();
    assert!((pos(&inst, h.bones.arm[0].end) - frame).length() < 2e-3);
    let mut tick = TickLoop::new();
    let report = tick.tick(&mut inst, 0.0, 1.0 / 60.0);
    assert!(report.errors.is_empty());
    assert!(
        (pos(&inst, h.bones.arm[0].end) - persistent).length() < 2e-3,
        "frame target cleared at cycle start"
    );
}

#[test]
fn solving_is_idempotent_and_disabled_chains_have_no_result() {
    let (h, m) = humanoid();
    let mut inst = SkeletonInstance::new(&m);
    h.animate(0.3, inst.input_mut());
    inst.update_transform();
    let hand = pos(&inst, h.bones.arm[0].end);
    inst.set_ik_target(
        "arm_l",
        pos(&inst, h.bones.arm[0].upper) + Vec3::new(0.3, -0.2, 0.15),
        1.0,
    )
    .unwrap();
    inst.update_transform();
    let first = inst.world().to_vec();
    inst.update_transform();
    assert_eq!(first, inst.world(), "same input, same output");
    inst.set_ik_enabled("arm_l", false);
    inst.update_transform();
    assert!(inst.ik_result("arm_l").is_none());
    assert!(
        (pos(&inst, h.bones.arm[0].end) - hand).length() < 1e-5,
        "disabled chain keeps the animated pose"
    );
}

/// skeleton-dynamics-api.md, `updateTransformAfterPhysics`: "rebuilds the hierarchy after
/// writeback, preserving solved IK corrections without solving IK again". The arm's target is
/// moved between the frame's solve and the after-physics rebuild: kept corrections leave the
/// hand on the target it was solved for, a solve again would move it to the new one. The local
/// physics wrote stays, and the rebuilt hierarchy uses it.
#[test]
fn after_physics_rebuild_keeps_ik_corrections() {
    let (h, m) = humanoid();
    let mut inst = SkeletonInstance::new(&m);
    inst.update_transform();
    let hand = h.bones.arm[0].end;
    let shoulder = pos(&inst, h.bones.arm[0].upper);
    let target = shoulder + Vec3::new(0.3, -0.2, 0.15);
    inst.set_ik_target("arm_l", target, 1.0).unwrap();
    inst.update_transform();
    assert!((pos(&inst, hand) - target).length() < 2e-3);
    let solved = *inst.ik_result("arm_l").unwrap();
    let solved_locals: Vec<Transform> = inst.state().locals().to_vec();
    // The target moves after the solve (a host's input for the next frame).
    let moved = shoulder + Vec3::new(0.1, -0.35, 0.25);
    inst.set_ik_target("arm_l", moved, 1.0).unwrap();
    // Physics writes a ponytail bone back.
    let pony = h.bones.ponytail[1];
    let written = Quat::from_rotation_x(0.5);
    inst.state_mut().locals_mut()[pony.index()].rotation = written;
    inst.evaluate_after_physics(Writeback::Locals);
    assert!(
        (pos(&inst, hand) - target).length() < 2e-3,
        "the hand stays where this frame's solve put it: {}",
        pos(&inst, hand)
    );
    assert!((pos(&inst, hand) - moved).length() > 0.1);
    assert_eq!(
        inst.ik_result("arm_l"),
        Some(&solved),
        "no new solve result"
    );
    for (b, (now, then)) in inst.state().locals().iter().zip(&solved_locals).enumerate() {
        if b != pony.index() {
            assert_eq!(now, then, "bone {b}: the solved locals are kept");
        }
    }
    // The written local stays, and the rebuilt hierarchy uses it.
    let l = inst.state().locals()[pony.index()];
    assert_eq!(l.rotation, written);
    let w = inst.world()[h.bones.ponytail[0].index()] * l.to_affine();
    assert!(w.abs_diff_eq(inst.world()[pony.index()], 1e-5));
    // The next frame solves for the moved target.
    inst.update_transform();
    assert!((pos(&inst, hand) - moved).length() < 2e-3);
}

#[test]
fn inheritance_reads_the_evaluated_delta_and_fixed_axis_keeps_twist() {
    let (h, m) = humanoid();
    let mut inst = SkeletonInstance::new(&m);
    let hand = h.bones.arm[0].end;
    let twist = h.bones.forearm_twist[0];
    // Hand turned about X (twist) and Z (swing).
    let q = Quat::from_rotation_z(0.4) * Quat::from_rotation_x(0.8);
    inst.input_mut()[hand.index()].rotation = q;
    inst.update_transform();
    let got = inst.state().locals()[twist.index()].rotation;
    // Half the hand's rotation, then only its twist about X.
    let half = scale_rotation(q, 0.5);
    let expected = twist_about(half, Vec3::X);
    assert!(
        got.abs_diff_eq(expected, 1e-5) || got.abs_diff_eq(-expected, 1e-5),
        "{got} vs {expected}"
    );
    let (axis, _) = got.to_axis_angle();
    assert!(
        axis.abs().abs_diff_eq(Vec3::X, 1e-4),
        "only twist about X remains: {axis}"
    );
}

#[test]
fn inheritance_translation_negative_weight_and_cross_branch_order() {
    let s = SkeletonBuilder::new()
        .bone("root", Parent::Root, Transform::IDENTITY)
        .bone("target", "root", Transform::from_translation(Vec3::X))
        .bone("mid", "root", Transform::from_translation(Vec3::Y))
        .bone("source", "root", Transform::from_translation(Vec3::Z))
        .build()
        .unwrap();
    let mut model = Model::new(s.clone());
    let mut b = SkeletonDynamicsBuilder::new(&s);
    let f = |n: &str| s.find(n).unwrap();
    // target <- mid (weight -1, translation+rotation) and mid <- source (weight 2).
    b.pose(
        BonePoseConstraint::new(
            f("target"),
            Some(TransformInheritance::new(f("mid"), -1.0, true, true).unwrap()),
            None,
        )
        .unwrap(),
    );
    b.pose(
        BonePoseConstraint::new(
            f("mid"),
            Some(TransformInheritance::new(f("source"), 2.0, true, true).unwrap()),
            None,
        )
        .unwrap(),
    );
    b.attach(&mut model).unwrap();
    let mut inst = SkeletonInstance::new(&model);
    // source moved by +0.5 Y from its rest and turned 0.3 rad about Y.
    inst.input_mut()[f("source").index()] =
        Transform::from_translation_rotation(Vec3::new(0.0, 0.5, 1.0), Quat::from_rotation_y(0.3));
    inst.update_transform();
    let l = inst.state().locals();
    assert!(
        l[f("mid").index()]
            .translation
            .abs_diff_eq(Vec3::new(0.0, 2.0, 0.0), 1e-5),
        "rest + 2 × delta"
    );
    assert!(l[f("mid").index()]
        .rotation
        .abs_diff_eq(Quat::from_rotation_y(0.6), 1e-5));
    assert!(
        l[f("target").index()]
            .translation
            .abs_diff_eq(Vec3::new(1.0, -1.0, 0.0), 1e-5),
        "rest − mid's delta"
    );
    assert!(l[f("target").index()]
        .rotation
        .abs_diff_eq(Quat::from_rotation_y(-0.6), 1e-5));
}

/// The spec's closure example: two branches from a shared base meeting at one point.
fn closure_model() -> (Model, [BoneId; 4]) {
    let t = |x: f32, y: f32| Transform::from_translation(Vec3::new(x, y, 0.0));
    let s = SkeletonBuilder::new()
        .bone("root", Parent::Root, Transform::IDENTITY)
        .bone("left-base", "root", t(0.0, 0.0))
        .bone("left-mid", "left-base", t(-0.5, 1.0))
        .bone("left-tip", "left-mid", t(0.5, 1.0))
        .bone("right-base", "root", t(0.0, 0.0))
        .bone("right-mid", "right-base", t(0.5, 1.0))
        .bone("right-tip", "right-mid", t(-0.5, 1.0))
        .bone("closure-target", "root", t(0.0, 2.0))
        .build()
        .unwrap();
    let f = |n: &str| s.find(n).unwrap();
    let mut model = Model::new(s.clone());
    let mut b = SkeletonDynamicsBuilder::new(&s);
    let left = IkChain::new(
        "left-linkage",
        f("closure-target"),
        f("left-tip"),
        vec![IkLink::new(f("left-base")), IkLink::new(f("left-mid"))],
    )
    .unwrap();
    let right = IkChain::new(
        "right-linkage",
        f("closure-target"),
        f("right-tip"),
        vec![IkLink::new(f("right-base")), IkLink::new(f("right-mid"))],
    )
    .unwrap();
    b.ik(left).ik(right).diamond(
        DiamondConstraint::with_params("linkage", "left-linkage", "right-linkage", 64, 1e-3)
            .unwrap(),
    );
    b.attach(&mut model).unwrap();
    (
        model,
        [
            f("left-tip"),
            f("right-tip"),
            f("left-base"),
            f("right-base"),
        ],
    )
}

#[test]
fn diamond_closure_meets_at_the_shared_target() {
    let (model, [lt, rt, ..]) = closure_model();
    let mut inst = SkeletonInstance::new(&model);
    // Separate targets: the closure solves for their midpoint.
    inst.set_ik_target("left-linkage", Vec3::new(0.4, 1.5, 0.2), 1.0)
        .unwrap();
    inst.set_ik_target("right-linkage", Vec3::new(0.0, 1.5, -0.2), 1.0)
        .unwrap();
    inst.update_transform();
    let r = *inst.ik_result("left-linkage").unwrap();
    assert_eq!(
        Some(&r),
        inst.ik_result("right-linkage"),
        "both branches report the closure result"
    );
    assert!(r.satisfied, "{r:?}");
    let (a, b) = (pos(&inst, lt), pos(&inst, rt));
    assert!((a - b).length() <= 1e-3);
    assert!(
        (a - Vec3::new(0.2, 1.5, 0.0)).length() < 1e-2,
        "meets near the midpoint of the targets: {a}"
    );
    // "Disabling either chain pauses the closure"
    inst.set_ik_enabled("right-linkage", false);
    inst.update_transform();
    assert!(inst.ik_result("left-linkage").is_none() && inst.ik_result("right-linkage").is_none());
    assert!(
        pos(&inst, lt).abs_diff_eq(Vec3::new(0.0, 2.0, 0.0), 1e-5),
        "paused closure keeps the pose"
    );
}

/// skeleton-dynamics-api.md, "Diamond Closure": "when branches belong to a closure they are
/// not first solved as independent chains", and "solving starts from the midpoint of the two
/// targets". With separate targets, the closure's pose is the one its first iteration gives:
/// each branch solved from the animated pose toward the midpoint — the pose of the same two
/// chains without the closure, both aimed at the midpoint. Solving each branch toward its own
/// target first would start the closure from a bent pose, and the middle joints end elsewhere.
#[test]
fn closure_branches_are_not_first_solved_as_independent_chains() {
    let (model, [lt, rt, ..]) = closure_model();
    let (ta, tb) = (Vec3::new(0.6, 1.2, 0.5), Vec3::new(-0.2, 1.4, -0.5));
    let mid = (ta + tb) * 0.5;
    let mut inst = SkeletonInstance::new(&model);
    inst.set_ik_target("left-linkage", ta, 1.0).unwrap();
    inst.set_ik_target("right-linkage", tb, 1.0).unwrap();
    inst.update_transform();
    let r = *inst.ik_result("left-linkage").unwrap();
    assert!(r.satisfied, "{r:?}");
    // The same chains without the closure, each aimed at the midpoint.
    let mut open = Model::new(model.skeleton().clone());
    let mut b = SkeletonDynamicsBuilder::empty(model.skeleton());
    for c in model.dynamics().ik_chains() {
        b.ik(c.clone());
    }
    b.attach(&mut open).unwrap();
    let mut reference = SkeletonInstance::new(&open);
    reference.set_ik_target("left-linkage", mid, 1.0).unwrap();
    reference.set_ik_target("right-linkage", mid, 1.0).unwrap();
    reference.update_transform();
    for (bone, (got, want)) in inst.world().iter().zip(reference.world()).enumerate() {
        assert!(
            got.abs_diff_eq(*want, 1e-5),
            "bone {bone}: {got:?} vs {want:?}"
        );
    }
    assert!((pos(&inst, lt) - mid).length() < 1e-3 && (pos(&inst, rt) - mid).length() < 1e-3);
}

/// skeleton-dynamics-api.md, "IkChain": `maxRotationStep` "0 limits that increment to zero,
/// and subsequent Euler projection can still adjust the correction". A FABRIK chain with step
/// 0 whose base link's Euler box excludes no turn (Z in [0.2, 0.4]) gets that link's correction
/// projected into the box: the base turns by the box's nearest corner, 0.2 rad about Z, and the
/// tip moves, though no direction-alignment increment was made. Without the box nothing moves.
/// A solver that skipped a step-0 chain (or its projection) would leave the base unturned.
#[test]
fn zero_rotation_step_still_lets_the_euler_box_adjust() {
    let t = |x: f32, y: f32| Transform::from_translation(Vec3::new(x, y, 0.0));
    let s = SkeletonBuilder::new()
        .bone("root", Parent::Root, Transform::IDENTITY)
        .bone("base", "root", t(0.0, 0.0))
        .bone("mid", "base", t(1.0, 0.0))
        .bone("tip", "mid", t(1.0, 0.0))
        .bone("goal", "root", t(1.0, 1.5))
        .build()
        .unwrap();
    let f = |n: &str| s.find(n).unwrap();
    let limit = sinew::ik::RotationLimit::new(Vec3::new(-0.1, -0.1, 0.2), Vec3::new(0.1, 0.1, 0.4))
        .unwrap();
    let model_with = |base: IkLink| {
        let mut model = Model::new(s.clone());
        let params = IkChainParams {
            max_rotation_step: 0.0,
            ..IkChainParams::default()
        };
        let chain = IkChain::with_params(
            "arm",
            f("goal"),
            f("tip"),
            vec![base, IkLink::new(f("mid"))],
            params,
        )
        .unwrap();
        let mut b = SkeletonDynamicsBuilder::new(&s);
        b.ik(chain);
        b.attach(&mut model).unwrap();
        model
    };
    let boxed = model_with(IkLink::with_limit(f("base"), limit));
    let mut inst = SkeletonInstance::new(&boxed);
    inst.update_transform();
    let base = inst.state().locals()[f("base").index()].rotation;
    assert!(
        base.abs_diff_eq(Quat::from_rotation_z(0.2), 1e-5),
        "the box projected the frozen correction: {:?}",
        base.to_euler(glam::EulerRot::XYZ)
    );
    assert!(limit.contains(base, 1e-5));
    assert!(inst.ik_result("arm").is_some());
    let tip = pos(&inst, f("tip"));
    assert!(
        (tip - Vec3::new(2.0, 0.0, 0.0)).length() > 0.1,
        "the tip moved: {tip}"
    );
    // Without the box, step 0 freezes the chain.
    let free = model_with(IkLink::new(f("base")));
    let mut inst = SkeletonInstance::new(&free);
    inst.update_transform();
    assert!(pos(&inst, f("tip")).abs_diff_eq(Vec3::new(2.0, 0.0, 0.0), 1e-5));
    assert_eq!(inst.state().locals(), s.rest_pose());
}

/// skeleton-dynamics-api.md, "SolveResult": "for a closure, it is the larger of the two
/// endpoint distance and the two base distance". The animated input moves one branch base 0.2
/// away from the other: the endpoints still meet, so the residual is the base distance and the
/// closure is not satisfied. Without the base term the residual would be the endpoint distance
/// (under the tolerance) and the closure would read satisfied.
#[test]
fn closure_residual_counts_the_distance_between_the_bases() {
    let (model, [lt, rt, lb, rb]) = closure_model();
    let mut inst = SkeletonInstance::new(&model);
    inst.input_mut()[rb.index()].translation = Vec3::new(0.2, 0.0, 0.0);
    inst.update_transform();
    let bases = (pos(&inst, lb) - pos(&inst, rb)).length();
    assert!((bases - 0.2).abs() < 1e-6, "bases {bases} apart");
    let ends = (pos(&inst, lt) - pos(&inst, rt)).length();
    assert!(ends <= 1e-3, "the endpoints meet: {ends}");
    let r = *inst.ik_result("left-linkage").unwrap();
    assert_eq!(Some(&r), inst.ik_result("right-linkage"));
    assert!(
        (r.residual - bases).abs() < 1e-5,
        "residual {} is the base distance {bases}",
        r.residual
    );
    assert!(!r.satisfied, "{r:?}");
}

/// skeleton-dynamics-api.md, "IkLink, RotationLimit, and IkJoint": with both a hinge and an
/// Euler box on a link, "both restrictions participate" — through the instance's IK driver too.
/// Three links, each hinged about Z (±90°) and boxed to ±0.5 rad, reach for a target out of the
/// hinge plane that asks for more bend than the box allows: every link's correction stays in the
/// box and every segment in its hinge plane and range. A driver that handed the solver only the
/// joint (or only the box) fails the box (or the plane) check.
#[test]
fn driver_links_keep_both_their_hinge_and_their_box() {
    let t = |x: f32| Transform::from_translation(Vec3::new(x, 0.0, 0.0));
    let s = SkeletonBuilder::new()
        .bone("root", Parent::Root, Transform::IDENTITY)
        .bone("b1", "root", t(0.0))
        .bone("b2", "b1", t(1.0))
        .bone("b3", "b2", t(1.0))
        .bone("tip", "b3", t(1.0))
        .bone("goal", "root", t(3.0))
        .build()
        .unwrap();
    let f = |n: &str| s.find(n).unwrap();
    let hinge = sinew::ik::Hinge::new(
        Vec3::Z,
        Vec3::X,
        -std::f32::consts::FRAC_PI_2,
        std::f32::consts::FRAC_PI_2,
    )
    .unwrap();
    let limit = sinew::ik::RotationLimit::new(Vec3::splat(-0.5), Vec3::splat(0.5)).unwrap();
    let link = |n: &str| IkLink {
        bone: f(n),
        limit: Some(limit),
        joint: Some(sinew::ik::IkJoint::Hinge(hinge)),
    };
    let mut model = Model::new(s.clone());
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(IkChain::new(
        "arm",
        f("goal"),
        f("tip"),
        vec![link("b1"), link("b2"), link("b3")],
    )
    .unwrap());
    b.attach(&mut model).unwrap();
    let mut inst = SkeletonInstance::new(&model);
    inst.set_ik_target("arm", Vec3::new(0.5, 2.0, 0.8), 1.0)
        .unwrap();
    inst.update_transform();
    let r = *inst.ik_result("arm").unwrap();
    assert!(r.residual.is_finite() && !r.satisfied, "{r:?}");
    let mut prev = Vec3::X;
    for (link, next) in [("b1", "b2"), ("b2", "b3"), ("b3", "tip")] {
        // The input is the rest pose (identity rotations): the local rotation is the correction.
        let q = inst.state().locals()[f(link).index()].rotation;
        assert!(
            limit.contains(q, 1e-4),
            "{link}: correction leaves its box: {:?}",
            q.to_euler(glam::EulerRot::XYZ)
        );
        let d = (pos(&inst, f(next)) - pos(&inst, f(link))).normalize();
        assert!(d.z.abs() < 1e-4, "{link} left the hinge plane: {d}");
        let angle = prev.cross(d).z.atan2(prev.dot(d));
        assert!(
            angle.abs() <= std::f32::consts::FRAC_PI_2 + 1e-3,
            "{link} hinge angle {angle}"
        );
        prev = d;
    }
}

#[test]
fn direction_mode_follows_the_controllers_rotation() {
    let t = |y: f32| Transform::from_translation(Vec3::new(0.0, y, 0.0));
    let s = SkeletonBuilder::new()
        .bone("root", Parent::Root, Transform::IDENTITY)
        .bone("base", "root", t(1.0))
        .bone("tip", "base", t(1.0))
        .bone("ctrl", "root", t(1.0))
        .build()
        .unwrap();
    let f = |n: &str| s.find(n).unwrap();
    let mut model = Model::new(s.clone());
    let params = IkChainParams {
        target_mode: TargetMode::Direction,
        ..Default::default()
    };
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(IkChain::with_params(
        "aim",
        f("ctrl"),
        f("tip"),
        vec![IkLink::new(f("base"))],
        params,
    )
    .unwrap());
    b.attach(&mut model).unwrap();
    let mut inst = SkeletonInstance::new(&model);
    // Controller turned 90° about Z and moved: only the rotation counts.
    inst.input_mut()[f("ctrl").index()] = Transform::from_translation_rotation(
        Vec3::new(5.0, 1.0, 0.0),
        Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
    );
    inst.update_transform();
    let tip = pos(&inst, f("tip"));
    assert!(tip.abs_diff_eq(Vec3::new(-1.0, 1.0, 0.0), 1e-3), "{tip}");
    // "When a persistent or single-tick external target exists, it switches to position
    // blending": the tip reaches for the point (not along it as a direction).
    let point = Vec3::new(0.0, 1.0, 1.0);
    assert!(inst.set_frame_ik_target("aim", point, 1.0).unwrap());
    inst.update_transform();
    let tip = pos(&inst, f("tip"));
    assert!(tip.abs_diff_eq(point, 1e-3), "frame target: {tip}");
    // Half weight: from the controller's position halfway toward the point (the controller is
    // at (5, 1, 0); the blended target (2.5, 1, 0.5) is out of reach, so the tip points at it).
    inst.clear_frame_ik_targets();
    assert!(inst.set_ik_target("aim", point, 0.5).unwrap());
    inst.update_transform();
    let tip = pos(&inst, f("tip"));
    let toward = (Vec3::new(2.5, 1.0, 0.5) - Vec3::new(0.0, 1.0, 0.0)).normalize();
    assert!(
        tip.abs_diff_eq(Vec3::new(0.0, 1.0, 0.0) + toward, 1e-3),
        "persistent target at half weight: {tip}"
    );
}

#[test]
fn floating_origin_targets_are_world_coordinates() {
    let (h, m) = humanoid();
    let mut inst = SkeletonInstance::new(&m);
    let far = DVec3::new(1.0e6, 0.0, -2.0e6);
    inst.state_mut()
        .set_placement(RootPlacement::from_translation(far));
    inst.state_mut().set_origin(far);
    inst.update_transform();
    let hand_eval = pos(&inst, h.bones.arm[0].upper);
    let offset = Vec3::new(0.3, -0.2, 0.15);
    // The target is given in world coordinates (f32 world vectors lose precision this far out,
    // so pick one exactly representable).
    let world_target = (far + (hand_eval + offset).as_dvec3()).as_vec3();
    inst.set_ik_target("arm_l", world_target, 1.0).unwrap();
    inst.update_transform();
    let reached = inst.state().world_position_f64(h.bones.arm[0].end);
    assert!(
        (reached - world_target.as_dvec3()).length() < 2e-3,
        "{reached} vs {world_target}"
    );
}

#[test]
fn replace_authored_rotation_starts_from_rest() {
    let t = |y: f32| Transform::from_translation(Vec3::new(0.0, y, 0.0));
    let s = SkeletonBuilder::new()
        .bone("root", Parent::Root, Transform::IDENTITY)
        .bone("base", "root", t(1.0))
        .bone("tip", "base", t(1.0))
        .build()
        .unwrap();
    let f = |n: &str| s.find(n).unwrap();
    let mut model = Model::new(s.clone());
    let params = IkChainParams {
        replace_authored_rotation: true,
        ..Default::default()
    };
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(IkChain::with_params(
        "c",
        f("tip"),
        f("tip"),
        vec![IkLink::new(f("base"))],
        params,
    )
    .unwrap());
    b.attach(&mut model).unwrap();
    let mut inst = SkeletonInstance::new(&model);
    inst.input_mut()[f("base").index()] =
        Transform::from_translation_rotation(Vec3::new(3.0, 1.0, 0.0), Quat::from_rotation_z(1.0));
    inst.set_ik_enabled("c", false);
    inst.update_transform();
    assert!(
        pos(&inst, f("base")).abs_diff_eq(Vec3::new(3.0, 1.0, 0.0), 1e-6),
        "disabled: authored pose"
    );
    inst.set_ik_enabled("c", true);
    inst.update_transform();
    assert!(
        pos(&inst, f("base")).abs_diff_eq(Vec3::new(0.0, 1.0, 0.0), 1e-6),
        "enabled: authored pose replaced by rest"
    );
}

/// skeleton-dynamics-api.md, `replaceAuthoredRotation`: the takeover starts the chain's bones
/// from rest, "while morph/grant/fixed-axis still participate afterwards". The link bone `base`
/// inherits `src`'s rotation and keeps only its twist about Y; `follower` inherits `base`'s. With
/// the takeover first, `base` is rest × `src`'s delta, twisted about Y (its authored turn and
/// offset gone), and `follower` reads that. Were the constraints applied before the takeover,
/// the takeover would wipe `base`'s grant (rest, the identity) and `follower` would have read the
/// authored turn instead.
#[test]
fn constraints_apply_after_the_authored_pose_takeover() {
    let t = |x: f32, y: f32| Transform::from_translation(Vec3::new(x, y, 0.0));
    let s = SkeletonBuilder::new()
        .bone("root", Parent::Root, Transform::IDENTITY)
        .bone("src", "root", t(2.0, 0.0))
        .bone("base", "root", t(0.0, 1.0))
        .bone("tip", "base", t(0.0, 1.0))
        .bone("follower", "root", t(-2.0, 0.0))
        .build()
        .unwrap();
    let f = |n: &str| s.find(n).unwrap();
    let mut model = Model::new(s.clone());
    let mut b = SkeletonDynamicsBuilder::new(&s);
    // The controller is the effector: the chain is solved where it stands (no correction), so
    // what the frame leaves on `base` is the takeover and the constraints alone.
    b.ik(IkChain::with_params(
        "c",
        f("tip"),
        f("tip"),
        vec![IkLink::new(f("base"))],
        IkChainParams {
            replace_authored_rotation: true,
            ..Default::default()
        },
    )
    .unwrap());
    let grant = |from: &str| Some(TransformInheritance::new(f(from), 1.0, false, true).unwrap());
    b.pose(BonePoseConstraint::new(f("base"), grant("src"), Some(Vec3::Y)).unwrap());
    b.pose(BonePoseConstraint::new(f("follower"), grant("base"), None).unwrap());
    b.attach(&mut model).unwrap();
    let mut inst = SkeletonInstance::new(&model);
    let q_src = Quat::from_rotation_z(0.4) * Quat::from_rotation_y(0.8);
    inst.input_mut()[f("src").index()].rotation = q_src;
    inst.input_mut()[f("base").index()] =
        Transform::from_translation_rotation(Vec3::new(3.0, 1.0, 0.0), Quat::from_rotation_x(1.0));
    inst.update_transform();
    assert!(inst.ik_result("c").unwrap().satisfied);
    let l = inst.state().locals();
    let expected = twist_about(q_src, Vec3::Y);
    let got = l[f("base").index()].rotation;
    assert!(
        got.dot(expected).abs() > 1.0 - 1e-6,
        "base: {got} vs {expected}"
    );
    assert!(
        got.angle_between(Quat::IDENTITY) > 0.5,
        "the grant participates after the takeover: {got}"
    );
    assert_eq!(l[f("base").index()].translation, Vec3::new(0.0, 1.0, 0.0));
    let follower = l[f("follower").index()].rotation;
    assert!(
        follower.dot(expected).abs() > 1.0 - 1e-6,
        "follower reads base after its takeover: {follower} vs {expected}"
    );
}

#[test]
fn tick_loop_order_modules_and_unknown_chain_reports() {
    let (h, m) = humanoid();
    let mut inst = SkeletonInstance::new(&m);
    inst.update_transform();
    let target = pos(&inst, h.bones.arm[0].upper) + Vec3::new(0.3, -0.2, 0.15);
    let mut tick = TickLoop::new();
    tick.add_pre_ik(
        "hand-target-input",
        IkTargetModule::new("arm_l", target).unwrap(),
    )
    .unwrap();
    tick.add_pre_ik(
        "bad",
        IkTargetModule::new("no-such-chain", Vec3::ZERO).unwrap(),
    )
    .unwrap();
    assert_eq!(
        tick.add_pre_ik("bad", IkTargetModule::new("x", Vec3::ZERO).unwrap()),
        Err(TickError::DuplicateName("bad".into()))
    );
    /// An actor reading the reached pose in the same frame.
    struct Reader(Arc<std::sync::Mutex<Vec3>>, BoneId);
    impl TickModule for Reader {
        fn tick(&mut self, ctx: &mut TickContext<'_>) -> Result<(), ModuleError> {
            *self.0.lock().unwrap() = ctx.instance.world()[self.1.index()].translation.into();
            Ok(())
        }
    }
    let seen = Arc::new(std::sync::Mutex::new(Vec3::ZERO));
    tick.add(
        Slot::Post,
        "actor",
        Reader(seen.clone(), h.bones.arm[0].end),
    )
    .unwrap();
    /// Writes the animated pose before the default apply.
    struct Animate(Humanoid);
    impl TickModule for Animate {
        fn tick(&mut self, ctx: &mut TickContext<'_>) -> Result<(), ModuleError> {
            self.0.animate(ctx.time, ctx.instance.input_mut());
            Ok(())
        }
    }
    tick.add_before(Slot::Apply, "clip", Animate(h.clone()))
        .unwrap();
    assert_eq!(tick.names(), ["clip", "hand-target-input", "bad", "actor"]);
    let report = tick.tick(&mut inst, 0.0, 1.0 / 30.0);
    assert_eq!(
        report.errors,
        vec![(
            "bad".to_owned(),
            ModuleError::UnknownChain("no-such-chain".into())
        )]
    );
    assert!(
        (*seen.lock().unwrap() - target).length() < 2e-3,
        "actor saw the reached pose"
    );
    assert!(tick.remove("bad"));
    assert!(tick.tick(&mut inst, 0.1, 1.0 / 30.0).errors.is_empty());
}

#[test]
fn ik_target_module_contract() {
    let mut m = IkTargetModule::new("left-arm", Vec3::new(1.0, 2.0, 0.0)).unwrap();
    assert_eq!((m.weight(), m.enabled()), (1.0, true));
    m.set_target_weighted(Vec3::new(1.2, 2.0, 0.0), 0.6)
        .unwrap();
    m.set_enabled(false);
    m.set_target(Vec3::ONE).unwrap();
    assert_eq!(
        (m.weight(), m.enabled(), m.target()),
        (0.6, false, Vec3::ONE),
        "setters keep the other state"
    );
    assert_eq!(
        IkTargetModule::new(" ", Vec3::ZERO).unwrap_err(),
        IkTargetModuleError::BlankName
    );
    assert!(IkTargetModule::new("a", Vec3::NAN).is_err());
    assert!(IkTargetModule::with_weight("a", Vec3::ZERO, 2.0).is_err());
}

/// A host with its own pose storage (world matrices only, recomputed by hand).
struct Host {
    skeleton: Arc<sinew::Skeleton>,
    locals: Vec<Transform>,
    world: Vec<Affine3A>,
    target: Vec3,
}

impl PoseAccess for Host {
    fn absolute(&self, bone: BoneId) -> Affine3A {
        self.world[bone.index()]
    }
    fn local(&self, bone: BoneId) -> Transform {
        self.locals[bone.index()]
    }
    fn correct(&mut self, bone: BoneId, c: Quat) {
        let r = &mut self.locals[bone.index()].rotation;
        *r = (*r * c).normalize();
    }
    fn target(&self, _: usize, _: &IkChain) -> Vec3 {
        self.target
    }
    fn enabled(&self, _: usize, _: &IkChain) -> bool {
        true
    }
    fn refresh(&mut self, _: BoneId, _: BoneId) {
        sinew::pose::local_to_world(
            self.skeleton.parent_indices(),
            &self.locals,
            &Affine3A::IDENTITY,
            &mut self.world,
        );
    }
}

#[test]
fn custom_hosts_drive_the_solver_through_pose_access() {
    let (h, m) = humanoid();
    let mut host = Host {
        skeleton: h.skeleton.clone(),
        locals: h.skeleton.rest_pose().to_vec(),
        world: h.skeleton.rest_world().to_vec(),
        target: Vec3::ZERO,
    };
    let hand = h.skeleton.rest_world()[h.bones.arm[0].end.index()].translation;
    let shoulder = h.skeleton.rest_world()[h.bones.arm[0].upper.index()].translation;
    let _ = hand;
    host.target = Vec3::from(shoulder) + Vec3::new(0.3, -0.2, 0.15);
    let mut driver = IkDriver::new(m.dynamics());
    driver.solve(m.dynamics(), &mut host);
    let i = m.dynamics().chain_index("arm_l").unwrap();
    assert!(driver.results()[i].unwrap().satisfied);
    assert!(
        (Vec3::from(host.world[h.bones.arm[0].end.index()].translation) - host.target).length()
            < 2e-3
    );
}

mod props {
    //! The four humanoid chains under arbitrary targets (anywhere, on a joint, a hair from one,
    //! far away) and weights, over several frames: every world matrix finite, every limb bone
    //! keeps its length, every result finite.

    use glam::Vec3;
    use proptest::prelude::*;
    use sinew::SkeletonInstance;
    use sinew_humanoid::Humanoid;

    fn offset() -> impl Strategy<Value = Vec3> {
        let v = (-3.0f32..3.0, -3.0f32..3.0, -3.0f32..3.0).prop_map(|(x, y, z)| Vec3::new(x, y, z));
        prop_oneof![
            4 => v.clone(),
            1 => Just(Vec3::ZERO),
            1 => v.clone().prop_map(|v| v * 1e-20),
            1 => v.prop_map(|v| v * 1e20),
        ]
    }

    proptest! {
        #[test]
        fn any_targets_keep_the_rig_sane(
            frames in prop::collection::vec(
                prop::collection::vec((offset(), 0usize..3, 0.0f32..=1.0), 4),
                1..4,
            ),
        ) {
            let h = Humanoid::new();
            let m = h.model_with_ik();
            let mut inst = SkeletonInstance::new(&m);
            inst.update_transform();
            let limbs = [("arm_l", h.bones.arm[0]), ("arm_r", h.bones.arm[1]), ("leg_l", h.bones.leg[0]), ("leg_r", h.bones.leg[1])];
            let length = |inst: &SkeletonInstance, a: sinew::BoneId, b: sinew::BoneId| {
                (Vec3::from(inst.world()[b.index()].translation) - Vec3::from(inst.world()[a.index()].translation)).length()
            };
            let rest: Vec<(f32, f32)> = limbs
                .iter()
                .map(|(_, l)| (length(&inst, l.upper, l.lower), length(&inst, l.lower, l.end)))
                .collect();
            for targets in &frames {
                for ((name, limb), (offset, joint, weight)) in limbs.iter().zip(targets) {
                    let at = [limb.upper, limb.lower, limb.end][*joint];
                    let base = Vec3::from(inst.world()[at.index()].translation);
                    inst.set_ik_target(name, base + *offset, *weight).unwrap();
                }
                inst.update_transform();
                prop_assert!(inst.world().iter().all(|m| m.is_finite()));
                for (k, (_, limb)) in limbs.iter().enumerate() {
                    let (a, b) = (length(&inst, limb.upper, limb.lower), length(&inst, limb.lower, limb.end));
                    prop_assert!((a - rest[k].0).abs() <= 1e-4 && (b - rest[k].1).abs() <= 1e-4, "{} {} vs {:?}", a, b, rest[k]);
                }
                for (name, _) in &limbs {
                    if let Some(r) = inst.ik_result(name) {
                        prop_assert!(r.residual.is_finite(), "{}: {:?}", name, r);
                    }
                }
            }
        }
    }
}

/// PMX "D-bones": a deform chain beside the leg (thigh_d, shin_d, foot_d), each bone inheriting
/// its twin's rotation. Under leg IK the twins' locals change after constraints ran, so the
/// D-chain must be evaluated again after IK to follow (skeleton-dynamics-api: the inheritance
/// source provides the currently evaluated local pose delta).
fn d_bone_leg() -> (Model, [BoneId; 6]) {
    let s = SkeletonBuilder::new()
        .bone("root", Parent::Root, Transform::IDENTITY)
        .bone(
            "thigh",
            "root",
            Transform::from_translation(Vec3::new(0.1, 1.0, 0.0)),
        )
        .bone(
            "shin",
            "thigh",
            Transform::from_translation(Vec3::new(0.0, -0.45, 0.0)),
        )
        .bone(
            "foot",
            "shin",
            Transform::from_translation(Vec3::new(0.0, -0.45, 0.0)),
        )
        .bone(
            "thigh_d",
            "root",
            Transform::from_translation(Vec3::new(0.1, 1.0, 0.0)),
        )
        .bone(
            "shin_d",
            "thigh_d",
            Transform::from_translation(Vec3::new(0.0, -0.45, 0.0)),
        )
        .bone(
            "foot_d",
            "shin_d",
            Transform::from_translation(Vec3::new(0.0, -0.45, 0.0)),
        )
        .build()
        .unwrap();
    let f = |n: &str| s.find(n).unwrap();
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(IkChain::with_params(
        "leg",
        f("foot"),
        f("foot"),
        vec![IkLink::new(f("thigh")), IkLink::new(f("shin"))],
        IkChainParams {
            solver: ChainSolver::TwoBone { pole: Vec3::Z },
            ..IkChainParams::default()
        },
    )
    .unwrap());
    // In dependency order, as the builder requires sources before dependants.
    for (d, src) in [("thigh_d", "thigh"), ("shin_d", "shin"), ("foot_d", "foot")] {
        let inh = TransformInheritance::new(f(src), 1.0, false, true).unwrap();
        b.pose(BonePoseConstraint::new(f(d), Some(inh), None).unwrap());
    }
    let mut model = Model::new(s.clone());
    b.attach(&mut model).unwrap();
    let ids = ["thigh", "shin", "foot", "thigh_d", "shin_d", "foot_d"].map(f);
    (model, ids)
}

#[test]
fn d_bones_follow_their_twins_after_ik() {
    let (model, [thigh, shin, foot, thigh_d, shin_d, foot_d]) = d_bone_leg();
    let mut inst = SkeletonInstance::new(&model);
    // Lift the foot: the knee bends.
    assert!(inst
        .set_ik_target("leg", Vec3::new(0.1, 0.4, 0.2), 1.0)
        .unwrap());
    inst.update_transform();
    let w = inst.world();
    assert!(
        (Vec3::from(w[foot.index()].translation) - Vec3::new(0.1, 0.4, 0.2)).length() < 1e-3,
        "the IK reached"
    );
    for (twin, d) in [(thigh, thigh_d), (shin, shin_d), (foot, foot_d)] {
        assert!(
            w[twin.index()].abs_diff_eq(w[d.index()], 1e-5),
            "{} does not follow its twin",
            model.skeleton().name(d)
        );
    }
    // clear_ik_targets drops the persistent target: the leg holds its animated pose, and so
    // do the D-bones.
    inst.clear_ik_targets();
    assert_eq!(inst.effective_target(0), None);
    inst.input_mut()[thigh.index()].rotation = Quat::from_rotation_x(0.3);
    inst.update_transform();
    let w = inst.world();
    assert!(w[shin.index()].abs_diff_eq(w[shin_d.index()], 1e-5));
    let foot_rest_below_knee = w[shin.index()].transform_point3(Vec3::new(0.0, -0.45, 0.0));
    assert!(
        Vec3::from(w[foot.index()].translation).abs_diff_eq(foot_rest_below_knee, 1e-5),
        "no IK after clear_ik_targets"
    );
}
