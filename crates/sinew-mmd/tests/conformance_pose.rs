//! Static-pose conformance against babylon-mmd 1.3.0: every `babylon_*_pose.json` in the shared
//! conformance folder names its model and embeds its pose; each mode (fk, grant, ik, full) must
//! match bone by bone in MMD model space.

mod common;

use std::path::Path;

use glam::{Quat, Vec3};
use serde_json::Value;
use sinew_mmd::{EvalOptions, MmdInstance, MmdModel, StaticPose};

fn mode_options(mode: &str) -> EvalOptions {
    match mode {
        "fk" => EvalOptions {
            append: false,
            ik: false,
        },
        "grant" => EvalOptions {
            append: true,
            ik: false,
        },
        "ik" => EvalOptions {
            append: false,
            ik: true,
        },
        _ => EvalOptions {
            append: true,
            ik: true,
        },
    }
}

fn vec3(v: &Value) -> Vec3 {
    let a = v.as_array().unwrap();
    Vec3::new(
        a[0].as_f64().unwrap() as f32,
        a[1].as_f64().unwrap() as f32,
        a[2].as_f64().unwrap() as f32,
    )
}

fn quat(v: &Value) -> Quat {
    let a = v.as_array().unwrap();
    Quat::from_xyzw(
        a[0].as_f64().unwrap() as f32,
        a[1].as_f64().unwrap() as f32,
        a[2].as_f64().unwrap() as f32,
        a[3].as_f64().unwrap() as f32,
    )
}

/// Angle between two rotations in degrees, computed in f64 (an f32 `acos` of a dot product
/// near 1 cannot resolve angles below ~0.04°).
pub fn angle_deg(a: Quat, b: Quat) -> f32 {
    let a = a.as_dquat().normalize();
    let b = b.as_dquat().normalize();
    let d = a.dot(b).abs().min(1.0);
    let s = (a.conjugate() * b).xyz().length();
    (2.0 * s.atan2(d)).to_degrees() as f32
}

/// Worst (position, angle in degrees, bone) for one frame of one mode.
pub fn compare_frame(instance: &MmdInstance, frame: &Value) -> (f32, f32, String) {
    let mut worst = (0.0f32, 0.0f32, String::new());
    for b in frame["bones"].as_array().unwrap() {
        let name = b["name"].as_str().unwrap();
        if name.ends_with("ＩＫ先") {
            continue;
        }
        let Some(i) = instance.model().bone_index(name) else {
            panic!("bone {name} missing");
        };
        let w = instance.world()[i];
        let (_, r, t) = w.to_scale_rotation_translation();
        let dp = (t - vec3(&b["world_t_mmd"])).length();
        let q = quat(&b["world_q_mmd"]);
        let dq = angle_deg(r, q);
        if dp > worst.0 {
            worst.0 = dp;
            worst.2 = name.to_owned();
        }
        worst.1 = worst.1.max(dq);
    }
    worst
}

fn find_model(assets: &Path, file: &str) -> Option<std::path::PathBuf> {
    common::files_with_ext(assets, &["pmx", "pmd"])
        .into_iter()
        .find(|p| p.file_name().is_some_and(|n| n == file))
}

#[test]
fn static_poses_match_babylon_mmd() {
    let (Some(assets), Some(conf)) = (common::assets_dir(), common::conformance_dir()) else {
        return;
    };
    let mut cases = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&conf)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !(name.starts_with("babylon_") && name.ends_with(".json")) {
            continue;
        }
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        if doc.get("pose").is_none_or(Value::is_null) || !doc["vmd"].is_null() {
            continue;
        }
        let model_file = doc["model"].as_str().unwrap();
        let Some(model_path) = find_model(&assets, model_file) else {
            eprintln!("skipping {name}: model {model_file} not found");
            continue;
        };
        let model = std::sync::Arc::new(
            MmdModel::from_bytes(&std::fs::read(&model_path).unwrap()).unwrap(),
        );
        let pose = StaticPose::from_value(&doc["pose"]).unwrap();
        let mut inst = MmdInstance::new(model);
        assert!(
            pose.apply(&mut inst).is_empty(),
            "{name}: pose names unknown bones"
        );
        for (mode, frames) in doc["modes"].as_object().unwrap() {
            inst.evaluate(mode_options(mode));
            for frame in frames.as_array().unwrap() {
                let (dp, dq, bone) = compare_frame(&inst, frame);
                eprintln!("{name} {mode}: max |dp| = {dp:.6} ({bone}), max angle = {dq:.4}°");
                let (tp, tq) = if mode == "ik" || mode == "full" {
                    (5e-3, 0.5)
                } else {
                    (1e-3, 0.05)
                };
                assert!(
                    dp <= tp && dq <= tq,
                    "{name} {mode}: {dp} > {tp} or {dq}° > {tq}° at {bone}"
                );
            }
        }
        cases += 1;
    }
    assert!(cases >= 1, "no static-pose conformance case found");
}
