//! Evaluating the fused records at a time into `Transform`s or a structure-of-arrays pose: the
//! entry points (which pick the AVX2 kernels when available) and the portable lane-by-lane
//! kernel.

#[cfg(target_arch = "x86_64")]
use super::avx2;
use super::{Records, R0, R1, S0, T0, T1};
use crate::pose::SoaPose;
use crate::Transform;

/// Evaluates every fused record at `lt` into `out[targets[j]]`. Every target must be below
/// `bound`; `contiguous` says that `targets[j] == targets[0] + j` (kept by the binding), which
/// lets the SIMD path address the outputs without reading the targets.
///
/// # Panics
/// If `bound` exceeds `out.len()`.
pub(in crate::anim) fn eval_fused(
    lt: f32,
    (blocks, cubic): Records<'_>,
    targets: &[u32],
    bound: usize,
    contiguous: bool,
    out: &mut [Transform],
) {
    let n = targets.len().min(blocks.len() * 8);
    let targets = &targets[..n];
    // `bound` (one past the largest target, kept by the binding) saves a pass over the targets.
    assert!(bound <= out.len(), "fused target out of range");
    debug_assert!(targets.iter().all(|&t| (t as usize) < bound));
    debug_assert!(
        !contiguous
            || (targets.iter())
                .zip(targets.first().map_or(0, |&t| t)..)
                .all(|(&t, j)| t == j)
    );
    #[cfg(target_arch = "x86_64")]
    {
        if crate::math::lanes::TRANSFORM_ROWS && std::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is available (checked above); every target indexes `out`
            // (asserted above).
            unsafe {
                if contiguous {
                    avx2::eval::<true>(lt, (blocks, cubic), targets, out);
                } else {
                    avx2::eval::<false>(lt, (blocks, cubic), targets, out);
                }
            }
            return;
        }
    }
    eval_portable(lt, (blocks, cubic), targets, out);
}

pub(super) fn eval_portable(lt: f32, records: Records<'_>, targets: &[u32], out: &mut [Transform]) {
    eval_lanes(lt, records, targets, |target, t| out[target] = t);
}

/// Evaluates every record at `lt`, one lane at a time, handing `(target, transform)` to `write`.
fn eval_lanes(
    lt: f32,
    (blocks, cubic): Records<'_>,
    targets: &[u32],
    mut write: impl FnMut(usize, Transform),
) {
    for (j, &target) in targets.iter().enumerate() {
        let (b, lane) = (j / 8, j % 8);
        let block = &blocks[b];
        let time = |c: usize| (lt - block.start[c][lane]) * block.k[c][lane];
        let (st, sr, ss) = (time(0), time(1), time(2));
        let cubic = cubic.get(b);
        // Row `row` holds `c0`, row `row + stride` `c1` (3 for translation and scale rows, 4
        // for rotation rows); cubic blocks the same rows for `c2` and `c3`.
        let poly = |row: usize, stride: usize| {
            let s = match row {
                T0..R0 => st,
                R0..S0 => sr,
                _ => ss,
            };
            let (c0, c1) = (block.c[row][lane], block.c[row + stride][lane]);
            match cubic {
                Some(cb) => {
                    let (c2, c3) = (cb.c[row][lane], cb.c[row + stride][lane]);
                    c0 + s * (c1 + s * (c2 + s * c3))
                }
                None => c0 + c1 * s,
            }
        };
        let v = |row: usize| poly(row, T1 - T0);
        let vr = |row: usize| poly(row, R1 - R0);
        let (qx, qy, qz, qw) = (vr(R0), vr(R0 + 1), vr(R0 + 2), vr(R0 + 3));
        let len2 = (qx * qx + qz * qz) + (qy * qy + qw * qw);
        let inv = 1.0 / len2.sqrt();
        write(
            target as usize,
            Transform {
                translation: glam::Vec3::new(v(T0), v(T0 + 1), v(T0 + 2)),
                rotation: glam::Quat::from_xyzw(qx * inv, qy * inv, qz * inv, qw * inv),
                scale: glam::Vec3::new(v(S0), v(S0 + 1), v(S0 + 2)),
            },
        );
    }
}

/// [`eval_fused`] into a structure-of-arrays pose: whole rows are stored where the targets
/// are eight consecutive bones starting on a block boundary, lanes otherwise.
///
/// # Panics
/// If `bound` exceeds `out.len()`.
pub(in crate::anim) fn eval_fused_soa(
    lt: f32,
    records: Records<'_>,
    targets: &[u32],
    bound: usize,
    contiguous: bool,
    out: &mut SoaPose,
) {
    let n = targets.len().min(records.0.len() * 8);
    let targets = &targets[..n];
    assert!(bound <= out.len(), "fused target out of range");
    debug_assert!(targets.iter().all(|&t| (t as usize) < bound));
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is available (checked above); every target is below `out.len()`.
            unsafe { avx2::eval_soa(lt, records, targets, contiguous, out.blocks_mut()) };
            return;
        }
    }
    let _ = contiguous;
    eval_lanes(lt, records, targets, |target, t| out.set(target, &t));
}
