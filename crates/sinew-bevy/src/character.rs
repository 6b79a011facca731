//! The character component, its joints and the system that advances them.

use bevy::asset::{Assets, Handle};
use bevy::ecs::prelude::*;
use bevy::math::{Mat4, Vec3};
use bevy::prelude::{ChildOf, GlobalTransform, Name, Time, Transform};
use sinew_character::{Character, CharacterModel};

use crate::assets::{SinewModel, SinewVmd};

/// What a character plays.
#[derive(Clone, Debug, Default)]
pub enum SinewMotion {
    /// Nothing: the rest pose (IK targets and physics still apply).
    #[default]
    None,
    /// A VMD (for an MMD model).
    Vmd(Handle<SinewVmd>),
    /// Clip `n` of a glTF model's file.
    Clip(usize),
}

/// A sinew character: put it on an entity and [`crate::SinewPlugin`]'s system advances it each
/// frame by the schedule's time, spawning one [`SinewJoint`] child per bone once the model has
/// loaded and writing their [`Transform`]s (the bone's world matrix in the character's space;
/// the entity's own transform places the character in the scene).
#[derive(Component, Debug)]
pub struct SinewCharacter {
    /// The model.
    pub model: Handle<SinewModel>,
    /// What it plays (changing it restarts the motion at the character's current time).
    pub motion: SinewMotion,
    /// Whether physics runs (rigid bodies of an MMD model, the glTF reader's candidates).
    pub physics: bool,
    /// Seconds of motion per second of the schedule's time.
    pub speed: f32,
    state: Option<Box<State>>,
    error: Option<String>,
}

#[derive(Debug)]
struct State {
    character: Character,
    joints: Vec<Entity>,
    /// The mesh part entities that have morph targets, with their part's index.
    #[cfg(feature = "mesh")]
    morphed: Vec<(Entity, usize)>,
    /// The motion and physics the component last asked for (each applied once per change,
    /// so a refusal is not retried every frame).
    playing: Option<SinewMotionKey>,
    physics: bool,
}

/// Which motion a character was last told to play.
#[derive(Clone, Debug, PartialEq)]
enum SinewMotionKey {
    Vmd(bevy::asset::AssetId<SinewVmd>),
    Clip(usize),
}

/// One bone of a character: a child entity of it, in the skeleton's order.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SinewJoint {
    /// The bone's index in the model's skeleton.
    pub bone: usize,
}

/// The character's morph weights of the current frame, one per morph of the model (for
/// morph targets of a mesh drawn by the host).
#[derive(Component, Clone, Debug, Default)]
pub struct SinewMorphWeights(pub Vec<f32>);

/// Makes an IK chain of `character` reach this entity's global position.
#[derive(Component, Clone, Debug)]
pub struct SinewIkTarget {
    /// The entity holding the [`SinewCharacter`].
    pub character: Entity,
    /// The chain's name (the model's IK chains).
    pub chain: String,
    /// How strongly (0 to 1).
    pub weight: f32,
}

impl SinewCharacter {
    /// A character of `model` playing nothing, physics off, at normal speed.
    #[must_use]
    pub fn new(model: Handle<SinewModel>) -> Self {
        Self {
            model,
            motion: SinewMotion::None,
            physics: false,
            speed: 1.0,
            state: None,
            error: None,
        }
    }

    /// Plays a VMD.
    #[must_use]
    pub fn with_vmd(mut self, vmd: Handle<SinewVmd>) -> Self {
        self.motion = SinewMotion::Vmd(vmd);
        self
    }

    /// Plays clip `clip` of a glTF model.
    #[must_use]
    pub fn with_clip(mut self, clip: usize) -> Self {
        self.motion = SinewMotion::Clip(clip);
        self
    }

    /// With physics on or off.
    #[must_use]
    pub fn with_physics(mut self, physics: bool) -> Self {
        self.physics = physics;
        self
    }

    /// The sinew character, once its model has loaded.
    #[must_use]
    pub fn character(&self) -> Option<&Character> {
        self.state.as_ref().map(|s| &s.character)
    }

    /// The sinew character, once its model has loaded (to set morphs, IK toggles, layers).
    pub fn character_mut(&mut self) -> Option<&mut Character> {
        self.state.as_mut().map(|s| &mut s.character)
    }

    /// The joint entities, in the skeleton's order (empty until the model has loaded).
    #[must_use]
    pub fn joints(&self) -> &[Entity] {
        self.state.as_ref().map_or(&[], |s| &s.joints)
    }

    /// Why the character last could not play or advance (a clip it lacks, a VMD on a glTF
    /// model, physics on a model without bodies), if it ever could not; a refused motion or
    /// physics switch is tried again when the component asks for another.
    #[must_use]
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
}

fn to_bevy(m: glam::Affine3A) -> Mat4 {
    Mat4::from_cols_array(&glam::Mat4::from(m).to_cols_array())
}

/// Plays what the component says when that changed; switches physics.
fn apply_settings(
    state: &mut State,
    wanted: &SinewMotion,
    physics: bool,
    vmds: &Assets<SinewVmd>,
    model: &CharacterModel,
) -> Result<(), String> {
    let key = match wanted {
        SinewMotion::None => None,
        SinewMotion::Vmd(h) => Some(SinewMotionKey::Vmd(h.id())),
        SinewMotion::Clip(n) => Some(SinewMotionKey::Clip(*n)),
    };
    if key != state.playing {
        state.playing = key;
        match wanted {
            SinewMotion::None => state.character.stop(),
            SinewMotion::Vmd(h) => {
                // Not loaded yet: try again next frame.
                let Some(vmd) = vmds.get(h) else {
                    state.playing = None;
                    return Ok(());
                };
                let motion = vmd.motion_for(model).map_err(|e| e.to_string())?;
                state.character.play(&motion);
            }
            SinewMotion::Clip(n) => {
                let motion = model.clip(*n).map_err(|e| e.to_string())?;
                state.character.play(motion);
            }
        }
    }
    if physics != state.physics {
        state.physics = physics;
        if physics {
            state
                .character
                .enable_physics()
                .map_err(|e| e.to_string())?;
        } else {
            state.character.disable_physics();
        }
    }
    Ok(())
}

/// The system: spawns joints of characters whose model has loaded, applies IK targets,
/// advances every character by the schedule's time and writes its joints and morph weights.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub fn advance_characters(
    mut commands: Commands,
    time: Res<Time>,
    models: Res<Assets<SinewModel>>,
    vmds: Res<Assets<SinewVmd>>,
    mut characters: Query<(
        Entity,
        &mut SinewCharacter,
        Option<&GlobalTransform>,
        Option<&mut SinewMorphWeights>,
    )>,
    targets: Query<(&SinewIkTarget, &GlobalTransform)>,
    mut joints: Query<&mut Transform, With<SinewJoint>>,
    #[cfg(feature = "mesh")] mut mesh_weights: Query<&mut bevy::mesh::morph::MeshMorphWeights>,
) {
    let dt = time.delta_secs();
    for (entity, mut c, global, morphs) in &mut characters {
        let c = &mut *c;
        let Some(asset) = models.get(&c.model) else {
            continue;
        };
        let model = &asset.model;
        if c.state.is_none() {
            let character = Character::new(model);
            let skeleton = model.skeleton();
            let joints: Vec<Entity> = (0..skeleton.len())
                .map(|i| {
                    let name = skeleton.names()[i].clone();
                    let local = to_bevy(skeleton.rest_world()[i]);
                    commands
                        .spawn((
                            SinewJoint { bone: i },
                            Name::new(name),
                            Transform::from_matrix(local),
                            ChildOf(entity),
                        ))
                        .id()
                })
                .collect();
            commands
                .entity(entity)
                .insert(SinewMorphWeights(model.default_morph_weights().to_vec()));
            #[cfg(feature = "mesh")]
            let morphed = crate::mesh_entities::spawn_parts(&mut commands, entity, asset, &joints);
            c.state = Some(Box::new(State {
                character,
                joints,
                #[cfg(feature = "mesh")]
                morphed,
                playing: None,
                physics: false,
            }));
        }
        let state = c.state.as_mut().expect("made above");
        let mut error = apply_settings(state, &c.motion, c.physics, &vmds, model).err();
        let inverse = global.map(|g| g.affine().inverse());
        for (target, at) in &targets {
            if target.character != entity {
                continue;
            }
            let p = at.translation();
            let p = inverse.map_or(p, |i| i.transform_point3(p));
            let p = glam::Vec3::from_array(Vec3::to_array(&p));
            if let Err(e) = state
                .character
                .set_ik_target(&target.chain, p, target.weight)
            {
                error = Some(e.to_string());
            }
        }
        let step = if c.speed.is_finite() {
            dt * c.speed.max(0.0)
        } else {
            0.0
        };
        if let Err(e) = state.character.advance(step) {
            error = Some(e.to_string());
        }
        for (&joint, world) in state.joints.iter().zip(state.character.world()) {
            if let Ok(mut t) = joints.get_mut(joint) {
                *t = Transform::from_matrix(to_bevy(*world));
            }
        }
        if let Some(mut m) = morphs {
            m.0.clear();
            m.0.extend_from_slice(state.character.morph_weights());
        }
        #[cfg(feature = "mesh")]
        crate::mesh_entities::write_morph_weights(
            &state.morphed,
            &asset.parts,
            state.character.morph_weights(),
            &mut mesh_weights,
        );
        if error.is_some() {
            c.error = error;
        }
    }
}
