//! A character under arbitrary animated input — any bone turned anyway, IK target bones
//! anywhere from on their chain to 1e19 away — stays finite in every mode (miku_v2; skipped
//! with a message when the shared assets are absent).

mod common;

use std::sync::{Arc, OnceLock};

use glam::{Quat, Vec3};
use proptest::prelude::*;
use sinew::instance::Stages;
use sinew_character::{Character, CharacterModel};

fn model() -> Option<Arc<CharacterModel>> {
    static MODEL: OnceLock<Option<Arc<CharacterModel>>> = OnceLock::new();
    MODEL.get_or_init(|| common::model("miku_v2.pmd")).clone()
}

fn quat() -> impl Strategy<Value = Quat> {
    ((-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0), -3.2f32..3.2).prop_map(|((x, y, z), a)| {
        Quat::from_axis_angle(Vec3::new(x, y, z).try_normalize().unwrap_or(Vec3::Y), a)
    })
}

fn offset() -> impl Strategy<Value = Vec3> {
    let v =
        (-30.0f32..30.0, -30.0f32..30.0, -30.0f32..30.0).prop_map(|(x, y, z)| Vec3::new(x, y, z));
    prop_oneof![
        4 => v.clone(),
        1 => Just(Vec3::ZERO),
        1 => v.clone().prop_map(|v| v * 1e-20),
        1 => v.prop_map(|v| v * 1e19),
    ]
}

proptest! {
    #[test]
    fn any_animated_input_stays_finite(
        turns in prop::collection::vec((0usize..200, quat()), 0..40),
        moves in prop::collection::vec((0usize..200, offset()), 0..12),
        mode in 0usize..3,
    ) {
        let Some(model) = model() else { return Ok(()); };
        let (mmd, _) = model.mmd().unwrap();
        let n = mmd.bones().len();
        let mut pose: Vec<(usize, Vec3, Quat)> = Vec::new();
        fn at(pose: &mut Vec<(usize, Vec3, Quat)>, b: usize) -> usize {
            match pose.iter().position(|e| e.0 == b) {
                Some(k) => k,
                None => {
                    pose.push((b, Vec3::ZERO, Quat::IDENTITY));
                    pose.len() - 1
                }
            }
        }
        for (bone, q) in &turns {
            let k = at(&mut pose, bone % n);
            pose[k].2 = *q;
        }
        // Mostly the IK bones themselves (targets), sometimes any bone.
        let iks: Vec<usize> = (0..n).filter(|&b| mmd.bones()[b].ik.is_some()).collect();
        for (k, (bone, v)) in moves.iter().enumerate() {
            let b = if k % 3 == 2 || iks.is_empty() { bone % n } else { iks[bone % iks.len()] };
            let e = at(&mut pose, b);
            pose[e].1 = *v;
        }
        let mut c = Character::new(&model);
        c.play(&common::pose_motion(&model, &pose));
        c.set_stages(Stages::from_mode(["fk", "ik", "full"][mode]).unwrap());
        c.seek(0.0).unwrap();
        for (i, m) in c.world().iter().enumerate() {
            prop_assert!(m.is_finite(), "bone {}: {:?}", i, m);
        }
    }
}
