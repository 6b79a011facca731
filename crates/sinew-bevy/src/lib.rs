//! A Bevy plugin for sinew: PMX, PMD, VMD and glTF characters read by sinew (so MMD IK,
//! append rotations and physics apply), advanced in Bevy's schedule, their bones written as
//! Bevy transforms.
//!
//! ```text
//!  AssetServer ─▶ SinewModelLoader (.pmx .pmd .glb .gltf) ─▶ SinewModel (Arc<CharacterModel>)
//!              └▶ SinewVmdLoader (.vmd)                   ─▶ SinewVmd
//!  entity + SinewCharacter { model, motion, physics, speed }
//!     │  advance_characters (Update, or FixedUpdate), per character:
//!     │    play what the component says ─▶ IK targets from SinewIkTarget entities
//!     │    ─▶ Character::advance(Time::delta × speed) ─▶ sample, IK, physics
//!     ▼
//!  SinewJoint children (one per bone, the skeleton's order): Transform = the bone's world
//!  matrix in the character's space; SinewMorphWeights: the frame's morph weights
//! ```
//!
//! The character entity's own `Transform` places the character in the scene (an MMD model is
//! in MMD units, 1 ≈ 8 cm, and MMD's left-handed axes). This crate needs Bevy's ECS, assets,
//! time and transforms only (no renderer): drawing the mesh is the host's.

mod assets;
mod character;

use bevy::app::{App, FixedUpdate, Plugin, Update};
use bevy::asset::AssetApp;
use bevy::ecs::schedule::IntoScheduleConfigs;

pub use assets::{SinewModel, SinewModelLoader, SinewVmd, SinewVmdLoader};
pub use character::{
    advance_characters, SinewCharacter, SinewIkTarget, SinewJoint, SinewMorphWeights, SinewMotion,
};

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
}

/// The set [`advance_characters`] runs in (order a host's systems before or after it).
#[derive(bevy::ecs::schedule::SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SinewSystems;
