//! The entities that draw a character: one per [`SinewMeshPart`], a child of the character,
//! skinned by its joint entities, its morph targets weighted by the character's morphs.

use bevy::ecs::prelude::*;
use bevy::mesh::morph::MeshMorphWeights;
use bevy::mesh::skinning::SkinnedMesh;
use bevy::mesh::Mesh3d;
use bevy::prelude::{ChildOf, Name, Transform};

use crate::{SinewMeshPart, SinewModel};

/// A mesh part entity of a character: which part of its model it draws.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SinewMeshOf {
    /// The part's index in [`SinewModel::parts`].
    pub part: usize,
}

/// Spawns `model`'s parts as children of `character` skinned by `joints` (the skeleton's
/// order); returns the entities that have morph targets, with their part's index.
pub(crate) fn spawn_parts(
    commands: &mut Commands,
    character: Entity,
    model: &SinewModel,
    joints: &[Entity],
) -> Vec<(Entity, usize)> {
    let mut morphed = Vec::new();
    for (i, part) in model.parts.iter().enumerate() {
        let mut e = commands.spawn((
            SinewMeshOf { part: i },
            Name::new(format!(
                "{} material {}",
                model.model.meshes()[part.source_mesh].name,
                part.source_material
            )),
            Mesh3d(part.mesh.clone()),
            SkinnedMesh {
                inverse_bindposes: part.inverse_bindposes.clone(),
                joints: part.joints.iter().map(|&b| joints[b]).collect(),
            },
            Transform::default(),
            ChildOf(character),
        ));
        #[cfg(feature = "render")]
        e.insert((
            bevy::pbr::MeshMaterial3d(part.material.clone()),
            // The rest pose's bounds do not hold a dancing character.
            bevy::camera::visibility::NoFrustumCulling,
        ));
        if !part.morphs.is_empty() {
            e.insert(MeshMorphWeights::Value {
                weights: vec![0.0; part.morphs.len()],
            });
            morphed.push((e.id(), i));
        }
    }
    morphed
}

/// Writes each morphed part's weights from the character's morph weights `weights`.
pub(crate) fn write_morph_weights(
    morphed: &[(Entity, usize)],
    parts: &[SinewMeshPart],
    weights: &[f32],
    query: &mut Query<&mut MeshMorphWeights>,
) {
    for &(entity, part) in morphed {
        let Ok(mut w) = query.get_mut(entity) else {
            continue;
        };
        if let MeshMorphWeights::Value { weights: out } = &mut *w {
            for (o, &slot) in out.iter_mut().zip(&parts[part].morphs) {
                *o = weights.get(slot).copied().unwrap_or(0.0);
            }
        }
    }
}
