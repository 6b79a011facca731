//! # sinew-ik: stateless IK solvers over chain views
//!
//! sinew-ik sits between pose evaluation and write-back in the sinew frame: the runtime
//! samples and blends local poses, runs local-to-model, hands each IK chain to a solver here
//! as a *chain view*, right-multiplies the returned corrections into the local pose and
//! re-runs local-to-model over the chain's subtree. Like ozz-animation's IK jobs, solvers are
//! plain functions over caller-owned buffers: they never own or edit a skeleton.
//!
//! ## The common contract
//!
//! - **Input.** A slice of [`ChainJoint`] `{ position, rotation }`: the model-space position
//!   and orientation of each link bone, base→tip, followed by the effector as the last
//!   entry. Bones skipped between two links are rigid relative to the earlier link.
//! - **Output.** One local correction quaternion per link, `c_i`, to be *right-multiplied*
//!   into that bone's local rotation: `local_i' = local_i * c_i`. A solver that computes
//!   cumulative model-space deltas `D_i` (new model rotation of link `i` is `D_i * R_i`,
//!   `D_i` including the parents' deltas) converts them with
//!   `c_i = R_i⁻¹ · D_{i-1}⁻¹ · D_i · R_i` ([`correction_from_delta`]).
//!   [`apply_corrections`] is the matching forward kinematics.
//! - **Result.** Iterative solvers return [`SolveResult`] `{ residual, satisfied, iterations }`
//!   (residual = distance from the solved effector to the target, in the caller's length
//!   unit; `satisfied = residual <= tolerance`). The analytic solvers return their own
//!   result types ([`TwoBoneResult`], [`AimResult`]).
//! - **Errors.** Invalid input is a typed [`IkError`]: non-finite targets or joints, slices
//!   of the wrong length, invalid parameters. Parameter types validate in their `new`
//!   constructors and document their `Default`s, so a constructed value is always valid.
//! - **Robustness.** Never NaN: zero-length bones, a target at the base or exactly on the
//!   chain, a pole parallel to the limb and huge or far targets all have defined results.
//!   Deterministic: the same input gives bit-identical output. No heap allocation per
//!   solve: FABRIK and CCD take a reusable scratch struct that grows once to the longest
//!   chain seen; two-bone and aim use fixed arrays.
//!
//! ## Solvers
//!
//! | solver | function | flavour |
//! |---|---|---|
//! | FABRIK with rotor / hinge joints and Euler boxes | [`solve_fabrik`] | Caliko 1.3.8 |
//! | analytic two-bone limb | [`solve_two_bone`] | ozz `IKTwoBoneJob`, ik3d "How a limb reaches" |
//! | CCD | [`solve_ccd`], [`ccd::solve_lanes`], many chains at once: [`CcdBatch`] | MMD (babylon-mmd 1.3.0, after saba) |
//! | aim / look-at | [`solve_aim`] | ozz `IKAimJob` |
//! | many goals on shared chains | [`arbiter`] ([`DefaultArbiter`], [`StrictPriorityArbiter`]) | weighted pass / null-space staged solve |
//!
//! Angles are radians throughout; lengths are in the caller's unit.
//!
//! ## Example
//!
//! ```
//! use glam::{Quat, Vec3};
//! use sinew_ik::{solve_fabrik, ChainJoint, FabrikLink, FabrikParams, FabrikScratch};
//!
//! // Two bones along +X (model space), then the effector.
//! let joints_model = [
//!     ChainJoint::at(Vec3::ZERO),
//!     ChainJoint::at(Vec3::X),
//!     ChainJoint::at(Vec3::X * 2.0),
//! ];
//! let links = [FabrikLink::FREE; 2];
//! let mut scratch = FabrikScratch::with_capacity(2); // reuse across solves
//! let mut corrections_local = [Quat::IDENTITY; 2];
//! let target_model = Vec3::new(1.0, 1.0, 0.0);
//! let result = solve_fabrik(
//!     &joints_model,
//!     &links,
//!     target_model,
//!     &FabrikParams::default(),
//!     &mut scratch,
//!     &mut corrections_local,
//! )?;
//! assert!(result.satisfied);
//! // The caller applies `local_i' = local_i * corrections_local[i]` and reruns
//! // local-to-model; `apply_corrections` does the same on the chain view.
//! let mut solved_model = joints_model;
//! sinew_ik::apply_corrections(&joints_model, &corrections_local, &mut solved_model)?;
//! assert!((solved_model[2].position - target_model).length() <= 1e-4);
//! # Ok::<(), sinew_ik::IkError>(())
//! ```
//!
//! ## Speed
//!
//! Each solver is also compiled for AVX2 and picked at run time when the CPU has it; both
//! builds run the same IEEE operations in the same order and give the same bits (tested).
//! Inside, the solvers keep dependency chains short: square roots and divisions taken
//! side by side (`√x · (1/x)`; a FABRIK segment as `(v · (length/|v|²)) · √|v|²`), shortest
//! arcs left unnormalised until one final scale, and moving points carried in registers.
//! [`solve_aim`] composes its correction in closed form — the shortest arc as two
//! reflections, its product with the turn about the aim line written out — from dot products
//! taken four at a time on the unnormalised target, so its one normalisation runs beside them.
//! CCD exists once ([`ccd`]): [`solve_ccd`], sinew's `SkeletonInstance` (MMD characters among
//! them: one chain, chains through append bones, two legs in lockstep lanes) and every bench
//! run the same
//! iterations, monomorphised over how the chain's bones are stored; its results are pinned by
//! `tests/ccd_regression.rs` and proven against babylon-mmd through `sinew-mmd`. [`CcdBatch`]
//! runs those iterations for many chains of one shape in SIMD lanes (structure of arrays,
//! every branch computed and each lane's selected), giving each chain `solve_ccd`'s bits
//! (`tests/ccd_batch.rs`) at a fraction of the time per chain.
//!
//! ## Benchmarks
//!
//! `benches/ik.rs` (criterion) times each solver on fixed-seed targets and prints each case's
//! solved fraction; `examples/ik_quality.rs` prints the same fractions with a load-robust
//! (fastest-batch) timing.
#![warn(missing_docs)]

mod aim;
pub mod arbiter;
pub mod ccd;
mod chain;
mod direction;
mod dispatch;
mod dots;
mod error;
mod fabrik;
mod limits;
#[cfg(test)]
mod test_rng;
mod turn;
mod two_bone;

pub use aim::{solve_aim, AimParams, AimResult};
pub use arbiter::{
    Arbiter, ArbiterChain, ArbiterScratch, ChainId, DefaultArbiter, Goal, GoalMode, GoalTarget,
    StrictPriorityArbiter,
};
pub use ccd::{solve_ccd, CcdBatch, CcdLink, CcdParams, CcdScratch};
pub use chain::{
    apply_corrections, correction_from_delta, corrections_from_deltas, ChainJoint, SolveResult,
};
pub use error::IkError;
pub use fabrik::{solve_fabrik, FabrikLink, FabrikParams, FabrikScratch};
pub use limits::{Hinge, IkJoint, RotationLimit, Rotor};
pub use two_bone::{solve_two_bone, TwoBoneParams, TwoBoneResult};

/// The crate's main names in one import.
pub mod prelude {
    pub use crate::{
        solve_aim, solve_ccd, solve_fabrik, solve_two_bone, AimParams, CcdLink, CcdParams,
        CcdScratch, ChainJoint, FabrikLink, FabrikParams, FabrikScratch, Hinge, IkError, IkJoint,
        RotationLimit, Rotor, SolveResult, TwoBoneParams,
    };
}
