//! Node names made unique (bones first) and node rest transforms (matrix or TRS, checked).

use crate::GltfWarning;
use glam::{Affine3A, Mat4, Quat, Vec3};
use sinew::Transform;

/// Unique names: bone nodes first (node order), then the others.
pub(super) fn unique_names(document: &gltf::Document, is_bone: &[bool]) -> Vec<String> {
    let n = is_bone.len();
    let mut names = vec![String::new(); n];
    let mut taken = std::collections::HashSet::new();
    for pass in [true, false] {
        for node in document.nodes() {
            let i = node.index();
            if is_bone[i] != pass {
                continue;
            }
            let base = node
                .name()
                .filter(|s| !s.is_empty())
                .map_or_else(|| format!("node_{i}"), str::to_owned);
            let mut name = base.clone();
            while taken.contains(&name) {
                name = format!("{name}#{i}");
            }
            taken.insert(name.clone());
            names[i] = name;
        }
    }
    names
}

/// A node's local transform as TRS.
pub(super) fn node_rest(node: &gltf::Node, warnings: &mut Vec<GltfWarning>) -> Transform {
    match node.transform() {
        gltf::scene::Transform::Decomposed {
            translation,
            rotation,
            scale,
        } => Transform::from_trs(
            Vec3::from(translation),
            Quat::from_array(rotation),
            Vec3::from(scale),
        ),
        gltf::scene::Transform::Matrix { matrix } => {
            let m = Affine3A::from_mat4(Mat4::from_cols_array_2d(&matrix));
            match Transform::try_from_affine(&m) {
                Some(t) if t.to_affine().abs_diff_eq(m, 1e-4) => t,
                Some(t) => {
                    warnings.push(GltfWarning::LossyNodeMatrix { node: node.index() });
                    t
                }
                None => {
                    warnings.push(GltfWarning::LossyNodeMatrix { node: node.index() });
                    Transform::from_translation(Vec3::from(m.translation))
                }
            }
        }
    }
}
