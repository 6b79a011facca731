//! Helpers shared by the conformance tests: reading oracle JSON and comparing poses.

use glam::{Quat, Vec3};
use serde_json::Value;
use sinew::instance::Stages;
use sinew_character::Character;

/// The stages of an oracle mode (fk, grant, ik, full).
pub fn mode_stages(mode: &str) -> Stages {
    Stages::from_mode(mode).unwrap_or_else(|| panic!("unknown oracle mode {mode}"))
}

/// A JSON `[x, y, z]`.
pub fn vec3(v: &Value) -> Vec3 {
    let a = v.as_array().unwrap();
    Vec3::new(
        a[0].as_f64().unwrap() as f32,
        a[1].as_f64().unwrap() as f32,
        a[2].as_f64().unwrap() as f32,
    )
}

/// A JSON `[x, y, z, w]`.
pub fn quat(v: &Value) -> Quat {
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
pub fn compare_frame(character: &Character, frame: &Value) -> (f32, f32, String) {
    let mut worst = (0.0f32, 0.0f32, String::new());
    for b in frame["bones"].as_array().unwrap() {
        let name = b["name"].as_str().unwrap();
        if name.ends_with("ＩＫ先") {
            continue;
        }
        let Some(bone) = character.model().bone(name) else {
            panic!("bone {name} missing");
        };
        let w = character.world()[bone.index()];
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
