//! [`Ragdoll`]: one instance's simulated bodies — build, drive, step, writeback.
//!
//! This file holds the types (the ragdoll, each body's runtime state, the bones' roles), the
//! accessors and [`Ragdoll::step`], the physics stage of a frame, which runs through the
//! child modules in order:
//!
//! * `build` — [`Ragdoll::from_parts`]: bodies, joints and bone roles from the physics table;
//! * `drive` — the bodies' animated targets, seeding, floating-origin shifts;
//! * `step` — one fixed step: prediction (gravity, damping, kinematic motion), contacts, the
//!   joint and contact solve, joint projection;
//! * `guards` — non-finite or exploded bodies reset and reported, the report's measurements;
//! * `writeback` — simulated bodies → output locals, parent before child.
//! * `handles` — bodies and joints as typed ids: their sources, world poses read and set.

use std::sync::Arc;

use glam::{Affine3A, DVec3, Quat, Vec3};
use rapier3d::prelude::RigidBodyHandle;
use sinew::dynamics::BodyMode;
use sinew::{BoneId, RigState, Skeleton, SkeletonInstance};

use crate::contact::Collider;
use crate::six_dof::{BodyState, ContactPoint, JointSolver, SixDof};
use crate::world::{to_r, Rigid, World};
use crate::{FrameReport, PhysicsError, PhysicsOptions, ResetReason, Writeback};

pub use handles::{BodyId, JointId};

mod build;
mod drive;
mod guards;
mod handles;
mod step;
mod writeback;

/// Default gravity, simulation units per second² (metres when the unit scale maps definition
/// units to metres).
pub const DEFAULT_GRAVITY: Vec3 = Vec3::new(0.0, -9.806_65, 0.0);

struct BodyRt {
    def: usize,
    handle: RigidBodyHandle,
    bone: Option<BoneId>,
    mode: BodyMode,
    /// Moved by its target every step (kinematic mode, or mass 0).
    driven: bool,
    /// `bone_rest_world⁻¹ · body_bind` (model space), or `body_bind` without a bone.
    bone_to_body: Affine3A,
    /// Simulation-space target at the end of the previous frame's steps.
    prev: Rigid,
    /// Simulation-space target of this frame.
    target: Rigid,
    /// Evaluation-space animated pose of this frame.
    anim: Rigid,
    anim_ok: bool,
    /// Collision shape (centred on the body), the radius of a sphere holding it, the
    /// `(group, non-collision mask)` pair, friction and restitution.
    shape: Collider,
    /// The collision shape's size, simulation units, in the definition's convention (sphere:
    /// x radius; box: half extents; capsule: x radius, y cylinder height).
    size: Vec3,
    reach: f32,
    groups: (u8, u64),
    friction: f32,
    restitution: f32,
    /// Inverse mass and local inverse principal inertia (Bullet's shape inertia); 0 when
    /// driven.
    inv_mass: f32,
    inv_inertia: Vec3,
    /// Bullet damping (fraction of velocity lost per second, clamped to `[0, 1]`): linear,
    /// angular. Applied by the ragdoll itself when `PhysicsOptions::bullet_damping`.
    damping: (f32, f32),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    Animated,
    Body(usize),
    Follower(BoneId),
}

/// One instance's rigid-body simulation in its own rapier world (what
/// [`enable_physics`] makes). `Send`: instances step in parallel. Dropping it detaches physics.
///
/// All simulation happens in *simulation-local* coordinates: the instance's evaluation space
/// (relative to its floating-origin anchor) multiplied by `Physics::unit_scale()`.
pub struct Ragdoll {
    skeleton: Arc<Skeleton>,
    options: PhysicsOptions,
    gravity: Vec3,
    unit_scale: Vec3,
    /// The table's bodies and the joints (table's, then the profile's) the handles' sources
    /// are.
    definitions: (Vec<sinew::dynamics::RigidBody>, Vec<sinew::dynamics::Joint>),
    /// Simulation units per definition unit, one number: what constants in definition units
    /// (contact margin, push-out and damping speeds) are scaled by.
    length_scale: f32,
    affine: bool,
    world: World,
    bodies: Vec<BodyRt>,
    body_of_def: Vec<Option<usize>>,
    /// The created joints in solver form, and each one's index: into `Physics::joints()`, then
    /// (past its end) into the profile's joints.
    six: Vec<SixDof>,
    joint_defs: Vec<usize>,
    /// This step's contact points.
    contacts: Vec<ContactPoint>,
    solver: JointSolver,
    /// Bullet's row order this step, and the joints and contacts in it.
    order: crate::solve_order::SolveOrder,
    ordered_joints: Vec<SixDof>,
    ordered_contacts: Vec<ContactPoint>,
    states: Vec<BodyState>,
    /// Joint-tree order for projection: (index into `six`, `true` when body B moves).
    projection: Vec<(usize, bool)>,
    roles: Vec<Role>,
    step: f32,
    accumulator: f32,
    seeded: bool,
    last_time: Option<f32>,
    last_origin: Option<DVec3>,
    last_root: Option<(DVec3, Quat)>,
    anim_world: Vec<Affine3A>,
    work: Vec<Affine3A>,
    /// Per bone: its world matrix changed in the last world writeback.
    moved: Vec<bool>,
    report: FrameReport,
}

impl std::fmt::Debug for Ragdoll {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ragdoll")
            .field("bodies", &self.bodies.len())
            .field("joints", &self.six.len())
            .field("gravity", &self.gravity)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Ragdoll {
    /// Gravity, simulation units per second² (definition units × unit scale). Default
    /// [`DEFAULT_GRAVITY`].
    #[must_use]
    pub fn gravity(&self) -> Vec3 {
        self.gravity
    }

    /// Sets gravity, simulation units per second². Non-finite values are ignored.
    pub fn set_gravity(&mut self, gravity: Vec3) {
        if gravity.is_finite() {
            self.gravity = gravity;
        }
    }

    /// The options this ragdoll was built with.
    #[must_use]
    pub fn options(&self) -> &PhysicsOptions {
        &self.options
    }

    /// Number of simulated bodies (the profile's selection).
    #[must_use]
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Number of joints created (joints whose two bodies both exist).
    #[must_use]
    pub fn joint_count(&self) -> usize {
        self.six.len()
    }

    /// The effective mode of body `id` (`None` for an id past this ragdoll's bodies).
    #[must_use]
    pub fn body_mode(&self, id: BodyId) -> Option<BodyMode> {
        self.bodies.get(id.index()).map(|b| b.mode)
    }

    /// The collision shape body `id` was created with: its kind and its size in simulation
    /// units, in [`RigidBodyDesc::size`]'s convention (sphere: x radius; box: half extents;
    /// capsule: x radius, y full height of the cylinder) — the table's size times the unit
    /// scale, sphere and capsule radii times the profile's radius scales (a capsule keeping
    /// its full length).
    ///
    /// [`RigidBodyDesc::size`]: sinew::dynamics::RigidBodyDesc::size
    #[must_use]
    pub fn body_shape(&self, id: BodyId) -> Option<(sinew::dynamics::Shape, Vec3)> {
        let b = self.bodies.get(id.index())?;
        Some((self.definitions.0[b.def].desc().shape, b.size))
    }

    /// Pose of body `id` in simulation-local coordinates (relative to the instance's origin
    /// anchor, times the unit scale); [`Self::body_world`] gives it in world units.
    #[must_use]
    pub fn body_pose(&self, id: BodyId) -> Option<(Vec3, Quat)> {
        let b = self.bodies.get(id.index())?;
        let p = Rigid::from_r(self.world.bodies[b.handle].position());
        Some((p.t, p.r))
    }

    /// Sets the velocity of body `id` (simulation units per second, radians per second), e.g.
    /// for a hit. Returns false for an unknown id. Non-finite values are accepted here and
    /// caught by the per-frame guard.
    pub fn set_body_velocity(&mut self, id: BodyId, linear: Vec3, angular: Vec3) -> bool {
        let Some(b) = self.bodies.get(id.index()) else {
            return false;
        };
        let rb = &mut self.world.bodies[b.handle];
        rb.set_linvel(to_r(linear), true);
        rb.set_angvel(to_r(angular), true);
        true
    }

    /// Test hook: corrupts a body's simulated pose with NaN (as a solver blow-up would), to
    /// exercise the per-frame guard. Returns false for an unknown id.
    #[doc(hidden)]
    pub fn corrupt_body_for_tests(&mut self, id: BodyId) -> bool {
        let Some(b) = self.bodies.get(id.index()) else {
            return false;
        };
        let rb = &mut self.world.bodies[b.handle];
        let nan = Rigid::new(Vec3::NAN, Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0));
        rb.set_position(nan.to_r(), true);
        true
    }

    /// Re-seeds every body at its animated pose on the next frame.
    pub fn reset(&mut self) {
        self.seeded = false;
        self.accumulator = 0.0;
    }

    /// The report of the last frame.
    #[must_use]
    pub fn last_report(&self) -> &FrameReport {
        &self.report
    }

    /// The physics stage of one frame over a character's `state`, whose world matrices hold
    /// the animated (post-IK) pose: drive kinematic bodies from it, run the fixed steps this
    /// frame's `dt` pays for (accumulator, capped), and write the simulated pose back into
    /// `state` by the options' [`Writeback`]:
    ///
    /// * [`Writeback::Locals`]: simulated bones become the state's locals (parent before
    ///   child); the world matrices are left for the frame's next stage to rebuild
    ///   ([`SkeletonInstance::evaluate_after_physics`]);
    /// * [`Writeback::World`]: simulated bones' world matrices are written directly, the
    ///   bones below them carried along; the locals keep the animated pose.
    ///
    /// Nothing else is evaluated here: the stages before physics
    /// ([`SkeletonInstance::evaluate_before_physics`])
    /// and after it are the scheduler's (a [`TickLoop`](sinew::instance::TickLoop) with a
    /// [`PhysicsModule`](crate::PhysicsModule), or `Character`). `time` is used only to detect
    /// seeks backwards; `dt` (seconds) feeds the accumulator (non-finite or negative counts as
    /// 0).
    ///
    /// # Errors
    /// [`PhysicsError::SkeletonMismatch`] when `state` is not over this ragdoll's skeleton;
    /// [`PhysicsError::NotEvaluated`] when it has no world matrices yet;
    /// [`PhysicsError::TooManyContacts`] when the bodies pile up past the contact bound.
    pub fn step(
        &mut self,
        state: &mut RigState,
        time: f32,
        dt: f32,
    ) -> Result<&FrameReport, PhysicsError> {
        if !Arc::ptr_eq(state.skeleton(), &self.skeleton) {
            return Err(PhysicsError::SkeletonMismatch);
        }
        let frame = PhysicsFrame {
            time,
            dt,
            root: state.root_affine(),
            origin: state.origin(),
        };
        self.simulate(state.world().ok_or(PhysicsError::NotEvaluated)?, &frame)?;
        match self.options.writeback {
            Writeback::World => self.write_world(state.allocate_world(), &frame.root),
            Writeback::Locals => self.writeback(state.locals_mut(), &frame.root),
        }
        Ok(&self.report)
    }

    /// The slice-level frame for hosts that keep their own pose: `world` holds the animated
    /// (post-IK) world matrices of this ragdoll's skeleton, in its order, relative to
    /// `frame.origin`; the simulated pose is written back into it as [`Writeback::World`]
    /// does (whatever the options say), bones below simulated ones carried along.
    ///
    /// # Errors
    /// [`PhysicsError::SkeletonMismatch`] when `world` is not one matrix per bone;
    /// [`PhysicsError::TooManyContacts`] as [`Self::step`].
    pub fn step_world(
        &mut self,
        world: &mut [Affine3A],
        frame: &PhysicsFrame,
    ) -> Result<&FrameReport, PhysicsError> {
        if world.len() != self.skeleton.len() {
            return Err(PhysicsError::SkeletonMismatch);
        }
        self.simulate(world, frame)?;
        self.write_world(world, &frame.root);
        Ok(&self.report)
    }

    /// Drives the bodies from `anim_world` and runs the frame's fixed steps; the report is
    /// filled, nothing is written back.
    fn simulate(
        &mut self,
        anim_world: &[Affine3A],
        frame: &PhysicsFrame,
    ) -> Result<(), PhysicsError> {
        self.report.clear();
        let dt = if frame.dt.is_finite() && frame.dt > 0.0 {
            frame.dt
        } else {
            0.0
        };
        let (time, root_affine, origin) = (frame.time, frame.root, frame.origin);
        self.anim_world.copy_from_slice(anim_world);

        // Floating origin: keep bodies where they are in the world when the anchor moves.
        if let Some(prev) = self.last_origin {
            if prev != origin {
                self.shift(((prev - origin).as_vec3()) * self.unit_scale);
            }
        }
        self.last_origin = Some(origin);

        // Teleport / rewind detection on the animated root.
        let root_world = self.anim_world.first().copied().unwrap_or(root_affine);
        let root_pos = origin + Vec3::from(root_world.translation).as_dvec3();
        let root_rot = Rigid::from_affine(&root_world).r;
        let mut reset = (!self.seeded).then_some(ResetReason::Initial);
        if let Some((p, r)) = self.last_root {
            let moved = (root_pos - p).length() as f32;
            if reset.is_none()
                && (moved > self.options.teleport_distance
                    || root_rot.angle_between(r) > self.options.teleport_angle)
            {
                reset = Some(ResetReason::Teleport);
            }
        }
        self.last_root = Some((root_pos, root_rot));
        if let Some(t0) = self.last_time {
            if reset.is_none() && self.options.reset_on_rewind && time < t0 - self.step {
                reset = Some(ResetReason::Rewind);
            }
        }
        self.last_time = Some(time);

        self.compute_targets(&root_affine);
        if let Some(reason) = reset {
            self.seed_all();
            self.report.reset = Some(reason);
            self.accumulator = 0.0;
            self.seeded = true;
        }

        // Fixed steps.
        self.accumulator += dt;
        let mut n = (self.accumulator / self.step).floor() as u32;
        if n > self.options.max_steps_per_frame {
            n = self.options.max_steps_per_frame;
            self.report.dropped_time = self.accumulator - n as f32 * self.step;
            self.accumulator = 0.0;
        } else {
            self.accumulator = (self.accumulator - n as f32 * self.step).max(0.0);
        }
        for k in 1..=n {
            self.predict(k as f32 / n as f32);
            self.find_contacts();
            let pairs = self.contacts.len();
            if pairs > crate::MAX_CONTACT_PAIRS {
                return Err(PhysicsError::TooManyContacts {
                    pairs,
                    limit: crate::MAX_CONTACT_PAIRS,
                    when: "during a step",
                });
            }
            self.solve_rows();
            // Gravity is already in the velocities (see `predict`).
            self.world.step(Vec3::ZERO);
            self.project_joints();
        }
        self.report.steps = n;
        if n > 0 {
            for b in &mut self.bodies {
                b.prev = b.target;
            }
        }

        self.guard();
        self.measure();
        Ok(())
    }
}

/// What one physics frame of a host's own pose needs besides the pose
/// ([`Ragdoll::step_world`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhysicsFrame {
    /// The frame's time, seconds: a time more than one step before the last frame's is a
    /// seek backwards (bodies re-seeded when [`PhysicsOptions::reset_on_rewind`]).
    pub time: f32,
    /// Seconds this frame advances (fed to the fixed-step accumulator).
    pub dt: f32,
    /// The root matrix the skeleton's roots hang from, relative to `origin`.
    pub root: Affine3A,
    /// The floating-origin anchor the world matrices are relative to.
    pub origin: DVec3,
}

/// [`Ragdoll::new`]: the physics of one instance over its model's table.
///
/// # Errors
/// See [`Ragdoll::from_parts`].
pub fn enable_physics(
    instance: &SkeletonInstance,
    options: PhysicsOptions,
) -> Result<Ragdoll, PhysicsError> {
    Ragdoll::new(instance.model(), options)
}

#[cfg(test)]
mod tests;
