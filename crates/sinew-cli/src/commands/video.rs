//! `sinew render … --out dance.mp4`: a video of the whole motion (or `--frames A..B`) at
//! `--fps`, `--size` per view (default 1280x720, one front view), the song of `--audio`
//! muxed in from the first frame's time. Encoded by the `ffmpeg` on the PATH (a one-line error
//! says how to install it when there is none).
//!
//! Streamed: a first pass evaluates every frame (the skeleton, bodies and a sample of deformed
//! meshes) to frame the camera, the second evaluates again in order and draws chunks of
//! frames in parallel, handing each chunk to the encoder in order before the next is drawn,
//! so memory is a chunk of pictures whatever the length (physics is deterministic: both
//! passes simulate the same frames).

use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};

use crate::commands::inspect::bad_input;
use crate::commands::render::{parse_range_within, RenderArgs};
use crate::error::CliError;
use crate::limits::Output;
use crate::picture::{framed, Painter};
use crate::render::{self, check_wav, Bounds, Cell, Layout, MeshPainter, VideoWriter, View};
use crate::source::{AnimSpec, Animator, Posed};

/// Frames measured for the framing: every this many (and the last).
const SAMPLE_EVERY: u32 = 2;

/// The box a picture of frames `a..b` frames: what [`Painter::include`] grows over every
/// [`SAMPLE_EVERY`]th frame (and the last), evaluated by a fresh animator of `spec` (with
/// physics, from frame 0); `progress` is told each frame evaluated. Videos and contact sheets
/// frame their ranges so (a sheet's picture of a frame is the video's).
pub fn framing(
    spec: &AnimSpec,
    painter: &Painter,
    a: u32,
    b: u32,
    mut progress: impl FnMut(),
) -> Result<Bounds, CliError> {
    let mut anim = Animator::new(spec)?;
    let mut bounds = Bounds::EMPTY;
    let mut worker = painter.worker();
    for i in a..b {
        let posed = anim.frame(i)?;
        if (i - a).is_multiple_of(SAMPLE_EVERY) || i + 1 == b {
            painter.include(&mut worker, &mut bounds, i as usize, &posed)?;
        }
        progress();
    }
    Ok(framed(bounds))
}

/// Renders the video `args.out` asks for.
pub fn run(args: &RenderArgs, views: Vec<View>, cell: (u32, u32)) -> Result<(), CliError> {
    if let Some(a) = &args.audio {
        check_wav(a)?;
    }
    if !render::ffmpeg_available() {
        return Err(bad_input(&args.out, render::FFMPEG_HINT));
    }
    let spec = args.source.spec(args.fps);
    let probe = Animator::new(&spec)?;
    let (a, b) = match args.frames.as_deref() {
        Some(t) => parse_range_within(t, u32::MAX)?,
        None => (0, (probe.duration * args.fps).floor() as u32 + 1),
    };
    // Both passes evaluate the frames (with physics, every frame from 0).
    let evaluated = if args.source.physics { b } else { b - a };
    args.limits.frames(2 * u64::from(evaluated), "--frames")?;
    let layout = Layout {
        views,
        cell,
        mirror_z: probe.model().kind() == sinew_character::ModelKind::Mmd,
    };
    let (width, height) = layout.picture_size();
    if !width.is_multiple_of(2) || !height.is_multiple_of(2) {
        return Err(bad_input(
            std::path::Path::new("--size"),
            format!("a video's width and height are even (4:2:0 chroma), got {width}x{height}"),
        ));
    }
    let picture = u64::from(width) * u64::from(height) * 4;
    args.limits.memory(
        picture * (render::CHUNK as u64 + 1) * 2
            + probe.bone_count as u64 * 48 * render::CHUNK as u64,
        "--size",
    )?;
    let output = Output::create(&args.out)?;
    let painter = Painter::new(
        probe.model(),
        &args.source.model,
        args.no_mesh,
        args.no_outlines,
        &args.overlay,
    )?;
    let count = u64::from(b - a);
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(count)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{msg:>7} [{bar:30}] {pos}/{len} frames, {per_sec}, {elapsed} elapsed, ETA {eta}",
        )
        .map_err(|e| CliError::Internal(e.to_string()))?,
    );

    // Pass 1: the box the camera frames.
    bar.set_message("frame");
    let started = Instant::now();
    drop(probe);
    let bounds = framing(&spec, &painter, a, b, || bar.inc(1))?;

    // Pass 2: evaluate in order, draw a chunk in parallel, encode it in order.
    bar.reset();
    bar.set_message("render");
    let mut anim = Animator::new(&spec)?;
    let offset = a as f32 / args.fps;
    let mut video = VideoWriter::create(
        &args.out,
        width,
        height,
        args.fps,
        args.audio.as_deref().map(|p| (p, offset)),
    )?;
    let init = || painter.worker();
    let draw = |p: &mut Option<MeshPainter>, c: &mut Cell<'_>, f: &(usize, Posed)| {
        painter.draw(p, c, f.0, &f.1)
    };
    let mut chunk: Vec<(usize, Posed)> = Vec::with_capacity(render::CHUNK);
    let mut next = a;
    while next < b {
        chunk.clear();
        while next < b && chunk.len() < render::CHUNK {
            chunk.push((next as usize, anim.frame(next)?));
            next += 1;
        }
        for picture in render::draw_pictures(&chunk, &bounds, &layout, init, draw) {
            video.add(picture?.data())?;
            bar.inc(1);
        }
    }
    let frames = video.finish()?;
    bar.finish_and_clear();
    output.keep();
    let seconds = started.elapsed().as_secs_f64();
    println!("{}", anim.description);
    println!(
        "wrote {} ({frames} frames of {a}..{b}, {width}x{height} at {} fps = {:.2} s{}{}; {:.1} frames/s)",
        args.out.display(),
        args.fps,
        frames as f64 / f64::from(args.fps),
        if args.source.physics { ", physics on" } else { "" },
        match &args.audio {
            Some(p) => format!(", audio {}", p.display()),
            None => String::new(),
        },
        frames as f64 / seconds.max(1e-9)
    );
    Ok(())
}
