//! Anchor + two limbs per body per frame on `sinew_humanoid::Humanoid` holding the demo rifle.
//!
//! `cargo bench -p sinew-props -- --warm-up-time 1 --measurement-time 3`
//!
//! Each iteration first puts the clip's pose back (locals and world matrices, two memcpys —
//! what the clip stage does anyway), so the solve sees a fresh clip pose as in a tick loop.
//! `props/reset_only` times that copy alone; subtract it from `props/anchor_two_limbs`.
//!
//! `props/floor_two_limbs` is the work ik3d's contract requires and nothing else, on the same
//! pose, limbs, targets and poles: the reset, two analytic two-bone solves, their corrections
//! written into the locals, and each arm's subtree of world matrices refreshed. The rig's
//! figure over it is what anchoring, limb look-up, the clip-restore bookkeeping and copies
//! cost.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use glam::Vec3;
use sinew::ik::{solve_two_bone, ChainJoint, TwoBoneParams};
use sinew::RigState;
use sinew_humanoid::rifle;
use sinew_humanoid::Humanoid;
use sinew_props::{rotation_of, PropSlot, PropsRig};

fn bench(c: &mut Criterion) {
    let h = Humanoid::new();
    let mut state = RigState::new(h.skeleton.clone());
    h.animate(0.3, state.locals_mut());
    state.compute_world();
    let clip_locals = state.locals().to_vec();
    let clip_world = state.world().unwrap().to_vec();
    let mut rig = PropsRig::new(
        Arc::new(rifle::humanoid_rifle_config()),
        Some(rifle::HUMANOID_KIND),
    )
    .unwrap();
    rig.hold(rifle::RIFLE, PropSlot::Ready(rifle::rifle()));
    rig.solve(&mut state).unwrap();
    assert_eq!(rig.short().unwrap(), &[0.0, 0.0]);

    // The floor: the same limbs driven to where the rig put the hands, poles as configured.
    let limbs: Vec<([sinew::BoneId; 3], (Vec3, glam::Quat), Vec3)> = [
        (
            ["upper_arm_r", "forearm_r", "hand_r"],
            Vec3::new(-1.0, -1.0, 0.0),
        ),
        (
            ["upper_arm_l", "forearm_l", "hand_l"],
            Vec3::new(1.0, -1.0, 0.0),
        ),
    ]
    .into_iter()
    .map(|(names, pole)| {
        let bones = names.map(|n| h.skeleton.find(n).expect("humanoid arm"));
        let hand = state.world().unwrap()[bones[2].index()];
        let (_, rotation, position) = hand.to_scale_rotation_translation();
        (bones, (position, rotation), pole)
    })
    .collect();
    let params = TwoBoneParams::default();
    c.bench_function("props/floor_two_limbs", |b| {
        b.iter(|| {
            state.locals_mut().copy_from_slice(&clip_locals);
            state.allocate_world().copy_from_slice(&clip_world);
            for (bones, target, pole) in &limbs {
                // The joints' frames: one matrix-to-rotation conversion (the parent's), the
                // rest from the locals, as cheaply as the rig does it.
                let world = state.world().unwrap();
                let locals = state.locals();
                let parent = h
                    .skeleton
                    .parent(bones[0])
                    .expect("arms hang from the clavicles");
                let r0 = rotation_of(&world[parent.index()]) * locals[bones[0].index()].rotation;
                let r1 = r0 * locals[bones[1].index()].rotation;
                let r2 = r1 * locals[bones[2].index()].rotation;
                let joint =
                    |b: sinew::BoneId, r| ChainJoint::new(world[b.index()].translation.into(), r);
                let joints = [
                    joint(bones[0], r0),
                    joint(bones[1], r1),
                    joint(bones[2], r2),
                ];
                let r = solve_two_bone(&joints, target.0, Some(target.1), *pole, &params).unwrap();
                let locals = state.locals_mut();
                for (b, c) in bones.iter().zip(r.corrections) {
                    let l = &mut locals[b.index()];
                    l.rotation = (l.rotation * c).normalize();
                }
                state.compute_world_subtree(bones[0]);
            }
            black_box(&mut state);
        });
    });
    // Back to the rig's own solution for the benches below.
    state.locals_mut().copy_from_slice(&clip_locals);
    state.allocate_world().copy_from_slice(&clip_world);
    rig.solve(&mut state).unwrap();

    c.bench_function("props/reset_only", |b| {
        b.iter(|| {
            state.locals_mut().copy_from_slice(&clip_locals);
            state.allocate_world().copy_from_slice(&clip_world);
            black_box(&mut state);
        });
    });
    c.bench_function("props/anchor_two_limbs", |b| {
        b.iter(|| {
            state.locals_mut().copy_from_slice(&clip_locals);
            state.allocate_world().copy_from_slice(&clip_world);
            rig.solve(black_box(&mut state)).unwrap();
            black_box(rig.short());
        });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
