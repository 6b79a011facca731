//! Evaluating the cached records at a clip-local time into a local pose: the per-channel
//! polynomial and Bézier-eased kernels, the pose sinks (`[Transform]`, [`SoaPose`]) with their
//! whole-bone kernels, and the frame's order of writes.

use glam::{Quat, Vec4};

use super::{ChannelCache, EasedSeg, SampleCache, Seg, Untracked};
use crate::anim::binding::ChannelBinding;
use crate::anim::fused::{eval_fused, eval_fused_soa, Records};
use crate::anim::interpolation::slerp_flat;
use crate::anim::{Clip, ClipBinding};
use crate::pose::{LocalPose, SoaPose};
use crate::Transform;

/// Evaluates every cached polynomial record at `lt` and hands `(target, value)` to `write`.
#[inline(always)]
fn eval_poly<const CUBIC: bool>(
    lt: f32,
    segs: &[Seg],
    cubic: &[[Vec4; 2]],
    targets: &[u32],
    mut write: impl FnMut(usize, Vec4),
) {
    let n = segs.len().min(targets.len());
    let (segs, targets) = (&segs[..n], &targets[..n]);
    if CUBIC {
        let cubic = &cubic[..n];
        for ((seg, c23), &target) in segs.iter().zip(cubic).zip(targets) {
            let s = (lt - seg.start) * seg.k;
            let v = seg.c0 + s * (seg.c1 + s * (c23[0] + s * c23[1]));
            write(target as usize, v);
        }
    } else {
        for (seg, &target) in segs.iter().zip(targets) {
            let s = (lt - seg.start) * seg.k;
            write(target as usize, seg.c0 + seg.c1 * s);
        }
    }
}

#[inline(always)]
pub(super) fn eval_channel(
    lt: f32,
    cache: &ChannelCache,
    ch: &ChannelBinding,
    cubic: bool,
    write: impl FnMut(usize, Vec4),
) {
    if cubic {
        eval_poly::<true>(lt, &cache.poly, &cache.cubic, &ch.poly_targets, write);
    } else {
        eval_poly::<false>(lt, &cache.poly, &cache.cubic, &ch.poly_targets, write);
    }
}

/// Polynomial rotation records, normalised four at a time so the square roots and divisions
/// run as one SIMD operation each.
#[inline(always)]
fn eval_rotations<const CUBIC: bool, P: PoseSink + ?Sized>(
    lt: f32,
    cache: &ChannelCache,
    targets: &[u32],
    out: &mut P,
) {
    let n = cache.poly.len().min(targets.len());
    let (segs, targets) = (&cache.poly[..n], &targets[..n]);
    let cubic = if CUBIC { &cache.cubic[..n] } else { &[][..] };
    let eval = |j: usize| {
        let seg = &segs[j];
        let s = (lt - seg.start) * seg.k;
        if CUBIC {
            let c23 = &cubic[j];
            seg.c0 + s * (seg.c1 + s * (c23[0] + s * c23[1]))
        } else {
            seg.c0 + seg.c1 * s
        }
    };
    let full = n - n % 4;
    for base in (0..full).step_by(4) {
        let v = [eval(base), eval(base + 1), eval(base + 2), eval(base + 3)];
        let len2 = Vec4::new(
            v[0].length_squared(),
            v[1].length_squared(),
            v[2].length_squared(),
            v[3].length_squared(),
        );
        let inv = Vec4::from_array(len2.to_array().map(f32::sqrt)).recip();
        let t = &targets[base..base + 4];
        out.set_rotation(t[0] as usize, Quat::from_vec4(v[0] * inv.x));
        out.set_rotation(t[1] as usize, Quat::from_vec4(v[1] * inv.y));
        out.set_rotation(t[2] as usize, Quat::from_vec4(v[2] * inv.z));
        out.set_rotation(t[3] as usize, Quat::from_vec4(v[3] * inv.w));
    }
    for (j, &target) in targets.iter().enumerate().skip(full) {
        let v = eval(j);
        out.set_rotation(target as usize, Quat::from_vec4(v * v.length_recip()));
    }
}

#[inline]
pub(super) fn eased_s(seg: &EasedSeg, lt: f32) -> f32 {
    ((lt - seg.start) * seg.k).clamp(0.0, 1.0)
}

#[inline]
fn eased_vec(seg: &EasedSeg, lt: f32) -> Vec4 {
    let s = eased_s(seg, lt);
    let [ex, ey, ez] = &seg.ease;
    let x = ex.ease(s);
    let e = if ex == ey && ex == ez {
        Vec4::new(x, x, x, 0.0)
    } else {
        Vec4::new(x, ey.ease(s), ez.ease(s), 0.0)
    };
    seg.a + (seg.b - seg.a) * e
}

/// A local pose sampling writes into, with its whole-bone record kernel.
pub(super) trait PoseSink: LocalPose {
    fn fused(
        &mut self,
        lt: f32,
        records: Records<'_>,
        targets: &[u32],
        bound: usize,
        contiguous: bool,
    );
}

impl PoseSink for [Transform] {
    #[inline(always)]
    fn fused(
        &mut self,
        lt: f32,
        records: Records<'_>,
        targets: &[u32],
        bound: usize,
        contiguous: bool,
    ) {
        eval_fused(lt, records, targets, bound, contiguous, self);
    }
}

impl PoseSink for SoaPose {
    #[inline(always)]
    fn fused(
        &mut self,
        lt: f32,
        records: Records<'_>,
        targets: &[u32],
        bound: usize,
        contiguous: bool,
    ) {
        eval_fused_soa(lt, records, targets, bound, contiguous, self);
    }
}

#[inline(always)]
pub(super) fn sample_into<P: PoseSink + ?Sized>(
    clip: &Clip,
    binding: &ClipBinding,
    cache: &mut SampleCache,
    time: f32,
    untracked: Untracked,
    out: &mut P,
) {
    assert_eq!(
        out.bone_count(),
        binding.bone_count(),
        "local pose length differs from the bound skeleton"
    );
    let lt = clip.local_time_hinted(time, &mut cache.loops);
    cache.prepare(clip, binding, lt);
    if untracked == Untracked::Rest {
        for &b in &binding.partially_tracked {
            out.set(b as usize, &binding.rest[b as usize]);
        }
    }
    let cubic = binding.cubic;
    let targets = &binding.fused.poly_targets;
    // Clips whose bones share key times read the binding's segment table, others the cache.
    let records = if binding.fused_table.is_empty() {
        cache.fused.records()
    } else {
        let nb = targets.len().div_ceil(8);
        let p = cache.fused.shared_segment();
        (&binding.fused_table[p * nb..][..nb], &[][..])
    };
    out.fused(
        lt,
        records,
        targets,
        binding.fused_bound,
        binding.fused_contiguous,
    );
    let [ct, cr, cs, _] = &cache.channels;
    let [bt, br, bs, _] = &binding.channels;
    eval_channel(lt, ct, bt, cubic, |i, v| {
        out.set_translation(i, Vec4::truncate(v))
    });
    if cubic {
        eval_rotations::<true, P>(lt, cr, &br.poly_targets, out);
    } else {
        eval_rotations::<false, P>(lt, cr, &br.poly_targets, out);
    }
    eval_channel(lt, cs, bs, cubic, |i, v| {
        out.set_scale(i, Vec4::truncate(v))
    });
    for (seg, &i) in ct.eased.iter().zip(&bt.eased_targets) {
        out.set_translation(i as usize, Vec4::truncate(eased_vec(seg, lt)));
    }
    for (seg, &i) in cr.eased.iter().zip(&br.eased_targets) {
        let (a, b) = (Quat::from_vec4(seg.a), Quat::from_vec4(seg.b));
        let q = if seg.flat {
            slerp_flat(a, b, eased_s(seg, lt))
        } else {
            a.slerp(b, seg.ease[0].ease(eased_s(seg, lt)))
        };
        out.set_rotation(i as usize, q);
    }
    for (seg, &i) in cs.eased.iter().zip(&bs.eased_targets) {
        out.set_scale(i as usize, Vec4::truncate(eased_vec(seg, lt)));
    }
}
