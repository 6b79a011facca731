//! Skinned vertices of the shared glTF files against three.js r171
//! (`shared/conformance/skin/skin_gltf_*.json`, `three_skin_oracle.mjs`): every vertex of every
//! skinned primitive at every sampled time, within a small fraction of the model's size.

mod common;

use glam::{Affine3A, Vec3};
use serde_json::Value;
use sinew_gltf::{GltfModel, JointSampler};
use sinew_skin::{Deformed, SkinMode};

#[test]
fn gltf_skinned_vertices_match_three_js() {
    let Some(conf) = common::conformance_dir() else {
        return;
    };
    let files = common::gltf_files();
    let mut cases = 0;
    let mut vertices = 0usize;
    let mut worst_ratio = 0f32;
    for name in ["CesiumMan", "Fox", "RiggedFigure", "RobotExpressive"] {
        let Some(path) = files.iter().find(|p| {
            p.file_name()
                .is_some_and(|n| n == format!("{name}.glb").as_str())
        }) else {
            sinew_testkit::assets::missing(&format!("{name}.glb"));
            continue;
        };
        let doc: Value = serde_json::from_str(
            &std::fs::read_to_string(conf.join(format!("skin/skin_gltf_{name}.json"))).unwrap(),
        )
        .unwrap();
        let model = GltfModel::load(path).unwrap();
        // three.js lists skinned meshes only.
        let meshes: Vec<_> = model
            .meshes()
            .unwrap()
            .into_iter()
            .filter(|m| m.skin.is_some())
            .collect();
        let clip = doc["clip"]["index"].as_u64().unwrap() as usize;
        let mut sampler = JointSampler::new(&model, clip).unwrap();
        let size = model.model_size();
        let mut deformed: Vec<Deformed> = meshes.iter().map(|m| Deformed::new(&m.mesh)).collect();
        for sample in doc["samples"].as_array().unwrap() {
            let t = sample["time"].as_f64().unwrap() as f32;
            sampler.sample(t);
            let world = sampler.world().to_vec();
            let want = sample["meshes"].as_array().unwrap();
            assert_eq!(want.len(), meshes.len(), "{name}: skinned primitives");
            for ((m, d), w) in meshes.iter().zip(&mut deformed).zip(want) {
                assert_eq!(
                    w["vertices"].as_u64().unwrap() as usize,
                    m.mesh.positions.len(),
                    "{name} {}",
                    m.name
                );
                if let Some(n) = w["name"].as_str() {
                    assert_eq!(n, m.name, "{name}: mesh order");
                }
                let mut matrices = vec![Affine3A::IDENTITY; m.bones.len()];
                m.matrices(&world, &mut matrices);
                d.update(&m.mesh, &matrices, &m.default_weights, SkinMode::Linear)
                    .unwrap();
                let pos = w["positions"].as_array().unwrap();
                for (v, p) in d.positions().iter().enumerate() {
                    let q = Vec3::new(
                        pos[3 * v].as_f64().unwrap() as f32,
                        pos[3 * v + 1].as_f64().unwrap() as f32,
                        pos[3 * v + 2].as_f64().unwrap() as f32,
                    );
                    let ratio = (*p - q).length() / size;
                    worst_ratio = worst_ratio.max(ratio);
                    assert!(
                        ratio <= 2e-5,
                        "{name} {} t {t} vertex {v}: {p} vs {q} ({ratio:e} of size {size})",
                        m.name
                    );
                    vertices += 1;
                }
            }
        }
        cases += 1;
    }
    println!("glTF skin vs three.js: {cases} files, {vertices} vertices, worst {worst_ratio:.2e} × model size");
    if cases > 0 {
        assert_eq!(cases, 4);
        assert_eq!(vertices, 3 * (3273 + 1728 + 370 + 2 * (256 + 298)));
    }
}
