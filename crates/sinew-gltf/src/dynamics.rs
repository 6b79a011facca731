//! Physics candidates for glTF skeletons and the profile that enables them.

use glam::{Quat, Vec3};
use sinew::dynamics::{
    BodyMode, DynamicsError, Physics, RigidBody, RigidBodyDesc, Shape, SkeletonDynamicsBuilder,
    SkeletonDynamicsReader,
};
use sinew::math::euler_xyz_from_quat;
use sinew::BoneId;

use crate::GltfModel;

/// Capsule radius of a generated candidate as a fraction of its bone length (before the
/// profile's radius scale).
pub const RADIUS_FRACTION: f32 = 0.2;

/// Bones shorter than this (in model units) get no candidate: their capsule would be
/// degenerate.
pub const MIN_BONE_LENGTH: f32 = 1e-6;

/// One generated physics candidate: a capsule along a skin bone.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// Candidate index: the index of its body in the candidate table, and what a
    /// [`Profile`] refers to.
    pub index: usize,
    /// The bone's node.
    pub node: usize,
    /// The bone the capsule follows.
    pub bone: BoneId,
    /// The child bone that sets the capsule's length and direction.
    pub child: BoneId,
    /// Bone length: rest distance from the bone's origin to the child's, model units.
    pub length: f32,
}

/// Reads a [`GltfModel`] into physics **candidates** (the spec's `GltfSkeletonDynamicsReader`):
///
/// * candidates in node order: one capsule per skin joint that has a child bone (the child
///   with the lowest node index, skin joints preferred), from the bone's rest origin to the
///   child's, radius `length × 0.2` ([`RADIUS_FRACTION`]), cylinder height
///   `max(length − 2·radius, 0)` so the capsule spans the bone, centred on the bone's midpoint
///   and oriented with its local Y along the bone; kinematic, mass 1, group 0, no collision
///   mask; bodies are named after their bones;
/// * the table has `profile_required = true` (it cannot be enabled without a [`Profile`]),
///   `affine_writeback = true`, unit scale 1, radius scale 1, every skin joint as a bind-pose
///   follower, and no joints;
/// * no IK chain is guessed or created.
///
/// Bones are resolved by name in the builder's skeleton, so the builder may hold the model's
/// skeleton or any skeleton with the same bone names.
#[derive(Clone, Copy, Debug, Default)]
pub struct GltfSkeletonDynamicsReader;

impl GltfSkeletonDynamicsReader {
    /// The candidates of `model`, in node order.
    #[must_use]
    pub fn candidates(model: &GltfModel) -> Vec<Candidate> {
        let s = model.skeleton();
        let rw = s.rest_world();
        let mut is_joint = vec![false; s.len()];
        for skin in &model.skins {
            for &b in &skin.bones {
                is_joint[b.index()] = true;
            }
        }
        let mut out = Vec::new();
        for (node, bone) in model.node_to_bone.iter().enumerate() {
            let Some(bone) = *bone else { continue };
            if !is_joint[bone.index()] {
                continue;
            }
            let child = s
                .children(bone)
                .iter()
                .copied()
                .min_by_key(|c| (!is_joint[c.index()], model.bone_to_node[c.index()]));
            let Some(child) = child else { continue };
            let head = Vec3::from(rw[bone.index()].translation);
            let tail = Vec3::from(rw[child.index()].translation);
            let length = head.distance(tail);
            if length.is_nan() || length < MIN_BONE_LENGTH {
                continue;
            }
            out.push(Candidate {
                index: out.len(),
                node,
                bone,
                child,
                length,
            });
        }
        out
    }

    /// The candidate physics table of `model`, with bones resolved in `skeleton`'s names via
    /// `resolve` (see the type docs for its contents).
    fn table(
        model: &GltfModel,
        resolve: impl Fn(&str) -> Result<BoneId, DynamicsError>,
    ) -> Result<Physics, DynamicsError> {
        let s = model.skeleton();
        let rw = s.rest_world();
        let mut bodies = Vec::new();
        for c in Self::candidates(model) {
            let head = Vec3::from(rw[c.bone.index()].translation);
            let tail = Vec3::from(rw[c.child.index()].translation);
            let dir = (tail - head) / c.length;
            let radius = c.length * RADIUS_FRACTION;
            let rotation = Quat::from_rotation_arc(Vec3::Y, dir);
            let name = s.name(c.bone);
            bodies.push(RigidBody::new(RigidBodyDesc {
                name: name.to_owned(),
                alias: format!("node_{}", c.node),
                bone: Some(resolve(name)?),
                shape: Shape::Capsule,
                size: Vec3::new(radius, (c.length - 2.0 * radius).max(0.0), radius),
                position: (head + tail) * 0.5,
                rotation: euler_xyz_from_quat(rotation),
                mass: 1.0,
                mode: BodyMode::Kinematic,
                ..RigidBodyDesc::default()
            })?);
        }
        let mut followers = Vec::new();
        for skin in &model.skins {
            for &b in &skin.bones {
                followers.push(resolve(s.name(b))?);
            }
        }
        Physics::new(bodies, Vec::new(), Vec3::ONE, true, true, 1.0, followers)
    }

    /// The candidate physics table of `model` against its own skeleton.
    ///
    /// # Errors
    /// A [`DynamicsError`] if a generated body is invalid (non-finite rest pose).
    pub fn candidate_table(model: &GltfModel) -> Result<Physics, DynamicsError> {
        let s = model.skeleton();
        Self::table(model, |n| {
            s.find(n)
                .ok_or_else(|| DynamicsError::UnknownBone { name: n.to_owned() })
        })
    }
}

impl SkeletonDynamicsReader<GltfModel> for GltfSkeletonDynamicsReader {
    fn read(
        &self,
        source: &GltfModel,
        builder: &mut SkeletonDynamicsBuilder,
    ) -> Result<(), DynamicsError> {
        let physics = Self::table(source, |n| builder.bone(n))?;
        builder.physics(physics);
        Ok(())
    }
}

/// One enabled candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProfileBody {
    /// Candidate index (node order, see [`GltfSkeletonDynamicsReader::candidates`]).
    pub candidate: usize,
    /// How the body moves and writes back.
    pub mode: BodyMode,
}

/// Which glTF physics candidates become bodies, how they move, and how thick the generated
/// capsules are. Required to enable a candidate table (`profile_required = true`).
#[derive(Clone, Debug, PartialEq)]
#[must_use = "a profile does nothing until applied"]
pub struct Profile {
    /// Enabled candidates, each at most once.
    pub bodies: Vec<ProfileBody>,
    /// Multiplies the generated capsule radii; finite and positive (default 1).
    pub radius_scale: f32,
}

impl Default for Profile {
    fn default() -> Self {
        Self::new()
    }
}

/// Why a [`Profile`] cannot be applied.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ProfileError {
    /// A candidate index past the table.
    #[error("profile enables candidate {index}, but there are {count} candidates")]
    UnknownCandidate {
        /// The index given.
        index: usize,
        /// Number of candidates.
        count: usize,
    },
    /// A candidate listed twice.
    #[error("profile enables candidate {index} twice")]
    DuplicateCandidate {
        /// The index.
        index: usize,
    },
    /// The radius scale is not finite and positive.
    #[error("profile radius scale {value} is not finite and positive")]
    InvalidRadiusScale {
        /// The value given.
        value: f32,
    },
    /// The table is not a candidate table (`profile_required` is false).
    #[error("the physics table is not a candidate table (profile_required is false)")]
    NotACandidateTable,
    /// The resulting table failed validation.
    #[error(transparent)]
    Dynamics(#[from] DynamicsError),
}

impl Profile {
    /// An empty profile (no body enabled), radius scale 1.
    pub fn new() -> Self {
        Self {
            bodies: Vec::new(),
            radius_scale: 1.0,
        }
    }

    /// Enables candidate `candidate` with `mode`.
    pub fn body(mut self, candidate: usize, mode: BodyMode) -> Self {
        self.bodies.push(ProfileBody { candidate, mode });
        self
    }

    /// Sets the radius scale.
    pub fn radius_scale(mut self, scale: f32) -> Self {
        self.radius_scale = scale;
        self
    }

    /// The enabled table: the listed candidates in profile order with their modes, capsule
    /// radii multiplied by the radius scale (cylinder height shortened so the capsule still
    /// spans the bone when possible), `profile_required = false`, affine writeback kept,
    /// `profile_radius_scale` set, and bind-pose followers reduced to the candidate table's
    /// followers that got no body.
    ///
    /// # Errors
    /// [`ProfileError`] for a table that is not a candidate table, unknown or repeated
    /// candidates, a bad radius scale, or an invalid resulting table.
    pub fn apply(&self, candidates: &Physics) -> Result<Physics, ProfileError> {
        if !candidates.profile_required() {
            return Err(ProfileError::NotACandidateTable);
        }
        if !(self.radius_scale.is_finite() && self.radius_scale > 0.0) {
            return Err(ProfileError::InvalidRadiusScale {
                value: self.radius_scale,
            });
        }
        let all = candidates.bodies();
        let mut used = vec![false; all.len()];
        let mut bodies = Vec::with_capacity(self.bodies.len());
        for p in &self.bodies {
            let Some(c) = all.get(p.candidate) else {
                return Err(ProfileError::UnknownCandidate {
                    index: p.candidate,
                    count: all.len(),
                });
            };
            if std::mem::replace(&mut used[p.candidate], true) {
                return Err(ProfileError::DuplicateCandidate { index: p.candidate });
            }
            let mut d = c.desc().clone();
            if d.shape == Shape::Capsule {
                let full = d.size.y + 2.0 * d.size.x;
                let r = d.size.x * self.radius_scale;
                d.size = Vec3::new(r, (full - 2.0 * r).max(0.0), r);
            } else {
                d.size *= self.radius_scale;
            }
            d.mode = p.mode;
            bodies.push(RigidBody::new(d)?);
        }
        let followers = candidates
            .bind_pose_followers()
            .iter()
            .copied()
            .filter(|f| !bodies.iter().any(|b| b.bone() == Some(*f)))
            .collect();
        Ok(Physics::new(
            bodies,
            Vec::new(),
            candidates.unit_scale(),
            false,
            candidates.affine_writeback(),
            self.radius_scale,
            followers,
        )?)
    }
}
