//! Baking a procedural pose function into a looping linear clip (the crowd's clips are often
//! made this way).

use glam::Quat;
use sinew::anim::{BoneTrack, Clip, ClipError, Track, Wrap};
use sinew::{Skeleton, Transform};
use std::sync::Arc;

/// Bakes a procedural pose function into a linear, looping clip.
///
/// `pose_at(t, out)` writes the full local pose at time `t` into `out` (the skeleton's
/// length); it is called at `keys` evenly spaced times over `[0, duration]` (the last equal to
/// `duration`). Channels that equal the rest pose at every key are left out (sample with
/// [`Untracked::Rest`](sinew::anim::Untracked::Rest)); rotation keys are kept in one hemisphere so linear (nlerp)
/// interpolation takes the short way.
///
/// # Errors
/// A [`ClipError`] when the pose function produced non-finite values.
///
/// # Panics
/// If `keys < 2` or `duration` is not positive.
pub fn bake_clip(
    name: &str,
    skeleton: &Skeleton,
    duration: f32,
    keys: usize,
    mut pose_at: impl FnMut(f32, &mut [Transform]),
) -> Result<Arc<Clip>, ClipError> {
    assert!(keys >= 2, "need at least two keys");
    assert!(duration > 0.0, "duration must be positive");
    let n = skeleton.len();
    let times: Vec<f32> = (0..keys)
        .map(|k| duration * k as f32 / (keys - 1) as f32)
        .collect();
    let mut frames = vec![Transform::IDENTITY; n * keys];
    for (k, &t) in times.iter().enumerate() {
        pose_at(t, &mut frames[k * n..(k + 1) * n]);
    }
    let rest = skeleton.rest_pose();
    let mut builder = Clip::builder(name).duration(duration).wrap(Wrap::Loop);
    for bone in skeleton.bones() {
        let b = bone.index();
        let channel = |k: usize| frames[k * n + b];
        let mut track = BoneTrack::new(skeleton.name(bone));
        if (0..keys).any(|k| channel(k).translation != rest[b].translation) {
            let v = (0..keys).map(|k| channel(k).translation).collect();
            track = track.with_translation(Track::linear(times.clone(), v));
        }
        if (0..keys).any(|k| channel(k).rotation != rest[b].rotation) {
            let mut v: Vec<Quat> = Vec::with_capacity(keys);
            for k in 0..keys {
                let q = channel(k).rotation;
                let q = match v.last() {
                    Some(p) if p.dot(q) < 0.0 => -q,
                    _ => q,
                };
                v.push(q);
            }
            track = track.with_rotation(Track::linear(times.clone(), v));
        }
        if (0..keys).any(|k| channel(k).scale != rest[b].scale) {
            let v = (0..keys).map(|k| channel(k).scale).collect();
            track = track.with_scale(Track::linear(times.clone(), v));
        }
        if track.translation.is_some() || track.rotation.is_some() || track.scale.is_some() {
            builder = builder.bone(track);
        }
    }
    builder.build()
}
