//! The hierarchy job: local transforms to world matrices.

use glam::{Affine3A, Mat3A};

use super::{LocalPose, SoaPose};
use crate::skeleton::NO_PARENT;
use crate::Transform;

/// `parent × (T·R·S)` without building the local matrix first: the rotation matrix columns are
/// scaled and pushed through the parent's 3×3 directly.
#[inline(always)]
fn parent_times_trs(parent: &Affine3A, t: &Transform) -> Affine3A {
    let q = t.rotation;
    let (x2, y2, z2) = (q.x + q.x, q.y + q.y, q.z + q.z);
    let (xx, xy, xz) = (q.x * x2, q.x * y2, q.x * z2);
    let (yy, yz, zz) = (q.y * y2, q.y * z2, q.z * z2);
    let (wx, wy, wz) = (q.w * x2, q.w * y2, q.w * z2);
    let pm = &parent.matrix3;
    // Local rotation columns, each scaled, then rotated by the parent: P·(R·S) column by column.
    let col = |a: f32, b: f32, c: f32, s: f32| {
        pm.x_axis * (a * s) + pm.y_axis * (b * s) + pm.z_axis * (c * s)
    };
    Affine3A {
        matrix3: Mat3A::from_cols(
            col(1.0 - (yy + zz), xy + wz, xz - wy, t.scale.x),
            col(xy - wz, 1.0 - (xx + zz), yz + wx, t.scale.y),
            col(xz + wy, yz - wx, 1.0 - (xx + yy), t.scale.z),
        ),
        translation: pm.x_axis * t.translation.x
            + pm.y_axis * t.translation.y
            + pm.z_axis * t.translation.z
            + parent.translation,
    }
}

/// Evaluates the whole hierarchy: `out[i] = out[parent[i]] × locals[i]`, and `root × locals[i]`
/// for roots.
///
/// `parents` must be parent-before-child (as [`Skeleton::parent_indices`](crate::Skeleton::parent_indices)
/// is); all three slices have the same length.
///
/// # Panics
/// If the slice lengths differ. A parent index not smaller than its child's is a logic error
/// (unspecified result, never unsafe).
pub fn local_to_world(
    parents: &[u16],
    locals: &[Transform],
    root: &Affine3A,
    out: &mut [Affine3A],
) {
    local_to_world_range(parents, locals, root, out, 0, parents.len());
}

/// Evaluates bones `from..to` only, reading already-evaluated parents from `out`. With a
/// skeleton's depth-first order, `from..subtree_end(from)` re-evaluates one subtree after a
/// correction.
///
/// # Panics
/// If the slice lengths differ or the range is out of bounds. A parent index that is not
/// smaller than its child's is a logic error: the result is unspecified (never unsafe).
pub(crate) fn local_to_world_range(
    parents: &[u16],
    locals: &[Transform],
    root: &Affine3A,
    out: &mut [Affine3A],
    from: usize,
    to: usize,
) {
    assert!(
        parents.len() == locals.len() && locals.len() == out.len() && from <= to && to <= out.len()
    );
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2_fma() {
            // SAFETY: the CPU supports AVX2 and FMA (checked just above).
            unsafe { super::l2w_avx2::range(parents, locals, root, out, from, to) };
            return;
        }
    }
    debug_assert!(
        (from..to).all(|i| parents[i] == NO_PARENT || (parents[i] as usize) < i),
        "parent after child"
    );
    // A parent index past the child would read a stale matrix, never out of bounds.
    eval_portable(parents, from..to, locals, root, out);
}

/// The portable kernel: bones in the order `bones` yields, each from its parent's matrix in
/// `out` (or `root`).
fn eval_portable<L: LocalPose + ?Sized>(
    parents: &[u16],
    bones: impl Iterator<Item = usize>,
    locals: &L,
    root: &Affine3A,
    out: &mut [Affine3A],
) {
    for i in bones {
        let p = parents[i];
        let parent = if p == NO_PARENT {
            root
        } else {
            &out[p as usize]
        };
        out[i] = parent_times_trs(parent, &locals.get(i));
    }
}

/// Evaluates the whole hierarchy visiting bones in `order`, which must list every bone once
/// with each parent before its children. A breadth-first order
/// ([`Skeleton::level_order`](crate::Skeleton::level_order)) puts independent bones next to each other, so the processor
/// overlaps their work instead of waiting on one parent→child chain at a time. With AVX2 the
/// plain depth-first [`local_to_world`] is as fast or faster (it keeps a parent that was just
/// evaluated in registers), and is what [`RigState::compute_world`](crate::RigState::compute_world)
/// uses.
///
/// # Panics
/// If the slice lengths differ or `order` holds an index out of range.
pub fn local_to_world_ordered(
    parents: &[u16],
    order: &[u16],
    locals: &[Transform],
    root: &Affine3A,
    out: &mut [Affine3A],
) {
    assert!(parents.len() == locals.len() && locals.len() == out.len() && order.len() == out.len());
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2_fma() {
            // SAFETY: the CPU supports AVX2 and FMA (checked just above).
            unsafe { super::l2w_avx2::ordered(parents, order, locals, root, out) };
            return;
        }
    }
    eval_portable(
        parents,
        order.iter().map(|&i| usize::from(i)),
        locals,
        root,
        out,
    );
}

/// [`local_to_world`] on a structure-of-arrays pose: the matrix pass reads the rotation and
/// scale rows directly (no transposes), bit-identical to `local_to_world` on
/// [`SoaPose::to_transforms`]. Bones in index order (parents before children).
///
/// # Panics
/// If `parents`, `locals` and `out` differ in length.
pub fn local_to_world_soa(
    parents: &[u16],
    locals: &SoaPose,
    root: &Affine3A,
    out: &mut [Affine3A],
) {
    assert!(parents.len() == locals.len() && locals.len() == out.len());
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2_fma() {
            // SAFETY: the CPU supports AVX2 and FMA (checked just above).
            unsafe { super::l2w_avx2::soa(parents, locals.blocks(), root, out) };
            return;
        }
    }
    eval_portable(parents, 0..out.len(), locals, root, out);
}

#[cfg(target_arch = "x86_64")]
#[inline]
fn has_avx2_fma() -> bool {
    std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
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

/// Skinning matrices of a mesh whose skin lists its own joints (a glTF skin, an MMD mesh
/// keyed by file bone): `out[j] = world[joints[j]] × inverse_bind[j]`.
///
/// # Panics
/// If `joints`, `inverse_bind` and `out` differ in length or a joint is past `world`.
pub fn joint_skin_matrices(
    world: &[Affine3A],
    joints: &[crate::BoneId],
    inverse_bind: &[Affine3A],
    out: &mut [Affine3A],
) {
    assert!(joints.len() == inverse_bind.len() && joints.len() == out.len());
    for ((o, j), ib) in out.iter_mut().zip(joints).zip(inverse_bind) {
        *o = world[j.index()] * *ib;
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;

    /// A 150-bone tree (more than one chunk, a partial last block) with non-uniform scales.
    fn rig() -> (Vec<u16>, Vec<Transform>) {
        let n = 150;
        let parents = (0..n)
            .map(|i| match i {
                0 | 70 => NO_PARENT,
                _ if i % 5 == 0 => (i / 3) as u16,
                _ => (i - 1) as u16,
            })
            .collect();
        let locals = (0..n)
            .map(|i| {
                let f = i as f32;
                Transform {
                    translation: Vec3::new(0.1 * f, 1.0 - 0.01 * f, 0.3),
                    rotation: Quat::from_euler(glam::EulerRot::XYZ, 0.3 * f, 0.7 - 0.1 * f, 1.1)
                        .normalize(),
                    scale: Vec3::new(1.0 + 0.01 * f, 0.9, 1.2 - 0.002 * f),
                }
            })
            .collect();
        (parents, locals)
    }

    fn reference(parents: &[u16], locals: &[Transform], root: &Affine3A) -> Vec<Affine3A> {
        let mut out = vec![Affine3A::IDENTITY; locals.len()];
        for i in 0..locals.len() {
            let p = parents[i];
            out[i] = if p == NO_PARENT {
                parent_times_trs(root, &locals[i])
            } else {
                parent_times_trs(&out[p as usize], &locals[i])
            };
        }
        out
    }

    #[test]
    fn every_path_matches_the_portable_kernel_exactly() {
        let (parents, locals) = rig();
        let root = Affine3A::from_scale_rotation_translation(
            Vec3::new(1.5, 0.5, 2.0),
            Quat::from_rotation_y(0.4),
            Vec3::new(3.0, -1.0, 2.0),
        );
        let want = reference(&parents, &locals, &root);
        let mut out = vec![Affine3A::IDENTITY; locals.len()];
        local_to_world(&parents, &locals, &root, &mut out);
        assert_eq!(out, want);
        let order: Vec<u16> = (0..locals.len() as u16).collect();
        let mut ordered = vec![Affine3A::IDENTITY; locals.len()];
        local_to_world_ordered(&parents, &order, &locals, &root, &mut ordered);
        assert_eq!(ordered, want);
        let mut partial = want.clone();
        partial[80..].fill(Affine3A::IDENTITY);
        local_to_world_range(&parents, &locals, &root, &mut partial, 80, locals.len());
        assert_eq!(partial, want);
        let mut soa = vec![Affine3A::IDENTITY; locals.len()];
        local_to_world_soa(
            &parents,
            &SoaPose::from_transforms(&locals),
            &root,
            &mut soa,
        );
        assert_eq!(soa, want);
        // The portable kernel itself (what CPUs without AVX2 run), on both layouts.
        let mut portable = vec![Affine3A::IDENTITY; locals.len()];
        eval_portable(&parents, 0..locals.len(), &locals[..], &root, &mut portable);
        assert_eq!(portable, want);
        let mut portable_soa = vec![Affine3A::IDENTITY; locals.len()];
        let soa_pose = SoaPose::from_transforms(&locals);
        eval_portable(
            &parents,
            0..locals.len(),
            &soa_pose,
            &root,
            &mut portable_soa,
        );
        assert_eq!(portable_soa, want);
    }
}
