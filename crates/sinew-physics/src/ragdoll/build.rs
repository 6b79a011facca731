//! Building a [`Ragdoll`] from definitions, once, at `enablePhysics`: the selected bodies
//! (shapes, Bullet inertia, rapier bodies), the six-axis joints in solver form, the projection
//! order and the bones' roles (simulated, follower, animated), with every limit checked.

use std::sync::Arc;

use glam::{Affine3A, Vec3};
use rapier3d::prelude::{MassProperties, RigidBodyBuilder};
use sinew::dynamics::{BodyMode, Physics, Shape};
use sinew::math::quat_from_euler_xyz;
use sinew::{BoneId, Model, Skeleton};

use super::{BodyRt, Ragdoll, Role, DEFAULT_GRAVITY};
use crate::contact::Collider;
use crate::inertia;
use crate::six_dof::{JointSolver, SixDof};
use crate::world::{to_r, Rigid, World};
use crate::{FrameReport, PhysicsError, PhysicsOptions};

/// The joint tree used by projection: breadth-first from the driven bodies (then from the
/// lowest unreached body of each free-floating group), each tree joint moving the body it
/// reaches. Joints between two driven bodies and joints closing a loop are left out.
pub(super) fn projection_order(driven: &[bool], joints: &[(usize, usize)]) -> Vec<(usize, bool)> {
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
        let joint_count =
            physics.joints().len() + options.profile.as_ref().map_or(0, |p| p.joints.len());
        if joint_count > crate::MAX_JOINTS {
            return Err(PhysicsError::TooManyJoints {
                count: joint_count,
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
        // One length for the constants Bullet gives in definition units (a uniform scale's
        // factor; the geometric mean of a non-uniform one).
        let length_scale = (s.x * s.y * s.z).abs().cbrt();
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
                Shape::Capsule => {
                    // The full length kept: the cylinder gives what the caps grow.
                    let r = d.size.x * s.x;
                    let h = (d.size.y * s.y + 2.0 * r * (1.0 - radius_scale)).max(0.0);
                    Vec3::new(r * radius_scale, h, 0.0)
                }
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
                Shape::Sphere => inertia::sphere_inertia(d.mass, size.x),
                Shape::Box => inertia::box_inertia(d.mass, size),
                Shape::Capsule => inertia::capsule_inertia(d.mass, size.x, size.y),
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
                size,
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
        let profile_joints = options.profile.iter().flat_map(|p| &p.joints);
        for (index, j) in physics.joints().iter().chain(profile_joints).enumerate() {
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
        let definitions = (
            physics.bodies().to_vec(),
            (physics.joints().iter())
                .chain(options.profile.iter().flat_map(|p| &p.joints))
                .cloned()
                .collect(),
        );
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
            solver: JointSolver::with_length_scale(length_scale),
            order: Default::default(),
            ordered_joints: Vec::new(),
            ordered_contacts: Vec::new(),
            definitions,
            length_scale,
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
            moved: vec![false; n],
            work: vec![Affine3A::IDENTITY; n],
            report: FrameReport::default(),
        })
    }
}
