//! Goals on a character's chains, decided by the arbiter inside `update_transform`: additive
//! recoils add, a hand reach and a look-at on the same arm resolve by priority, frame goals
//! last one cycle, residuals are readable, bad goals are refused.

use std::sync::Arc;

use glam::{Quat, Vec3};
use sinew::ik::{GoalTarget, StrictPriorityArbiter};
use sinew::instance::{ChainGoal, InstanceError};
use sinew::SkeletonInstance;
use sinew_humanoid::Humanoid;

fn instance() -> (Humanoid, SkeletonInstance) {
    let h = Humanoid::new();
    let inst = SkeletonInstance::new(&h.model_with_ik());
    (h, inst)
}

fn hand(h: &Humanoid, inst: &SkeletonInstance) -> Vec3 {
    inst.world()[h.bones.arm[0].end.index()].translation.into()
}

#[test]
fn two_recoils_add() {
    let (h, mut inst) = instance();
    inst.update_transform();
    let rest = hand(&h, &inst);
    let a = inst
        .add_goal(
            "arm_l",
            ChainGoal::additive(GoalTarget::Position(Vec3::new(-0.03, 0.0, 0.02))),
        )
        .unwrap();
    let b = inst
        .add_goal(
            "arm_l",
            ChainGoal::additive(GoalTarget::Position(Vec3::new(-0.02, 0.01, 0.03))),
        )
        .unwrap();
    inst.update_transform();
    // The straight arm bends inwards and forwards (a reachable place).
    let moved = hand(&h, &inst) - rest;
    assert!(
        (moved - Vec3::new(-0.05, 0.01, 0.05)).length() < 2e-3,
        "{moved}"
    );
    for id in [a, b] {
        assert!(inst.goal_residual(id).unwrap() < 2e-3);
    }
    // Half the weight on one: it contributes half.
    inst.remove_goal(b);
    inst.remove_goal(a);
    inst.add_goal(
        "arm_l",
        ChainGoal::additive(GoalTarget::Position(Vec3::new(-0.04, 0.0, 0.04))).with_weight(0.5),
    )
    .unwrap();
    inst.update_transform();
    let moved = hand(&h, &inst) - rest;
    assert!(
        (moved - Vec3::new(-0.02, 0.0, 0.02)).length() < 2e-3,
        "{moved}"
    );
    // Removed goals leave the pose to the chain's own IK again.
    inst.clear_goals();
    inst.update_transform();
    assert!((hand(&h, &inst) - rest).length() < 1e-4);
}

#[test]
fn reach_and_look_at_resolve_by_priority() {
    let (h, mut inst) = instance();
    inst.update_transform();
    let rest = hand(&h, &inst);
    // Inwards and forwards of the straight arm: reachable by bending the elbow.
    let reach_at = rest + Vec3::new(-0.12, -0.05, 0.12);
    // Aim the hand's local +X at a point far to the side: not compatible with the reach.
    let look_at = rest + Vec3::new(0.0, -1.0, -1.0);
    let reach = ChainGoal::absolute(GoalTarget::Position(reach_at));
    let look = ChainGoal::absolute(GoalTarget::Aim {
        target: look_at,
        axis: Vec3::X,
    });
    inst.set_arbiter(Arc::new(StrictPriorityArbiter::default()));
    let r = inst.add_goal("arm_l", reach.with_priority(1.0)).unwrap();
    let l = inst.add_goal("arm_l", look.with_priority(0.0)).unwrap();
    inst.update_transform();
    let (reach_first, look_second) = (
        inst.goal_residual(r).unwrap(),
        inst.goal_residual(l).unwrap(),
    );
    assert!(
        reach_first < 2e-3,
        "the higher-priority reach is met: {reach_first}"
    );
    inst.clear_goals();
    let r = inst.add_goal("arm_l", reach.with_priority(0.0)).unwrap();
    let l = inst.add_goal("arm_l", look.with_priority(1.0)).unwrap();
    inst.update_transform();
    let (reach_second, look_first) = (
        inst.goal_residual(r).unwrap(),
        inst.goal_residual(l).unwrap(),
    );
    assert!(
        look_first < look_second,
        "priority moves the aim: {look_first} vs {look_second}"
    );
    assert!(
        reach_second > reach_first,
        "and costs the reach: {reach_second} vs {reach_first}"
    );
    assert!(
        look_first < 0.02,
        "the higher-priority look-at is met: {look_first}"
    );
    println!(
        "reach first: reach {reach_first:.4} m, look {look_second:.4} rad; look first: look {look_first:.4} rad, reach {reach_second:.4} m"
    );
    // The default weighted arbiter satisfies positions first, then aims within what is left.
    inst.set_arbiter(Arc::new(sinew::ik::DefaultArbiter::default()));
    inst.update_transform();
    assert!(inst.goal_residual(r).unwrap() < 2e-3);
}

#[test]
fn frame_goals_last_one_cycle_and_disabled_chains_pause() {
    let (h, mut inst) = instance();
    inst.update_transform();
    let rest = hand(&h, &inst);
    let id = inst
        .add_frame_goal(
            "arm_l",
            ChainGoal::absolute(GoalTarget::Position(rest + Vec3::Y * 0.1)),
        )
        .unwrap();
    inst.update_transform();
    assert!(inst.goal_residual(id).is_some());
    assert!((hand(&h, &inst) - rest).length() > 0.05);
    inst.clear_frame_goals();
    assert_eq!(inst.goal_residual(id), None);
    inst.update_transform();
    assert!((hand(&h, &inst) - rest).length() < 1e-4);
    let id = inst
        .add_goal(
            "arm_l",
            ChainGoal::absolute(GoalTarget::Orientation(Quat::from_rotation_z(0.5))),
        )
        .unwrap();
    inst.set_ik_enabled("arm_l", false);
    inst.update_transform();
    assert_eq!(
        inst.goal_residual(id),
        None,
        "a disabled chain's goals pause"
    );
    assert_eq!(inst.goals().count(), 1);
    assert_eq!(inst.goals().next().unwrap().1, "arm_l");
}

#[test]
fn bad_goals_are_refused() {
    let (_, mut inst) = instance();
    let p = |v: Vec3| ChainGoal::absolute(GoalTarget::Position(v));
    assert!(matches!(
        inst.add_goal("tail", p(Vec3::ZERO)),
        Err(InstanceError::UnknownChain(_))
    ));
    for goal in [
        p(Vec3::NAN),
        p(Vec3::ZERO).with_weight(1.5),
        p(Vec3::ZERO).with_weight(f32::NAN),
        p(Vec3::ZERO).with_priority(f32::INFINITY),
        ChainGoal::absolute(GoalTarget::Aim {
            target: Vec3::ONE,
            axis: Vec3::ZERO,
        }),
        ChainGoal::absolute(GoalTarget::Orientation(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0))),
    ] {
        assert!(
            matches!(
                inst.add_goal("arm_l", goal),
                Err(InstanceError::InvalidGoal { .. })
            ),
            "{goal:?}"
        );
    }
    assert_eq!(inst.goals().count(), 0);
}
