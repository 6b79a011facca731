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
//! Every such repair is recorded in [`MmdModel::warnings`]. Then every cross-reference the
//! evaluation trusts is checked ([`crate::validate`]: parent, append and IK cycles, IK links off
//! the effector's ancestry, non-finite values, bodies and joints on missing bones or bodies),
//! each refused with an [`MmdError`] or repaired with a warning.

use std::sync::Arc;

use glam::{Affine3A, Vec3};
use sinew::{Parent, Skeleton, SkeletonBuilder, Transform};
use thiserror::Error;

use crate::pmd::Pmd;
use crate::pmx::{PhysicsMode, PmxJointKind, RigidShape};
use crate::validate;
use crate::{ParseError, Pmx};

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

/// A rigid body as the generic physics table needs it (absolute position, MMD Euler angles).
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
    /// Per bone: it owns an IK whose links all carry simulated bodies (computed on first use).
    pub(crate) ik_simulated: std::sync::OnceLock<Vec<bool>>,
    /// The evaluation plan (derived on first use, then shared by every instance).
    pub(crate) plan: std::sync::OnceLock<Arc<crate::runtime::MmdPlan>>,
}

impl MmdModel {
    /// The evaluation plan every [`MmdInstance`](crate::MmdInstance) of this model shares
    /// (evaluation orders, children, IK paths and link data, lockstep partners), derived on
    /// first use.
    #[must_use]
    pub fn plan(&self) -> &Arc<crate::runtime::MmdPlan> {
        self.plan
            .get_or_init(|| Arc::new(crate::runtime::MmdPlan::new(self)))
    }

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

    /// Writes skinning matrices (bone world × inverse bind, the bind pose being the bones'
    /// rest positions) for `world` (file order) into `out`.
    ///
    /// # Panics
    /// If `world` or `out` is not one entry per bone.
    pub fn skin_matrices(&self, world: &[Affine3A], out: &mut [Affine3A]) {
        assert_eq!(world.len(), self.bones.len());
        assert_eq!(out.len(), self.bones.len());
        for ((o, w), b) in out.iter_mut().zip(world).zip(&self.bones) {
            *o = *w * Affine3A::from_translation(-b.position);
        }
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
}

fn index(i: i64, len: usize) -> Option<usize> {
    (0..len as i64).contains(&i).then_some(i as usize)
}

fn ordered(a: Vec3, b: Vec3) -> (Vec3, Vec3) {
    (a.min(b), a.max(b))
}

impl MmdModel {
    /// Loads a PMX or PMD file from bytes (by magic).
    ///
    /// # Errors
    /// [`MmdError`] for unparsable bytes or a model that cannot be built.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, MmdError> {
        if bytes.starts_with(b"PMX ") {
            Self::from_pmx(&Pmx::parse(bytes)?)
        } else if bytes.starts_with(b"Pmd") {
            Self::from_pmd(&Pmd::parse(bytes)?)
        } else {
            Err(MmdError::UnknownFormat(
                bytes.iter().take(4).copied().collect(),
            ))
        }
    }

    /// Builds a model from a parsed PMX.
    ///
    /// # Errors
    /// [`MmdError::NoBones`] or a skeleton error.
    pub fn from_pmx(pmx: &Pmx) -> Result<Self, MmdError> {
        let n = pmx.bones.len();
        let mut warnings = Vec::new();
        let mut bones = Vec::with_capacity(n);
        for (i, b) in pmx.bones.iter().enumerate() {
            let parent = index(b.parent as i64, n).filter(|&p| p != i);
            if b.parent >= 0 && parent.is_none() {
                warnings.push(format!(
                    "bone {i} \"{}\": parent {} is invalid; made a root",
                    b.name, b.parent
                ));
            }
            let append = b.append.and_then(|a| {
                let source = index(a.parent as i64, n).filter(|&s| s != i);
                if source.is_none() {
                    warnings.push(format!(
                        "bone {i} \"{}\": append source {} is invalid; append ignored",
                        b.name, a.parent
                    ));
                }
                source.map(|source| MmdAppend {
                    source,
                    ratio: a.ratio,
                    rotation: b.flags.append_rotate(),
                    translation: b.flags.append_translate(),
                    local: b.flags.local_append(),
                })
            });
            // A zero axis locks the bone (MMD's reading); a non-finite one is left for the
            // validation to report and drop.
            let fixed_axis = b.fixed_axis.filter(|_| b.flags.fixed_axis()).map(|a| {
                if !a.is_finite() {
                    a
                } else if a.length_squared() > 0.0 {
                    a.normalize()
                } else {
                    Vec3::ZERO
                }
            });
            let ik = b.ik.as_ref().filter(|_| b.flags.ik()).and_then(|ik| {
                let Some(effector) = index(ik.effector as i64, n) else {
                    warnings.push(format!(
                        "bone {i} \"{}\": IK effector {} is invalid; IK ignored",
                        b.name, ik.effector
                    ));
                    return None;
                };
                let links: Vec<MmdIkLink> = ik
                    .links
                    .iter()
                    .filter_map(|l| {
                        let bone = index(l.bone as i64, n);
                        if bone.is_none() {
                            warnings.push(format!(
                                "bone {i} \"{}\": IK link {} is invalid; link dropped",
                                b.name, l.bone
                            ));
                        }
                        bone.map(|bone| MmdIkLink {
                            bone,
                            limit: l.limit.map(|(lo, hi)| ordered(lo, hi)),
                        })
                    })
                    .collect();
                if links.is_empty() {
                    warnings.push(format!(
                        "bone {i} \"{}\": IK has no valid link; IK ignored",
                        b.name
                    ));
                    return None;
                }
                Some(MmdIk {
                    effector,
                    iterations: ik.loop_count.clamp(0, 256) as u32,
                    limit_angle: ik.limit_angle,
                    links,
                })
            });
            bones.push(MmdBone {
                name: b.name.clone(),
                parent,
                position: b.position,
                rest_offset: Vec3::ZERO,
                layer: b.layer,
                after_physics: b.flags.after_physics(),
                append,
                fixed_axis,
                ik,
                tail_offset: match b.tail {
                    crate::pmx::PmxBoneTail::Offset(v) if v != Vec3::ZERO => Some(v),
                    _ => None,
                },
            });
        }
        let rigid_bodies = pmx
            .rigid_bodies
            .iter()
            .enumerate()
            .map(|(k, r)| MmdRigidBody {
                name: r.name.clone(),
                bone: validate::body_bone(k, &r.name, i64::from(r.bone), n, &mut warnings),
                group: r.group,
                collision_mask: r.collision_mask,
                shape: r.shape,
                size: r.size,
                position: r.position,
                rotation: r.rotation,
                mass: r.mass,
                linear_damping: r.linear_damping,
                angular_damping: r.angular_damping,
                restitution: r.restitution,
                friction: r.friction,
                mode: r.mode,
            })
            .collect();
        let joints = pmx
            .joints
            .iter()
            .filter(|j| {
                let spring = matches!(j.kind, PmxJointKind::Spring6Dof);
                if !spring {
                    warnings.push(format!(
                        "joint \"{}\": kind {:?} is read as a six-axis spring joint",
                        j.name, j.kind
                    ));
                }
                true
            })
            .map(|j| MmdJoint {
                name: j.name.clone(),
                body_a: j.body_a as i64,
                body_b: j.body_b as i64,
                position: j.position,
                rotation: j.rotation,
                linear_lower: j.linear_lower,
                linear_upper: j.linear_upper,
                angular_lower: j.angular_lower,
                angular_upper: j.angular_upper,
                spring_linear: j.spring_linear,
                spring_angular: j.spring_angular,
            })
            .collect();
        Self::finish(
            pmx.name.clone(),
            MmdFormat::Pmx,
            bones,
            rigid_bodies,
            joints,
            pmx.morphs.iter().map(|m| m.name.clone()).collect(),
            crate::mesh::from_pmx(pmx, &mut warnings)?,
            warnings,
        )
    }

    /// Builds a model from a parsed PMD (see the module docs for the conversions).
    ///
    /// # Errors
    /// [`MmdError::NoBones`] or a skeleton error.
    pub fn from_pmd(pmd: &Pmd) -> Result<Self, MmdError> {
        let n = pmd.bones.len();
        let mut warnings = Vec::new();
        let is_ik_bone: Vec<bool> = (0..n)
            .map(|i| pmd.iks.iter().any(|ik| ik.ik_bone as usize == i))
            .collect();
        let knee_limit = (Vec3::new(-180.0, 0.0, 0.0), Vec3::new(-0.5, 0.0, 0.0));
        let mut bones: Vec<MmdBone> = Vec::with_capacity(n);
        for (i, b) in pmd.bones.iter().enumerate() {
            let parent = index(b.parent as i16 as i64, n).filter(|&p| p != i);
            let mut bone = MmdBone {
                name: b.name.clone(),
                parent,
                position: b.position,
                rest_offset: Vec3::ZERO,
                layer: 0,
                after_physics: false,
                append: None,
                fixed_axis: None,
                ik: None,
                tail_offset: None,
            };
            match b.kind {
                5 => {
                    // Rotation effect: append rotation from the tail bone, ratio ik_parent / 100.
                    match index(b.tail as i16 as i64, n) {
                        Some(source) if source != i => {
                            bone.append = Some(MmdAppend {
                                source,
                                ratio: f32::from(b.ik_parent) * 0.01,
                                rotation: true,
                                translation: false,
                                local: false,
                            });
                        }
                        _ => warnings.push(format!(
                            "bone {i} \"{}\": rotation-effect source {} is invalid; ignored",
                            b.name, b.tail
                        )),
                    }
                }
                8 => {
                    // Twist: rotation only about the axis towards the tail bone (bone 0 when invalid).
                    let tail = index(b.tail as i16 as i64, n).unwrap_or(0);
                    let axis = pmd.bones[tail].position - b.position;
                    if axis.length_squared() > 0.0 {
                        bone.fixed_axis = Some(axis.normalize());
                    }
                }
                _ => {}
            }
            if is_ik_bone[i] || b.kind == 2 {
                bone.layer = 1;
            }
            bones.push(bone);
        }
        // IK chains; a second chain on the same bone goes to an extra bone "name+".
        for ik in &pmd.iks {
            let Some(owner) = index(i64::from(ik.ik_bone), n) else {
                warnings.push(format!("IK on bone {} is invalid; ignored", ik.ik_bone));
                continue;
            };
            let Some(effector) = index(i64::from(ik.effector), n) else {
                warnings.push(format!(
                    "IK on bone {owner}: effector {} is invalid; ignored",
                    ik.effector
                ));
                continue;
            };
            let links: Vec<MmdIkLink> = ik
                .links
                .iter()
                .filter_map(|&l| index(i64::from(l), n))
                .map(|bone| MmdIkLink {
                    bone,
                    limit: pmd.bones[bone].name.contains("ひざ").then_some(knee_limit),
                })
                .collect();
            if links.is_empty() {
                warnings.push(format!("IK on bone {owner}: no valid link; ignored"));
                continue;
            }
            let solver = MmdIk {
                effector,
                iterations: u32::from(ik.iterations).min(256),
                limit_angle: ik.limit_angle * 4.0,
                links,
            };
            if bones[owner].ik.is_none() {
                bones[owner].ik = Some(solver);
            } else {
                let extra = MmdBone {
                    name: format!("{}+", bones[owner].name),
                    parent: Some(owner),
                    position: bones[owner].position,
                    rest_offset: Vec3::ZERO,
                    layer: bones[owner].layer,
                    after_physics: false,
                    append: None,
                    fixed_axis: None,
                    ik: Some(solver),
                    tail_offset: None,
                };
                warnings.push(format!(
                    "bone {owner}: second IK chain moved to extra bone \"{}\"",
                    extra.name
                ));
                bones.push(extra);
            }
        }
        let rigid_bodies = pmd
            .rigid_bodies
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let bone =
                    validate::body_bone(k, &r.name, i64::from(r.bone as i16), n, &mut warnings);
                let anchor = pmd
                    .bones
                    .get(bone.unwrap_or(0))
                    .map_or(Vec3::ZERO, |b| b.position);
                MmdRigidBody {
                    name: r.name.clone(),
                    bone,
                    group: r.group,
                    collision_mask: r.collision_mask,
                    shape: r.shape,
                    size: r.size,
                    position: r.position + anchor,
                    rotation: r.rotation,
                    mass: r.mass,
                    linear_damping: r.linear_damping,
                    angular_damping: r.angular_damping,
                    restitution: r.restitution,
                    friction: r.friction,
                    mode: r.mode,
                }
            })
            .collect();
        let joints = pmd
            .joints
            .iter()
            .map(|j| MmdJoint {
                name: j.name.clone(),
                body_a: i64::from(j.body_a as i32),
                body_b: i64::from(j.body_b as i32),
                position: j.position,
                rotation: j.rotation,
                linear_lower: j.linear_lower,
                linear_upper: j.linear_upper,
                angular_lower: j.angular_lower,
                angular_upper: j.angular_upper,
                spring_linear: j.spring_linear,
                spring_angular: j.spring_angular,
            })
            .collect();
        let morph_names = pmd.morphs.iter().skip(1).map(|m| m.name.clone()).collect();
        Self::finish(
            pmd.name.clone(),
            MmdFormat::Pmd,
            bones,
            rigid_bodies,
            joints,
            morph_names,
            crate::mesh::from_pmd(pmd, &mut warnings)?,
            warnings,
        )
    }

    // One call site per format; the parts are what each reader produced.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        name: String,
        format: MmdFormat,
        mut bones: Vec<MmdBone>,
        rigid_bodies: Vec<MmdRigidBody>,
        joints: Vec<MmdJoint>,
        morph_names: Vec<String>,
        (mesh, morphs): (sinew_skin::Mesh, Vec<crate::mesh::MmdMorph>),
        mut warnings: Vec<String>,
    ) -> Result<Self, MmdError> {
        if bones.is_empty() {
            return Err(MmdError::NoBones);
        }
        validate::break_parent_cycles(&mut bones, &mut warnings);
        validate::check_positions(&bones)?;
        validate::repair_appends(&mut bones, &mut warnings);
        validate::repair_ik(&mut bones, &mut warnings);
        validate::check_physics(&bones, &rigid_bodies, &joints, &mut warnings);
        for i in 0..bones.len() {
            bones[i].rest_offset = match bones[i].parent {
                Some(p) => bones[i].position - bones[p].position,
                None => bones[i].position,
            };
        }
        // Unique names for the skeleton.
        let mut seen = std::collections::HashSet::new();
        let given: std::collections::HashSet<String> =
            bones.iter().map(|b| b.name.clone()).collect();
        let mut builder = SkeletonBuilder::new();
        for (i, b) in bones.iter_mut().enumerate() {
            if !seen.insert(b.name.clone()) || b.name.is_empty() {
                // `name#i`, and `#` again while a bone (earlier or later) already has it.
                let mut renamed = format!("{}#{i}", b.name);
                while seen.contains(&renamed) || given.contains(&renamed) {
                    renamed.push('#');
                }
                warnings.push(format!(
                    "bone {i}: duplicate or empty name \"{}\" renamed \"{renamed}\"",
                    b.name
                ));
                b.name = renamed;
                seen.insert(b.name.clone());
            }
        }
        for b in &bones {
            let parent = b.parent.map_or(Parent::Root, Parent::Index);
            builder.push(
                b.name.clone(),
                parent,
                Transform::from_translation(b.rest_offset),
            );
        }
        let skeleton = builder.build()?;
        let mut eval_order: Vec<usize> = (0..bones.len()).collect();
        eval_order.sort_by_key(|&i| (bones[i].after_physics, bones[i].layer));
        Ok(Self {
            name,
            format,
            bones,
            rigid_bodies,
            joints,
            morph_names,
            morphs,
            mesh: Arc::new(mesh),
            warnings,
            skeleton,
            eval_order,
            ik_simulated: std::sync::OnceLock::new(),
            plan: std::sync::OnceLock::new(),
        })
    }

    /// The file index of a bone by name.
    #[must_use]
    pub fn bone_index(&self, name: &str) -> Option<usize> {
        self.bones.iter().position(|b| b.name == name)
    }
}
