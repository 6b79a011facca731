//! The reader on a procedural document: bones and names, skins, warnings, interpolations,
//! morph weights.

mod common;

use glam::{Quat, Vec3, Vec4};
use sinew::anim::{sample_floats, ClipBinding, Interpolation, SampleCache};
use sinew_gltf::{GltfModel, GltfWarning, JointSampler};

fn model() -> GltfModel {
    GltfModel::from_slice(&common::procedural().glb()).unwrap()
}

#[test]
fn bones_are_joints_and_ancestors_with_unique_names() {
    let m = model();
    let s = m.skeleton();
    assert_eq!(s.len(), 5, "nodes 0..=4 are bones, node 5 is not");
    assert_eq!(m.node_to_bone()[5], None);
    let names: Vec<&str> = (0..5)
        .map(|n| s.name(m.node_to_bone()[n].unwrap()))
        .collect();
    assert_eq!(names, ["root", "hip", "spine", "spine#3", "node_4"]);
    for n in 0..5 {
        let b = m.node_to_bone()[n].unwrap();
        assert_eq!(m.bone_to_node()[b.index()], n);
        assert_eq!(s.source_index(b), n, "node order is source order");
    }
    assert_eq!(m.node_names()[5], "mesh");
    // Two skins sharing node 3.
    assert_eq!(m.skins().len(), 2);
    assert_eq!(m.skins()[0].joints, [1, 2, 3]);
    assert_eq!(m.skins()[1].joints, [3, 4]);
    assert_eq!(m.skins()[0].bones[2], m.skins()[1].bones[0]);
    assert_eq!(m.joint_bones().len(), 4);
    // Rest world relative to the scene root includes the non-joint ancestor.
    let rw = s.rest_world();
    let y = |n: usize| rw[m.node_to_bone()[n].unwrap().index()].translation.y;
    assert_eq!([y(0), y(1), y(2), y(3), y(4)], [1.0, 1.0, 2.0, 3.0, 3.5]);
    // Skeleton inverse bind for the shared joint comes from the first skin.
    let ib = s.inverse_bind()[m.node_to_bone()[3].unwrap().index()];
    assert!((ib.translation.y + 3.0).abs() < 1e-6);
}

#[test]
fn warnings_name_the_sloppy_parts() {
    let m = model();
    for w in m.warnings() {
        println!("{w}");
    }
    // Skin 1 has no inverse bind matrices: identity. Its root joint (node 3) sets the bind
    // space (a translation by 3), in which node 4 is off by 0.5.
    let ibm: Vec<usize> = m
        .warnings()
        .iter()
        .filter_map(|w| match w {
            GltfWarning::InverseBindMismatch { skin: 1, node, .. } => Some(*node),
            _ => None,
        })
        .collect();
    assert_eq!(ibm, [4]);
    assert!((m.skins()[1].bind_space.translation.y - 3.0).abs() < 1e-6);
    assert_eq!(m.skins()[0].bind_space, glam::Affine3A::IDENTITY);
    assert!(!m
        .warnings()
        .iter()
        .any(|w| matches!(w, GltfWarning::InverseBindMismatch { skin: 0, .. })));
    assert!(m.warnings().contains(&GltfWarning::IgnoredChannel {
        animation: 0,
        channel: 3,
        node: 5,
        path: "translation"
    }));
}

#[test]
fn step_cubic_linear_and_weights_sample_like_gltf() {
    let m = model();
    let clip = &m.clips()[0];
    assert_eq!(clip.name(), "proc");
    assert_eq!(clip.duration(), 3.0);
    let tracks = clip.bone_tracks();
    assert_eq!(tracks.len(), 3);
    assert_eq!(
        tracks[1].rotation.as_ref().unwrap().interpolation(),
        Interpolation::CubicSpline
    );
    let mut sampler = JointSampler::new(&m, 0).unwrap();
    let bone = |n: usize| m.node_to_bone()[n].unwrap().index();
    // STEP: holds key 1 over [1, 2).
    sampler.sample(1.9);
    let (s, c) = (0.5f32.sin(), 0.5f32.cos());
    assert!(sampler.locals()[bone(1)]
        .rotation
        .abs_diff_eq(Quat::from_xyzw(0.0, 0.0, s, c), 1e-6));
    sampler.sample(2.0);
    assert!(sampler.locals()[bone(1)]
        .rotation
        .abs_diff_eq(Quat::IDENTITY, 1e-6));
    // CUBICSPLINE: Hermite with tangents × segment length, normalised.
    let t = 0.7f32;
    sampler.sample(t);
    let (dt, u) = (2.0f32, t / 2.0);
    let (v0, b0) = (Vec4::new(0.0, 0.0, 0.0, 1.0), Vec4::new(0.0, 0.3, 0.0, 0.0));
    let (v1, a1) = (
        Vec4::new(0.0, 0.6, 0.0, 0.8),
        Vec4::new(0.0, -0.2, 0.0, 0.0),
    );
    let (u2, u3) = (u * u, u * u * u);
    let p = (2.0 * u3 - 3.0 * u2 + 1.0) * v0
        + (u3 - 2.0 * u2 + u) * dt * b0
        + (-2.0 * u3 + 3.0 * u2) * v1
        + (u3 - u2) * dt * a1;
    let want = Quat::from_vec4(p).normalize();
    let got = sampler.locals()[bone(2)].rotation;
    assert!(
        got.abs_diff_eq(want, 1e-5) || got.abs_diff_eq(-want, 1e-5),
        "{got} vs {want}"
    );
    // LINEAR translation.
    sampler.sample(2.0);
    assert!(sampler.locals()[bone(3)]
        .translation
        .abs_diff_eq(Vec3::new(1.0, 2.0, 0.0), 1e-6));
    // Looping: 3.5 wraps to 0.5.
    sampler.sample(3.5);
    assert!(sampler.locals()[bone(3)]
        .translation
        .abs_diff_eq(Vec3::new(0.5, 1.0, 0.0), 1e-6));
    // Joint worlds relative to the scene root: node 4 hangs 0.5 above node 3.
    let w = m.joint_worlds(0, 2.0).unwrap();
    let n3 = w.iter().find(|j| j.node == 3).unwrap().world.translation;
    let n4 = w.iter().find(|j| j.node == 4).unwrap().world.translation;
    assert!(((n4 - n3).length() - 0.5).abs() < 1e-5);
    // Morph weights: two float tracks, linear.
    let names: Vec<&str> = clip
        .float_tracks()
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(names, ["mesh.weights[0]", "mesh.weights[1]"]);
    let binding = ClipBinding::new(clip, m.skeleton());
    let mut cache = SampleCache::new();
    let mut out = [0.0f32; 2];
    sample_floats(clip, &binding, &mut cache, 0.5, &mut out);
    assert!(
        (out[0] - 0.5).abs() < 1e-6 && (out[1] - 0.5).abs() < 1e-6,
        "{out:?}"
    );
    sample_floats(clip, &binding, &mut cache, 2.0, &mut out);
    assert!(
        (out[0] - 0.75).abs() < 1e-6 && (out[1] - 0.25).abs() < 1e-6,
        "{out:?}"
    );
}
