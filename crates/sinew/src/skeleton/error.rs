//! Errors of skeleton construction.

use thiserror::Error;

/// Why a [`SkeletonBuilder`](super::SkeletonBuilder) refused its bones. Each variant names the
/// bones involved by name (and source index, the position in which they were given).
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SkeletonError {
    /// `build` was called on a builder with a dynamics callback, which only `build_model`
    /// runs.
    #[error("the builder has a dynamics callback; build_model builds the model it configures")]
    DynamicsCallback,
    /// No bones were given.
    #[error("skeleton has no bones")]
    Empty,
    /// More bones than [`BoneId`](super::BoneId) can address.
    #[error("skeleton has {count} bones; at most {max} are supported")]
    TooManyBones {
        /// Bones given.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A bone has an empty name.
    #[error("bone at source index {index} has an empty name")]
    EmptyName {
        /// Source index of the bone.
        index: usize,
    },
    /// Two bones share a name.
    #[error("duplicate bone name \"{name}\" (source indices {first} and {second})")]
    DuplicateName {
        /// The shared name.
        name: String,
        /// Source index of the first bone with it.
        first: usize,
        /// Source index of the second.
        second: usize,
    },
    /// A bone names a parent that does not exist.
    #[error("bone \"{bone}\" has unknown parent \"{parent}\"")]
    UnknownParent {
        /// The child.
        bone: String,
        /// The parent reference as given.
        parent: String,
    },
    /// A bone is its own parent, or the parent links form a loop.
    #[error("bones form a parent cycle: {}", bones.join(" -> "))]
    Cycle {
        /// The bones on the cycle, in parent-link order.
        bones: Vec<String>,
    },
    /// A rest transform has a NaN or infinite component, or a zero rotation.
    #[error("bone \"{bone}\" has a non-finite rest transform")]
    NonFiniteTransform {
        /// The bone.
        bone: String,
    },
    /// An inverse bind matrix override is non-finite or names an unknown bone.
    #[error("inverse bind matrix for \"{bone}\" is invalid: {reason}")]
    InvalidInverseBind {
        /// The bone.
        bone: String,
        /// What is wrong.
        reason: &'static str,
    },
}
