//! The one error type of the crate: invalid input reported at the solver boundary.

use glam::Vec3;
use thiserror::Error;

/// Why a parameter constructor or a solve refused its input.
///
/// Every variant names the offending field (or slice) and carries the value that was
/// rejected, so a caller can report it without re-deriving it. Solvers validate their
/// inputs before touching any output buffer; on error the outputs are left as they were.
#[derive(Debug, Clone, Copy, PartialEq, Error)]
pub enum IkError {
    /// A scalar parameter is out of its documented range (or not finite).
    #[error("invalid parameter `{name}` = {value}: expected {expected}")]
    InvalidParameter {
        /// The parameter's field name, e.g. `"tolerance"`.
        name: &'static str,
        /// The rejected value.
        value: f32,
        /// The documented range, in words.
        expected: &'static str,
    },
    /// An integer parameter is out of its documented range.
    #[error("invalid parameter `{name}` = {value}: expected {expected}")]
    InvalidCount {
        /// The parameter's field name, e.g. `"iterations"`.
        name: &'static str,
        /// The rejected value.
        value: u32,
        /// The documented range, in words.
        expected: &'static str,
    },
    /// A vector parameter is zero, not finite, or otherwise out of shape.
    #[error("invalid vector `{name}` = {value}: expected {expected}")]
    InvalidVector {
        /// The parameter's field name, e.g. `"axis"`.
        name: &'static str,
        /// The rejected vector.
        value: Vec3,
        /// The documented requirement, in words.
        expected: &'static str,
    },
    /// A `min` bound is above its `max` bound.
    #[error("invalid range `{name}`: min {min} > max {max}")]
    InvertedRange {
        /// The bound's name, e.g. `"min.x/max.x"`.
        name: &'static str,
        /// The rejected lower bound.
        min: f32,
        /// The rejected upper bound.
        max: f32,
    },
    /// A solver input (target, pole, joint position or rotation) is NaN or infinite.
    #[error("non-finite input `{name}` at index {index}")]
    NonFiniteInput {
        /// What was not finite, e.g. `"target_model"` or `"joints_model.position"`.
        name: &'static str,
        /// The element index within its slice (0 for single values).
        index: usize,
    },
    /// A slice does not have the length the solver needs.
    #[error("slice `{name}` has length {actual}, expected {expected}")]
    LengthMismatch {
        /// The slice's parameter name, e.g. `"corrections_local"`.
        name: &'static str,
        /// The length the solver needs.
        expected: usize,
        /// The length it got.
        actual: usize,
    },
    /// The chain has no links (a chain needs at least one link and the effector).
    #[error("chain `{name}` has no links")]
    EmptyChain {
        /// The slice's parameter name.
        name: &'static str,
    },
    /// A chain added to a batch differs from the batch's shape (a link's limit).
    #[error("`{name}` at index {index} differs from the batch's")]
    ShapeMismatch {
        /// What differs, e.g. `"links.limit"`.
        name: &'static str,
        /// The link's index.
        index: usize,
    },
}
