//! `sinew view`: a desktop window that plays a character in real time, drawn by the software
//! rasterizer on every core — winit for the window and input, softbuffer for the pixels,
//! rodio for the song. No GPU is needed.
//!
//! ```text
//!  event loop (main thread)                       drawing pool (one thread a core)
//!  clock ─▶ Animator::at(t) ─▶ Job ──────────────▶ skin, raster, overlays, text ─┐
//!  window ◀── newest Picture ◀────────────────────────────────────────────────────┘
//! ```
//!
//! The clock is real time: a frame that cannot be drawn in time is skipped, the motion never
//! slows. With physics, frames are simulated in order at the clock's steps (at most 1/60 s);
//! a jump back (a step back, home, the loop at the end) restarts the simulation there.

mod app;
mod audio;
mod drawing;
mod orbit;
mod playback;
mod text;

use std::sync::Arc;

use winit::event_loop::EventLoop;

use crate::commands::inspect::bad_input;
use crate::error::CliError;
use crate::picture::Painter;
use crate::source::{AnimSpec, Animator};

/// What `sinew view` opens.
pub struct ViewSpec {
    /// The model and what moves it (`fps`: the simulation's step rate).
    pub anim: AnimSpec,
    /// A WAV song.
    pub audio: Option<std::path::PathBuf>,
    /// Initial window size.
    pub size: (u32, u32),
    /// `--overlay`.
    pub overlay: Vec<String>,
    /// Drawing threads (0: one a core).
    pub threads: usize,
    /// Close the window after this many seconds.
    pub exit_after: Option<f64>,
}

/// Frames sampled over the motion to frame the camera.
const FRAMING_SAMPLES: u32 = 240;

/// Opens the window and plays until it is closed.
pub fn run(spec: &ViewSpec) -> Result<(), CliError> {
    let anim = Animator::new(&spec.anim)?;
    let painter = Painter::new(anim.model(), &spec.anim.model, false, false, &spec.overlay)?;
    // The camera frames the whole motion (sampled, physics off): a sphere around it.
    let mut probe = Animator::new(&AnimSpec {
        physics: false,
        ..spec.anim.clone()
    })?;
    let duration = probe.duration;
    let mut worker = painter.worker();
    let mut bounds = crate::render::Bounds::EMPTY;
    for k in 0..=FRAMING_SAMPLES {
        let t = duration * k as f32 / FRAMING_SAMPLES as f32;
        let posed = probe.at(t)?;
        painter.include(&mut worker, &mut bounds, k as usize, &posed)?;
        if duration <= 0.0 {
            break;
        }
    }
    drop((probe, worker));
    let bounds = crate::picture::framed(bounds);
    let center = (bounds.min + bounds.max) * 0.5;
    let radius = (bounds.max - bounds.min).max_element() * 0.5;
    let song = match &spec.audio {
        Some(p) => {
            crate::render::check_wav(p)?;
            audio::Song::open(p)?
        }
        None => None,
    };
    let unset = |v: &str| std::env::var_os(v).is_none_or(|s| s.is_empty());
    if unset("DISPLAY") && unset("WAYLAND_DISPLAY") && unset("WAYLAND_SOCKET") {
        return Err(bad_input(
            std::path::Path::new("DISPLAY"),
            "not set, nor WAYLAND_DISPLAY: the viewer needs a window system (run it on a desktop, or under Xvfb)",
        ));
    }
    let event_loop = EventLoop::<app::Event>::with_user_event()
        .build()
        .map_err(|e| {
            // winit prefixes its source location ("os error at …: "): the reason is the rest.
            let text = e.to_string();
            let reason = match text.rsplit_once(": ") {
                Some((_, r)) if text.starts_with("os error at") => r.to_owned(),
                _ => text.clone(),
            };
            let display = std::env::var("DISPLAY").unwrap_or_default();
            bad_input(
                std::path::Path::new("DISPLAY"),
                format!("{reason} ({display:?}): the viewer needs a window system"),
            )
        })?;
    let threads = if spec.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        spec.threads
    };
    let name = spec
        .anim
        .model
        .file_name()
        .map_or_else(|| "model".to_owned(), |n| n.to_string_lossy().into_owned());
    let mirror_z = anim.model().kind() == sinew_character::ModelKind::Mmd;
    let viewer = app::Viewer {
        anim,
        painter: Arc::new(painter),
        mirror_z,
        orbit: orbit::Orbit::new(center, radius),
        song,
        size: spec.size,
        name,
        model_path: spec.anim.model.clone(),
        dynamic: spec.anim.dynamic.clone(),
        threads,
    };
    let mut app = app::App::new(viewer, event_loop.create_proxy());
    app.exit_after(spec.exit_after.map(std::time::Duration::from_secs_f64));
    event_loop
        .run_app(&mut app)
        .map_err(|e| CliError::Internal(format!("window: {e}")))?;
    if let Some(e) = app.error.take() {
        return Err(e);
    }
    println!("sinew view: {}", app.stats.report(threads));
    Ok(())
}
