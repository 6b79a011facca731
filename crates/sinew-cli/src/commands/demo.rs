//! `sinew demo`: the built-in procedural humanoid, animated, drawn to a contact sheet.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use glam::{Affine3A, Vec3};
use sinew::RigState;
use sinew_testkit::Humanoid;

use crate::error::CliError;
use crate::render::{Bounds, Sheet, Style, View};

/// Arguments of `sinew demo`.
#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Where to write the contact sheet (PNG).
    #[arg(long, default_value = "sinew-demo.png")]
    pub out: PathBuf,
    /// How many frames to draw (1..=32).
    #[arg(long, default_value_t = 6)]
    pub frames: u32,
    /// Length of the animation in seconds.
    #[arg(long, default_value_t = 1.0)]
    pub seconds: f32,
    /// Width and height of one view in pixels (64..=1024).
    #[arg(long, default_value_t = 220)]
    pub cell: u32,
}

/// One evaluated frame.
struct Frame {
    time: f32,
    world: Vec<Affine3A>,
    eval_ns: u128,
}

/// Runs the demo.
pub fn run(args: &DemoArgs) -> Result<(), CliError> {
    if !(1..=32).contains(&args.frames) {
        return Err(CliError::Input {
            path: "--frames".into(),
            message: format!("must be 1..=32, got {}", args.frames),
        });
    }
    if !(64..=1024).contains(&args.cell) {
        return Err(CliError::Input {
            path: "--cell".into(),
            message: format!("must be 64..=1024, got {}", args.cell),
        });
    }
    if !(args.seconds.is_finite() && args.seconds > 0.0) {
        return Err(CliError::Input {
            path: "--seconds".into(),
            message: format!("must be a positive number, got {}", args.seconds),
        });
    }
    let humanoid = Humanoid::new();
    let mut state = RigState::new(humanoid.skeleton.clone());
    let mut frames = Vec::with_capacity(args.frames as usize);
    for i in 0..args.frames {
        let time = args.seconds * i as f32 / args.frames as f32;
        let start = Instant::now();
        humanoid.animate(time, state.locals_mut());
        let world = state.compute_world();
        let eval_ns = start.elapsed().as_nanos();
        frames.push(Frame {
            time,
            world: world.to_vec(),
            eval_ns,
        });
    }
    let mut bounds = Bounds::EMPTY;
    for f in &frames {
        for m in &f.world {
            bounds.include(m.translation.into());
        }
    }
    bounds.include(Vec3::ZERO);
    let bounds = bounds.padded(0.05);
    let mut sheet = Sheet::new(args.frames, 2, args.cell, args.cell, Style::default())?;
    let parents = humanoid.skeleton.parent_indices();
    for (i, f) in frames.iter().enumerate() {
        for (row, view) in [View::Front, View::Side].into_iter().enumerate() {
            let mut cell = sheet.cell(row as u32 * args.frames + i as u32, view, &bounds);
            cell.ground(0.0, bounds.min, bounds.max);
            cell.skeleton(parents, &f.world);
        }
    }
    sheet.save_png(&args.out)?;

    println!(
        "sinew demo: procedural humanoid, {} joints",
        humanoid.skeleton.len()
    );
    println!(
        "{:>6} {:>8} {:>12} {:>10}",
        "frame", "time s", "eval ns", "head y m"
    );
    for (i, f) in frames.iter().enumerate() {
        println!(
            "{:>6} {:>8.3} {:>12} {:>10.3}",
            i,
            f.time,
            f.eval_ns,
            f.world[humanoid.bones.head.index()].translation.y
        );
    }
    println!(
        "wrote {} ({}x{} px: front views on top, side views below)",
        args.out.display(),
        args.frames * args.cell,
        2 * args.cell
    );
    Ok(())
}
