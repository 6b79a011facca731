//! `sinew bake MODEL …`: evaluates a model over time (motion or clip, `--pose` targets,
//! `--physics`) and writes the result as a `.glb` through the library's baker
//! ([`sinew_character::bake_glb`]: glTF models get the frames as a new animation of their own
//! document, MMD models a new glTF with their mesh, skin, morphs and the dance, in metres).

use std::path::{Path, PathBuf};

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use crate::commands::inspect::bad_input;
use crate::error::CliError;
use crate::limits::{Output, WorkLimits};
use crate::source::SourceArgs;
use crate::source::{character_error, Animator};

/// Arguments of `sinew bake`.
#[derive(Args, Debug)]
pub struct BakeArgs {
    /// What is played.
    #[command(flatten)]
    pub source: SourceArgs,
    /// Frames per second of the baked animation (1..=120).
    #[arg(long, default_value_t = 30.0)]
    pub fps: f32,
    /// Length in seconds (default: the motion or clip, at most 60 s; 1 s for a static model).
    #[arg(long)]
    pub seconds: Option<f32>,
    /// The `.glb` to write.
    #[arg(long)]
    pub out: PathBuf,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Work bounds.
    #[command(flatten)]
    pub limits: WorkLimits,
}

/// Runs the command.
pub fn run(args: &BakeArgs) -> Result<(), CliError> {
    if !(args.fps.is_finite() && (1.0..=120.0).contains(&args.fps)) {
        return Err(bad_input(
            Path::new("--fps"),
            format!("must be within 1..=120, got {:?}", args.fps),
        ));
    }
    if let Some(s) = args.seconds {
        if !(s.is_finite() && s > 0.0 && s <= 600.0) {
            return Err(bad_input(
                Path::new("--seconds"),
                format!("must be within 0..=600 (exclusive of 0), got {s:?}"),
            ));
        }
    }
    let output = Output::create(&args.out)?;
    let mut anim = Animator::new(&args.source.spec(args.fps))?;
    let seconds = args.seconds.unwrap_or(if anim.duration > 0.0 {
        anim.duration.min(60.0)
    } else {
        1.0
    });
    let count = ((seconds * args.fps).round() as u32).max(1) + 1;
    args.limits.frames(u64::from(count), "--seconds")?;
    // Frames held and the baked channels (3 × 48 bytes a bone a frame), plus the document's
    // nodes, accessors and channels (measured about 24 KiB a bone).
    args.limits.memory(
        anim.bone_count as u64 * (24 * 1024 + u64::from(count) * 48 * 3),
        "--seconds",
    )?;
    if let (None, true) = (args.seconds, anim.duration > 60.0) {
        eprintln!(
            "sinew: note: the motion lasts {:.1} s; baked its first 60 s (--seconds sets the length)",
            anim.duration
        );
    }
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(u64::from(count))
    };
    bar.set_style(
        ProgressStyle::with_template("{msg:>10} [{bar:30}] {pos}/{len}")
            .map_err(|e| CliError::Internal(e.to_string()))?,
    );
    bar.set_message("evaluate");
    let (bytes, warnings) = anim
        .character_mut()
        .bake(args.fps, count, |k| bar.set_position(u64::from(k)))
        .map_err(|e| character_error(e, &args.source.model))?;
    bar.finish_and_clear();
    for w in warnings {
        eprintln!("sinew: warning: {}: {w}", args.source.model.display());
    }
    std::fs::write(&args.out, &bytes).map_err(|e| output.error(e))?;
    output.keep();
    println!("{}", anim.description);
    println!(
        "wrote {} ({} bytes, {} bones, {count} frames at {} fps{})",
        args.out.display(),
        bytes.len(),
        anim.bone_count,
        args.fps,
        if args.source.physics {
            ", physics on"
        } else {
            ""
        }
    );
    Ok(())
}
