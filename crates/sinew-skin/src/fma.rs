//! Multiply-add, fused where the CPU has FMA: the kernels are written once over [`MulAdd`] and
//! compiled twice, plain and (on x86-64, picked at run time) with AVX2 + FMA.

use glam::Vec3A;

/// `a · b + c`, lane-wise.
pub(crate) trait MulAdd {
    /// `a · b + c`.
    fn mul_add(a: Vec3A, b: Vec3A, c: Vec3A) -> Vec3A;
}

/// Separate multiply and add (any CPU).
pub(crate) struct Plain;

impl MulAdd for Plain {
    #[inline(always)]
    fn mul_add(a: Vec3A, b: Vec3A, c: Vec3A) -> Vec3A {
        a * b + c
    }
}

/// Fused multiply-add (FMA3); only used inside functions compiled with `fma` enabled.
#[cfg(target_arch = "x86_64")]
pub(crate) struct Fused;

#[cfg(target_arch = "x86_64")]
impl MulAdd for Fused {
    #[inline(always)]
    fn mul_add(a: Vec3A, b: Vec3A, c: Vec3A) -> Vec3A {
        use std::arch::x86_64::{__m128, _mm_fmadd_ps};
        // SAFETY: `Fused` is only used by kernels compiled with `fma` enabled, which are
        // called after the CPU was checked for it.
        unsafe {
            Vec3A::from(_mm_fmadd_ps(
                __m128::from(a),
                __m128::from(b),
                __m128::from(c),
            ))
        }
    }
}

/// Whether the fused kernels may run.
#[inline]
pub(crate) fn has_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
