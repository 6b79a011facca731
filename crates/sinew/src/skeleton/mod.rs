//! The immutable skeleton (the "rig descriptor") and the tools that build and check it.
//!
//! A [`Skeleton`] is built once by a [`SkeletonBuilder`] from bones given in any order, then
//! shared with `Arc` by every character. It stores bones **parent before child**, in depth-first
//! order, so that:
//!
//! * local-to-world is a single forward loop (a parent is always evaluated first), and
//! * every subtree is a contiguous index range (`bone..subtree_end(bone)`), so re-evaluating a
//!   subtree after an IK correction touches only that range.
//!
//! Worked example: bones given as `[hand(parent arm), root, arm(parent root), leg(parent root)]`
//! are stored as `[root, arm, hand, leg]`; `subtree_end(arm) = 3`, `source_index(hand) = 0`.
//!
//! [`bind`] checks that another rig is animation-equivalent and reports every mismatch.

mod bind;
mod bone_id;
mod builder;
mod error;
#[allow(clippy::module_inception)]
mod skeleton;

pub use bind::{bind, BindMismatch, BindReport, BindTolerance, Bound};
pub use bone_id::BoneId;
pub use builder::{BuildModelError, Parent, RawBone, SkeletonBuilder};
pub use error::SkeletonError;
pub use skeleton::{Skeleton, NO_PARENT};
