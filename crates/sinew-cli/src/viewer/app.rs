//! The window: winit for the window and input, softbuffer for the pixels. The event loop keeps
//! the clock, evaluates the character at the clock's time, hands frames to the drawing pool as
//! threads free up (at most the display rate), and shows the newest picture that comes back.

use std::collections::VecDeque;
use std::num::NonZeroU32;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use winit::application::ApplicationHandler;
use winit::dpi::{PhysicalPosition, PhysicalSize};
use winit::event::{ElementState, KeyEvent, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoopProxy};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

use crate::error::CliError;
use crate::picture::{Overlay, Painter};
use crate::source::Animator;

use super::audio::Song;
use super::drawing::{Job, Picture, Pool};
use super::orbit::Orbit;
use super::playback::Playback;

/// What the drawing threads send the event loop.
pub enum Event {
    /// A finished picture, or why drawing stopped.
    Picture(Result<Picture, CliError>),
}

/// The keys, as the help line lists them.
pub const HELP: &[&str] = &[
    "space play/pause",
    "left/right step a frame",
    "shift: a second",
    "home restart",
    "drag orbit",
    "wheel zoom",
    "P physics",
    "B bones",
    "R bodies",
    "F frame time",
    "esc quit",
];

/// Everything the viewer shows and plays.
pub struct Viewer {
    /// The character.
    pub anim: Animator,
    /// The drawing threads' painter.
    pub painter: Arc<Painter>,
    /// Whether MMD's left-handed space is mirrored for display.
    pub mirror_z: bool,
    /// The camera.
    pub orbit: Orbit,
    /// The song.
    pub song: Option<Song>,
    /// Initial window size.
    pub size: (u32, u32),
    /// Title prefix (the model).
    pub name: String,
    /// Model path (errors name it) and the glTF chains for physics.
    pub model_path: std::path::PathBuf,
    /// `--dynamic`.
    pub dynamic: Vec<String>,
    /// Drawing threads.
    pub threads: usize,
}

/// The running viewer.
pub struct App {
    v: Viewer,
    proxy: EventLoopProxy<Event>,
    window: Option<Rc<Window>>,
    surface: Option<softbuffer::Surface<Rc<Window>, Rc<Window>>>,
    pool: Option<Pool>,
    playback: Playback,
    overlay: Overlay,
    show_times: bool,
    shift: bool,
    drag: Option<PhysicalPosition<f64>>,
    cursor: PhysicalPosition<f64>,
    size: (u32, u32),
    in_flight: usize,
    next_seq: u64,
    shown_seq: u64,
    shown_frame: u64,
    last_submit: Option<Instant>,
    /// Redraw although paused (camera, overlays, a step).
    dirty: bool,
    jumps_seen: u64,
    presented: VecDeque<Instant>,
    draw_ms: f64,
    present_ms: f64,
    evaluate_ms: f64,
    message: Option<(String, Instant)>,
    /// Totals for the report at exit.
    pub stats: Stats,
    /// Close the window after this long (`--exit-after`).
    exit_at: Option<Instant>,
    /// Why the viewer stopped, if it failed.
    pub error: Option<CliError>,
}

/// What the viewer did, reported when it closes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// Pictures shown.
    pub shown: u64,
    /// Pictures drawn but replaced by newer ones before they were shown.
    pub dropped: u64,
    /// Sum of drawing times (ms) of the pictures shown.
    pub draw_ms: f64,
    /// Sum of presenting times (ms).
    pub present_ms: f64,
    /// Sum of evaluation times (ms) of the frames submitted.
    pub evaluate_ms: f64,
    /// Frames submitted.
    pub submitted: u64,
    /// When the first picture was shown.
    pub first: Option<Instant>,
    /// When the last picture was shown.
    pub last: Option<Instant>,
}

impl Stats {
    /// One line: frames shown per second and the mean times.
    pub fn report(&self, threads: usize) -> String {
        let span = match (self.first, self.last) {
            (Some(a), Some(b)) => b.duration_since(a).as_secs_f64(),
            _ => 0.0,
        };
        let shown = self.shown.max(1) as f64;
        format!(
            "shown {} frames in {:.1} s ({:.1} fps), {} dropped; mean draw {:.2} ms on {} threads, present {:.2} ms, evaluate {:.2} ms",
            self.shown,
            span,
            if span > 0.0 { (self.shown.saturating_sub(1)) as f64 / span } else { 0.0 },
            self.dropped,
            self.draw_ms / shown,
            threads,
            self.present_ms / shown,
            self.evaluate_ms / self.submitted.max(1) as f64
        )
    }
}

/// The display rate frames are submitted at, at most.
const TARGET_FPS: f64 = 60.0;

impl App {
    /// The viewer, ready to open its window.
    pub fn new(v: Viewer, proxy: EventLoopProxy<Event>) -> Self {
        let duration = f64::from(v.anim.duration);
        let overlay = v.painter.overlay;
        let size = v.size;
        Self {
            v,
            proxy,
            window: None,
            surface: None,
            pool: None,
            playback: Playback::new(duration),
            overlay,
            show_times: false,
            shift: false,
            drag: None,
            cursor: PhysicalPosition::new(0.0, 0.0),
            size,
            in_flight: 0,
            next_seq: 1,
            shown_seq: 0,
            shown_frame: 0,
            last_submit: None,
            dirty: true,
            jumps_seen: 0,
            presented: VecDeque::new(),
            draw_ms: 0.0,
            present_ms: 0.0,
            evaluate_ms: 0.0,
            message: None,
            stats: Stats::default(),
            exit_at: None,
            error: None,
        }
    }

    /// Closes the window `after` the first picture is shown.
    pub fn exit_after(&mut self, after: Option<Duration>) {
        self.exit_at = after.map(|d| Instant::now() + d);
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, e: CliError) {
        self.error = Some(e);
        event_loop.exit();
    }

    /// Frames shown in the last second.
    fn fps(&self) -> usize {
        self.presented.len()
    }

    fn title(&self) -> String {
        format!(
            "sinew view - {} - frame {} / {} - {} fps - {}{}",
            self.v.name,
            self.shown_frame,
            self.playback.last_frame(),
            self.fps(),
            if self.playback.is_playing() {
                "playing"
            } else {
                "paused"
            },
            if self.v.anim.sequential() {
                " - physics on"
            } else {
                ""
            }
        )
    }

    fn sync_song(&self) {
        if let Some(s) = &self.v.song {
            s.sync(self.playback.time(), self.playback.is_playing());
        }
    }

    fn say(&mut self, text: String) {
        self.message = Some((text, Instant::now()));
        self.dirty = true;
    }

    fn key(&mut self, event_loop: &ActiveEventLoop, event: &KeyEvent) {
        if event.state != ElementState::Pressed {
            return;
        }
        let step = if self.shift { 30 } else { 1 };
        match &event.logical_key {
            Key::Named(NamedKey::Space) => {
                self.playback.toggle();
                self.sync_song();
            }
            Key::Named(NamedKey::ArrowRight) => {
                self.playback.step(step);
                self.sync_song();
            }
            Key::Named(NamedKey::ArrowLeft) => {
                self.playback.step(-step);
                self.sync_song();
            }
            Key::Named(NamedKey::Home) => {
                self.playback.restart();
                self.sync_song();
            }
            Key::Named(NamedKey::Escape) => event_loop.exit(),
            Key::Character(c) => match c.to_ascii_lowercase().as_str() {
                "p" => self.toggle_physics(),
                "b" => self.overlay.bones = !self.overlay.bones,
                "r" => self.overlay.bodies = !self.overlay.bodies,
                "f" => self.show_times = !self.show_times,
                "q" => event_loop.exit(),
                _ => return,
            },
            _ => return,
        }
        self.dirty = true;
    }

    fn toggle_physics(&mut self) {
        if self.v.anim.sequential() {
            self.v.anim.character_mut().disable_physics();
            self.say("physics off".to_owned());
            return;
        }
        let path = self.v.model_path.clone();
        let dynamic = self.v.dynamic.clone();
        match crate::source::enable_physics(self.v.anim.character_mut(), &path, &dynamic) {
            Ok(()) => {
                let t = self.playback.time() as f32;
                match self.v.anim.restart_at(t) {
                    Ok(()) => self.say("physics on".to_owned()),
                    Err(e) => self.say(e.to_string()),
                }
            }
            Err(e) => self.say(e.to_string()),
        }
    }

    /// Evaluates the frame at the clock and hands it to a free drawing thread.
    fn submit(&mut self, now: Instant) -> Result<(), CliError> {
        let time = self.playback.time() as f32;
        if self.playback.jumps() != self.jumps_seen {
            self.jumps_seen = self.playback.jumps();
            self.v.anim.restart_at(time)?;
        }
        let started = Instant::now();
        let posed = self.v.anim.at(time)?;
        self.evaluate_ms = started.elapsed().as_secs_f64() * 1e3;
        self.stats.evaluate_ms += self.evaluate_ms;
        self.stats.submitted += 1;
        let mut status = vec![format!(
            "frame {} / {}   {} fps   physics {}{}",
            self.playback.frame(),
            self.playback.last_frame(),
            self.fps(),
            if self.v.anim.sequential() {
                "on"
            } else {
                "off"
            },
            if self.playback.is_playing() {
                ""
            } else {
                "   paused"
            }
        )];
        if self.show_times {
            status.push(format!(
                "draw {:.1} ms   present {:.1} ms   evaluate {:.2} ms   {} threads",
                self.draw_ms,
                self.present_ms,
                self.evaluate_ms,
                self.pool.as_ref().map_or(0, Pool::len)
            ));
        }
        if let Some((m, at)) = &self.message {
            if at.elapsed() < Duration::from_secs(3) {
                status.push(m.clone());
            }
        }
        let job = Job {
            seq: self.next_seq,
            frame: self.playback.frame(),
            posed,
            orbit: self.v.orbit,
            size: self.size,
            overlay: self.overlay,
            status,
            help: HELP,
        };
        self.next_seq += 1;
        if let Some(pool) = &self.pool {
            pool.submit(job);
            self.in_flight += 1;
        }
        self.last_submit = Some(now);
        self.dirty = false;
        Ok(())
    }

    fn present(&mut self, picture: Picture) -> Result<(), CliError> {
        self.in_flight = self.in_flight.saturating_sub(1);
        self.draw_ms = picture.draw_ms;
        if picture.seq <= self.shown_seq {
            self.stats.dropped += 1;
            return Ok(()); // a newer one is on screen
        }
        if picture.size != self.size {
            self.dirty = true; // drawn for the size before a resize
            return Ok(());
        }
        let (Some(surface), Some(window)) = (self.surface.as_mut(), self.window.as_ref()) else {
            return Ok(());
        };
        let started = Instant::now();
        let fail = |e: softbuffer::SoftBufferError| CliError::Internal(format!("window: {e}"));
        let mut buffer = surface.buffer_mut().map_err(fail)?;
        if buffer.len() == picture.pixels.len() {
            buffer.copy_from_slice(&picture.pixels);
            buffer.present().map_err(fail)?;
        }
        self.present_ms = started.elapsed().as_secs_f64() * 1e3;
        self.shown_seq = picture.seq;
        self.shown_frame = picture.frame;
        let now = Instant::now();
        self.stats.shown += 1;
        self.stats.draw_ms += picture.draw_ms;
        self.stats.present_ms += self.present_ms;
        self.stats.first.get_or_insert(now);
        self.stats.last = Some(now);
        self.presented.push_back(now);
        while self
            .presented
            .front()
            .is_some_and(|t| now.duration_since(*t) > Duration::from_secs(1))
        {
            self.presented.pop_front();
        }
        window.set_title(&self.title());
        Ok(())
    }

    fn resize(&mut self, size: PhysicalSize<u32>) -> Result<(), CliError> {
        let (Some(w), Some(h)) = (NonZeroU32::new(size.width), NonZeroU32::new(size.height)) else {
            return Ok(()); // minimised
        };
        if let Some(surface) = self.surface.as_mut() {
            surface
                .resize(w, h)
                .map_err(|e| CliError::Internal(format!("window: {e}")))?;
        }
        // The pictures are drawn at least 64 pixels a side (smaller windows show a corner).
        self.size = (size.width.max(64), size.height.max(64));
        self.dirty = true;
        Ok(())
    }
}

impl ApplicationHandler<Event> for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.window.is_some() {
            return;
        }
        let attributes = Window::default_attributes()
            .with_title(format!("sinew view - {}", self.v.name))
            .with_inner_size(PhysicalSize::new(self.size.0, self.size.1));
        let window = match event_loop.create_window(attributes) {
            Ok(w) => Rc::new(w),
            Err(e) => return self.fail(event_loop, CliError::Internal(format!("window: {e}"))),
        };
        let surface = softbuffer::Context::new(Rc::clone(&window))
            .and_then(|c| softbuffer::Surface::new(&c, Rc::clone(&window)));
        match surface {
            Ok(s) => self.surface = Some(s),
            Err(e) => return self.fail(event_loop, CliError::Internal(format!("window: {e}"))),
        }
        let proxy = self.proxy.clone();
        self.pool = Some(Pool::new(
            self.v.threads,
            Arc::clone(&self.v.painter),
            self.v.mirror_z,
            move |p| {
                let _ = proxy.send_event(Event::Picture(p));
            },
        ));
        let size = window.inner_size();
        self.window = Some(window);
        if let Err(e) = self.resize(size) {
            self.fail(event_loop, e);
        }
        self.sync_song();
    }

    fn user_event(&mut self, event_loop: &ActiveEventLoop, event: Event) {
        let Event::Picture(picture) = event;
        if let Err(e) = picture.and_then(|p| self.present(p)) {
            self.fail(event_loop, e);
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => {
                if let Err(e) = self.resize(size) {
                    self.fail(event_loop, e);
                }
            }
            WindowEvent::ModifiersChanged(m) => self.shift = m.state().shift_key(),
            WindowEvent::KeyboardInput { event, .. } => self.key(event_loop, &event),
            WindowEvent::MouseInput {
                state,
                button: MouseButton::Left,
                ..
            } => {
                self.drag = (state == ElementState::Pressed).then_some(self.cursor);
            }
            WindowEvent::CursorMoved { position, .. } => {
                if let Some(from) = self.drag {
                    self.v
                        .orbit
                        .drag((position.x - from.x) as f32, (position.y - from.y) as f32);
                    self.drag = Some(position);
                    self.dirty = true;
                }
                self.cursor = position;
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let steps = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                self.v.orbit.wheel(steps);
                self.dirty = true;
            }
            WindowEvent::RedrawRequested => self.dirty = true,
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if self.window.is_none() {
            return;
        }
        let now = Instant::now();
        if self.exit_at.is_some_and(|t| now >= t) {
            return event_loop.exit();
        }
        self.playback.tick(now);
        let interval = Duration::from_secs_f64(1.0 / TARGET_FPS);
        let due = self
            .last_submit
            .is_none_or(|t| now.duration_since(t) >= interval);
        let threads = self.pool.as_ref().map_or(1, Pool::len);
        let wanted = self.playback.is_playing() || self.dirty;
        if wanted && due && self.in_flight < threads {
            if let Err(e) = self.submit(now) {
                return self.fail(event_loop, e);
            }
        }
        if self.playback.is_playing() || self.dirty {
            let next = self.last_submit.unwrap_or(now) + interval;
            event_loop.set_control_flow(ControlFlow::WaitUntil(
                next.max(now + Duration::from_millis(1)),
            ));
        } else {
            // Paused and drawn: wait for input (the title's fps still settles once a second).
            event_loop.set_control_flow(ControlFlow::WaitUntil(now + Duration::from_millis(500)));
            if let Some(w) = &self.window {
                let now = Instant::now();
                while self
                    .presented
                    .front()
                    .is_some_and(|t| now.duration_since(*t) > Duration::from_secs(1))
                {
                    self.presented.pop_front();
                }
                w.set_title(&self.title());
            }
        }
    }
}
