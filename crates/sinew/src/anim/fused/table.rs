//! Per-binding segment tables: every segment's fused records, built once per binding for clips
//! whose fused bones share their key times, so sampling them needs no per-instance refill.

use super::refill::refill_one;
use super::{FusedBlock, FusedCache};
use crate::anim::sample::segment_range;
use crate::anim::{BoneTrack, ClipBinding};

/// Largest per-binding segment table [`build_table`] makes (bytes).
const TABLE_LIMIT: usize = 8 << 20;

/// Every segment's records for clips whose fused bones share their key times and have no cubic
/// tracks: `(keys + 1) × blocks` [`FusedBlock`]s, segment-major (segment `p` lies between keys
/// `p − 1` and `p`; 0 and `keys` are the constant ends). Built once per binding, it turns
/// sampling into a key search plus evaluation: no per-instance refill when the time crosses a
/// key. Empty when it does not apply or would exceed [`TABLE_LIMIT`].
pub(in crate::anim) fn build_table(bones: &[BoneTrack], binding: &ClipBinding) -> Vec<FusedBlock> {
    let n = binding.fused.poly_tracks.len();
    if !binding.fused_shared_times || binding.cubic || n == 0 {
        return Vec::new();
    }
    let Some(times) = bones[binding.fused.poly_tracks[0] as usize].key_times() else {
        return Vec::new();
    };
    let segments = times.len() + 1;
    let nb = n.div_ceil(8);
    if segments * nb * core::mem::size_of::<FusedBlock>() > TABLE_LIMIT {
        return Vec::new();
    }
    let mut tmp = FusedCache::default();
    tmp.bind(n, false);
    let mut table = Vec::with_capacity(segments * nb);
    for p in 0..segments {
        let (_, _, start, k) = segment_range(times, p);
        for j in 0..n {
            refill_one(bones, binding, &mut tmp, j, p, (start, k));
        }
        table.extend_from_slice(&tmp.blocks);
    }
    table
}
