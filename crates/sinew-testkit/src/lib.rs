//! What sinew's tests and benches share besides the character (`sinew-humanoid`): finding the
//! shared assets ([`assets`]: `../shared/assets` or `$SINEW_ASSETS`, a clear skip locally, a
//! failure under CI), the IK benchmark workloads ([`ik`]: chains, limits, random reachable
//! targets) that the criterion benches, `sinew bench` and the peer harness all time, and the
//! benches' wrapping clock ([`BenchClock`]), and physics rigs of our own built from a shared
//! model ([`rigs`]) for the Bullet comparison.

pub mod assets;
pub mod clock;
pub mod ik;
pub mod rigs;

pub use assets::{asset, assets_dir, assets_path, tool};
pub use clock::BenchClock;
