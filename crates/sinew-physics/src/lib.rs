//! # sinew-physics — rapier ragdolls for sinew instances
//!
//! Turns a model's physics table (`SkeletonDynamics::physics()`: rigid bodies, six-axis
//! spring joints, writeback options) into a simulated ragdoll per instance — hair, skirts,
//! capes, full ragdolls — on [rapier3d] for bodies, contacts and integration, with the joints
//! solved as Bullet's generic 6-DOF spring constraint (the engine MMD models are authored
//! for). Each [`Ragdoll`] owns a private world, so instances are independent and step in
//! parallel (`Ragdoll: Send`); the engine never shows in the API.
//!
//! ## Place in the frame
//!
//! ```text
//!  apply (animated locals)
//!      → SkeletonInstance::evaluate_before_physics(writeback)   constraints → hierarchy → IK
//!      → Ragdoll::step(&mut RigState, time, dt):
//!          drive     kinematic bodies ← animated bone · bone_to_body, interpolated per sub-step
//!          step      fixed steps (default 60 Hz) paid by an accumulator, capped per frame;
//!                    each: Bullet damping, then gravity → contacts found → joint and
//!                    contact rows in Bullet's island order (Gauss–Seidel, 10 sweeps; deep
//!                    contacts' push-out split off) → rapier integrates → optional joint
//!                    projection
//!          guard     NaN / exploded bodies reset to their animated pose, reported
//!          writeback Writeback::Locals: dynamic bones → output locals, parent before
//!                    child (rigid or affine), bind-pose followers
//!                    Writeback::World (MMD's rule): dynamic bones' world matrices written
//!                    directly, bones below carried along, locals untouched
//!                    (Ragdoll::step_world: the same over a host's own world slice)
//!      → SkeletonInstance::evaluate_after_physics(writeback)    hierarchy rebuilt (Locals),
//!                    bones ordered after physics evaluated; IK corrections kept
//!      → world / skin matrices
//! ```
//!
//! The ragdoll is one stage: it reads and writes the state and evaluates nothing else. The
//! scheduler around it (a [`TickLoop`](sinew::instance::TickLoop) with a [`PhysicsModule`],
//! `sinew_character::Character`, or a host's own loop) runs the three in order with the one
//! writeback the ragdoll's options name:
//!
//! ```
//! # use sinew_physics::{Ragdoll, PhysicsError};
//! # fn frame(instance: &mut sinew::SkeletonInstance, ragdoll: &mut Ragdoll, t: f32, dt: f32)
//! #     -> Result<(), PhysicsError> {
//! let writeback = ragdoll.options().writeback;
//! instance.evaluate_before_physics(writeback);
//! ragdoll.step(instance.state_mut(), t, dt)?;
//! instance.evaluate_after_physics(writeback);
//! # Ok(()) }
//! ```
//!
//! In a [`TickLoop`](sinew::instance::TickLoop), put a [`PhysicsModule`] in
//! [`Slot::Physics`](sinew::instance::Slot::Physics) (`add_before` or `add`): the loop evaluates
//! before and after it by the module's writeback.
//!
//! ## Spaces and units
//!
//! * Body/joint positions, sizes and translation ranges are definition (model) coordinates,
//!   multiplied by `Physics::unit_scale()` for the simulation. Rotations are XYZ Euler
//!   radians (`Rx·Ry·Rz`). A non-uniform unit scale scales positions and sizes per axis but
//!   leaves rotations as authored (exact for uniform scales).
//! * The simulation runs in *simulation-local* coordinates: the instance's evaluation space
//!   (world relative to its floating-origin anchor) times the unit scale. When the anchor
//!   moves, bodies are shifted so they stay put in the world. [`Ragdoll::body_pose`] is
//!   simulation-local; [`Ragdoll::body_world`] is world (`f64` position).
//! * Gravity is in simulation units per s²: default `(0, −9.80665, 0)`, i.e. metres when
//!   the unit scale maps definition units to metres.
//! * Each body keeps `bone_to_body = bone_rest_world⁻¹ · body_bind` (model space), used both
//!   to drive (`target = animated_bone_world · bone_to_body`) and to write back.
//!
//! ## Body modes
//!
//! * kinematic (or mass 0): a kinematic-position rapier body moved to its animated target,
//!   interpolated over the sub-steps of a frame; no writeback.
//! * dynamic: simulated; the bone's world becomes `Δ · animated_world` with
//!   `Δ = body_sim · body_animated⁻¹` (a rigid delta, so the bone's own scale/shear is kept).
//! * dynamic-rotation: as dynamic for the rotation, keeping the animated local translation.
//! * bodies without a bone: dynamic ones simulate freely, kinematic ones follow the root.
//!
//! Contacts: every pair that may collide under MMD's rule over 64 groups (see
//! [`mmd_collides`]) with at least one simulated body, within 0.04 units (Bullet's margin), gets
//! one contact point — closed forms for spheres and capsules, parry's query for boxes — solved
//! in the same sweeps as the joints (a push-only normal row correcting 0.2 of the penetration
//! per step, at most 2 units/s, and two friction rows bounded by μ·normal impulse; a contact
//! deeper than 0.04 units is pushed out instead by Bullet's split impulse, on pseudo-velocities
//! that move positions without momentum). Friction and restitution combine by multiplication
//! (Bullet's rule). Damping is Bullet's: the velocities a step starts with times `(1 − d)^dt`,
//! before the step's gravity, with its "additional damping" of nearly stopped bodies
//! ([`PhysicsOptions::bullet_damping`]). Rows meet the solver in Bullet's order: joints, then
//! contacts, each sorted by simulation island with Bullet's (unstable) quicksort, which decides
//! which way a symmetric rig breaks its symmetry. Bodies carry Bullet's shape inertia (a capsule's is
//! its bounding box's). rapier holds the bodies (no colliders, no joints) and integrates them.
//!
//! Joints: each six-axis spring joint is solved as `btGeneric6DofSpringConstraint` (see the
//! `six_dof` module): translation and rotation limits per axis (rotation angles are the XYZ
//! Euler angles of frame A seen from frame B, Bullet's convention, which MMD's authored boxes
//! use), `lo == hi` locks an axis at that value, `lo > hi` frees it, limit rows correct 0.475
//! of their error per step, springs are Bullet's motor rows, and kinematic bodies enter the
//! solve with the velocity that reaches their next pose; with Bullet's frame offset, a linear
//! row against an immovable body only slides a body whose crossing rotations sit at their
//! limits. Limits give a little under load, as Bullet's do; [`JointProjection`] (off by
//! default) makes them hard.
//!
//! Measured against Bullet (babylon-mmd 1.3.0) on miku_v2 (`../shared/conformance/physics`,
//! median distance of the simulated bones to Bullet's ÷ the same without physics): rest 0.016,
//! held leg IK 0.019, sway 0.099, upper-body turn 0.083, wavefile dance 0.177; on the shared
//! variant rig and two rigs of our own, 0.05–0.29 (sinew-character's `physics_conformance`).

mod contact;
mod error;
mod inertia;
mod module;
mod options;
mod ragdoll;
mod report;
mod six_dof;
mod solve_order;
mod world;

pub use error::PhysicsError;
pub use module::PhysicsModule;
pub use options::{JointProjection, PhysicsOptions, Profile, ProfileBody, Writeback};
pub use ragdoll::{enable_physics, BodyId, JointId, PhysicsFrame, Ragdoll, DEFAULT_GRAVITY};
pub use report::{BadBody, BadBodyKind, FrameReport, ResetReason};

/// Most rigid bodies one ragdoll simulates (real MMD models have tens to a few hundred): with
/// [`MAX_CONTACT_PAIRS`] it bounds the time one step can take.
pub const MAX_BODIES: usize = 2048;

/// Largest half-extent or radius of a body, in simulation units (after the unit scale): past
/// it, collision detection loses its precision (a 1e30 box made parry's EPA panic).
pub const MAX_BODY_EXTENT: f32 = 1e4;

/// Smallest half-extent or radius simulated: positive sizes below it are raised to it.
pub const MIN_BODY_EXTENT: f32 = 1e-4;

/// Farthest a body's bind position may lie from the origin, in simulation units.
pub const MAX_BODY_POSITION: f32 = 1e6;

/// Most joints one ragdoll simulates (each step and projection pass visits every joint).
pub const MAX_JOINTS: usize = 4 * MAX_BODIES;

/// Most pairs of colliding bodies that may overlap at bind or after a step; past it the frame
/// is refused with [`PhysicsError::TooManyContacts`] instead of running for minutes.
pub const MAX_CONTACT_PAIRS: usize = 16_384;

/// MMD's collision rule for `(collision_group, non_collision_mask)` pairs over groups
/// `0..=63`: each body's mask must allow the other's group. This is what the rapier filter
/// hook applies, identical to `sinew::dynamics::RigidBody::collides_with`.
#[must_use]
pub fn mmd_collides(a: (u8, u64), b: (u8, u64)) -> bool {
    world::mmd_collides(a, b)
}
