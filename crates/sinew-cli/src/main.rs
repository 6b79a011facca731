//! `sinew`: the command-line face of the library.
//!
//! * `sinew demo` — animates the built-in procedural humanoid and writes a contact sheet PNG.
//!
//! Errors are one line naming what is wrong; exit code 2 for bad input, 1 for internal failures.

mod commands;
mod error;
mod render;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::error::CliError;

/// Skeleton dynamics from the command line.
#[derive(Parser, Debug)]
#[command(
    name = "sinew",
    version,
    about = "Skeleton dynamics: pose, IK, constraints and pictures"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Animate the built-in procedural humanoid and write a contact sheet picture.
    Demo(commands::demo::DemoArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: Result<(), CliError> = match cli.command {
        Command::Demo(args) => commands::demo::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sinew: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
