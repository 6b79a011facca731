//! The whole evaluation path a file goes through in a host: bytes → parse → model → instance →
//! frames of FK, IK and append (every mode, through `MmdInstance` and through the generic
//! `SkeletonInstance` as `MmdSkeletonInstance`) → physics. Fuzz targets, property tests and the
//! corpus runner drive it; any panic, endless loop or runaway allocation on the way is a bug,
//! and every refusal comes back as a [`PathError`].

use std::path::Path;
use std::sync::Arc;

use glam::{Affine3A, Quat, Vec3};
use sinew::{SkeletonInstance, Transform};
use sinew_mmd::{
    EvalOptions, MmdInstance, MmdModel, MmdMotion, MmdReaderOptions, MmdSkeletonInstance,
    MotionPlayer, Vmd,
};
use sinew_physics::{PhysicsOptions, Ragdoll};
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
    /// The generic definitions of the model were refused.
    #[error("generic definitions: {0}")]
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
        /// Bone (file index for MMD, skeleton index for glTF).
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

/// Morphs and skins `mesh` with `matrices`; every vertex must come out finite.
fn skin_frame(
    deformed: &mut sinew_skin::Deformed,
    mesh: &sinew_skin::Mesh,
    matrices: &[Affine3A],
    morphs: &[f32],
    frame: u32,
) -> Result<usize, PathError> {
    let err = |reason: String| PathError::Skin { frame, reason };
    deformed
        .update(mesh, matrices, morphs, sinew_skin::SkinMode::Linear)
        .map_err(|e| err(e.to_string()))?;
    if let Some(v) = deformed.positions().iter().position(|p| !p.is_finite()) {
        return Err(err(format!("vertex {v} is not finite")));
    }
    Ok(deformed.positions().len())
}

/// Turns every bone by a frame- and bone-dependent angle and moves it a little, so IK and
/// append have something to do without a motion file.
fn synthetic_pose(inst: &mut MmdInstance, frame: u32) {
    let n = inst.bone_count();
    for i in 0..n {
        let a = (frame as f32 + 1.0) * 0.3 + i as f32 * 0.7;
        let axis = Vec3::new(a.sin(), a.cos(), (a * 0.5).sin()).normalize_or(Vec3::Y);
        inst.rotations_mut()[i] = Quat::from_axis_angle(axis, 0.4 * (a * 1.3).sin());
        inst.translations_mut()[i] = Vec3::new(0.0, 0.1 * a.cos(), 0.0);
    }
}

fn check_finite(world: &[Affine3A], frame: u32) -> Result<(), PathError> {
    match world.iter().position(|m| !m.is_finite()) {
        Some(bone) => Err(PathError::NonFinite { frame, bone }),
        None => Ok(()),
    }
}

/// The physics of one MMD model, as the CLI builds it (MMD units: gravity −98).
fn mmd_physics(model: &MmdModel) -> Result<(SkeletonInstance, Ragdoll), PathError> {
    let (sinew_model, _) = model
        .to_physics_model(&MmdReaderOptions::default())
        .map_err(|e| PathError::Physics(e.to_string()))?;
    let mut ragdoll = Ragdoll::new(
        &sinew_model,
        PhysicsOptions {
            teleport_distance: 20.0,
            ..PhysicsOptions::default()
        },
    )
    .map_err(|e| PathError::Physics(e.to_string()))?;
    ragdoll.set_gravity(Vec3::new(0.0, -98.0, 0.0));
    Ok((SkeletonInstance::new(&sinew_model), ragdoll))
}

/// Runs a PMX/PMD model (and optionally a VMD motion for it) through every evaluation mode and
/// physics.
///
/// # Errors
/// A [`PathError`] naming the refusal.
pub fn mmd(
    model_bytes: &[u8],
    motion_bytes: Option<&[u8]>,
    options: PathOptions,
) -> Result<PathReport, PathError> {
    let model = Arc::new(MmdModel::from_bytes(model_bytes)?);
    let mut player = match motion_bytes {
        Some(bytes) => {
            let vmd = Vmd::parse(bytes).map_err(|e| PathError::Motion(e.to_string()))?;
            let motion = MmdMotion::from_vmd(&vmd, Some(&model))
                .map_err(|e| PathError::Motion(e.to_string()))?;
            Some(MotionPlayer::new(Arc::new(motion), &model))
        }
        None => None,
    };
    let mut inst = MmdInstance::new(Arc::clone(&model));
    // Bone by bone in MMD's order; the staged evaluation runs as `MmdSkeletonInstance` below
    // (bone by bone too for a model with gaps).
    inst.set_bone_by_bone(true);
    let mut report = PathReport {
        bones: model.bones().len(),
        warnings: model.warnings().len(),
        ..PathReport::default()
    };
    let pose = |inst: &mut MmdInstance, player: &mut Option<MotionPlayer>, frame: u32| match player
    {
        Some(p) => p.apply(frame as f32 * 7.0, inst),
        None => synthetic_pose(inst, frame),
    };
    let mesh = Arc::clone(model.mesh());
    let mut deformed = sinew_skin::Deformed::new(&mesh);
    let mut matrices = vec![Affine3A::IDENTITY; model.bones().len()];
    for mode in ["fk", "grant", "ik", "full"] {
        let opts = EvalOptions::from_mode(mode).unwrap_or_default();
        // The same frames through the generic instance (what the tools evaluate).
        let mut generic = MmdSkeletonInstance::new(Arc::clone(&model), opts)
            .map_err(|e| PathError::Dynamics(e.to_string()))?;
        for frame in 0..options.frames {
            pose(&mut inst, &mut player, frame);
            inst.evaluate(opts);
            check_finite(inst.world(), frame)?;
            generic.evaluate(&inst);
            check_finite(generic.world(), frame)?;
            report.frames += 1;
            if mode == "full" {
                inst.skin_matrices(&mut matrices);
                report.vertices += skin_frame(
                    &mut deformed,
                    &mesh,
                    &matrices,
                    inst.effective_morph_weights(),
                    frame,
                )?;
            }
        }
    }
    if options.physics && !model.rigid_bodies().is_empty() {
        let (mut body, mut ragdoll) = mmd_physics(&model)?;
        let mut locals = vec![Transform::IDENTITY; model.skeleton().len()];
        for frame in 0..options.frames {
            pose(&mut inst, &mut player, frame);
            inst.evaluate_before_physics(EvalOptions::default());
            inst.write_locals(&mut locals);
            body.input_mut().copy_from_slice(&locals);
            ragdoll
                .evaluate_physics_frame(&mut body, frame as f32 / 60.0, 1.0 / 60.0)
                .map_err(|e| PathError::Physics(e.to_string()))?;
            inst.set_world_from_skeleton_order(body.world());
            inst.evaluate_after_physics();
            check_finite(inst.world(), frame)?;
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
    let meshes = model.meshes()?;
    let mut deformed: Vec<sinew_skin::Deformed> = meshes
        .iter()
        .map(|m| sinew_skin::Deformed::new(&m.mesh))
        .collect();
    for clip in 0..model.clips().len() {
        let mut sampler = sinew_gltf::JointSampler::new(model, clip)?;
        let duration = sampler.clip().duration();
        for frame in 0..options.frames {
            let t = duration * frame as f32 / options.frames.max(1) as f32;
            let world = sampler.sample(t).to_vec();
            check_finite(&world, frame)?;
            report.frames += 1;
            for (m, d) in meshes.iter().zip(&mut deformed) {
                let mut weights = vec![0.0; m.default_weights.len()];
                sampler.weights(m, &mut weights);
                let mut matrices = vec![Affine3A::IDENTITY; m.bones.len()];
                m.matrices(&world, &mut matrices);
                report.vertices += skin_frame(d, &m.mesh, &matrices, &weights, frame)?;
            }
        }
    }
    Ok(report)
}
