//! Skinned vertices against three.js r171 (`shared/conformance/skin/skin_miku_v2_wavefile.json`,
//! `three_skin_oracle.mjs`): miku_v2 + wavefile_v2 at the oracle's frames, the VMD's facial
//! morphs included.
//!
//! three.js solves IK with its own `CCDIKSolver`, which differs from MMD's (babylon-mmd, which
//! sinew matches) on the legs and the hair chains, so the vertices those bones carry differ
//! by up to a unit. Two checks therefore:
//! 1. **Skinning and morphs**: sinew's morph weights (sampled from the VMD) and sinew's
//!    skinning, driven by three.js's own bone matrices (`three_miku_v2_wavefile.json`, same
//!    frames): every vertex within 1e-5 × model size (the measured error is the oracle's
//!    rounding, ≈ 1e-5 units).
//! 2. **The whole path** (sinew's pose): every vertex whose bones sinew and three.js pose
//!    alike (world matrices within 1e-4) is within 1e-4 × model size.

mod common;

use glam::{Affine3A, Quat, Vec3};
use serde_json::Value;
use sinew_character::Character;
use sinew_skin::{Deformed, SkinMode};

fn load(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn vec3(v: &Value) -> Vec3 {
    let a: Vec<f32> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect();
    Vec3::new(a[0], a[1], a[2])
}

#[test]
fn miku_skin_matches_three_js() {
    let (Some(conf), Some(pmd), Some((model, motion))) = (
        common::conformance_dir(),
        common::read_asset("miku_v2.pmd"),
        common::miku_and_wavefile(),
    ) else {
        return;
    };
    let skin_doc = load(&conf.join("skin/skin_miku_v2_wavefile.json"));
    let pose_doc = load(&conf.join("three_miku_v2_wavefile.json"));
    let part = &model.meshes()[0];
    let mesh = &part.mesh;
    let (lo, hi) = mesh.bounds().unwrap();
    let size = (hi - lo).length();
    let mut character = Character::new(&model);
    character.play(&motion);
    let n = model.skeleton().len();
    let mut deformed = Deformed::new(mesh);
    let mut matrices = vec![Affine3A::IDENTITY; part.joints.len()];
    // Each vertex's bones (for check 2).
    let pmd_parsed = sinew_mmd::Pmd::parse(&pmd).unwrap();
    let vertex_bones: Vec<Vec<usize>> = pmd_parsed
        .vertices
        .iter()
        .map(|v| match (v.weight, v.bones) {
            (100, [a, _]) => vec![a as usize],
            (0, [_, b]) => vec![b as usize],
            (_, [a, b]) => vec![a as usize, b as usize],
        })
        .collect();
    let (mut compared, mut compared_own, mut worst_three, mut worst_own) =
        (0usize, 0usize, 0f32, 0f32);
    let mut frames = 0;
    for frame in skin_doc["frames"].as_array().unwrap() {
        let f = frame["frame"].as_u64().unwrap() as u32;
        character.seek(f as f32 / 30.0).unwrap();
        // Morph weights: every morph three.js reports, and no other.
        let expected = frame["morphs"].as_object().unwrap();
        for (name, w) in model.morph_names().iter().zip(character.morph_weights()) {
            let want = expected
                .get(name)
                .map_or(0.0, |v| v.as_f64().unwrap() as f32);
            assert!(
                (w - want).abs() < 1e-4,
                "frame {f}: morph {name} {w} vs {want}"
            );
        }
        let mesh_doc = &frame["meshes"][0];
        assert_eq!(
            mesh_doc["vertices"].as_u64().unwrap() as usize,
            mesh.positions.len()
        );
        let want: Vec<f32> = mesh_doc["positions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect();
        // 1. three.js's bones.
        let bones = pose_doc["modes"]["full"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["frame"].as_u64() == Some(u64::from(f)))
            .expect("three.js pose at the skin frame")["bones"]
            .as_array()
            .unwrap();
        assert_eq!(bones.len(), n);
        let three_world: Vec<Affine3A> = bones
            .iter()
            .map(|b| {
                let q: Vec<f32> = b["world_q_mmd"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap() as f32)
                    .collect();
                Affine3A::from_rotation_translation(
                    Quat::from_xyzw(q[0], q[1], q[2], q[3]).normalize(),
                    vec3(&b["world_t_mmd"]),
                )
            })
            .collect();
        // three.js's bones are in file order: into the skeleton's.
        let mut three_skeleton = vec![Affine3A::IDENTITY; n];
        for (i, w) in three_world.iter().enumerate() {
            three_skeleton[model.bone_of_source(i).unwrap().index()] = *w;
        }
        part.skin_matrices(&three_skeleton, &mut matrices);
        deformed
            .update(mesh, &matrices, character.morph_weights(), SkinMode::Linear)
            .unwrap();
        for (v, p) in deformed.positions().iter().enumerate() {
            let e = (*p - Vec3::from_slice(&want[3 * v..3 * v + 3])).length();
            worst_three = worst_three.max(e);
            assert!(
                e <= 5e-6 * size,
                "frame {f} vertex {v}: {p} vs three.js, {e}"
            );
            compared += 1;
        }
        // 2. sinew's own pose, where it agrees with three.js's bones.
        let agree: Vec<bool> = (0..n)
            .map(|i| {
                (
                    character.world()[model.bone_of_source(i).unwrap().index()],
                    three_world[i],
                )
            })
            .map(|(a, b)| {
                (a.translation - b.translation).length() < 1e-4
                    && [0, 1, 2]
                        .iter()
                        .all(|&c| (a.matrix3.col(c) - b.matrix3.col(c)).length() < 1e-4)
            })
            .collect();
        for (v, p) in character
            .skinned_mesh(0)
            .unwrap()
            .positions()
            .iter()
            .enumerate()
        {
            if vertex_bones[v].iter().all(|&b| agree[b]) {
                let e = (*p - Vec3::from_slice(&want[3 * v..3 * v + 3])).length();
                worst_own = worst_own.max(e);
                assert!(
                    e <= 1e-4 * size,
                    "frame {f} vertex {v}: {p} (sinew's pose), {e}"
                );
                compared_own += 1;
            }
        }
        frames += 1;
    }
    println!(
        "skin vs three.js: {frames} frames; {compared} vertices with three's bones (worst {worst_three:.2e}, \
         size {size:.1}); {compared_own} with sinew's pose where the bones agree (worst {worst_own:.2e})"
    );
    assert_eq!(frames, 3);
    assert_eq!(compared, 3 * 12_354);
    assert!(
        compared_own > 3 * 9_000,
        "only {compared_own} vertices on agreeing bones"
    );
}
