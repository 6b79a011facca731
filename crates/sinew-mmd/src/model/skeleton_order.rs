//! World matrices between the file's bone order and the sinew skeleton's, as a physics step
//! takes and gives them.

use glam::Affine3A;
use sinew::Transform;

use super::MmdModel;

impl MmdModel {
    /// Writes a pose given as world matrices in file order as local transforms of
    /// [`Self::skeleton`] (skeleton order): `local = parent_world⁻¹ × world` over the file's
    /// hierarchy. A matrix that is not a rotation + translation + scale leaves its local as is.
    ///
    /// # Panics
    /// If `world` is not one matrix per file bone or `locals` not the skeleton's length.
    pub fn locals_from_world(&self, world: &[Affine3A], locals: &mut [Transform]) {
        let s = &self.skeleton;
        assert_eq!(world.len(), self.bones.len());
        assert_eq!(locals.len(), s.len());
        for (i, b) in self.bones.iter().enumerate() {
            let local = match b.parent {
                Some(p) => world[p].inverse() * world[i],
                None => world[i],
            };
            if let (Some(id), Some(t)) =
                (s.from_source_index(i), Transform::try_from_affine(&local))
            {
                locals[id.index()] = t;
            }
        }
    }

    /// Copies world matrices in [`Self::skeleton`]'s order (`from`) into file order (`to`).
    ///
    /// # Panics
    /// If `from` is not the skeleton's length or `to` not one matrix per file bone.
    pub fn world_to_file_order(&self, from: &[Affine3A], to: &mut [Affine3A]) {
        let s = &self.skeleton;
        assert_eq!(from.len(), s.len());
        assert_eq!(to.len(), self.bones.len());
        for (i, w) in to.iter_mut().enumerate() {
            if let Some(id) = s.from_source_index(i) {
                *w = from[id.index()];
            }
        }
    }

    /// Whether some bone is flagged "after physics" (MMD evaluates it after the physics step).
    #[must_use]
    pub fn has_after_physics_bones(&self) -> bool {
        self.bones.iter().any(|b| b.after_physics)
    }
}
