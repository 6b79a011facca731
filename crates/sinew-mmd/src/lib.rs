//! # sinew-mmd — MikuMikuDance models and motions for sinew
//!
//! Reads PMX 2.0/2.1 and PMD models and VMD motions into sinew's definitions, so that a
//! character evaluates them the way MMD (and babylon-mmd, the reference) does. Its place in
//! the data flow:
//!
//! ```text
//!  PMX / PMD / VMD bytes ──parse──▶ Pmx / Pmd / Vmd        (format: plain data, never panics)
//!      │                            ◀─to_bytes─ (PMX, VMD)
//!      ▼
//!  MmdModel (Arc)                   bones in file order, IK, appends, bodies, joints, mesh,
//!      │                            morphs, sinew Skeleton; validated — the reader's product
//!      ▼
//!  MmdDefinitions (Arc, per order)  skeleton + IK chains + append as pose constraints +
//!      │                            rigid bodies and joints (+ MMD's evaluation order, bone
//!      │                            by bone); file indices end here (file_bones)
//!      ▼
//!  MmdMotion                        a VMD as a clip (Bézier-eased, relative to rest) + IK keys
//!      ▼
//!  sinew-character::Character       one SkeletonInstance over the definitions, MmdInput
//!                                   (fixed-axis rule, bone morphs), physics with MMD's
//!                                   world writeback, skinning
//! ```
//!
//! [`MmdModel::definitions`] reads a model once per [`MmdOrder`]: **staged** for a model
//! without [`StagedGap`] (every shared asset; [`MmdModel::mmd_order`]), **bone by bone** in
//! MMD's order otherwise; the module docs of [`definitions`] say why both stay. The MMD modes
//! (fk / grant / ik / full) are [`sinew::instance::Stages`] on one instance. There is no
//! evaluation engine of this crate's own: sinew's `SkeletonInstance` evaluates, with
//! sinew-ik's one CCD.
//!
//! # Entry points
//!
//! - [`MmdModel::from_bytes`], [`MmdModel::definitions`], [`MmdInput`],
//!   [`MmdMotion::from_vmd`]
//! - [`Pmx::parse`] / [`Pmx::to_bytes`], [`Pmd::parse`], [`Vmd::parse`] / [`Vmd::to_bytes`]
//! - [`decode_bone_interpolation`]: the 64-byte VMD bone interpolation block
//!   as four Bézier curves (X, Y, Z, rotation); [`decode_camera_interpolation`]:
//!   a camera key's 24 bytes as six (X, Y, Z, rotation, distance, FOV), which
//!   `sinew-character`'s `CameraMotion` plays.
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

pub mod definitions;
pub mod dynamics_reader;
pub mod error;
pub mod format;
pub mod mesh;
pub mod model;
pub mod motion;
pub mod validate;

pub use format::{pmd, pmx, vmd};
use format::{reader, text, writer};

pub use definitions::{MmdDefinitions, MmdInput};
pub use dynamics_reader::{
    MmdOrder, MmdReaderOptions, MmdSkeletonDynamicsReader, ReadReport, MMD_IK_TOLERANCE,
};
pub use error::{Format, ParseError, ParseErrorKind};
pub use mesh::{BoneMorph, MmdMorph};
pub use model::{MmdError, MmdFormat, MmdModel, StagedGap};
pub use motion::MmdMotion;
pub use pmd::Pmd;
pub use pmx::Pmx;
pub use vmd::{decode_bone_interpolation, decode_camera_interpolation, Vmd};
