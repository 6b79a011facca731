//! A Bevy plugin for sinew: PMX, PMD, VMD and glTF characters read by sinew (so MMD IK,
//! append rotations and physics apply), advanced in Bevy's schedule, their bones written as
//! Bevy transforms and their meshes drawn as Bevy skinned meshes.
//!
//! ```text
//!  AssetServer ─▶ SinewModelLoader (.pmx .pmd .glb .gltf) ─▶ SinewModel (Arc<CharacterModel>
//!              │      + feature `mesh`: one SinewMeshPart per material: Mesh, inverse binds,
//!              │        morph targets, texture Image; feature `render`: StandardMaterial)
//!              └▶ SinewVmdLoader (.vmd)                   ─▶ SinewVmd
//!  entity + SinewCharacter { model, motion, physics, speed }
//!     │  advance_characters (Update, or FixedUpdate), per character:
//!     │    play what the component says ─▶ IK targets from SinewIkTarget entities
//!     │    ─▶ Character::advance(Time::delta × speed) ─▶ sample, IK, physics
//!     ▼
//!  SinewJoint children (one per bone, the skeleton's order): Transform = the bone's world
//!  matrix in the character's space; SinewMorphWeights: the frame's morph weights;
//!  (mesh) SinewMeshOf children: Mesh3d + SkinnedMesh over the joint entities + the part's
//!  MeshMorphWeights, written each frame from the character's morph weights
//! ```
//!
//! The character entity's own `Transform` places the character in the scene (an MMD model is
//! in MMD units, 1 ≈ 8 cm, and MMD's left-handed axes: [`mmd_transform`]). Features: none
//! needs Bevy's ECS, assets, time and transforms only; `mesh` (default) adds the meshes and
//! textures as CPU data (Bevy skins them linearly: PMX SDEF and QDEF vertices blend their
//! joints linearly there, UV and material morphs are not drawn); `render` adds materials and
//! the `window` example.

mod assets;
mod character;
#[cfg(feature = "mesh")]
mod mesh;
#[cfg(feature = "mesh")]
mod mesh_entities;

use bevy::app::{App, FixedUpdate, Plugin, Update};
use bevy::asset::AssetApp;
use bevy::ecs::schedule::IntoScheduleConfigs;

pub use assets::{SinewModel, SinewModelLoader, SinewVmd, SinewVmdLoader};
pub use character::{
    advance_characters, SinewCharacter, SinewIkTarget, SinewJoint, SinewMorphWeights, SinewMotion,
};
#[cfg(feature = "mesh")]
pub use mesh::{SinewMeshPart, MAX_PART_JOINTS};
#[cfg(feature = "mesh")]
pub use mesh_entities::SinewMeshOf;

/// A transform that places an MMD character in Bevy's space: MMD units (1 ≈ 8 cm) in metres,
/// and MMD's left-handed axes mirrored along z into Bevy's right-handed ones (the meshes'
/// triangles are written to face outwards under it).
#[must_use]
pub fn mmd_transform() -> bevy::prelude::Transform {
    bevy::prelude::Transform::from_scale(bevy::math::Vec3::new(0.08, 0.08, -0.08))
}

/// Which schedule advances the characters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SinewStep {
    /// `Update`, by the frame's variable time.
    #[default]
    Variable,
    /// `FixedUpdate`, by `Time<Fixed>`'s step.
    Fixed,
}

/// Registers the assets and loaders and the system that advances [`SinewCharacter`]s.
#[derive(Clone, Copy, Debug, Default)]
pub struct SinewPlugin {
    /// The schedule the characters advance in.
    pub step: SinewStep,
}

impl Plugin for SinewPlugin {
    fn build(&self, app: &mut App) {
        app.init_asset::<SinewModel>()
            .init_asset::<SinewVmd>()
            .init_asset_loader::<SinewModelLoader>()
            .init_asset_loader::<SinewVmdLoader>();
        let system = advance_characters.in_set(SinewSystems);
        match self.step {
            SinewStep::Variable => app.add_systems(Update, system),
            SinewStep::Fixed => app.add_systems(FixedUpdate, system),
        };
    }

    /// With feature `mesh`: registers Bevy's mesh and image assets where the host's plugins
    /// (`MeshPlugin`, `ImagePlugin`, both in `DefaultPlugins`) did not.
    fn finish(&self, app: &mut App) {
        #[cfg(feature = "mesh")]
        {
            use bevy::asset::Assets;
            if !app.world().contains_resource::<Assets<bevy::mesh::Mesh>>() {
                app.init_asset::<bevy::mesh::Mesh>()
                    .init_asset::<bevy::mesh::skinning::SkinnedMeshInverseBindposes>();
            }
            if !app
                .world()
                .contains_resource::<Assets<bevy::image::Image>>()
            {
                app.init_asset::<bevy::image::Image>();
            }
        }
        #[cfg(not(feature = "mesh"))]
        let _ = app;
    }
}

/// The set [`advance_characters`] runs in (order a host's systems before or after it).
#[derive(bevy::ecs::schedule::SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SinewSystems;
