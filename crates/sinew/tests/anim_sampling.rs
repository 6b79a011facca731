//! Clip sampling: every interpolation against hand-computed values, wrap modes, relative to
//! rest, untracked bones, float tracks, and cached seeking equal to fresh sampling.

use std::sync::Arc;

use glam::{Quat, Vec3};
use proptest::prelude::*;
use sinew::anim::{
    sample, sample_floats, BezierEase, BoneTrack, Clip, ClipBinding, ClipError, FloatTrack,
    SampleCache, Track, Untracked, ValueSpace, Wrap,
};
use sinew::{Parent, Skeleton, SkeletonBuilder, Transform};
use sinew_humanoid::Humanoid;

fn two_bones() -> Arc<Skeleton> {
    let mut b = SkeletonBuilder::new();
    b.push(
        "hip",
        Parent::Root,
        Transform::from_trs(
            Vec3::new(0.0, 1.0, 0.0),
            Quat::from_rotation_y(0.5),
            Vec3::splat(2.0),
        ),
    );
    b.push(
        "knee",
        "hip",
        Transform::from_translation(Vec3::new(0.0, -0.5, 0.0)),
    );
    b.build().unwrap()
}

fn sample_one(clip: &Clip, skel: &Skeleton, t: f32) -> Vec<Transform> {
    let binding = ClipBinding::new(clip, skel);
    let mut cache = SampleCache::new();
    let mut out = skel.rest_pose().to_vec();
    sample(clip, &binding, &mut cache, t, Untracked::Rest, &mut out);
    out
}

fn float_at(clip: &Clip, t: f32) -> f32 {
    let skel = two_bones();
    let binding = ClipBinding::new(clip, &skel);
    let mut cache = SampleCache::for_binding(&binding);
    let mut out = [0.0f32; 1];
    sample_floats(clip, &binding, &mut cache, t, &mut out);
    out[0]
}

fn float_clip(track: Track<f32>) -> Arc<Clip> {
    Clip::builder("f")
        .wrap(Wrap::Clamp)
        .float(FloatTrack::new("w", track))
        .build()
        .unwrap()
}

#[test]
fn step_holds_until_next_key() {
    let c = float_clip(Track::step(vec![0.0, 1.0, 2.0], vec![1.0, 5.0, -3.0]));
    assert_eq!(float_at(&c, 0.0), 1.0);
    assert_eq!(float_at(&c, 0.999), 1.0);
    assert_eq!(float_at(&c, 1.0), 5.0);
    assert_eq!(float_at(&c, 1.5), 5.0);
    assert_eq!(float_at(&c, 2.0), -3.0);
}

#[test]
fn linear_between_keys_and_clamped_outside() {
    let c = float_clip(Track::linear(vec![0.5, 1.5, 2.0], vec![2.0, 4.0, 0.0]));
    assert_eq!(float_at(&c, 0.0), 2.0); // before the first key
    assert!((float_at(&c, 1.0) - 3.0).abs() < 1e-6);
    assert!((float_at(&c, 1.75) - 2.0).abs() < 1e-6);
    assert_eq!(float_at(&c, 5.0), 0.0); // clamped to the clip end
}

#[test]
fn cubic_spline_matches_gltf_formula() {
    // Keys (t, in, v, out): (1, 0, 1, 2), (3, -1, 5, 0). Δt = 2.
    let c = float_clip(Track::cubic_spline(
        vec![1.0, 3.0],
        vec![0.0, -1.0],
        vec![1.0, 5.0],
        vec![2.0, 0.0],
    ));
    for t in [1.0f32, 1.5, 2.0, 2.7] {
        let s = (t - 1.0) / 2.0;
        let (s2, s3) = (s * s, s * s * s);
        let (v0, b0, v1, a1, dt) = (1.0, 2.0, 5.0, -1.0, 2.0);
        let want = (2.0 * s3 - 3.0 * s2 + 1.0) * v0
            + (s3 - 2.0 * s2 + s) * dt * b0
            + (-2.0 * s3 + 3.0 * s2) * v1
            + (s3 - s2) * dt * a1;
        assert!((float_at(&c, t) - want).abs() < 1e-5, "t={t}");
    }
    // s = 0.5 by hand: 0.5·1 + 0.125·4 + 0.5·5 + (−0.125)·(−2) = 3.75.
    assert!((float_at(&c, 2.0) - 3.75).abs() < 1e-5);
    assert_eq!(float_at(&c, 3.0), 5.0);
}

#[test]
fn cubic_spline_rotation_is_normalised() {
    let skel = two_bones();
    let q0 = Quat::IDENTITY;
    let q1 = Quat::from_rotation_x(1.2);
    let zero = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    let clip = Clip::builder("c")
        .bone(BoneTrack::new("knee").with_rotation(Track::cubic_spline(
            vec![0.0, 1.0],
            vec![zero, zero],
            vec![q0, q1],
            vec![zero, zero],
        )))
        .wrap(Wrap::Clamp)
        .build()
        .unwrap();
    let out = sample_one(&clip, &skel, 0.5);
    assert!((out[1].rotation.length() - 1.0).abs() < 1e-5);
    // Zero tangents at s = 0.5: Hermite gives the plain midpoint, i.e. nlerp.
    let want = q0.lerp(q1, 0.5).normalize();
    assert!(out[1].rotation.abs_diff_eq(want, 1e-5));
}

#[test]
fn bezier_eased_vmd_segments() {
    let skel = two_bones();
    let ease_in_out = BezierEase::new(0.42, 0.0, 0.58, 1.0);
    let mmd_default = BezierEase::from_vmd(20, 20, 107, 107);
    let lin = BezierEase::LINEAR;
    let q1 = Quat::from_rotation_z(1.0);
    let clip = Clip::builder("vmd")
        .wrap(Wrap::Clamp)
        .bone(
            BoneTrack::new("knee")
                .with_translation(Track::bezier(
                    vec![0.0, 1.0],
                    vec![Vec3::ZERO, Vec3::new(1.0, 2.0, 4.0)],
                    // Segment 0→1 eases x with ease-in-out, y with MMD's default, z linear.
                    vec![[lin; 3], [ease_in_out, mmd_default, lin]],
                ))
                .with_rotation(Track::bezier(
                    vec![0.0, 1.0],
                    vec![Quat::IDENTITY, q1],
                    vec![lin, ease_in_out],
                )),
        )
        .build()
        .unwrap();
    // ease_in_out(0.274375) = 0.15625 (hand-computed at curve parameter 0.25).
    let t = 0.274_375;
    let out = sample_one(&clip, &skel, t);
    let tr = out[1].translation;
    assert!((tr.x - 0.15625).abs() < 1e-4, "{tr}");
    assert!(
        (tr.y - 2.0 * t).abs() < 1e-5,
        "MMD default curve is the identity"
    );
    assert!((tr.z - 4.0 * t).abs() < 1e-5);
    let want = Quat::IDENTITY.slerp(q1, 0.15625);
    assert!(out[1].rotation.abs_diff_eq(want, 1e-4));
    // Symmetric curve: half time, half value; half the angle.
    let out = sample_one(&clip, &skel, 0.5);
    assert!((out[1].translation.x - 0.5).abs() < 1e-5);
    assert!(out[1]
        .rotation
        .abs_diff_eq(Quat::from_rotation_z(0.5), 1e-5));
}

#[test]
fn looping_wraps_and_clamped_holds() {
    let track = Track::linear(vec![0.0, 1.0, 2.0], vec![0.0, 10.0, 0.0]);
    let looped = Clip::builder("l")
        .float(FloatTrack::new("w", track.clone()))
        .build()
        .unwrap();
    let clamped = float_clip(track);
    assert!((float_at(&looped, 2.5) - 5.0).abs() < 1e-5);
    assert!((float_at(&looped, -0.5) - 5.0).abs() < 1e-5);
    assert!((float_at(&looped, 4.0 + 1.0) - 10.0).abs() < 1e-4);
    assert_eq!(float_at(&clamped, 2.5), 0.0);
    assert_eq!(float_at(&clamped, -0.5), 0.0);
}

#[test]
fn relative_to_rest_composes_with_rest() {
    let skel = two_bones();
    let rest = *skel.rest(skel.find("hip").unwrap());
    let dq = Quat::from_rotation_x(0.3);
    let clip = Clip::builder("rel")
        .space(ValueSpace::RelativeToRest)
        .bone(
            BoneTrack::new("hip")
                .with_translation(Track::constant(Vec3::new(0.1, 0.2, 0.3)))
                .with_rotation(Track::linear(vec![0.0, 1.0], vec![Quat::IDENTITY, dq]))
                .with_scale(Track::constant(Vec3::new(1.0, 0.5, 2.0))),
        )
        .build()
        .unwrap();
    let out = sample_one(&clip, &skel, 0.999_999);
    assert!(out[0]
        .translation
        .abs_diff_eq(rest.translation + Vec3::new(0.1, 0.2, 0.3), 1e-6));
    assert!(out[0].rotation.abs_diff_eq(rest.rotation * dq, 1e-4));
    assert!(out[0].scale.abs_diff_eq(Vec3::new(2.0, 1.0, 4.0), 1e-6));
    let out = sample_one(&clip, &skel, 0.0);
    assert!(out[0].rotation.abs_diff_eq(rest.rotation, 1e-6));
}

#[test]
fn untracked_keep_or_rest_and_unmatched_reported() {
    let skel = two_bones();
    let clip = Clip::builder("c")
        .bone(BoneTrack::new("knee").with_rotation(Track::constant(Quat::from_rotation_x(1.0))))
        .bone(BoneTrack::new("tail").with_rotation(Track::constant(Quat::IDENTITY)))
        .build()
        .unwrap();
    let binding = ClipBinding::new(&clip, &skel);
    assert_eq!(binding.unmatched_bones(), ["tail".to_owned()]);
    let mut cache = SampleCache::for_binding(&binding);
    let junk = Transform::from_translation(Vec3::splat(9.0));
    let mut out = vec![junk; 2];
    sample(&clip, &binding, &mut cache, 0.0, Untracked::Keep, &mut out);
    assert_eq!(out[0], junk);
    assert_eq!(out[1].translation, Vec3::splat(9.0));
    assert!(out[1]
        .rotation
        .abs_diff_eq(Quat::from_rotation_x(1.0), 1e-6));
    sample(&clip, &binding, &mut cache, 0.0, Untracked::Rest, &mut out);
    assert_eq!(out[0], skel.rest_pose()[0]);
    assert_eq!(out[1].translation, skel.rest_pose()[1].translation);
    assert!(out[1]
        .rotation
        .abs_diff_eq(Quat::from_rotation_x(1.0), 1e-6));
}

#[test]
fn float_tracks_bind_by_name() {
    let skel = two_bones();
    let clip = Clip::builder("morphs")
        .float(FloatTrack::new("smile", Track::constant(0.7)))
        .float(FloatTrack::new(
            "blink",
            Track::linear(vec![0.0, 1.0], vec![0.0, 1.0]),
        ))
        .float(FloatTrack::new("nope", Track::constant(1.0)))
        .wrap(Wrap::Clamp)
        .build()
        .unwrap();
    let b = ClipBinding::with_float_targets(&clip, &skel, &["blink", "x", "smile"]);
    assert_eq!(b.unmatched_floats(), ["nope".to_owned()]);
    assert_eq!(b.float_slot_count(), 3);
    let mut cache = SampleCache::for_binding(&b);
    let mut w = [-1.0f32; 3];
    sample_floats(&clip, &b, &mut cache, 0.25, &mut w);
    assert_eq!(w, [0.25, -1.0, 0.7]);
}

#[test]
fn construction_errors_carry_numbers() {
    let e = Clip::builder("bad")
        .bone(
            BoneTrack::new("hip").with_translation(Track::linear(vec![0.0, 1.0], vec![Vec3::ZERO])),
        )
        .build()
        .unwrap_err();
    assert_eq!(
        e,
        ClipError::LengthMismatch {
            track: "hip.translation".into(),
            what: "values",
            values_given: 1,
            expected: 2
        }
    );
    assert!(e.to_string().contains("1 entries, expected 2"));
    let e = Clip::builder("bad")
        .bone(
            BoneTrack::new("hip")
                .with_rotation(Track::linear(vec![0.0, 0.5, 0.25], vec![Quat::IDENTITY; 3])),
        )
        .build()
        .unwrap_err();
    assert_eq!(
        e,
        ClipError::NonIncreasingTime {
            track: "hip.rotation".into(),
            index: 2,
            time: 0.25,
            previous: 0.5
        }
    );
}

/// A baked humanoid walk: 64 joints × TRS, `keys` linear keys over one second.
/// With `with_scale`, every bone has T, R and S on the same key times (the fused whole-bone
/// sampling path); without, T and R only (the per-channel path).
fn baked(h: &Humanoid, keys: usize, interpolation_step: bool, with_scale: bool) -> Arc<Clip> {
    let n = h.skeleton.len();
    let times: Vec<f32> = (0..keys).map(|k| k as f32 / (keys - 1) as f32).collect();
    let mut frames = vec![vec![Transform::IDENTITY; n]; keys];
    for (f, &t) in frames.iter_mut().zip(&times) {
        h.animate(t, f);
    }
    let mut b = Clip::builder("walk").duration(1.0);
    for bone in h.skeleton.bones() {
        let i = bone.index();
        let tr: Vec<Vec3> = frames.iter().map(|f| f[i].translation).collect();
        let rot: Vec<Quat> = frames.iter().map(|f| f[i].rotation).collect();
        let bt = BoneTrack::new(h.skeleton.name(bone));
        let bt = if interpolation_step {
            bt.with_translation(Track::step(times.clone(), tr))
        } else {
            bt.with_translation(Track::linear(times.clone(), tr))
        };
        let bt = bt.with_rotation(Track::linear(times.clone(), rot));
        let bt = if with_scale {
            let sc: Vec<Vec3> = frames.iter().map(|f| f[i].scale).collect();
            bt.with_scale(Track::linear(times.clone(), sc))
        } else {
            bt
        };
        b = b.bone(bt);
    }
    b.build().unwrap()
}

#[test]
fn humanoid_clip_reproduces_keys() {
    let h = Humanoid::new();
    for with_scale in [false, true] {
        let clip = baked(&h, 9, false, with_scale);
        let binding = ClipBinding::new(&clip, &h.skeleton);
        assert!(binding.unmatched_bones().is_empty());
        assert_eq!(
            binding.track_count(),
            h.skeleton.len() * (2 + usize::from(with_scale))
        );
        let mut cache = SampleCache::for_binding(&binding);
        let mut out = h.skeleton.rest_pose().to_vec();
        let mut want = out.clone();
        for k in 0..8 {
            let t = k as f32 / 8.0;
            h.animate(t, &mut want);
            sample(&clip, &binding, &mut cache, t, Untracked::Rest, &mut out);
            for (o, w) in out.iter().zip(&want) {
                assert!(o.abs_diff_eq(w, 1e-4), "t={t}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Any sequence of seeks with one cache gives exactly what a fresh cache gives.
    #[test]
    fn seeking_equals_fresh_sampling(times in proptest::collection::vec(-3.0f32..3.0, 1..24),
                                     step in any::<bool>(), with_scale in any::<bool>()) {
        let h = Humanoid::new();
        let clip = baked(&h, 7, step, with_scale);
        let binding = ClipBinding::new(&clip, &h.skeleton);
        let mut cache = SampleCache::new();
        let mut a = h.skeleton.rest_pose().to_vec();
        let mut b = a.clone();
        for &t in &times {
            for dt in [0.0f32, 0.01, 0.2] {
                sample(&clip, &binding, &mut cache, t + dt, Untracked::Rest, &mut a);
                let mut fresh = SampleCache::new();
                sample(&clip, &binding, &mut fresh, t + dt, Untracked::Rest, &mut b);
                prop_assert_eq!(&a, &b);
            }
        }
    }
}

#[test]
fn relative_to_rest_eased_translation() {
    let skel = two_bones();
    let rest = skel.rest_pose()[1].translation;
    let clip = Clip::builder("vmd")
        .space(ValueSpace::RelativeToRest)
        .wrap(Wrap::Clamp)
        .bone(BoneTrack::new("knee").with_translation(Track::bezier(
            vec![0.0, 2.0],
            vec![Vec3::ZERO, Vec3::new(0.0, 0.0, 1.0)],
            vec![[BezierEase::LINEAR; 3]; 2],
        )))
        .build()
        .unwrap();
    for t in [0.0f32, 0.5, 1.0, 2.0] {
        let out = sample_one(&clip, &skel, t);
        let want = rest + Vec3::new(0.0, 0.0, t / 2.0);
        assert!(out[1].translation.abs_diff_eq(want, 1e-6), "t={t}");
    }
}

#[test]
fn fused_bone_records_relative_to_rest() {
    // T, R and S on the same key times take the whole-bone path; check it by hand.
    let skel = two_bones();
    let rest = skel.rest_pose()[0];
    let q1 = Quat::from_rotation_x(0.8);
    let times = vec![0.0, 2.0];
    let clip = Clip::builder("fused")
        .space(ValueSpace::RelativeToRest)
        .bone(
            BoneTrack::new("hip")
                .with_translation(Track::linear(times.clone(), vec![Vec3::ZERO, Vec3::X]))
                .with_rotation(Track::linear(times.clone(), vec![Quat::IDENTITY, q1]))
                .with_scale(Track::step(times, vec![Vec3::ONE, Vec3::splat(3.0)])),
        )
        .wrap(Wrap::Clamp)
        .build()
        .unwrap();
    let out = sample_one(&clip, &skel, 0.5);
    assert!(out[0]
        .translation
        .abs_diff_eq(rest.translation + Vec3::X * 0.25, 1e-6));
    let want = rest.rotation * Quat::IDENTITY.lerp(q1, 0.25).normalize();
    assert!(out[0].rotation.abs_diff_eq(want, 1e-5));
    assert!(out[0].scale.abs_diff_eq(rest.scale, 1e-6));
    let out = sample_one(&clip, &skel, 2.0);
    assert!(out[0].scale.abs_diff_eq(rest.scale * 3.0, 1e-6));
}

#[test]
fn one_cache_across_clips_and_bindings() {
    let h = Humanoid::new();
    let a = baked(&h, 5, false, true);
    let b = baked(&h, 9, true, false);
    let small = two_bones();
    let ba = ClipBinding::new(&a, &h.skeleton);
    let bb = ClipBinding::new(&b, &h.skeleton);
    let ba_small = ClipBinding::new(&a, &small); // same clip, other skeleton: nothing matches
    assert_eq!(ba_small.track_count(), 0);
    let mut cache = SampleCache::new();
    let mut out = h.skeleton.rest_pose().to_vec();
    let mut want = out.clone();
    let mut out_small = small.rest_pose().to_vec();
    for k in 0..12 {
        let t = 0.09 * k as f32;
        let (clip, binding) = if k % 2 == 0 { (&a, &ba) } else { (&b, &bb) };
        sample(clip, binding, &mut cache, t, Untracked::Rest, &mut out);
        sample(
            clip,
            binding,
            &mut SampleCache::new(),
            t,
            Untracked::Rest,
            &mut want,
        );
        assert_eq!(out, want);
        assert_eq!(cache.clip_id(), Some(clip.id()));
        sample(
            &a,
            &ba_small,
            &mut cache,
            t,
            Untracked::Rest,
            &mut out_small,
        );
        assert_eq!(out_small, small.rest_pose());
    }
}

/// A baked clip over every humanoid bone: 7 shared linear keys, rotations whose neighbours are
/// often on opposite hemispheres, non-uniform scales; checked against a by-hand lerp / nlerp at
/// times inside segments, on keys, before the first and after the last key, forwards and after
/// seeks (the eight-bone block path and the per-bone path must agree with it).
#[test]
fn baked_linear_clip_matches_hand_interpolation() {
    let h = Humanoid::new();
    let n = h.skeleton.len();
    let times: Vec<f32> = vec![0.1, 0.2, 0.35, 0.5, 0.6, 0.8, 0.9];
    let val = |b: usize, k: usize, c: usize| ((b * 31 + k * 7 + c * 3) as f32 * 0.618).fract();
    let mut builder = Clip::builder("baked").duration(1.0);
    let mut keys = Vec::new();
    for bone in h.skeleton.bones() {
        let b = bone.index();
        let t: Vec<Vec3> = (0..times.len())
            .map(|k| Vec3::new(val(b, k, 0), val(b, k, 1), -val(b, k, 2)))
            .collect();
        let r: Vec<Quat> = (0..times.len())
            .map(|k| {
                let q = Quat::from_xyzw(
                    val(b, k, 3) - 0.5,
                    val(b, k, 4) - 0.5,
                    val(b, k, 5) - 0.5,
                    val(b, k, 6) - 0.5,
                )
                .normalize();
                if k % 2 == 1 {
                    -q
                } else {
                    q
                }
            })
            .collect();
        let s: Vec<Vec3> = (0..times.len())
            .map(|k| Vec3::new(1.0 + val(b, k, 7), 0.5 + val(b, k, 8), 2.0))
            .collect();
        keys.push((t.clone(), r.clone(), s.clone()));
        builder = builder.bone(
            BoneTrack::new(h.skeleton.name(bone))
                .with_translation(Track::linear(times.clone(), t))
                .with_rotation(Track::linear(times.clone(), r))
                .with_scale(Track::linear(times.clone(), s)),
        );
    }
    let clip = builder.build().unwrap();
    let binding = ClipBinding::new(&clip, &h.skeleton);
    let mut cache = SampleCache::for_binding(&binding);
    let mut out = vec![Transform::IDENTITY; n];
    for &t in &[
        0.0, 0.1, 0.15, 0.2, 0.3, 0.49, 0.55, 0.95, 0.7, 0.12, 0.85, 0.9,
    ] {
        sample(&clip, &binding, &mut cache, t, Untracked::Keep, &mut out);
        let p = times.partition_point(|&x| x <= t);
        for (b, (kt, kr, ks)) in keys.iter().enumerate() {
            let (a, c, u) = if p == 0 {
                (0, 0, 0.0)
            } else if p >= times.len() {
                (p - 1, p - 1, 0.0)
            } else {
                (p - 1, p, (t - times[p - 1]) / (times[p] - times[p - 1]))
            };
            let tr = kt[a].lerp(kt[c], u);
            let sc = ks[a].lerp(ks[c], u);
            let (q0, mut q1) = (kr[a], kr[c]);
            if q0.dot(q1) < 0.0 {
                q1 = -q1;
            }
            let q = Quat::from_vec4(glam::Vec4::from(q0).lerp(glam::Vec4::from(q1), u)).normalize();
            let o = &out[b];
            assert!(o.translation.abs_diff_eq(tr, 1e-5), "t={t} bone {b}");
            assert!(o.scale.abs_diff_eq(sc, 1e-5), "t={t} bone {b}");
            assert!(
                o.rotation.abs_diff_eq(q, 1e-5),
                "t={t} bone {b}: {} vs {q}",
                o.rotation
            );
        }
    }
}
