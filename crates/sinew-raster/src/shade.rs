//! Fragment shading: the MMD-like lit material and the flat edge colour.

use glam::{Vec2, Vec3, Vec4, Vec4Swizzles};

use crate::raster::{ClipVert, Shade};
use crate::{DrawMaterial, Light, Texture};

/// Per-draw constants of a material under a light.
pub(crate) struct MaterialTerms<'a> {
    /// `ambient + light.ambient * diffuse`: the unlit part.
    base: Vec3,
    /// `diffuse * light.color`: scaled by the lighting ramp.
    lit: Vec3,
    alpha: f32,
    texture: Option<&'a Texture>,
    /// Unit vector toward the light.
    to_light: Vec3,
}

impl<'a> MaterialTerms<'a> {
    /// `textured`: whether the mesh has uvs to look the material's texture up with.
    pub(crate) fn new(m: &DrawMaterial<'a>, light: &Light, to_light: Vec3, textured: bool) -> Self {
        let diffuse = sanitize4(m.diffuse);
        let rgb = diffuse.xyz();
        MaterialTerms {
            base: sanitize3(m.ambient) + sanitize3(light.ambient) * rgb,
            lit: rgb * sanitize3(light.color),
            alpha: diffuse.w.clamp(0.0, 1.0),
            texture: m.texture.filter(|_| textured),
            to_light,
        }
    }

    /// Whether anything this material draws can be visible.
    pub(crate) fn visible(&self) -> bool {
        self.alpha >= 1.0 / 255.0
    }
}

fn sanitize3(v: Vec3) -> Vec3 {
    if v.is_finite() {
        v
    } else {
        Vec3::ZERO
    }
}

fn sanitize4(v: Vec4) -> Vec4 {
    if v.is_finite() {
        v
    } else {
        Vec4::ZERO
    }
}

/// The light ramp: half-Lambert blended with a soft two-tone step, so the terminator reads
/// like MMD's toon shading without a toon texture. `0` facing away, `1` facing the light.
#[inline]
pub(crate) fn ramp(n_dot_l: f32) -> f32 {
    let h = n_dot_l * 0.5 + 0.5;
    const LO: f32 = 0.38;
    const INV_WIDTH: f32 = 1.0 / (0.62 - LO);
    let t = ((h - LO) * INV_WIDTH).clamp(0.0, 1.0);
    let step = t * t * (3.0 - 2.0 * t);
    0.35 * h + 0.65 * step
}

/// One triangle of a lit material, attributes as `v0 + b1 (v1 - v0) + b2 (v2 - v0)`.
pub(crate) struct Lit<'m, 'a> {
    terms: &'m MaterialTerms<'a>,
    n0: Vec3,
    dn1: Vec3,
    dn2: Vec3,
    uv0: Vec2,
    duv1: Vec2,
    duv2: Vec2,
    /// Used where the interpolated normal vanishes (and for meshes without normals).
    flat: Vec3,
    smooth: bool,
}

impl<'m, 'a> Lit<'m, 'a> {
    /// `v` in scan order; `flip` negates the vertex normals (back faces of double-sided
    /// materials); `flat` is the face normal, already facing the viewer.
    pub(crate) fn new(
        terms: &'m MaterialTerms<'a>,
        v: [&ClipVert; 3],
        smooth: bool,
        flip: bool,
        flat: Vec3,
    ) -> Self {
        let s = if flip { -1.0 } else { 1.0 };
        Lit {
            terms,
            n0: v[0].normal * s,
            dn1: (v[1].normal - v[0].normal) * s,
            dn2: (v[2].normal - v[0].normal) * s,
            uv0: v[0].uv,
            duv1: v[1].uv - v[0].uv,
            duv2: v[2].uv - v[0].uv,
            flat,
            smooth,
        }
    }
}

impl Shade for Lit<'_, '_> {
    #[inline]
    fn shade(&self, b1: f32, b2: f32) -> Vec4 {
        let n = if self.smooth {
            let n = self.n0 + self.dn1 * b1 + self.dn2 * b2;
            let len2 = n.length_squared();
            if len2 > 1e-24 {
                n * len2.sqrt().recip()
            } else {
                self.flat
            }
        } else {
            self.flat
        };
        let t = self.terms;
        let k = ramp(n.dot(t.to_light));
        let rgb = (t.base + t.lit * k).clamp(Vec3::ZERO, Vec3::ONE);
        let c = rgb.extend(t.alpha);
        match t.texture {
            Some(tex) => c * tex.sample(self.uv0 + self.duv1 * b1 + self.duv2 * b2),
            None => c,
        }
    }
}

/// A single colour (MMD edges).
pub(crate) struct Flat(pub Vec4);

impl Shade for Flat {
    #[inline]
    fn shade(&self, _: f32, _: f32) -> Vec4 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ramp_is_monotonic_from_zero_to_one() {
        assert!(ramp(-1.0).abs() < 1e-6);
        assert!((ramp(1.0) - 1.0).abs() < 1e-6);
        let mut last = -1.0;
        for i in 0..=100 {
            let r = ramp(i as f32 / 50.0 - 1.0);
            assert!(r >= last);
            last = r;
        }
    }
}
