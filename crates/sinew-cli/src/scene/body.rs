//! A simple skinned body for the procedural humanoid, so the demo's pictures show a figure and
//! not only its skeleton: a tapered tube around each limb, spine and neck segment and a head,
//! shirt, skin and trouser coloured. Each tube belongs to the bone at its start; its end rings
//! are shared half and half with the neighbouring bone, so elbows, knees and the spine bend
//! smoothly under linear blend skinning.

use std::f32::consts::TAU;
use std::sync::Arc;

use glam::{Vec3, Vec4};
use sinew::{BoneId, Skeleton};
use sinew_skin::{Influence, Material, Mesh, Skin, Winding};

use crate::error::CliError;

const SIDES: usize = 12;
const RINGS: usize = 4;

/// Which material a segment is drawn with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cloth {
    Shirt,
    Skin,
    Trousers,
}

/// `(from, to, radius at from, radius at to, material, cap the end)`.
fn segments() -> Vec<(String, String, f32, f32, Cloth, bool)> {
    let mut s: Vec<(String, String, f32, f32, Cloth, bool)> = vec![
        (
            "pelvis".into(),
            "spine1".into(),
            0.125,
            0.115,
            Cloth::Trousers,
            false,
        ),
        (
            "spine1".into(),
            "spine2".into(),
            0.115,
            0.115,
            Cloth::Shirt,
            false,
        ),
        (
            "spine2".into(),
            "spine3".into(),
            0.115,
            0.13,
            Cloth::Shirt,
            false,
        ),
        (
            "spine3".into(),
            "neck".into(),
            0.13,
            0.05,
            Cloth::Shirt,
            false,
        ),
        (
            "neck".into(),
            "head".into(),
            0.045,
            0.05,
            Cloth::Skin,
            false,
        ),
        (
            "head".into(),
            "head_end".into(),
            0.095,
            0.07,
            Cloth::Skin,
            true,
        ),
    ];
    for side in ["l", "r"] {
        let b = |n: &str| format!("{n}_{side}");
        s.extend([
            (
                b("clavicle"),
                b("upper_arm"),
                0.05,
                0.048,
                Cloth::Shirt,
                false,
            ),
            (
                b("upper_arm"),
                b("forearm"),
                0.048,
                0.04,
                Cloth::Shirt,
                false,
            ),
            (b("forearm"), b("hand"), 0.04, 0.03, Cloth::Skin, false),
            (b("hand"), b("middle1"), 0.032, 0.03, Cloth::Skin, true),
            (
                "pelvis".into(),
                b("thigh"),
                0.1,
                0.075,
                Cloth::Trousers,
                false,
            ),
            (b("thigh"), b("shin"), 0.075, 0.055, Cloth::Trousers, false),
            (b("shin"), b("foot"), 0.055, 0.042, Cloth::Trousers, false),
            (b("foot"), b("toe"), 0.042, 0.035, Cloth::Skin, true),
        ]);
    }
    s
}

/// The body mesh over `skeleton` (the procedural humanoid's): joint `i` is bone `i`, bound at
/// the rest pose.
pub fn humanoid_body(skeleton: &Skeleton) -> Result<Arc<Mesh>, CliError> {
    let rest = skeleton.rest_world();
    let find = |n: &str| {
        skeleton
            .find(n)
            .ok_or_else(|| CliError::Internal(format!("the humanoid has no bone \"{n}\"")))
    };
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut influences = Vec::new();
    let mut by_cloth: [Vec<u32>; 3] = Default::default();
    for (from, to, r0, r1, cloth, cap) in segments() {
        let (a, b): (BoneId, BoneId) = (find(&from)?, find(&to)?);
        let parent = skeleton.parent(a);
        let (pa, pb) = (
            Vec3::from(rest[a.index()].translation),
            Vec3::from(rest[b.index()].translation),
        );
        let axis = (pb - pa).normalize_or(Vec3::Y);
        let side = axis.any_orthonormal_vector();
        let up = axis.cross(side);
        let base = positions.len() as u32;
        for k in 0..RINGS {
            let t = k as f32 / (RINGS - 1) as f32;
            let centre = pa.lerp(pb, t);
            let radius = r0 + (r1 - r0) * t;
            let influence = if k == 0 {
                match parent {
                    Some(p) if from != "pelvis" => {
                        Influence::two([a.index() as u32, p.index() as u32], 0.5)
                    }
                    _ => Influence::rigid(a.index() as u32),
                }
            } else if k == RINGS - 1 && !cap {
                Influence::two([a.index() as u32, b.index() as u32], 0.5)
            } else {
                Influence::rigid(a.index() as u32)
            };
            for j in 0..SIDES {
                let angle = TAU * j as f32 / SIDES as f32;
                let n = side * angle.cos() + up * angle.sin();
                positions.push(centre + n * radius);
                normals.push(n);
                influences.push(influence.clone());
            }
        }
        let tris = &mut by_cloth[cloth as usize];
        for k in 0..RINGS - 1 {
            for j in 0..SIDES {
                let (j1, r) = ((j + 1) % SIDES, |k: usize, j: usize| {
                    base + (k * SIDES + j) as u32
                });
                // Counter-clockwise seen from outside:
                // (along the ring) × (along the axis) points outwards.
                tris.extend([
                    r(k, j),
                    r(k, j1),
                    r(k + 1, j),
                    r(k, j1),
                    r(k + 1, j1),
                    r(k + 1, j),
                ]);
            }
        }
        // Caps: a fan at each end of a capped segment, the start one of every segment.
        for (k, centre, normal, weight_bone) in [(0, pa, -axis, a), (RINGS - 1, pb, axis, a)] {
            if k != 0 && !cap {
                continue;
            }
            let c = positions.len() as u32;
            positions.push(centre + normal * if k == 0 { 0.0 } else { r1 * 0.6 });
            normals.push(normal);
            influences.push(Influence::rigid(weight_bone.index() as u32));
            for j in 0..SIDES {
                let (r, r1i) = (
                    base + (k * SIDES + j) as u32,
                    base + (k * SIDES + (j + 1) % SIDES) as u32,
                );
                if k == 0 {
                    tris.extend([c, r1i, r]);
                } else {
                    tris.extend([c, r, r1i]);
                }
            }
        }
    }
    let colours = [
        Vec4::new(0.32, 0.48, 0.78, 1.0),
        Vec4::new(0.93, 0.76, 0.63, 1.0),
        Vec4::new(0.26, 0.27, 0.33, 1.0),
    ];
    let names = ["shirt", "skin", "trousers"];
    let mut indices = Vec::new();
    let mut materials = Vec::new();
    for (k, tris) in by_cloth.iter().enumerate() {
        materials.push(Material {
            name: names[k].into(),
            diffuse: colours[k],
            ambient: colours[k].truncate() * 0.35,
            specular: Vec4::ZERO,
            texture: None,
            double_sided: false,
            edge: Some((Vec4::new(0.1, 0.1, 0.12, 1.0), 1.0)),
            first_index: indices.len() as u32,
            index_count: tris.len() as u32,
        });
        indices.extend_from_slice(tris);
    }
    let mesh = Mesh {
        name: "humanoid body".into(),
        skin: Skin::new(&influences, skeleton.len())
            .map_err(|e| CliError::Internal(e.to_string()))?,
        positions,
        normals,
        uvs: Vec::new(),
        indices,
        materials,
        textures: Vec::new(),
        winding: Winding::CounterClockwise,
        morphs: Vec::new(),
    };
    mesh.validate()
        .map_err(|e| CliError::Internal(e.to_string()))?;
    Ok(Arc::new(mesh))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangles_face_outwards() {
        let h = sinew_humanoid::Humanoid::new();
        let mesh = humanoid_body(&h.skeleton).unwrap();
        // Counter-clockwise fronts: the face normal agrees with the vertex normals.
        let mut agree = 0;
        for t in mesh.indices.chunks_exact(3) {
            let [a, b, c] = [0, 1, 2].map(|k| mesh.positions[t[k] as usize]);
            let face = (b - a).cross(c - a);
            let vertex: Vec3 = t.iter().map(|&v| mesh.normals[v as usize]).sum();
            agree += usize::from(face.dot(vertex) > 0.0);
        }
        assert_eq!(agree, mesh.indices.len() / 3);
    }

    #[test]
    fn the_body_binds_to_the_humanoid_and_is_watertight_per_tube() {
        let h = sinew_humanoid::Humanoid::new();
        let mesh = humanoid_body(&h.skeleton).unwrap();
        assert!(mesh.indices.len() / 3 > 1000);
        assert_eq!(mesh.skin.vertex_count(), mesh.positions.len());
        // At rest the skinning matrices are identities: the mesh stays where it was built.
        let skeleton = &h.skeleton;
        let mut world = vec![glam::Affine3A::IDENTITY; skeleton.len()];
        sinew::pose::local_to_world(
            skeleton.parent_indices(),
            skeleton.rest_pose(),
            &glam::Affine3A::IDENTITY,
            &mut world,
        );
        let mut m = vec![glam::Affine3A::IDENTITY; skeleton.len()];
        sinew::pose::skin_matrices(&world, skeleton.inverse_bind(), &mut m);
        let mut d = sinew_skin::Deformed::new(&mesh);
        d.update(&mesh, &m, &[], sinew_skin::SkinMode::Linear)
            .unwrap();
        for (a, b) in d.positions().iter().zip(&mesh.positions) {
            assert!((*a - *b).length() < 1e-5);
        }
    }
}
