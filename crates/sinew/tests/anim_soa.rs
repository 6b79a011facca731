//! The structure-of-arrays path (`sample_soa`, `blend_soa`, `local_to_world_soa`) gives
//! exactly — bit for bit — what the `[Transform]` path gives, on every sampling path (fused
//! whole-bone records aligned or not, per-channel, Bézier, cubic, untracked bones) and every
//! blending rule (two-layer fast path, masks, rest fallback, additive layers).

use std::sync::Arc;

use glam::{Affine3A, Quat, Vec3};
use proptest::prelude::*;
use sinew::anim::{
    blend, blend_soa, sample, sample_soa, AdditiveLayer, BezierEase, BlendLayer, BlendParams,
    BoneTrack, Clip, ClipBinding, SampleCache, Track, Untracked, ValueSpace,
};
use sinew::pose::{local_to_world, local_to_world_soa, SoaPose};
use sinew::Transform;
use sinew_humanoid::Humanoid;

/// Every kind of track on the humanoid, by bone index modulo 6: untracked; fused T/R/S
/// (linear); rotation only; step translation + rotation on other key times; Bézier
/// translation + rotation; fused cubic-spline T/R/S. Fused bones are spread out, so their
/// records are not aligned with the pose's blocks.
fn mixed_clip(h: &Humanoid, space: ValueSpace) -> Arc<Clip> {
    let times = vec![0.0, 0.3, 0.55, 1.0];
    let other = vec![0.0, 0.7, 1.0];
    let mut b = Clip::builder("mixed").duration(1.0).space(space);
    for bone in h.skeleton.bones() {
        let i = bone.index();
        let f = i as f32;
        let v = |k: usize| Vec3::new(0.1 * f, 0.02 * k as f32, -0.05 * f + k as f32 * 0.1);
        let q = |k: usize| Quat::from_euler(glam::EulerRot::XYZ, 0.1 * f, 0.3 * k as f32, -0.2);
        let s = |k: usize| Vec3::new(1.0 + 0.1 * k as f32, 1.0, 0.9);
        let vs = |n: usize, g: &dyn Fn(usize) -> Vec3| (0..n).map(g).collect::<Vec<_>>();
        let qs = |n: usize| (0..n).map(q).collect::<Vec<_>>();
        let name = h.skeleton.name(bone);
        let bt = match i % 6 {
            0 => continue,
            1 => BoneTrack::new(name)
                .with_translation(Track::linear(times.clone(), vs(4, &v)))
                .with_rotation(Track::linear(times.clone(), qs(4)))
                .with_scale(Track::linear(times.clone(), vs(4, &s))),
            2 => BoneTrack::new(name).with_rotation(Track::linear(times.clone(), qs(4))),
            3 => BoneTrack::new(name)
                .with_translation(Track::step(other.clone(), vs(3, &v)))
                .with_rotation(Track::linear(times.clone(), qs(4))),
            4 => {
                let ease = BezierEase {
                    x1: 0.2,
                    y1: 0.0,
                    x2: 0.6,
                    y2: 1.0,
                };
                BoneTrack::new(name)
                    .with_translation(Track::bezier(
                        other.clone(),
                        vs(3, &v),
                        vec![[ease, BezierEase::LINEAR, ease]; 3],
                    ))
                    .with_rotation(Track::bezier(other.clone(), qs(3), vec![ease; 3]))
            }
            _ => {
                let tan = |_: usize| Vec3::new(0.3, -0.2, 0.1);
                let qt = vec![Quat::from_xyzw(0.05, 0.0, -0.05, 0.0); 4];
                BoneTrack::new(name)
                    .with_translation(Track::cubic_spline(
                        times.clone(),
                        vs(4, &tan),
                        vs(4, &v),
                        vs(4, &tan),
                    ))
                    .with_rotation(Track::cubic_spline(times.clone(), qt.clone(), qs(4), qt))
                    .with_scale(Track::cubic_spline(
                        times.clone(),
                        vs(4, &tan),
                        vs(4, &s),
                        vs(4, &tan),
                    ))
            }
        };
        b = b.bone(bt);
    }
    b.build().expect("valid clip")
}

/// Some pose that is not the rest pose, so `Untracked::Keep` is visible.
fn start_pose(h: &Humanoid) -> Vec<Transform> {
    let mut p = h.skeleton.rest_pose().to_vec();
    h.animate(0.77, &mut p);
    p
}

fn check_sampling(clip: &Arc<Clip>, h: &Humanoid, times: &[f32], untracked: Untracked) {
    let binding = ClipBinding::new(clip, &h.skeleton);
    let (mut ca, mut cs) = (SampleCache::new(), SampleCache::new());
    let mut aos = start_pose(h);
    let mut soa = SoaPose::from_transforms(&aos);
    let mut world_a = vec![Affine3A::IDENTITY; aos.len()];
    let mut world_s = world_a.clone();
    for &t in times {
        sample(clip, &binding, &mut ca, t, untracked, &mut aos);
        sample_soa(clip, &binding, &mut cs, t, untracked, &mut soa);
        assert_eq!(soa.to_transforms(), aos, "t = {t}");
        let parents = h.skeleton.parent_indices();
        local_to_world(parents, &aos, &Affine3A::IDENTITY, &mut world_a);
        local_to_world_soa(parents, &soa, &Affine3A::IDENTITY, &mut world_s);
        assert_eq!(world_s, world_a, "t = {t}");
    }
}

#[test]
fn baked_walk_samples_identically() {
    let h = Humanoid::new();
    let clip = h.walk_clip(5, 0.2);
    let times: Vec<f32> = (0..90).map(|k| k as f32 / 60.0).collect();
    check_sampling(&clip, &h, &times, Untracked::Keep);
    check_sampling(&clip, &h, &[0.9, 0.1, 3.3, -0.4], Untracked::Rest);
}

#[test]
fn extra_joints_sample_identically() {
    // 512 joints: several chunks of blocks.
    let h = Humanoid::with_extra_joints(448);
    let clip = h.walk_clip(7, 0.0);
    check_sampling(&clip, &h, &[0.0, 0.25, 0.6, 0.61], Untracked::Keep);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn mixed_clip_samples_identically(
        times in proptest::collection::vec(-1.5f32..2.5, 1..12),
        rest in any::<bool>(),
        relative in any::<bool>(),
    ) {
        let h = Humanoid::new();
        let space = if relative { ValueSpace::RelativeToRest } else { ValueSpace::Absolute };
        let clip = mixed_clip(&h, space);
        let untracked = if rest { Untracked::Rest } else { Untracked::Keep };
        check_sampling(&clip, &h, &times, untracked);
    }
}

fn transform() -> impl Strategy<Value = Transform> {
    (
        proptest::array::uniform3(-2.0f32..2.0),
        proptest::array::uniform4(-1.0f32..1.0),
        proptest::array::uniform3(0.2f32..2.0),
    )
        .prop_map(|(t, q, s)| {
            let q = Quat::from_array(q);
            let q = if q.length_squared() > 1e-3 {
                q.normalize()
            } else {
                Quat::IDENTITY
            };
            Transform::from_trs(Vec3::from(t), q, Vec3::from(s))
        })
}

fn poses(n: usize, k: usize) -> impl Strategy<Value = Vec<Vec<Transform>>> {
    proptest::collection::vec(proptest::collection::vec(transform(), n), k)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Rest, three layer poses, an additive pose and its reference; weights, masks and the
    /// threshold drawn so every branch (fast path, general path, rest fallback, all-zero
    /// weights, additive from rest or from a reference) comes up.
    #[test]
    fn blend_soa_equals_blend(
        (n, p) in (1usize..40).prop_flat_map(|n| (Just(n), poses(n, 6))),
        layers in 0usize..4,
        weights in proptest::array::uniform3(-0.2f32..1.5),
        masked in any::<bool>(),
        threshold in 0.0f32..0.5,
        additive in 0usize..3,
        add_weight in -0.5f32..1.2,
    ) {
        let mask: Vec<f32> = (0..n).map(|i| (i % 4) as f32 * 0.3 - 0.1).collect();
        let soa: Vec<SoaPose> = p.iter().map(|x| SoaPose::from_transforms(x)).collect();
        let params = BlendParams { threshold };
        let layer = |k: usize| {
            let l = BlendLayer::new(&p[1 + k], weights[k]);
            if masked && k == 1 { l.with_mask(&mask) } else { l }
        };
        let layer_soa = |k: usize| {
            let l = BlendLayer::new_soa(&soa[1 + k], weights[k]);
            if masked && k == 1 { l.with_mask(&mask) } else { l }
        };
        let aos_layers: Vec<_> = (0..layers).map(layer).collect();
        let soa_layers: Vec<_> = (0..layers).map(layer_soa).collect();
        let (aos_add, soa_add): (Vec<_>, Vec<_>) = match additive {
            0 => (vec![], vec![]),
            1 => (
                vec![AdditiveLayer::new(&p[4], add_weight)],
                vec![AdditiveLayer::new_soa(&soa[4], add_weight)],
            ),
            _ => (
                vec![AdditiveLayer::new(&p[4], add_weight).relative_to(&p[5]).with_mask(&mask)],
                vec![AdditiveLayer::new_soa(&soa[4], add_weight)
                    .relative_to(&soa[5])
                    .with_mask(&mask)],
            ),
        };
        let mut out = vec![Transform::IDENTITY; n];
        blend(&p[0], &aos_layers, &aos_add, &params, &mut out);
        let mut out_soa = SoaPose::new(n);
        blend_soa(&soa[0], &soa_layers, &soa_add, &params, &mut out_soa);
        prop_assert_eq!(out_soa.to_transforms(), out);
    }
}
