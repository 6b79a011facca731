//! The meshes of an animated model, deformed per frame: morph weights and world matrices of a
//! frame in, skinned vertices out. Each part is one of the library's [`CharacterMesh`]es with
//! its own [`MeshState`], so frames evaluated once can be skinned on any thread.

use std::sync::Arc;

use glam::Affine3A;
use sinew::BoneId;
use sinew_character::{CharacterMesh, CharacterModel, MeshState, ModelKind};
use sinew_skin::{Deformed, Mesh, SkinMode};

use crate::error::CliError;

/// One mesh and its deformation buffers.
#[derive(Clone)]
pub struct Part {
    /// The mesh and how it follows the skeleton.
    pub source: CharacterMesh,
    /// The mesh (rest data, materials, morphs).
    pub mesh: Arc<Mesh>,
    state: MeshState,
}

impl Part {
    fn new(source: CharacterMesh) -> Self {
        Self {
            mesh: Arc::clone(&source.mesh),
            state: MeshState::new(&source),
            source,
        }
    }

    /// The deformed vertices of the last [`Meshes::update`].
    pub fn deformed(&self) -> &Deformed {
        self.state.deformed()
    }
}

/// Every mesh of a model.
#[derive(Clone)]
pub struct Meshes {
    /// The meshes, in the model's order.
    pub parts: Vec<Part>,
    mode: SkinMode,
    /// World z is mirrored for display (MMD's left-handed model space).
    pub mirror_z: bool,
    /// The model file's folder (textures are relative to it).
    pub folder: std::path::PathBuf,
}

impl Meshes {
    /// The meshes of `model` (`None` when it has none).
    pub fn of(model: &CharacterModel, mode: SkinMode) -> Option<Self> {
        if model.meshes().iter().all(|m| m.mesh.positions.is_empty()) {
            return None;
        }
        Some(Self {
            parts: model.meshes().iter().cloned().map(Part::new).collect(),
            mode,
            mirror_z: model.kind() == ModelKind::Mmd,
            folder: model.folder().to_path_buf(),
        })
    }

    /// One mesh skinned to a whole skeleton (joint `i` = bone `i`, `inverse_bind` per bone).
    pub fn single(mesh: Arc<Mesh>, inverse_bind: Vec<Affine3A>, mirror_z: bool) -> Self {
        let source = CharacterMesh {
            name: mesh.name.clone(),
            skinned: true,
            joints: (0..inverse_bind.len() as u16).map(BoneId::new).collect(),
            inverse_bind: inverse_bind.into(),
            morph_slots: (0..mesh.morphs.len()).collect(),
            mesh,
        };
        Self {
            parts: vec![Part::new(source)],
            mode: SkinMode::Linear,
            mirror_z,
            folder: std::path::PathBuf::from("."),
        }
    }

    /// Deforms every mesh for world matrices `world` (the skeleton's order) and morph weights
    /// `morphs` (one per character morph).
    pub fn update(&mut self, world: &[Affine3A], morphs: &[f32]) -> Result<(), CliError> {
        for part in &mut self.parts {
            part.state
                .update(&part.source, world, morphs, self.mode)
                .map_err(|e| CliError::Internal(format!("skinning: {e}")))?;
        }
        Ok(())
    }
}
