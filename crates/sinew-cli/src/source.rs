//! Loading what the commands animate — MMD models (PMX/PMD) with an optional VMD motion and
//! rigid-body physics, and glTF models with their clips — behind one [`Animator`] that turns a
//! frame index into world matrices and body circles.
//!
//! MMD models are evaluated by `MmdInstance`: through the generic `SkeletonInstance` when the
//! model has no rule the generic definitions do not express (`MmdModel::generic_gaps`), else
//! bone by bone. MMD
//! physics (`source/physics.rs`) follows `crates/sinew-physics/tests/mmd_soak.rs`: the pose
//! goes into a generic `SkeletonInstance` whose `Model` holds only the physics table, the
//! `Ragdoll` steps (MMD units: gravity −98, teleport distance 20) and the simulated pose comes
//! back (before the after-physics bones).

mod physics;

pub use physics::{BodyOutline, MmdPhysics};

use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::{Affine3A, Vec3};
use sinew::skeleton::NO_PARENT;
use sinew::Transform;
use sinew_gltf::{GltfMesh, GltfModel, JointSampler, LoadOptions};
use sinew_mmd::{EvalOptions, MmdInstance, MmdModel, MmdMotion, MotionPlayer, Vmd};

use crate::commands::inspect::{bad_input, read_file};
use crate::error::CliError;

/// MMD motions are keyed at 30 frames per second.
pub const MMD_FPS: f32 = 30.0;

/// Which reader a model file needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelKind {
    /// PMX or PMD.
    Mmd,
    /// `.gltf` or `.glb`.
    Gltf,
}

/// Decides the reader by extension, then by magic bytes; an unknown file is an input error.
pub fn kind_of(path: &Path) -> Result<ModelKind, CliError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("pmx" | "pmd") => return Ok(ModelKind::Mmd),
        Some("glb" | "gltf") => return Ok(ModelKind::Gltf),
        _ => {}
    }
    let bytes = read_file(path)?;
    if bytes.starts_with(b"PMX ") || bytes.starts_with(b"Pmd") {
        Ok(ModelKind::Mmd)
    } else if bytes.starts_with(b"glTF") || bytes.trim_ascii_start().starts_with(b"{") {
        Ok(ModelKind::Gltf)
    } else {
        Err(bad_input(
            path,
            "not a PMX, PMD, glTF or GLB model (unknown extension and magic bytes)",
        ))
    }
}

/// Loads a PMX/PMD model.
pub fn load_mmd(path: &Path) -> Result<Arc<MmdModel>, CliError> {
    let bytes = read_file(path)?;
    Ok(Arc::new(
        MmdModel::from_bytes(&bytes).map_err(|e| bad_input(path, e))?,
    ))
}

/// Loads a glTF/GLB model.
pub fn load_gltf(path: &Path) -> Result<GltfModel, CliError> {
    load_gltf_with(path, LoadOptions::default())
}

/// Loads a glTF/GLB model with options.
pub fn load_gltf_with(path: &Path, options: LoadOptions) -> Result<GltfModel, CliError> {
    if let Err(e) = std::fs::metadata(path) {
        return Err(bad_input(path, format!("cannot read: {e}")));
    }
    GltfModel::load_with(path, options).map_err(|e| match e {
        sinew_gltf::GltfError::Io { source, .. } => {
            bad_input(path, format!("cannot read: {source}"))
        }
        e => bad_input(path, e),
    })
}

/// Loads a VMD motion for `model` and warns about bones the model lacks.
pub fn load_motion(path: &Path, model: &Arc<MmdModel>) -> Result<MotionPlayer, CliError> {
    let vmd = Vmd::parse(&read_file(path)?).map_err(|e| bad_input(path, e))?;
    let motion = MmdMotion::from_vmd(&vmd, Some(model)).map_err(|e| bad_input(path, e))?;
    let player = MotionPlayer::new(Arc::new(motion), model);
    if !player.unmatched_bones().is_empty() {
        eprintln!(
            "sinew: warning: {}: {} motion bones are not in the model",
            path.display(),
            player.unmatched_bones().len()
        );
    }
    Ok(player)
}

/// One evaluated frame: world matrices (in the order of [`Animator::parents`]) and bodies.
#[derive(Clone, Debug, Default)]
pub struct Posed {
    /// World matrices.
    pub world: Vec<Affine3A>,
    /// Rigid bodies.
    pub bodies: Vec<BodyOutline>,
    /// Morph weights: MMD models, one per morph after group expansion; glTF models, every
    /// skinned mesh's targets one mesh after another (the order of [`Animator::gltf_meshes`]).
    pub morphs: Vec<f32>,
}

enum Inner {
    Mmd {
        /// The animated input (motion, morphs, IK toggles) and the evaluation: through the
        /// generic `SkeletonInstance` when the model has no `GenericGap`, else bone by bone.
        inst: Box<MmdInstance>,
        player: Option<Box<MotionPlayer>>,
        physics: Option<Box<MmdPhysics>>,
        locals: Vec<Transform>,
    },
    Gltf {
        sampler: Box<JointSampler>,
        physics: Option<Box<MmdPhysics>>,
        /// The skinned meshes (their morph weights are sampled every frame).
        meshes: Arc<Vec<GltfMesh>>,
    },
}

/// A model plus what moves it, evaluated frame by frame in increasing order.
pub struct Animator {
    inner: Inner,
    folder: PathBuf,
    parents: Vec<u16>,
    fps: f32,
    next: u32,
    /// Length of the motion or clip in seconds (0 for a static model).
    pub duration: f32,
    /// Bones.
    pub bone_count: usize,
    /// A one-line description for reports.
    pub description: String,
}

/// What to animate.
#[derive(Clone, Debug, Default)]
pub struct AnimSpec {
    /// The model file.
    pub model: PathBuf,
    /// A VMD motion (MMD models).
    pub motion: Option<PathBuf>,
    /// The clip index (glTF models).
    pub clip: Option<usize>,
    /// Simulate rigid bodies.
    pub physics: bool,
    /// Frames per second of the evaluation.
    pub fps: f32,
}

fn folder_of(model: &Path) -> PathBuf {
    model
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

fn input(flag: &str, message: impl std::fmt::Display) -> CliError {
    bad_input(Path::new(flag), message)
}

impl Animator {
    /// Loads the model (and motion) and prepares the evaluation.
    pub fn new(spec: &AnimSpec) -> Result<Self, CliError> {
        if !(spec.fps.is_finite() && spec.fps > 0.0 && spec.fps <= 240.0) {
            return Err(input(
                "--fps",
                format!("must be within 1..=240, got {}", spec.fps),
            ));
        }
        match kind_of(&spec.model)? {
            ModelKind::Mmd => Self::mmd(spec),
            ModelKind::Gltf => Self::gltf(spec),
        }
    }

    fn mmd(spec: &AnimSpec) -> Result<Self, CliError> {
        if spec.clip.is_some() {
            return Err(input(
                "--clip",
                "is for glTF models; MMD models take --motion",
            ));
        }
        let model = load_mmd(&spec.model)?;
        let player = spec
            .motion
            .as_ref()
            .map(|m| load_motion(m, &model).map(Box::new))
            .transpose()?;
        let physics = if spec.physics {
            Some(Box::new(MmdPhysics::new(&model, &spec.model)?))
        } else {
            None
        };
        let duration = player
            .as_ref()
            .map_or(0.0, |p| p.motion().last_frame as f32 / MMD_FPS);
        let parents = model
            .bones()
            .iter()
            .map(|b| b.parent.map_or(NO_PARENT, |p| p as u16))
            .collect();
        let description = format!(
            "MMD model \"{}\", {} bones, {} rigid bodies{}",
            model.name(),
            model.bones().len(),
            model.rigid_bodies().len(),
            player.as_ref().map_or(String::new(), |p| format!(
                ", motion of {} frames",
                p.motion().last_frame + 1
            ))
        );
        Ok(Self {
            folder: folder_of(&spec.model),
            bone_count: model.bones().len(),
            inner: Inner::Mmd {
                locals: vec![Transform::IDENTITY; model.skeleton().len()],
                inst: Box::new({
                    let mut inst = MmdInstance::new(Arc::clone(&model));
                    inst.set_physics_active(physics.is_some());
                    inst
                }),
                player,
                physics,
            },
            parents,
            fps: spec.fps,
            next: 0,
            duration,
            description,
        })
    }

    fn gltf(spec: &AnimSpec) -> Result<Self, CliError> {
        if spec.motion.is_some() {
            return Err(input(
                "--motion",
                "is for MMD models; glTF models take --clip",
            ));
        }
        let model = load_gltf(&spec.model)?;
        let clip = spec.clip.unwrap_or(0);
        let rest_only = model.clips().is_empty() && spec.clip.is_none();
        let sampler = if rest_only {
            // No animation: the rest pose, as one frame (an empty clip of duration 0).
            let rest = sinew::anim::Clip::builder("rest pose")
                .build()
                .map_err(|e| CliError::Internal(e.to_string()))?;
            JointSampler::for_clip(&model, rest)
        } else {
            JointSampler::new(&model, clip).map_err(|e| input("--clip", e))?
        };
        let physics = if spec.physics {
            let table = model.model().dynamics().physics();
            if table.bodies().is_empty() || table.profile_required() {
                return Err(bad_input(
                    &spec.model,
                    "--physics: glTF files carry no physics table; the mounted one holds candidates only (enable some with a sinew_gltf::Profile in code)",
                ));
            }
            Some(Box::new(MmdPhysics::from_model(
                model.model(),
                &spec.model,
                Vec3::new(0.0, -9.8, 0.0),
                2.0,
            )?))
        } else {
            None
        };
        let duration = sampler.clip().duration();
        let parents = model.skeleton().parent_indices().to_vec();
        let meshes = Arc::new(
            model
                .meshes()
                .map_err(|e| bad_input(&spec.model, format!("meshes: {e}")))?,
        );
        let description = if rest_only {
            format!(
                "glTF model, {} bones, rest pose (no animation)",
                model.skeleton().len()
            )
        } else {
            format!(
                "glTF model, {} bones, clip {clip} ({:.2} s)",
                model.skeleton().len(),
                duration
            )
        };
        Ok(Self {
            folder: folder_of(&spec.model),
            bone_count: model.skeleton().len(),
            inner: Inner::Gltf {
                sampler: Box::new(sampler),
                physics,
                meshes,
            },
            parents,
            fps: spec.fps,
            next: 0,
            duration,
            description,
        })
    }
}

impl Animator {
    /// Parent of every bone (in the order of [`Posed::world`]), [`NO_PARENT`] for roots.
    pub fn parents(&self) -> &[u16] {
        &self.parents
    }

    /// The local transforms of the last evaluated frame (skeleton order) when the model is a
    /// glTF sampled without physics: exact even where a world matrix is singular (a joint
    /// scaled to zero), where locals recovered from world matrices are not.
    pub fn gltf_locals(&self) -> Option<&[Transform]> {
        match &self.inner {
            Inner::Gltf {
                sampler,
                physics: None,
                ..
            } => Some(sampler.locals()),
            _ => None,
        }
    }

    /// The folder of the model file (textures are found relative to it).
    pub fn model_folder(&self) -> &Path {
        &self.folder
    }

    /// The MMD model, when the animated model is one.
    pub fn mmd_model(&self) -> Option<&Arc<MmdModel>> {
        match &self.inner {
            Inner::Mmd { inst, .. } => Some(inst.model()),
            Inner::Gltf { .. } => None,
        }
    }

    /// The glTF model's skinned meshes (empty for MMD models, whose mesh is the model's).
    pub fn gltf_meshes(&self) -> Option<&Arc<Vec<GltfMesh>>> {
        match &self.inner {
            Inner::Gltf { meshes, .. } => Some(meshes),
            Inner::Mmd { .. } => None,
        }
    }

    /// Frames per second.
    pub fn fps(&self) -> f32 {
        self.fps
    }

    /// Whether frames must be evaluated in order from 0 (physics is on).
    pub fn sequential(&self) -> bool {
        matches!(
            &self.inner,
            Inner::Mmd {
                physics: Some(_),
                ..
            } | Inner::Gltf {
                physics: Some(_),
                ..
            }
        )
    }

    /// Evaluates frame `index` (time `index / fps`). With physics every frame from the last
    /// evaluated one up to `index` is simulated, so frames must come in increasing order.
    pub fn frame(&mut self, index: u32) -> Result<Posed, CliError> {
        if self.sequential() {
            if index < self.next {
                return Err(CliError::Internal(format!(
                    "physics frames out of order ({index} after {})",
                    self.next
                )));
            }
            while self.next < index {
                self.step(self.next)?;
                self.next += 1;
            }
            self.next = index + 1;
        }
        self.step(index)
    }

    fn step(&mut self, index: u32) -> Result<Posed, CliError> {
        let dt = 1.0 / self.fps;
        let time = index as f32 * dt;
        match &mut self.inner {
            Inner::Mmd {
                inst,
                player,
                physics,
                locals,
            } => {
                if let Some(p) = player.as_mut() {
                    p.apply(index as f32 * MMD_FPS / self.fps, inst);
                }
                let mut bodies = Vec::new();
                inst.evaluate_before_physics(EvalOptions::default());
                if let Some(ph) = physics.as_mut() {
                    inst.write_locals(locals);
                    ph.input_mut().copy_from_slice(locals);
                    inst.set_world_from_skeleton_order(ph.step(dt)?);
                    bodies = ph.bodies();
                }
                inst.evaluate_after_physics();
                Ok(Posed {
                    world: inst.world().to_vec(),
                    bodies,
                    morphs: inst.effective_morph_weights().to_vec(),
                })
            }
            Inner::Gltf {
                sampler,
                physics,
                meshes,
            } => {
                sampler.sample(time);
                let mut morphs = Vec::new();
                for m in meshes.iter() {
                    let at = morphs.len();
                    morphs.resize(at + m.default_weights.len(), 0.0);
                    sampler.weights(m, &mut morphs[at..]);
                }
                match physics.as_mut() {
                    Some(ph) => {
                        ph.input_mut().copy_from_slice(sampler.locals());
                        let world = ph.step(dt)?.to_vec();
                        Ok(Posed {
                            world,
                            bodies: ph.bodies(),
                            morphs,
                        })
                    }
                    None => Ok(Posed {
                        world: sampler.world().to_vec(),
                        bodies: Vec::new(),
                        morphs,
                    }),
                }
            }
        }
    }
}
