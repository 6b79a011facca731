//! # sinew-character — one character of any model, through one type
//!
//! A [`CharacterModel`] is what every character of one model shares: read from a PMX, PMD or
//! glTF file ([`CharacterModel::load`]) or wrapped around a model built in code, it holds the
//! skeleton with its dynamics (IK chains, pose constraints, the physics table), the skinned
//! meshes, the morph names, the clips and the physics settings that suit the model. A
//! [`Character`] is one of them in motion: it plays [`Motion`]s (a VMD, a glTF clip) in layers
//! with weights and cross-fades, holds morph weights, IK targets and toggles, goals, props and
//! a ragdoll, and evaluates a frame with [`Character::advance`] or [`Character::seek`] into
//! world matrices, skinning matrices and morphed, skinned vertices.
//!
//! ```text
//!  .pmx / .pmd / .glb ──▶ CharacterModel (Arc)   skeleton + dynamics + meshes + morphs + clips
//!  .vmd / glTF clip   ──▶ Motion                 clip + IK switches
//!                           │
//!  Character::advance(dt) ──┤ mixer: sample → blend          animated input, morph weights
//!                           │ SkeletonInstance: constraints → hierarchy → IK
//!                           │ props → physics (Ragdoll, the model's writeback rule)
//!                           ▼
//!  world() / skin_matrices() / skinned_mesh(i)              for any renderer, baker, server
//!
//!  camera .vmd ──▶ CameraMotion::sample(t) ──▶ CameraState   target, rotation, distance, fov,
//!                                                            eye, axes, view matrix
//!              ──▶ LightMotion::sample(t)  ──▶ LightState    colour, direction
//! ```
//!
//! A [`CameraMotion`] is the scene's side of a VMD: the camera keys played the way
//! babylon-mmd's `MmdCamera` plays them (per-channel Bézier curves, cuts on consecutive
//! frames), sampled at any time like a character's motion, in the same MMD space as the
//! characters' world matrices; a [`LightMotion`] is the file's light keys.
//!
//! A [`Crowd`] is many characters of one model, each at its own phase of a motion, evaluated
//! in parallel (rayon) frame by frame.
//!
//! One bone order inside: the skeleton's. File indices (an MMD file's bone order) appear only
//! at the edges ([`CharacterModel::bone_of_source`], a mesh's joint list).
//!
//! ## Example
//!
//! Play miku_v2 dancing with physics and read one skinned vertex (the same lines play a
//! `.glb` and one of its clips: [`CharacterModel::clip`] instead of
//! [`CharacterModel::load_motion`]):
//!
//! ```no_run
//! use sinew_character::{Character, CharacterModel};
//!
//! let model = CharacterModel::load("miku_v2.pmd")?;
//! let dance = model.load_motion("wavefile_v2.vmd")?;
//! let mut miku = Character::new(&model);
//! miku.play(&dance);
//! miku.enable_physics()?;
//! for _ in 0..90 {
//!     miku.advance(1.0 / 30.0)?;
//! }
//! let vertex = miku.skinned_mesh(0)?.positions()[0];
//! println!("vertex 0 after 3 s: {vertex}");
//! # Ok::<(), sinew_character::CharacterError>(())
//! ```
#![warn(missing_docs)]

mod bake;
mod camera;
mod chain_profile;
mod character;
mod crowd;
mod error;
mod files;
mod light;
mod mesh;
mod mixer;
mod model;
mod motion;
mod pose_file;

pub use bake::{bake_glb, point_to_gltf, quat_to_gltf, BakedFrame, MMD_TO_METRES};
pub use camera::{frame_of_time, CameraKey, CameraMotion, CameraState};
pub use chain_profile::{chain_profile, CHAIN_JOINT_LIMIT};
pub use character::Character;
pub use crowd::Crowd;
pub use error::{one_line, CharacterError};
pub use files::{kind_of, kind_of_bytes, read_file, MAX_FILE_BYTES};
pub use light::{LightKey, LightMotion, LightState};
pub use mesh::{CharacterMesh, MeshState};
pub use mixer::{LayerId, MAX_LAYERS};
pub use model::{CharacterModel, ModelKind, PhysicsSettings, MMD_GRAVITY, MMD_TELEPORT_DISTANCE};
pub use motion::{IkKeys, Motion};
pub use pose_file::{ChainSpec, PoseBone, PoseFile, PoseTarget, SolverKind};

/// The workspace README's Rust block, compiled as a doctest (`examples/readme.rs` of
/// `sinew-examples` is the same program, run by CI from the workspace root).
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
