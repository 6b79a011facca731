//! The animation hot path on the structure-of-arrays pose: two clips sampled with
//! `sample_soa`, cross-blended with `blend_soa`, evaluated with `local_to_world_soa` — for a
//! few characters, with no allocation per frame. Then the same frame through the
//! `[Transform]` path, to show the results are bit-identical, and a conversion into a
//! `RigState` for stages that work bone by bone (IK, physics).
//!
//! `cargo run -p sinew-examples --example soa_crowd_pipeline`

use glam::Affine3A;
use sinew::anim::{
    blend, blend_soa, sample, sample_soa, BlendLayer, BlendParams, ClipBinding, SampleCache,
    Untracked,
};
use sinew::pose::{local_to_world, local_to_world_soa, SoaPose};
use sinew::RigState;
use sinew_humanoid::Humanoid;

/// Per-character state: one cache per clip, the two sampled poses, the blend and the world.
struct Character {
    caches: [SampleCache; 2],
    poses: [SoaPose; 2],
    blended: SoaPose,
    world: Vec<Affine3A>,
    phase: f32,
}

fn main() {
    let h = Humanoid::new();
    let skeleton = &h.skeleton;
    let clips = [h.walk_clip(5, 0.0), h.walk_clip(9, 0.5)];
    let bindings = [
        ClipBinding::new(&clips[0], skeleton),
        ClipBinding::new(&clips[1], skeleton),
    ];
    let rest = SoaPose::from_transforms(skeleton.rest_pose());
    let params = BlendParams::default();

    // Everything a character needs is allocated once, here.
    let mut crowd: Vec<Character> = (0..4)
        .map(|k| Character {
            caches: [
                SampleCache::for_binding(&bindings[0]),
                SampleCache::for_binding(&bindings[1]),
            ],
            poses: [rest.clone(), rest.clone()],
            blended: rest.clone(),
            world: vec![Affine3A::IDENTITY; skeleton.len()],
            phase: k as f32 * 0.25,
        })
        .collect();

    let head = skeleton.find("head").expect("the humanoid has a head");
    for frame in 0..60 {
        let t = frame as f32 / 60.0;
        for c in &mut crowd {
            let local = t + c.phase;
            for k in 0..2 {
                sample_soa(
                    &clips[k],
                    &bindings[k],
                    &mut c.caches[k],
                    local,
                    Untracked::Keep,
                    &mut c.poses[k],
                );
            }
            // Cross-fade from the first clip to the second over the second.
            blend_soa(
                &rest,
                &[
                    BlendLayer::new_soa(&c.poses[0], 1.0 - t),
                    BlendLayer::new_soa(&c.poses[1], t),
                ],
                &[],
                &params,
                &mut c.blended,
            );
            local_to_world_soa(
                skeleton.parent_indices(),
                &c.blended,
                &Affine3A::IDENTITY,
                &mut c.world,
            );
        }
    }
    for (k, c) in crowd.iter().enumerate() {
        let p = c.world[head.index()].translation;
        println!(
            "character {k}: head at ({:.3}, {:.3}, {:.3})",
            p.x, p.y, p.z
        );
    }

    // The same last frame through the `[Transform]` path: identical bits.
    let c = &crowd[0];
    let t = 59.0 / 60.0 + c.phase;
    let mut poses = [skeleton.rest_pose().to_vec(), skeleton.rest_pose().to_vec()];
    for k in 0..2 {
        let mut cache = SampleCache::for_binding(&bindings[k]);
        sample(
            &clips[k],
            &bindings[k],
            &mut cache,
            t,
            Untracked::Keep,
            &mut poses[k],
        );
    }
    let w = 59.0 / 60.0;
    let mut blended = skeleton.rest_pose().to_vec();
    blend(
        skeleton.rest_pose(),
        &[
            BlendLayer::new(&poses[0], 1.0 - w),
            BlendLayer::new(&poses[1], w),
        ],
        &[],
        &params,
        &mut blended,
    );
    let mut world = vec![Affine3A::IDENTITY; skeleton.len()];
    local_to_world(
        skeleton.parent_indices(),
        &blended,
        &Affine3A::IDENTITY,
        &mut world,
    );
    assert_eq!(world, c.world, "the SoA path is bit-identical");
    println!(
        "[Transform] path: identical world matrices for all {} bones",
        world.len()
    );

    // Handing the pose to a stage that works bone by bone.
    let mut state = RigState::new(skeleton.clone());
    c.blended.write_transforms(state.locals_mut());
    let world = state.compute_world();
    println!(
        "RigState from the SoA pose: head at {:.3?}",
        world[head.index()].translation
    );
}
