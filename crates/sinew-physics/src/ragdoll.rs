//! [`Ragdoll`]: one instance's simulated bodies — build, drive, step, writeback.

use std::sync::Arc;

use glam::{Affine3A, DVec3, Mat3, Quat, Vec3};
use rapier3d::prelude::{MassProperties, RigidBodyBuilder, RigidBodyHandle};
use sinew::dynamics::{BodyMode, Physics, Shape};
use sinew::math::quat_from_euler_xyz;
use sinew::{BoneId, Model, Skeleton, SkeletonInstance, Transform};

use crate::contact::Collider;
use crate::six_dof::{self, BodyState, ContactPoint, JointSolver, SixDof};
use crate::world::{from_r, mmd_collides, to_r, Rigid, World};
use crate::{BadBody, BadBodyKind, FrameReport, PhysicsError, PhysicsOptions, ResetReason};

/// Default gravity, simulation units per second² (metres when the unit scale maps definition
/// units to metres).
pub const DEFAULT_GRAVITY: Vec3 = Vec3::new(0.0, -9.806_65, 0.0);

const NO_PARENT: u16 = u16::MAX;

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

/// The joint tree used by projection: breadth-first from the driven bodies (then from the
/// lowest unreached body of each free-floating group), each tree joint moving the body it
/// reaches. Joints between two driven bodies and joints closing a loop are left out.
fn projection_order(driven: &[bool], joints: &[(usize, usize)]) -> Vec<(usize, bool)> {
    let n = driven.len();
    let mut adjacent: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (ji, &(a, b)) in joints.iter().enumerate() {
        adjacent[a].push(ji);
        adjacent[b].push(ji);
    }
    let mut reached = driven.to_vec();
    let mut queue: std::collections::VecDeque<usize> = (0..n).filter(|&i| driven[i]).collect();
    let mut order = Vec::new();
    let mut next_root = 0;
    loop {
        while let Some(u) = queue.pop_front() {
            for &ji in &adjacent[u] {
                let (a, b) = joints[ji];
                let v = if a == u { b } else { a };
                if !reached[v] {
                    reached[v] = true;
                    order.push((ji, v == b));
                    queue.push_back(v);
                }
            }
        }
        while next_root < n && reached[next_root] {
            next_root += 1;
        }
        if next_root == n {
            return order;
        }
        reached[next_root] = true;
        queue.push_back(next_root);
    }
}

/// One instance's rigid-body simulation in its own rapier world (the spec's
/// `enablePhysics` result). `Send`: instances step in parallel. Dropping it detaches physics.
///
/// All simulation happens in *simulation-local* coordinates: the instance's evaluation space
/// (relative to its floating-origin anchor) multiplied by `Physics::unit_scale()`.
pub struct Ragdoll {
    skeleton: Arc<Skeleton>,
    options: PhysicsOptions,
    gravity: Vec3,
    unit_scale: Vec3,
    affine: bool,
    world: World,
    bodies: Vec<BodyRt>,
    body_of_def: Vec<Option<usize>>,
    /// The created joints in solver form, and each one's index in `Physics::joints()`.
    six: Vec<SixDof>,
    joint_defs: Vec<usize>,
    /// This step's contact points.
    contacts: Vec<ContactPoint>,
    solver: JointSolver,
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

/// How close two bodies come before they get a contact (Bullet's default collision margin,
/// simulation units).
const CONTACT_MARGIN: f32 = 0.04;

/// Bullet's "additional damping" (on for MMD bodies in MMD, babylon-mmd and saba): a body whose
/// squared linear and angular speeds are both below this is nearly stopped.
const ADDITIONAL_DAMPING_THRESHOLD_SQ: f32 = 0.01;
/// What is left of a nearly stopped body's velocities.
const ADDITIONAL_DAMPING_FACTOR: f32 = 0.005;
/// Below its damping value, a speed also loses this much per step (Bullet's fixed constant).
const ADDITIONAL_DAMPING_STEP: f32 = 0.005;

/// Bullet's damping of one step, applied to velocities that already include this step's
/// gravity (`btRigidBody::applyDamping`): `v·(1 − d)^dt`, then the additional damping.
fn bullet_damp(v: Vec3, w: Vec3, (dl, da): (f32, f32), dt: f32) -> (Vec3, Vec3) {
    let mut v = v * (1.0 - dl).powf(dt);
    let mut w = w * (1.0 - da).powf(dt);
    if v.length_squared() < ADDITIONAL_DAMPING_THRESHOLD_SQ
        && w.length_squared() < ADDITIONAL_DAMPING_THRESHOLD_SQ
    {
        v *= ADDITIONAL_DAMPING_FACTOR;
        w *= ADDITIONAL_DAMPING_FACTOR;
    }
    let slow = |x: Vec3, d: f32| {
        let speed = x.length();
        if speed >= d {
            x
        } else if speed > ADDITIONAL_DAMPING_STEP {
            x - x / speed * ADDITIONAL_DAMPING_STEP
        } else {
            Vec3::ZERO
        }
    };
    (slow(v, dl), slow(w, da))
}

/// Pairs of bodies that collide with each other (MMD's group rule) and whose bounding spheres
/// overlap, counted up to just past `limit`.
fn overlapping_pairs(spheres: &[(Vec3, f32, (u8, u64))], limit: usize) -> usize {
    let mut pairs = 0;
    for (i, &(ca, ra, ga)) in spheres.iter().enumerate() {
        for &(cb, rb, gb) in &spheres[i + 1..] {
            let reach = ra + rb;
            if ca.distance_squared(cb) <= reach * reach && crate::world::mmd_collides(ga, gb) {
                pairs += 1;
                if pairs > limit {
                    return pairs;
                }
            }
        }
    }
    pairs
}

impl Ragdoll {
    /// Enables physics for instances of `model` using its mounted physics table.
    ///
    /// # Errors
    /// See [`Self::from_parts`].
    pub fn new(model: &Model, options: PhysicsOptions) -> Result<Self, PhysicsError> {
        Self::from_parts(model.skeleton(), model.dynamics().physics(), options)
    }

    /// Enables physics from a skeleton and a physics table.
    ///
    /// # Errors
    /// [`PhysicsError::NoBodies`] when the table (or the profile's selection) is empty,
    /// [`PhysicsError::ProfileRequired`] for a candidate table without a profile,
    /// [`PhysicsError::DegenerateShape`] naming the body whose radius or half-extent is not
    /// positive, and the other variants for bad indices or options.
    pub fn from_parts(
        skeleton: &Arc<Skeleton>,
        physics: &Physics,
        options: PhysicsOptions,
    ) -> Result<Self, PhysicsError> {
        options.validate()?;
        let defs = physics.bodies();
        if defs.is_empty() {
            return Err(PhysicsError::NoBodies);
        }
        if physics.profile_required() && options.profile.is_none() {
            return Err(PhysicsError::ProfileRequired);
        }
        if defs.len() > crate::MAX_BODIES {
            return Err(PhysicsError::TooManyBodies {
                count: defs.len(),
                limit: crate::MAX_BODIES,
            });
        }
        if physics.joints().len() > crate::MAX_JOINTS {
            return Err(PhysicsError::TooManyJoints {
                count: physics.joints().len(),
                limit: crate::MAX_JOINTS,
            });
        }
        // Selection: (mode, radius scale) per definition body.
        let mut selected: Vec<Option<(BodyMode, f32)>> = match &options.profile {
            None => defs.iter().map(|b| Some((b.mode(), 1.0))).collect(),
            Some(p) => {
                let mut sel = vec![None; defs.len()];
                for (entry, e) in p.bodies.iter().enumerate() {
                    if e.body >= defs.len() {
                        return Err(PhysicsError::ProfileBodyOutOfRange {
                            entry,
                            body: e.body,
                            len: defs.len(),
                        });
                    }
                    if !(e.radius_scale.is_finite() && e.radius_scale > 0.0) {
                        return Err(PhysicsError::InvalidRadiusScale {
                            entry,
                            value: e.radius_scale,
                        });
                    }
                    let mode = e.mode.unwrap_or(defs[e.body].mode());
                    sel[e.body] = Some((mode, e.radius_scale * physics.profile_radius_scale()));
                }
                sel
            }
        };
        if selected.iter().all(Option::is_none) {
            return Err(PhysicsError::NoBodies);
        }
        let s = physics.unit_scale();
        let step = 1.0 / options.step_hz;
        let mut world = World::new(step);
        let rest_world = skeleton.rest_world();
        let mut bodies = Vec::new();
        // Bounding sphere and collision group of each body at bind (for the contact bound).
        let mut spheres: Vec<(Vec3, f32, (u8, u64))> = Vec::with_capacity(defs.len());
        let mut body_of_def = vec![None; defs.len()];
        for (index, def) in defs.iter().enumerate() {
            let Some((mode, radius_scale)) = selected[index].take() else {
                continue;
            };
            let d = def.desc();
            if let Some(b) = d.bone {
                if b.index() >= skeleton.len() {
                    return Err(PhysicsError::BoneOutOfRange {
                        index,
                        name: d.name.clone(),
                        bone: b.index(),
                        len: skeleton.len(),
                    });
                }
            }
            let size = match d.shape {
                Shape::Sphere => Vec3::new(d.size.x * s.x * radius_scale, 0.0, 0.0),
                Shape::Box => d.size * s,
                Shape::Capsule => Vec3::new(d.size.x * s.x * radius_scale, d.size.y * s.y, 0.0),
            };
            let degenerate = match d.shape {
                Shape::Sphere | Shape::Capsule => {
                    size.x.is_nan() || size.x <= 0.0 || !size.is_finite()
                }
                Shape::Box => size.is_nan() || size.min_element() <= 0.0 || !size.is_finite(),
            };
            if degenerate {
                return Err(PhysicsError::DegenerateShape {
                    index,
                    name: d.name.clone(),
                    shape: d.shape,
                    size,
                });
            }
            // Collision detection breaks down (and parry's EPA panics) on shapes spanning
            // many orders of magnitude: huge extents and far positions are refused, tiny
            // positive extents raised to the smallest simulated one.
            if size.max_element() > crate::MAX_BODY_EXTENT
                || (d.position * s).abs().max_element() > crate::MAX_BODY_POSITION
            {
                return Err(PhysicsError::BodyOutOfRange {
                    index,
                    name: d.name.clone(),
                    size,
                    position: d.position * s,
                });
            }
            let size = match d.shape {
                Shape::Box => size.max(Vec3::splat(crate::MIN_BODY_EXTENT)),
                Shape::Sphere | Shape::Capsule => {
                    Vec3::new(size.x.max(crate::MIN_BODY_EXTENT), size.y, size.z)
                }
            };
            let rt = bodies.len();
            let driven = mode == BodyMode::Kinematic || d.mass <= 0.0;
            let bind_model =
                Affine3A::from_rotation_translation(quat_from_euler_xyz(d.rotation), d.position);
            let bone_to_body = match d.bone {
                Some(b) => rest_world[b.index()].inverse() * bind_model,
                None => bind_model,
            };
            let bind_sim = Rigid::new(d.position * s, quat_from_euler_xyz(d.rotation));
            // Bullet's shape inertia (a capsule's is its bounding box's), so bodies turn as
            // they do in MMD.
            let inertia = match d.shape {
                Shape::Sphere => six_dof::sphere_inertia(d.mass, size.x),
                Shape::Box => six_dof::box_inertia(d.mass, size),
                Shape::Capsule => six_dof::capsule_inertia(d.mass, size.x, size.y),
            };
            let dynamic_props = !driven && inertia.min_element() > 0.0 && inertia.is_finite();
            let rb = if driven {
                RigidBodyBuilder::kinematic_position_based()
            } else {
                RigidBodyBuilder::dynamic().additional_mass_properties(MassProperties::new(
                    to_r(Vec3::ZERO),
                    d.mass,
                    to_r(if dynamic_props { inertia } else { Vec3::ONE }),
                ))
            }
            .pose(bind_sim.to_r())
            // Bullet damping is applied by `predict`; otherwise rapier's own.
            .linear_damping(if options.bullet_damping {
                0.0
            } else {
                d.linear_damping
            })
            .angular_damping(if options.bullet_damping {
                0.0
            } else {
                d.angular_damping
            })
            .can_sleep(false)
            .user_data(rt as u128)
            .build();
            let handle = world.bodies.insert(rb);
            // The collision shape; contacts are found and solved by the ragdoll (see
            // `find_contacts` and `solve_rows`), so rapier holds no colliders.
            let shape = match d.shape {
                Shape::Sphere => Collider::ball(size.x),
                Shape::Box => Collider::cuboid(size),
                Shape::Capsule => Collider::capsule(size.x, size.y * 0.5),
            };
            let reach = match d.shape {
                Shape::Sphere => size.x,
                Shape::Box => size.length(),
                Shape::Capsule => size.x + size.y * 0.5,
            };
            spheres.push((bind_sim.t, reach, (d.collision_group, d.non_collision_mask)));
            body_of_def[index] = Some(rt);
            bodies.push(BodyRt {
                def: index,
                handle,
                bone: d.bone,
                mode,
                driven,
                bone_to_body,
                prev: bind_sim,
                target: bind_sim,
                anim: Rigid::IDENTITY,
                anim_ok: false,
                damping: (
                    d.linear_damping.clamp(0.0, 1.0),
                    d.angular_damping.clamp(0.0, 1.0),
                ),
                shape,
                reach,
                groups: (d.collision_group, d.non_collision_mask),
                friction: d.friction,
                restitution: d.restitution,
                inv_mass: if driven { 0.0 } else { 1.0 / d.mass },
                inv_inertia: if dynamic_props {
                    Vec3::ONE / inertia
                } else {
                    Vec3::ZERO
                },
            });
        }

        let mut joint_defs = Vec::new();
        let mut six = Vec::new();
        for (index, j) in physics.joints().iter().enumerate() {
            let d = j.desc();
            if d.body_a >= defs.len() || d.body_b >= defs.len() || d.body_a == d.body_b {
                return Err(PhysicsError::InvalidJointBodies {
                    index,
                    name: d.name.clone(),
                    a: d.body_a,
                    b: d.body_b,
                    len: defs.len(),
                });
            }
            let (Some(a), Some(b)) = (body_of_def[d.body_a], body_of_def[d.body_b]) else {
                continue;
            };
            let frame = Rigid::new(d.position * s, quat_from_euler_xyz(d.rotation));
            let bind = |rt: usize| Rigid::from_r(world.bodies[bodies[rt].handle].position());
            let frame_a = bind(a).inverse().mul(frame);
            let frame_b = bind(b).inverse().mul(frame);
            six.push(SixDof {
                a,
                b,
                frame_a,
                frame_b,
                lin_lo: d.position_min * s,
                lin_hi: d.position_max * s,
                ang_lo: d.rotation_min,
                ang_hi: d.rotation_max,
                lin_k: d.position_spring.max(Vec3::ZERO),
                ang_k: d.rotation_spring.max(Vec3::ZERO),
            });
            joint_defs.push(index);
        }

        let projection = projection_order(
            &bodies.iter().map(|b| b.driven).collect::<Vec<_>>(),
            &six.iter().map(|j| (j.a, j.b)).collect::<Vec<_>>(),
        );

        // Bone roles: simulated bodies write back; followers follow.
        let n = skeleton.len();
        let mut roles = vec![Role::Animated; n];
        for (rt, b) in bodies.iter().enumerate() {
            if let (Some(bone), false) = (b.bone, b.driven) {
                if roles[bone.index()] == Role::Animated {
                    roles[bone.index()] = Role::Body(rt);
                }
            }
        }
        // Each bone's nearest simulated ancestor, in one pass (the skeleton stores parents
        // before children), so many followers on a deep chain cost linear time.
        let mut body_above: Vec<Option<BoneId>> = vec![None; n];
        for b in skeleton.bones() {
            if let Some(p) = skeleton.parent(b) {
                body_above[b.index()] = if matches!(roles[p.index()], Role::Body(_)) {
                    Some(p)
                } else {
                    body_above[p.index()]
                };
            }
        }
        for &f in physics.bind_pose_followers() {
            if f.index() >= n || roles[f.index()] != Role::Animated {
                continue;
            }
            if let Some(a) = body_above[f.index()] {
                roles[f.index()] = Role::Follower(a);
            }
        }

        let pairs = overlapping_pairs(&spheres, crate::MAX_CONTACT_PAIRS);
        if pairs > crate::MAX_CONTACT_PAIRS {
            return Err(PhysicsError::TooManyContacts {
                pairs,
                limit: crate::MAX_CONTACT_PAIRS,
                when: "at bind",
            });
        }
        Ok(Self {
            skeleton: Arc::clone(skeleton),
            options,
            gravity: DEFAULT_GRAVITY,
            unit_scale: s,
            affine: physics.affine_writeback(),
            world,
            bodies,
            body_of_def,
            six,
            joint_defs,
            contacts: Vec::new(),
            solver: JointSolver::default(),
            states: Vec::new(),
            projection,
            roles,
            step,
            accumulator: 0.0,
            seeded: false,
            last_time: None,
            last_origin: None,
            last_root: None,
            anim_world: vec![Affine3A::IDENTITY; n],
            work: vec![Affine3A::IDENTITY; n],
            report: FrameReport::default(),
        })
    }

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

    /// The effective mode of definition body `body`, if it was created.
    #[must_use]
    pub fn body_mode(&self, body: usize) -> Option<BodyMode> {
        self.rt(body).map(|b| b.mode)
    }

    fn rt(&self, body: usize) -> Option<&BodyRt> {
        self.body_of_def
            .get(body)
            .copied()
            .flatten()
            .map(|i| &self.bodies[i])
    }

    /// Pose of definition body `body` in simulation-local coordinates (relative to the
    /// instance's origin anchor, times the unit scale).
    #[must_use]
    pub fn body_pose(&self, body: usize) -> Option<(Vec3, Quat)> {
        let b = self.rt(body)?;
        let p = Rigid::from_r(self.world.bodies[b.handle].position());
        Some((p.t, p.r))
    }

    /// World position of definition body `body`, world units, `f64` (anchor added back, unit
    /// scale divided out). `None` before the first frame or for an unknown body.
    #[must_use]
    pub fn body_position_world(&self, body: usize) -> Option<DVec3> {
        let origin = self.last_origin?;
        let (t, _) = self.body_pose(body)?;
        Some(origin + (t / self.unit_scale).as_dvec3())
    }

    /// Sets the velocity of definition body `body` (simulation units per second, radians per
    /// second), e.g. for a hit. Returns false for an unknown body. Non-finite values are
    /// accepted here and caught by the per-frame guard.
    pub fn set_body_velocity(&mut self, body: usize, linear: Vec3, angular: Vec3) -> bool {
        let Some(i) = self.body_of_def.get(body).copied().flatten() else {
            return false;
        };
        let rb = &mut self.world.bodies[self.bodies[i].handle];
        rb.set_linvel(to_r(linear), true);
        rb.set_angvel(to_r(angular), true);
        true
    }

    /// Test hook: corrupts a body's simulated pose with NaN (as a solver blow-up would), to
    /// exercise the per-frame guard. Returns false for an unknown body.
    #[doc(hidden)]
    pub fn corrupt_body_for_tests(&mut self, body: usize) -> bool {
        let Some(i) = self.body_of_def.get(body).copied().flatten() else {
            return false;
        };
        let rb = &mut self.world.bodies[self.bodies[i].handle];
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

    /// Runs physics for one frame of `instance`: drive kinematic bodies from the animated
    /// (post-IK) pose, run the fixed steps this frame's `dt` pays for (accumulator, capped),
    /// write simulated bones back into the instance's output locals (parent before child),
    /// and rebuild its world matrices with
    /// [`SkeletonInstance::update_transform_after_physics`] (IK corrections kept).
    ///
    /// Evaluates the instance first when it is dirty or has never been evaluated. `time` is
    /// used only to detect seeks backwards; `dt` (seconds) feeds the accumulator (non-finite or
    /// negative counts as 0).
    ///
    /// # Errors
    /// [`PhysicsError::SkeletonMismatch`] when `instance` is not over this ragdoll's skeleton.
    pub fn evaluate_physics_frame(
        &mut self,
        instance: &mut SkeletonInstance,
        time: f32,
        dt: f32,
    ) -> Result<&FrameReport, PhysicsError> {
        if !Arc::ptr_eq(instance.skeleton(), &self.skeleton) {
            return Err(PhysicsError::SkeletonMismatch);
        }
        if instance.is_dirty() || instance.state().world().is_none() {
            instance.update_transform();
        }
        self.report.clear();
        let dt = if dt.is_finite() && dt > 0.0 { dt } else { 0.0 };
        self.anim_world.copy_from_slice(instance.world());
        let root_affine = instance.state().root_affine();

        // Floating origin: keep bodies where they are in the world when the anchor moves.
        let origin = instance.origin();
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
        self.writeback(instance, &root_affine);
        instance.update_transform_after_physics();
        Ok(&self.report)
    }

    fn shift(&mut self, d: Vec3) {
        for b in &mut self.bodies {
            let rb = &mut self.world.bodies[b.handle];
            let mut p = Rigid::from_r(rb.position());
            p.t += d;
            rb.set_position(p.to_r(), false);
            if b.driven {
                rb.set_next_kinematic_position(p.to_r());
            }
            b.prev.t += d;
            b.target.t += d;
        }
    }

    fn compute_targets(&mut self, root_affine: &Affine3A) {
        let s = self.unit_scale;
        for b in &mut self.bodies {
            let m = match b.bone {
                Some(bone) => self.anim_world[bone.index()] * b.bone_to_body,
                None => *root_affine * b.bone_to_body,
            };
            let anim = Rigid::from_affine(&m);
            if anim.is_finite() {
                b.anim = anim;
                b.anim_ok = true;
                b.target = Rigid::new(anim.t * s, anim.r);
            } else {
                b.anim_ok = false;
                self.report.bad_bodies.push(BadBody {
                    body: b.def,
                    kind: BadBodyKind::NonFiniteTarget,
                });
            }
        }
    }

    fn seed(world: &mut World, b: &mut BodyRt) {
        let rb = &mut world.bodies[b.handle];
        let p = b.target.to_r();
        rb.set_position(p, true);
        rb.set_linvel(to_r(Vec3::ZERO), true);
        rb.set_angvel(to_r(Vec3::ZERO), true);
        if b.driven {
            rb.set_next_kinematic_position(p);
        }
        b.prev = b.target;
    }

    fn seed_all(&mut self) {
        for b in &mut self.bodies {
            Self::seed(&mut self.world, b);
        }
    }

    /// Joint `j`'s authored frame on body A and on body B, simulation space, now.
    fn joint_frames(&self, j: &SixDof) -> (Rigid, Rigid) {
        let pose = |rt: usize| Rigid::from_r(self.world.bodies[self.bodies[rt].handle].position());
        j.frames(&pose(j.a), &pose(j.b))
    }

    /// Contact points between bodies that may collide (MMD's group rule, at least one of them
    /// simulated) and come within [`CONTACT_MARGIN`] of each other, at the poses [`Self::predict`]
    /// read; stops counting just past [`crate::MAX_CONTACT_PAIRS`].
    fn find_contacts(&mut self) {
        self.contacts.clear();
        let n = self.bodies.len();
        for i in 0..n {
            let bi = &self.bodies[i];
            let pi = self.states[i].pose;
            // A body gone non-finite this frame is reset by the guard; until then it touches
            // nothing (parry's queries are not meant for NaN poses).
            if !pi.is_finite() {
                continue;
            }
            for j in i + 1..n {
                let bj = &self.bodies[j];
                if (bi.driven && bj.driven) || !mmd_collides(bi.groups, bj.groups) {
                    continue;
                }
                let pj = self.states[j].pose;
                if !pj.is_finite() {
                    continue;
                }
                let reach = bi.reach + bj.reach + CONTACT_MARGIN;
                if pi.t.distance_squared(pj.t) > reach * reach {
                    continue;
                }
                let Some(c) = bi.shape.touch(&pi, &bj.shape, &pj, CONTACT_MARGIN) else {
                    continue;
                };
                if !(c.normal.is_finite() && c.dist.is_finite()) {
                    continue;
                }
                self.contacts.push(ContactPoint {
                    a: i,
                    b: j,
                    point_a: c.point_a,
                    point_b: c.point_b,
                    normal: c.normal,
                    dist: c.dist,
                    // NaN and negative coefficients from a file count as 0.
                    friction: (bi.friction * bj.friction).max(0.0),
                    restitution: (bi.restitution * bj.restitution).max(0.0),
                });
                if self.contacts.len() > crate::MAX_CONTACT_PAIRS {
                    return;
                }
            }
        }
    }

    /// Bullet's step up to the constraint solve: the body states the contacts and rows are
    /// built on. Dynamic bodies get this step's gravity and damping; kinematic ones are sent to
    /// their pose at `alpha` of the frame and enter with the velocity that reaches it.
    fn predict(&mut self, alpha: f32) {
        let h = self.step;
        self.states.clear();
        for b in &self.bodies {
            let rb = &mut self.world.bodies[b.handle];
            let pose = Rigid::from_r(rb.position());
            let state = if b.driven {
                let next = b.prev.lerp(b.target, alpha);
                rb.set_next_kinematic_position(next.to_r());
                let mut dq = next.r * pose.r.inverse();
                if dq.w < 0.0 {
                    dq = -dq;
                }
                BodyState {
                    pose,
                    v: (next.t - pose.t) / h,
                    w: dq.to_scaled_axis() / h,
                    inv_mass: 0.0,
                    inv_inertia: Mat3::ZERO,
                }
            } else {
                let mut v = from_r(rb.linvel()) + self.gravity * h;
                let mut w = from_r(rb.angvel());
                if self.options.bullet_damping {
                    (v, w) = bullet_damp(v, w, b.damping, h);
                }
                let rot = Mat3::from_quat(pose.r);
                BodyState {
                    pose,
                    v,
                    w,
                    inv_mass: b.inv_mass,
                    inv_inertia: rot * Mat3::from_diagonal(b.inv_inertia) * rot.transpose(),
                }
            };
            self.states.push(state);
        }
    }

    /// The joint and contact rows solved on the predicted states (see [`six_dof`]); the dynamic
    /// bodies' velocities go back to rapier, which integrates.
    fn solve_rows(&mut self) {
        let h = self.step;
        self.solver.solve(
            &self.six,
            &self.contacts,
            &mut self.states,
            h,
            self.options.solver_iterations,
        );
        for (b, st) in self.bodies.iter().zip(&self.states) {
            if !b.driven && st.v.is_finite() && st.w.is_finite() {
                let rb = &mut self.world.bodies[b.handle];
                rb.set_linvel(to_r(st.v), true);
                rb.set_angvel(to_r(st.w), true);
            }
        }
    }

    /// Moves bodies back onto their joints' authored boxes and anchors, root side first
    /// (see [`JointProjection`](crate::JointProjection)).
    fn project_joints(&mut self) {
        let Some(tol) = self.options.joint_projection else {
            return;
        };
        let lin_tol = tol.linear_tolerance * self.unit_scale.max_element();
        for &(ji, move_b) in &self.projection {
            let j = &self.six[ji];
            let (ha, hb) = (self.bodies[j.a].handle, self.bodies[j.b].handle);
            let (fa, fb) = self.joint_frames(j);
            let (clamped, excess) = j.clamp_to_box(SixDof::angles(&fa, &fb));
            let rotate = excess > tol.angular_tolerance;
            if !rotate && (fa.t - fb.t).length() <= lin_tol {
                continue;
            }
            let rel = if rotate {
                SixDof::rel_from_angles(clamped)
            } else {
                fa.r.inverse() * fb.r
            };
            let (handle, pose) = if move_b {
                let fb = Rigid::new(fa.t, (fa.r * rel).normalize());
                (hb, fb.mul(j.frame_b.inverse()))
            } else {
                let fa = Rigid::new(fb.t, (fb.r * rel.inverse()).normalize());
                (ha, fa.mul(j.frame_a.inverse()))
            };
            if pose.is_finite() {
                self.world.bodies[handle].set_position(pose.to_r(), true);
                self.report.projections += 1;
                if rotate {
                    self.report.worst_projected_excess =
                        self.report.worst_projected_excess.max(excess);
                }
            }
        }
    }

    fn guard(&mut self) {
        let s = self.unit_scale;
        for i in 0..self.bodies.len() {
            let b = &self.bodies[i];
            if b.driven {
                continue;
            }
            let rb = &self.world.bodies[b.handle];
            let p = Rigid::from_r(rb.position());
            let finite = p.is_finite() && from_r(rb.linvel()).is_finite() && {
                let w = rb.angvel();
                from_r(w).is_finite()
            };
            let kind = if !finite {
                Some(BadBodyKind::NonFiniteState)
            } else if b.anim_ok && (p.t / s - b.anim.t).length() > self.options.max_body_deviation {
                Some(BadBodyKind::Exploded)
            } else {
                None
            };
            if let Some(kind) = kind {
                let def = b.def;
                let b = &mut self.bodies[i];
                if !b.anim_ok {
                    // No usable animated pose: fall back to the last good target.
                    b.target = b.prev;
                }
                Self::seed(&mut self.world, b);
                self.report.bad_bodies.push(BadBody { body: def, kind });
            }
        }
    }

    fn measure(&mut self) {
        let s = self.unit_scale;
        for b in &self.bodies {
            if b.driven || b.bone.is_none() || !b.anim_ok {
                continue;
            }
            let p = Rigid::from_r(self.world.bodies[b.handle].position());
            let d = (p.t / s - b.anim.t).length();
            if d > self.report.worst_body_deviation {
                self.report.worst_body_deviation = d;
                self.report.worst_body = Some(b.def);
            }
        }
        for (j, &def) in self.six.iter().zip(&self.joint_defs) {
            let (v, sep) = self.joint_error(j);
            if v > self.report.worst_joint_violation {
                self.report.worst_joint_violation = v;
                self.report.worst_joint = Some(def);
            }
            self.report.worst_joint_separation = self.report.worst_joint_separation.max(sep);
        }
    }

    /// (rotation excess beyond the authored box, radians; anchor separation, eval units).
    fn joint_error(&self, j: &SixDof) -> (f32, f32) {
        let (fa, fb) = self.joint_frames(j);
        let (_, excess) = j.clamp_to_box(SixDof::angles(&fa, &fb));
        (excess, ((fa.t - fb.t) / self.unit_scale).length())
    }

    /// The joint-limit excess (radians) and anchor separation (evaluation units) of joint
    /// `joint` (index into `Physics::joints()`) now; `None` when the joint was not created.
    #[must_use]
    pub fn joint_error_now(&self, joint: usize) -> Option<(f32, f32)> {
        let i = self.joint_defs.iter().position(|&d| d == joint)?;
        Some(self.joint_error(&self.six[i]))
    }

    fn writeback(&mut self, instance: &mut SkeletonInstance, root: &Affine3A) {
        let skeleton = Arc::clone(&self.skeleton);
        let parents = skeleton.parent_indices();
        let rest_world = skeleton.rest_world();
        let s = self.unit_scale;
        let locals = instance.state_mut().locals_mut();
        for &i in skeleton.level_order() {
            let i = i as usize;
            let parent_w = match parents[i] {
                NO_PARENT => *root,
                p => self.work[p as usize],
            };
            let desired = match self.roles[i] {
                Role::Animated => None,
                Role::Body(rt) => {
                    let b = &self.bodies[rt];
                    b.anim_ok.then(|| {
                        let p = Rigid::from_r(self.world.bodies[b.handle].position());
                        let eval = Rigid::new(p.t / s, p.r);
                        let delta = eval.mul(b.anim.inverse()).to_affine();
                        let anim_w = self.anim_world[i];
                        let rotation_only = b.mode == BodyMode::DynamicRotation;
                        let d = if rotation_only {
                            Affine3A {
                                matrix3: delta.matrix3 * anim_w.matrix3,
                                translation: parent_w
                                    .transform_point3(locals[i].translation)
                                    .into(),
                            }
                        } else {
                            delta * anim_w
                        };
                        (d, rotation_only, b.def)
                    })
                }
                Role::Follower(a) => {
                    let delta = self.work[a.index()] * (*root * rest_world[a.index()]).inverse();
                    Some((delta * *root * rest_world[i], false, usize::MAX))
                }
            };
            if let Some((d, rotation_only, def)) = desired {
                match solve_local(&parent_w, &d, &locals[i], self.affine, rotation_only) {
                    Some(l) => locals[i] = l,
                    None if def != usize::MAX => self.report.bad_bodies.push(BadBody {
                        body: def,
                        kind: BadBodyKind::NonFiniteWriteback,
                    }),
                    None => {}
                }
            }
            self.work[i] = parent_w * locals[i].to_affine();
        }
    }
}

/// The local transform that puts a bone at `desired` (world) under `parent` (world).
///
/// * affine: `local = parent⁻¹ · desired` in the full affine chain, decomposed to TRS
///   (scale kept; shear that a TRS local cannot hold is approximated);
/// * rigid: the parent is treated as a rigid frame (its scale ignored) and the local keeps its
///   animated scale — exact for unscaled rigs, wrong by the parent's scale otherwise.
///
/// `rotation_only` keeps the animated local translation.
fn solve_local(
    parent: &Affine3A,
    desired: &Affine3A,
    anim: &Transform,
    affine: bool,
    rotation_only: bool,
) -> Option<Transform> {
    let out = if affine {
        let (scale, r, t) = (parent.inverse() * *desired).to_scale_rotation_translation();
        Transform {
            translation: if rotation_only { anim.translation } else { t },
            rotation: r.normalize(),
            scale,
        }
    } else {
        let p = Rigid::from_affine(parent);
        let d = Rigid::from_affine(desired);
        let inv = p.r.inverse();
        Transform {
            translation: if rotation_only {
                anim.translation
            } else {
                inv * (d.t - p.t)
            },
            rotation: (inv * d.r).normalize(),
            scale: anim.scale,
        }
    };
    out.is_finite().then_some(out)
}

/// `Ragdoll::new` under the spec's name.
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
mod tests {
    use super::*;

    #[test]
    fn ragdoll_is_send() {
        fn send<T: Send>() {}
        send::<Ragdoll>();
    }

    #[test]
    fn projection_follows_the_joint_tree_from_driven_bodies() {
        // 0 driven; chain 0–1–2 with 2 given as (b=1, a=2) reversed; loop 1–3, 2–3, 3–1 closes.
        let driven = [true, false, false, false, false, false];
        let joints = [(0, 1), (2, 1), (1, 3), (2, 3), (4, 5), (0, 0)];
        let order = projection_order(&driven, &joints[..5]);
        // From 0: joint 0 moves B (1); from 1: joint 1 moves A (2), joint 2 moves B (3);
        // joint 3 closes a loop and is left out; 4–5 float free: rooted at 4, joint 4 moves 5.
        assert_eq!(order, vec![(0, true), (1, false), (2, true), (4, true)]);
        // Two driven ends: nothing between driven bodies, each dynamic body reached once.
        let order = projection_order(&[true, false, true], &[(0, 1), (1, 2), (0, 2)]);
        assert_eq!(order, vec![(0, true)]);
    }

    #[test]
    fn affine_solve_reproduces_desired_under_scaled_parent() {
        let parent = Affine3A::from_scale_rotation_translation(
            Vec3::splat(2.0),
            Quat::from_rotation_z(0.3),
            Vec3::new(1.0, 0.0, 0.0),
        );
        let desired = Affine3A::from_scale_rotation_translation(
            Vec3::splat(2.0),
            Quat::from_rotation_x(0.5),
            Vec3::new(0.0, 3.0, 1.0),
        );
        let l = solve_local(&parent, &desired, &Transform::IDENTITY, true, false).unwrap();
        let back = parent * l.to_affine();
        assert!(back.abs_diff_eq(desired, 1e-4));
        let r = solve_local(&parent, &desired, &Transform::IDENTITY, false, false).unwrap();
        let back = parent * r.to_affine();
        assert!(!back.abs_diff_eq(desired, 1e-2));
    }
}
