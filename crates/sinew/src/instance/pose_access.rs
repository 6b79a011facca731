//! The host-side view the IK driver needs.

use glam::{Affine3A, Quat, Vec3};

use crate::dynamics::IkChain;
use crate::{BoneId, Transform};

/// What a host with its own pose storage implements so [`IkDriver`](super::IkDriver) can
/// solve its chains and closures.
///
/// All positions are in the evaluation space (world relative to the floating-origin anchor, or
/// model space: whatever the host evaluates in). The host owns evaluation order, clearing
/// corrections each frame, and thread ownership.
pub trait PoseAccess {
    /// The evaluated absolute (world) transform of `bone`.
    fn absolute(&self, bone: BoneId) -> Affine3A;

    /// The bone's current local transform (with any correction already applied).
    fn local(&self, bone: BoneId) -> Transform;

    /// Multiplies a local correction into the bone's pose: `local' = local · correction`.
    fn correct(&mut self, bone: BoneId, correction_local: Quat);

    /// The chain's current target in evaluation space (a fresh value; closures overwrite
    /// their copy to solve for a shared target).
    fn target(&self, chain_index: usize, chain: &IkChain) -> Vec3;

    /// Whether the chain is enabled.
    fn enabled(&self, chain_index: usize, chain: &IkChain) -> bool;

    /// After corrections, rebuild the hierarchy from `driver` down so that `endpoint` (and
    /// every later read) sees the new pose.
    fn refresh(&mut self, driver: BoneId, endpoint: BoneId);

    /// The character root's rotation, used to turn two-bone poles given in the root's frame
    /// into evaluation space. Identity by default.
    fn root_rotation(&self) -> Quat {
        Quat::IDENTITY
    }
}
