//! The whole evaluation path a file goes through in a host: bytes → parse → model → a
//! `Character` → frames of FK, IK and append (every mode, staged and bone by bone) → skinned
//! vertices → physics. Fuzz targets, property tests and the corpus runner drive it; any panic,
//! endless loop or runaway allocation on the way is a bug, and every refusal comes back as a
//! [`PathError`].

use std::path::Path;
use std::sync::Arc;

use glam::Affine3A;
use sinew::instance::Stages;
use sinew_character::{Character, CharacterModel, Motion};
use sinew_mmd::{MmdModel, MmdOrder};
use thiserror::Error;

/// Why a file did not make it through the path (each is a clear refusal, never a crash).
#[derive(Debug, Error)]
pub enum PathError {
    /// The model file was refused.
    #[error("model: {0}")]
    Model(#[from] sinew_mmd::MmdError),
    /// The motion file was refused.
    #[error("motion: {0}")]
    Motion(String),
    /// The glTF file was refused.
    #[error("glTF: {0}")]
    Gltf(#[from] sinew_gltf::GltfError),
    /// The physics table or a step was refused.
    #[error("physics: {0}")]
    Physics(String),
    /// The model's definitions were refused.
    #[error("definitions: {0}")]
    Dynamics(String),
    /// Skinning refused the mesh or produced a non-finite vertex.
    #[error("frame {frame}: skinning: {reason}")]
    Skin {
        /// Frame index.
        frame: u32,
        /// What went wrong.
        reason: String,
    },
    /// The evaluation produced a non-finite matrix (reported, not passed on).
    #[error("frame {frame}: bone {bone} has a non-finite world matrix")]
    NonFinite {
        /// Frame index.
        frame: u32,
        /// Bone (skeleton index).
        bone: usize,
    },
}

/// How much of the path to run.
#[derive(Clone, Copy, Debug)]
pub struct PathOptions {
    /// Frames evaluated in each mode.
    pub frames: u32,
    /// Whether the rigid bodies are simulated (one 1/60 s step per frame).
    pub physics: bool,
}

impl Default for PathOptions {
    fn default() -> Self {
        Self {
            frames: 3,
            physics: true,
        }
    }
}

/// What went through.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathReport {
    /// Bones evaluated.
    pub bones: usize,
    /// Frames evaluated (all modes).
    pub frames: u32,
    /// Physics steps taken.
    pub physics_steps: u32,
    /// Load-time repairs the reader reported.
    pub warnings: usize,
    /// Vertices skinned (all frames, all meshes).
    pub vertices: usize,
}

/// Skins every mesh of `character` for its last frame; every vertex must come out finite.
fn skin_frame(character: &mut Character, frame: u32) -> Result<usize, PathError> {
    let err = |reason: String| PathError::Skin { frame, reason };
    let mut vertices = 0;
    for m in 0..character.model().meshes().len() {
        let d = character.skinned_mesh(m).map_err(|e| err(e.to_string()))?;
        if let Some(v) = d.positions().iter().position(|p| !p.is_finite()) {
            return Err(err(format!("vertex {v} is not finite")));
        }
        vertices += d.positions().len();
    }
    Ok(vertices)
}

/// A motion that turns every bone by a frame- and bone-dependent angle and moves it a little
/// (one pose a second, [`crate::wave_motion`]), so IK and append have something to do without
/// a motion file.
fn synthetic_motion(model: &MmdModel, frames: u32) -> Motion {
    let phases: Vec<f32> = (0..frames.max(1)).map(|f| (f as f32 + 1.0) * 0.3).collect();
    crate::wave_motion(model, &phases)
}

fn check_finite(world: &[Affine3A], frame: u32) -> Result<(), PathError> {
    match world.iter().position(|m| !m.is_finite()) {
        Some(bone) => Err(PathError::NonFinite { frame, bone }),
        None => Ok(()),
    }
}

/// Runs a PMX/PMD model (and optionally a VMD motion for it) through every evaluation mode,
/// staged and bone by bone, skinning and physics.
///
/// # Errors
/// A [`PathError`] naming the refusal.
pub fn mmd(
    model_bytes: &[u8],
    motion_bytes: Option<&[u8]>,
    options: PathOptions,
) -> Result<PathReport, PathError> {
    let mmd = Arc::new(MmdModel::from_bytes(model_bytes)?);
    let dynamics = |e: sinew_character::CharacterError| PathError::Dynamics(e.to_string());
    // The order MMD's evaluation of this model takes (bone by bone for a model with gaps),
    // and bone by bone whatever the model.
    let models = [
        CharacterModel::from_mmd(Arc::clone(&mmd)).map_err(dynamics)?,
        CharacterModel::from_mmd_order(Arc::clone(&mmd), MmdOrder::BoneByBone).map_err(dynamics)?,
    ];
    let (motion, seconds_per_frame) = match motion_bytes {
        Some(bytes) => (
            Motion::from_vmd(bytes, Some(&mmd)).map_err(|e| PathError::Motion(e.to_string()))?,
            7.0 / 30.0,
        ),
        None => (synthetic_motion(&mmd, options.frames), 1.0),
    };
    let mut report = PathReport {
        bones: mmd.bones().len(),
        warnings: mmd.warnings().len(),
        ..PathReport::default()
    };
    let frame_error = |e: sinew_character::CharacterError| PathError::Physics(e.to_string());
    for model in &models {
        for mode in ["fk", "grant", "ik", "full"] {
            let mut c = Character::new(model);
            c.play(&motion);
            c.set_stages(Stages::from_mode(mode).unwrap_or_default());
            for frame in 0..options.frames {
                c.seek(frame as f32 * seconds_per_frame)
                    .map_err(frame_error)?;
                check_finite(c.world(), frame)?;
                report.frames += 1;
                if mode == "full" {
                    report.vertices += skin_frame(&mut c, frame)?;
                }
            }
        }
    }
    if options.physics && !mmd.rigid_bodies().is_empty() {
        let mut c = Character::new(&models[0]);
        c.play(&motion);
        c.enable_physics()
            .map_err(|e| PathError::Physics(e.to_string()))?;
        for frame in 0..options.frames {
            c.update(frame as f32 * seconds_per_frame, 1.0 / 60.0)
                .map_err(frame_error)?;
            check_finite(c.world(), frame)?;
            report.physics_steps += 1;
        }
    }
    Ok(report)
}

/// Runs a `.glb` or self-contained `.gltf` (bytes) through loading, every clip at a few times,
/// and the rest pose.
///
/// # Errors
/// A [`PathError`] naming the refusal.
pub fn gltf(bytes: &[u8], options: PathOptions) -> Result<PathReport, PathError> {
    let model = sinew_gltf::GltfModel::from_slice(bytes)?;
    gltf_model(&model, options)
}

/// As [`gltf`], for a file on disk (external buffers resolved beside it).
///
/// # Errors
/// A [`PathError`] naming the refusal.
pub fn gltf_file(path: &Path, options: PathOptions) -> Result<PathReport, PathError> {
    let model = sinew_gltf::GltfModel::load(path)?;
    gltf_model(&model, options)
}

fn gltf_model(
    model: &sinew_gltf::GltfModel,
    options: PathOptions,
) -> Result<PathReport, PathError> {
    let mut report = PathReport {
        bones: model.skeleton().len(),
        ..PathReport::default()
    };
    check_finite(model.skeleton().rest_world(), 0)?;
    let model = CharacterModel::from_gltf(Arc::new(model.clone())).map_err(|e| match e {
        sinew_character::CharacterError::Gltf(e) => PathError::Gltf(e),
        e => PathError::Dynamics(e.to_string()),
    })?;
    for clip in model.clips() {
        let mut c = Character::new(&model);
        c.play(clip);
        let duration = clip.duration();
        for frame in 0..options.frames {
            let t = duration * frame as f32 / options.frames.max(1) as f32;
            c.seek(t).map_err(|e| PathError::Dynamics(e.to_string()))?;
            check_finite(c.world(), frame)?;
            report.frames += 1;
            report.vertices += skin_frame(&mut c, frame)?;
        }
    }
    Ok(report)
}
