//! The procedural humanoid.

use std::sync::Arc;

use glam::{Quat, Vec3};
use sinew::anim::{BoneTrack, Clip, Track};
use sinew::dynamics::{
    BodyMode, BonePoseConstraint, ChainSolver, IkChain, IkChainParams, IkLink, Joint, JointDesc,
    Physics, RigidBody, RigidBodyDesc, Shape, SkeletonDynamicsBuilder, TransformInheritance,
};
use sinew::{BoneId, Model, Parent, Skeleton, SkeletonBuilder, Transform};

/// Three bones of an arm or a leg: upper, lower, end (hand or foot).
#[derive(Clone, Copy, Debug)]
pub struct Limb {
    /// Upper arm or thigh.
    pub upper: BoneId,
    /// Forearm or shin.
    pub lower: BoneId,
    /// Hand or foot.
    pub end: BoneId,
}

/// Ids of the humanoid's named bones.
#[derive(Clone, Debug)]
pub struct HumanoidBones {
    /// The root at the ground.
    pub root: BoneId,
    /// Pelvis (hips).
    pub pelvis: BoneId,
    /// Spine, bottom to top.
    pub spine: [BoneId; 3],
    /// Neck.
    pub neck: BoneId,
    /// Head.
    pub head: BoneId,
    /// Tip above the head.
    pub head_end: BoneId,
    /// Ponytail, base to tip.
    pub ponytail: [BoneId; 5],
    /// Left and right clavicles.
    pub clavicle: [BoneId; 2],
    /// Left and right arms.
    pub arm: [Limb; 2],
    /// Left and right legs.
    pub leg: [Limb; 2],
    /// Left and right toes.
    pub toe: [BoneId; 2],
    /// Left and right forearm twist bones.
    pub forearm_twist: [BoneId; 2],
}

/// A procedural humanoid rig.
#[derive(Clone, Debug)]
pub struct Humanoid {
    /// The shared skeleton.
    pub skeleton: Arc<Skeleton>,
    /// Named bones.
    pub bones: HumanoidBones,
    /// Extra chains (hair, skirt, cape) added by [`Self::with_extra_joints`], base first.
    pub extra_chains: Vec<Vec<BoneId>>,
}

const SIDES: [(&str, f32); 2] = [("l", 1.0), ("r", -1.0)];
const FINGERS: [(&str, Vec3); 5] = [
    ("thumb", Vec3::new(0.025, -0.01, 0.035)),
    ("index", Vec3::new(0.09, 0.0, 0.03)),
    ("middle", Vec3::new(0.095, 0.0, 0.01)),
    ("ring", Vec3::new(0.09, 0.0, -0.01)),
    ("pinky", Vec3::new(0.08, 0.0, -0.03)),
];

fn t(x: f32, y: f32, z: f32) -> Transform {
    Transform::from_translation(Vec3::new(x, y, z))
}

fn base_builder() -> SkeletonBuilder {
    let mut b = SkeletonBuilder::new();
    b.push("root", Parent::Root, Transform::IDENTITY);
    b.push("pelvis", "root", t(0.0, 0.95, 0.0));
    b.push("spine1", "pelvis", t(0.0, 0.1, 0.0));
    b.push("spine2", "spine1", t(0.0, 0.12, 0.0));
    b.push("spine3", "spine2", t(0.0, 0.12, 0.0));
    b.push("neck", "spine3", t(0.0, 0.15, 0.0));
    b.push("head", "neck", t(0.0, 0.1, 0.0));
    b.push("head_end", "head", t(0.0, 0.2, 0.0));
    b.push("jaw", "head", t(0.0, 0.02, 0.06));
    b.push("eye_l", "head", t(0.03, 0.08, 0.08));
    b.push("eye_r", "head", t(-0.03, 0.08, 0.08));
    b.push("ponytail1", "head", t(0.0, 0.12, -0.1));
    for i in 2..=5 {
        b.push(
            format!("ponytail{i}"),
            format!("ponytail{}", i - 1),
            t(0.0, -0.08, -0.02),
        );
    }
    for (s, x) in SIDES {
        b.push(format!("clavicle_{s}"), "spine3", t(x * 0.04, 0.1, 0.0));
        b.push(
            format!("upper_arm_{s}"),
            format!("clavicle_{s}"),
            t(x * 0.14, 0.0, 0.0),
        );
        b.push(
            format!("forearm_{s}"),
            format!("upper_arm_{s}"),
            t(x * 0.28, 0.0, 0.0),
        );
        b.push(
            format!("forearm_twist_{s}"),
            format!("forearm_{s}"),
            t(x * 0.12, 0.0, 0.0),
        );
        b.push(
            format!("hand_{s}"),
            format!("forearm_{s}"),
            t(x * 0.26, 0.0, 0.0),
        );
        for (f, off) in FINGERS {
            b.push(
                format!("{f}1_{s}"),
                format!("hand_{s}"),
                t(x * off.x, off.y, off.z),
            );
            b.push(
                format!("{f}2_{s}"),
                format!("{f}1_{s}"),
                t(x * 0.03, 0.0, 0.0),
            );
            b.push(
                format!("{f}3_{s}"),
                format!("{f}2_{s}"),
                t(x * 0.025, 0.0, 0.0),
            );
        }
    }
    for (s, x) in SIDES {
        b.push(format!("thigh_{s}"), "pelvis", t(x * 0.1, -0.05, 0.0));
        b.push(
            format!("shin_{s}"),
            format!("thigh_{s}"),
            t(0.0, -0.45, 0.0),
        );
        b.push(format!("foot_{s}"), format!("shin_{s}"), t(0.0, -0.42, 0.0));
        b.push(format!("toe_{s}"), format!("foot_{s}"), t(0.0, -0.05, 0.13));
    }
    b
}

impl Humanoid {
    /// The 64-joint humanoid.
    ///
    /// # Panics
    /// Never for this fixed rig (its construction is tested).
    #[must_use]
    pub fn new() -> Self {
        Self::with_extra_joints(0)
    }

    /// The humanoid with `extra` more joints in 8-bone chains (hair from the head, a skirt from
    /// the pelvis, a cape from the chest, in turn); `with_extra_joints(448)` has 512 joints.
    ///
    /// # Panics
    /// If the total exceeds what a skeleton can hold.
    #[must_use]
    pub fn with_extra_joints(extra: usize) -> Self {
        let mut b = base_builder();
        let mut chain_names = Vec::new();
        let mut made = 0;
        let mut k = 0usize;
        while made < extra {
            let (parent, origin, step) = match k % 3 {
                0 => {
                    let a = k as f32 * 0.7;
                    (
                        "head",
                        Vec3::new(0.08 * a.cos(), 0.1, 0.08 * a.sin()),
                        Vec3::new(0.0, -0.05, 0.0),
                    )
                }
                1 => {
                    let a = k as f32 * 0.9;
                    (
                        "pelvis",
                        Vec3::new(0.15 * a.cos(), 0.0, 0.15 * a.sin()),
                        Vec3::new(0.0, -0.06, 0.0),
                    )
                }
                _ => {
                    let x = ((k as f32 * 0.37).fract() - 0.5) * 0.3;
                    (
                        "spine3",
                        Vec3::new(x, 0.1, -0.12),
                        Vec3::new(0.0, -0.07, -0.005),
                    )
                }
            };
            let len = (extra - made).min(8);
            let mut names = Vec::with_capacity(len);
            let mut prev = parent.to_owned();
            for j in 0..len {
                let name = format!("extra{k}_{j}");
                let off = if j == 0 { origin } else { step };
                b.push(name.clone(), prev.clone(), Transform::from_translation(off));
                prev = name.clone();
                names.push(name);
            }
            made += len;
            chain_names.push(names);
            k += 1;
        }
        let skeleton = b.build().expect("procedural humanoid is valid");
        let id = |n: &str| skeleton.find(n).expect("named bone exists");
        let limb = |u: &str, l: &str, e: &str| Limb {
            upper: id(u),
            lower: id(l),
            end: id(e),
        };
        let bones = HumanoidBones {
            root: id("root"),
            pelvis: id("pelvis"),
            spine: [id("spine1"), id("spine2"), id("spine3")],
            neck: id("neck"),
            head: id("head"),
            head_end: id("head_end"),
            ponytail: [
                id("ponytail1"),
                id("ponytail2"),
                id("ponytail3"),
                id("ponytail4"),
                id("ponytail5"),
            ],
            clavicle: [id("clavicle_l"), id("clavicle_r")],
            arm: [
                limb("upper_arm_l", "forearm_l", "hand_l"),
                limb("upper_arm_r", "forearm_r", "hand_r"),
            ],
            leg: [
                limb("thigh_l", "shin_l", "foot_l"),
                limb("thigh_r", "shin_r", "foot_r"),
            ],
            toe: [id("toe_l"), id("toe_r")],
            forearm_twist: [id("forearm_twist_l"), id("forearm_twist_r")],
        };
        let extra_chains = chain_names
            .iter()
            .map(|c| c.iter().map(|n| id(n)).collect())
            .collect();
        Self {
            skeleton,
            bones,
            extra_chains,
        }
    }

    /// Writes a deterministic walk-like pose at time `time` (seconds) into `locals`, starting
    /// from the rest pose: legs and arms swing, knees and elbows bend, the spine twists, the head
    /// nods, hair and chains sway. `locals` must have the skeleton's length.
    ///
    /// # Panics
    /// If `locals` has the wrong length.
    pub fn animate(&self, time: f32, locals: &mut [Transform]) {
        assert_eq!(locals.len(), self.skeleton.len());
        locals.copy_from_slice(self.skeleton.rest_pose());
        let b = &self.bones;
        let w = std::f32::consts::TAU * time; // one stride per second
        let rot = |locals: &mut [Transform], id: BoneId, q: Quat| {
            let l = &mut locals[id.index()];
            l.rotation = (l.rotation * q).normalize();
        };
        locals[b.pelvis.index()].translation.y += 0.03 * (2.0 * w).cos();
        locals[b.root.index()].translation.z = 1.2 * time;
        rot(locals, b.spine[0], Quat::from_rotation_y(0.15 * w.sin()));
        rot(
            locals,
            b.spine[2],
            Quat::from_rotation_x(0.08 + 0.03 * (2.0 * w).sin()),
        );
        rot(
            locals,
            b.head,
            Quat::from_rotation_x(0.1 * (2.0 * w).sin()) * Quat::from_rotation_y(-0.12 * w.sin()),
        );
        for (side, s) in [(0usize, 1.0f32), (1, -1.0)] {
            let phase = if side == 0 { 0.0 } else { std::f32::consts::PI };
            let swing = (w + phase).sin();
            let leg = b.leg[side];
            rot(locals, leg.upper, Quat::from_rotation_x(-0.5 * swing));
            rot(
                locals,
                leg.lower,
                Quat::from_rotation_x(0.6 * (0.5 - 0.5 * (w + phase).cos()).max(0.0)),
            );
            rot(locals, leg.end, Quat::from_rotation_x(-0.2 * swing));
            let arm = b.arm[side];
            rot(locals, b.clavicle[side], Quat::from_rotation_z(-s * 0.05));
            rot(
                locals,
                arm.upper,
                Quat::from_rotation_z(-s * 1.2) * Quat::from_rotation_y(s * 0.4 * swing),
            );
            rot(
                locals,
                arm.lower,
                Quat::from_rotation_y(s * (0.3 + 0.25 * (1.0 - swing))),
            );
        }
        for (i, &p) in b.ponytail.iter().enumerate() {
            let k = i as f32 + 1.0;
            rot(
                locals,
                p,
                Quat::from_rotation_x(0.15 * (w - 0.6 * k).sin())
                    * Quat::from_rotation_z(0.08 * (w - 0.5 * k).cos()),
            );
        }
        for (c, chain) in self.extra_chains.iter().enumerate() {
            for (j, &id) in chain.iter().enumerate() {
                let a = 0.05 * (w - 0.4 * j as f32 + c as f32).sin();
                rot(
                    locals,
                    id,
                    Quat::from_rotation_x(a) * Quat::from_rotation_z(0.5 * a),
                );
            }
        }
    }
}

impl Default for Humanoid {
    fn default() -> Self {
        Self::new()
    }
}

impl Humanoid {
    /// The walk baked into a 1 s looping clip with `keys` evenly spaced linear keys on every
    /// bone's translation, rotation and scale (ozz-animation's benchmark conditions), starting
    /// at `phase` seconds.
    ///
    /// # Panics
    /// If `keys < 2`.
    #[must_use]
    pub fn walk_clip(&self, keys: usize, phase: f32) -> Arc<Clip> {
        self.walk(keys, phase, false, false)
    }

    /// [`Self::walk_clip`] with channels keyed apart, as many glTF exports are: `keys`
    /// translation keys, `keys + 2` rotation keys at their own times, scale keyed once.
    ///
    /// # Panics
    /// If `keys < 2`.
    #[must_use]
    pub fn walk_clip_keyed_apart(&self, keys: usize, phase: f32) -> Arc<Clip> {
        self.walk(keys, phase, true, true)
    }

    /// [`Self::walk_clip`] in the shape of ozz-animation's sampling benchmark clips: `keys`
    /// translation and rotation keys per bone, and its scale keyed once.
    ///
    /// # Panics
    /// If `keys < 2`.
    #[must_use]
    pub fn walk_clip_scale_once(&self, keys: usize, phase: f32) -> Arc<Clip> {
        self.walk(keys, phase, true, false)
    }

    fn walk(&self, keys: usize, phase: f32, scale_once: bool, apart: bool) -> Arc<Clip> {
        assert!(keys >= 2, "a clip needs two keys");
        // Rotation keys at their own times when `apart`.
        let rkeys = if apart { keys + 2 } else { keys };
        let rtimes: Vec<f32> = (0..rkeys).map(|k| k as f32 / (rkeys - 1) as f32).collect();
        let mut rframes = vec![vec![Transform::IDENTITY; self.skeleton.len()]; rkeys];
        for (f, &t) in rframes.iter_mut().zip(&rtimes) {
            self.animate(phase + t, f);
        }
        let n = self.skeleton.len();
        let times: Vec<f32> = (0..keys).map(|k| k as f32 / (keys - 1) as f32).collect();
        let mut frames = vec![vec![Transform::IDENTITY; n]; keys];
        for (f, &t) in frames.iter_mut().zip(&times) {
            self.animate(phase + t, f);
        }
        let mut b = Clip::builder("walk").duration(1.0);
        for bone in self.skeleton.bones() {
            let i = bone.index();
            let track = |f: &dyn Fn(&Transform) -> Vec3| {
                Track::linear(times.clone(), frames.iter().map(|p| f(&p[i])).collect())
            };
            b = b.bone(
                BoneTrack::new(self.skeleton.name(bone))
                    .with_translation(track(&|t| t.translation))
                    .with_rotation(Track::linear(
                        rtimes.clone(),
                        rframes.iter().map(|p| p[i].rotation).collect(),
                    ))
                    .with_scale(if scale_once {
                        Track::linear(vec![0.0], vec![frames[0][i].scale])
                    } else {
                        track(&|t| t.scale)
                    }),
            );
        }
        b.build().expect("the walk bakes into a valid clip")
    }

    /// A [`Model`] of this humanoid with four IK chains and two inheritance constraints — the
    /// workload of the instance benchmarks:
    ///
    /// * `leg_l`, `leg_r`: two-bone (thigh, shin → foot), pole forward (+Z);
    /// * `arm_l`, `arm_r`: FABRIK (upper arm, forearm → hand), 16 iterations, tolerance 1 mm;
    /// * `forearm_twist_l/r` inherit half of the hand's rotation, kept to the twist about the
    ///   forearm's axis (X).
    ///
    /// Each chain's controller is its own effector, so without a target a chain holds its pose.
    ///
    /// # Panics
    /// Never for this fixed rig (tested).
    #[must_use]
    pub fn model_with_ik(&self) -> Model {
        self.model_with(false)
    }

    /// [`Self::model_with_ik`] plus a physics table ([`Self::physics_table`]): the ponytail
    /// and every extra chain hang as dynamic capsules from kinematic head, pelvis and chest
    /// bodies.
    ///
    /// # Panics
    /// Never for this fixed rig (tested).
    #[must_use]
    pub fn model_with_ik_and_physics(&self) -> Model {
        self.model_with(true)
    }

    /// The physics table of [`Self::model_with_ik_and_physics`], in metres: kinematic spheres on
    /// head (r 0.11), pelvis (r 0.14) and chest (r 0.13); per chain bone a dynamic capsule
    /// (r 0.02, 50 g) along the bone, jointed to its parent body with ±0.5 rad swing and
    /// ±0.1 rad twist and a weak spring. Chains collide with the kinematic bodies, not with
    /// each other.
    ///
    /// # Panics
    /// Never for this fixed rig (tested).
    #[must_use]
    pub fn physics_table(&self) -> Physics {
        let rest = self.skeleton.rest_world();
        let pos = |b: BoneId| -> Vec3 { rest[b.index()].translation.into() };
        let b = &self.bones;
        let anchors = [
            (b.head, 0.11f32, Vec3::new(0.0, 0.1, 0.0)),
            (b.pelvis, 0.14, Vec3::ZERO),
            (b.spine[2], 0.13, Vec3::ZERO),
        ];
        let mut bodies: Vec<RigidBodyDesc> = anchors
            .iter()
            .map(|&(bone, r, off)| RigidBodyDesc {
                name: format!("{}-body", self.skeleton.name(bone)),
                bone: Some(bone),
                shape: Shape::Sphere,
                size: Vec3::splat(r),
                position: pos(bone) + off,
                collision_group: 0,
                non_collision_mask: 1 << 1,
                mode: BodyMode::Kinematic,
                ..RigidBodyDesc::default()
            })
            .collect();
        let mut joints = Vec::new();
        let mut chains: Vec<Vec<BoneId>> = vec![b.ponytail.to_vec()];
        chains.extend(self.extra_chains.iter().cloned());
        for chain in &chains {
            let anchor_bone = self.skeleton.parent(chain[0]).unwrap_or(b.head);
            let mut parent_body = anchors.iter().position(|a| a.0 == anchor_bone).unwrap_or(0);
            for (i, &bone) in chain.iter().enumerate() {
                let start = pos(bone);
                let end = match chain.get(i + 1) {
                    Some(&next) => pos(next),
                    None if i > 0 => start + (start - pos(chain[i - 1])),
                    None => start - Vec3::Y * 0.06,
                };
                let len = (end - start).length().max(0.02);
                let dir = (end - start).normalize_or(Vec3::NEG_Y);
                let r = 0.02;
                bodies.push(RigidBodyDesc {
                    name: format!("{}-body", self.skeleton.name(bone)),
                    bone: Some(bone),
                    shape: Shape::Capsule,
                    size: Vec3::new(r, (len - 2.0 * r).max(0.005), 0.0),
                    position: (start + end) * 0.5,
                    rotation: sinew::math::euler_xyz_from_quat(Quat::from_rotation_arc(
                        Vec3::Y,
                        dir,
                    )),
                    collision_group: 1,
                    non_collision_mask: 1 << 1,
                    mass: 0.05,
                    linear_damping: 0.5,
                    angular_damping: 0.5,
                    friction: 0.5,
                    mode: BodyMode::Dynamic,
                    ..RigidBodyDesc::default()
                });
                let this = bodies.len() - 1;
                joints.push(JointDesc {
                    name: format!("{}-joint", self.skeleton.name(bone)),
                    body_a: parent_body,
                    body_b: this,
                    position: start,
                    rotation_min: Vec3::new(-0.5, -0.1, -0.5),
                    rotation_max: Vec3::new(0.5, 0.1, 0.5),
                    rotation_spring: Vec3::splat(0.5),
                    ..JointDesc::default()
                });
                parent_body = this;
            }
        }
        Physics::from_tables(
            bodies
                .into_iter()
                .map(|d| RigidBody::new(d).expect("valid body"))
                .collect(),
            joints
                .into_iter()
                .map(|j| Joint::new(j).expect("valid joint"))
                .collect(),
        )
    }

    fn model_with(&self, physics: bool) -> Model {
        let mut model = Model::new(self.skeleton.clone());
        let mut b = SkeletonDynamicsBuilder::new(&self.skeleton);
        for (side, name) in [(0usize, "l"), (1, "r")] {
            let leg = self.bones.leg[side];
            let params = IkChainParams {
                solver: ChainSolver::TwoBone { pole: Vec3::Z },
                ..IkChainParams::default()
            };
            b.ik(IkChain::with_params(
                format!("leg_{name}"),
                leg.end,
                leg.end,
                vec![IkLink::new(leg.upper), IkLink::new(leg.lower)],
                params,
            )
            .expect("leg chain"));
            let arm = self.bones.arm[side];
            let params = IkChainParams {
                iterations: 16,
                tolerance: 1e-3,
                ..IkChainParams::default()
            };
            b.ik(IkChain::with_params(
                format!("arm_{name}"),
                arm.end,
                arm.end,
                vec![IkLink::new(arm.upper), IkLink::new(arm.lower)],
                params,
            )
            .expect("arm chain"));
            let inh = TransformInheritance::new(arm.end, 0.5, false, true).expect("inheritance");
            b.pose(
                BonePoseConstraint::new(self.bones.forearm_twist[side], Some(inh), Some(Vec3::X))
                    .expect("constraint"),
            );
        }
        if physics {
            b.physics(self.physics_table());
        }
        b.attach(&mut model).expect("humanoid dynamics are valid");
        model
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(Humanoid::new().skeleton.len(), 64);
        let big = Humanoid::with_extra_joints(448);
        assert_eq!(big.skeleton.len(), 512);
        assert_eq!(big.extra_chains.iter().map(Vec::len).sum::<usize>(), 448);
    }

    #[test]
    fn animate_is_deterministic_and_finite() {
        let h = Humanoid::with_extra_joints(100);
        let mut a = vec![Transform::IDENTITY; h.skeleton.len()];
        let mut b = a.clone();
        h.animate(0.37, &mut a);
        h.animate(0.37, &mut b);
        assert_eq!(a, b);
        assert!(a.iter().all(Transform::is_finite));
    }

    #[test]
    fn standing_height_is_human() {
        let h = Humanoid::new();
        let top = h.skeleton.rest_world()[h.bones.head_end.index()]
            .translation
            .y;
        assert!((1.6..2.0).contains(&top), "{top}");
        let foot = h.skeleton.rest_world()[h.bones.toe[0].index()]
            .translation
            .y;
        assert!(foot.abs() < 0.05, "{foot}");
    }
}
