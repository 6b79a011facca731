//! Writes generated MMD models (every bone rule: hierarchies in any order, deform layers,
//! append of every kind, fixed axes, IK chains with limits) with a static pose each, for the
//! reference runtimes in `../shared/oracle` (babylon-mmd) to evaluate:
//!
//! ```sh
//! cargo run -p sinew-hostile --example oracle_cases -- OUT_DIR [COUNT] [SEED]
//! ```
//!
//! Each case is `OUT_DIR/case_N.pmx`, `OUT_DIR/case_N.json` (a static pose, the oracle's pose
//! format) and `OUT_DIR/case_N.vmd` (a motion keying every bone at frames 0, 10 and 20). Bones
//! get unique names (the pose names them); numbers stay ordinary (no wild floats).

use std::path::PathBuf;

use glam::{Quat, Vec3};
use serde_json::json;
use sinew_hostile::gen::{self, GenLimits};
use sinew_mmd::vmd::{Vmd, VmdBoneKey};

fn main() {
    let mut args = std::env::args().skip(1);
    let out = PathBuf::from(args.next().expect("OUT_DIR"));
    let count: usize = args.next().map_or(50, |v| v.parse().expect("COUNT"));
    let seed: u64 = args.next().map_or(7, |v| v.parse().expect("SEED"));
    std::fs::create_dir_all(&out).expect("create OUT_DIR");
    let limits = GenLimits {
        bones: 16,
        bodies: 0,
        joints: 0,
        links: 4,
    };
    let mut written = 0;
    for (_, mut pmx) in gen::seeded(seed, usize::MAX, limits) {
        if written == count {
            break;
        }
        for (i, b) in pmx.bones.iter_mut().enumerate() {
            b.name = format!("b{i}");
        }
        let bytes = pmx.to_bytes();
        let Ok(model) = sinew_mmd::MmdModel::from_bytes(&bytes) else {
            continue;
        };
        let ordinary = model.bones().iter().all(|b| {
            b.position.is_finite()
                && b.position.abs().max_element() < 1e3
                && b.append
                    .is_none_or(|a| a.ratio.is_finite() && a.ratio.abs() < 10.0)
                && b.ik.as_ref().is_none_or(|ik| ik.limit_angle.is_finite())
        });
        if !ordinary || !model.warnings().is_empty() {
            continue;
        }
        let mut bones = serde_json::Map::new();
        for i in 0..model.bones().len() {
            let a = 0.9 + i as f32 * 0.7 + written as f32 * 0.31;
            let axis = Vec3::new(a.sin(), a.cos(), (a * 0.5).sin()).normalize();
            let r = Quat::from_axis_angle(
                axis,
                (0.3 + 0.5 * (a * 1.3).sin().abs()).copysign((a * 0.9).sin()),
            );
            let t = Vec3::new(0.3 * a.sin(), 0.2 * a.cos(), 0.1 * (a * 2.1).sin());
            bones.insert(
                format!("b{i}"),
                json!({"t": t.to_array(), "r": r.to_array()}),
            );
        }
        // A motion: keys at frames 0, 10 and 20 for every bone, poses of the same kind.
        let mut keys = Vec::new();
        for frame in [0u32, 10, 20] {
            for i in 0..model.bones().len() {
                let a = 1.7 + i as f32 * 0.9 + written as f32 * 0.23 + frame as f32 * 0.37;
                let axis = Vec3::new(a.cos(), (a * 1.1).sin(), a.sin()).normalize();
                keys.push(VmdBoneKey {
                    bone_name: format!("b{i}"),
                    frame,
                    translation: Vec3::new(0.2 * a.cos(), 0.3 * a.sin(), 0.1 * (a * 1.7).cos()),
                    rotation: Quat::from_axis_angle(axis, 0.3 + 0.5 * (a * 0.8).sin().abs()),
                    interpolation: [20; 64],
                });
            }
        }
        let vmd = Vmd {
            bone_keys: keys,
            ..Vmd::default()
        };
        let stem = out.join(format!("case_{written}"));
        std::fs::write(stem.with_extension("vmd"), vmd.to_bytes()).expect("write vmd");
        std::fs::write(stem.with_extension("pmx"), &bytes).expect("write pmx");
        let pose = json!({"description": "generated", "bones": bones});
        std::fs::write(stem.with_extension("json"), pose.to_string()).expect("write pose");
        written += 1;
    }
    println!("{written} cases in {}", out.display());
}
