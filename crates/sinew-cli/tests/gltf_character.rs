//! A glTF character with a two-bone IK target and physics candidates, played through the CLI
//! (`sinew pose Fox.glb --pose chains+targets.json --physics`) and through the library type
//! (`Character`), gives the same joints; the IK reaches its target and the tail (the default
//! loose chain) swings under physics, away from the animation.

use std::collections::HashMap;

use assert_cmd::Command;
use glam::Vec3;
use sinew_character::{chain_profile, Character, CharacterModel, PoseFile};

const FOX: &str = "gltf/Fox/Fox.glb";
/// Where the left foreleg reaches: in front of and below the shoulder (Fox units).
const TARGET: [f32; 3] = [8.0, 25.0, 45.0];

fn pose_json() -> String {
    format!(
        r#"{{"chains": {{"leg": {{"links": ["b_LeftUpperArm_09", "b_LeftForeArm_010"],
                      "effector": "b_LeftHand_011", "solver": "two-bone"}}}},
            "targets": {{"leg": {{"position": [{}, {}, {}], "weight": 1.0}}}}}}"#,
        TARGET[0], TARGET[1], TARGET[2]
    )
}

fn times() -> Vec<f32> {
    (0..=12).map(|k| k as f32 * 0.1).collect()
}

/// The library's joints at `times`: world translation per node.
fn library(physics: bool) -> Vec<HashMap<usize, Vec3>> {
    let path = sinew_testkit::asset(FOX).unwrap();
    let model = CharacterModel::load_gltf_with(
        &path,
        sinew_gltf::LoadOptions {
            normalize_rotations: false,
        },
    )
    .unwrap();
    let pose = PoseFile::from_json(&pose_json()).unwrap();
    let model = model.with_ik_chains(&pose.chains).unwrap();
    let mut c = Character::new(&model);
    c.play(model.clip(1).unwrap());
    pose.apply_targets(&mut c).unwrap();
    if physics {
        let mut settings = model.physics_settings().clone();
        settings.options.profile = Some(chain_profile(&model, &[]).unwrap());
        c.enable_physics_with(&settings).unwrap();
    }
    let gltf = model.gltf().unwrap();
    let mut out = Vec::new();
    for &t in &times() {
        // As the CLI steps: from 0 in steps of at most 1/30 s with physics, else a seek.
        if physics {
            c.advance_to(f64::from(t), 1.0 / 30.0).unwrap();
        } else {
            c.seek(t).unwrap();
        }
        let joints = (gltf.joint_bones().iter())
            .map(|&(node, bone)| (node, Vec3::from(c.world()[bone.index()].translation)))
            .collect();
        out.push(joints);
    }
    out
}

fn cli(physics: bool, dir: &std::path::Path) -> Vec<HashMap<usize, Vec3>> {
    let fox = sinew_testkit::asset(FOX).unwrap();
    let pose = dir.join("pose.json");
    std::fs::write(&pose, pose_json()).unwrap();
    let out = dir.join(format!("fox-{physics}.json"));
    let list: Vec<String> = times().iter().map(|t| format!("{t}")).collect();
    let mut cmd = Command::cargo_bin("sinew").unwrap();
    cmd.arg("pose")
        .arg(&fox)
        .args(["--clip", "1", "--pose"])
        .arg(&pose);
    if physics {
        cmd.arg("--physics");
    }
    cmd.args(["--times", &list.join(","), "--json"])
        .arg(&out)
        .assert()
        .success();
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    (doc["samples"].as_array().unwrap().iter())
        .map(|s| {
            (s["joints"].as_array().unwrap().iter())
                .map(|j| {
                    let t = &j["world_t"];
                    let v = |i: usize| t[i].as_f64().unwrap() as f32;
                    (
                        j["node"].as_u64().unwrap() as usize,
                        Vec3::new(v(0), v(1), v(2)),
                    )
                })
                .collect()
        })
        .collect()
}

#[test]
fn gltf_ik_and_physics_alike_through_the_cli_and_the_library() {
    if sinew_testkit::asset(FOX).is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("sinew-gltf-character-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (lib, lib_still) = (library(true), library(false));
    let from_cli = cli(true, &dir);
    assert_eq!(lib.len(), from_cli.len());
    let mut compared = 0;
    let mut worst = 0.0f32;
    for (a, b) in lib.iter().zip(&from_cli) {
        assert_eq!(a.len(), b.len(), "joints per sample");
        for (node, p) in a {
            // The CLI writes 7 decimals.
            worst = worst.max((*p - b[node]).length());
            compared += 1;
        }
    }
    println!("{compared} joint samples compared: worst CLI vs library {worst:.2e}");
    assert_eq!(compared, 13 * 24);
    assert!(worst < 1e-4, "{worst}");
    // The IK reached its target (node 14: b_LeftHand_011), with physics on as off.
    for (k, sample) in lib.iter().chain(&lib_still).enumerate() {
        let hand = sample[&14];
        assert!(
            hand.distance(Vec3::from(TARGET)) < 0.05,
            "sample {k}: hand at {hand}"
        );
    }
    // The tail tip (node 17) leaves its animated path under physics.
    let swing = (lib.iter().zip(&lib_still))
        .map(|(a, b)| a[&17].distance(b[&17]))
        .fold(0.0f32, f32::max);
    println!("tail tip: up to {swing:.2} from the animation");
    assert!(swing > 1.0, "the tail did not move under physics: {swing}");
    assert!(lib.iter().flat_map(|s| s.values()).all(|p| p.is_finite()));
    let _ = std::fs::remove_dir_all(&dir);
}
