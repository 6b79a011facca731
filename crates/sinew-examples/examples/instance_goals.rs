//! Goals on a character: the humanoid walks; its left arm carries two additive recoil goals
//! (they add up) and its right arm a hand reach and a look-at that conflict. The default
//! (weighted) arbiter satisfies positions first and aims within the freedom left; the
//! strict-priority arbiter follows the priorities whatever the kinds (the look-at, given the
//! higher priority, is then met and the reach is not). Residuals are printed every 10 frames.
//!
//! `cargo run -p sinew-examples --example instance_goals`

use std::sync::Arc;

use glam::Vec3;
use sinew::ik::{GoalTarget, StrictPriorityArbiter};
use sinew::instance::{ChainGoal, InstanceError};
use sinew::SkeletonInstance;
use sinew_humanoid::Humanoid;

fn main() -> Result<(), InstanceError> {
    let h = Humanoid::new();
    let model = h.model_with_ik();
    for (name, strict) in [
        ("default arbiter", false),
        ("strict priority, look-at first", true),
    ] {
        println!("{name}:");
        run(&h, &model, strict)?;
    }
    Ok(())
}

fn run(h: &Humanoid, model: &sinew::Model, strict: bool) -> Result<(), InstanceError> {
    let mut instance = SkeletonInstance::new(model);
    if strict {
        instance.set_arbiter(Arc::new(StrictPriorityArbiter::default()));
    }
    // With the strict arbiter the look-at outranks the reach.
    let (reach_priority, look_priority) = if strict { (1.0, 2.0) } else { (2.0, 1.0) };

    // Two kicks on the left hand, persistent: they add (averaging would halve them).
    let kick = |v: Vec3| ChainGoal::additive(GoalTarget::Position(v));
    let kick_a = instance.add_goal("arm_l", kick(Vec3::new(-0.03, 0.0, 0.02)))?;
    let kick_b = instance.add_goal("arm_l", kick(Vec3::new(-0.02, 0.01, 0.03)))?;

    for frame in 0..=40 {
        let t = frame as f32 / 30.0;
        h.animate(t, instance.input_mut());
        // The right hand reaches for a point that moves with the walk while its local -X looks
        // at a point far ahead: per-frame goals.
        instance.update_transform();
        let hand = Vec3::from(instance.world()[h.bones.arm[1].end.index()].translation);
        let reach = instance.add_frame_goal(
            "arm_r",
            ChainGoal::absolute(GoalTarget::Position(hand + Vec3::new(0.1, -0.05, 0.1)))
                .with_priority(reach_priority),
        )?;
        let look = instance.add_frame_goal(
            "arm_r",
            ChainGoal::absolute(GoalTarget::Aim {
                target: hand + Vec3::new(0.0, 0.0, 5.0),
                axis: Vec3::NEG_X,
            })
            .with_priority(look_priority),
        )?;
        instance.update_transform();
        if frame % 10 == 0 {
            let r = |id| instance.goal_residual(id).unwrap_or(f32::NAN);
            println!(
                "  frame {frame:2}: recoils {:.2} / {:.2} mm, reach {:.2} mm, look-at {:.3} rad",
                r(kick_a) * 1000.0,
                r(kick_b) * 1000.0,
                r(reach) * 1000.0,
                r(look)
            );
        }
        instance.clear_frame_goals();
    }
    Ok(())
}
