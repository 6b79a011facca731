//! Shared fixtures of the tests, the bench and the quality example: a fixed-seed RNG and
//! the standard chains (Caliko-like demo chains, an arm, an MMD leg).
#![allow(dead_code)]

use core::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};

use glam::{Quat, Vec3};
use sinew_ik::{
    apply_corrections, CcdLink, ChainJoint, FabrikLink, Hinge, IkJoint, RotationLimit, Rotor,
};

/// xorshift64*: tiny, deterministic, good enough for test targets.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform direction on the sphere.
    pub fn direction(&mut self) -> Vec3 {
        let z = self.range(-1.0, 1.0);
        let a = self.range(0.0, 2.0 * PI);
        let r = (1.0 - z * z).max(0.0).sqrt();
        Vec3::new(r * a.cos(), r * a.sin(), z)
    }

    /// Uniform direction within `angle` of `axis` (by angle, not area).
    pub fn direction_in_cone(&mut self, axis: Vec3, angle: f32) -> Vec3 {
        let tilt = self.range(0.0, angle);
        let spin = self.range(0.0, 2.0 * PI);
        let perp = axis.any_orthonormal_vector();
        let perp = Quat::from_axis_angle(axis, spin) * perp;
        (axis * tilt.cos() + perp * tilt.sin()).normalize()
    }

    pub fn quat(&mut self) -> Quat {
        Quat::from_axis_angle(self.direction(), self.range(-PI, PI))
    }
}

/// A straight chain of `bones` bones of `length` along +X from the origin, every bone's
/// rotation identity (so bone-local +X is the bone direction), plus the effector.
pub fn straight_chain(bones: usize, length: f32) -> Vec<ChainJoint> {
    (0..=bones)
        .map(|i| ChainJoint::at(Vec3::X * (i as f32 * length)))
        .collect()
}

/// Chain joints whose link `i` points along `dirs[i]` (model rotation = shortest arc from
/// +X), starting at the origin, with `length` per bone.
pub fn chain_from_directions(dirs: &[Vec3], length: f32) -> Vec<ChainJoint> {
    let mut joints = Vec::with_capacity(dirs.len() + 1);
    let mut p = Vec3::ZERO;
    let mut last = Quat::IDENTITY;
    for &d in dirs {
        let r = Quat::from_rotation_arc(Vec3::X, d.normalize());
        joints.push(ChainJoint::new(p, r));
        p += d.normalize() * length;
        last = r;
    }
    joints.push(ChainJoint::new(p, last));
    joints
}

/// Caliko's 45° rotor demo chain: every link a 45° ball joint.
pub fn rotor_links(bones: usize) -> Vec<FabrikLink> {
    vec![FabrikLink::with_joint(IkJoint::Rotor(Rotor::new(FRAC_PI_4).unwrap())); bones]
}

/// A random pose of the rotor chain that respects its rotors; returns its effector.
pub fn random_rotor_target(rng: &mut Rng, bones: usize, length: f32) -> Vec3 {
    let mut d = rng.direction_in_cone(Vec3::X, FRAC_PI_4);
    let mut p = d * length;
    for _ in 1..bones {
        d = rng.direction_in_cone(d, FRAC_PI_4);
        p += d * length;
    }
    p
}

/// Local hinges about bone-local Z, reference bone-local X, range ±90°.
pub fn hinge_links(bones: usize) -> Vec<FabrikLink> {
    vec![
        FabrikLink::with_joint(IkJoint::Hinge(
            Hinge::new(Vec3::Z, Vec3::X, -FRAC_PI_2, FRAC_PI_2).unwrap()
        ));
        bones
    ]
}

/// A random planar (XY) pose of the hinge chain within its ranges; returns its effector.
pub fn random_hinge_target(rng: &mut Rng, bones: usize, length: f32) -> Vec3 {
    let mut a = 0.0f32;
    let mut p = Vec3::ZERO;
    for _ in 0..bones {
        a += rng.range(-FRAC_PI_2, FRAC_PI_2) * 0.5;
        p += Vec3::new(a.cos(), a.sin(), 0.0) * length;
    }
    p
}

/// Forward kinematics after corrections.
pub fn fk(joints: &[ChainJoint], corrections: &[Quat]) -> Vec<ChainJoint> {
    let mut out = joints.to_vec();
    apply_corrections(joints, corrections, &mut out).unwrap();
    out
}

/// An arm: shoulder at the origin, elbow at +X*0.3 (slightly bent toward -Z), wrist 0.25
/// beyond; rotations are the shortest arcs from +X.
pub fn arm() -> [ChainJoint; 3] {
    let upper = Vec3::ZERO;
    let mid = Vec3::new(0.3, 0.0, -0.02);
    let end = mid + Vec3::new(0.25, 0.0, 0.02);
    [
        ChainJoint::new(
            upper,
            Quat::from_rotation_arc(Vec3::X, (mid - upper).normalize()),
        ),
        ChainJoint::new(
            mid,
            Quat::from_rotation_arc(Vec3::X, (end - mid).normalize()),
        ),
        ChainJoint::new(
            end,
            Quat::from_rotation_arc(Vec3::X, (end - mid).normalize()),
        ),
    ]
}

/// MMD knee limit: X in [-π, -0.5°] (the PMX convention most models use).
pub fn knee_limit() -> RotationLimit {
    RotationLimit::new(
        Vec3::new(-PI, 0.0, 0.0),
        Vec3::new(-0.5f32.to_radians(), 0.0, 0.0),
    )
    .unwrap()
}

/// An MMD-style leg: thigh at (0, 1, 0) and knee at (0, 0.5, 0) with identity rotations,
/// ankle (effector) at the origin. Returns the links and the effector position.
pub fn mmd_leg() -> ([CcdLink; 2], Vec3) {
    let thigh = CcdLink {
        position: Vec3::new(0.0, 1.0, 0.0),
        rotation: Quat::IDENTITY,
        local_rotation: Quat::IDENTITY,
        limit: None,
    };
    let knee = CcdLink {
        position: Vec3::new(0.0, 0.5, 0.0),
        rotation: Quat::IDENTITY,
        local_rotation: Quat::IDENTITY,
        limit: Some(knee_limit()),
    };
    ([thigh, knee], Vec3::ZERO)
}

/// A reachable leg target: a random thigh swing and a knee angle in the limit.
pub fn random_leg_target(rng: &mut Rng) -> Vec3 {
    let thigh = Quat::from_axis_angle(rng.direction(), rng.range(0.0, 1.0));
    let knee = Quat::from_rotation_x(rng.range(-2.5, -0.05));
    let hip = Vec3::new(0.0, 1.0, 0.0);
    hip + thigh * (Vec3::new(0.0, -0.5, 0.0) + knee * Vec3::new(0.0, -0.5, 0.0))
}

/// Ten straight CCD links of length 1 along +X, no limits, identity rotations.
pub fn ccd_chain(links: usize) -> (Vec<CcdLink>, Vec3) {
    let l = (0..links)
        .map(|i| CcdLink {
            position: Vec3::X * i as f32,
            rotation: Quat::IDENTITY,
            local_rotation: Quat::IDENTITY,
            limit: None,
        })
        .collect();
    (l, Vec3::X * links as f32)
}
