//! A local pose in structure-of-arrays form: eight bones per [`SoaBlock`], one row per
//! component (ozz-animation's `SoaTransform`, eight lanes wide).
//!
//! The hot path of a crowd or an animation-only character — sample clips, blend them, evaluate
//! the hierarchy — works on whole rows: [`sample_soa`](crate::anim::sample_soa) writes them
//! without transposing, [`blend_soa`](crate::anim::blend_soa) blends eight bones per operation
//! and [`local_to_world_soa`](crate::pose::local_to_world_soa) reads them straight into its
//! matrix pass. Every result is bit-identical to the `[Transform]` path on the same input.
//! Stages that work bone by bone (IK, constraints, physics) take a `[Transform]`:
//! [`SoaPose::write_transforms`] and [`SoaPose::copy_from_transforms`] convert.

use glam::{Quat, Vec3};

use crate::Transform;

/// Eight bones' local transforms, one row per component, lane `k` = bone `8·block + k`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(32))]
pub struct SoaBlock {
    /// Translation rows `x, y, z`.
    pub translation: [[f32; 8]; 3],
    /// Rotation rows `x, y, z, w` (unit quaternions).
    pub rotation: [[f32; 8]; 4],
    /// Scale rows `x, y, z`.
    pub scale: [[f32; 8]; 3],
}

impl SoaBlock {
    /// Eight identity transforms.
    pub const IDENTITY: Self = Self {
        translation: [[0.0; 8]; 3],
        rotation: [[0.0; 8], [0.0; 8], [0.0; 8], [1.0; 8]],
        scale: [[1.0; 8]; 3],
    };

    /// The transform in lane `lane`.
    ///
    /// # Panics
    /// If `lane >= 8`.
    #[inline]
    #[must_use]
    pub fn get(&self, lane: usize) -> Transform {
        let (t, r, s) = (&self.translation, &self.rotation, &self.scale);
        Transform {
            translation: Vec3::new(t[0][lane], t[1][lane], t[2][lane]),
            rotation: Quat::from_xyzw(r[0][lane], r[1][lane], r[2][lane], r[3][lane]),
            scale: Vec3::new(s[0][lane], s[1][lane], s[2][lane]),
        }
    }

    /// Writes `t` into lane `lane`.
    ///
    /// # Panics
    /// If `lane >= 8`.
    #[inline]
    pub fn set(&mut self, lane: usize, t: &Transform) {
        self.set_translation(lane, t.translation);
        self.set_rotation(lane, t.rotation);
        self.set_scale(lane, t.scale);
    }

    /// Writes the translation of lane `lane`.
    #[inline]
    pub(crate) fn set_translation(&mut self, lane: usize, v: Vec3) {
        let t = &mut self.translation;
        (t[0][lane], t[1][lane], t[2][lane]) = (v.x, v.y, v.z);
    }

    /// Writes the rotation of lane `lane`.
    #[inline]
    pub(crate) fn set_rotation(&mut self, lane: usize, q: Quat) {
        let r = &mut self.rotation;
        (r[0][lane], r[1][lane], r[2][lane], r[3][lane]) = (q.x, q.y, q.z, q.w);
    }

    /// Writes the scale of lane `lane`.
    #[inline]
    pub(crate) fn set_scale(&mut self, lane: usize, v: Vec3) {
        let s = &mut self.scale;
        (s[0][lane], s[1][lane], s[2][lane]) = (v.x, v.y, v.z);
    }
}

impl Default for SoaBlock {
    fn default() -> Self {
        Self::IDENTITY
    }
}

/// A local pose of `len` bones in [`SoaBlock`]s. The lanes past `len` in the last block hold
/// identity transforms (kernels process whole blocks; identity keeps them finite).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SoaPose {
    blocks: Vec<SoaBlock>,
    len: usize,
}

impl SoaPose {
    /// `len` identity transforms.
    #[must_use]
    pub fn new(len: usize) -> Self {
        Self {
            blocks: vec![SoaBlock::IDENTITY; len.div_ceil(8)],
            len,
        }
    }

    /// The pose `transforms` in SoA form.
    #[must_use]
    pub fn from_transforms(transforms: &[Transform]) -> Self {
        let mut pose = Self::new(transforms.len());
        pose.copy_from_transforms(transforms);
        pose
    }

    /// Number of bones.
    #[inline]
    #[must_use]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// `true` for a pose of no bones.
    #[inline]
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The blocks, `len.div_ceil(8)` of them.
    #[inline]
    #[must_use]
    pub fn blocks(&self) -> &[SoaBlock] {
        &self.blocks
    }

    /// The blocks, mutably. Lanes past [`len`](Self::len) should stay finite (kernels read
    /// them, results there are discarded).
    #[inline]
    pub(crate) fn blocks_mut(&mut self) -> &mut [SoaBlock] {
        &mut self.blocks
    }

    /// The transform of bone `i`.
    ///
    /// # Panics
    /// If `i >= len`.
    #[inline]
    #[must_use]
    pub fn get(&self, i: usize) -> Transform {
        assert!(i < self.len, "bone {i} out of range for {} bones", self.len);
        self.blocks[i / 8].get(i % 8)
    }

    /// Writes the transform of bone `i`.
    ///
    /// # Panics
    /// If `i >= len`.
    #[inline]
    pub fn set(&mut self, i: usize, t: &Transform) {
        assert!(i < self.len, "bone {i} out of range for {} bones", self.len);
        self.blocks[i / 8].set(i % 8, t);
    }

    /// Copies `transforms` in (same length).
    ///
    /// # Panics
    /// If the lengths differ.
    pub(crate) fn copy_from_transforms(&mut self, transforms: &[Transform]) {
        assert_eq!(transforms.len(), self.len, "pose length");
        for (block, chunk) in self.blocks.iter_mut().zip(transforms.chunks(8)) {
            for (lane, t) in chunk.iter().enumerate() {
                block.set(lane, t);
            }
        }
    }

    /// Writes the pose into `out` (same length), e.g. the locals of a
    /// [`RigState`](crate::RigState) before IK.
    ///
    /// # Panics
    /// If the lengths differ.
    pub fn write_transforms(&self, out: &mut [Transform]) {
        assert_eq!(out.len(), self.len, "pose length");
        for (block, chunk) in self.blocks.iter().zip(out.chunks_mut(8)) {
            for (lane, t) in chunk.iter_mut().enumerate() {
                *t = block.get(lane);
            }
        }
    }

    /// The pose as a vector of transforms.
    #[must_use]
    pub fn to_transforms(&self) -> Vec<Transform> {
        let mut out = vec![Transform::IDENTITY; self.len];
        self.write_transforms(&mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pose(n: usize) -> Vec<Transform> {
        (0..n)
            .map(|i| {
                let f = i as f32;
                Transform {
                    translation: Vec3::new(f, -f, 0.5 * f),
                    rotation: Quat::from_rotation_y(0.1 * f),
                    scale: Vec3::new(1.0, 2.0 + f, 3.0),
                }
            })
            .collect()
    }

    #[test]
    fn round_trip_and_padding() {
        for n in [0, 1, 7, 8, 9, 17] {
            let p = pose(n);
            let soa = SoaPose::from_transforms(&p);
            assert_eq!(soa.len(), n);
            assert_eq!(soa.blocks().len(), n.div_ceil(8));
            assert_eq!(soa.to_transforms(), p);
            for (i, t) in p.iter().enumerate() {
                assert_eq!(soa.get(i), *t);
            }
            if let Some(last) = soa.blocks().last() {
                for lane in n % 8..8 {
                    if n % 8 != 0 {
                        assert_eq!(last.get(lane), Transform::IDENTITY);
                    }
                }
            }
        }
    }

    #[test]
    fn set_writes_one_lane() {
        let mut soa = SoaPose::new(10);
        let t = pose(10)[9];
        soa.set(9, &t);
        assert_eq!(soa.get(9), t);
        assert_eq!(soa.get(8), Transform::IDENTITY);
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn get_past_the_end_panics() {
        let _ = SoaPose::new(3).get(3);
    }
}
