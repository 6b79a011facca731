//! `sinew crowd MODEL --motion M [--count N] [--physics]`: a stadium of dancers — N
//! characters of one model, each playing the motion at its own phase (`--phase` frames apart),
//! evaluated frame after frame on every core (rayon over the characters), timed per frame: the
//! median, the spread (10th and 90th percentiles) and the cost per character against one
//! character alone. `--scaling` runs 1, 10, 100 … up to N; `--out grid.png` draws one frame
//! of the crowd as a grid of dancers.
//!
//! The dancers are a library `sinew_character::Crowd` of `Character`s (the MMD frame, IK, append, morphs and, with
//! `--physics`, its own ragdoll): what a game or a concert scene would run per dancer.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use glam::{Vec2, Vec3};
use sinew_character::{CharacterModel, Crowd, Motion};

use crate::commands::inspect::bad_input;
use crate::error::CliError;
use crate::limits::{Output, WorkLimits};
use crate::picture::Painter;
use crate::render::{Bounds, Sheet, Style, View};
use crate::source::{character_error, Posed, MMD_FPS};

/// Arguments of `sinew crowd`.
#[derive(Args, Debug)]
pub struct CrowdArgs {
    /// The model (.pmx, .pmd; a .glb plays its clip 0).
    pub model: PathBuf,
    /// A VMD motion (MMD models).
    #[arg(long)]
    pub motion: Option<PathBuf>,
    /// Dancers.
    #[arg(long, default_value_t = 1000)]
    pub count: usize,
    /// Simulate each dancer's rigid bodies.
    #[arg(long)]
    pub physics: bool,
    /// Frames timed (30 fps), after the warm-up.
    #[arg(long, default_value_t = 90)]
    pub frames: u32,
    /// Frames between two dancers' phases.
    #[arg(long, default_value_t = 37)]
    pub phase: u32,
    /// Time 1, 10, 100, … dancers up to `--count` as well.
    #[arg(long)]
    pub scaling: bool,
    /// Threads (default: one a core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Draw one frame of the crowd (at most 100 dancers, 10 a row) into this PNG.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The grid's view: front, side or three-quarter.
    #[arg(long, default_value = "front")]
    pub view: String,
    /// Work bounds.
    #[command(flatten)]
    pub limits: WorkLimits,
}

/// Frames evaluated before the timing starts (physics settles, caches fill).
const WARM_UP: u32 = 10;
/// Most dancers one run holds.
const MAX_DANCERS: usize = 100_000;

/// `count` dancers, `phase_frames` frames apart, physics on with `physics`.
fn new_crowd(
    model: &Arc<CharacterModel>,
    motion: Option<&Motion>,
    count: usize,
    phase_frames: u32,
    physics: bool,
    model_path: &Path,
) -> Result<Crowd, CliError> {
    let mut crowd = Crowd::new(model, motion, count, phase_frames as f32 / MMD_FPS);
    if physics {
        crowd
            .enable_physics()
            .map_err(|e| bad_input(model_path, format!("--physics: {e}")))?;
    }
    Ok(crowd)
}

/// Evaluates frame `frame` (30 fps) of every dancer: with physics a step of 1/30 s, two
/// 1/60 s sub-steps.
fn play_frame(crowd: &mut Crowd, frame: u32, model_path: &Path) -> Result<(), CliError> {
    crowd
        .update(frame as f32 / MMD_FPS, 1.0 / MMD_FPS)
        .map_err(|e| character_error(e, model_path))
}

/// Frame times of one crowd, milliseconds.
struct Timing {
    count: usize,
    median: f64,
    p10: f64,
    p90: f64,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn time_crowd(
    args: &CrowdArgs,
    model: &Arc<CharacterModel>,
    motion: Option<&Motion>,
    count: usize,
) -> Result<(Timing, Crowd), CliError> {
    let mut crowd = new_crowd(model, motion, count, args.phase, args.physics, &args.model)?;
    for f in 0..WARM_UP {
        play_frame(&mut crowd, f, &args.model)?;
    }
    let mut times = Vec::with_capacity(args.frames as usize);
    for f in WARM_UP..WARM_UP + args.frames {
        let started = Instant::now();
        play_frame(&mut crowd, f, &args.model)?;
        times.push(started.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Ok((
        Timing {
            count,
            median: percentile(&times, 0.5),
            p10: percentile(&times, 0.1),
            p90: percentile(&times, 0.9),
        },
        crowd,
    ))
}

/// Resident memory of this process in bytes (Linux), for the bytes a dancer takes.
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Runs the command.
pub fn run(args: &CrowdArgs) -> Result<(), CliError> {
    if args.count == 0 || args.count > MAX_DANCERS {
        return Err(bad_input(
            Path::new("--count"),
            format!("must be 1..={MAX_DANCERS}, got {}", args.count),
        ));
    }
    if args.frames == 0 {
        return Err(bad_input(Path::new("--frames"), "must be at least 1"));
    }
    args.limits
        .frames(u64::from(args.frames) + u64::from(WARM_UP), "--frames")?;
    // With physics a dancer holds a ragdoll of about 200 KB besides its pose buffers.
    let per_dancer: u64 = if args.physics { 400 << 10 } else { 100 << 10 };
    args.limits
        .memory(per_dancer * args.count as u64, "--count")?;
    let view = View::parse(&args.view).ok_or_else(|| {
        bad_input(
            Path::new("--view"),
            format!(
                "unknown view \"{}\" (front, side, three-quarter)",
                args.view
            ),
        )
    })?;
    let output = args.out.as_deref().map(Output::create).transpose()?;
    let model = CharacterModel::load(&args.model).map_err(|e| character_error(e, &args.model))?;
    let motion = match &args.motion {
        Some(m) => Some(model.load_motion(m).map_err(|e| character_error(e, m))?),
        None => model.clips().first().cloned(),
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .map_err(|e| CliError::Internal(format!("threads: {e}")))?;
    let threads = pool.current_num_threads();
    pool.install(|| -> Result<(), CliError> {
        // One dancer alone, on one thread: the per-character baseline.
        let (alone, _) = time_crowd(args, &model, motion.as_ref(), 1)?;
        let mut counts = vec![args.count];
        if args.scaling {
            counts = std::iter::successors(Some(1usize), |c| Some(c * 10))
                .take_while(|&c| c < args.count)
                .chain([args.count])
                .collect();
        }
        println!(
            "{} dancers of {}{}, {} frames timed at 30 fps after {WARM_UP} of warm-up, {threads} threads",
            args.count,
            model.name(),
            if args.physics { " with physics" } else { "" },
            args.frames
        );
        println!("| dancers | frame median | p10 – p90 | per dancer | per dancer ÷ one alone |");
        println!("|---:|---:|---:|---:|---:|");
        let before = resident_bytes();
        let mut last = None;
        for &count in &counts {
            let (t, crowd) = time_crowd(args, &model, motion.as_ref(), count)?;
            let per = t.median / t.count as f64;
            println!(
                "| {} | {:.2} ms | {:.2} – {:.2} ms | {:.1} µs | {:.2} |",
                t.count,
                t.median,
                t.p10,
                t.p90,
                per * 1e3,
                per / alone.median
            );
            last = Some(crowd);
        }
        let crowd = last.expect("at least one crowd");
        if let (Some(a), Some(b)) = (before, resident_bytes()) {
            println!(
                "resident memory: about {:.0} KB per dancer ({} dancers held)",
                b.saturating_sub(a) as f64 / 1024.0 / crowd.len() as f64,
                crowd.len()
            );
        }
        println!(
            "one dancer alone: {:.1} µs a frame; 30 fps allows {:.1} ms",
            alone.median * 1e3,
            1e3 / MMD_FPS
        );
        if let (Some(out), Some(output)) = (&args.out, output) {
            draw_grid(args, &crowd, out, view)?;
            output.keep();
            println!("wrote {}", out.display());
        }
        Ok(())
    })
}

/// Draws the crowd's last frame: up to 100 dancers, 10 a row, each in `view`, framed around
/// itself at one scale for all, in cells shaped like the dancers seen from there.
fn draw_grid(args: &CrowdArgs, crowd: &Crowd, out: &Path, view: View) -> Result<(), CliError> {
    let model = crowd.dancers()[0].model();
    let painter = Painter::new(model, &args.model, false, false, &[])?;
    let shown = crowd.len().min(100);
    let cols = shown.min(10) as u32;
    let rows = shown.div_ceil(10) as u32;
    let mut worker = painter.worker();
    let posed: Vec<Posed> = (crowd.dancers()[..shown].iter())
        .map(|c| Posed {
            world: c.world().to_vec(),
            bodies: Vec::new(),
            morphs: c.morph_weights().to_vec(),
        })
        .collect();
    // Each dancer is framed around itself (they travel over the stage) at one common scale:
    // a box the size of the largest dancer's, centred on each dancer's own.
    let mut boxes = Vec::with_capacity(shown);
    let mut size = Vec3::ZERO;
    for (k, p) in posed.iter().enumerate() {
        let mut b = Bounds::EMPTY;
        painter.include(&mut worker, &mut b, k, p)?;
        let b = crate::picture::framed(b);
        size = size.max(b.max - b.min);
        boxes.push(b);
    }
    // Cells of about 160 × 240 pixels' area, shaped like the common box seen from `view`.
    let seen = Bounds {
        min: -size * 0.5,
        max: size * 0.5,
    };
    let (lo, hi) = (seen.corners().iter()).fold((Vec2::MAX, Vec2::MIN), |(lo, hi), &c| {
        let p = view.project(c);
        (lo.min(p), hi.max(p))
    });
    let extent = hi - lo;
    let aspect = if extent.y > 0.0 && extent.is_finite() {
        (extent.x / extent.y).clamp(0.4, 2.5)
    } else {
        1.0
    };
    let cell_w = (160.0 * 240.0 * aspect).sqrt().round() as u32;
    let cell_h = (160.0 * 240.0 / cell_w as f32).round() as u32;
    let mut sheet = Sheet::new(cols, rows, cell_w, cell_h, Style::default())?;
    let mirror = model.kind() == sinew_character::ModelKind::Mmd;
    for (k, p) in posed.iter().enumerate() {
        let centre = (boxes[k].min + boxes[k].max) * 0.5;
        let bounds = Bounds {
            min: centre - size * 0.5,
            max: centre + size * 0.5,
        };
        let mut c = sheet.cell_mirrored(k as u32, view, &bounds, mirror);
        painter.draw(&mut worker, &mut c, k, p)?;
    }
    sheet.save_png(out)
}
