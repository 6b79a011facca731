//! What the commands animate — any model the library reads (PMX, PMD, glTF) with a VMD
//! motion, a glTF clip or a pose file, physics on or off — behind one [`Animator`] that turns a
//! frame index into world matrices (the skeleton's order), body outlines and morph weights.
//! The evaluation is the library's [`Character`]: the CLI writes no glue of its own.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::{Affine3A, Quat, Vec3};
use sinew::dynamics::{BodyMode, Shape};
use sinew_character::{Character, CharacterError, CharacterModel, PoseFile};

use crate::commands::inspect::{bad_input, read_file};
use crate::error::CliError;

pub use sinew_character::ModelKind;

/// MMD motions are keyed at 30 frames per second.
pub const MMD_FPS: f32 = 30.0;

/// The CLI's error for a library error about `context` (the file or flag it concerns, when
/// the error does not name its own file).
pub fn character_error(e: CharacterError, context: &Path) -> CliError {
    match e {
        CharacterError::InFile { path, error } => bad_input(&path, error),
        e if e.is_input() => bad_input(context, e),
        e => CliError::Internal(e.to_string()),
    }
}

/// Decides the reader by extension, then by magic bytes; an unknown file is an input error.
pub fn kind_of(path: &Path) -> Result<ModelKind, CliError> {
    sinew_character::kind_of(path).map_err(|e| character_error(e, path))
}

/// Loads any model the library reads.
pub fn load_model(path: &Path) -> Result<Arc<CharacterModel>, CliError> {
    CharacterModel::load(path).map_err(|e| character_error(e, path))
}

/// Loads a pose / IK-target file.
pub fn load_pose(path: &Path) -> Result<PoseFile, CliError> {
    let bytes = read_file(path)?;
    let text =
        std::str::from_utf8(&bytes).map_err(|e| bad_input(path, format!("not UTF-8: {e}")))?;
    PoseFile::from_json(text).map_err(|e| bad_input(path, e))
}

/// One evaluated frame: world matrices (the skeleton's order, `Skeleton::parent_indices`), bodies,
/// morph weights (one per character morph, after MMD's group expansion).
#[derive(Clone, Debug, Default)]
pub struct Posed {
    /// World matrices.
    pub world: Vec<Affine3A>,
    /// Rigid bodies (physics on).
    pub bodies: Vec<BodyOutline>,
    /// Morph weights.
    pub morphs: Vec<f32>,
}

/// What a command plays, as its arguments give it (`#[command(flatten)]` in `view`, `render`,
/// `bake`, `skin`).
#[derive(clap::Args, Clone, Debug)]
pub struct SourceArgs {
    /// The model (.pmx, .pmd, .glb, .gltf).
    pub model: PathBuf,
    /// A VMD motion (MMD models; frames at 30 fps).
    #[arg(long)]
    pub motion: Option<PathBuf>,
    /// The animation to play (glTF models; default 0).
    #[arg(long)]
    pub clip: Option<usize>,
    /// A pose JSON: bones and IK targets (see `sinew pose --pose`).
    #[arg(long)]
    pub pose: Option<PathBuf>,
    /// Simulate rigid bodies (every frame from the first is simulated).
    #[arg(long)]
    pub physics: bool,
    /// glTF physics: the bones whose subtrees hang under physics (default: chains named like
    /// hair, tail, skirt, …).
    #[arg(long, value_delimiter = ',')]
    pub dynamic: Vec<String>,
}

impl SourceArgs {
    /// What to animate, evaluated at `fps`.
    pub fn spec(&self, fps: f32) -> AnimSpec {
        AnimSpec {
            model: self.model.clone(),
            motion: self.motion.clone(),
            clip: self.clip,
            pose: self.pose.clone(),
            physics: self.physics,
            dynamic: self.dynamic.clone(),
            fps,
        }
    }
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
    /// A pose / IK-target file (any model): its bones replace the motion, its targets are
    /// set on the chains.
    pub pose: Option<PathBuf>,
    /// Simulate rigid bodies.
    pub physics: bool,
    /// For glTF physics: the bones whose subtrees hang under physics (default: the model's
    /// hair, tail, skirt … chains, by name).
    pub dynamic: Vec<String>,
    /// Frames per second of the evaluation.
    pub fps: f32,
}

/// A model plus what moves it, evaluated frame by frame in increasing order.
pub struct Animator {
    character: Character,
    /// The model file (errors name it).
    path: PathBuf,
    /// Per definition body: shape, size, whether it has mass (simulated unless kinematic).
    shapes: Vec<(Shape, Vec3, bool)>,
    fps: f32,
    next: u32,
    /// Length of the motion or clip in seconds (0 for a static model).
    pub duration: f32,
    /// Bones.
    pub bone_count: usize,
    /// A one-line description for reports.
    pub description: String,
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
                format!("must be within 1..=240, got {:?}", spec.fps),
            ));
        }
        let mut model = load_model(&spec.model)?;
        let pose = spec.pose.as_deref().map(load_pose).transpose()?;
        if let (Some(pose), Some(path)) = (&pose, &spec.pose) {
            if !pose.chains.is_empty() {
                model = model
                    .with_ik_chains(&pose.chains)
                    .map_err(|e| bad_input(path, e))?;
            }
        }
        let mut character = Character::new(&model);
        let kind = model.kind();
        let what = match (kind, &spec.motion, spec.clip) {
            (ModelKind::Gltf, Some(_), _) => {
                return Err(input(
                    "--motion",
                    "is for MMD models; glTF models take --clip",
                ))
            }
            (ModelKind::Mmd, _, Some(_)) => {
                return Err(input(
                    "--clip",
                    "is for glTF models; MMD models take --motion",
                ))
            }
            (_, Some(m), _) => {
                let motion = model.load_motion(m).map_err(|e| character_error(e, m))?;
                character.play(&motion);
                let layer = character.layers().next().map(|l| l.0);
                if let Some((bones, _)) = layer.and_then(|l| character.unmatched(l)) {
                    if !bones.is_empty() {
                        eprintln!(
                            "sinew: warning: {}: {} motion bones are not in the model",
                            m.display(),
                            bones.len()
                        );
                    }
                }
                format!(
                    ", motion of {} frames",
                    (motion.duration() * MMD_FPS).round() as u32 + 1
                )
            }
            (_, None, clip) if !model.clips().is_empty() || clip.is_some() => {
                let index = clip.unwrap_or(0);
                let motion = model.clip(index).map_err(|e| input("--clip", e))?.clone();
                character.play(&motion);
                format!(", clip {index} ({:.2} s)", motion.duration())
            }
            _ => ", rest pose (no animation)".to_owned(),
        };
        if let (Some(p), Some(pose)) = (&spec.pose, &pose) {
            if !pose.bones.is_empty() {
                character.play(&pose.to_motion().map_err(|e| bad_input(p, e))?);
            }
            pose.apply_targets(&mut character)
                .map_err(|e| bad_input(p, e))?;
        }
        if spec.physics {
            enable_physics(&mut character, &spec.model, &spec.dynamic)?;
        }
        let shapes = (model.model().dynamics().physics().bodies().iter())
            .map(|b| {
                let d = b.desc();
                (
                    d.shape,
                    d.size.abs(),
                    d.mode != BodyMode::Kinematic && d.mass > 0.0,
                )
            })
            .collect();
        let duration = character.end_time();
        let bone_count = model.skeleton().len();
        let description = match kind {
            ModelKind::Mmd => {
                let (mmd, _) = model.mmd().expect("an MMD model");
                format!(
                    "MMD model \"{}\", {} bones, {} rigid bodies{what}",
                    mmd.name(),
                    bone_count,
                    mmd.rigid_bodies().len()
                )
            }
            _ => format!("glTF model, {bone_count} bones{what}"),
        };
        Ok(Self {
            character,
            path: spec.model.clone(),
            shapes,
            fps: spec.fps,
            next: 0,
            duration,
            bone_count,
            description,
        })
    }

    /// The character, writable.
    pub fn character_mut(&mut self) -> &mut Character {
        &mut self.character
    }

    /// The model.
    pub fn model(&self) -> &Arc<CharacterModel> {
        self.character.model()
    }

    /// Frames per second.
    pub fn fps(&self) -> f32 {
        self.fps
    }

    /// Whether frames must be evaluated in order from 0 (physics is on).
    pub fn sequential(&self) -> bool {
        self.character.is_physics_enabled()
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
        self.step(index)?;
        Ok(Posed {
            world: self.character.world().to_vec(),
            bodies: self.bodies(),
            morphs: self.character.morph_weights().to_vec(),
        })
    }

    /// Evaluates the model at `time` seconds. With physics the simulation advances from the
    /// last evaluated time in steps of at most `1 / fps` (times must not go back).
    pub fn at(&mut self, time: f32) -> Result<Posed, CliError> {
        let fail = |e| character_error(e, &self.path);
        if self.sequential() {
            if self.next == 0 {
                self.character.update(0.0, 0.0).map_err(fail)?;
                self.next = 1;
            }
            let now = self.character.clock();
            if f64::from(time) < now {
                return Err(CliError::Internal(format!(
                    "physics times out of order ({time} after {now})"
                )));
            }
            self.character
                .advance_to(f64::from(time), 1.0 / f64::from(self.fps))
                .map_err(fail)?;
        } else {
            self.character.seek(time).map_err(fail)?;
        }
        Ok(Posed {
            world: self.character.world().to_vec(),
            bodies: self.bodies(),
            morphs: self.character.morph_weights().to_vec(),
        })
    }

    /// Restarts the simulation at `time` (physics on): bodies re-seeded at that time's pose,
    /// [`Self::at`] going on from there. Nothing to do with physics off.
    pub fn restart_at(&mut self, time: f32) -> Result<(), CliError> {
        if self.sequential() {
            self.character.reset_physics();
            self.character
                .update(time, 0.0)
                .map_err(|e| character_error(e, &self.path))?;
            self.next = 1;
        }
        Ok(())
    }

    fn step(&mut self, index: u32) -> Result<(), CliError> {
        self.character
            .update(index as f32 / self.fps, 1.0 / self.fps)
            .map_err(|e| character_error(e, &self.path))
    }

    /// Every simulated body's outline, the character's evaluation space (empty with physics
    /// off).
    fn bodies(&self) -> Vec<BodyOutline> {
        let Some(ragdoll) = self.character.ragdoll().filter(|_| self.sequential()) else {
            return Vec::new();
        };
        (self.shapes.iter().enumerate())
            .filter_map(|(i, &(shape, size, massive))| {
                let id = ragdoll.body_of(i)?;
                let (center, rotation) = ragdoll.body_pose(id)?;
                // The ragdoll's mode: a profile may set another than the table's.
                let simulated = massive && ragdoll.body_mode(id) != Some(BodyMode::Kinematic);
                Some(BodyOutline {
                    shape,
                    size,
                    center,
                    rotation,
                    simulated,
                })
            })
            .collect()
    }
}

/// Turns physics on: MMD models with their own table; glTF models with a profile over the
/// reader's candidates (the subtrees of `dynamic`, or by default the chains whose names say
/// hair, tail, skirt …).
pub fn enable_physics(
    character: &mut Character,
    model_path: &Path,
    dynamic: &[String],
) -> Result<(), CliError> {
    let model = Arc::clone(character.model());
    let table = model.model().dynamics().physics();
    if table.bodies().is_empty() {
        return Err(bad_input(
            model_path,
            "--physics: the model has no rigid bodies",
        ));
    }
    // An MMD table simulates as it is: `--dynamic` names chains of candidate tables only.
    let roots = if table.profile_required() {
        dynamic
    } else {
        &[]
    };
    character.enable_physics_on_chains(roots).map_err(|e| {
        let hint = if roots.is_empty() && table.profile_required() {
            " (--dynamic BONE[,BONE] names them)"
        } else {
            ""
        };
        bad_input(model_path, format!("--physics: {e}{hint}"))
    })
}

/// A rigid body as drawn: its shape at its simulated pose.
#[derive(Clone, Copy, Debug)]
pub struct BodyOutline {
    /// Sphere, box or capsule.
    pub shape: Shape,
    /// Radius (x) / half extents / radius and cylinder height (x, y), model units.
    pub size: Vec3,
    /// Centre.
    pub center: Vec3,
    /// Orientation.
    pub rotation: Quat,
    /// Simulated (dynamic) rather than following its bone.
    pub simulated: bool,
}

impl BodyOutline {
    /// Radius of a sphere around the centre that holds the body.
    #[must_use]
    pub fn reach(&self) -> f32 {
        match self.shape {
            Shape::Sphere => self.size.x,
            Shape::Box => self.size.length(),
            Shape::Capsule => self.size.x + self.size.y * 0.5,
        }
    }
}
