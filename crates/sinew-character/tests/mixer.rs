//! Motions mixed on a character: weights, cross-fades with eases, a layer fading out removed,
//! and one layer at full weight equal to playing the motion alone.

mod common;

use glam::{Quat, Vec3};
use sinew::anim::Ease;
use sinew_character::{Character, Motion};
use sinew_mmd::vmd::{VmdBoneKey, VmdVersion};
use sinew_mmd::Vmd;

fn turn_motion(model: &sinew_character::CharacterModel, bone: &str, angle: f32) -> Motion {
    let vmd = Vmd {
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
    };
    Motion::from_vmd(&vmd.to_bytes(), Some(model.mmd().unwrap().0)).unwrap()
}

#[test]
fn layers_blend_weights_and_cross_fade() {
    let Some((model, dance)) = common::miku_and_wavefile() else {
        return;
    };
    let upper = model.bone("上半身").unwrap();
    let parent = model.skeleton().parent(upper).unwrap();
    let local = |c: &Character| {
        let w = c.world();
        let l = w[parent.index()].inverse() * w[upper.index()];
        l.to_scale_rotation_translation().1
    };
    let a = turn_motion(&model, "上半身", 0.0);
    let b = turn_motion(&model, "上半身", 1.0);
    let mut c = Character::new(&model);
    c.set_stages(sinew::instance::Stages::from_mode("fk").unwrap());
    c.play(&a);
    c.seek(0.0).unwrap();
    assert!(local(&c).abs_diff_eq(Quat::IDENTITY, 1e-5));
    // Cross-fade A → B over 1/3 s from 1/6 s.
    c.seek(5.0 / 30.0).unwrap();
    c.cross_fade(&b, 10.0 / 30.0, Ease::Linear).unwrap();
    c.seek(10.0 / 30.0).unwrap();
    let weights: Vec<f32> = c.layers().map(|l| l.2).collect();
    assert!(
        (weights[0] - 0.5).abs() < 1e-5 && (weights[1] - 0.5).abs() < 1e-5,
        "{weights:?}"
    );
    let (axis, angle) = local(&c).to_axis_angle();
    assert!(
        axis.abs_diff_eq(Vec3::Y, 1e-3) && (angle - 0.5).abs() < 2e-2,
        "{axis} {angle}"
    );
    c.seek(15.0 / 30.0).unwrap();
    assert!(local(&c).abs_diff_eq(Quat::from_rotation_y(1.0), 1e-4));
    // A finished fade to zero leaves: only B plays.
    assert_eq!(c.layers().count(), 1);
    // The fade is continuous: no jump between neighbouring sub-frames.
    let mut c = Character::new(&model);
    c.set_stages(sinew::instance::Stages::from_mode("fk").unwrap());
    c.play(&a);
    let la = c.layers().next().unwrap().0;
    let lb = c.add_layer(&b, 0.0).unwrap();
    c.seek(4.0 / 30.0).unwrap();
    assert!(c.fade_layer(la, 0.0, 10.0 / 30.0, Ease::SmoothStep));
    assert!(c.fade_layer(lb, 1.0, 10.0 / 30.0, Ease::SmoothStep));
    let mut prev = None;
    for k in 0..=200 {
        c.seek((4.0 + k as f32 * 0.06) / 30.0).unwrap();
        let q = local(&c);
        if let Some(p) = prev {
            assert!(q.angle_between(p) < 0.02, "jump at step {k}");
        }
        prev = Some(q);
    }
    // One layer at full weight equals the motion played alone; a second layer at weight 0
    // changes nothing either.
    let mut alone = Character::new(&model);
    alone.play(&dance);
    let mut two = Character::new(&model);
    two.play(&dance);
    two.add_layer(&b, 0.0).unwrap();
    for f in [0.0, 100.0, 1234.5] {
        alone.seek(f / 30.0).unwrap();
        two.seek(f / 30.0).unwrap();
        for (x, y) in alone.world().iter().zip(two.world()) {
            assert!((x.translation - y.translation).length() < 1e-4, "frame {f}");
        }
    }
}
