//! Hostile input for sinew, and the whole path it is driven through.
//!
//! # Where this crate sits
//!
//! ```text
//! gen (valid-but-hostile PMX) ─┐
//! mutate (real files, damaged) ┼─▶ bytes ─▶ path: parse → model → instance → FK/IK/append
//! fuzz bytes ──────────────────┘                   frames → physics steps
//! ```
//!
//! Nothing here is used by a host at run time: the fuzz targets (`fuzz/`), the property tests
//! (`tests/`) and the corpus tool (`sinew-hostile corpus` / `sinew-hostile run`, see the README)
//! use it to prove that no file can crash, hang or exhaust a sinew host.
#![warn(missing_docs)]

pub mod args;
pub mod attack;
pub mod c_abi;
pub mod gen;
pub mod mutate;
pub mod path;
mod wave_pose;

pub use wave_pose::{wave_motion, wave_pose};
