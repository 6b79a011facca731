//! Animation benchmarks on the procedural 64-joint humanoid, single thread.
//!
//! Conditions match the ozz-animation 0.16 peer figures measured on this machine: every joint
//! has translation, rotation and scale tracks, N evenly spaced keys over a 1 s looping clip,
//! linear interpolation, playback advancing 1/60 s per iteration (cursor cache warm).
//!
//! | bench                                  | ozz ns/joint | target |
//! |----------------------------------------|-------------:|-------:|
//! | sample, 5 keys                         | 2.65         | ≤ 1.33 |
//! | 2-layer blend                          | 1.98         | ≤ 0.99 |
//! | pipeline (2× sample + blend + l2w), 5k | 13.6         | ≤ 6.8  |
//! | pipeline, 31 keys                      | 27.4         | ≤ 13.7 |
//!
//! Criterion reports time per iteration; divide by 64 for ns/joint (throughput is set to 64
//! elements, so the elements/s figure is joints/s).

use std::sync::Arc;

use criterion::{black_box, criterion_group, Criterion, Throughput};
use glam::Affine3A;
use sinew::anim::{
    blend, sample, BlendLayer, BlendParams, BoneTrack, Clip, ClipBinding, SampleCache, Track,
    Untracked,
};
use sinew::pose::local_to_world;
use sinew::Transform;
use sinew_testkit::Humanoid;

const DT: f32 = 1.0 / 60.0;

/// A 1 s looping clip with `keys` linear keys per channel, baked from the humanoid's walk
/// starting at `phase`.
fn baked_clip(h: &Humanoid, keys: usize, phase: f32) -> Arc<Clip> {
    let n = h.skeleton.len();
    let times: Vec<f32> = (0..keys).map(|k| k as f32 / (keys - 1) as f32).collect();
    let mut frames = vec![vec![Transform::IDENTITY; n]; keys];
    for (f, &t) in frames.iter_mut().zip(&times) {
        h.animate(phase + t, f);
    }
    let mut b = Clip::builder("walk").duration(1.0);
    for bone in h.skeleton.bones() {
        let i = bone.index();
        b = b.bone(
            BoneTrack::new(h.skeleton.name(bone))
                .with_translation(Track::linear(
                    times.clone(),
                    frames.iter().map(|f| f[i].translation).collect(),
                ))
                .with_rotation(Track::linear(
                    times.clone(),
                    frames.iter().map(|f| f[i].rotation).collect(),
                ))
                .with_scale(Track::linear(
                    times.clone(),
                    frames.iter().map(|f| f[i].scale).collect(),
                )),
        );
    }
    b.build().expect("valid clip")
}

fn bench_anim(c: &mut Criterion) {
    let h = Humanoid::new();
    let n = h.skeleton.len();
    let mut group = c.benchmark_group("anim");
    group.throughput(Throughput::Elements(n as u64));

    for keys in [5usize, 31] {
        let clip = baked_clip(&h, keys, 0.0);
        let binding = ClipBinding::new(&clip, &h.skeleton);
        let mut cache = SampleCache::for_binding(&binding);
        let mut out = h.skeleton.rest_pose().to_vec();
        let mut t = 0.0f32;
        group.bench_function(format!("sample/64j_{keys}keys_linear_trs_60fps"), |b| {
            b.iter(|| {
                t += DT;
                sample(
                    &clip,
                    &binding,
                    &mut cache,
                    black_box(t),
                    Untracked::Keep,
                    &mut out,
                );
                black_box(&out);
            });
        });
        let mut t = 0.0f32;
        let mut rng = 0x1234_5678u32;
        group.bench_function(
            format!("sample/64j_{keys}keys_linear_trs_random_seek"),
            |b| {
                b.iter(|| {
                    rng ^= rng << 13;
                    rng ^= rng >> 17;
                    rng ^= rng << 5;
                    t = (rng >> 8) as f32 / (1u32 << 24) as f32;
                    sample(
                        &clip,
                        &binding,
                        &mut cache,
                        black_box(t),
                        Untracked::Keep,
                        &mut out,
                    );
                    black_box(&out);
                });
            },
        );
    }

    let mut a = vec![Transform::IDENTITY; n];
    let mut bpose = vec![Transform::IDENTITY; n];
    h.animate(0.2, &mut a);
    h.animate(0.7, &mut bpose);
    let mut out = vec![Transform::IDENTITY; n];
    let params = BlendParams::default();
    group.bench_function("blend/64j_2layers", |b| {
        b.iter(|| {
            blend(
                h.skeleton.rest_pose(),
                &[
                    BlendLayer::new(black_box(&a), 0.3),
                    BlendLayer::new(&bpose, 0.7),
                ],
                &[],
                &params,
                &mut out,
            );
            black_box(&out);
        });
    });
    let mask: Vec<f32> = (0..n).map(|i| if i % 2 == 0 { 1.0 } else { 0.5 }).collect();
    group.bench_function("blend/64j_2layers_masked", |b| {
        b.iter(|| {
            blend(
                h.skeleton.rest_pose(),
                &[
                    BlendLayer::new(black_box(&a), 0.3).with_mask(&mask),
                    BlendLayer::new(&bpose, 0.7),
                ],
                &[],
                &params,
                &mut out,
            );
            black_box(&out);
        });
    });

    for keys in [5usize, 31] {
        let clip_a = baked_clip(&h, keys, 0.0);
        let clip_b = baked_clip(&h, keys, 0.37);
        let bind_a = ClipBinding::new(&clip_a, &h.skeleton);
        let bind_b = ClipBinding::new(&clip_b, &h.skeleton);
        let mut cache_a = SampleCache::for_binding(&bind_a);
        let mut cache_b = SampleCache::for_binding(&bind_b);
        let mut pa = h.skeleton.rest_pose().to_vec();
        let mut pb = h.skeleton.rest_pose().to_vec();
        let mut locals = h.skeleton.rest_pose().to_vec();
        let mut world = vec![Affine3A::IDENTITY; n];
        let mut t = 0.0f32;
        group.bench_function(
            format!("pipeline/64j_{keys}keys_linear_2x_sample_blend_l2w_60fps"),
            |b| {
                b.iter(|| {
                    t += DT;
                    sample(
                        &clip_a,
                        &bind_a,
                        &mut cache_a,
                        black_box(t),
                        Untracked::Keep,
                        &mut pa,
                    );
                    sample(
                        &clip_b,
                        &bind_b,
                        &mut cache_b,
                        t * 1.1,
                        Untracked::Keep,
                        &mut pb,
                    );
                    blend(
                        h.skeleton.rest_pose(),
                        &[BlendLayer::new(&pa, 0.6), BlendLayer::new(&pb, 0.4)],
                        &[],
                        &params,
                        &mut locals,
                    );
                    local_to_world(
                        h.skeleton.parent_indices(),
                        &locals,
                        &Affine3A::IDENTITY,
                        &mut world,
                    );
                    black_box(&world);
                });
            },
        );
    }
    group.finish();
}

/// Minimum over many short batches, in ns per joint: robust on a shared, loaded machine where
/// criterion's mean drifts with other processes. Printed before the criterion run.
fn min_ns_per_joint(joints: usize, mut f: impl FnMut()) -> f64 {
    const BATCH: u32 = 64;
    let mut best = f64::INFINITY;
    for _ in 0..3000 {
        let start = std::time::Instant::now();
        for _ in 0..BATCH {
            f();
        }
        best = best.min(start.elapsed().as_nanos() as f64 / f64::from(BATCH));
    }
    best / joints as f64
}

fn min_report() {
    let h = Humanoid::new();
    let n = h.skeleton.len();
    let params = BlendParams::default();
    println!("min-of-batches ns/joint (64-joint humanoid, linear TRS, 1 s clip, 60 fps):");
    for keys in [5usize, 31] {
        let clip_a = baked_clip(&h, keys, 0.0);
        let clip_b = baked_clip(&h, keys, 0.37);
        let bind_a = ClipBinding::new(&clip_a, &h.skeleton);
        let bind_b = ClipBinding::new(&clip_b, &h.skeleton);
        let mut cache_a = SampleCache::for_binding(&bind_a);
        let mut cache_b = SampleCache::for_binding(&bind_b);
        let mut pa = h.skeleton.rest_pose().to_vec();
        let mut pb = pa.clone();
        let mut locals = pa.clone();
        let mut world = vec![Affine3A::IDENTITY; n];
        let mut t = 0.0f32;
        let sample_ns = min_ns_per_joint(n, || {
            t += DT;
            sample(
                &clip_a,
                &bind_a,
                &mut cache_a,
                black_box(t),
                Untracked::Keep,
                &mut pa,
            );
            black_box(&pa);
        });
        let blend_ns = min_ns_per_joint(n, || {
            blend(
                h.skeleton.rest_pose(),
                &[
                    BlendLayer::new(black_box(&pa), 0.6),
                    BlendLayer::new(&pb, 0.4),
                ],
                &[],
                &params,
                &mut locals,
            );
            black_box(&locals);
        });
        let l2w_ns = min_ns_per_joint(n, || {
            local_to_world(
                h.skeleton.parent_indices(),
                black_box(&locals),
                &Affine3A::IDENTITY,
                &mut world,
            );
            black_box(&world);
        });
        let pipe_ns = min_ns_per_joint(n, || {
            t += DT;
            sample(
                &clip_a,
                &bind_a,
                &mut cache_a,
                black_box(t),
                Untracked::Keep,
                &mut pa,
            );
            sample(
                &clip_b,
                &bind_b,
                &mut cache_b,
                t * 1.1,
                Untracked::Keep,
                &mut pb,
            );
            blend(
                h.skeleton.rest_pose(),
                &[BlendLayer::new(&pa, 0.6), BlendLayer::new(&pb, 0.4)],
                &[],
                &params,
                &mut locals,
            );
            local_to_world(
                h.skeleton.parent_indices(),
                &locals,
                &Affine3A::IDENTITY,
                &mut world,
            );
            black_box(&world);
        });
        println!(
            "  {keys:>2} keys: sample {sample_ns:.2}  blend2 {blend_ns:.2}  local_to_world {l2w_ns:.2}  pipeline {pipe_ns:.2}"
        );
    }
}

criterion_group!(benches, bench_anim);

fn main() {
    min_report();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
