//! One module per subcommand.

pub mod bake;
pub mod bench;
pub mod camera;
pub mod crowd;
pub mod demo;
pub mod inspect;
pub mod pose;
pub mod render;
pub mod skin;
pub mod video;
pub mod view;
