//! The viewer's clock: where in the motion the picture is, playing in real time or paused,
//! stepped by frames and seconds, restarted; the motion loops at its end.

use std::time::Instant;

/// Frames per second of the frame counter and of a step (MMD's rate).
pub const STEP_FPS: f64 = 30.0;

/// Play / pause / step / seek state, in motion seconds.
#[derive(Clone, Debug)]
pub struct Playback {
    time: f64,
    playing: bool,
    /// When `time` was last brought up to date while playing.
    since: Option<Instant>,
    /// Length of the motion (0: nothing plays, the clock still runs).
    duration: f64,
    /// Bumped by every jump (step, seek, restart, loop): the simulation restarts there.
    jumps: u64,
}

impl Playback {
    /// A clock at 0, playing, over a motion of `duration` seconds.
    pub fn new(duration: f64) -> Self {
        Self {
            time: 0.0,
            playing: true,
            since: None,
            duration: duration.max(0.0),
            jumps: 0,
        }
    }

    /// Brings the clock to `now` and returns the motion time: real time while playing (frames
    /// that cannot be drawn in time are skipped, the motion does not slow down), looping to 0
    /// past the end.
    pub fn tick(&mut self, now: Instant) -> f64 {
        if self.playing {
            if let Some(since) = self.since {
                self.time += now.saturating_duration_since(since).as_secs_f64();
            }
            self.since = Some(now);
            if self.duration > 0.0 && self.time > self.duration {
                self.time = 0.0;
                self.jumps += 1;
            }
        }
        self.time
    }

    /// The motion time.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// The frame at the motion time, at [`STEP_FPS`].
    pub fn frame(&self) -> u64 {
        (self.time * STEP_FPS + 1e-6).floor() as u64
    }

    /// The last frame of the motion.
    pub fn last_frame(&self) -> u64 {
        (self.duration * STEP_FPS).round() as u64
    }

    /// Whether the clock runs.
    pub fn is_playing(&self) -> bool {
        self.playing
    }

    /// Jumps so far (a changed count means the simulation must restart at [`Self::time`]).
    pub fn jumps(&self) -> u64 {
        self.jumps
    }

    /// Play ↔ pause.
    pub fn toggle(&mut self) {
        self.playing = !self.playing;
        self.since = None;
    }

    /// Moves by `frames` frames (negative: back) from the current frame, landing on a frame,
    /// within the motion.
    pub fn step(&mut self, frames: i64) {
        let target = (self.frame() as i64 + frames).clamp(0, self.last_frame() as i64);
        let time = target as f64 / STEP_FPS;
        if frames < 0 || time < self.time {
            self.jumps += 1;
        }
        self.time = time;
        self.since = None;
    }

    /// Back to the start (the simulation restarts from the first frame's pose).
    pub fn restart(&mut self) {
        self.time = 0.0;
        self.since = None;
        self.jumps += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn plays_in_real_time_and_loops() {
        let mut p = Playback::new(2.0);
        let t0 = Instant::now();
        assert_eq!(p.tick(t0), 0.0);
        assert!((p.tick(t0 + Duration::from_millis(500)) - 0.5).abs() < 1e-9);
        assert_eq!(p.frame(), 15);
        // A slow frame skips ahead: time is real time.
        assert!((p.tick(t0 + Duration::from_millis(1500)) - 1.5).abs() < 1e-9);
        assert_eq!(p.jumps(), 0);
        p.tick(t0 + Duration::from_millis(2100));
        assert_eq!((p.time(), p.jumps()), (0.0, 1), "looped");
    }

    #[test]
    fn pause_holds_and_steps_move_one_frame() {
        let mut p = Playback::new(10.0);
        let t0 = Instant::now();
        p.tick(t0);
        p.tick(t0 + Duration::from_millis(1000));
        p.toggle();
        assert!(!p.is_playing());
        let held = p.tick(t0 + Duration::from_millis(5000));
        assert!((held - 1.0).abs() < 1e-9, "paused: {held}");
        let f = p.frame();
        p.step(1);
        assert_eq!(p.frame(), f + 1);
        assert_eq!(p.jumps(), 0, "a step forward simulates on");
        p.step(-1);
        assert_eq!(
            (p.frame(), p.jumps()),
            (f, 1),
            "a step back restarts the simulation"
        );
        p.step(30);
        assert_eq!(p.frame(), f + 30);
        p.step(-10_000);
        assert_eq!(p.frame(), 0);
        p.step(10_000);
        assert_eq!(p.frame(), p.last_frame());
        p.restart();
        assert_eq!((p.frame(), p.jumps()), (0, 3));
        // Playing again resumes from the held time, not from when it was paused.
        p.toggle();
        p.tick(t0 + Duration::from_millis(9000));
        assert!((p.tick(t0 + Duration::from_millis(9100)) - 0.1).abs() < 1e-9);
    }
}
