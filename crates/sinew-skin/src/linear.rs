//! Linear blend skinning kernels, one per span kind: the matrices of a vertex's joints are
//! averaged with its weights and applied to its rest position and normal.

use glam::{Affine3A, Vec3A};

use crate::fma::{MulAdd, Plain};
use crate::skin::{Many, Out, PairRun, PairVertex, Quad, Rigid};

/// Columns of an affine blend, accumulated in SIMD registers.
#[derive(Clone, Copy)]
struct Cols {
    x: Vec3A,
    y: Vec3A,
    z: Vec3A,
    t: Vec3A,
}

impl Cols {
    #[inline(always)]
    fn of(m: &Affine3A) -> Self {
        Self {
            x: m.matrix3.x_axis,
            y: m.matrix3.y_axis,
            z: m.matrix3.z_axis,
            t: m.translation,
        }
    }

    #[inline(always)]
    fn scaled(m: &Affine3A, w: f32) -> Self {
        let w = Vec3A::splat(w);
        Self {
            x: m.matrix3.x_axis * w,
            y: m.matrix3.y_axis * w,
            z: m.matrix3.z_axis * w,
            t: m.translation * w,
        }
    }

    #[inline(always)]
    fn add_scaled(&mut self, m: &Affine3A, w: f32) {
        let w = Vec3A::splat(w);
        self.x += m.matrix3.x_axis * w;
        self.y += m.matrix3.y_axis * w;
        self.z += m.matrix3.z_axis * w;
        self.t += m.translation * w;
    }

    #[inline(always)]
    fn write<const N: bool>(&self, v: u32, out: &mut Out<'_>) {
        let p = out.rest_position(v);
        out.set_position(v, self.x * p.x + self.y * p.y + self.z * p.z + self.t);
        if N {
            let n = out.rest_normal(v);
            out.set_normal(v, self.x * n.x + self.y * n.y + self.z * n.z);
        }
    }
}

/// Joint `j`'s matrix; `j` comes from a span of a [`Skin`](crate::Skin), whose joints are all
/// below the joint count `deform` checked `m` against.
#[inline(always)]
fn joint(m: &[Affine3A], j: u32) -> &Affine3A {
    debug_assert!((j as usize) < m.len());
    // SAFETY: `Skin::new` rejects joints >= joint_count and `Skin::deform` checks
    // `m.len() >= joint_count` before any kernel runs.
    unsafe { m.get_unchecked(j as usize) }
}

/// One-joint vertices, sorted by joint: the joint's matrix stays in registers across its run.
pub(crate) fn rigid<const N: bool>(span: &[Rigid], m: &[Affine3A], out: &mut Out<'_>) {
    #[cfg(target_arch = "x86_64")]
    if crate::fma::has_fma() {
        // SAFETY: the CPU has the features the function is compiled for.
        unsafe { fused::rigid::<N>(span, m, out) };
        return;
    }
    rigid_body::<N, Plain>(span, m, out);
}

#[inline(always)]
fn rigid_body<const N: bool, F: MulAdd>(span: &[Rigid], m: &[Affine3A], out: &mut Out<'_>) {
    let Some(first) = span.first() else { return };
    let mut current = first.j;
    let mut c = Cols::of(joint(m, current));
    for (k, r) in span.iter().enumerate() {
        if r.j != current {
            current = r.j;
            c = Cols::of(joint(m, current));
        }
        let wide = span.get(k + 1).is_some_and(|n| n.v == r.v.wrapping_add(1));
        let p = out.rest_position(r.v);
        let q = F::mul_add(
            c.x,
            Vec3A::splat(p.x),
            F::mul_add(
                c.y,
                Vec3A::splat(p.y),
                F::mul_add(c.z, Vec3A::splat(p.z), c.t),
            ),
        );
        if wide {
            out.set_position_wide(r.v, q);
        } else {
            out.set_position(r.v, q);
        }
        if N {
            let n = out.rest_normal(r.v);
            let q = F::mul_add(
                c.x,
                Vec3A::splat(n.x),
                F::mul_add(c.y, Vec3A::splat(n.y), c.z * Vec3A::splat(n.z)),
            );
            if wide {
                out.set_normal_wide(r.v, q);
            } else {
                out.set_normal(r.v, q);
            }
        }
    }
}

/// Two-joint vertices, run by run: the run's two matrices stay in registers as `base` (the
/// second joint's) and `delta` (first − second), so a vertex costs one multiply-add per column
/// for the blend, then its position and normal — about half the instructions of blending from
/// memory per vertex. With AVX2 + FMA (detected at run time) the multiply-adds are fused.
pub(crate) fn pairs<const N: bool>(
    runs: &[PairRun],
    verts: &[PairVertex],
    m: &[Affine3A],
    out: &mut Out<'_>,
) {
    #[cfg(target_arch = "x86_64")]
    if crate::fma::has_fma() {
        // SAFETY: the CPU has the features the function is compiled for.
        unsafe { fused::pairs::<N>(runs, verts, m, out) };
        return;
    }
    pairs_body::<N, Plain>(runs, verts, m, out);
}

#[inline(always)]
fn pairs_body<const N: bool, F: MulAdd>(
    runs: &[PairRun],
    verts: &[PairVertex],
    m: &[Affine3A],
    out: &mut Out<'_>,
) {
    for r in runs {
        let (a, b) = (joint(m, r.j[0]), joint(m, r.j[1]));
        let base = Cols::of(b);
        let delta = Cols {
            x: a.matrix3.x_axis - b.matrix3.x_axis,
            y: a.matrix3.y_axis - b.matrix3.y_axis,
            z: a.matrix3.z_axis - b.matrix3.z_axis,
            t: a.translation - b.translation,
        };
        let run = &verts[r.start as usize..r.end as usize];
        for (k, pv) in run.iter().enumerate() {
            // The next vertex of the run is the next one in memory: store 16 bytes at once
            // (the spill into its x is overwritten by its own store right after).
            let wide = run.get(k + 1).is_some_and(|n| n.v == pv.v.wrapping_add(1));
            let w = Vec3A::splat(pv.w);
            let x = F::mul_add(delta.x, w, base.x);
            let y = F::mul_add(delta.y, w, base.y);
            let z = F::mul_add(delta.z, w, base.z);
            let t = F::mul_add(delta.t, w, base.t);
            let p = out.rest_position(pv.v);
            let q = F::mul_add(
                x,
                Vec3A::splat(p.x),
                F::mul_add(y, Vec3A::splat(p.y), F::mul_add(z, Vec3A::splat(p.z), t)),
            );
            if wide {
                out.set_position_wide(pv.v, q);
            } else {
                out.set_position(pv.v, q);
            }
            if N {
                let n = out.rest_normal(pv.v);
                let q = F::mul_add(
                    x,
                    Vec3A::splat(n.x),
                    F::mul_add(y, Vec3A::splat(n.y), z * Vec3A::splat(n.z)),
                );
                if wide {
                    out.set_normal_wide(pv.v, q);
                } else {
                    out.set_normal(pv.v, q);
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod fused {
    use glam::Affine3A;

    use super::{pairs_body, rigid_body, Out, PairRun, PairVertex, Rigid};
    use crate::fma::Fused;

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn rigid<const N: bool>(span: &[Rigid], m: &[Affine3A], out: &mut Out<'_>) {
        rigid_body::<N, Fused>(span, m, out);
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn pairs<const N: bool>(
        runs: &[PairRun],
        verts: &[PairVertex],
        m: &[Affine3A],
        out: &mut Out<'_>,
    ) {
        pairs_body::<N, Fused>(runs, verts, m, out);
    }
}

pub(crate) fn quad<const N: bool>(span: &[Quad], m: &[Affine3A], out: &mut Out<'_>) {
    for q in span {
        let mut c = Cols::scaled(joint(m, q.j[0]), q.w[0]);
        c.add_scaled(joint(m, q.j[1]), q.w[1]);
        c.add_scaled(joint(m, q.j[2]), q.w[2]);
        c.add_scaled(joint(m, q.j[3]), q.w[3]);
        c.write::<N>(q.v, out);
    }
}

pub(crate) fn many<const N: bool>(
    span: &[Many],
    pool: &[(u32, f32)],
    m: &[Affine3A],
    out: &mut Out<'_>,
) {
    for s in span {
        let list = &pool[s.start as usize..(s.start + s.len) as usize];
        let mut c = Cols::scaled(joint(m, list[0].0), list[0].1);
        for &(j, w) in &list[1..] {
            c.add_scaled(joint(m, j), w);
        }
        c.write::<N>(s.v, out);
    }
}
