//! # sinew — skeleton dynamics for any engine
//!
//! The core crate: the immutable rig model, the per-character buffers, and the stages that
//! move one buffer to the next. A frame is these stages, in this order, over these buffers:
//!
//! ```text
//!  shared, immutable (Arc)                 per character (SkeletonInstance / RigState)
//!  ───────────────────────                 ───────────────────────────────────────────
//!  Skeleton   (bones, parents, rest)
//!  Clip + ClipBinding ──► sample ─────────► pose per layer    [Transform; bones]
//!                         blend  ─────────► input             SkeletonInstance::input_mut
//!  SkeletonDynamics
//!   ├ pose constraints ─► constraints ────► locals            RigState::locals
//!   │                     hierarchy  ─────► world             RigState::world  [Affine3A; bones]
//!   ├ IK chains, goals ─► IK ─────────────► locals, world     (+ targets, toggles, results)
//!   │                     ── evaluate_before_physics(writeback) ends here ──
//!   ├ physics table ────► physics ────────► locals or world   (sinew-physics' Ragdoll::step,
//!   │                                                          or the host's own)
//!   └ evaluation order ─► after physics ──► locals, world     evaluate_after_physics(writeback)
//!  Skeleton::inverse_bind ► skin matrices ► [Affine3A; bones] RigState::skin_matrices
//!                           morphs + skinning (sinew-skin)    vertices
//! ```
//!
//! The [`Writeback`] a physics stage names (locals or world matrices) is what splits the
//! frame around it; [`SkeletonInstance::update_transform`] is the whole frame without
//! physics. Three schedulers run these stages, all through the two calls above:
//! `sinew_character::Character` (one character; `Crowd` for many of one model), the
//! [`TickLoop`](instance::TickLoop) (named modules in slots around the stages — IK targets,
//! props, physics), and a host of its own (`examples/host_physics.rs` in sinew-examples runs
//! the stages itself with its own physics).
//!
//! Without an [`EvaluationOrder`](dynamics::EvaluationOrder) the constraint → hierarchy → IK
//! stages run one after the other over the whole skeleton (IK refreshing only the subtrees it
//! moved). With one (MMD's way, from sinew-mmd) they run bone by bone in that order —
//! constraint, IK rotation, world matrix, the chains the bone controls — and the order also
//! says which bones wait until after physics.
//!
//! * [`math`]: [`Transform`] (TRS), XYZ Euler helpers; world transforms are [`glam::Affine3A`].
//! * [`skeleton`]: [`Skeleton`], [`BoneId`], [`SkeletonBuilder`], and [`bind`](skeleton::bind)
//!   for checking that another rig is animation-equivalent.
//! * [`anim`]: clips, bindings, sampling, blending, retargeting.
//! * [`dynamics`]: the definitions (IK chains, closures, pose constraints, physics tables,
//!   evaluation order) and the builder that validates them; it runs nothing.
//! * [`instance`]: [`SkeletonInstance`] (one character's buffers and the stages over them),
//!   the pose-constraint stage, the IK driver for hosts with their own pose storage, goals,
//!   the tick loop.
//! * [`pose`]: [`RigState`] (locals, world, placement, floating origin), the hierarchy job
//!   over slices, skin matrices; [`SoaPose`](pose::SoaPose), a structure-of-arrays local pose.
//! * [`ik`]: stateless IK solvers over chain views (the `sinew-ik` crate).

/// Stateless IK solvers (re-export of the `sinew-ik` crate).
pub use sinew_ik as ik;
pub mod anim;
pub mod dynamics;
pub mod instance;
pub mod math;
mod model;
pub mod pose;
pub mod skeleton;

pub use glam;
pub use instance::{SkeletonInstance, Writeback};
pub use math::Transform;
pub use model::{Model, ModelFormat};
pub use pose::{RigState, RootPlacement};
pub use skeleton::{BoneId, Parent, Skeleton, SkeletonBuilder, SkeletonError};
