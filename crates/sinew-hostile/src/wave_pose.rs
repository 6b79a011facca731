//! A deterministic pose for generated models ([`wave_pose`], [`wave_motion`]): what the property
//! tests that compare evaluations feed every model.

use glam::{Quat, Vec3};
use sinew::anim::{BoneTrack, Clip, Track, ValueSpace, Wrap};
use sinew_character::Motion;
use sinew_mmd::MmdModel;

/// File bone `i`'s wave at `phase`: it turns by `0.6 · sin(1.3 a)` rad about an axis that
/// wanders with `a = phase + 0.7 i`, and moves by `(0.05 sin a, 0.1 cos a, 0)` from rest — off
/// every fixed axis, different per bone and phase.
#[must_use]
pub fn wave_pose(i: usize, phase: f32) -> (Vec3, Quat) {
    let a = phase + i as f32 * 0.7;
    let axis = Vec3::new(a.sin(), a.cos(), (a * 0.5).sin()).normalize_or(Vec3::Y);
    (
        Vec3::new(0.05 * a.sin(), 0.1 * a.cos(), 0.0),
        Quat::from_axis_angle(axis, 0.6 * (a * 1.3).sin()),
    )
}

/// A motion holding [`wave_pose`] at `phases[k]` from second `k` to second `k + 1` (step keys,
/// relative to rest): seek to `k` seconds for the `k`-th pose.
///
/// # Panics
/// When `phases` is empty or holds a non-finite phase.
#[must_use]
pub fn wave_motion(model: &MmdModel, phases: &[f32]) -> Motion {
    let skeleton = model.skeleton();
    let times: Vec<f32> = (0..phases.len()).map(|k| k as f32).collect();
    let mut builder = Clip::builder("wave")
        .wrap(Wrap::Clamp)
        .space(ValueSpace::RelativeToRest);
    for i in 0..model.bones().len() {
        let Some(bone) = skeleton.from_source_index(i) else {
            continue;
        };
        let (t, r): (Vec<Vec3>, Vec<Quat>) = phases.iter().map(|&p| wave_pose(i, p)).unzip();
        builder = builder.bone(
            BoneTrack::new(skeleton.name(bone))
                .with_translation(Track::step(times.clone(), t))
                .with_rotation(Track::step(times.clone(), r)),
        );
    }
    Motion::from_clip(builder.build().expect("finite wave keys"))
}
