//! Conformance against three.js r171 (`shared/conformance/gltf_<Name>.json`): world transforms
//! of every skin joint, relative to the scene root, for the dumped clip (looping) at the listed
//! times. Tolerances: position 2e-6 × model size (bounding-box diagonal of the rest joint
//! positions), rotation 3e-4° — about 4× the worst measured (4.7e-7 × size, 7.1e-5°).

mod common;

use std::path::Path;

use glam::{Quat, Vec3};
use sinew_gltf::{GltfModel, GltfWarning, JointSampler, LoadOptions};

struct Worst {
    position: f32,
    angle: f32,
    at_position: String,
    at_angle: String,
}

fn compare(path: &Path, dump: &serde_json::Value, options: LoadOptions) -> (GltfModel, Worst) {
    let model =
        GltfModel::load_with(path, options).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let clip_index = dump["clip"]["index"].as_u64().unwrap() as usize;
    let mut sampler = JointSampler::new(&model, clip_index).unwrap();
    let want_duration = dump["clip"]["duration"].as_f64().unwrap() as f32;
    assert!(
        (sampler.clip().duration() - want_duration).abs() < 1e-5,
        "{}: duration {} vs three {want_duration}",
        path.display(),
        sampler.clip().duration()
    );
    assert_eq!(
        model.clips().len(),
        dump["clips"].as_array().unwrap().len(),
        "clip count"
    );
    let size = model.model_size();
    let mut w = Worst {
        position: 0.0,
        angle: 0.0,
        at_position: String::new(),
        at_angle: String::new(),
    };
    for s in dump["samples"].as_array().unwrap() {
        let time = s["time"].as_f64().unwrap() as f32;
        let world = sampler.sample(time).to_vec();
        let joints = s["joints"].as_array().unwrap();
        assert_eq!(joints.len(), model.joint_bones().len(), "joint count");
        for j in joints {
            let node = j["node"].as_u64().unwrap() as usize;
            let bone = model.node_to_bone()[node].expect("joint is a bone");
            let f = |k: &str| -> Vec<f32> {
                j[k].as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap() as f32)
                    .collect()
            };
            let (t, q) = (f("world_t"), f("world_q"));
            let want_t = Vec3::new(t[0], t[1], t[2]);
            let want_q = Quat::from_xyzw(q[0], q[1], q[2], q[3]);
            let (_, got_q, got_t) = world[bone.index()].to_scale_rotation_translation();
            let dp = got_t.distance(want_t) / size;
            let da = angle_deg(got_q, want_q);
            if dp > w.position {
                w.position = dp;
                w.at_position = format!("t={time} node {node}");
            }
            if da > w.angle {
                w.angle = da;
                w.at_angle = format!("t={time} node {node}");
            }
        }
    }
    (model, w)
}

#[test]
fn joint_worlds_match_threejs() {
    let Some(conf) = common::conformance_dir() else {
        return;
    };
    let mut checked = 0;
    for path in common::gltf_files() {
        let file = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap()
            .to_owned();
        let stem = file.split('.').next().unwrap_or_default().to_owned();
        let Ok(text) = std::fs::read_to_string(conf.join(format!("gltf_{stem}.json"))) else {
            continue;
        };
        let dump: serde_json::Value = serde_json::from_str(&text).unwrap();
        // The dump names the file it was made from (SimpleSkin.gltf, not SimpleSkin.bevy.gltf).
        if dump["file"].as_str() != Some(file.as_str()) {
            continue;
        }
        let clip = dump["clip"]["index"].as_u64().unwrap() as usize;
        // Default loading (rotation keys normalised).
        let (model, w) = compare(&path, &dump, LoadOptions::default());
        println!(
            "{stem}: size {:.4}; worst position {:.2e} × size ({}), worst angle {:.2e}° ({})",
            model.model_size(),
            w.position,
            w.at_position,
            w.angle,
            w.at_angle
        );
        let sloppy = model.warnings().iter().any(
            |x| matches!(x, GltfWarning::NonUnitRotation { animation, .. } if *animation == clip),
        );
        assert!(
            w.position <= POSITION_TOL,
            "{stem}: position {}",
            w.position
        );
        if sloppy {
            println!(
                "  {stem}: clip {clip} has non-unit rotation keys; three.js uses them unnormalised"
            );
        } else {
            assert!(
                w.angle <= ANGLE_TOL,
                "{stem}: angle {}° at {}",
                w.angle,
                w.at_angle
            );
        }
        // three.js-compatible loading (keys as stored): must match everywhere.
        let (_, w) = compare(
            &path,
            &dump,
            LoadOptions {
                normalize_rotations: false,
            },
        );
        if sloppy {
            println!(
                "  {stem} (keys unnormalised): worst position {:.2e} × size, worst angle {:.2e}°",
                w.position, w.angle
            );
        }
        assert!(
            w.position <= POSITION_TOL,
            "{stem}: position {}",
            w.position
        );
        assert!(
            w.angle <= ANGLE_TOL,
            "{stem}: angle {}° at {}",
            w.angle,
            w.at_angle
        );
        checked += 1;
    }
    println!("{checked} files checked");
    // Every conformance dump in the shared folder (7 files) was compared.
    assert_eq!(checked, 7, "glTF files compared");
}

/// Worst position error measured over the shared files: 4.7e-7 × model size; the bound sits
/// about 4× above.
const POSITION_TOL: f32 = 2e-6;
/// Worst angle measured: 7.1e-5° (files with unit keys); about 4× above.
const ANGLE_TOL: f32 = 3e-4;

/// Angle between two rotations in degrees, computed in f64 as `2·atan2(|v|, |w|)` of the
/// relative quaternion (acos of a dot product near 1 loses precision in f32).
fn angle_deg(a: Quat, b: Quat) -> f32 {
    let a = a.as_dquat().normalize();
    let b = b.as_dquat().normalize();
    let r = a.conjugate() * b;
    let v = glam::DVec3::new(r.x, r.y, r.z).length();
    (2.0 * v.atan2(r.w.abs())).to_degrees() as f32
}
