//! Whole-bone ("fused") sampling records in structure-of-arrays blocks of eight bones.
//!
//! A fused bone has translation, rotation and scale tracks with the same key times (or a
//! single key: a constant channel follows any times, as ozz-animation's clips key scale once),
//! none of them Bézier-eased, so one normalised segment time serves all three. The cache
//! keeps each bone's current segment as polynomial coefficients, eight bones per
//! [`FusedBlock`] with one lane per bone, so evaluating a frame is a handful of 8-wide
//! multiply-adds per block, one 8-wide normalisation of the rotations and a transpose into the
//! `Transform`s. When every fused bone
//! shares one key-time array (baked clips), a single cursor serves them all. When a bone's
//! channels key apart, each channel keeps its own segment; in linear absolute clips a channel
//! whose times every bone shares has one cursor (refilled eight bones at a time), and a channel
//! keyed at each bone's own times plays a per-binding stream of key events sorted by time
//! (`events`), so crossing a key costs no search and no per-bone check.
//!
//! The arithmetic per lane is the same, in the same order, as a per-bone `Vec4` evaluation
//! (`c0 + c1·s`, rotation divided by `sqrt((x² + z²) + (y² + w²))`), with or without AVX2.
//!
//! Layout: this file holds the block types and the cache; `table` the per-binding segment
//! tables, `events` the key-event streams of channels keyed at each bone's own times,
//! `refill` bringing the cache up to a time, `eval` the evaluation kernels
//! (portable and dispatching), `avx2` the AVX2 refill and evaluation kernels, `tests` the unit
//! tests.

use super::sample::Cursors;

#[cfg(target_arch = "x86_64")]
mod avx2;
mod eval;
mod events;
mod refill;
mod table;
#[cfg(test)]
mod tests;

pub(super) use eval::{eval_fused, eval_fused_soa};
pub(super) use events::{build_events, KeyEvents};
pub(super) use refill::refill_fused;
pub(super) use table::build_table;

/// Rows of a block: translation `c0` (3), `c1` (3), rotation `c0` (4), `c1` (4), scale `c0`
/// (3), `c1` (3). Cubic blocks use the same rows for `c2` and `c3`.
const T0: usize = 0;
const T1: usize = 3;
const R0: usize = 6;
const R1: usize = 10;
const S0: usize = 14;
const S1: usize = 17;
const ROWS: usize = 20;

/// Segment records of eight fused bones; lane `l` is fused bone `8·block + l`.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub(crate) struct FusedBlock {
    /// Per channel (translation, rotation, scale) and lane: `s = (t − start)·k`.
    start: [[f32; 8]; 3],
    k: [[f32; 8]; 3],
    c: [[f32; 8]; ROWS],
}

impl Default for FusedBlock {
    fn default() -> Self {
        Self {
            start: [[0.0; 8]; 3],
            k: [[0.0; 8]; 3],
            c: [[0.0; 8]; ROWS],
        }
    }
}

/// Cubic terms (`c2`, `c3`) of eight fused bones, same rows as [`FusedBlock`].
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub(super) struct CubicBlock {
    c: [[f32; 8]; ROWS],
}

impl Default for CubicBlock {
    fn default() -> Self {
        Self {
            c: [[0.0; 8]; ROWS],
        }
    }
}

#[derive(Clone, Debug, Default)]
pub(super) struct FusedCache {
    /// One cursor per fused bone (only the first is used when the key times are shared).
    cursors: Cursors,
    /// Per fused bone and channel (translation, rotation, scale): key count at or before the
    /// cached time and the segment's valid range — the cursors of bones whose channels key
    /// apart.
    channels: Vec<[(u32, f32, f32); 3]>,
    /// The same per channel for every bone at once, when each channel's key times are shared
    /// by every bone (`ClipBinding::fused_channel_times`).
    shared_channels: [(u32, f32, f32); 3],
    /// Per channel keyed at each bone's own times (`ClipBinding::fused_channel_times`:
    /// `PER_BONE`): the next event of its stream (`ClipBinding::fused_events`) and the range
    /// over which the records hold.
    streams: [(usize, f32, f32); 3],
    blocks: Vec<FusedBlock>,
    /// Only for clips with cubic-spline tracks.
    cubic: Vec<CubicBlock>,
}

/// Blocks and (for cubic clips) their cubic terms.
pub(super) type Records<'a> = (&'a [FusedBlock], &'a [CubicBlock]);

impl FusedCache {
    /// The cached records.
    pub(super) fn records(&self) -> Records<'_> {
        (&self.blocks, &self.cubic)
    }

    /// The shared cursor's segment (valid after a refill with shared key times).
    pub(super) fn shared_segment(&self) -> usize {
        self.cursors.key.first().map_or(0, |&k| k as usize)
    }

    pub(super) fn bind(&mut self, bones: usize, cubic: bool) {
        self.cursors.reset(bones);
        self.channels.clear();
        self.channels
            .resize(bones, [(0, f32::INFINITY, f32::NEG_INFINITY); 3]);
        self.shared_channels = [(0, f32::INFINITY, f32::NEG_INFINITY); 3];
        self.streams = [(0, f32::INFINITY, f32::NEG_INFINITY); 3];
        let nb = bones.div_ceil(8);
        self.blocks.clear();
        self.blocks.resize(nb, FusedBlock::default());
        self.cubic.clear();
        if cubic {
            self.cubic.resize(nb, CubicBlock::default());
        }
    }
}
