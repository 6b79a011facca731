//! Bake/export round trips: baked frames → `.glb` → re-import → sampling gives the frames back.

mod common;

use glam::{Affine3A, Quat, Vec3};
use sinew::Transform;
use sinew_gltf::{
    bake_glb, bake_glb_from_world, GltfError, GltfModel, JointSampler, BAKED_ANIMATION_NAME,
};

const FPS: f32 = 30.0;

/// Frames that move every bone away from rest (so the bake is visible) and, when the model
/// has clips, start from clip 0.
fn frames(model: &GltfModel, count: usize) -> Vec<Vec<Transform>> {
    let mut sampler = (!model.clips().is_empty()).then(|| JointSampler::new(model, 0).unwrap());
    (0..count)
        .map(|k| {
            let t = k as f32 / FPS;
            let mut locals = match &mut sampler {
                Some(s) => {
                    s.sample(t);
                    s.locals().to_vec()
                }
                None => model.skeleton().rest_pose().to_vec(),
            };
            for (i, l) in locals.iter_mut().enumerate() {
                let a = 0.3 * (t * 2.0 + i as f32).sin();
                l.rotation = (l.rotation * Quat::from_rotation_z(a)).normalize();
                l.translation += Vec3::splat(0.01 * a);
                l.scale *= 1.0 + 0.1 * a;
            }
            locals
        })
        .collect()
}

fn assert_round_trip(name: &str, model: &GltfModel, frames: &[Vec<Transform>], bytes: &[u8]) {
    let back = GltfModel::from_slice(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(back.skeleton().names(), model.skeleton().names(), "{name}");
    assert_eq!(back.clips().len(), model.clips().len() + 1, "{name}");
    let baked = back.clips().last().unwrap();
    assert_eq!(baked.name(), BAKED_ANIMATION_NAME);
    let mut sampler = JointSampler::new(&back, back.clips().len() - 1).unwrap();
    let mut worst = 0.0f32;
    // The last frame's time is the duration, which wraps to 0 when looping: check the others
    // by sampling, the last through the stored keys.
    for (k, f) in frames.iter().enumerate().take(frames.len() - 1) {
        sampler.sample(k as f32 / FPS);
        for (b, (got, want)) in sampler.locals().iter().zip(f).enumerate() {
            let d = diff(got, want);
            if d > 1e-4 {
                println!("{name}: frame {k} bone {b}: {got:?} vs {want:?}");
            }
            worst = worst.max(d);
        }
    }
    for (b, want) in frames.last().unwrap().iter().enumerate() {
        let track = baked
            .bone_tracks()
            .iter()
            .find(|t| t.name == back.skeleton().names()[b])
            .unwrap();
        let got = Transform::from_trs(
            *track.translation.as_ref().unwrap().values().last().unwrap(),
            *track.rotation.as_ref().unwrap().values().last().unwrap(),
            *track.scale.as_ref().unwrap().values().last().unwrap(),
        );
        worst = worst.max(diff(&got, want));
    }
    println!(
        "{name}: {} frames, worst round-trip error {worst:.2e}",
        frames.len()
    );
    assert!(worst <= 1e-4, "{name}: {worst}");
    // The original clips survive the buffer merge unchanged.
    if !model.clips().is_empty() {
        let a = model.joint_worlds(0, 0.4).unwrap();
        let b = back.joint_worlds(0, 0.4).unwrap();
        for (x, y) in a.iter().zip(&b) {
            assert!(x.world.abs_diff_eq(y.world, 1e-6), "{name}: clip 0 changed");
        }
    }
}

/// Largest of translation distance, scale distance and rotation angle (radians, computed in
/// f64 as `2·atan2(|v|, |w|)` of the relative rotation; acos near 1 is too coarse in f32).
fn diff(a: &Transform, b: &Transform) -> f32 {
    let r = a.rotation.as_dquat().normalize().conjugate() * b.rotation.as_dquat().normalize();
    let angle = 2.0 * glam::DVec3::new(r.x, r.y, r.z).length().atan2(r.w.abs());
    a.translation
        .distance(b.translation)
        .max(a.scale.distance(b.scale))
        .max(angle as f32)
}

#[test]
fn procedural_model_round_trips() {
    let model = GltfModel::from_slice(&common::procedural().glb()).unwrap();
    let f = frames(&model, 40);
    let bytes = bake_glb(&model, FPS, &f).unwrap();
    assert_round_trip("procedural", &model, &f, &bytes);
    // Interpolation between frames is linear in translation.
    let back = GltfModel::from_slice(&bytes).unwrap();
    let mut s = JointSampler::new(&back, 1).unwrap();
    s.sample(0.5 / FPS);
    let mid = s.locals()[2].translation;
    let want = (f[0][2].translation + f[1][2].translation) * 0.5;
    assert!(mid.abs_diff_eq(want, 1e-5));
}

#[test]
fn single_frame_round_trips() {
    let model = GltfModel::from_slice(&common::procedural().glb()).unwrap();
    let f = frames(&model, 1);
    let bytes = bake_glb(&model, FPS, &f).unwrap();
    let back = GltfModel::from_slice(&bytes).unwrap();
    let mut s = JointSampler::new(&back, 1).unwrap();
    s.sample(0.0);
    for (got, want) in s.locals().iter().zip(&f[0]) {
        assert!(diff(got, want) < 1e-5);
    }
}

#[test]
fn world_matrices_round_trip() {
    let model = GltfModel::from_slice(&common::procedural().glb()).unwrap();
    let f = frames(&model, 10);
    let parents = model.skeleton().parent_indices().to_vec();
    let worlds: Vec<Vec<Affine3A>> = f
        .iter()
        .map(|l| {
            let mut w = vec![Affine3A::IDENTITY; l.len()];
            sinew::pose::local_to_world(&parents, l, &Affine3A::IDENTITY, &mut w);
            w
        })
        .collect();
    let bytes = bake_glb_from_world(&model, FPS, &worlds).unwrap();
    assert_round_trip("procedural (world)", &model, &f, &bytes);
}

#[test]
fn every_asset_round_trips() {
    let files = common::gltf_files();
    if files.is_empty() {
        return; // said "skipping" (a failure under CI)
    }
    let mut n = 0;
    for path in files {
        let model = GltfModel::load(&path).unwrap();
        let f = frames(&model, 31);
        let bytes = bake_glb(&model, FPS, &f).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert_round_trip(&name, &model, &f, &bytes);
        n += 1;
    }
    println!("{n} assets round-tripped");
    assert_eq!(n, 10, "the shared folder's glTF files");
}

#[test]
fn bad_frames_are_typed_errors() {
    let model = GltfModel::from_slice(&common::procedural().glb()).unwrap();
    let good = frames(&model, 2);
    let export = |fps: f32, f: &[Vec<Transform>]| match bake_glb(&model, fps, f) {
        Err(GltfError::Export { reason }) => reason,
        other => panic!("expected an export error, got {other:?}"),
    };
    assert!(export(FPS, &[]).contains("no frames"));
    assert!(export(0.0, &good).contains("fps"));
    assert!(export(f32::NAN, &good).contains("fps"));
    let mut short = good.clone();
    short[1].pop();
    assert!(export(FPS, &short).contains("frame 1"));
    let mut nan = good;
    nan[0][0].translation.x = f32::NAN;
    assert!(export(FPS, &nan).contains("non-finite"));
}
