//! `sinew`: the command-line face of the library.
//!
//! * `sinew demo` — animates the built-in procedural humanoid and writes a contact sheet PNG.
//! * `sinew inspect FILE` — summary of a PMX/PMD/VMD file.
//! * `sinew pose MODEL … --json OUT` — world transforms in the conformance schema (MMD frames,
//!   optionally with physics; glTF clip times).
//! * `sinew render MODEL … --out F.mp4|webm|gif|png` — videos and pictures of any PMX/PMD/glTF
//!   model.
//! * `sinew view MODEL …` — the model played in a window in real time.
//! * `sinew skin MODEL … --json OUT` — skinned, morphed vertices in the oracle's schema.
//! * `sinew bench` — the library's standard workloads, timed.
//! * `sinew crowd MODEL --motion M --count N [--physics]` — many dancers at once, timed.
//! * `sinew bake MODEL … --out F.glb` — evaluated animation baked into a `.glb`.
//! * `sinew camera CAMERA.vmd … --json OUT` — a VMD camera per frame (eye, axes, view matrix)
//!   in the schema of `../shared/conformance/camera`.
//!
//! Errors are one line naming what is wrong; exit code 2 for bad input, 1 for internal failures.
//! Inputs are read only from regular files (at most 1 GiB); `pose`, `render` and `bake` are
//! bounded in frames and memory (`--max-frames`, `--max-memory-mb`, see [`limits`]) and open
//! their output before the work.

mod commands;
mod error;
mod limits;
mod picture;
mod render;
mod scene;
mod signals;
mod skinning;
mod source;
mod viewer;

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
    /// Play many characters of one model at once and time the frames (a stadium of dancers).
    Crowd(commands::crowd::CrowdArgs),
    /// Play a model in a window in real time (keys: space, left/right, home, P, B, R, F).
    View(commands::view::ViewArgs),
    /// Skin a model's mesh at frames and write the vertices as JSON (three.js oracle schema).
    Skin(commands::skin::SkinArgs),
    /// Bake an evaluated animation (motion, clip, physics) into a .glb.
    Bake(commands::bake::BakeArgs),
    /// Play a VMD camera and write it per frame as JSON (eye, axes, view matrix; cuts).
    Camera(commands::camera::CameraArgs),
}

fn main() -> ExitCode {
    signals::default_sigpipe();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return argument_error(&e),
    };
    let result: Result<(), CliError> = match cli.command {
        Command::Demo(args) => commands::demo::run(&args),
        Command::Inspect(args) => commands::inspect::run(&args),
        Command::Pose(args) => commands::pose::run(&args),
        Command::Render(args) => commands::render::run(&args),
        Command::Bench(args) => commands::bench::run(&args),
        Command::Crowd(args) => commands::crowd::run(&args),
        Command::Bake(args) => commands::bake::run(&args),
        Command::Skin(args) => commands::skin::run(&args),
        Command::View(args) => commands::view::run(&args),
        Command::Camera(args) => commands::camera::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sinew: {}", sinew_character::one_line(&e.to_string()));
            ExitCode::from(e.exit_code())
        }
    }
}

/// Help and version print as clap prints them (exit 0); a bad argument is one line, as every
/// other refusal is (exit 2).
fn argument_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    // clap's message is its first paragraph ("error: …", perhaps with the arguments it lists
    // on the lines below); usage and tips follow a blank line.
    let text = e.render().to_string();
    let message: Vec<&str> = text
        .lines()
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty())
        .collect();
    let message = message.join(" ");
    let message = message.strip_prefix("error: ").unwrap_or(&message);
    eprintln!(
        "sinew: {} (see sinew --help)",
        sinew_character::one_line(message)
    );
    ExitCode::from(2)
}
