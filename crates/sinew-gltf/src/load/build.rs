//! Building a [`GltfModel`] from a parsed document: the skeleton from the skins' joints (and
//! their ancestors), rest poses, inverse binds checked, clips read, warnings collected.

use crate::anim::read_clips;
use crate::{GltfError, GltfWarning};
use glam::{Affine3A, Mat4};
use gltf::accessor::{DataType, Dimensions};
use sinew::dynamics::SkeletonDynamicsBuilder;
use sinew::{BoneId, Model, Parent, Skeleton, SkeletonBuilder};
use std::path::Path;
use std::sync::Arc;

use super::*;

impl GltfModel {
    pub(super) fn from_bytes(
        bytes: &[u8],
        base: Option<&Path>,
        options: LoadOptions,
    ) -> Result<Self, GltfError> {
        let json_bytes: Vec<u8> = if bytes.starts_with(b"glTF") {
            gltf::binary::Glb::from_slice(bytes)
                .map_err(GltfError::Parse)?
                .json
                .into_owned()
        } else {
            bytes.to_vec()
        };
        let json: serde_json::Value = serde_json::from_slice(&json_bytes)
            .map_err(|e| GltfError::Parse(gltf::Error::Deserialize(e)))?;
        check_unvalidated(&json)?;
        let gltf = gltf::Gltf::from_slice(bytes).map_err(GltfError::Parse)?;
        let gltf::Gltf { document, blob } = gltf;
        let buffers = load_buffers(&document, base, blob)?;
        Self::build(document, json, buffers, options)
    }

    pub(super) fn build(
        document: gltf::Document,
        json: serde_json::Value,
        buffers: Vec<Vec<u8>>,
        options: LoadOptions,
    ) -> Result<Self, GltfError> {
        let mut warnings = Vec::new();
        let node_count = document.nodes().len();
        if document.skins().len() == 0 {
            return Err(GltfError::NoSkin);
        }
        // Parents.
        let mut parent: Vec<Option<usize>> = vec![None; node_count];
        for node in document.nodes() {
            for child in node.children() {
                let c = child.index();
                if let Some(first) = parent[c] {
                    return Err(GltfError::MultipleParents {
                        node: c,
                        first,
                        second: node.index(),
                    });
                }
                parent[c] = Some(node.index());
            }
        }
        // Bone nodes: joints and their ancestors (bounded walk: cycles are reported by the
        // skeleton builder).
        let mut is_bone = vec![false; node_count];
        for skin in document.skins() {
            for joint in skin.joints() {
                let mut n = Some(joint.index());
                let mut steps = 0;
                while let Some(i) = n {
                    if is_bone[i] || steps > node_count {
                        break;
                    }
                    is_bone[i] = true;
                    n = parent[i];
                    steps += 1;
                }
            }
        }
        let node_names = unique_names(&document, &is_bone);
        // Skeleton, bones in node order.
        let mut source_of_node = vec![usize::MAX; node_count];
        let bone_nodes: Vec<usize> = (0..node_count).filter(|&i| is_bone[i]).collect();
        for (s, &n) in bone_nodes.iter().enumerate() {
            source_of_node[n] = s;
        }
        let mut builder = SkeletonBuilder::new();
        for &n in &bone_nodes {
            let node = document.nodes().nth(n).expect("node index in range");
            let rest = node_rest(&node, &mut warnings);
            let p = parent[n].map_or(Parent::Root, |p| Parent::Index(source_of_node[p]));
            builder.push(node_names[n].clone(), p, rest);
        }
        // Skins and their inverse bind matrices.
        let mut skins = Vec::new();
        let mut ibm_given = vec![false; node_count];
        for skin in document.skins() {
            let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
            let inverse_bind = match skin.inverse_bind_matrices() {
                Some(acc) => {
                    check_accessor(
                        &acc,
                        &buffers,
                        "inverse bind matrices",
                        &[Dimensions::Mat4],
                        &[DataType::F32],
                    )?;
                    if acc.count() < joints.len() {
                        return Err(GltfError::Accessor {
                            index: acc.index(),
                            usage: "inverse bind matrices",
                            reason: format!("{} matrices for {} joints", acc.count(), joints.len()),
                        });
                    }
                    let reader = skin.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
                    let it = reader
                        .read_inverse_bind_matrices()
                        .ok_or_else(|| unreadable(&acc, "inverse bind matrices"))?;
                    it.take(joints.len())
                        .map(|m| Affine3A::from_mat4(Mat4::from_cols_array_2d(&m)))
                        .collect()
                }
                None => vec![Affine3A::IDENTITY; joints.len()],
            };
            for (&n, m) in joints.iter().zip(&inverse_bind) {
                if ibm_given[n] {
                    continue;
                }
                ibm_given[n] = true;
                if m.is_finite() && m.matrix3.determinant().abs() > 1e-20 {
                    builder = builder.inverse_bind(node_names[n].clone(), *m);
                } else {
                    warnings.push(GltfWarning::SingularInverseBind {
                        skin: skin.index(),
                        node: n,
                    });
                }
            }
            skins.push((
                skin.index(),
                skin.name().map(str::to_owned),
                joints,
                inverse_bind,
            ));
        }
        let skeleton: Arc<Skeleton> = builder.build()?;
        let mut node_to_bone = vec![None; node_count];
        let mut bone_to_node = vec![0; skeleton.len()];
        for (s, &n) in bone_nodes.iter().enumerate() {
            let b = skeleton
                .from_source_index(s)
                .expect("every source index has a bone");
            node_to_bone[n] = Some(b);
            bone_to_node[b.index()] = n;
        }
        let skins: Vec<GltfSkin> = skins
            .into_iter()
            .map(|(index, name, joints, inverse_bind)| {
                let bones: Vec<BoneId> = joints
                    .iter()
                    .map(|&n| node_to_bone[n].expect("joints are bones"))
                    .collect();
                let root = (0..bones.len()).min_by_key(|&j| bones[j]);
                let bind_space = root.map_or(Affine3A::IDENTITY, |j| {
                    let m = skeleton.rest_world()[bones[j].index()] * inverse_bind[j];
                    if m.is_finite() && m.matrix3.determinant().abs() > 1e-20 {
                        m
                    } else {
                        Affine3A::IDENTITY
                    }
                });
                GltfSkin {
                    index,
                    name,
                    bones,
                    joints,
                    inverse_bind,
                    bind_space,
                }
            })
            .collect();
        let clips = read_clips(
            &document,
            &buffers,
            &node_to_bone,
            &node_names,
            options.normalize_rotations,
            &mut warnings,
        )?;
        let mut model = Self {
            document,
            json,
            buffers,
            options,
            model: Model::new(skeleton),
            skins,
            clips,
            node_to_bone,
            bone_to_node,
            node_names,
            warnings: Vec::new(),
            size: 1.0,
        };
        model.size = model.measure_size();
        // Bind check against the rest pose.
        let rest_world = model.model.skeleton().rest_world().to_vec();
        for skin in 0..model.skins.len() {
            for j in 0..model.skins[skin].joints.len() {
                let error = model.inverse_bind_error(skin, j, &rest_world);
                if error > INVERSE_BIND_TOLERANCE {
                    let node = model.skins[skin].joints[j];
                    warnings.push(GltfWarning::InverseBindMismatch {
                        skin: model.skins[skin].index,
                        node,
                        bone: model.node_names[node].clone(),
                        error,
                    });
                }
            }
        }
        // The reader's configure step, as at MMD model construction: the candidate physics
        // table (every bone long enough for a capsule, kinematic, profile required) is mounted.
        let skeleton = std::sync::Arc::clone(model.model.skeleton());
        match crate::GltfSkeletonDynamicsReader::candidate_table(&model) {
            Ok(table) => {
                let mut builder = SkeletonDynamicsBuilder::empty(&skeleton);
                builder.physics(table);
                if let Err(e) = builder.attach(&mut model.model) {
                    warnings.push(GltfWarning::NoCandidateTable {
                        reason: e.to_string(),
                    });
                }
            }
            Err(e) => warnings.push(GltfWarning::NoCandidateTable {
                reason: e.to_string(),
            }),
        }
        model.warnings = warnings;
        Ok(model)
    }
}
