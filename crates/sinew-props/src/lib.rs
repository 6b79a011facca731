//! # sinew-props: props and limbs (ik3d)
//!
//! Arms and legs bent to reach points on a held prop (a rifle's grip and support) or a
//! machine. In the sinew frame it runs **after IK and before physics and rendering**:
//!
//! ```text
//!  sample → blend → constraints → local_to_world → IK   (sinew / sinew-ik)
//!      ▼
//!  props: anchor the prop, then bend each limb           (this crate, Slot::Ik, after)
//!      ▼
//!  actors (Slot::Post) read the reached pose → physics writeback → render
//! ```
//!
//! * [`PropsConfig`]: the `world.ik3d` table (`kinds → { anchor?, limbs? }`), read from JSON
//!   with errors naming the kind and field.
//! * [`Prop`]: a small node tree with named empties, placed by its root; built in code or
//!   loaded from a glTF scene ([`Prop::from_gltf`], [`Prop::load_gltf`]: a `.glb` rifle).
//! * [`anchor`] and [`reach`]: the two solves as functions.
//! * [`PropsRig`]: one body's per-frame state: kind, props (maybe still loading), limp flag,
//!   handed limbs, the last solve's [`PropsRig::short`].
//! * [`PropsModule`]: a [`PropsRig`] as a [`sinew::instance::TickModule`].
//!
//! The demo's rifle and the config that fits the procedural humanoid live with the humanoid
//! (`sinew_humanoid::rifle`), not in this library.
//!
//! All world transforms are in the body's evaluation space (the [`sinew::RigState`]'s world
//! matrices); metres, radians inside, degrees only in the config's `turn`.
//!
//! ## Example
//!
//! ```
//! use std::sync::Arc;
//! use sinew_humanoid::rifle;
//! use sinew_props::{PropSlot, PropsRig};
//! # let skeleton = sinew::SkeletonBuilder::new()
//! #     .bone("root", sinew::Parent::Root, sinew::Transform::IDENTITY).build().unwrap();
//! let mut rig = PropsRig::new(Arc::new(rifle::humanoid_rifle_config()), Some("humanoid"))?;
//! rig.hold(rifle::RIFLE, PropSlot::Loading); // the model is still loading
//! let mut state = sinew::RigState::new(skeleton);
//! state.compute_world();
//! rig.solve(&mut state)?; // waits: the body stands as its clip draws it
//! assert!(rig.short().is_none());
//! # Ok::<(), sinew_props::PropsError>(())
//! ```
#![warn(missing_docs)]

mod config;
mod error;
mod module;
mod prop;
mod prop_gltf;
mod rig;
mod solve;

pub use config::{AnchorConfig, KindConfig, LimbConfig, PropsConfig};
pub use error::PropsError;
pub use module::PropsModule;
pub use prop::{Prop, PropBuilder, PropNode};
pub use prop_gltf::MAX_PROP_NODES;
pub use rig::{HandedLimb, PropSlot, PropsRig};
pub use solve::{anchor, reach, rotation_of};

/// The crate's main names in one import.
pub mod prelude {
    pub use crate::{HandedLimb, Prop, PropSlot, PropsConfig, PropsError, PropsModule, PropsRig};
}
