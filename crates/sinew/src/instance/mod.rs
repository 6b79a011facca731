//! Per-instance runtime: one character over a shared [`Model`](crate::Model).
//!
//! * [`SkeletonInstance`]: input pose, output state, IK toggles and targets, goals on chains
//!   decided by a constraint arbiter ([`ChainGoal`]), `update_transform` and solve results
//!   (staged, or bone by bone for definitions with an
//!   [`EvaluationOrder`](crate::dynamics::EvaluationOrder)), the split around physics by a
//!   [`Writeback`].
//! * [`IkDriver`] + [`PoseAccess`]: the solver driver, usable by hosts with their own pose
//!   storage.
//! * [`TickLoop`]: named modules in ordered slots around the instance's stages, with
//!   [`IkTargetModule`].
//! * [`apply_pose_constraints`]: inheritance and fixed axes over a local pose.

mod constraints;
mod driver;
mod goals;
mod pose_access;
mod skeleton_instance;
mod staged;
mod tick;
mod writeback;

pub use constraints::{apply_pose_constraints, scale_rotation, twist_about};
pub use driver::IkDriver;
pub use goals::{ChainGoal, GoalId};
pub use pose_access::PoseAccess;
pub use skeleton_instance::{ExternalTarget, InstanceError, SkeletonInstance, Stages};
pub(crate) use staged::{
    evaluate_runs, evaluate_staged, finish_staged, refresh_runs, LateBuffers, StagedPose,
};
pub use tick::{
    IkTargetModule, IkTargetModuleError, ModuleError, Slot, TickContext, TickError, TickLoop,
    TickModule, TickReport,
};
pub use writeback::Writeback;
