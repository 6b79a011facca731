//! Weighted multi-layer blending of local poses (ozz's `BlendingJob`).

use glam::{Quat, Vec3, Vec4};

use crate::pose::{LocalPose, SoaPose};
use crate::Transform;

/// One normal layer: a local pose, a weight, optional per-bone weights. `P` is the pose form:
/// a slice of transforms for [`blend`], a [`SoaPose`] for [`blend_soa`].
#[derive(Debug)]
pub struct BlendLayer<'a, P: ?Sized = [Transform]> {
    /// Local pose, one transform per bone.
    pub pose: &'a P,
    /// Layer weight; values ≤ 0 contribute nothing.
    pub weight: f32,
    /// Optional per-bone weights multiplied with `weight` (e.g. 1 on the upper body, 0
    /// elsewhere); one entry per bone, values ≤ 0 contribute nothing.
    pub mask: Option<&'a [f32]>,
}

impl<P: ?Sized> Clone for BlendLayer<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P: ?Sized> Copy for BlendLayer<'_, P> {}

impl<'a> BlendLayer<'a> {
    /// A layer without a mask.
    #[must_use]
    pub fn new(pose: &'a [Transform], weight: f32) -> Self {
        Self {
            pose,
            weight,
            mask: None,
        }
    }
}

impl<'a> BlendLayer<'a, SoaPose> {
    /// A layer of a structure-of-arrays pose, without a mask (for [`blend_soa`]).
    #[must_use]
    pub fn new_soa(pose: &'a SoaPose, weight: f32) -> Self {
        Self {
            pose,
            weight,
            mask: None,
        }
    }
}

impl<'a, P: ?Sized> BlendLayer<'a, P> {
    /// The same layer with per-bone weights.
    #[must_use]
    pub fn with_mask(mut self, mask: &'a [f32]) -> Self {
        self.mask = Some(mask);
        self
    }
}

/// What an additive layer's pose is a difference from.
#[derive(Debug)]
pub enum AdditiveReference<'a, P: ?Sized = [Transform]> {
    /// The skeleton's rest pose (the `rest` pose given to [`blend`]).
    Rest,
    /// A reference pose (e.g. the first frame of the additive clip), one transform per bone.
    Pose(&'a P),
}

// Not derived: the derive would require `P: Default`.
#[allow(clippy::derivable_impls)]
impl<P: ?Sized> Default for AdditiveReference<'_, P> {
    fn default() -> Self {
        Self::Rest
    }
}

impl<P: ?Sized> Clone for AdditiveReference<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P: ?Sized> Copy for AdditiveReference<'_, P> {}

/// One additive layer, applied on top of the normalised result of the normal layers.
///
/// Per bone, with reference `r` and pose `p`, the delta is `Δt = p.t − r.t`,
/// `Δr = r.r⁻¹ · p.r` and `Δs = p.s / r.s`; it is applied with weight `w` as
/// `t += w·Δt`, `r = r · nlerp(identity, Δr, w)`, `s *= 1 + w·(Δs − 1)`. So adding
/// `(p relative to r)` at weight 1 onto `r` gives back `p`.
#[derive(Debug)]
pub struct AdditiveLayer<'a, P: ?Sized = [Transform]> {
    /// The pose the delta is taken to.
    pub pose: &'a P,
    /// The pose the delta is taken from.
    pub reference: AdditiveReference<'a, P>,
    /// Layer weight, usually in `[0, 1]` (negative subtracts translation).
    pub weight: f32,
    /// Optional per-bone weights multiplied with `weight`.
    pub mask: Option<&'a [f32]>,
}

impl<P: ?Sized> Clone for AdditiveLayer<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P: ?Sized> Copy for AdditiveLayer<'_, P> {}

impl<'a> AdditiveLayer<'a> {
    /// An additive layer relative to the rest pose, without a mask.
    #[must_use]
    pub fn new(pose: &'a [Transform], weight: f32) -> Self {
        Self {
            pose,
            reference: AdditiveReference::Rest,
            weight,
            mask: None,
        }
    }
}

impl<'a> AdditiveLayer<'a, SoaPose> {
    /// An additive layer of a structure-of-arrays pose relative to the rest pose, without a
    /// mask (for [`blend_soa`]).
    #[must_use]
    pub fn new_soa(pose: &'a SoaPose, weight: f32) -> Self {
        Self {
            pose,
            reference: AdditiveReference::Rest,
            weight,
            mask: None,
        }
    }
}

impl<'a, P: ?Sized> AdditiveLayer<'a, P> {
    /// The same layer relative to `reference`.
    #[must_use]
    pub fn relative_to(mut self, reference: &'a P) -> Self {
        self.reference = AdditiveReference::Pose(reference);
        self
    }

    /// The same layer with per-bone weights.
    #[must_use]
    pub fn with_mask(mut self, mask: &'a [f32]) -> Self {
        self.mask = Some(mask);
        self
    }
}

/// Blend parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlendParams {
    /// Minimum total weight per bone. Below it the rest pose is blended in with weight
    /// `threshold − total`, so a bone no layer drives falls back to rest, and does so
    /// continuously. Default 0.1 (ozz's default).
    pub threshold: f32,
}

impl Default for BlendParams {
    fn default() -> Self {
        Self { threshold: 0.1 }
    }
}

#[inline(always)]
fn align(acc: Vec4, q: Vec4) -> Vec4 {
    if acc.dot(q) < 0.0 {
        -q
    } else {
        q
    }
}

/// Blends `layers` (weights normalised per bone), falls back towards `rest` where a bone's
/// total weight is below `params.threshold`, then applies `additive` layers in order, writing
/// the local pose `out`.
///
/// Translations and scales are weighted averages; rotations are the normalised weighted sum
/// of sign-aligned quaternions (nlerp generalised to N layers). Needs no scratch: the loop runs
/// bone by bone over all layers, so nothing is accumulated outside registers; nothing allocates.
///
/// # Panics
/// If `rest`, any layer pose or mask, or an additive reference differs in length from `out`.
pub fn blend(
    rest: &[Transform],
    layers: &[BlendLayer<'_>],
    additive: &[AdditiveLayer<'_>],
    params: &BlendParams,
    out: &mut [Transform],
) {
    blend_into(rest, layers, additive, params, out);
}

/// [`blend`] on structure-of-arrays poses: the same rules and bit-identical results; the
/// common case (two unmasked layers, no rest fallback) blends eight bones per operation
/// without transposes.
///
/// # Panics
/// If `rest`, any layer pose or mask, or an additive reference differs in length from `out`.
pub fn blend_soa(
    rest: &SoaPose,
    layers: &[BlendLayer<'_, SoaPose>],
    additive: &[AdditiveLayer<'_, SoaPose>],
    params: &BlendParams,
    out: &mut SoaPose,
) {
    blend_into(rest, layers, additive, params, out);
}

/// A local pose blending reads and writes, with its two-layer kernel.
trait PoseBuf: LocalPose {
    /// Two unmasked layers, weights already normalised.
    fn blend_two(a: &Self, b: &Self, wa: f32, wb: f32, out: &mut Self);
}

impl PoseBuf for [Transform] {
    fn blend_two(a: &Self, b: &Self, wa: f32, wb: f32, out: &mut Self) {
        blend_two(a, b, wa, wb, out);
    }
}

impl PoseBuf for SoaPose {
    fn blend_two(a: &Self, b: &Self, wa: f32, wb: f32, out: &mut Self) {
        blend_two_soa(a, b, wa, wb, out);
    }
}

fn blend_into<P: PoseBuf + ?Sized>(
    rest: &P,
    layers: &[BlendLayer<'_, P>],
    additive: &[AdditiveLayer<'_, P>],
    params: &BlendParams,
    out: &mut P,
) {
    let n = out.bone_count();
    assert_eq!(rest.bone_count(), n, "rest pose length");
    for l in layers {
        assert_eq!(l.pose.bone_count(), n, "layer pose length");
        assert!(l.mask.is_none_or(|m| m.len() == n), "layer mask length");
    }
    for l in additive {
        assert_eq!(l.pose.bone_count(), n, "additive pose length");
        assert!(l.mask.is_none_or(|m| m.len() == n), "additive mask length");
        if let AdditiveReference::Pose(r) = l.reference {
            assert_eq!(r.bone_count(), n, "additive reference length");
        }
    }
    let threshold = params.threshold.max(0.0);
    let masked = layers.iter().any(|l| l.mask.is_some());
    if !masked {
        let total: f32 = layers.iter().map(|l| l.weight.max(0.0)).sum();
        let rest_weight = (threshold - total).max(0.0);
        let norm = total + rest_weight;
        if norm <= 0.0 || !norm.is_finite() {
            out.copy_from(rest);
        } else if layers.len() == 2 && rest_weight == 0.0 {
            P::blend_two(
                layers[0].pose,
                layers[1].pose,
                layers[0].weight.max(0.0) / norm,
                layers[1].weight.max(0.0) / norm,
                out,
            );
        } else {
            blend_general(rest, layers, threshold, out);
        }
    } else {
        blend_general(rest, layers, threshold, out);
    }
    for l in additive {
        apply_additive(rest, l, out);
    }
}

/// Two unmasked layers with weights already normalised: one pass, no divisions per bone except
/// the rotation normalisation, done four bones at a time (one SIMD square root and division);
/// with AVX2, eight bones at a time (see `blend_avx2`), bit-identical.
fn blend_two(a: &[Transform], b: &[Transform], wa: f32, wb: f32, out: &mut [Transform]) {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::math::lanes::TRANSFORM_ROWS && std::is_x86_feature_detected!("avx2") {
            let n = out.bone_count() - out.bone_count() % 8;
            // SAFETY: AVX2 is available (checked just above).
            unsafe { super::blend_avx2::blend_two(&a[..n], &b[..n], wa, wb, &mut out[..n]) };
            blend_two_portable(&a[n..], &b[n..], wa, wb, &mut out[n..]);
            return;
        }
    }
    blend_two_portable(a, b, wa, wb, out);
}

/// [`blend_two`] on SoA poses: eight bones per step with AVX2, one lane at a time otherwise;
/// the same operations per bone as `blend_two_portable`.
fn blend_two_soa(a: &SoaPose, b: &SoaPose, wa: f32, wb: f32, out: &mut SoaPose) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is available (checked just above).
            unsafe {
                super::blend_avx2::blend_two_soa(a.blocks(), b.blocks(), wa, wb, out.blocks_mut());
            }
            return;
        }
    }
    for i in 0..out.bone_count() {
        let (pa, pb) = (a.get(i), b.get(i));
        let qa = Vec4::from(pa.rotation);
        let qb = Vec4::from(pb.rotation);
        let wq = if qa.dot(qb) < 0.0 { -wb } else { wb };
        let q = qa * wa + qb * wq;
        out.set(
            i,
            &Transform {
                translation: pa.translation * wa + pb.translation * wb,
                rotation: Quat::from_vec4(q * q.length_squared().sqrt().recip()),
                scale: pa.scale * wa + pb.scale * wb,
            },
        );
    }
}

fn blend_two_portable(a: &[Transform], b: &[Transform], wa: f32, wb: f32, out: &mut [Transform]) {
    #[inline(always)]
    fn one(pa: &Transform, pb: &Transform, wa: f32, wb: f32) -> (Transform, f32) {
        let qa = Vec4::from(pa.rotation);
        let qb = Vec4::from(pb.rotation);
        let wq = if qa.dot(qb) < 0.0 { -wb } else { wb };
        let q = qa * wa + qb * wq;
        let t = Transform {
            translation: pa.translation * wa + pb.translation * wb,
            rotation: Quat::from_vec4(q),
            scale: pa.scale * wa + pb.scale * wb,
        };
        (t, q.length_squared())
    }
    let mut o4 = out.chunks_exact_mut(4);
    let mut a4 = a.chunks_exact(4);
    let mut b4 = b.chunks_exact(4);
    for ((o, pa), pb) in (&mut o4).zip(&mut a4).zip(&mut b4) {
        let r = [
            one(&pa[0], &pb[0], wa, wb),
            one(&pa[1], &pb[1], wa, wb),
            one(&pa[2], &pb[2], wa, wb),
            one(&pa[3], &pb[3], wa, wb),
        ];
        let len2 = [r[0].1, r[1].1, r[2].1, r[3].1];
        let inv = Vec4::from_array(len2.map(f32::sqrt)).recip().to_array();
        for ((o, (t, _)), k) in o.iter_mut().zip(r).zip(inv) {
            *o = Transform {
                rotation: Quat::from_vec4(Vec4::from(t.rotation) * k),
                ..t
            };
        }
    }
    for ((o, pa), pb) in o4
        .into_remainder()
        .iter_mut()
        .zip(a4.remainder())
        .zip(b4.remainder())
    {
        let (t, len2) = one(pa, pb, wa, wb);
        *o = Transform {
            rotation: Quat::from_vec4(Vec4::from(t.rotation) * len2.sqrt().recip()),
            ..t
        };
    }
}

fn blend_general<P: PoseBuf + ?Sized>(
    rest: &P,
    layers: &[BlendLayer<'_, P>],
    threshold: f32,
    out: &mut P,
) {
    for i in 0..out.bone_count() {
        let r = &rest.get(i);
        let mut t = Vec3::ZERO;
        let mut q = Vec4::ZERO;
        let mut s = Vec3::ZERO;
        let mut total = 0.0f32;
        for l in layers {
            let w = l.weight.max(0.0) * l.mask.map_or(1.0, |m| m[i].max(0.0));
            if w > 0.0 {
                let p = &l.pose.get(i);
                t += p.translation * w;
                q += align(q, Vec4::from(p.rotation)) * w;
                s += p.scale * w;
                total += w;
            }
        }
        let rest_weight = (threshold - total).max(0.0);
        if rest_weight > 0.0 {
            t += r.translation * rest_weight;
            q += align(q, Vec4::from(r.rotation)) * rest_weight;
            s += r.scale * rest_weight;
            total += rest_weight;
        }
        let len2 = q.length_squared();
        let o = if total > 0.0 && total.is_finite() && len2 > 1e-20 {
            let inv = total.recip();
            Transform {
                translation: t * inv,
                rotation: Quat::from_vec4(q * len2.sqrt().recip()),
                scale: s * inv,
            }
        } else {
            *r
        };
        out.set(i, &o);
    }
}

fn apply_additive<P: PoseBuf + ?Sized>(rest: &P, layer: &AdditiveLayer<'_, P>, out: &mut P) {
    let reference = match layer.reference {
        AdditiveReference::Rest => rest,
        AdditiveReference::Pose(r) => r,
    };
    for i in 0..out.bone_count() {
        let w = layer.weight * layer.mask.map_or(1.0, |m| m[i]);
        if w == 0.0 {
            continue;
        }
        let (p, r, mut o) = (layer.pose.get(i), reference.get(i), out.get(i));
        o.translation += (p.translation - r.translation) * w;
        let mut d = Vec4::from(r.rotation.conjugate() * p.rotation);
        if d.w < 0.0 {
            d = -d;
        }
        let dw = Vec4::W + (d - Vec4::W) * w;
        let dq = Quat::from_vec4(dw * dw.length_recip());
        o.rotation = (o.rotation * dq).normalize();
        let ratio = Vec3::select(r.scale.cmpne(Vec3::ZERO), p.scale / r.scale, Vec3::ONE);
        o.scale *= Vec3::ONE + (ratio - Vec3::ONE) * w;
        out.set(i, &o);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(x: f32, angle: f32) -> Transform {
        Transform::from_translation_rotation(Vec3::new(x, 0.0, 0.0), Quat::from_rotation_z(angle))
    }

    #[test]
    fn two_layers_normalise() {
        let a = [t(0.0, 0.0)];
        let b = [t(2.0, 1.0)];
        let rest = [Transform::IDENTITY];
        let mut out = [Transform::IDENTITY];
        // Weights 1 and 3 normalise to 0.25 / 0.75.
        blend(
            &rest,
            &[BlendLayer::new(&a, 1.0), BlendLayer::new(&b, 3.0)],
            &[],
            &BlendParams::default(),
            &mut out,
        );
        assert!((out[0].translation.x - 1.5).abs() < 1e-6);
        let want = Quat::IDENTITY
            .lerp(Quat::from_rotation_z(1.0), 0.75)
            .normalize();
        assert!(out[0].rotation.abs_diff_eq(want, 1e-6));
    }

    #[test]
    fn general_path_matches_two_layer_path() {
        let a = [t(0.0, 0.3), t(1.0, -2.0)];
        let b = [t(2.0, 1.0), t(-1.0, 2.9)];
        let rest = [Transform::IDENTITY; 2];
        let ones = [1.0, 1.0];
        let mut fast = [Transform::IDENTITY; 2];
        let mut slow = [Transform::IDENTITY; 2];
        let p = BlendParams::default();
        blend(
            &rest,
            &[BlendLayer::new(&a, 0.4), BlendLayer::new(&b, 0.6)],
            &[],
            &p,
            &mut fast,
        );
        blend(
            &rest,
            &[
                BlendLayer::new(&a, 0.4).with_mask(&ones),
                BlendLayer::new(&b, 0.6),
            ],
            &[],
            &p,
            &mut slow,
        );
        for (f, s) in fast.iter().zip(&slow) {
            assert!(f.abs_diff_eq(s, 1e-5));
        }
    }

    #[test]
    fn simd_two_layer_blend_matches_portable_exactly() {
        let pose = |seed: f32| -> Vec<Transform> {
            (0..21)
                .map(|i| {
                    let f = i as f32 + seed;
                    Transform {
                        translation: Vec3::new(f.sin(), 0.5 * f, -f.cos()),
                        rotation: Quat::from_euler(glam::EulerRot::XYZ, f, 2.0 * f + seed, -f),
                        scale: Vec3::new(1.0 + 0.1 * f, 0.7, 1.3),
                    }
                })
                .collect()
        };
        let (a, b) = (pose(0.0), pose(2.5));
        let mut simd = vec![Transform::IDENTITY; 21];
        let mut portable = simd.clone();
        blend_two(&a, &b, 0.35, 0.65, &mut simd);
        blend_two_portable(&a, &b, 0.35, 0.65, &mut portable);
        assert_eq!(simd, portable);
    }
}
