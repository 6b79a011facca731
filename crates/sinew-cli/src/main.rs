//! `sinew`: the command-line face of the library.
//!
//! * `sinew demo` — animates the built-in procedural humanoid and writes a contact sheet PNG.
//! * `sinew inspect FILE` — summary of a PMX/PMD/VMD file.
//! * `sinew pose MODEL … --json OUT` — world transforms in the conformance schema (MMD frames,
//!   optionally with physics; glTF clip times).
//! * `sinew render MODEL … --out F.gif|png` — pictures of any PMX/PMD/glTF model.
//! * `sinew skin MODEL … --json OUT` — skinned, morphed vertices in the oracle's schema.
//! * `sinew bench` — the library's standard workloads, timed.
//! * `sinew bake MODEL … --out F.glb` — evaluated animation baked into a `.glb`.
//!
//! Errors are one line naming what is wrong; exit code 2 for bad input, 1 for internal failures.
//! Inputs are read only from regular files (at most 1 GiB); `pose`, `render` and `bake` are
//! bounded in frames and memory (`--max-frames`, `--max-memory-mb`, see [`limits`]) and open
//! their output before the work.

mod commands;
mod error;
mod limits;
mod render;
mod scene;
mod skinning;
mod source;

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
    /// Print a readable summary of a PMX, PMD or VMD file.
    Inspect(commands::inspect::InspectArgs),
    /// Evaluate a model at frames and write world transforms as conformance JSON.
    Pose(commands::pose::PoseArgs),
    /// Draw any PMX/PMD/glTF model (skeleton, bodies) as a GIF or a PNG contact sheet.
    Render(commands::render::RenderArgs),
    /// Time the library's standard workloads.
    Bench(commands::bench::BenchArgs),
    /// Skin a model's mesh at frames and write the vertices as JSON (three.js oracle schema).
    Skin(commands::skin::SkinArgs),
    /// Bake an evaluated animation (motion, clip, physics) into a .glb.
    Bake(commands::bake::BakeArgs),
}

/// Restores the default action for SIGPIPE, so `sinew … | head` ends quietly like other command-line
/// tools instead of panicking on the closed pipe (Rust ignores SIGPIPE by default).
#[cfg(unix)]
fn default_sigpipe() {
    extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    const SIGPIPE: i32 = 13;
    const SIG_DFL: usize = 0;
    // SAFETY: `signal` is the C library's; installing the default disposition for SIGPIPE at
    // start-up, before any thread exists, has no preconditions.
    unsafe {
        signal(SIGPIPE, SIG_DFL);
    }
}

#[cfg(not(unix))]
fn default_sigpipe() {}

fn main() -> ExitCode {
    default_sigpipe();
    let cli = Cli::parse();
    let result: Result<(), CliError> = match cli.command {
        Command::Demo(args) => commands::demo::run(&args),
        Command::Inspect(args) => commands::inspect::run(&args),
        Command::Pose(args) => commands::pose::run(&args),
        Command::Render(args) => commands::render::run(&args),
        Command::Bench(args) => commands::bench::run(&args),
        Command::Bake(args) => commands::bake::run(&args),
        Command::Skin(args) => commands::skin::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sinew: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
