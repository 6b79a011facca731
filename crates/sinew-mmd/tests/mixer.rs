//! Multi-motion blending for MMD: weights, fades, and agreement with single-motion playback.

mod common;

use std::sync::Arc;

use glam::{Quat, Vec3};
use sinew::anim::Ease;
use sinew_mmd::vmd::{VmdBoneKey, VmdVersion};
use sinew_mmd::{MmdInstance, MmdModel, MmdMotion, MotionMixer, MotionPlayer, Vmd};

fn turn_motion(bone: &str, angle: f32) -> Vmd {
    Vmd {
        version: VmdVersion::V2,
        model_name: "test".into(),
        bone_keys: vec![VmdBoneKey {
            bone_name: bone.into(),
            frame: 0,
            translation: Vec3::ZERO,
            rotation: Quat::from_rotation_y(angle),
            interpolation: [20; 64],
        }],
        ..Vmd::default()
    }
}

#[test]
fn mixer_blends_weights_and_fades() {
    let Some(assets) = common::assets_dir() else {
        return;
    };
    let Ok(pmd) = std::fs::read(assets.join("mmd/threejs-examples/miku/miku_v2.pmd")) else {
        sinew_testkit::assets::missing("miku_v2.pmd");
        return;
    };
    let model = Arc::new(MmdModel::from_bytes(&pmd).unwrap());
    let upper = model.bone_index("上半身").unwrap();
    let a = Arc::new(MmdMotion::from_vmd(&turn_motion("上半身", 0.0), Some(&model)).unwrap());
    let b = Arc::new(MmdMotion::from_vmd(&turn_motion("上半身", 1.0), Some(&model)).unwrap());
    let mut mixer = MotionMixer::new(&model);
    let la = mixer.add(Arc::clone(&a), &model, 1.0).unwrap();
    let lb = mixer.add(Arc::clone(&b), &model, 0.0).unwrap();
    let mut inst = MmdInstance::new(Arc::clone(&model));
    // Only A weighs: A's pose.
    mixer.apply(0.0, &mut inst);
    assert!(inst.rotations()[upper].abs_diff_eq(Quat::IDENTITY, 1e-6));
    // Cross-fade A → B over 10 frames from frame 5.
    assert!(
        mixer.fade(la, 5.0, 10.0, 0.0, Ease::Linear)
            && mixer.fade(lb, 5.0, 10.0, 1.0, Ease::Linear)
    );
    mixer.apply(10.0, &mut inst);
    assert!((mixer.weight(la, 10.0).unwrap() - 0.5).abs() < 1e-6);
    let half = inst.rotations()[upper];
    let (axis, angle) = half.to_axis_angle();
    assert!(
        axis.abs_diff_eq(Vec3::Y, 1e-4) && (angle - 0.5).abs() < 2e-2,
        "{axis} {angle}"
    );
    mixer.apply(15.0, &mut inst);
    assert!(inst.rotations()[upper].abs_diff_eq(Quat::from_rotation_y(1.0), 1e-5));
    // The fade is continuous: no jump between neighbouring sub-frames.
    let mut prev = None;
    for k in 0..=200 {
        let f = 4.0 + k as f32 * 0.06;
        mixer.apply(f, &mut inst);
        let q = inst.rotations()[upper];
        if let Some(p) = prev {
            assert!(q.angle_between(p) < 0.02, "jump at frame {f}");
        }
        prev = Some(q);
    }
    // A mixer with one motion equals the single-motion player.
    let Ok(vmd) = std::fs::read(assets.join("mmd/threejs-examples/vmds/wavefile_v2.vmd")) else {
        return;
    };
    let dance = Arc::new(MmdMotion::from_vmd(&Vmd::parse(&vmd).unwrap(), Some(&model)).unwrap());
    let mut one = MotionMixer::new(&model);
    one.add(Arc::clone(&dance), &model, 1.0).unwrap();
    let mut player = MotionPlayer::new(dance, &model);
    let mut i1 = MmdInstance::new(Arc::clone(&model));
    let mut i2 = MmdInstance::new(Arc::clone(&model));
    for f in [0.0, 100.0, 1234.5] {
        one.apply(f, &mut i1);
        player.apply(f, &mut i2);
        for k in 0..model.bones().len() {
            assert!(
                i1.rotations()[k].abs_diff_eq(i2.rotations()[k], 1e-5)
                    || i1.rotations()[k].abs_diff_eq(-i2.rotations()[k], 1e-5)
            );
            assert!(i1.translations()[k].abs_diff_eq(i2.translations()[k], 1e-5));
        }
    }
}
