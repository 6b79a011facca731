//! Four dot products at once: the products side by side, transposed, and summed down the
//! columns, instead of four horizontal sums (each a chain of two shuffles and two adds).

use glam::{Mat4, Vec3A, Vec4};

/// `(a[0]·b[0], a[1]·b[1], a[2]·b[2], a[3]·b[3])`.
#[inline(always)]
pub(crate) fn dot4(a: [Vec3A; 4], b: [Vec3A; 4]) -> Vec4 {
    let column = |i: usize| (a[i] * b[i]).extend(0.0);
    let t = Mat4::from_cols(column(0), column(1), column(2), column(3)).transpose();
    t.x_axis + t.y_axis + t.z_axis
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_single_dot_products() {
        let a = [
            Vec3A::new(1.0, 2.0, 3.0),
            Vec3A::new(-0.5, 0.25, 4.0),
            Vec3A::new(1e3, -2e-3, 7.0),
            Vec3A::new(0.0, 0.0, -1.0),
        ];
        let b = [
            Vec3A::new(0.3, -1.0, 2.0),
            Vec3A::new(8.0, 1.5, -0.125),
            Vec3A::new(1e-3, 5e2, 0.5),
            Vec3A::new(9.0, 9.0, 2.0),
        ];
        let d = dot4(a, b);
        for i in 0..4 {
            assert_eq!(d[i], a[i].dot(b[i]), "{i}");
        }
    }
}
