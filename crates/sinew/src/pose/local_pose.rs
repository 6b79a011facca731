//! The two forms of a local pose — a slice of [`Transform`]s and a [`SoaPose`] — behind one
//! crate-internal trait, so the stages that serve both (sampling, blending) are written once.

use glam::{Quat, Vec3};

use super::SoaPose;
use crate::Transform;

/// Per-bone access to a local pose, whatever its layout.
pub(crate) trait LocalPose {
    /// Number of bones.
    fn bone_count(&self) -> usize;
    /// The transform of bone `i`.
    fn get(&self, i: usize) -> Transform;
    /// Writes the transform of bone `i`.
    fn set(&mut self, i: usize, t: &Transform);
    /// Writes the translation of bone `i`.
    fn set_translation(&mut self, i: usize, v: Vec3);
    /// Writes the rotation of bone `i`.
    fn set_rotation(&mut self, i: usize, q: Quat);
    /// Writes the scale of bone `i`.
    fn set_scale(&mut self, i: usize, v: Vec3);
    /// Copies `other` (same length) in.
    fn copy_from(&mut self, other: &Self);
}

impl LocalPose for [Transform] {
    #[inline(always)]
    fn bone_count(&self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn get(&self, i: usize) -> Transform {
        self[i]
    }
    #[inline(always)]
    fn set(&mut self, i: usize, t: &Transform) {
        self[i] = *t;
    }
    #[inline(always)]
    fn set_translation(&mut self, i: usize, v: Vec3) {
        self[i].translation = v;
    }
    #[inline(always)]
    fn set_rotation(&mut self, i: usize, q: Quat) {
        self[i].rotation = q;
    }
    #[inline(always)]
    fn set_scale(&mut self, i: usize, v: Vec3) {
        self[i].scale = v;
    }
    fn copy_from(&mut self, other: &Self) {
        self.copy_from_slice(other);
    }
}

impl LocalPose for SoaPose {
    #[inline(always)]
    fn bone_count(&self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn get(&self, i: usize) -> Transform {
        SoaPose::get(self, i)
    }
    #[inline(always)]
    fn set(&mut self, i: usize, t: &Transform) {
        SoaPose::set(self, i, t);
    }
    #[inline(always)]
    fn set_translation(&mut self, i: usize, v: Vec3) {
        self.blocks_mut()[i / 8].set_translation(i % 8, v);
    }
    #[inline(always)]
    fn set_rotation(&mut self, i: usize, q: Quat) {
        self.blocks_mut()[i / 8].set_rotation(i % 8, q);
    }
    #[inline(always)]
    fn set_scale(&mut self, i: usize, v: Vec3) {
        self.blocks_mut()[i / 8].set_scale(i % 8, v);
    }
    fn copy_from(&mut self, other: &Self) {
        self.clone_from(other);
    }
}
