//! The IK workloads every measurement of sinew shares — sinew-ik's tests, its criterion
//! benches and quality example, `sinew bench` and the peer harness (`bench/peers`): a
//! fixed-seed RNG, the standard chains (Caliko-like demo chains, an arm, an MMD leg) and the
//! benchmark cases with their targets.

use core::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};

use glam::{Quat, Vec3};
use sinew::ik::{
    apply_corrections, solve_fabrik, AimParams, CcdLink, CcdParams, ChainJoint, FabrikLink,
    FabrikParams, FabrikScratch, Hinge, IkJoint, RotationLimit, Rotor,
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

/// Each bone's length before and after the corrections, link by link: `(before, after)`.
pub fn bone_lengths<'a>(
    before: &'a [ChainJoint],
    after: &'a [ChainJoint],
) -> impl Iterator<Item = (f32, f32)> + 'a {
    let length = |w: &[ChainJoint]| (w[1].position - w[0].position).length();
    before
        .windows(2)
        .zip(after.windows(2))
        .map(move |(a, b)| (length(a), length(b)))
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

// ---- The benchmark cases (`benches/ik.rs` times them, `examples/ik_quality.rs` reports their
// solved fractions): fixed seeds, `TARGETS` targets each.

/// Targets per benchmark case.
pub const TARGETS: usize = 1024;

/// Two-bone: random reachable targets around the [`arm`]'s shoulder (pole `-Z`).
pub fn two_bone_targets() -> Vec<Vec3> {
    let mut rng = Rng::new(1);
    (0..TARGETS)
        .map(|_| rng.direction() * rng.range(0.1, 0.53))
        .collect()
}

/// Aim: a head joint, forward `+Z`, up `+Y`, an eye offset, and targets 0.5–5 m around it.
pub fn aim_case() -> (ChainJoint, AimParams, Vec<Vec3>) {
    let head = ChainJoint::new(Vec3::new(0.0, 1.6, 0.0), Quat::IDENTITY);
    let params =
        AimParams::new(Vec3::Z, Vec3::Y, Vec3::new(0.0, 0.07, 0.1), 0.0, 1.0, None).unwrap();
    let mut rng = Rng::new(2);
    let targets = (0..TARGETS)
        .map(|_| head.position + rng.direction() * rng.range(0.5, 5.0))
        .collect();
    (head, params, targets)
}

/// FABRIK, 3 free bones following a moving target, the chain keeping its solved pose between
/// frames: each frame's pose before the solve and its target, with the number solved and the
/// total iterations.
pub fn fabrik3_moving_frames(params: &FabrikParams) -> (Vec<(Vec<ChainJoint>, Vec3)>, usize, u32) {
    let links = [FabrikLink::FREE; 3];
    let mut scratch = FabrikScratch::with_capacity(3);
    let mut corrections = [Quat::IDENTITY; 3];
    let mut joints = straight_chain(3, 1.0);
    let (mut solved, mut iterations) = (0, 0);
    let frames = (0..TARGETS)
        .map(|k| {
            let a = k as f32 * 0.02;
            let target = Vec3::new(1.5 + a.cos(), a.sin() * 1.2, (a * 0.7).sin() * 0.8);
            let before = joints.clone();
            let r = solve_fabrik(
                &joints,
                &links,
                target,
                params,
                &mut scratch,
                &mut corrections,
            )
            .unwrap();
            solved += usize::from(r.satisfied);
            iterations += r.iterations;
            joints = fk(&joints, &corrections);
            (before, target)
        })
        .collect();
    (frames, solved, iterations)
}

/// FABRIK, 10 bones from a straight chain: `(case, links, targets)` for 45° rotors with random
/// reachable targets and for local 90° hinges with planar targets.
pub fn fabrik10_cases() -> [(&'static str, Vec<FabrikLink>, Vec<Vec3>); 2] {
    let targets = |seed, gen: fn(&mut Rng, usize, f32) -> Vec3| {
        let mut rng = Rng::new(seed);
        (0..TARGETS).map(|_| gen(&mut rng, 10, 1.0)).collect()
    };
    [
        (
            "rotor45_random_reachable",
            rotor_links(10),
            targets(3, random_rotor_target),
        ),
        (
            "local_hinge90_planar_random",
            hinge_links(10),
            targets(4, random_hinge_target),
        ),
    ]
}

/// FABRIK-10 with Caliko's benchmark protocol (`../shared/anchors.md`): ten bones of length 10
/// along −Z, 45° rotors on every bone but the base (free), targets drawn uniformly in a ball of
/// 0.9 × the chain's length around the base and then moved onto the reachable set — the
/// effector of a helper chain of the same kind solved toward each from straight (50
/// iterations, tolerance 0.01). Solves start from the previous solution (warm start); the
/// caller picks Caliko's default tolerance (distance 1.0, 20 iterations) or the tight one
/// (0.01, 20). Returns `(start joints, links, targets)`.
pub fn caliko_fabrik10_case() -> (Vec<ChainJoint>, Vec<FabrikLink>, Vec<Vec3>) {
    let start = chain_from_directions(&[Vec3::NEG_Z; 10], 10.0);
    let mut links = rotor_links(10);
    links[0] = FabrikLink::FREE;
    let helper = FabrikParams::new(50, 0.01, PI).unwrap();
    let mut scratch = FabrikScratch::with_capacity(10);
    let mut corrections = [Quat::IDENTITY; 10];
    let mut solved = start.clone();
    let mut rng = Rng::new(11);
    let targets = (0..TARGETS)
        .map(|_| {
            let wanted = rng.direction() * (90.0 * rng.unit().cbrt());
            solve_fabrik(
                &start,
                &links,
                wanted,
                &helper,
                &mut scratch,
                &mut corrections,
            )
            .unwrap();
            apply_corrections(&start, &corrections, &mut solved).unwrap();
            solved[10].position
        })
        .collect();
    (start, links, targets)
}

/// CCD, the [`mmd_leg`] with 40 iterations and random leg targets.
pub fn ccd_leg_case() -> ([CcdLink; 2], Vec3, CcdParams, Vec<Vec3>) {
    let (leg, effector) = mmd_leg();
    let mut rng = Rng::new(5);
    let targets = (0..TARGETS).map(|_| random_leg_target(&mut rng)).collect();
    (
        leg,
        effector,
        CcdParams::new(40, 2.0, 1e-4).unwrap(),
        targets,
    )
}

/// CCD, a 10-link [`ccd_chain`] with 10 iterations and random targets 1–9.5 from its base.
pub fn ccd10_case() -> (Vec<CcdLink>, Vec3, CcdParams, Vec<Vec3>) {
    let (links, effector) = ccd_chain(10);
    let mut rng = Rng::new(6);
    let targets = (0..TARGETS)
        .map(|_| rng.direction() * rng.range(1.0, 9.5))
        .collect();
    (
        links,
        effector,
        CcdParams::new(10, 2.0, 1e-4).unwrap(),
        targets,
    )
}

/// Finite and unit to f32 rounding: `|q|²` within 1e-5 of 1 (glam's `is_normalized` allows 2e-4,
/// which hides drift).
pub fn is_unit(q: Quat) -> bool {
    q.is_finite() && (q.length_squared() - 1.0).abs() <= 1e-5
}
