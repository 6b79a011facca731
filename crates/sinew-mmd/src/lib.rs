//! # sinew-mmd — MikuMikuDance models and motions for sinew
//!
//! Reads PMX 2.0/2.1 and PMD models and VMD motions, and evaluates them the way MMD (and
//! babylon-mmd, the reference) does. Its place in a frame:
//!
//! ```text
//!  PMX / PMD / VMD bytes ──parse──▶ Pmx / Pmd / Vmd        (format: plain data, never panics)
//!      │                            ◀─to_bytes─ (PMX, VMD)
//!      ▼
//!  MmdModel (Arc)                   bones in file order, IK, appends, bodies, joints, mesh,
//!      │                            morphs, sinew Skeleton; validated; its generic
//!      │                            definitions per mode read once, shared
//!      ▼
//!  MotionPlayer / MotionMixer       VMD keys sampled (bones, morphs, IK toggles) ─┐
//!      ▼                                                                          │
//!  MmdInstance                      per character: animated input, morphs, IK     ◀┘
//!      │                            toggles, world matrices; evaluate() runs
//!      └─ MmdSkeletonInstance       the generic SkeletonInstance over the reader's
//!                                   MMD-runtime definitions: in stages for a model
//!                                   without GenericGap (all the shared assets), bone
//!                                   by bone in MMD's EvaluationOrder otherwise
//!                                   (before / after physics; sinew-physics between)
//!      ▼
//!  world / skin matrices            → sinew-skin (mesh, SDEF), a renderer, a bake
//! ```
//!
//! The same model converts into sinew's generic definitions ([`MmdSkeletonDynamicsReader`]:
//! skeleton, dynamics, clips); with [`MmdReaderOptions::mmd_runtime`] (or
//! [`MmdReaderOptions::mmd_bone_by_bone`]) the generic `SkeletonInstance` evaluates it as MMD
//! runtimes do ([`MmdSkeletonInstance`]) with sinew-ik's one CCD. There is no evaluation
//! engine of this crate's own.
//!
//! # Entry points
//!
//! - [`MmdModel::from_bytes`], [`MmdInstance`], [`MmdSkeletonInstance`],
//!   [`MmdMotion::from_vmd`], [`MotionPlayer`]
//! - [`Pmx::parse`] / [`Pmx::to_bytes`], [`Pmd::parse`], [`Vmd::parse`] / [`Vmd::to_bytes`]
//! - [`decode_bone_interpolation`]: the 64-byte VMD bone interpolation block
//!   as four Bézier curves (X, Y, Z, rotation).
//!
//! The format layer ([`format`](mod@format)) keeps positions, rotations and Euler angles in MMD's
//! left-handed model space exactly as stored and validates no cross-reference; [`model`] does
//! that when it builds an [`MmdModel`].
//!
//! # Errors
//!
//! Malformed or truncated input yields a [`ParseError`] carrying the
//! [`Format`], the section being read (`"bones"`, `"morph keyframes"`, ...),
//! the byte offset and a [`ParseErrorKind`]; the parsers never panic. Counts
//! read from a file only reserve what the remaining bytes could hold, so a
//! hostile count cannot allocate more than the input's size.
//!
//! ```
//! let err = sinew_mmd::Pmx::parse(b"PMX \0\0").unwrap_err();
//! assert_eq!(err.section, "header");
//! assert_eq!(err.to_string(), "PMX header: unexpected end of file at byte 6 (needed 4, 2 left)");
//! ```
#![warn(missing_docs)]

pub mod dynamics_reader;
pub mod error;
pub mod format;
pub mod generic;
pub mod mesh;
pub mod model;
pub mod motion;
pub mod runtime;
pub mod static_pose;
pub mod validate;

pub use format::{pmd, pmx, vmd};
use format::{reader, text, writer};

pub use dynamics_reader::{MmdOrder, MmdReaderOptions, MmdSkeletonDynamicsReader, ReadReport};
pub use error::{Format, ParseError, ParseErrorKind};
pub use generic::MmdSkeletonInstance;
pub use mesh::{BoneMorph, MmdMorph};
pub use model::{GenericGap, MmdError, MmdFormat, MmdModel};
pub use motion::{MmdMotion, MotionMixer, MotionPlayer, MAX_MOTIONS};
pub use pmd::Pmd;
pub use pmx::Pmx;
pub use runtime::{EvalOptions, MmdInstance, MMD_IK_TOLERANCE};
pub use static_pose::{PoseError, StaticPose};
pub use vmd::{decode_bone_interpolation, Vmd};
