//! AVX2 local-to-world in two passes over chunks of bones:
//!
//! 1. the rotation·scale part of every local matrix, eight bones at a time in structure-of-arrays
//!    form (quaternions and scales transposed into lanes), written to a small stack scratch;
//! 2. the parent pass, `world[i] = world[parent[i]] × local[i]`: three column combinations and
//!    the translation, each local entry fetched with a broadcast load (a load-port operation, not
//!    a shuffle). When a bone's parent is the bone evaluated just before it (most bones of a
//!    depth-first order), the parent comes from registers instead of a store-to-load round trip,
//!    which shortens the parent→child dependency chain.
//!
//! Both passes use the same operations in the same order as the portable kernel (separate
//! multiplies and adds, no fused multiply-add), so the results are bit-identical to it.
//!
//! Where the processor has AVX-512VL, pass 2 of the range (depth-first) path folds each
//! broadcast into its multiply (EVEX embedded broadcast, written as inline assembly: the
//! intrinsics need a newer compiler than the crate's minimum), which removes a third of its
//! instructions. Same operations, same order, same results. (The explicit-order path, which
//! mostly loads parents from memory, measured no better with it and keeps the plain form.)

use core::arch::x86_64::*;

use glam::Affine3A;

use super::SoaBlock;
use crate::math::lanes::{load3, load4, rows};
use crate::skeleton::NO_PARENT;
use crate::Transform;

/// Bones per chunk: the scratch (`CHUNK × 9` floats, 2.3 KiB) lives on the stack.
const CHUNK: usize = 64;

/// Rotation·scale entries of eight bones, entry-major: `m[c][lane]`, `c` = column·3 + row.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Block {
    m: [[f32; 8]; 9],
}

/// Where the bones of a pass come from: a contiguous range or an explicit order. Every bone
/// it yields is a valid index into the slices (checked by the callers).
trait BoneSeq {
    fn len(&self) -> usize;
    fn bone(&self, k: usize) -> usize;
    /// `Some(bone(k))` when the bones from `k` on are consecutive indices.
    fn contiguous(&self, k: usize) -> Option<usize>;
}

struct Range(usize, usize);

impl BoneSeq for Range {
    #[inline(always)]
    fn len(&self) -> usize {
        self.1 - self.0
    }
    #[inline(always)]
    fn bone(&self, k: usize) -> usize {
        self.0 + k
    }
    #[inline(always)]
    fn contiguous(&self, k: usize) -> Option<usize> {
        Some(self.0 + k)
    }
}

impl BoneSeq for &[u16] {
    #[inline(always)]
    fn len(&self) -> usize {
        <[u16]>::len(self)
    }
    #[inline(always)]
    fn bone(&self, k: usize) -> usize {
        self[k] as usize
    }
    #[inline(always)]
    fn contiguous(&self, _: usize) -> Option<usize> {
        None
    }
}

/// Pass 1 for up to eight bones: `bones[k]` for `k < 8` (callers repeat the last bone to fill).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn rotation_scale_block(l: [&Transform; 8], out: *mut Block) {
    // Lane j of the low half is bone j, of the high half bone j + 4.
    let q = rows(core::array::from_fn(|k| load4(&l[k].rotation)));
    let [sx, sy, sz, _] = rows(core::array::from_fn(|k| load3(&l[k].scale)));
    rotation_scale_rows(q, [sx, sy, sz], out);
}

/// Pass 1 on rows: quaternion rows `x, y, z, w` and scale rows, lane = bone.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn rotation_scale_rows([x, y, z, w]: [__m256; 4], [sx, sy, sz]: [__m256; 3], out: *mut Block) {
    let (add, sub, mul) = (_mm256_add_ps, _mm256_sub_ps, _mm256_mul_ps);
    let one = _mm256_set1_ps(1.0);
    let (x2, y2, z2) = (add(x, x), add(y, y), add(z, z));
    let (xx, xy, xz) = (mul(x, x2), mul(x, y2), mul(x, z2));
    let (yy, yz, zz) = (mul(y, y2), mul(y, z2), mul(z, z2));
    let (wx, wy, wz) = (mul(w, x2), mul(w, y2), mul(w, z2));
    let m = [
        mul(sub(one, add(yy, zz)), sx),
        mul(add(xy, wz), sx),
        mul(sub(xz, wy), sx),
        mul(sub(xy, wz), sy),
        mul(sub(one, add(xx, zz)), sy),
        mul(add(yz, wx), sy),
        mul(add(xz, wy), sz),
        mul(sub(yz, wx), sz),
        mul(sub(one, add(xx, yy)), sz),
    ];
    let dst = out.cast::<f32>();
    for (r, v) in m.into_iter().enumerate() {
        // SAFETY: `out` points at a writable `Block`: row `r` is eight floats, 32-byte aligned
        // (`Block` is `align(32)`, rows 32 bytes).
        unsafe { _mm256_store_ps(dst.add(8 * r), v) };
    }
}

/// Pass 1 straight from a structure-of-arrays block: no transposes.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn rotation_scale_soa(b: &SoaBlock, out: *mut Block) {
    // SAFETY: `SoaBlock` is `align(32)` and its rows are eight floats (32 bytes) each.
    let row = |r: &[f32; 8]| unsafe { _mm256_load_ps(r.as_ptr()) };
    let q = [
        row(&b.rotation[0]),
        row(&b.rotation[1]),
        row(&b.rotation[2]),
        row(&b.rotation[3]),
    ];
    let s = [row(&b.scale[0]), row(&b.scale[1]), row(&b.scale[2])];
    rotation_scale_rows(q, s, out);
}

/// Where the passes read the local transforms.
trait Locals {
    /// Floats between a translation's `x`, `y` and `z`.
    const STRIDE: usize;
    /// Pass 1 for the bones at positions `first..first + 8` of `seq` (the last one repeated past
    /// `last`), into `out`. Every position's bone is below the pose length.
    fn fill<S: BoneSeq>(&self, seq: &S, first: usize, last: usize, out: *mut Block);
    /// Address of bone `i`'s translation `x` (`y`, `z` follow at `STRIDE`, `2·STRIDE`).
    ///
    /// # Safety
    /// `i` must be below the pose length.
    unsafe fn translation(&self, i: usize) -> *const f32;
    /// [`bone_evex`] with this source's translation stride.
    ///
    /// # Safety
    /// As [`bone_evex`].
    #[inline(always)]
    unsafe fn bone_evex(p: [__m128; 4], e: *const f32, t: *const f32) -> [__m128; 4] {
        // SAFETY: the caller's contract.
        unsafe {
            if Self::STRIDE == 1 {
                bone_evex::<1>(p, e, t)
            } else {
                bone_evex::<8>(p, e, t)
            }
        }
    }
}

impl Locals for [Transform] {
    const STRIDE: usize = 1;

    #[inline(always)]
    fn fill<S: BoneSeq>(&self, seq: &S, first: usize, last: usize, out: *mut Block) {
        let l: [&Transform; 8] = match seq.contiguous(first) {
            // Eight consecutive bones: one bounds check, fixed offsets.
            Some(i0) if first + 7 <= last => {
                let c: &[Transform; 8] = self[i0..i0 + 8].try_into().expect("eight");
                core::array::from_fn(|k| &c[k])
            }
            _ => core::array::from_fn(|k| &self[seq.bone((first + k).min(last))]),
        };
        // SAFETY: AVX2 and FMA are available (this runs inside `eval`, whose callers checked).
        unsafe { rotation_scale_block(l, out) };
    }

    #[inline(always)]
    unsafe fn translation(&self, i: usize) -> *const f32 {
        // SAFETY: `i < len` (the caller's contract).
        core::ptr::from_ref(unsafe { &self.get_unchecked(i).translation }).cast::<f32>()
    }
}

impl Locals for [SoaBlock] {
    const STRIDE: usize = 8;

    #[inline(always)]
    fn fill<S: BoneSeq>(&self, seq: &S, first: usize, last: usize, out: *mut Block) {
        match seq.contiguous(first) {
            // SAFETY: AVX2 and FMA are available (inside `eval`).
            Some(i0) if i0.is_multiple_of(8) => unsafe { rotation_scale_soa(&self[i0 / 8], out) },
            _ => {
                let t: [Transform; 8] = core::array::from_fn(|k| {
                    let i = seq.bone((first + k).min(last));
                    self[i / 8].get(i % 8)
                });
                // SAFETY: as above.
                unsafe { rotation_scale_block(core::array::from_fn(|k| &t[k]), out) };
            }
        }
    }

    #[inline(always)]
    unsafe fn translation(&self, i: usize) -> *const f32 {
        // SAFETY: `i < len ≤ 8·blocks` (the caller's contract).
        unsafe { self.get_unchecked(i / 8).translation[0].as_ptr().add(i % 8) }
    }
}

#[inline]
#[target_feature(enable = "avx2,fma")]
fn load_affine(a: &Affine3A) -> [__m128; 4] {
    let p = core::ptr::from_ref(a).cast::<f32>();
    // SAFETY: `Affine3A` is four 16-byte-aligned `Vec3A` columns (16 floats, all initialised).
    unsafe {
        [
            _mm_load_ps(p),
            _mm_load_ps(p.add(4)),
            _mm_load_ps(p.add(8)),
            _mm_load_ps(p.add(12)),
        ]
    }
}

/// Pass 2 for one bone with embedded-broadcast multiplies: `e` points at the bone's first
/// rotation·scale entry in its block (entry `c` at `e + 8c`), `t` at its translation (`x`,
/// `y`, `z` at `t`, `t + TS`, `t + 2·TS` floats).
///
/// # Safety
/// The CPU must support AVX-512F and AVX-512VL; `e` must be readable at the nine entries and
/// `t` at the three translation floats.
#[inline(always)]
unsafe fn bone_evex<const TS: usize>(
    [px, py, pz, pt]: [__m128; 4],
    e: *const f32,
    t: *const f32,
) -> [__m128; 4] {
    let (c0, c1, c2, ct): (__m128, __m128, __m128, __m128);
    // SAFETY: the caller's contract (CPU features, readable pointers); the block only reads
    // memory and writes its register outputs.
    unsafe {
        core::arch::asm!(
            "vmulps {c0}, {px}, dword ptr [{e}]{{1to4}}",
            "vmulps {k0}, {py}, dword ptr [{e} + 32]{{1to4}}",
            "vmulps {c1}, {px}, dword ptr [{e} + 96]{{1to4}}",
            "vmulps {k1}, {py}, dword ptr [{e} + 128]{{1to4}}",
            "vaddps {c0}, {c0}, {k0}",
            "vmulps {k0}, {pz}, dword ptr [{e} + 64]{{1to4}}",
            "vaddps {c1}, {c1}, {k1}",
            "vmulps {k1}, {pz}, dword ptr [{e} + 160]{{1to4}}",
            "vaddps {c0}, {c0}, {k0}",
            "vaddps {c1}, {c1}, {k1}",
            "vmulps {c2}, {px}, dword ptr [{e} + 192]{{1to4}}",
            "vmulps {k0}, {py}, dword ptr [{e} + 224]{{1to4}}",
            "vmulps {ct}, {px}, dword ptr [{t}]{{1to4}}",
            "vmulps {k1}, {py}, dword ptr [{t} + {ty}]{{1to4}}",
            "vaddps {c2}, {c2}, {k0}",
            "vmulps {k0}, {pz}, dword ptr [{e} + 256]{{1to4}}",
            "vaddps {ct}, {ct}, {k1}",
            "vmulps {k1}, {pz}, dword ptr [{t} + {tz}]{{1to4}}",
            "vaddps {c2}, {c2}, {k0}",
            "vaddps {ct}, {ct}, {k1}",
            "vaddps {ct}, {ct}, {pt}",
            px = in(xmm_reg) px,
            py = in(xmm_reg) py,
            pz = in(xmm_reg) pz,
            pt = in(xmm_reg) pt,
            e = in(reg) e,
            t = in(reg) t,
            ty = const 4 * TS,
            tz = const 8 * TS,
            c0 = out(xmm_reg) c0,
            c1 = out(xmm_reg) c1,
            c2 = out(xmm_reg) c2,
            ct = out(xmm_reg) ct,
            k0 = out(xmm_reg) _,
            k1 = out(xmm_reg) _,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    [c0, c1, c2, ct]
}

/// Evaluates the bones of `seq` in its order; every parent must come before its children in
/// `seq` or already be evaluated in `out`. The caller has checked that the three slices have
/// the same length and that `seq` yields only indices below it.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn eval<S: BoneSeq, L: Locals + ?Sized, const EVEX: bool>(
    parents: &[u16],
    seq: &S,
    locals: &L,
    root: &Affine3A,
    out: &mut [Affine3A],
) {
    let len = out.len();
    debug_assert!(parents.len() == len);
    let total = seq.len();
    let out_ptr = out.as_mut_ptr();
    let root_ptr = core::ptr::from_ref(root);
    // Not zeroed: pass 1 writes every row of every block pass 2 reads.
    let mut scratch = core::mem::MaybeUninit::<[Block; CHUNK / 8]>::uninit();
    let blocks = scratch.as_mut_ptr().cast::<Block>();
    let mut base = 0;
    while base < total {
        let n = (total - base).min(CHUNK);
        let nb = n.div_ceil(8);
        for b in 0..nb {
            let first = base + b * 8;
            let last = base + n - 1;
            // SAFETY: `b < CHUNK / 8`: a block of the scratch.
            locals.fill(seq, first, last, unsafe { blocks.add(b) });
        }
        let mut prev = [_mm_setzero_ps(); 4];
        let mut prev_i = usize::MAX;
        // SAFETY: pass 1 initialised blocks `0..nb` completely.
        let written = unsafe { core::slice::from_raw_parts(blocks.cast_const(), nb) };
        for (b, block) in written.iter().enumerate() {
            let lanes = (n - b * 8).min(8);
            for lane in 0..lanes {
                let i = seq.bone(base + b * 8 + lane);
                // SAFETY: `i < len` (the callers check every index `seq` yields).
                let (p, t) = unsafe { (*parents.get_unchecked(i), locals.translation(i)) };
                let [px, py, pz, pt] = if p as usize == prev_i {
                    // The bone just written: take it from registers, not through memory (and
                    // without the pointer arithmetic below: most bones take this branch).
                    prev
                } else {
                    let parent = if (p as usize) < len {
                        // SAFETY: `p < len`; a parent evaluated later than its child only reads
                        // a stale (initialised) matrix.
                        unsafe { out_ptr.add(p as usize) }.cast_const()
                    } else {
                        assert!(p == NO_PARENT, "parent index out of range");
                        root_ptr
                    };
                    // SAFETY: `parent` points at an initialised `Affine3A` (no reference to
                    // `out` is alive while the kernel runs).
                    load_affine(unsafe { &*parent })
                };
                let [c0, c1, c2, ct] = if EVEX {
                    // SAFETY: `EVEX` only where AVX-512F/VL were detected; entry `c` of this
                    // lane is `block.m[c][lane]`, `8c` floats on; `t` addresses a translation.
                    unsafe { L::bone_evex([px, py, pz, pt], &raw const block.m[0][lane], t) }
                } else {
                    let e = |c: usize| _mm_broadcast_ss(&block.m[c][lane]);
                    let (add, mul) = (_mm_add_ps, _mm_mul_ps);
                    let col =
                        |c: usize| add(add(mul(px, e(c)), mul(py, e(c + 1))), mul(pz, e(c + 2)));
                    // SAFETY: `t` addresses the three floats of a translation, `L::STRIDE` apart.
                    let tc = |k: usize| unsafe { _mm_broadcast_ss(&*t.add(k * L::STRIDE)) };
                    let ct = add(add(add(mul(px, tc(0)), mul(py, tc(1))), mul(pz, tc(2))), pt);
                    [col(0), col(3), col(6), ct]
                };
                // SAFETY: `i < len`: one `Affine3A`, 16 floats, 16-byte aligned.
                unsafe {
                    let o = out_ptr.add(i).cast::<f32>();
                    _mm_store_ps(o, c0);
                    _mm_store_ps(o.add(4), c1);
                    _mm_store_ps(o.add(8), c2);
                    _mm_store_ps(o.add(12), ct);
                }
                prev = [c0, c1, c2, ct];
                prev_i = i;
            }
        }
        base += n;
    }
}

/// Bones `from..to` in index order (all slices the same length).
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn range(
    parents: &[u16],
    locals: &[Transform],
    root: &Affine3A,
    out: &mut [Affine3A],
    from: usize,
    to: usize,
) {
    assert!(from <= to && to <= out.len());
    if has_evex() {
        eval::<_, _, true>(parents, &Range(from, to), locals, root, out);
    } else {
        eval::<_, _, false>(parents, &Range(from, to), locals, root, out);
    }
}

/// Every bone of a structure-of-arrays pose, in index order (`out.len()` bones, at most
/// `8 · blocks.len()`).
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn soa(
    parents: &[u16],
    blocks: &[SoaBlock],
    root: &Affine3A,
    out: &mut [Affine3A],
) {
    assert!(parents.len() == out.len() && out.len() <= 8 * blocks.len());
    if has_evex() {
        eval::<_, _, true>(parents, &Range(0, out.len()), blocks, root, out);
    } else {
        eval::<_, _, false>(parents, &Range(0, out.len()), blocks, root, out);
    }
}

/// Bones in `order` (all slices the same length).
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn ordered(
    parents: &[u16],
    order: &[u16],
    locals: &[Transform],
    root: &Affine3A,
    out: &mut [Affine3A],
) {
    let len = out.len();
    assert!(
        order.iter().all(|&i| (i as usize) < len),
        "bone index out of range"
    );
    eval::<_, _, false>(parents, &order, locals, root, out);
}

/// AVX-512F and AVX-512VL (embedded broadcasts on 16-byte registers).
#[inline]
fn has_evex() -> bool {
    std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512vl")
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;

    /// Both pass-2 variants (plain broadcasts, embedded broadcasts) against the public entry
    /// point, which the portable-kernel test checks: whichever variant that uses, the other
    /// is covered too.
    #[test]
    fn both_variants_match_the_dispatched_kernel() {
        if !(std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")) {
            return;
        }
        let n = 77;
        let parents: Vec<u16> = (0..n)
            .map(|i| match i {
                0 | 40 => NO_PARENT,
                _ if i % 4 == 0 => (i / 2) as u16,
                _ => (i - 1) as u16,
            })
            .collect();
        let locals: Vec<Transform> = (0..n)
            .map(|i| {
                let f = i as f32;
                Transform {
                    translation: Vec3::new(0.2 * f, -0.1, 1.0 - 0.03 * f),
                    rotation: Quat::from_euler(glam::EulerRot::XYZ, 0.2 * f, 1.1, 0.5 - 0.1 * f)
                        .normalize(),
                    scale: if i % 9 == 0 {
                        Vec3::new(1.1, 0.8, 1.0 + 0.01 * f)
                    } else {
                        Vec3::ONE
                    },
                }
            })
            .collect();
        let root = Affine3A::from_rotation_z(0.3);
        let mut want = vec![Affine3A::IDENTITY; n];
        crate::pose::local_to_world(&parents, &locals, &root, &mut want);
        let soa = crate::pose::SoaPose::from_transforms(&locals);
        let mut plain_soa = vec![Affine3A::IDENTITY; n];
        // SAFETY: AVX2 and FMA are available (checked above).
        unsafe { eval::<_, _, false>(&parents, &Range(0, n), soa.blocks(), &root, &mut plain_soa) };
        assert_eq!(plain_soa, want);
        let mut plain = vec![Affine3A::IDENTITY; n];
        // SAFETY: AVX2 and FMA are available (checked above).
        unsafe { eval::<_, _, false>(&parents, &Range(0, n), &locals[..], &root, &mut plain) };
        assert_eq!(plain, want);
        if has_evex() {
            let mut evex = vec![Affine3A::IDENTITY; n];
            // SAFETY: AVX2, FMA, AVX-512F and AVX-512VL are available (checked).
            unsafe { eval::<_, _, true>(&parents, &Range(0, n), &locals[..], &root, &mut evex) };
            assert_eq!(evex, want);
            let mut evex_soa = vec![Affine3A::IDENTITY; n];
            // SAFETY: as above.
            unsafe {
                eval::<_, _, true>(&parents, &Range(0, n), soa.blocks(), &root, &mut evex_soa);
            };
            assert_eq!(evex_soa, want);
        }
    }
}
