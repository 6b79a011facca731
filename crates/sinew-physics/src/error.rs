//! Errors of enabling physics on an instance.

use glam::Vec3;
use sinew::dynamics::Shape;
use thiserror::Error;

/// Why [`Ragdoll::new`](crate::Ragdoll::new) refused a physics table.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PhysicsError {
    /// The table (or the profile's selection of it) has no bodies.
    #[error("the physics table has no rigid bodies")]
    NoBodies,
    /// `Physics::profile_required()` is true and no [`Profile`](crate::Profile) was given.
    #[error("this physics table is a candidate table: enabling it requires a profile")]
    ProfileRequired,
    /// A profile entry names a body index outside the table.
    #[error("profile entry {entry} names body {body}, but the table has {len} bodies")]
    ProfileBodyOutOfRange {
        /// Index of the entry in the profile.
        entry: usize,
        /// The body index it names.
        body: usize,
        /// Number of bodies in the table.
        len: usize,
    },
    /// A profile radius scale is not finite and positive.
    #[error("profile entry {entry}: radius scale must be finite and > 0, got {value}")]
    InvalidRadiusScale {
        /// Index of the entry in the profile.
        entry: usize,
        /// The rejected value.
        value: f32,
    },
    /// A collision shape would be degenerate (a radius or box half-extent that is not
    /// positive after unit and radius scaling).
    #[error("rigid body {index} (\"{name}\"): degenerate {shape:?} of size {size}")]
    DegenerateShape {
        /// Index of the body in the table.
        index: usize,
        /// The body's display name.
        name: String,
        /// Its shape kind.
        shape: Shape,
        /// The size after scaling, simulation units.
        size: Vec3,
    },
    /// A body names a bone the instance's skeleton does not have.
    #[error("rigid body {index} (\"{name}\") names bone {bone}, but the skeleton has {len}")]
    BoneOutOfRange {
        /// Index of the body in the table.
        index: usize,
        /// The body's display name.
        name: String,
        /// The bone index.
        bone: usize,
        /// Number of bones.
        len: usize,
    },
    /// A joint names a body index outside the table, or the same body twice.
    #[error("joint {index} (\"{name}\") connects bodies {a} and {b}, invalid for {len} bodies")]
    InvalidJointBodies {
        /// Index of the joint in the table.
        index: usize,
        /// The joint's display name.
        name: String,
        /// Body A index.
        a: usize,
        /// Body B index.
        b: usize,
        /// Number of bodies.
        len: usize,
    },
    /// An option is out of range.
    #[error("invalid physics option {field}: {value} (expected {expected})")]
    InvalidOption {
        /// The option field.
        field: &'static str,
        /// The rejected value.
        value: String,
        /// What is accepted.
        expected: &'static str,
    },
    /// The state passed to a frame is not over the skeleton the ragdoll was built for.
    #[error("the pose's skeleton is not the one this ragdoll was built for")]
    SkeletonMismatch,
    /// A frame's physics stage ran on a state whose world matrices were never evaluated.
    #[error("the pose has no world matrices yet: evaluate the frame before its physics")]
    NotEvaluated,
    /// The table has more bodies than a ragdoll simulates ([`crate::MAX_BODIES`]).
    #[error("{count} rigid bodies; at most {limit} are simulated")]
    TooManyBodies {
        /// Bodies in the table.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// A body's size or bind position is outside what collision detection handles
    /// ([`crate::MAX_BODY_EXTENT`], [`crate::MAX_BODY_POSITION`]).
    #[error("rigid body {index} (\"{name}\"): size {size} or position {position} is out of range")]
    BodyOutOfRange {
        /// Index of the body in the table.
        index: usize,
        /// The body's display name.
        name: String,
        /// Its size after scaling, simulation units.
        size: Vec3,
        /// Its bind position, simulation units.
        position: Vec3,
    },
    /// The table has more joints than a ragdoll simulates ([`crate::MAX_JOINTS`]).
    #[error("{count} joints; at most {limit} are simulated")]
    TooManyJoints {
        /// Joints in the table.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// More pairs of colliding bodies touch (at bind, or after a step) than a step resolves in
    /// bounded time ([`crate::MAX_CONTACT_PAIRS`]): typically bodies stacked in one place with
    /// collision between them left on.
    #[error("{pairs} pairs of colliding bodies overlap {when}; at most {limit} are resolved")]
    TooManyContacts {
        /// Overlapping pairs counted (counting stops just past the limit).
        pairs: usize,
        /// The limit.
        limit: usize,
        /// `"at bind"` or `"after a step"`.
        when: &'static str,
    },
}
