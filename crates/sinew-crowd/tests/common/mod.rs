//! The benchmark workload, shared by the tests, the bench and the scaling example
//! (`#[path]`-included): the sinew-humanoid rig walking, feet on wavy ground, one hand
//! reaching for a per-instance point.
#![allow(dead_code)]

use std::sync::Arc;

use glam::{Quat, Vec3};
use sinew::anim::Clip;
use sinew::Model;
use sinew_crowd::{bake_clip, Crowd, CrowdTarget};
use sinew_humanoid::Humanoid;

/// Ground height at world `(x, z)`: gentle waves, ±8 cm.
pub fn ground(x: f32, z: f32) -> f32 {
    0.05 * (0.7 * x).sin() + 0.03 * (0.5 * z).cos()
}

/// A cheap deterministic hash of an instance index to `[0, 1)`.
pub fn unit(i: usize, salt: u32) -> f32 {
    let mut h = (i as u32)
        .wrapping_mul(0x9E37_79B9)
        .wrapping_add(salt.wrapping_mul(0x85EB_CA6B));
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    (h >> 8) as f32 / (1u32 << 24) as f32
}

/// The walk of [`Humanoid::animate`] baked to 31 linear keys per bone over 1 s, looping.
pub fn walk_clip(h: &Humanoid) -> Arc<Clip> {
    bake_clip("walk", &h.skeleton, 1.0, 31, |t, out| h.animate(t, out)).expect("finite walk")
}

/// Per-instance setup: root on a grid with a yaw, a time offset, a hand target and weight.
pub struct Setup {
    pub root_t: Vec3,
    pub root_r: Quat,
    pub offset: f32,
    pub hand: Vec3,
    pub hand_weight: f32,
    pub foot_weight: f32,
}

pub fn setup(h: &Humanoid, i: usize) -> Setup {
    let root_t = Vec3::new(
        (i % 100) as f32 * 1.5 - 75.0,
        0.0,
        (i / 100) as f32 * 1.5 - 75.0,
    );
    let root_r = Quat::from_rotation_y((unit(i, 1) - 0.5) * 1.0);
    let shoulder = Vec3::from(h.skeleton.rest_world()[h.bones.arm[0].upper.index()].translation);
    // Mid-stride (the walk moves the root 1.2 m per second along +Z).
    let local = shoulder
        + Vec3::new(
            0.25 + 0.1 * unit(i, 2),
            -0.25 + 0.2 * unit(i, 3),
            0.6 + 0.2 * unit(i, 4),
        );
    Setup {
        root_t,
        root_r,
        offset: unit(i, 5),
        hand: root_t + root_r * local,
        hand_weight: unit(i, 6),
        foot_weight: 0.5 + 0.5 * unit(i, 7),
    }
}

/// A crowd of `n` walkers with the workload's targets and ground.
pub fn crowd(h: &Humanoid, model: &Model, clip: &Arc<Clip>, n: usize) -> Crowd {
    let mut c = Crowd::new(model, Arc::clone(clip), n).expect("staged definitions");
    c.set_ground(ground);
    let leg_l = c.chain_index("leg_l").unwrap();
    let leg_r = c.chain_index("leg_r").unwrap();
    let arm_l = c.chain_index("arm_l").unwrap();
    for i in 0..n {
        let s = setup(h, i);
        c.set_root(i, s.root_t, s.root_r).unwrap();
        c.set_time_offset(i, s.offset).unwrap();
        for leg in [leg_l, leg_r] {
            c.set_target(
                i,
                leg,
                CrowdTarget::Ground {
                    weight: s.foot_weight,
                },
            )
            .unwrap();
        }
        c.set_target(
            i,
            arm_l,
            CrowdTarget::Point {
                world: s.hand,
                weight: s.hand_weight,
            },
        )
        .unwrap();
    }
    c
}
