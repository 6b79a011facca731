//! Unit tests of the fused path: SIMD against portable evaluation and refill, one-key and
//! keyed-apart channels against the per-channel path.

use super::eval::eval_portable;
use super::refill::refill_one;
use super::*;
use crate::anim::sample::segment_range;
use crate::anim::ClipBinding;
use crate::Transform;

fn filled(bones: usize, cubic: bool) -> FusedCache {
    let mut c = FusedCache::default();
    c.bind(bones, cubic);
    let mut x = 0.37f32;
    let mut next = || {
        x = (x * 3.7 + 0.11).fract();
        x - 0.5
    };
    for b in &mut c.blocks {
        for lane in 0..8 {
            for c in 0..3 {
                b.start[c][lane] = next();
                b.k[c][lane] = 2.0 + next();
            }
            for r in &mut b.c {
                r[lane] = next();
            }
        }
    }
    for b in &mut c.cubic {
        for r in &mut b.c {
            for v in r {
                *v = next();
            }
        }
    }
    c
}

#[test]
fn simd_and_portable_evaluation_agree_exactly() {
    for cubic in [false, true] {
        for bones in [1usize, 8, 13, 64] {
            let cache = filled(bones, cubic);
            // Reversed targets with a gap: not sequential.
            let targets: Vec<u32> = (0..bones as u32).rev().map(|t| t * 2).collect();
            let mut a = vec![Transform::IDENTITY; bones * 2];
            let mut b = a.clone();
            eval_fused(0.3, cache.records(), &targets, a.len(), false, &mut a);
            eval_portable(0.3, cache.records(), &targets, &mut b);
            assert_eq!(a, b, "cubic {cubic}, {bones} bones");
            // Consecutive targets, after an offset.
            let targets: Vec<u32> = (3..bones as u32 + 3).collect();
            let mut a = vec![Transform::IDENTITY; bones + 3];
            let mut b = a.clone();
            eval_fused(0.3, cache.records(), &targets, a.len(), true, &mut a);
            eval_portable(0.3, cache.records(), &targets, &mut b);
            assert_eq!(a, b, "cubic {cubic}, {bones} bones, consecutive");
        }
    }
}

#[cfg(target_arch = "x86_64")]
/// A channel keyed once samples as the same channel keyed at every key time with that value.
#[test]
fn one_key_channels_sample_as_constants() {
    use crate::anim::{sample, BoneTrack, Clip, SampleCache, Track, Untracked};
    use crate::{Parent, SkeletonBuilder};
    use glam::{Quat, Vec3};
    let mut sb = SkeletonBuilder::new();
    sb.push("a", Parent::Root, Transform::IDENTITY);
    sb.push("b", Parent::from("a"), Transform::IDENTITY);
    let skel = sb.build().unwrap();
    let times = vec![0.0, 0.25, 0.6, 1.0];
    let t = |k: usize| Vec3::new(k as f32, 0.5 * k as f32, -0.2);
    let q = |k: usize| Quat::from_rotation_y(0.4 * k as f32);
    let scale = Vec3::new(1.0, 2.0, 0.5);
    let clip = |expanded: bool| {
        let s = if expanded {
            Track::linear(times.clone(), vec![scale; times.len()])
        } else {
            Track::linear(vec![0.0], vec![scale])
        };
        Clip::builder("c")
            .duration(1.0)
            .bone(
                BoneTrack::new("a")
                    .with_translation(Track::linear(times.clone(), (0..4).map(t).collect()))
                    .with_rotation(Track::linear(times.clone(), (0..4).map(q).collect()))
                    .with_scale(s.clone()),
            )
            .bone(
                BoneTrack::new("b")
                    .with_translation(if expanded {
                        Track::linear(times.clone(), vec![t(3); times.len()])
                    } else {
                        Track::linear(vec![0.7], vec![t(3)])
                    })
                    .with_rotation(Track::linear(times.clone(), (0..4).map(q).collect()))
                    .with_scale(s),
            )
            .build()
            .unwrap()
    };
    let (once, full) = (clip(false), clip(true));
    let (bo, bf) = (
        ClipBinding::new(&once, &skel),
        ClipBinding::new(&full, &skel),
    );
    assert_eq!(bo.fused.len(), 2, "one-key channels keep the bone fused");
    let (mut co, mut cf) = (SampleCache::new(), SampleCache::new());
    let mut po = vec![Transform::IDENTITY; 2];
    let mut pf = po.clone();
    for i in 0..=70 {
        let time = i as f32 * 0.0173 - 0.05;
        sample(&once, &bo, &mut co, time, Untracked::Rest, &mut po);
        sample(&full, &bf, &mut cf, time, Untracked::Rest, &mut pf);
        for (a, b) in po.iter().zip(&pf) {
            assert!(a.translation.abs_diff_eq(b.translation, 1e-6), "{time}");
            assert!(a.rotation.abs_diff_eq(b.rotation, 1e-6), "{time}");
            assert_eq!(a.scale, b.scale, "{time}");
        }
    }
}

/// Channels keyed at their own times (ozz's clips, many glTF files) sample through the
/// fused path exactly as each channel alone does through the per-channel path.
#[test]
fn channels_keyed_apart_sample_as_each_alone() {
    use crate::anim::{sample, BoneTrack, Clip, SampleCache, Track, Untracked, ValueSpace};
    use crate::{Parent, SkeletonBuilder};
    use glam::{Quat, Vec3};
    let mut sb = SkeletonBuilder::new();
    let rest = Transform {
        translation: Vec3::new(0.1, 0.2, 0.3),
        rotation: Quat::from_rotation_x(0.3),
        scale: Vec3::splat(1.5),
    };
    sb.push("a", Parent::Root, rest);
    sb.push("b", Parent::from("a"), Transform::IDENTITY);
    let skel = sb.build().unwrap();
    let tt = vec![0.0, 0.2, 0.45, 0.7, 1.0];
    let rt = vec![0.1, 0.3, 0.35, 0.5, 0.8, 0.9, 1.0];
    let stimes = vec![0.0, 0.6, 1.0];
    let v3 = |k: usize, o: f32| Vec3::new(k as f32 * 0.3 + o, (k as f32 * 1.7).sin(), o);
    let q = |k: usize| Quat::from_euler(glam::EulerRot::XYZ, 0.4 * k as f32, 0.3, -0.2 * k as f32);
    let tracks = |cubic: bool| {
        let t = if cubic {
            Track::cubic_spline(
                tt.clone(),
                (0..5).map(|k| v3(k, 0.5)).collect(),
                (0..5).map(|k| v3(k, 0.0)).collect(),
                (0..5).map(|k| v3(k, -0.5)).collect(),
            )
        } else {
            Track::linear(tt.clone(), (0..5).map(|k| v3(k, 0.0)).collect())
        };
        let r = Track::linear(rt.clone(), (0..7).map(q).collect());
        let s = Track::step(stimes.clone(), (0..3).map(|k| v3(k, 1.0)).collect());
        (t, r, s)
    };
    for (cubic, space) in [
        (false, ValueSpace::Absolute),
        (true, ValueSpace::Absolute),
        (false, ValueSpace::RelativeToRest),
    ] {
        let (t, r, s) = tracks(cubic);
        let build = |a: BoneTrack| {
            Clip::builder("c")
                .duration(1.0)
                .space(space)
                .bone(a)
                .bone(
                    BoneTrack::new("b")
                        .with_translation(t.clone())
                        .with_rotation(r.clone())
                        .with_scale(s.clone()),
                )
                .build()
                .unwrap()
        };
        let mixed = build(
            BoneTrack::new("a")
                .with_translation(t.clone())
                .with_rotation(r.clone())
                .with_scale(s.clone()),
        );
        // References: bone `a` without its scale (per-channel path), then scale alone.
        let tr = build(
            BoneTrack::new("a")
                .with_translation(t.clone())
                .with_rotation(r.clone()),
        );
        let so = build(BoneTrack::new("a").with_scale(s.clone()));
        let bm = ClipBinding::new(&mixed, &skel);
        assert_eq!(bm.fused.len(), 2);
        assert_eq!(bm.fused_mixed, vec![true, true]);
        let (btr, bso) = (ClipBinding::new(&tr, &skel), ClipBinding::new(&so, &skel));
        assert!(
            btr.fused.len() < 2,
            "the reference takes the per-channel path"
        );
        let mut caches = [SampleCache::new(), SampleCache::new(), SampleCache::new()];
        let mut x = 0.37f32;
        for i in 0..300 {
            // Forward play, then seeks anywhere (before, inside and after the keys).
            let time = if i < 150 {
                i as f32 / 140.0
            } else {
                x = (x * 7.3 + 0.19).fract();
                x * 1.4 - 0.2
            };
            let mut pm = vec![Transform::IDENTITY; 2];
            let mut pr = pm.clone();
            sample(&mixed, &bm, &mut caches[0], time, Untracked::Rest, &mut pm);
            sample(&tr, &btr, &mut caches[1], time, Untracked::Rest, &mut pr);
            sample(&so, &bso, &mut caches[2], time, Untracked::Keep, &mut pr);
            let (m, r) = (pm[0], pr[0]);
            let what = format!("cubic {cubic}, {space:?}, t {time}");
            assert!(
                m.translation.abs_diff_eq(r.translation, 2e-5),
                "{what}: {m:?} vs {r:?}"
            );
            assert!(m.rotation.abs_diff_eq(r.rotation, 2e-6), "{what}");
            assert!(m.scale.abs_diff_eq(r.scale, 1e-6), "{what}");
        }
    }
}

/// A chain of `bones` bones named `b0`, `b1`, … at the identity.
fn chain_skeleton(bones: usize) -> std::sync::Arc<crate::Skeleton> {
    use crate::{Parent, SkeletonBuilder};
    let mut sb = SkeletonBuilder::new();
    for b in 0..bones {
        let parent = if b == 0 {
            Parent::Root
        } else {
            Parent::from(format!("b{}", b - 1).as_str())
        };
        sb.push(format!("b{b}").as_str(), parent, Transform::IDENTITY);
    }
    sb.build().unwrap()
}

#[test]
fn block_refill_matches_per_bone_refill() {
    use glam::{Quat, Vec3};

    use crate::anim::{Clip, Track};

    if !std::is_x86_feature_detected!("avx2") {
        return;
    }
    let bones = 11;
    let skel = chain_skeleton(bones);
    let times = vec![0.0, 0.3, 0.5, 1.0];
    let v = |b: usize, k: usize, c: usize| ((b * 13 + k * 5 + c) as f32 * 0.618).fract() - 0.5;
    let mut builder = Clip::builder("c").duration(1.0);
    for b in 0..bones {
        let vec3 =
            |o: usize| (0..4).map(move |k| Vec3::new(v(b, k, o), v(b, k, o + 1), v(b, k, o + 2)));
        let quats = (0..4)
            .map(|k| Quat::from_xyzw(v(b, k, 3), v(b, k, 4), v(b, k, 5), v(b, k, 6)).normalize());
        // Some bones key a channel once (constant): it follows the others' key times.
        let once = |v: Vec<Vec3>| Track::linear(vec![0.2], v[..1].to_vec());
        let t = vec3(0).collect::<Vec<_>>();
        let sc = vec3(7).collect::<Vec<_>>();
        builder = builder.bone(
            crate::anim::BoneTrack::new(format!("b{b}"))
                .with_translation(if b % 4 == 2 {
                    once(t)
                } else {
                    Track::linear(times.clone(), t)
                })
                .with_rotation(Track::linear(times.clone(), quats.collect()))
                .with_scale(if b % 3 == 1 {
                    once(sc)
                } else {
                    Track::linear(times.clone(), sc)
                }),
        );
    }
    let clip = builder.build().unwrap();
    let binding = ClipBinding::new(&clip, &skel);
    assert!(binding.fused_linear);
    assert_eq!(binding.fused.len(), bones);
    for p in 0..=times.len() {
        let (_, _, start, k) = segment_range(&times, p);
        let mut a = FusedCache::default();
        a.bind(bones, false);
        let mut b = a.clone();
        for j in 0..bones {
            refill_one(clip.bone_tracks(), &binding, &mut a, j, p, (start, k));
        }
        // SAFETY: AVX2 is available (checked above).
        unsafe { avx2::refill_linear(clip.bone_tracks(), &binding, &mut b, p, (start, k)) };
        for j in 0..bones {
            let (bl, lane) = (j / 8, j % 8);
            let (x, y) = (&a.blocks[bl], &b.blocks[bl]);
            for c in 0..3 {
                assert_eq!(x.start[c][lane], y.start[c][lane]);
                assert_eq!(x.k[c][lane], y.k[c][lane]);
            }
            for r in 0..ROWS {
                assert_eq!(
                    x.c[r][lane].to_bits(),
                    y.c[r][lane].to_bits(),
                    "p {p} bone {j} row {r}"
                );
            }
        }
    }
}

/// Channels keyed apart but each channel at times every bone shares (some bones keying a
/// channel once): one cursor per channel and the 8-wide channel refill give the same samples,
/// bit for bit, as each bone keeping its own channel cursors — forward play and seeks.
#[test]
fn per_channel_shared_refill_matches_per_bone_refill() {
    channel_refills_match_per_bone_refill(false);
}

/// The same with rotations (and some translations) keyed at each bone's own times: those
/// channels played as streams of key events (forward, and rebuilt after each seek back), the
/// shared scale channel refilled eight bones at a time, against each bone keeping its own
/// channel cursors.
#[test]
fn per_bone_channel_events_match_per_bone_refill() {
    channel_refills_match_per_bone_refill(true);
}

fn channel_refills_match_per_bone_refill(own_times: bool) {
    use glam::{Quat, Vec3};

    use crate::anim::binding::PER_BONE;
    use crate::anim::{sample, BoneTrack, Clip, SampleCache, Track, Untracked};

    let bones = 19;
    let skel = chain_skeleton(bones);
    let tt = vec![0.0, 0.25, 0.5, 0.75, 1.0];
    let rt = vec![0.1, 0.2, 0.4, 0.55, 0.7, 0.9, 1.0];
    let st = vec![0.0, 0.6];
    // Bone `b`'s times of a channel: the shared ones, or (own times) re-timed per bone.
    let own = |times: &[f32], b: usize, every: usize| -> Vec<f32> {
        if own_times && b.is_multiple_of(every) {
            let power = 1.0 + 0.1 * (b % 4 + 1) as f32;
            times.iter().map(|t| t.powf(power)).collect()
        } else {
            times.to_vec()
        }
    };
    let v = |b: usize, k: usize, c: usize| ((b * 13 + k * 5 + c) as f32 * 0.618).fract() - 0.5;
    let mut builder = Clip::builder("c").duration(1.0);
    for b in 0..bones {
        let vec3 = |times: &[f32], o: usize| {
            (0..times.len())
                .map(|k| Vec3::new(v(b, k, o), v(b, k, o + 1), v(b, k, o + 2)))
                .collect::<Vec<_>>()
        };
        let quats = (0..rt.len())
            .map(|k| Quat::from_xyzw(v(b, k, 3), v(b, k, 4), v(b, k, 5), v(b, k, 6)).normalize())
            .collect();
        let once = |x: Vec<Vec3>| Track::linear(vec![0.3], x[..1].to_vec());
        let t = vec3(&tt, 0);
        let s = vec3(&st, 7);
        builder = builder.bone(
            BoneTrack::new(format!("b{b}"))
                .with_translation(if b % 4 == 2 {
                    once(t)
                } else {
                    Track::linear(own(&tt, b, 3), t)
                })
                .with_rotation(Track::linear(own(&rt, b, 1), quats))
                .with_scale(if b % 3 == 1 {
                    once(s)
                } else {
                    Track::linear(st.clone(), s)
                }),
        );
    }
    let clip = builder.build().unwrap();
    let shared = ClipBinding::new(&clip, &skel);
    let refs = shared.fused_channel_times.unwrap();
    assert_eq!(
        refs.map(|r| r == PER_BONE),
        [own_times, own_times, false],
        "{refs:?}"
    );
    assert_eq!(shared.fused.len(), bones);
    let mut apart = shared.clone();
    apart.fused_channel_times = None;
    let (mut ca, mut cb) = (SampleCache::new(), SampleCache::new());
    let mut x = 0.37f32;
    for i in 0..400 {
        let time = if i < 200 {
            i as f32 / 180.0
        } else {
            x = (x * 7.3 + 0.19).fract();
            x * 1.4 - 0.2
        };
        let mut pa = vec![Transform::IDENTITY; bones];
        let mut pb = pa.clone();
        sample(&clip, &shared, &mut ca, time, Untracked::Rest, &mut pa);
        sample(&clip, &apart, &mut cb, time, Untracked::Rest, &mut pb);
        for (j, (a, b)) in pa.iter().zip(&pb).enumerate() {
            let bits = |t: &Transform| {
                let mut v = t.translation.to_array().to_vec();
                v.extend(t.rotation.to_array());
                v.extend(t.scale.to_array());
                v.into_iter().map(f32::to_bits).collect::<Vec<_>>()
            };
            assert_eq!(bits(a), bits(b), "t {time}, bone {j}");
        }
    }
}
