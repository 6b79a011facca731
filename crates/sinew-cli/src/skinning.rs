//! The meshes of an animated model, deformed per frame: morph weights and world matrices of a
//! frame in, skinned vertices out (through [`sinew_skin::Deformed`], buffers sized once).

use std::sync::Arc;

use glam::Affine3A;
use sinew_skin::{Deformed, Mesh, SkinMode};

use crate::error::CliError;
use crate::source::Animator;

/// One mesh and how it follows the skeleton.
#[derive(Clone)]
pub struct Part {
    /// The mesh (rest data, materials, morphs).
    pub mesh: Arc<Mesh>,
    /// Per skin joint: its index in [`Posed::world`].
    joints: Vec<usize>,
    /// Per skin joint: its inverse bind matrix.
    inverse_bind: Vec<Affine3A>,
    matrices: Vec<Affine3A>,
    /// Where this mesh's morph weights start in [`Posed::morphs`].
    morph_offset: usize,
    /// The deformed vertices of the last [`Meshes::update`].
    pub deformed: Deformed,
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
    /// The meshes of the animated model (`None` when it has none).
    pub fn of(anim: &Animator, mode: SkinMode) -> Result<Option<Self>, CliError> {
        if let Some(meshes) = anim.gltf_meshes() {
            if meshes.is_empty() {
                return Ok(None);
            }
            let mut offset = 0;
            let parts = meshes
                .iter()
                .map(|m| {
                    let part = Part {
                        mesh: Arc::clone(&m.mesh),
                        joints: m.bones.iter().map(|b| b.index()).collect(),
                        inverse_bind: m.inverse_bind.clone(),
                        matrices: vec![Affine3A::IDENTITY; m.bones.len()],
                        morph_offset: offset,
                        deformed: Deformed::new(&m.mesh),
                    };
                    offset += m.default_weights.len();
                    part
                })
                .collect();
            return Ok(Some(Self {
                parts,
                mode,
                mirror_z: false,
                folder: anim.model_folder().to_path_buf(),
            }));
        }
        let Some(model) = anim.mmd_model() else {
            return Ok(None);
        };
        let mesh = Arc::clone(model.mesh());
        if mesh.positions.is_empty() {
            return Ok(None);
        }
        let part = Part {
            joints: (0..model.bones().len()).collect(),
            inverse_bind: model
                .bones()
                .iter()
                .map(|b| Affine3A::from_translation(-b.position))
                .collect(),
            matrices: vec![Affine3A::IDENTITY; model.bones().len()],
            morph_offset: 0,
            deformed: Deformed::new(&mesh),
            mesh,
        };
        Ok(Some(Self {
            parts: vec![part],
            mode,
            mirror_z: true,
            folder: anim.model_folder().to_path_buf(),
        }))
    }

    /// One mesh skinned to a whole skeleton (joint `i` = bone `i`, `inverse_bind` per bone).
    pub fn single(mesh: Arc<Mesh>, inverse_bind: Vec<Affine3A>, mirror_z: bool) -> Self {
        let n = inverse_bind.len();
        Self {
            parts: vec![Part {
                joints: (0..n).collect(),
                inverse_bind,
                matrices: vec![Affine3A::IDENTITY; n],
                morph_offset: 0,
                deformed: Deformed::new(&mesh),
                mesh,
            }],
            mode: SkinMode::Linear,
            mirror_z,
            folder: std::path::PathBuf::from("."),
        }
    }

    /// Deforms every mesh for world matrices `world` (the model's bone order) and morph
    /// weights `morphs` (see [`Posed::morphs`]).
    pub fn update(&mut self, world: &[Affine3A], morphs: &[f32]) -> Result<(), CliError> {
        for part in &mut self.parts {
            for ((m, &j), ib) in part
                .matrices
                .iter_mut()
                .zip(&part.joints)
                .zip(&part.inverse_bind)
            {
                let world = world.get(j).ok_or_else(|| {
                    CliError::Internal(format!("skin joint {j} is not an evaluated bone"))
                })?;
                *m = *world * *ib;
            }
            let morphs = morphs.get(part.morph_offset..).unwrap_or(&[]);
            part.deformed
                .update(&part.mesh, &part.matrices, morphs, self.mode)
                .map_err(|e| CliError::Internal(format!("skinning: {e}")))?;
        }
        Ok(())
    }
}
