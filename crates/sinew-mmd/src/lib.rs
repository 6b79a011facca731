//! MikuMikuDance file parsers for sinew: PMX 2.0/2.1 and PMD models, VMD motions.
//!
//! # Where this crate sits
//!
//! ```text
//! file bytes ──parse──▶ raw structs (Pmx / Pmd / Vmd)  ──MMD reader──▶ sinew definitions
//!            ◀─to_bytes─                                  (Skeleton, SkeletonDynamics, Clip)
//! ```
//!
//! This layer only turns bytes into plain data structs that mirror the file
//! layout, and (for PMX and VMD) back into bytes. It does not validate
//! cross-references (bone indices, parents, morph targets), does not build
//! skeletons or clips, and converts no coordinates: positions, rotations and
//! Euler angles stay in MMD's left-handed model space, exactly as stored. The
//! MMD reader builds sinew's definitions from these structs.
//!
//! # Entry points
//!
//! - [`Pmx::parse`] / [`Pmx::to_bytes`]
//! - [`Pmd::parse`]
//! - [`Vmd::parse`] / [`Vmd::to_bytes`]
//! - [`decode_bone_interpolation`]: the 64-byte VMD bone interpolation block
//!   as four Bézier curves (X, Y, Z, rotation).
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

mod axis_limit;
pub mod dynamics_reader;
pub mod error;
pub mod mesh;
pub mod model;
pub mod motion;
pub mod pmd;
pub mod pmx;
mod pmx_writer;
mod reader;
pub mod runtime;
pub mod static_pose;
mod text;
pub mod validate;
pub mod vmd;
mod vmd_writer;
mod writer;

pub use dynamics_reader::{MmdReaderOptions, MmdSkeletonDynamicsReader, ReadReport};
pub use error::{Format, ParseError, ParseErrorKind};
pub use mesh::{BoneMorph, MmdMorph};
pub use model::{MmdError, MmdFormat, MmdModel};
pub use motion::{MmdMotion, MotionMixer, MotionPlayer, MAX_MOTIONS};
pub use pmd::Pmd;
pub use pmx::Pmx;
pub use runtime::{EvalOptions, MmdInstance, MmdPlan};
pub use static_pose::{PoseError, StaticPose};
pub use vmd::{decode_bone_interpolation, Vmd};
