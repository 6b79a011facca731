//! Skinned meshes read from a document built in code: every JOINTS/WEIGHTS set, morph targets
//! with names, default weights and an animated `weights` channel, three.js naming and order,
//! and the errors a malformed primitive gets.

mod common;

use glam::{Affine3A, Vec3};
use serde_json::json;
use sinew_gltf::{GltfError, GltfModel, JointSampler};
use sinew_skin::{Deformed, MorphKind, SkinMode};

/// Appends `u16` data as a buffer view and accessor (`VEC4`, not normalised).
fn joints(d: &mut common::DocBuilder, data: &[u16]) -> usize {
    let offset = d.bin.len();
    for x in data {
        d.bin.extend_from_slice(&x.to_le_bytes());
    }
    while !d.bin.len().is_multiple_of(4) {
        d.bin.push(0);
    }
    let views = d.json["bufferViews"].as_array_mut().unwrap();
    views.push(json!({ "buffer": 0, "byteOffset": offset, "byteLength": data.len() * 2 }));
    let view = views.len() - 1;
    let accs = d.json["accessors"].as_array_mut().unwrap();
    accs.push(json!({ "bufferView": view, "componentType": 5123, "count": data.len() / 4, "type": "VEC4" }));
    accs.len() - 1
}

/// The procedural rig with a skinned triangle on node 5: vertex 0 weighted over both
/// JOINTS/WEIGHTS sets, two morph targets ("smile", "blink"), default weights (0.25, 0).
fn doc(joint0: u16) -> common::DocBuilder {
    let mut d = common::procedural();
    let pos = d.floats(&[0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 2.0, 0.0], "VEC3");
    d.json["accessors"][pos]["min"] = json!([0.0, 1.0, 0.0]);
    d.json["accessors"][pos]["max"] = json!([1.0, 2.0, 0.0]);
    let nrm = d.floats(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0], "VEC3");
    let j0 = joints(&mut d, &[joint0, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]);
    let w0 = d.floats(
        &[0.5, 0.25, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        "VEC4",
    );
    let j1 = joints(&mut d, &[2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    let w1 = d.floats(
        &[0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        "VEC4",
    );
    let smile = d.floats(&[0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], "VEC3");
    let blink = d.floats(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0], "VEC3");
    d.json["meshes"] = json!([{
        "name": "tri",
        "weights": [0.25, 0.0],
        "extras": { "targetNames": ["smile", "blink"] },
        "primitives": [{
            "attributes": { "POSITION": pos, "NORMAL": nrm, "JOINTS_0": j0, "WEIGHTS_0": w0,
                            "JOINTS_1": j1, "WEIGHTS_1": w1 },
            "targets": [{ "POSITION": smile }, { "POSITION": blink }]
        }]
    }]);
    d.json["nodes"][5]["mesh"] = json!(0);
    d.json["nodes"][5]["skin"] = json!(0);
    d
}

#[test]
fn a_skinned_primitive_with_two_weight_sets_and_morph_targets() {
    let model = GltfModel::from_slice(&doc(0).glb()).unwrap();
    let meshes = model.meshes().unwrap();
    assert_eq!(meshes.len(), 1);
    let m = &meshes[0];
    assert_eq!(m.name, "mesh", "a one-primitive mesh takes its node's name");
    assert_eq!(m.default_weights, [0.25, 0.0]);
    assert_eq!(m.weight_tracks, ["mesh.weights[0]", "mesh.weights[1]"]);
    let names: Vec<&str> = m.mesh.morphs.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, ["smile", "blink"]);
    assert!(
        matches!(&m.mesh.morphs[0].kind, MorphKind::Vertex { vertices, .. } if vertices == &vec![0])
    );
    // Vertex 0: three joints over two sets (0.5, 0.25 | 0.25).
    assert_eq!(m.mesh.skin.span_sizes(), [2, 0, 1, 0, 0, 0]);

    // The animated weights at t = 0.5: (0.5, 0.5) from the channel (keys 0 → (0, 1), 1 → (1, 0)).
    let mut sampler = JointSampler::new(&model, 0).unwrap();
    let world = sampler.sample(0.5).to_vec();
    let mut w = [0.0; 2];
    sampler.weights(m, &mut w);
    assert!(
        (w[0] - 0.5).abs() < 1e-6 && (w[1] - 0.5).abs() < 1e-6,
        "{w:?}"
    );
    let mut matrices = vec![Affine3A::IDENTITY; m.bones.len()];
    m.matrices(&world, &mut matrices);
    let mut d = Deformed::new(&m.mesh);
    d.update(&m.mesh, &matrices, &w, SkinMode::Linear).unwrap();
    let rest0 = Vec3::new(0.0, 1.0, 0.5);
    let want = matrices[0].transform_point3(rest0) * 0.5
        + matrices[1].transform_point3(rest0) * 0.25
        + matrices[2].transform_point3(rest0) * 0.25;
    assert!(
        (d.positions()[0] - want).length() < 1e-5,
        "{} vs {want}",
        d.positions()[0]
    );
    let want2 = matrices[2].transform_point3(Vec3::new(0.5, 2.0, 0.0));
    assert!((d.positions()[2] - want2).length() < 1e-5);
}

#[test]
fn a_mesh_without_a_skin_follows_its_bone_ancestor() {
    // Move the triangle node under "spine" (node 2, a bone) without a skin.
    let mut d = doc(0);
    d.json["nodes"][5].as_object_mut().unwrap().remove("skin");
    d.json["nodes"][5]["translation"] = json!([0.0, 0.5, 0.0]);
    d.json["nodes"][2]["children"] = json!([3, 5]);
    d.json["scenes"][0]["nodes"] = json!([0]);
    let model = GltfModel::from_slice(&d.glb()).unwrap();
    let meshes = model.meshes().unwrap();
    assert_eq!(meshes.len(), 1);
    let m = &meshes[0];
    assert_eq!(m.skin, None);
    assert_eq!(m.bones.len(), 1);
    assert_eq!(m.mesh.skin.span_sizes()[0], 3, "every vertex rigid");
    let mut sampler = JointSampler::new(&model, 0).unwrap();
    for t in [0.0, 0.5, 1.5] {
        let world = sampler.sample(t).to_vec();
        let mut matrices = [Affine3A::IDENTITY];
        m.matrices(&world, &mut matrices);
        let mut d = Deformed::new(&m.mesh);
        d.update(&m.mesh, &matrices, &[0.0, 0.0], SkinMode::Linear)
            .unwrap();
        // The vertex sits where spine's current world puts the node's rest offset.
        let spine = world[m.bones[0].index()];
        let want = spine.transform_point3(Vec3::new(0.0, 0.5, 0.0) + Vec3::new(1.0, 1.0, 0.0));
        assert!(
            (d.positions()[1] - want).length() < 1e-5,
            "t {t}: {} vs {want}",
            d.positions()[1]
        );
    }
}

#[test]
fn malformed_primitives_are_errors_naming_them() {
    let err = GltfModel::from_slice(&doc(7).glb())
        .unwrap()
        .meshes()
        .unwrap_err();
    assert!(
        matches!(&err, GltfError::Invalid { reason, .. } if reason.contains("joint 7")),
        "{err}"
    );
    let mut d = doc(0);
    d.json["meshes"][0]["primitives"][0]["attributes"]["NORMAL"] = json!(0);
    let err = GltfModel::from_slice(&d.glb())
        .unwrap()
        .meshes()
        .unwrap_err();
    assert!(err.to_string().contains("NORMAL"), "{err}");
    let mut d = doc(0);
    d.json["meshes"][0]["primitives"][0]["attributes"]
        .as_object_mut()
        .unwrap()
        .remove("WEIGHTS_0");
    let err = GltfModel::from_slice(&d.glb())
        .unwrap()
        .meshes()
        .unwrap_err();
    assert!(err.to_string().contains("JOINTS_0"), "{err}");
    // A mesh without a skin and without a bone ancestor (node 5 is a scene root) is scenery.
    let mut d = doc(0);
    d.json["nodes"][5].as_object_mut().unwrap().remove("skin");
    assert!(GltfModel::from_slice(&d.glb())
        .unwrap()
        .meshes()
        .unwrap()
        .is_empty());
}
