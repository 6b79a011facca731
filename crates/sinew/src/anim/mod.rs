//! Animation: clips, sampling, blending, ease curves and retargeting.
//!
//! One frame flows clip → binding → sample → blend:
//!
//! ```text
//!  Track<T> (times, values, interpolation, tangents | eases)      contiguous keys per channel
//!      │  BoneTrack { name, translation, rotation, scale }, FloatTrack { name, track }
//!      ▼
//!  Clip::builder(..).bone(..).float(..).build()  -> Arc<Clip>     validated, immutable, shared
//!      │
//!  ClipBinding::new(&clip, &skeleton)                             names → BoneId, once
//!      │
//!  sample(&clip, &binding, &mut cache, t, Untracked::Rest, &mut pose_a)   per instance, per frame
//!  sample(&clip2, &binding2, &mut cache2, t, .., &mut pose_b)
//!      │  SampleCache: cursors + cached segment coefficients (keyed by ClipId)
//!      ▼
//!  blend(rest, &[BlendLayer; N], &[AdditiveLayer], &params, &mut out)    normalised + additive
//!      ▼
//!  RigState::locals_mut()  →  pose::local_to_world  →  IK, physics …
//! ```
//!
//! * [`Track`], [`Interpolation`], [`BezierEase`]: keys and how to move between them — step,
//!   linear (nlerp for rotations), glTF cubic spline, and VMD per-channel Bézier easing.
//! * [`Clip`], [`ClipBuilder`], [`BoneTrack`], [`FloatTrack`], [`Wrap`], [`ValueSpace`]: the
//!   validated clip ([`ClipError`] on bad input).
//! * [`ClipBinding`]: the clip resolved to one skeleton, reporting unmatched names.
//! * [`sample`], [`sample_floats`], [`SampleCache`], [`Untracked`]: evaluation at a time.
//! * [`blend`], [`BlendLayer`], [`AdditiveLayer`], [`BlendParams`]: ozz-style weighted blending.
//! * [`sample_soa`], [`blend_soa`] (with [`local_to_world_soa`](crate::pose::local_to_world_soa)):
//!   the same stages on [`SoaPose`](crate::pose::SoaPose) — eight bones per row, no transposes,
//!   bit-identical results. Faster than the `[Transform]` path for animation-only
//!   characters (BENCHMARKS.md); convert with `SoaPose::write_transforms` before IK.
//! * [`Ease`]: the weight curves of fades (a character's mixer fades layers along them).
//! * [`RetargetMap`], [`RetargetScratch`]: motion transfer between skeletons with different
//!   rest poses and bone names.
//!
//! Nothing here allocates per frame: caches and scratch are sized once and owned by the caller.

mod bezier;
mod binding;
mod blend;
#[cfg(target_arch = "x86_64")]
mod blend_avx2;
mod clip;
mod ease;
mod error;
mod fused;
mod interpolation;
mod retarget;
mod sample;
mod track;

pub use bezier::BezierEase;
pub use binding::ClipBinding;
pub use blend::{blend, blend_soa, AdditiveLayer, AdditiveReference, BlendLayer, BlendParams};
pub use clip::{BoneTrack, Clip, ClipBuilder, ClipId, FloatTrack, ValueSpace, Wrap};
pub use ease::Ease;
pub use error::ClipError;
pub use interpolation::{Interpolation, TrackValue};
pub use retarget::{leg_length, RetargetMap, RetargetScratch};
pub use sample::{sample, sample_floats, sample_soa, SampleCache, Untracked};
pub use track::Track;
