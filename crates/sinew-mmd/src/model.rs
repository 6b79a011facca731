//! The MMD model: PMX or PMD normalised into one bone table with MMD's evaluation metadata,
//! plus the sinew [`Skeleton`] built from it.
//!
//! Normalisation follows babylon-mmd 1.3.0's loaders (the reference runtime):
//!
//! * bones keep **file order**; a parent index out of range makes a root; the rest local
//!   translation is `position − parent.position`, rest rotation identity;
//! * **PMD**: IK bones get transform order 1 (after everything else); type 5 ("rotation
//!   effect") becomes a non-local rotation append from the bone's tail index with ratio
//!   `ik_parent × 0.01`; type 8/9 twist bones get a fixed axis towards their tail bone; IK
//!   limit angles are multiplied by 4; knees (`左ひざ`/`右ひざ`) get PMX Editor's knee limit
//!   table `x ∈ [−180, −0.5]` — in degrees there, but babylon-mmd 1.3.0 feeds the numbers to
//!   its solver unconverted, i.e. as radians, and its output (our conformance reference) depends
//!   on it, so we do the same (it changes the leg-IK pose by millimetres); a second IK chain on the same bone becomes an extra bone
//!   `name+`; rigid body positions are made absolute (relative to their bone, bone 0 for none);
//! * **PMX**: an append whose source index is invalid is dropped; an IK whose effector or link
//!   indices are invalid drops those links (and the IK if nothing valid is left).
//!
//! Building is split by source: `model/from_pmx.rs`, `model/from_pmd.rs`, and `model/finish.rs`
//! (validation, the evaluation order and the skeleton, shared by both).
//!
//! Every such repair is recorded in [`MmdModel::warnings`]. Then every cross-reference the
//! evaluation trusts is checked ([`crate::validate`]: parent, append and IK cycles, IK links off
//! the effector's ancestry, non-finite values, bodies and joints on missing bones or bodies),
//! each refused with an [`MmdError`] or repaired with a warning.

use std::sync::Arc;

use glam::Vec3;
use sinew::{Parent, Skeleton, SkeletonBuilder, Transform};
use thiserror::Error;

use crate::pmx::{PhysicsMode, PmxJointKind, RigidShape};
use crate::ParseError;

mod evaluation_skeleton;
mod finish;
pub(crate) mod fixed_axis;
mod from_pmd;
mod from_pmx;
mod staged_gaps;

pub use staged_gaps::StagedGap;

/// One order's shared definitions, or why they were refused.
pub(crate) type DefinitionsCell =
    std::sync::OnceLock<Result<Arc<crate::MmdDefinitions>, sinew::dynamics::DynamicsError>>;

/// Which file a model came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmdFormat {
    /// PMX 2.0 / 2.1.
    Pmx,
    /// PMD.
    Pmd,
}

/// Inheriting part of another bone's motion (PMX "append"/"grant", PMD type 5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MmdAppend {
    /// Source bone (file index).
    pub source: usize,
    /// Ratio, may be negative.
    pub ratio: f32,
    /// Append rotation.
    pub rotation: bool,
    /// Append translation.
    pub translation: bool,
    /// Local append (reads the source's world transform instead of its animated local one).
    pub local: bool,
}

/// One IK link (file order of the IK: effector side first).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MmdIkLink {
    /// The link bone (file index).
    pub bone: usize,
    /// Euler limits in radians `(min, max)`, per axis min ≤ max.
    pub limit: Option<(Vec3, Vec3)>,
}

/// An IK solver attached to a bone.
#[derive(Clone, Debug, PartialEq)]
pub struct MmdIk {
    /// The bone that reaches the IK bone's position (file index).
    pub effector: usize,
    /// Iterations (capped at 256).
    pub iterations: u32,
    /// Limit angle per step, radians.
    pub limit_angle: f32,
    /// Links, effector side first (as in the file).
    pub links: Vec<MmdIkLink>,
}

/// One bone with what MMD's evaluation needs.
#[derive(Clone, Debug, PartialEq)]
pub struct MmdBone {
    /// Name (unique in [`MmdModel::skeleton`]; see [`MmdModel::warnings`] for renames).
    pub name: String,
    /// Parent (file index), `None` for a root.
    pub parent: Option<usize>,
    /// Absolute rest position in model space.
    pub position: Vec3,
    /// Rest translation relative to the parent.
    pub rest_offset: Vec3,
    /// Deform layer (transform order).
    pub layer: i32,
    /// Evaluated after physics.
    pub after_physics: bool,
    /// Append (grant), if any.
    pub append: Option<MmdAppend>,
    /// Fixed rotation axis (normalised), if any.
    pub fixed_axis: Option<Vec3>,
    /// IK solver owned by this bone, if any.
    pub ik: Option<MmdIk>,
    /// The tail as a non-zero offset vector (PMX "tail is an offset"), if so.
    pub tail_offset: Option<Vec3>,
}

/// A rigid body as sinew's physics table needs it (absolute position, MMD Euler angles).
#[derive(Clone, Debug, PartialEq)]
pub struct MmdRigidBody {
    /// Name.
    pub name: String,
    /// Bone (file index), `None` when unbound or invalid.
    pub bone: Option<usize>,
    /// Collision group 0..=15.
    pub group: u8,
    /// Bit g set: collides with group g (the file's mask; bit g clear: no collision with g).
    pub collision_mask: u16,
    /// Shape.
    pub shape: RigidShape,
    /// Size (see [`RigidShape`]).
    pub size: Vec3,
    /// Absolute position, model space.
    pub position: Vec3,
    /// MMD Euler angles (radians), applied as `Ry · Rx · Rz`.
    pub rotation: Vec3,
    /// Mass.
    pub mass: f32,
    /// Linear damping.
    pub linear_damping: f32,
    /// Angular damping.
    pub angular_damping: f32,
    /// Restitution.
    pub restitution: f32,
    /// Friction.
    pub friction: f32,
    /// Mode.
    pub mode: PhysicsMode,
}

/// A six-axis spring joint.
#[derive(Clone, Debug, PartialEq)]
pub struct MmdJoint {
    /// Name.
    pub name: String,
    /// Body A index (may be invalid in a file; the reader checks).
    pub body_a: i64,
    /// Body B index.
    pub body_b: i64,
    /// Position.
    pub position: Vec3,
    /// MMD Euler angles.
    pub rotation: Vec3,
    /// Translation limits.
    pub linear_lower: Vec3,
    /// Translation limits.
    pub linear_upper: Vec3,
    /// Rotation limits.
    pub angular_lower: Vec3,
    /// Rotation limits.
    pub angular_upper: Vec3,
    /// Translation springs.
    pub spring_linear: Vec3,
    /// Rotation springs.
    pub spring_angular: Vec3,
}

/// Errors of building a model from a parsed file.
#[derive(Debug, Error)]
pub enum MmdError {
    /// The file could not be parsed.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The bytes are neither PMX nor PMD.
    #[error("not a PMX or PMD file (starts with {0:?})")]
    UnknownFormat(Vec<u8>),
    /// The model has no bones.
    #[error("model has no bones")]
    NoBones,
    /// The mesh (vertices, triangles, skin, morphs) could not be built.
    #[error("mesh: {0}")]
    Mesh(String),
    /// A value the evaluation cannot work with (see [`crate::validate`] for the limits).
    #[error("{what} is {value}; must be {limit}")]
    OutOfRange {
        /// What holds the value (e.g. `bone 3 "頭" position`).
        what: String,
        /// The value as found.
        value: String,
        /// What it must be.
        limit: String,
    },
    /// The skeleton could not be built.
    #[error("skeleton: {0}")]
    Skeleton(#[from] sinew::SkeletonError),
}

/// A loaded MMD model: immutable once built (its fields are read through accessors), so the
/// cross-references the loader validated stay valid for every instance evaluating it.
#[derive(Clone, Debug)]
pub struct MmdModel {
    pub(crate) name: String,
    pub(crate) format: MmdFormat,
    pub(crate) bones: Vec<MmdBone>,
    pub(crate) rigid_bodies: Vec<MmdRigidBody>,
    pub(crate) joints: Vec<MmdJoint>,
    pub(crate) morph_names: Vec<String>,
    pub(crate) morphs: Vec<crate::mesh::MmdMorph>,
    pub(crate) mesh: Arc<sinew_skin::Mesh>,
    pub(crate) warnings: Vec<String>,
    pub(crate) skeleton: Arc<Skeleton>,
    pub(crate) eval_order: Vec<usize>,
    /// Per bone: its place in `eval_order`.
    pub(crate) eval_rank: Vec<usize>,
    /// Per bone: it owns an IK whose links all carry simulated bodies (computed on first use).
    pub(crate) ik_simulated: std::sync::OnceLock<Vec<bool>>,
    /// The skeleton in MMD's evaluation order (derived on first use; see
    /// [`Self::evaluation_skeleton`]).
    pub(crate) evaluation_skeleton: std::sync::OnceLock<Arc<Skeleton>>,
    /// The definitions per order (spec, staged, bone by bone), read on first use and shared.
    pub(crate) definitions: [DefinitionsCell; 3],
    /// Whether [`Self::staged_gaps`] (physics included) is empty (derived on first use).
    pub(crate) gap_free: std::sync::OnceLock<bool>,
}

impl MmdModel {
    /// Whether bone `bone` owns an IK whose links all carry simulated (not follow-bone) rigid
    /// bodies: MMD does not solve such a chain while physics runs.
    #[must_use]
    pub fn ik_is_simulated(&self, bone: usize) -> bool {
        let flags = self.ik_simulated.get_or_init(|| {
            let n = self.bones.len();
            let mut simulated = vec![false; n];
            for b in &self.rigid_bodies {
                if let (Some(i), false) = (b.bone, b.mode == crate::pmx::PhysicsMode::FollowBone) {
                    if i < n {
                        simulated[i] = true;
                    }
                }
            }
            self.bones
                .iter()
                .map(|b| {
                    b.ik.as_ref().is_some_and(|ik| {
                        !ik.links.is_empty() && ik.links.iter().all(|l| simulated[l.bone])
                    })
                })
                .collect()
        });
        flags.get(bone).copied().unwrap_or(false)
    }

    /// Model name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Source format.
    #[must_use]
    pub fn format(&self) -> MmdFormat {
        self.format
    }

    /// Bones in file order.
    #[must_use]
    pub fn bones(&self) -> &[MmdBone] {
        &self.bones
    }

    /// Rigid bodies in file order.
    #[must_use]
    pub fn rigid_bodies(&self) -> &[MmdRigidBody] {
        &self.rigid_bodies
    }

    /// Joints in file order (six-axis spring joints; PMX joints of other kinds are kept too).
    #[must_use]
    pub fn joints(&self) -> &[MmdJoint] {
        &self.joints
    }

    /// Morph names (PMD: without the "base" morph).
    #[must_use]
    pub fn morph_names(&self) -> &[String] {
        &self.morph_names
    }

    /// The morphs as the runtime drives them (same indices as [`Self::morph_names`]): bone and
    /// group morphs carry their data here, vertex / UV / material morphs live in [`Self::mesh`].
    #[must_use]
    pub fn morphs(&self) -> &[crate::mesh::MmdMorph] {
        &self.morphs
    }

    /// The mesh: rest vertices in MMD model space, triangles, materials, textures (paths
    /// relative to the model file), skin over the bones (joint `i` = bone `i`, bind pose =
    /// the bones' rest positions) and morphs.
    #[must_use]
    pub fn mesh(&self) -> &Arc<sinew_skin::Mesh> {
        &self.mesh
    }

    /// Expands group morphs: the weight each morph ends up with when `weights` (one per morph,
    /// missing ones 0) are set — a group adds its weight times each member's ratio.
    ///
    /// # Panics
    /// If `out` is not one entry per morph.
    pub fn expand_morph_weights(&self, weights: &[f32], out: &mut [f32]) {
        assert_eq!(out.len(), self.morphs.len(), "one output per morph");
        crate::mesh::expand(&self.morphs, weights, out);
    }

    /// Repairs made while loading, one line each.
    #[must_use]
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The sinew skeleton: source index = file index.
    #[must_use]
    pub fn skeleton(&self) -> &Arc<Skeleton> {
        &self.skeleton
    }

    /// Bones in MMD evaluation order: stable-sorted by (after physics, layer), file order within.
    #[must_use]
    pub fn eval_order(&self) -> &[usize] {
        &self.eval_order
    }

    /// The file index of a bone by name.
    #[must_use]
    pub fn bone_index(&self, name: &str) -> Option<usize> {
        self.bones.iter().position(|b| b.name == name)
    }
}
