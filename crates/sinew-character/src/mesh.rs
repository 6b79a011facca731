//! A character's meshes: each [`CharacterMesh`] (shared by every character of a model) names
//! the skeleton bone of each of its skin joints and where its morph weights come from; a
//! character's [`MeshState`] holds the skinning matrices and deformed vertices, sized once.

use std::sync::Arc;

use glam::Affine3A;
use sinew::BoneId;
use sinew_skin::{Deformed, Mesh, SkinMode};

use crate::CharacterError;

/// One skinned mesh of a model and how it follows the skeleton.
#[derive(Clone, Debug)]
pub struct CharacterMesh {
    /// The mesh's name (glTF: three.js's name of the primitive; MMD: the model's).
    pub name: String,
    /// Whether a skin deforms it (glTF meshes without one move rigidly with a bone).
    pub skinned: bool,
    /// Rest data, triangles, materials, skin, morph targets.
    pub mesh: Arc<Mesh>,
    /// Per skin joint: its bone (the skeleton's order; MMD meshes list file bones, glTF meshes
    /// their skin's joints).
    pub joints: Box<[BoneId]>,
    /// Per skin joint: its inverse bind matrix.
    pub inverse_bind: Box<[Affine3A]>,
    /// Per morph target of the mesh: the character morph that weights it.
    pub morph_slots: Box<[usize]>,
}

impl CharacterMesh {
    /// Skinning matrices of this mesh for world matrices `world` (the skeleton's order).
    ///
    /// # Panics
    /// If `out` is not one matrix per joint.
    pub fn skin_matrices(&self, world: &[Affine3A], out: &mut [Affine3A]) {
        sinew::pose::joint_skin_matrices(world, &self.joints, &self.inverse_bind, out);
    }
}

/// One character's deformation of one [`CharacterMesh`]: its skinning matrices, morph weights
/// and deformed vertices, sized once. [`Character::skin`](crate::Character::skin) keeps one per
/// mesh; a host that evaluates frames once and skins them elsewhere (another thread, a later
/// pass) keeps its own.
#[derive(Clone, Debug)]
pub struct MeshState {
    matrices: Vec<Affine3A>,
    weights: Vec<f32>,
    deformed: Deformed,
}

impl MeshState {
    /// Buffers for `mesh`, in its rest pose until the first [`Self::update`].
    #[must_use]
    pub fn new(mesh: &CharacterMesh) -> Self {
        Self {
            matrices: vec![Affine3A::IDENTITY; mesh.joints.len()],
            weights: vec![0.0; mesh.morph_slots.len()],
            deformed: Deformed::new(&mesh.mesh),
        }
    }

    /// Morphs and skins `mesh` (the one these buffers were made for) for world matrices
    /// `world` (the skeleton's order) and the character's morph weights `morphs` (one per
    /// [`CharacterModel::morph_names`](crate::CharacterModel::morph_names) entry; missing ones
    /// read as 0).
    ///
    /// # Errors
    /// [`CharacterError::Invalid`] for a skin joint past `world`; [`CharacterError::Skin`] when
    /// the mesh does not fit these buffers.
    pub fn update(
        &mut self,
        mesh: &CharacterMesh,
        world: &[Affine3A],
        morphs: &[f32],
        mode: SkinMode,
    ) -> Result<(), CharacterError> {
        if let Some(j) = mesh.joints.iter().find(|j| j.index() >= world.len()) {
            return Err(CharacterError::invalid(
                "a skin joint",
                "a bone of the world matrices",
                j.index(),
            ));
        }
        if self.matrices.len() != mesh.joints.len() {
            self.matrices.resize(mesh.joints.len(), Affine3A::IDENTITY);
        }
        if self.weights.len() != mesh.morph_slots.len() {
            self.weights.resize(mesh.morph_slots.len(), 0.0);
        }
        mesh.skin_matrices(world, &mut self.matrices);
        for (w, &slot) in self.weights.iter_mut().zip(mesh.morph_slots.iter()) {
            *w = morphs.get(slot).copied().unwrap_or(0.0);
        }
        self.deformed
            .update(&mesh.mesh, &self.matrices, &self.weights, mode)?;
        Ok(())
    }

    /// The skinning matrices of the last [`Self::update`], one per skin joint.
    #[must_use]
    pub fn matrices(&self) -> &[Affine3A] {
        &self.matrices
    }

    /// The deformed vertices of the last [`Self::update`].
    #[must_use]
    pub fn deformed(&self) -> &Deformed {
        &self.deformed
    }

    /// Bytes held on the heap.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        let v3 = std::mem::size_of::<glam::Vec3>();
        self.matrices.capacity() * std::mem::size_of::<Affine3A>()
            + self.weights.capacity() * 4
            + (self.deformed.positions().len() + self.deformed.normals().len()) * v3 * 2
            + self.deformed.uvs().len() * 8
    }
}
