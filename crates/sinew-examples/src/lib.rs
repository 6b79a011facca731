//! # sinew-examples — runnable, commented examples of the sinew crates
//!
//! Not published. Each file under `examples/` is a short program (`cargo run -p sinew-examples
//! --example <name>`), compiled by `cargo test` and `cargo build --examples`:
//!
//! | example | shows |
//! |---|---|
//! | `readme` | the README's snippet: miku_v2 dancing with physics, one skinned vertex (run from the workspace root) |
//! | `character` | a model (miku_v2, or any `.pmx`/`.pmd`/`.glb` given) playing its motion with physics through one `Character`: a skinned vertex, world and skin matrices |
//! | `gltf_ik_targets` | a glTF skeleton with a two-bone chain added, an IK target, residuals |
//! | `custom_reader` | a `SkeletonDynamicsReader` for a home-made text format |
//! | `props_and_limbs` | the humanoid holding the demo rifle (loaded from a `.gltf` scene), one line per limb |
//! | `physics_on_off` | one second of the humanoid with and without the ragdoll |
//! | `custom_host` | a host's own pose storage implementing `PoseAccess`, driving `IkDriver` |
//! | `host_physics` | a host running the frame's stages itself with its own physics (a Verlet rope for the ponytail) between `evaluate_before_physics` and `evaluate_after_physics` |
//! | `soa_crowd_pipeline` | `SoaPose`: a few characters sampled, cross-faded and evaluated per frame; same bits as the `[Transform]` path |
//! | `character_bytes` | bytes per MMD character (staged, bone by bone, with physics, skinned) |
//! | `frames_to_array` | frames evaluated into one flat `[frames, bones, 4, 4]` array, timed (the Rust side of the Python overhead measurement) |
//! | `instance_goals` | goals on a walking humanoid's arms: two recoils adding up, a reach and a look-at resolved by the default and the strict-priority arbiter, residuals |
//!
//! Examples that need the shared assets look in `<CARGO_MANIFEST_DIR>/../../../shared/assets`
//! (or `$SINEW_ASSETS`) and print a skip message when they are absent; [`assets_dir`] finds it.
#![warn(missing_docs)]

pub use sinew_testkit::{asset, assets_dir};
