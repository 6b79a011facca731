//! The hierarchy job: local transforms to world matrices.

use glam::{Affine3A, Mat3A, Vec3A};

use crate::skeleton::NO_PARENT;
use crate::Transform;

#[inline(always)]
fn trs_affine(t: &Transform) -> Affine3A {
    let m = Mat3A::from_quat(t.rotation);
    Affine3A {
        matrix3: Mat3A::from_cols(m.x_axis * t.scale.x, m.y_axis * t.scale.y, m.z_axis * t.scale.z),
        translation: Vec3A::from(t.translation),
    }
}

/// Evaluates the whole hierarchy: `out[i] = out[parent[i]] × locals[i]`, and `root × locals[i]`
/// for roots.
///
/// `parents` must be parent-before-child (as [`Skeleton::parent_indices`](crate::Skeleton::parent_indices)
/// is); all three slices have the same length.
///
/// # Panics
/// If the slice lengths differ or a parent index is not smaller than its child's.
pub fn local_to_world(parents: &[u16], locals: &[Transform], root: &Affine3A, out: &mut [Affine3A]) {
    local_to_world_range(parents, locals, root, out, 0, parents.len());
}

/// Evaluates bones `from..to` only, reading already-evaluated parents from `out`. With a
/// skeleton's depth-first order, `from..subtree_end(from)` re-evaluates one subtree after a
/// correction.
///
/// # Panics
/// If the slice lengths differ, the range is out of bounds, or a parent index is not smaller
/// than its child's.
pub fn local_to_world_range(
    parents: &[u16],
    locals: &[Transform],
    root: &Affine3A,
    out: &mut [Affine3A],
    from: usize,
    to: usize,
) {
    assert!(parents.len() == locals.len() && locals.len() == out.len() && from <= to && to <= out.len());
    let parents = &parents[..to];
    let locals = &locals[..to];
    for i in from..to {
        let p = parents[i];
        let local = trs_affine(&locals[i]);
        let parent = if p == NO_PARENT {
            *root
        } else {
            assert!((p as usize) < i, "parent after child");
            out[p as usize]
        };
        out[i] = parent * local;
    }
}

/// Skinning matrices: `out[i] = world[i] × inverse_bind[i]`.
///
/// # Panics
/// If the slice lengths differ.
pub fn skin_matrices(world: &[Affine3A], inverse_bind: &[Affine3A], out: &mut [Affine3A]) {
    assert!(world.len() == inverse_bind.len() && world.len() == out.len());
    for ((o, w), ib) in out.iter_mut().zip(world).zip(inverse_bind) {
        *o = *w * *ib;
    }
}
