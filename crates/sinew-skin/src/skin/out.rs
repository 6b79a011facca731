//! One deform call's outputs and rest inputs as the kernels see them: unchecked accessors
//! whose indices `Skin::new` bounded and `Skin::deform` checked the slices against.

use glam::{Vec3, Vec3A};

use crate::dual_quat::DualQuat;

/// Stores all four lanes of `v` at `at` (unaligned).
///
/// # Safety
/// `at` must be valid for writing 16 bytes.
#[inline(always)]
unsafe fn wide_store(at: *mut Vec3, v: Vec3A) {
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_storeu_ps(at.cast::<f32>(), std::arch::x86_64::__m128::from(v));
    }
    #[cfg(not(target_arch = "x86_64"))]
    unsafe {
        at.cast::<glam::Vec4>()
            .write_unaligned(glam::Vec4::from((v, 0.0)));
    }
}

/// The outputs and rest inputs of one deform call.
pub(crate) struct Out<'a> {
    pub positions: &'a mut [Vec3],
    pub normals: &'a mut [Vec3],
    pub rest_p: &'a [Vec3],
    pub rest_n: &'a [Vec3],
}

impl Out<'_> {
    // SAFETY (all four accessors): every vertex index in a `Skin`'s spans is below its
    // vertex count (`Skin::new`), and `Skin::deform` checks that the rest and output slices
    // are exactly that long (normals: when `N`, i.e. non-empty) before any kernel runs.

    #[inline(always)]
    pub fn rest_position(&self, v: u32) -> Vec3 {
        debug_assert!((v as usize) < self.rest_p.len());
        unsafe { *self.rest_p.get_unchecked(v as usize) }
    }

    #[inline(always)]
    pub fn rest_normal(&self, v: u32) -> Vec3 {
        debug_assert!((v as usize) < self.rest_n.len());
        unsafe { *self.rest_n.get_unchecked(v as usize) }
    }

    #[inline(always)]
    pub fn set_position(&mut self, v: u32, p: Vec3A) {
        debug_assert!((v as usize) < self.positions.len());
        unsafe { *self.positions.get_unchecked_mut(v as usize) = Vec3::from(p) }
    }

    /// Writes vertex `v`'s position as 16 bytes; lane 4 lands on vertex `v + 1`'s x, which
    /// must exist and be written afterwards.
    #[inline(always)]
    pub fn set_position_wide(&mut self, v: u32, p: Vec3A) {
        debug_assert!((v as usize) + 1 < self.positions.len());
        unsafe {
            let at = self.positions.as_mut_ptr().add(v as usize);
            wide_store(at, p);
        }
    }

    /// As [`Self::set_position_wide`], for normals.
    #[inline(always)]
    pub fn set_normal_wide(&mut self, v: u32, n: Vec3A) {
        debug_assert!((v as usize) + 1 < self.normals.len());
        unsafe {
            let at = self.normals.as_mut_ptr().add(v as usize);
            wide_store(at, n);
        }
    }

    #[inline(always)]
    pub fn set_normal(&mut self, v: u32, n: Vec3A) {
        debug_assert!((v as usize) < self.normals.len());
        unsafe { *self.normals.get_unchecked_mut(v as usize) = Vec3::from(n) }
    }

    #[inline(always)]
    pub(crate) fn dual<const N: bool>(&mut self, v: u32, dq: DualQuat) {
        let v = v as usize;
        self.positions[v] = dq.transform_point(self.rest_p[v].into()).into();
        if N {
            self.normals[v] = dq.real * self.rest_n[v];
        }
    }
}
