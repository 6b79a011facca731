//! The built-in demo: the procedural humanoid walks over uneven ground. Each frame:
//!
//! 1. the walk clip writes the animated pose;
//! 2. foot IK: the pelvis drops by the lower of the two ground heights under the feet, and
//!    each leg's two-bone chain puts its ankle at the animated height above the ground;
//! 3. the left hand follows a target circling in front of the body (FABRIK arm chain);
//! 4. the head looks at the left hand's target (aim solver, 60° cone);
//! 5. world matrices are read back for drawing.

use std::time::Instant;

use glam::{Quat, Vec3};
use sinew::ik::{solve_aim, AimParams, ChainJoint};
use sinew::{Model, SkeletonInstance};
use sinew_testkit::Humanoid;

use super::DrawFrame;

/// Ground height (metres) at a point: gentle bumps along the walk.
#[must_use]
pub fn ground(x: f32, z: f32) -> f32 {
    0.07 * (2.3 * z + 0.4).sin().max(-0.3) + 0.025 * (3.1 * x + 1.0).sin()
}

/// The demo's state.
pub struct HumanoidScene {
    humanoid: Humanoid,
    model: Model,
    instance: SkeletonInstance,
    aim: AimParams,
}

impl HumanoidScene {
    /// Builds the humanoid, its IK model and one instance.
    ///
    /// # Panics
    /// Never for the built-in rig (its construction is tested).
    #[must_use]
    pub fn new() -> Self {
        let humanoid = Humanoid::new();
        let model = humanoid.model_with_ik();
        let instance = SkeletonInstance::new(&model);
        let aim = AimParams::new(
            Vec3::Z,
            Vec3::Y,
            Vec3::new(0.0, 0.08, 0.08),
            0.0,
            1.0,
            Some(60f32.to_radians()),
        )
        .expect("valid aim parameters");
        Self {
            humanoid,
            model,
            instance,
            aim,
        }
    }

    /// Number of joints.
    #[must_use]
    pub fn joints(&self) -> usize {
        self.model.skeleton().len()
    }

    /// Parent indices for drawing.
    #[must_use]
    pub fn parents(&self) -> &[u16] {
        self.model.skeleton().parent_indices()
    }

    /// Evaluates the scene at `time` seconds.
    ///
    /// # Panics
    /// Never: targets are finite and weights in range by construction.
    pub fn frame(&mut self, time: f32) -> DrawFrame {
        let start = Instant::now();
        let b = self.humanoid.bones.clone();
        // 1. animated pose.
        self.humanoid.animate(time, self.instance.input_mut());
        // Where the animated feet are (before IK), to place them on the ground: without frame
        // targets every chain's target is its own effector, so this pass is pure FK.
        self.instance.clear_frame_ik_targets();
        self.instance.update_transform();
        let w = self.instance.world();
        let foot = |i: usize| -> Vec3 { w[b.leg[i].end.index()].translation.into() };
        let (fl, fr) = (foot(0), foot(1));
        let chest: Vec3 = w[b.spine[2].index()].translation.into();
        let rest_ankle = self.model.skeleton().rest_world()[b.leg[0].end.index()]
            .translation
            .y;
        let (gl, gr) = (ground(fl.x, fl.z), ground(fr.x, fr.z));
        // 2. pelvis drops to the lower foot's ground; ankles at their lift above the ground.
        let drop = gl.min(gr);
        self.instance.input_mut()[b.root.index()].translation.y += drop;
        let target_l = Vec3::new(fl.x, gl + (fl.y - rest_ankle).max(0.0) + rest_ankle, fl.z);
        let target_r = Vec3::new(fr.x, gr + (fr.y - rest_ankle).max(0.0) + rest_ankle, fr.z);
        self.instance
            .set_frame_ik_target("leg_l", target_l, 1.0)
            .expect("finite");
        self.instance
            .set_frame_ik_target("leg_r", target_r, 1.0)
            .expect("finite");
        // 3. the left hand follows a circling target in front of the chest.
        let a = std::f32::consts::TAU * time * 0.8;
        let hand_target = chest + Vec3::new(0.25 + 0.08 * a.cos(), 0.1 + 0.12 * a.sin(), 0.35);
        self.instance
            .set_frame_ik_target("arm_l", hand_target, 1.0)
            .expect("finite");
        self.instance.update_transform();
        // 4. the head looks at the hand's target.
        let head = b.head;
        let hw = self.instance.world()[head.index()];
        let (_, rotation, position) = hw.to_scale_rotation_translation();
        let joint = ChainJoint::new(position, rotation);
        if let Ok(r) = solve_aim(&joint, hand_target, Vec3::Y, &self.aim) {
            let state = self.instance.state_mut();
            let l = &mut state.locals_mut()[head.index()];
            l.rotation = (l.rotation * r.correction).normalize();
            state.compute_world_subtree(head);
        }
        let eval_ns = start.elapsed().as_nanos();
        let world = self.instance.world().to_vec();
        let eyes: Vec3 = (world[head.index()]
            * glam::Affine3A::from_translation(Vec3::new(0.0, 0.08, 0.08)))
        .translation
        .into();
        let residuals = self
            .instance
            .ik_results()
            .map(|(n, r)| (n.to_owned(), r.residual))
            .collect();
        let _ = Quat::IDENTITY;
        DrawFrame {
            time,
            world,
            targets: vec![target_l, target_r, hand_target],
            segments: vec![(eyes, hand_target)],
            bodies: Vec::new(),
            residuals,
            eval_ns,
        }
    }
}

impl Default for HumanoidScene {
    fn default() -> Self {
        Self::new()
    }
}
