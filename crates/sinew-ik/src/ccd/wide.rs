//! `W` independent `f32` lanes as plain arrays ([`Wide`]), with the vectors and quaternions
//! the CCD step reads ([`V3`], [`Q4`]) laid out one component per array (structure of
//! arrays). Every operation is a loop over the lanes, always inlined, so the compiler turns
//! each into one or two SIMD instructions for the target it builds the caller for (AVX2 in
//! [`CcdBatch`](super::CcdBatch)'s dispatched build).
//!
//! The vector and quaternion operations compute each lane with the IEEE operations glam 0.30
//! uses on x86-64 (SSE2), in its order — `dot = (x·x' + y·y') + z·z'`, its quaternion product's
//! grouping, `normalize = v / √(v·v)` — so a lane gives the bits the scalar CCD gives.

use core::ops::{Add, Div, Mul, Neg, Sub};

use glam::{Quat, Vec3A};

/// `W` lanes of `f32`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Wide<const W: usize>(pub(crate) [f32; W]);

/// `W` lanes of a condition (all bits set: true).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mask<const W: usize>(pub(crate) [u32; W]);

#[inline(always)]
fn map<const W: usize, T: Copy, U: Copy + Default>(a: [T; W], f: impl Fn(T) -> U) -> [U; W] {
    let mut out = [U::default(); W];
    for i in 0..W {
        out[i] = f(a[i]);
    }
    out
}

#[inline(always)]
fn zip<const W: usize, T: Copy, U: Copy + Default>(
    a: [T; W],
    b: [T; W],
    f: impl Fn(T, T) -> U,
) -> [U; W] {
    let mut out = [U::default(); W];
    for i in 0..W {
        out[i] = f(a[i], b[i]);
    }
    out
}

#[inline(always)]
fn truth(b: bool) -> u32 {
    if b {
        u32::MAX
    } else {
        0
    }
}

impl<const W: usize> Wide<W> {
    #[inline(always)]
    pub(crate) fn splat(v: f32) -> Self {
        Self([v; W])
    }
    #[inline(always)]
    pub(crate) fn sqrt(self) -> Self {
        Self(map(self.0, f32::sqrt))
    }
    #[inline(always)]
    pub(crate) fn abs(self) -> Self {
        Self(map(self.0, f32::abs))
    }
    #[inline(always)]
    pub(crate) fn lt(self, o: Self) -> Mask<W> {
        Mask(zip(self.0, o.0, |a, b| truth(a < b)))
    }
    #[inline(always)]
    pub(crate) fn le(self, o: Self) -> Mask<W> {
        Mask(zip(self.0, o.0, |a, b| truth(a <= b)))
    }
    #[inline(always)]
    pub(crate) fn gt(self, o: Self) -> Mask<W> {
        Mask(zip(self.0, o.0, |a, b| truth(a > b)))
    }
    #[inline(always)]
    pub(crate) fn ge(self, o: Self) -> Mask<W> {
        Mask(zip(self.0, o.0, |a, b| truth(a >= b)))
    }
    #[inline(always)]
    pub(crate) fn eq(self, o: Self) -> Mask<W> {
        Mask(zip(self.0, o.0, |a, b| truth(a == b)))
    }
    /// `f32::clamp` per lane (NaN stays NaN).
    #[inline(always)]
    pub(crate) fn clamp(self, lo: f32, hi: f32) -> Self {
        let (lo, hi) = (Self::splat(lo), Self::splat(hi));
        let x = self.lt(lo).select(lo, self);
        x.gt(hi).select(hi, x)
    }
    /// `f32::copysign` per lane.
    #[inline(always)]
    pub(crate) fn copysign(self, sign: Self) -> Self {
        Self(zip(self.0, sign.0, f32::copysign))
    }
    /// Finite (not NaN, not ±∞).
    #[inline(always)]
    pub(crate) fn finite(self) -> Mask<W> {
        self.abs().lt(Self::splat(f32::INFINITY))
    }
}

impl<const W: usize> Mask<W> {
    #[inline(always)]
    pub(crate) fn splat(b: bool) -> Self {
        Self([truth(b); W])
    }
    #[inline(always)]
    pub(crate) fn from_fn(f: impl Fn(usize) -> bool) -> Self {
        let mut out = [0; W];
        for (i, o) in out.iter_mut().enumerate() {
            *o = truth(f(i));
        }
        Self(out)
    }
    #[inline(always)]
    pub(crate) fn and(self, o: Self) -> Self {
        Self(zip(self.0, o.0, |a, b| a & b))
    }
    #[inline(always)]
    pub(crate) fn not(self) -> Self {
        Self(map(self.0, |a| !a))
    }
    #[inline(always)]
    pub(crate) fn any(self) -> bool {
        self.0.iter().fold(0, |a, &b| a | b) != 0
    }
    #[inline(always)]
    pub(crate) fn lane(self, i: usize) -> bool {
        self.0[i] != 0
    }
    /// `a` where true, else `b`.
    #[inline(always)]
    pub(crate) fn select(self, a: Wide<W>, b: Wide<W>) -> Wide<W> {
        let mut out = [0.0; W];
        for (i, (o, m)) in out.iter_mut().zip(self.0).enumerate() {
            *o = f32::from_bits((a.0[i].to_bits() & m) | (b.0[i].to_bits() & !m));
        }
        Wide(out)
    }
    #[inline(always)]
    pub(crate) fn select3(self, a: V3<W>, b: V3<W>) -> V3<W> {
        V3 {
            x: self.select(a.x, b.x),
            y: self.select(a.y, b.y),
            z: self.select(a.z, b.z),
        }
    }
    #[inline(always)]
    pub(crate) fn select4(self, a: Q4<W>, b: Q4<W>) -> Q4<W> {
        Q4 {
            x: self.select(a.x, b.x),
            y: self.select(a.y, b.y),
            z: self.select(a.z, b.z),
            w: self.select(a.w, b.w),
        }
    }
}

macro_rules! lanewise {
    ($trait:ident, $f:ident, $op:tt) => {
        impl<const W: usize> $trait for Wide<W> {
            type Output = Self;
            #[inline(always)]
            fn $f(self, o: Self) -> Self {
                Self(zip(self.0, o.0, |a, b| a $op b))
            }
        }
        impl<const W: usize> $trait<f32> for Wide<W> {
            type Output = Self;
            #[inline(always)]
            fn $f(self, o: f32) -> Self {
                Self(map(self.0, |a| a $op o))
            }
        }
    };
}
lanewise!(Add, add, +);
lanewise!(Sub, sub, -);
lanewise!(Mul, mul, *);
lanewise!(Div, div, /);

impl<const W: usize> Neg for Wide<W> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Self(map(self.0, |a| -a))
    }
}

/// `W` lanes of a 3-vector.
#[derive(Clone, Copy, Debug)]
pub(crate) struct V3<const W: usize> {
    pub(crate) x: Wide<W>,
    pub(crate) y: Wide<W>,
    pub(crate) z: Wide<W>,
}

impl<const W: usize> V3<W> {
    pub(crate) const ZERO: Self = Self {
        x: Wide([0.0; W]),
        y: Wide([0.0; W]),
        z: Wide([0.0; W]),
    };
    #[cfg(test)]
    pub(crate) fn lane(&self, i: usize) -> Vec3A {
        Vec3A::new(self.x.0[i], self.y.0[i], self.z.0[i])
    }
    #[inline(always)]
    pub(crate) fn set_lane(&mut self, i: usize, v: Vec3A) {
        (self.x.0[i], self.y.0[i], self.z.0[i]) = (v.x, v.y, v.z);
    }
    #[inline(always)]
    pub(crate) fn dot(self, o: Self) -> Wide<W> {
        (self.x * o.x + self.y * o.y) + self.z * o.z
    }
    #[inline(always)]
    pub(crate) fn cross(self, o: Self) -> Self {
        Self {
            x: self.y * o.z - o.y * self.z,
            y: self.z * o.x - o.z * self.x,
            z: self.x * o.y - o.x * self.y,
        }
    }
    #[inline(always)]
    pub(crate) fn scale(self, s: Wide<W>) -> Self {
        Self {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
        }
    }
    #[inline(always)]
    pub(crate) fn div(self, s: Wide<W>) -> Self {
        Self {
            x: self.x / s,
            y: self.y / s,
            z: self.z / s,
        }
    }
    /// glam's `normalize`: `v / √(v·v)`.
    #[inline(always)]
    pub(crate) fn normalize(self) -> Self {
        self.div(self.dot(self).sqrt())
    }
    #[inline(always)]
    pub(crate) fn length(self) -> Wide<W> {
        self.dot(self).sqrt()
    }
}

impl<const W: usize> Add for V3<W> {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
}

impl<const W: usize> Sub for V3<W> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Self {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

/// `W` lanes of a quaternion.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Q4<const W: usize> {
    pub(crate) x: Wide<W>,
    pub(crate) y: Wide<W>,
    pub(crate) z: Wide<W>,
    pub(crate) w: Wide<W>,
}

impl<const W: usize> Q4<W> {
    pub(crate) const IDENTITY: Self = Self {
        x: Wide([0.0; W]),
        y: Wide([0.0; W]),
        z: Wide([0.0; W]),
        w: Wide([1.0; W]),
    };
    #[inline(always)]
    pub(crate) fn lane(&self, i: usize) -> Quat {
        Quat::from_xyzw(self.x.0[i], self.y.0[i], self.z.0[i], self.w.0[i])
    }
    #[inline(always)]
    pub(crate) fn set_lane(&mut self, i: usize, q: Quat) {
        (self.x.0[i], self.y.0[i], self.z.0[i], self.w.0[i]) = (q.x, q.y, q.z, q.w);
    }
    #[inline(always)]
    pub(crate) fn vector(self) -> V3<W> {
        V3 {
            x: self.x,
            y: self.y,
            z: self.z,
        }
    }
    #[inline(always)]
    pub(crate) fn conjugate(self) -> Self {
        Self {
            x: -self.x,
            y: -self.y,
            z: -self.z,
            w: self.w,
        }
    }
    /// glam's SSE2 quaternion product (`(A + B) + (C + D)` per component).
    #[inline(always)]
    pub(crate) fn mul(self, r: Self) -> Self {
        let l = self;
        Self {
            x: (l.w * r.x + l.x * r.w) + (l.y * r.z - l.z * r.y),
            y: (l.w * r.y - l.x * r.z) + (l.y * r.w + l.z * r.x),
            z: (l.w * r.z + l.x * r.y) + (l.z * r.w - l.y * r.x),
            // `(−a) + (−b)` as `−a − b`, not `−(a + b)`: the sign of a zero result differs.
            w: (l.w * r.w - l.x * r.x) + (-(l.y * r.y) - l.z * r.z),
        }
    }
    /// glam's SSE2 `Quat * Vec3A`.
    #[inline(always)]
    pub(crate) fn rotate(self, v: V3<W>) -> V3<W> {
        let b = self.vector();
        let b2 = b.dot(b);
        let w = self.w;
        let first = v.scale(w * w - b2) + b.scale(v.dot(b) * 2.0);
        first + b.cross(v).scale(w * 2.0)
    }
    /// The entries `(column, row)` of the rotation matrix (glam's `Mat3::from_quat`).
    #[inline(always)]
    pub(crate) fn matrix_entry(self, (c, r): (usize, usize)) -> Wide<W> {
        let (x2, y2, z2) = (self.x + self.x, self.y + self.y, self.z + self.z);
        let one = Wide::splat(1.0);
        match (c, r) {
            (0, 0) => one - (self.y * y2 + self.z * z2),
            (0, 1) => self.x * y2 + self.w * z2,
            (0, 2) => self.x * z2 - self.w * y2,
            (1, 0) => self.x * y2 - self.w * z2,
            (1, 1) => one - (self.x * x2 + self.z * z2),
            (1, 2) => self.y * z2 + self.w * x2,
            (2, 0) => self.x * z2 + self.w * y2,
            (2, 1) => self.y * z2 - self.w * x2,
            _ => one - (self.x * x2 + self.y * y2),
        }
    }
}

#[cfg(test)]
mod tests {
    //! Each lane's operation against glam's, bit for bit.

    use glam::{Mat3, Quat, Vec3A};

    use super::{Q4, V3};
    use crate::test_rng::Rng;

    fn bits3(v: Vec3A) -> [u32; 3] {
        v.to_array().map(f32::to_bits)
    }

    fn bits4(q: Quat) -> [u32; 4] {
        q.to_array().map(f32::to_bits)
    }

    #[test]
    fn lanes_match_glam() {
        let mut rng = Rng(0x51de_5eed);
        for _ in 0..500 {
            let (mut qa, mut qb) = (Q4::<4>::IDENTITY, Q4::<4>::IDENTITY);
            let (mut va, mut vb) = (V3::<4>::ZERO, V3::<4>::ZERO);
            let mut inputs = Vec::new();
            for l in 0..4 {
                let (a, b) = (rng.quat(), rng.quat());
                let (u, v) = (Vec3A::from(rng.vec(3.0)), Vec3A::from(rng.vec(3.0)));
                qa.set_lane(l, a);
                qb.set_lane(l, b);
                va.set_lane(l, u);
                vb.set_lane(l, v);
                inputs.push((a, b, u, v));
            }
            let (product, rotated, cross) = (qa.mul(qb), qa.rotate(va), va.cross(vb));
            let (dot, normal, conj) = (va.dot(vb), va.normalize(), qa.conjugate());
            for (l, &(a, b, u, v)) in inputs.iter().enumerate() {
                assert_eq!(bits4(product.lane(l)), bits4(a * b));
                assert_eq!(bits3(rotated.lane(l)), bits3(a * u));
                assert_eq!(bits3(cross.lane(l)), bits3(u.cross(v)));
                assert_eq!(dot.0[l].to_bits(), u.dot(v).to_bits());
                assert_eq!(bits3(normal.lane(l)), bits3(u.normalize()));
                assert_eq!(bits4(conj.lane(l)), bits4(a.conjugate()));
                let m = Mat3::from_quat(a);
                for c in 0..3 {
                    for r in 0..3 {
                        let e = qa.matrix_entry((c, r)).0[l];
                        assert_eq!(e.to_bits(), m.col(c)[r].to_bits());
                    }
                }
            }
        }
    }
}
