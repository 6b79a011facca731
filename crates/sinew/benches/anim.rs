//! Animation benchmarks on the procedural 64-joint humanoid, single thread.
//!
//! Conditions match the ozz-animation 0.16 peer figures measured on this machine: every joint
//! has translation, rotation and scale tracks, N evenly spaced keys over a 1 s looping clip,
//! linear interpolation, playback advancing 1/60 s per iteration (cursor cache warm) on a clock
//! that wraps at the clip's end as ozz wraps its sampling ratio (`sinew_testkit::BenchClock`:
//! an `f32` time that only grew stopped moving after ≈ 25 M iterations).
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

#[path = "common/mod.rs"]
mod common;

use std::sync::Arc;

use common::min_ns_per_joint;

use criterion::{black_box, criterion_group, Criterion, Throughput};
use glam::Affine3A;
use sinew::anim::{
    blend, blend_soa, sample, sample_soa, BlendLayer, BlendParams, Clip, ClipBinding, SampleCache,
    Track, Untracked,
};
use sinew::pose::{local_to_world, local_to_world_soa, SoaPose};
use sinew::Transform;
use sinew_humanoid::Humanoid;
use sinew_testkit::BenchClock;

const DT: f32 = 1.0 / 60.0;

/// The pipeline workload: two clips sampled at 60 fps playback, blended 0.6 / 0.4 over the
/// rest pose, then local-to-world.
struct Pipeline<'h> {
    h: &'h Humanoid,
    clips: [Arc<Clip>; 2],
    bindings: [ClipBinding; 2],
    caches: [SampleCache; 2],
    poses: [Vec<Transform>; 2],
    locals: Vec<Transform>,
    world: Vec<Affine3A>,
    params: BlendParams,
    clock: BenchClock,
    /// The same frame in structure-of-arrays form (own caches and poses).
    soa: SoaFrame,
}

struct SoaFrame {
    caches: [SampleCache; 2],
    rest: SoaPose,
    poses: [SoaPose; 2],
    locals: SoaPose,
}

/// The clip shape of a pipeline.
#[derive(Clone, Copy)]
enum Shape {
    /// Every channel keyed at the same times.
    Shared,
    /// ozz-animation's: translation and rotation keyed `keys` times, scale once.
    Ozz,
    /// Channels keyed apart: translation at `keys` times, rotation at `keys + 2` others, scale
    /// once.
    Apart,
    /// Channels keyed apart, each bone's rotation at times of its own ([`per_bone_times`]).
    ApartPerBone,
}

impl<'h> Pipeline<'h> {
    fn new(h: &'h Humanoid, keys: usize, shape: Shape) -> Self {
        let walk = |phase| match shape {
            Shape::Shared => h.walk_clip(keys, phase),
            Shape::Ozz => h.walk_clip_scale_once(keys, phase),
            Shape::Apart => h.walk_clip_keyed_apart(keys, phase),
            Shape::ApartPerBone => per_bone_times(&h.walk_clip_keyed_apart(keys, phase)),
        };
        let clips = [walk(0.0), walk(0.37)];
        let bindings = clips.clone().map(|c| ClipBinding::new(&c, &h.skeleton));
        let caches = [
            SampleCache::for_binding(&bindings[0]),
            SampleCache::for_binding(&bindings[1]),
        ];
        let rest = h.skeleton.rest_pose().to_vec();
        Self {
            h,
            clips,
            caches,
            poses: [rest.clone(), rest.clone()],
            locals: rest,
            world: vec![Affine3A::IDENTITY; h.skeleton.len()],
            params: BlendParams::default(),
            clock: BenchClock::new(DT, 1.0),
            soa: SoaFrame {
                caches: [
                    SampleCache::for_binding(&bindings[0]),
                    SampleCache::for_binding(&bindings[1]),
                ],
                rest: SoaPose::from_transforms(h.skeleton.rest_pose()),
                poses: [
                    SoaPose::from_transforms(h.skeleton.rest_pose()),
                    SoaPose::from_transforms(h.skeleton.rest_pose()),
                ],
                locals: SoaPose::from_transforms(h.skeleton.rest_pose()),
            },
            bindings,
        }
    }

    /// Samples clip `k` at time `t` into its SoA pose.
    fn sample_soa(&mut self, k: usize, t: f32) {
        sample_soa(
            &self.clips[k],
            &self.bindings[k],
            &mut self.soa.caches[k],
            t,
            Untracked::Keep,
            &mut self.soa.poses[k],
        );
    }

    fn blend_soa(&mut self) {
        blend_soa(
            &self.soa.rest,
            &[
                BlendLayer::new_soa(black_box(&self.soa.poses[0]), 0.6),
                BlendLayer::new_soa(&self.soa.poses[1], 0.4),
            ],
            &[],
            &self.params,
            &mut self.soa.locals,
        );
    }

    fn local_to_world_soa(&mut self) {
        local_to_world_soa(
            self.h.skeleton.parent_indices(),
            black_box(&self.soa.locals),
            &Affine3A::IDENTITY,
            &mut self.world,
        );
    }

    /// One frame in SoA form: advance 1/60 s, sample both clips, blend, local-to-world.
    fn frame_soa(&mut self) {
        let t = black_box(self.clock.tick());
        self.sample_soa(0, t);
        self.sample_soa(1, t * 1.1);
        self.blend_soa();
        self.local_to_world_soa();
        black_box(&self.world);
    }

    /// Samples clip `k` at time `t` into its pose.
    fn sample(&mut self, k: usize, t: f32) {
        sample(
            &self.clips[k],
            &self.bindings[k],
            &mut self.caches[k],
            t,
            Untracked::Keep,
            &mut self.poses[k],
        );
    }

    fn blend(&mut self) {
        blend(
            self.h.skeleton.rest_pose(),
            &[
                BlendLayer::new(black_box(&self.poses[0]), 0.6),
                BlendLayer::new(&self.poses[1], 0.4),
            ],
            &[],
            &self.params,
            &mut self.locals,
        );
    }

    fn local_to_world(&mut self) {
        local_to_world(
            self.h.skeleton.parent_indices(),
            black_box(&self.locals),
            &Affine3A::IDENTITY,
            &mut self.world,
        );
    }

    /// One frame: advance 1/60 s, sample both clips, blend, local-to-world.
    fn frame(&mut self) {
        let t = black_box(self.clock.tick());
        self.sample(0, t);
        self.sample(1, t * 1.1);
        self.blend();
        self.local_to_world();
        black_box(&self.world);
    }
}

/// `sample/{name}` into `[Transform]` and `sample/{name}_soa` into an `SoaPose`, playing `clip`
/// forward at 60 fps.
/// `clip` with each bone's rotation keys moved to times of its own (`t^(1 + 0.05·(i mod 7))`,
/// the ends kept): channels keyed apart *and* differently per bone, as in a keyframe-reduced
/// clip — the shape the per-channel shared cursors do not cover.
fn per_bone_times(clip: &Clip) -> Arc<Clip> {
    let mut b = Clip::builder(clip.name()).duration(clip.duration());
    for (i, bt) in clip.bone_tracks().iter().enumerate() {
        let mut bt = bt.clone();
        if let Some(r) = &bt.rotation {
            let power = 1.0 + 0.05 * (i % 7) as f32;
            let times = r.times().iter().map(|t| t.powf(power)).collect();
            bt.rotation = Some(Track::linear(times, r.values().to_vec()));
        }
        b = b.bone(bt);
    }
    b.build().expect("a valid clip")
}

fn sample_benches(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    h: &Humanoid,
    name: &str,
    clip: &Clip,
) {
    let binding = ClipBinding::new(clip, &h.skeleton);
    let mut cache = SampleCache::for_binding(&binding);
    let mut out = h.skeleton.rest_pose().to_vec();
    let mut soa = SoaPose::from_transforms(h.skeleton.rest_pose());
    let mut clock = BenchClock::new(DT, clip.duration());
    group.bench_function(format!("sample/{name}"), |b| {
        b.iter(|| {
            let t = clock.tick();
            sample(
                clip,
                &binding,
                &mut cache,
                black_box(t),
                Untracked::Keep,
                &mut out,
            );
            black_box(&out);
        });
    });
    let mut clock = BenchClock::new(DT, clip.duration());
    group.bench_function(format!("sample/{name}_soa"), |b| {
        b.iter(|| {
            let t = clock.tick();
            sample_soa(
                clip,
                &binding,
                &mut cache,
                black_box(t),
                Untracked::Keep,
                &mut soa,
            );
            black_box(&soa);
        });
    });
}

fn bench_anim(c: &mut Criterion) {
    let h = Humanoid::new();
    let n = h.skeleton.len();
    let mut group = c.benchmark_group("anim");
    group.throughput(Throughput::Elements(n as u64));

    for keys in [5usize, 31] {
        // ozz-animation's clip shape (translation and rotation keyed `keys` times, scale once)
        // and channels keyed apart (rotation at `keys + 2` times of its own), each into
        // `[Transform]` and `SoaPose`.
        for (shape, clip) in [
            ("ozz_shape", h.walk_clip_scale_once(keys, 0.0)),
            ("channels_apart", h.walk_clip_keyed_apart(keys, 0.0)),
            (
                "channels_apart_per_bone",
                per_bone_times(&h.walk_clip_keyed_apart(keys, 0.0)),
            ),
        ] {
            sample_benches(
                &mut group,
                &h,
                &format!("64j_{keys}keys_{shape}_60fps"),
                &clip,
            );
        }

        let clip = h.walk_clip(keys, 0.0);
        sample_benches(
            &mut group,
            &h,
            &format!("64j_{keys}keys_linear_trs_60fps"),
            &clip,
        );
        let binding = ClipBinding::new(&clip, &h.skeleton);
        let mut cache = SampleCache::for_binding(&binding);
        let mut out = h.skeleton.rest_pose().to_vec();
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

    let (sa, sb) = (
        SoaPose::from_transforms(&a),
        SoaPose::from_transforms(&bpose),
    );
    let soa_rest = SoaPose::from_transforms(h.skeleton.rest_pose());
    let mut soa_out = SoaPose::new(n);
    group.bench_function("blend/64j_2layers_soa", |b| {
        b.iter(|| {
            blend_soa(
                &soa_rest,
                &[
                    BlendLayer::new_soa(black_box(&sa), 0.3),
                    BlendLayer::new_soa(&sb, 0.7),
                ],
                &[],
                &params,
                &mut soa_out,
            );
            black_box(&soa_out);
        });
    });

    for keys in [5usize, 31] {
        for (shape, name) in [
            (Shape::Shared, "linear"),
            (Shape::Ozz, "ozz_shape"),
            (Shape::Apart, "channels_apart"),
            (Shape::ApartPerBone, "channels_apart_per_bone"),
        ] {
            let mut pipeline = Pipeline::new(&h, keys, shape);
            group.bench_function(
                format!("pipeline/64j_{keys}keys_{name}_2x_sample_blend_l2w_60fps"),
                |b| b.iter(|| pipeline.frame()),
            );
            group.bench_function(
                format!("pipeline/64j_{keys}keys_{name}_2x_sample_blend_l2w_60fps_soa"),
                |b| b.iter(|| pipeline.frame_soa()),
            );
        }
    }
    group.finish();
}

fn min_report() {
    let h = Humanoid::new();
    let n = h.skeleton.len();
    println!("min-of-batches ns/joint (64-joint humanoid, linear TRS, 1 s clip, 60 fps):");
    for keys in [5usize, 31] {
        let mut p = Pipeline::new(&h, keys, Shape::Shared);
        let sample_ns = min_ns_per_joint(n, || {
            let t = p.clock.tick();
            p.sample(0, black_box(t));
            black_box(&p.poses[0]);
        });
        let blend_ns = min_ns_per_joint(n, || {
            p.blend();
            black_box(&p.locals);
        });
        let l2w_ns = min_ns_per_joint(n, || {
            p.local_to_world();
            black_box(&p.world);
        });
        let pipe_ns = min_ns_per_joint(n, || p.frame());
        println!(
            "  {keys:>2} keys: sample {sample_ns:.2}  blend2 {blend_ns:.2}  local_to_world {l2w_ns:.2}  pipeline {pipe_ns:.2}"
        );
        let sample_ns = min_ns_per_joint(n, || {
            let t = p.clock.tick();
            p.sample_soa(0, black_box(t));
            black_box(&p.soa.poses[0]);
        });
        let blend_ns = min_ns_per_joint(n, || {
            p.blend_soa();
            black_box(&p.soa.locals);
        });
        let l2w_ns = min_ns_per_joint(n, || {
            p.local_to_world_soa();
            black_box(&p.world);
        });
        let pipe_ns = min_ns_per_joint(n, || p.frame_soa());
        println!(
            "  {keys:>2} keys, SoA: sample {sample_ns:.2}  blend2 {blend_ns:.2}  local_to_world {l2w_ns:.2}  pipeline {pipe_ns:.2}"
        );
    }
}

criterion_group!(benches, bench_anim);

fn main() {
    min_report();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
