//! Skeleton dynamics definitions: IK chains, diamond closures, bone pose constraints and
//! physics tables, with the builder that validates them.
//!
//! Everything here is immutable data shared by every instance of a model through
//! `Arc<SkeletonDynamics>`; instances ([`crate::instance`]) hold per-character targets,
//! toggles and corrections. Construction is two-staged:
//!
//! 1. each definition validates its own parameters when created (`IkChain::new`,
//!    `RigidBody::new`, …) and returns a typed [`DynamicsError`];
//! 2. [`SkeletonDynamicsBuilder::build`] checks the structural rules that need the skeleton
//!    (ownership, ancestry, cycles, closure geometry).

mod builder;
mod chain_path;
mod definition;
mod diamond;
mod error;
mod evaluation_order;
mod footprint;
mod ik_chain;
mod physics;
mod pose_constraint;
mod staged_plan;

pub use builder::{SkeletonDynamicsBuilder, SkeletonDynamicsReader};
pub(crate) use chain_path::ChainPath;
pub use definition::SkeletonDynamics;
pub use diamond::DiamondConstraint;
pub use error::DynamicsError;
pub use evaluation_order::EvaluationOrder;
pub(crate) use footprint::SolveFootprint;
pub use ik_chain::{ChainSolver, IkChain, IkChainParams, IkLink, TargetMode};
pub use physics::{BodyMode, Joint, JointDesc, Physics, RigidBody, RigidBodyDesc, Shape};
pub use pose_constraint::{BonePoseConstraint, InheritanceSpace, TransformInheritance};
pub(crate) use staged_plan::StagedPlan;
