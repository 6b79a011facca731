//! `sinew render MODEL …`: pictures of any PMX/PMD/glTF model. A model with a mesh is drawn as
//! its skinned, morphed mesh (software rasterizer: depth buffer, textures, lighting, MMD
//! edges); the skeleton and the rigid bodies are overlays (`--overlay bones,bodies`), drawn by
//! default only for models without a mesh. The orthographic camera holds the model over every
//! rendered frame; views `front`, `side`, `three-quarter` (`--views`). `.gif` writes the
//! animation (frames drawn in parallel), `.png` a contact sheet of up to 8 frames spread over
//! the range; `.mp4` / `.webm` a video with the song muxed in (`--audio`, see
//! [`super::video`]). MMD models are shown mirrored into a right-handed space (z → −z) so they
//! face the front view.

use std::path::{Path, PathBuf};

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use crate::commands::inspect::bad_input;
use crate::error::CliError;
use crate::limits::{Output, WorkLimits};
use crate::picture::Painter;
use crate::render::{self, Cell, Layout, MeshPainter, View};
use crate::source::SourceArgs;
use crate::source::{Animator, Posed};

/// Pictures held at once while a GIF is drawn (the film's chunk), for the memory bound.
const CHUNK_PICTURES: u64 = 32;

/// Arguments of `sinew render`.
#[derive(Args, Debug)]
pub struct RenderArgs {
    /// What is played.
    #[command(flatten)]
    pub source: SourceArgs,
    /// Frame range `A..B` (end exclusive) or `A..=B` at `--fps`; default: the whole motion or
    /// clip, at most 10 s.
    #[arg(long)]
    pub frames: Option<String>,
    /// Frames per second (1..=120).
    #[arg(long, default_value_t = 30.0)]
    pub fps: f32,
    /// Size of one view in pixels: `N` (square) or `WIDTHxHEIGHT`, each side 64..=4096
    /// (default 256; videos 1280x720).
    #[arg(long = "size", alias = "cell")]
    pub size: Option<String>,
    /// Views, comma-separated: front, side, three-quarter (default: front and side; videos:
    /// front).
    #[arg(long, value_delimiter = ',')]
    pub views: Vec<String>,
    /// A song (WAV) muxed into a video from its first frame (padded with silence or cut to the
    /// picture's length).
    #[arg(long)]
    pub audio: Option<PathBuf>,
    /// Overlays, comma-separated: bones, bodies, none (default: bones and bodies for a model
    /// without a mesh, none otherwise).
    #[arg(long, value_delimiter = ',')]
    pub overlay: Vec<String>,
    /// Draw the skeleton only, not the mesh.
    #[arg(long)]
    pub no_mesh: bool,
    /// Leave out MMD edges (outlines).
    #[arg(long)]
    pub no_outlines: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Output: `.mp4` (H.264 + AAC) or `.webm` (VP9 + Opus) video through ffmpeg, `.gif`
    /// (animation) or `.png` (contact sheet).
    #[arg(long)]
    pub out: PathBuf,
    /// Work bounds.
    #[command(flatten)]
    pub limits: WorkLimits,
}

/// Most frames one render evaluates.
const MAX_FRAMES: u32 = 3600;
/// Frames on a contact sheet.
const SHEET_FRAMES: usize = 8;

/// Parses `A..B` / `A..=B` into a half-open range of at most [`MAX_FRAMES`] frames.
pub fn parse_range(text: &str) -> Result<(u32, u32), CliError> {
    parse_range_within(text, MAX_FRAMES)
}

/// Parses `A..B` / `A..=B` into a half-open range of at most `max` frames.
pub fn parse_range_within(text: &str, max: u32) -> Result<(u32, u32), CliError> {
    let bad = || {
        bad_input(
            Path::new("--frames"),
            format!("expected A..B or A..=B with whole numbers, got \"{text}\""),
        )
    };
    let (a, b, inclusive) = if let Some((a, b)) = text.split_once("..=") {
        (a, b, true)
    } else if let Some((a, b)) = text.split_once("..") {
        (a, b, false)
    } else {
        return Err(bad());
    };
    let a: u32 = a.trim().parse().map_err(|_| bad())?;
    let b: u32 = b.trim().parse().map_err(|_| bad())?;
    let end = if inclusive { b.saturating_add(1) } else { b };
    if end <= a {
        return Err(bad_input(
            Path::new("--frames"),
            format!("the range \"{text}\" is empty"),
        ));
    }
    if end - a > max {
        return Err(bad_input(
            Path::new("--frames"),
            format!("the range \"{text}\" holds more than {max} frames"),
        ));
    }
    Ok((a, end))
}

/// The frame range to evaluate: the given one, or the whole motion (at most 10 s).
pub fn frame_range(frames: Option<&str>, anim: &Animator) -> Result<(u32, u32), CliError> {
    match frames {
        Some(t) => parse_range(t),
        None => {
            let n = (anim.duration * anim.fps()).floor() as u32 + 1;
            Ok((0, n.min((10.0 * anim.fps()) as u32).max(1)))
        }
    }
}

/// What `--out` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OutKind {
    Gif,
    Sheet,
    Video,
}

/// Parses `--size`: `N` or `WxH`, each side 64..=4096.
pub fn parse_size(text: &str) -> Result<(u32, u32), CliError> {
    let bad = |why: &str| bad_input(Path::new("--size"), format!("{why}, got \"{text}\""));
    let side = |t: &str| -> Result<u32, CliError> {
        let v: u32 = t
            .trim()
            .parse()
            .map_err(|_| bad("expected N or WIDTHxHEIGHT in pixels"))?;
        if (64..=4096).contains(&v) {
            Ok(v)
        } else {
            Err(bad("each side must be 64..=4096 pixels"))
        }
    };
    match text.split_once(['x', 'X']) {
        Some((w, h)) => Ok((side(w)?, side(h)?)),
        None => side(text).map(|n| (n, n)),
    }
}

/// Parses `--views` (empty: `default`).
fn parse_views(names: &[String], default: &[View]) -> Result<Vec<View>, CliError> {
    if names.is_empty() {
        return Ok(default.to_vec());
    }
    let views = names
        .iter()
        .map(|v| {
            View::parse(v).ok_or_else(|| {
                bad_input(
                    Path::new("--views"),
                    format!("unknown view \"{v}\" (front, side, three-quarter)"),
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if views.len() > 3 {
        return Err(bad_input(Path::new("--views"), "give one to three views"));
    }
    Ok(views)
}

/// Runs the command.
pub fn run(args: &RenderArgs) -> Result<(), CliError> {
    let ext = args
        .out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let kind = match ext.as_deref() {
        Some("gif") => OutKind::Gif,
        Some("png") => OutKind::Sheet,
        Some("mp4" | "webm") => OutKind::Video,
        _ => return Err(bad_input(
            &args.out,
            "output must end in .mp4 or .webm (video), .gif (animation) or .png (contact sheet)",
        )),
    };
    let gif = kind == OutKind::Gif;
    let (cell_w, cell_h) = match &args.size {
        Some(t) => parse_size(t)?,
        None if kind == OutKind::Video => (1280, 720),
        None => (256, 256),
    };
    if kind != OutKind::Video && args.audio.is_some() {
        return Err(bad_input(
            Path::new("--audio"),
            "is for videos (--out ….mp4 or ….webm)",
        ));
    }
    if !(args.fps.is_finite() && (1.0..=120.0).contains(&args.fps)) {
        return Err(bad_input(
            Path::new("--fps"),
            format!("must be within 1..=120, got {:?}", args.fps),
        ));
    }
    let views = if kind == OutKind::Video {
        parse_views(&args.views, &[View::Front])?
    } else {
        parse_views(&args.views, &[View::Front, View::Side])?
    };
    if kind == OutKind::Video {
        return crate::commands::video::run(args, views, (cell_w, cell_h));
    }
    let output = Output::create(&args.out)?;
    let spec = args.source.spec(args.fps);
    let mut anim = Animator::new(&spec)?;
    let (a, b) = frame_range(args.frames.as_deref(), &anim)?;
    // With physics every frame from 0 is simulated.
    let evaluated = if args.source.physics { b } else { b - a };
    args.limits.frames(u64::from(evaluated), "--frames")?;
    let wanted: Vec<u32> = if gif {
        (a..b).collect()
    } else {
        render::picks((b - a) as usize, SHEET_FRAMES)
            .into_iter()
            .map(|k| a + k as u32)
            .collect()
    };
    args.limits.memory(
        wanted.len() as u64 * anim.bone_count as u64 * 48
            + u64::from(cell_w) * u64::from(cell_h) * 8 * views.len() as u64 * (CHUNK_PICTURES + 1),
        "--frames",
    )?;
    let painter = Painter::new(
        anim.model(),
        &args.source.model,
        args.no_mesh,
        args.no_outlines,
        &args.overlay,
    )?;
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(wanted.len() as u64 * 2)
    };
    bar.set_style(
        ProgressStyle::with_template("{msg:>10} [{bar:30}] {pos}/{len}")
            .map_err(|e| CliError::Internal(e.to_string()))?,
    );
    bar.set_message("evaluate");
    let mut frames = Vec::with_capacity(wanted.len());
    for (k, &i) in wanted.iter().enumerate() {
        frames.push((k, anim.frame(i)?));
        bar.inc(1);
    }
    // A GIF frames the frames it holds; a sheet frames its whole range, as a video of the
    // range does.
    let bounds = if gif {
        painter.frame_bounds(frames.iter().map(|(k, f)| (*k, f)))?
    } else {
        crate::commands::video::framing(&spec, &painter, a, b, || {})?
    };
    let layout = Layout {
        views,
        cell: (cell_w, cell_h),
        mirror_z: anim.model().kind() == sinew_character::ModelKind::Mmd,
    };
    let init = || painter.worker();
    let draw_frame = |p: &mut Option<MeshPainter>, cell: &mut Cell<'_>, f: &(usize, Posed)| {
        painter.draw(p, cell, f.0, &f.1)
    };
    bar.set_message("draw");
    if gif {
        render::write_gif(
            &args.out,
            &frames,
            &bounds,
            &layout,
            args.fps,
            init,
            draw_frame,
            || bar.inc(1),
        )?;
    } else {
        let picks: Vec<usize> = (0..frames.len()).collect();
        render::write_sheet(
            &args.out, &frames, &picks, &bounds, &layout, init, draw_frame,
        )?;
    }
    bar.finish_and_clear();
    output.keep();
    println!("{}", anim.description);
    println!(
        "wrote {} ({} frame{} of {a}..{b} at {} fps{}{})",
        args.out.display(),
        frames.len(),
        if frames.len() == 1 { "" } else { "s" },
        args.fps,
        if args.source.physics {
            ", physics on"
        } else {
            ""
        },
        if painter.has_mesh() { ", mesh" } else { "" }
    );
    Ok(())
}
