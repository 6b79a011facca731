//! The after-physics pass bone by bone against the removed MMD engine: 40 generated models
//! whose bones flagged "after physics" read more than their parent (append, IK, bodies,
//! before-physics children — `StagedGap::AfterPhysics`), two frames each of a pose, MMD's
//! before-physics pass, a stand-in physics step (each body's bone turned about its own
//! position) and the after-physics pass. `tests/data/after_physics_golden.json` holds what
//! sinew-mmd's own bone-by-bone engine (commit f1faed3, proven against babylon-mmd on static
//! poses: `babylon_generated.rs`) gave for exactly this; a character over the bone-by-bone
//! definitions, which replaced it, must give the same through `Character::update_with` (the
//! stand-in step as a host's own physics; no real engine in the loop, so no chaos: differences
//! are the evaluation's). The fixture was written by `oracle/after_physics_golden.rs.txt` run
//! as an example of that commit.

use std::sync::Arc;

use glam::{Affine3A, Quat, Vec3};
use serde_json::Value;
use sinew_character::{Character, CharacterModel};
use sinew_hostile::wave_motion;
use sinew_mmd::{MmdModel, StagedGap};

fn bytes(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
        .collect()
}

#[test]
fn after_physics_pass_matches_the_removed_engine() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/after_physics_golden.json"
    );
    let data: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("JSON");
    let cases = data["cases"].as_array().expect("cases");
    let (mut compared, mut worst) = (0, 0.0f32);
    for case in cases {
        let model =
            Arc::new(MmdModel::from_bytes(&bytes(case["pmx"].as_str().expect("pmx"))).unwrap());
        assert!(model
            .staged_gaps(true)
            .iter()
            .any(|g| matches!(g, StagedGap::AfterPhysics { .. })));
        let character_model = CharacterModel::from_mmd(Arc::clone(&model)).expect("definitions");
        assert!(
            character_model.mmd().unwrap().1.is_bone_by_bone(),
            "a model with gaps"
        );
        let simulated: Vec<usize> = (model.rigid_bodies().iter())
            .filter_map(|b| b.bone)
            .map(|i| character_model.bone_of_source(i).expect("a bone").index())
            .collect();
        let mut c = Character::new(&character_model);
        c.play(&wave_motion(&model, &[0.1, 0.2]));
        for (frame, reference) in case["frames"]
            .as_array()
            .expect("frames")
            .iter()
            .enumerate()
        {
            let turn = Affine3A::from_rotation_z(0.4 + 0.2 * frame as f32);
            c.update_with(frame as f32, |world| {
                for &b in &simulated {
                    let w = world[b];
                    let p = Affine3A::from_translation(w.translation.into());
                    world[b] = p * turn * p.inverse() * w;
                }
            })
            .expect("a frame");
            let world = character_model.to_source_order(c.world());
            for (i, (w, r)) in world
                .iter()
                .zip(reference.as_array().expect("bones"))
                .enumerate()
            {
                let v: Vec<f32> = (r.as_array().expect("7 numbers").iter())
                    .map(|x| x.as_f64().expect("number") as f32)
                    .collect();
                let (_, q, t) = w.to_scale_rotation_translation();
                // The angle from the vector part (acos of a dot near 1 is coarse in f32).
                let e = q.inverse() * Quat::from_xyzw(v[3], v[4], v[5], v[6]).normalize();
                let angle = 2.0 * Vec3::new(e.x, e.y, e.z).length().atan2(e.w.abs());
                let d = (t - Vec3::new(v[0], v[1], v[2])).length().max(angle);
                assert!(
                    d < 1e-4,
                    "case {} frame {frame} bone {i}: {d}",
                    case["case"]
                );
                worst = worst.max(d);
            }
            compared += 1;
        }
    }
    println!(
        "{compared} frames of {} models: worst {worst:.2e}",
        cases.len()
    );
    assert_eq!(compared, 80);
}
