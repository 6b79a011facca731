//! One module per subcommand.

pub mod demo;
pub mod inspect;
pub mod pose;
