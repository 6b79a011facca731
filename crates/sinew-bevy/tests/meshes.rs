//! The Bevy meshes the plugin spawns skin as sinew does: miku_v2 dancing (morphs included) and
//! CesiumMan playing its clip, skinned on the CPU the way Bevy's shader skins them (morph
//! targets, then joint matrices × inverse bind poses, weighted), land on sinew's own skinned
//! vertices (within 2e-6 of their size; measured: 3.3e-7).
#![cfg(feature = "mesh")]

mod common;

use bevy::asset::Assets;
use bevy::image::Image;
use bevy::math::{Mat4, Vec3, Vec4};
use bevy::mesh::morph::MeshMorphWeights;
use bevy::mesh::skinning::{SkinnedMesh, SkinnedMeshInverseBindposes};
use bevy::mesh::{Mesh, Mesh3d, VertexAttributeValues};
use bevy::prelude::{ChildOf, Transform};
use common::{app, run, spawn_dancers};
use sinew_bevy::{SinewCharacter, SinewMeshOf, SinewModel};
use sinew_character::{Character, CharacterModel};
use sinew_testkit::asset;

fn floats3(mesh: &Mesh, attribute: bevy::mesh::MeshVertexAttribute) -> Vec<Vec3> {
    match mesh.attribute(attribute) {
        Some(VertexAttributeValues::Float32x3(v)) => v.iter().map(|&p| Vec3::from(p)).collect(),
        other => panic!("{}: {other:?}", attribute.name),
    }
}

#[test]
fn meshes_skin_as_sinew_does() {
    let (Some(pmd), Some(vmd), Some(glb), Some(mut app)) = (
        asset("mmd/threejs-examples/miku/miku_v2.pmd"),
        asset("mmd/threejs-examples/vmds/wavefile_v2.vmd"),
        asset("gltf/CesiumMan/CesiumMan.glb"),
        app(),
    ) else {
        return;
    };
    let (miku, cesium) = spawn_dancers(&mut app, false);
    let steps = run(&mut app, &[miku, cesium]);

    let mmd = CharacterModel::load(&pmd).unwrap();
    let dance = mmd.load_motion(&vmd).unwrap();
    let gltf = CharacterModel::load(&glb).unwrap();
    let mut compared = 0usize;
    let mut morphed = 0usize;
    let mut textured = 0usize;
    let mut worst = 0f32;
    for ((entity, model), steps) in [(miku, &mmd), (cesium, &gltf)].into_iter().zip(&steps) {
        let mut reference = Character::new(model);
        if entity == miku {
            reference.play(&dance);
        } else {
            reference.play(gltf.clip(0).unwrap());
        }
        for &dt in steps {
            reference.advance(dt).unwrap();
        }
        let world = app.world();
        let c = world.get::<SinewCharacter>(entity).unwrap();
        assert!(c.error().is_none(), "{:?}", c.error());
        let asset = world
            .resource::<Assets<SinewModel>>()
            .get(&c.model)
            .unwrap();
        assert!(asset.mesh_error.is_none(), "{:?}", asset.mesh_error);
        let asset_parts = asset.parts.clone();
        let materials: usize = model.meshes().iter().map(|m| m.mesh.materials.len()).sum();
        assert_eq!(asset_parts.len(), materials, "one part per material");

        // The part entities: children of the character, one per part.
        let mut parts = Vec::new();
        let mut query = app.world_mut().query::<(
            &SinewMeshOf,
            &ChildOf,
            &Mesh3d,
            &SkinnedMesh,
            Option<&MeshMorphWeights>,
        )>();
        for (of, parent, mesh, skin, weights) in query.iter(app.world()) {
            if parent.parent() == entity {
                parts.push((of.part, mesh.0.clone(), skin.clone(), weights.cloned()));
            }
        }
        parts.sort_by_key(|p| p.0);
        assert_eq!(parts.len(), asset_parts.len());

        let world = app.world();
        let meshes = world.resource::<Assets<Mesh>>();
        let binds = world.resource::<Assets<SkinnedMeshInverseBindposes>>();
        let images = world.resource::<Assets<Image>>();
        for (i, mesh, skin, weights) in parts {
            let part = &asset_parts[i];
            let source = &model.meshes()[part.source_mesh];
            if source.mesh.materials[part.source_material]
                .texture
                .is_some()
            {
                let texture = part.texture.as_ref().expect("the material's texture");
                assert!(images.get(texture).is_some_and(|t| t.width() > 0));
                textured += 1;
            }
            let mesh = meshes.get(&mesh).unwrap();
            let positions = floats3(mesh, Mesh::ATTRIBUTE_POSITION);
            let Some(VertexAttributeValues::Uint16x4(joints)) =
                mesh.attribute(Mesh::ATTRIBUTE_JOINT_INDEX)
            else {
                panic!("joint indices")
            };
            let Some(VertexAttributeValues::Float32x4(jw)) =
                mesh.attribute(Mesh::ATTRIBUTE_JOINT_WEIGHT)
            else {
                panic!("joint weights")
            };
            let inverse = binds.get(&skin.inverse_bindposes).unwrap();
            let matrices: Vec<Mat4> = skin
                .joints
                .iter()
                .zip(inverse.iter())
                .map(|(&j, ib)| world.get::<Transform>(j).unwrap().to_matrix() * *ib)
                .collect();
            let targets = mesh.morph_targets();
            let weights = match weights {
                Some(MeshMorphWeights::Value { weights }) => weights,
                None => Vec::new(),
                Some(other) => panic!("{other:?}"),
            };
            assert_eq!(weights.len(), part.morphs.len());
            if weights.iter().any(|&w| w != 0.0) {
                morphed += 1;
            }
            let n = positions.len();
            let want = reference
                .skinned_mesh(part.source_mesh)
                .unwrap()
                .positions();
            for (v, &p) in positions.iter().enumerate() {
                let mut p = p;
                if let Some(targets) = targets {
                    for (t, &w) in weights.iter().enumerate() {
                        p += w * targets[t * n + v].position;
                    }
                }
                let p = Vec4::from((p, 1.0));
                let skinned: Vec3 = (0..4)
                    .map(|k| jw[v][k] * (matrices[joints[v][k] as usize] * p).truncate())
                    .sum();
                let w = want[part.vertices[v] as usize];
                let err = (skinned - Vec3::from_array(w.to_array())).length();
                worst = worst.max(err / w.length().max(1.0));
                assert!(
                    err < 2e-6 * w.length().max(1.0),
                    "mesh {} part {i} vertex {v}: {err}",
                    source.name
                );
                compared += 1;
            }
        }
    }
    eprintln!(
        "{compared} vertices compared (worst {worst:e} of their size), {morphed} parts morphed, \
         {textured} textured"
    );
    // Every vertex of every material, once per material that uses it.
    assert!(compared > 10_000, "{compared} vertices compared");
    assert!(morphed > 0, "no part's morph targets were weighted");
    assert!(textured >= 2, "{textured} textured parts");
}
