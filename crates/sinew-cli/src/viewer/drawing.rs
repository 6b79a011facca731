//! Frames drawn on every core: a pool of threads, each with its own deformed meshes and frame
//! buffer, takes evaluated frames and hands back finished window pictures (`0RGB` pixels with
//! the text drawn over them), which the window shows newest-first.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use crate::error::CliError;
use crate::picture::{Overlay, Painter};
use crate::render::{Sheet, Style};
use crate::source::Posed;

use super::orbit::Orbit;
use super::text;

/// Text colour.
const TEXT: u32 = 0x00ff_ffff;

/// One frame to draw.
pub struct Job {
    /// Order of submission: a later picture replaces an earlier one.
    pub seq: u64,
    /// The frame counter shown with it.
    pub frame: u64,
    /// The evaluated frame.
    pub posed: Posed,
    /// The camera.
    pub orbit: Orbit,
    /// Window size in pixels.
    pub size: (u32, u32),
    /// Overlays to draw.
    pub overlay: Overlay,
    /// Lines of status text for the top left.
    pub status: Vec<String>,
    /// Help items for the bottom lines.
    pub help: &'static [&'static str],
}

/// One drawn frame.
pub struct Picture {
    /// The job's `seq`.
    pub seq: u64,
    /// The job's `frame`.
    pub frame: u64,
    /// Size in pixels.
    pub size: (u32, u32),
    /// `0RGB` pixels, row by row.
    pub pixels: Vec<u32>,
    /// Milliseconds the drawing took.
    pub draw_ms: f64,
}

/// The drawing threads.
pub struct Pool {
    jobs: Option<Sender<Job>>,
    threads: Vec<JoinHandle<()>>,
}

impl Pool {
    /// `count` threads drawing with `painter` (MMD models mirrored when `mirror_z`), handing
    /// each picture (or the error that stopped it) to `deliver`.
    pub fn new(
        count: usize,
        painter: Arc<Painter>,
        mirror_z: bool,
        deliver: impl Fn(Result<Picture, CliError>) + Send + Clone + 'static,
    ) -> Self {
        let (tx, rx) = channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let threads = (0..count.max(1))
            .map(|k| {
                let rx: Arc<Mutex<Receiver<Job>>> = Arc::clone(&rx);
                let painter = Arc::clone(&painter);
                let deliver = deliver.clone();
                std::thread::Builder::new()
                    .name(format!("sinew-draw-{k}"))
                    .spawn(move || {
                        let mut worker = painter.worker();
                        loop {
                            let job = match rx.lock().map(|r| r.recv()) {
                                Ok(Ok(job)) => job,
                                _ => return, // the window closed
                            };
                            deliver(draw(&painter, &mut worker, mirror_z, job));
                        }
                    })
                    .expect("spawn a drawing thread")
            })
            .collect();
        Self {
            jobs: Some(tx),
            threads,
        }
    }

    /// Threads in the pool.
    pub fn len(&self) -> usize {
        self.threads.len()
    }

    /// Queues a frame.
    pub fn submit(&self, job: Job) {
        if let Some(tx) = &self.jobs {
            let _ = tx.send(job);
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        drop(self.jobs.take());
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Draws one job into window pixels.
fn draw(
    painter: &Painter,
    worker: &mut Option<crate::render::MeshPainter>,
    mirror_z: bool,
    job: Job,
) -> Result<Picture, CliError> {
    let started = Instant::now();
    let (w, h) = job.size;
    let mut sheet = Sheet::new(1, 1, w, h, Style::default())?;
    {
        let mut cell = sheet.cell_around(
            0,
            job.orbit.view(),
            job.orbit.center,
            job.orbit.shown_radius(),
            mirror_z,
        );
        painter.draw_with(worker, &mut cell, job.seq as usize, &job.posed, job.overlay)?;
    }
    let pixmap = sheet.into_pixmap();
    let mut pixels: Vec<u32> = pixmap
        .data()
        .chunks_exact(4)
        .map(|p| (u32::from(p[0]) << 16) | (u32::from(p[1]) << 8) | u32::from(p[2]))
        .collect();
    // Status at the top left, help along the bottom.
    let big = if w >= 640 { 2 } else { 1 };
    let line = text::line_height(big);
    for (i, s) in job.status.iter().enumerate() {
        let y = 4 + i as u32 * line;
        text::shade(
            &mut pixels,
            w,
            h,
            (0, y.saturating_sub(2), text::width(s, big) + 12, line),
        );
        text::draw(&mut pixels, w, h, (6, y), s, big, TEXT);
    }
    let help = text::wrap(job.help, "  |  ", w.saturating_sub(12), 1);
    let small = text::line_height(1);
    let top = h.saturating_sub(help.len() as u32 * small + 6);
    text::shade(
        &mut pixels,
        w,
        h,
        (0, top.saturating_sub(3), w, h - top.saturating_sub(3)),
    );
    for (i, l) in help.iter().enumerate() {
        text::draw(&mut pixels, w, h, (6, top + i as u32 * small), l, 1, TEXT);
    }
    Ok(Picture {
        seq: job.seq,
        frame: job.frame,
        size: job.size,
        pixels,
        draw_ms: started.elapsed().as_secs_f64() * 1e3,
    })
}
