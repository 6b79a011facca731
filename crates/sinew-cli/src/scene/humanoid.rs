//! The built-in demo: the procedural humanoid walks over uneven ground holding a rifle. Each
//! frame:
//!
//! 1. the walk clip writes the animated pose;
//! 2. foot IK: the pelvis drops by the lower of the two ground heights under the feet, and
//!    each leg's two-bone chain puts its ankle at the animated height above the ground;
//! 3. props: the rifle's stock is anchored at the right shoulder, both hands reach its grip
//!    and support (two-bone limbs with poles);
//! 4. the head looks along the barrel at a point ahead (aim solver, 60° cone);
//! 5. physics: ponytail, hair, skirt and cape strands swing as dynamic capsules (rapier);
//! 6. world matrices, targets and bodies are read back for drawing.

use std::sync::Arc;
use std::time::Instant;

use glam::{Affine3A, Vec3};
use sinew::ik::{solve_aim, AimParams, ChainJoint};
use sinew::{Model, SkeletonInstance};
use sinew_humanoid::rifle::{humanoid_rifle_config, rifle, HUMANOID_KIND, RIFLE};
use sinew_humanoid::Humanoid;
use sinew_physics::{PhysicsOptions, Ragdoll};
use sinew_props::{PropSlot, PropsRig};

use super::DrawFrame;
use crate::error::CliError;

/// Ground height (metres) at a point: gentle bumps along the walk.
#[must_use]
pub fn ground(x: f32, z: f32) -> f32 {
    0.07 * (2.3 * z + 0.4).sin().max(-0.3) + 0.025 * (3.1 * x + 1.0).sin()
}

/// What the hands do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Hands {
    /// Both hands on a rifle anchored at the shoulder (props and limbs).
    Rifle,
    /// Each hand follows its own moving target through the instance runtime (FABRIK arms).
    Reach,
}

/// The demo's state.
pub struct HumanoidScene {
    hands: Hands,
    humanoid: Humanoid,
    model: Model,
    instance: SkeletonInstance,
    aim: AimParams,
    props: PropsRig,
    ragdoll: Ragdoll,
    radii: Vec<f32>,
    last_time: Option<f32>,
}

impl HumanoidScene {
    /// Builds the humanoid (64 joints plus six 8-bone strands), its IK, props and physics.
    ///
    /// # Errors
    /// [`CliError::Internal`] if a built-in definition is rejected (a bug).
    pub fn new(hands: Hands) -> Result<Self, CliError> {
        let internal = |e: &dyn std::fmt::Display| CliError::Internal(e.to_string());
        let humanoid = Humanoid::with_extra_joints(48);
        let model = humanoid.model_with_ik_and_physics();
        let instance = SkeletonInstance::new(&model);
        let aim = AimParams::new(
            Vec3::Z,
            Vec3::Y,
            Vec3::new(0.0, 0.08, 0.08),
            0.0,
            1.0,
            Some(60f32.to_radians()),
        )
        .map_err(|e| internal(&e))?;
        let mut props = PropsRig::new(Arc::new(humanoid_rifle_config()), Some(HUMANOID_KIND))
            .map_err(|e| internal(&e))?;
        props.hold(RIFLE, PropSlot::Ready(rifle()));
        let ragdoll = Ragdoll::new(&model, PhysicsOptions::default()).map_err(|e| internal(&e))?;
        let radii = model
            .dynamics()
            .physics()
            .bodies()
            .iter()
            .map(|b| b.desc().size.x)
            .collect();
        Ok(Self {
            hands,
            humanoid,
            model,
            instance,
            aim,
            props,
            ragdoll,
            radii,
            last_time: None,
        })
    }

    /// Number of joints.
    #[must_use]
    pub fn joints(&self) -> usize {
        self.model.skeleton().len()
    }

    /// Number of rigid bodies.
    #[must_use]
    pub fn bodies(&self) -> usize {
        self.radii.len()
    }

    /// The skeleton (the body mesh binds to it).
    #[must_use]
    pub fn skeleton(&self) -> &std::sync::Arc<sinew::Skeleton> {
        self.model.skeleton()
    }

    /// Parent indices for drawing.
    #[must_use]
    pub fn parents(&self) -> &[u16] {
        self.model.skeleton().parent_indices()
    }

    /// Evaluates the scene at `time` seconds (frames are expected in increasing time).
    ///
    /// # Errors
    /// [`CliError::Internal`] when a stage rejects its input (a bug).
    pub fn frame(&mut self, time: f32) -> Result<DrawFrame, CliError> {
        let internal = |e: &dyn std::fmt::Display| CliError::Internal(e.to_string());
        let start = Instant::now();
        let b = self.humanoid.bones.clone();
        // 1. animated pose; an FK pass (no frame targets: every chain holds) finds the feet.
        self.humanoid.animate(time, self.instance.input_mut());
        self.instance.clear_frame_ik_targets();
        self.instance.update_transform();
        let w = self.instance.world();
        let foot = |i: usize| -> Vec3 { w[b.leg[i].end.index()].translation.into() };
        let (fl, fr) = (foot(0), foot(1));
        let rest_ankle = self.model.skeleton().rest_world()[b.leg[0].end.index()]
            .translation
            .y;
        let (gl, gr) = (ground(fl.x, fl.z), ground(fr.x, fr.z));
        // 2. foot IK.
        let drop = gl.min(gr);
        self.instance.input_mut()[b.root.index()].translation.y += drop;
        let target_l = Vec3::new(fl.x, gl + (fl.y - rest_ankle).max(0.0) + rest_ankle, fl.z);
        let target_r = Vec3::new(fr.x, gr + (fr.y - rest_ankle).max(0.0) + rest_ankle, fr.z);
        self.instance
            .set_frame_ik_target("leg_l", target_l, 1.0)
            .map_err(|e| internal(&e))?;
        self.instance
            .set_frame_ik_target("leg_r", target_r, 1.0)
            .map_err(|e| internal(&e))?;
        let chest: Vec3 = self.instance.world()[b.spine[2].index()].translation.into();
        let a = std::f32::consts::TAU * time * 0.8;
        let reach = [
            chest + Vec3::new(0.28 + 0.08 * a.cos(), 0.05 + 0.12 * a.sin(), 0.32),
            chest + Vec3::new(-0.28 - 0.08 * (a + 1.0).sin(), 0.1 * (a + 1.0).cos(), 0.3),
        ];
        if self.hands == Hands::Reach {
            self.instance
                .set_frame_ik_target("arm_l", reach[0], 1.0)
                .map_err(|e| internal(&e))?;
            self.instance
                .set_frame_ik_target("arm_r", reach[1], 1.0)
                .map_err(|e| internal(&e))?;
        }
        let writeback = self.ragdoll.options().writeback;
        self.instance.evaluate_before_physics(writeback);
        // 3. rifle anchored at the shoulder, hands on grip and support (or the reach targets).
        let (segment, hand_targets, look) = if self.hands == Hands::Rifle {
            self.props
                .solve(self.instance.state_mut())
                .map_err(|e| internal(&e))?;
            let prop = self
                .props
                .prop(RIFLE)
                .ok_or_else(|| CliError::Internal("rifle not held".into()))?;
            let point = |n: &str| prop.empty_position_world(n).unwrap_or(Vec3::ZERO);
            let (stock, muzzle) = (point("stock"), point("muzzle"));
            let look = muzzle + (muzzle - stock).normalize_or(Vec3::Z) * 0.6;
            ((stock, muzzle), [point("grip"), point("support")], look)
        } else {
            ((reach[0], reach[0]), reach, reach[0])
        };
        // 4. the head looks down the barrel (or at the left hand's target).
        let hw = self.instance.world()[b.head.index()];
        let (_, rotation, position) = hw.to_scale_rotation_translation();
        if let Ok(r) = solve_aim(
            &ChainJoint::new(position, rotation),
            look,
            Vec3::Y,
            &self.aim,
        ) {
            let state = self.instance.state_mut();
            let l = &mut state.locals_mut()[b.head.index()];
            l.rotation = (l.rotation * r.correction).normalize();
            state.compute_world_subtree(b.head);
        }
        // 5. physics.
        let dt = self.last_time.map_or(1.0 / 60.0, |t| (time - t).max(1e-4));
        self.last_time = Some(time);
        self.ragdoll
            .step(self.instance.state_mut(), time, dt)
            .map_err(|e| internal(&e))?;
        self.instance.evaluate_after_physics(writeback);
        let eval_ns = start.elapsed().as_nanos();
        // 6. read back.
        let world = self.instance.world().to_vec();
        let eyes: Vec3 = (world[b.head.index()]
            * Affine3A::from_translation(Vec3::new(0.0, 0.08, 0.08)))
        .translation
        .into();
        let mut residuals: Vec<(String, f32)> = self
            .instance
            .ik_results()
            .filter(|(n, _)| self.hands == Hands::Reach || n.starts_with("leg"))
            .map(|(n, r)| (n.to_owned(), r.residual))
            .collect();
        if let (Hands::Rifle, Some(short)) = (self.hands, self.props.short()) {
            residuals.extend(
                ["hand_r", "hand_l"]
                    .iter()
                    .zip(short)
                    .map(|(n, s)| ((*n).to_owned(), *s)),
            );
        }
        let bodies = (0..self.radii.len())
            .filter_map(|i| {
                let id = self.ragdoll.body_of(i)?;
                self.ragdoll.body_pose(id).map(|(p, _)| (p, self.radii[i]))
            })
            .collect();
        Ok(DrawFrame {
            time,
            world,
            targets: vec![target_l, target_r, hand_targets[0], hand_targets[1]],
            segments: vec![segment, (eyes, look)],
            bodies,
            residuals,
            eval_ns,
        })
    }
}
