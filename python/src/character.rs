//! `sinew.Character`: one character of a model in motion — a motion playing, IK targets, morph
//! overrides, physics on or off — evaluated at many frames or times in one call into NumPy
//! arrays, with the GIL released while it works.

use std::collections::TryReserveError;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::{Mat4, Vec3};
use numpy::ndarray::{Array1, Array2, Array3, Array4};
use numpy::IntoPyArray;
use pyo3::exceptions::{PyMemoryError, PyOverflowError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sinew::instance::Stages;
use sinew_character::{bake_glb, BakedFrame};

use crate::error::{character_error, input, internal};
use crate::model::{Model, Motion};

/// Where the simulation stands: physics frames are simulated in order.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Clock {
    /// Nothing simulated since physics was (re)started.
    Fresh,
    /// Simulated by whole frames at `fps`; `next` is the first frame not simulated yet.
    Frames { next: u64, fps: f32 },
    /// Simulated up to time `now` (seconds, `f64` so that it keeps moving at any time).
    Times { now: f64 },
}

/// Which frames or times one `evaluate` call asks for.
enum Request {
    Frames(Vec<u64>),
    Times(Vec<f64>),
}

impl Request {
    fn len(&self) -> usize {
        match self {
            Self::Frames(f) => f.len(),
            Self::Times(t) => t.len(),
        }
    }
}

/// The arrays one `evaluate` call fills.
struct Arrays {
    times: Vec<f32>,
    world: Option<Vec<f32>>,
    morphs: Option<Vec<f32>>,
    vertices: Option<Vec<f32>>,
}

/// Frames between checks for Ctrl-C during a long call.
pub const SIGNAL_EVERY: u64 = 256;

/// The CLI's default bounds (`--max-frames`, `--max-memory-mb`).
pub const DEFAULT_MAX_FRAMES: u64 = 36_000;
pub const DEFAULT_MAX_MEMORY_MB: u64 = 2048;

/// How much work one call may do: frames evaluated or simulated, and bytes of what it returns
/// (the CLI's `--max-frames` and `--max-memory-mb`).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_frames: u64,
    pub max_memory_mb: u64,
}

impl Limits {
    /// Refuses `count` frames above the cap; `what` names the argument.
    pub fn frames(self, count: u64, what: &str) -> PyResult<()> {
        if count > self.max_frames {
            return Err(input(
                what,
                format!(
                    "{count} frames would be evaluated; the cap is {} (raise it with max_frames=...)",
                    self.max_frames
                ),
            ));
        }
        Ok(())
    }

    /// Refuses `bytes` above the memory cap.
    pub fn memory(self, bytes: u64, what: &str) -> PyResult<()> {
        let cap = self.max_memory_mb.saturating_mul(1 << 20);
        if bytes > cap {
            return Err(input(
                what,
                format!(
                    "about {} MiB would be needed; the cap is {} MiB (raise it with max_memory_mb=...)",
                    bytes >> 20,
                    self.max_memory_mb
                ),
            ));
        }
        Ok(())
    }
}

/// An empty vector with room for `n` values, or a `MemoryError` (never an abort).
pub fn reserve<T>(n: usize, what: &str) -> PyResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|e: TryReserveError| {
        PyMemoryError::new_err(format!("{what}: {n} values cannot be allocated ({e})"))
    })?;
    Ok(v)
}

/// The length of `arg` (a sequence: list, range, array), read before anything is built from
/// it, and refused above the frame cap.
pub fn sequence_len(arg: &Bound<'_, PyAny>, what: &str, limits: Limits) -> PyResult<u64> {
    match arg.len() {
        Ok(n) => {
            limits.frames(n as u64, what)?;
            Ok(n as u64)
        }
        // A range longer than a C `ssize_t` holds: more than any cap.
        Err(e) if e.is_instance_of::<PyOverflowError>(arg.py()) => Err(input(
            what,
            format!(
                "more than {} frames would be evaluated; the cap is {} (raise it with max_frames=...)",
                isize::MAX,
                limits.max_frames
            ),
        )),
        Err(_) => Err(input(
            what,
            "expected a sequence (a list, range or array)",
        )),
    }
}

/// The `n` items of `arg`, each read by `item`, into storage reserved fallibly (a sequence
/// yielding more than its length is refused); Ctrl-C is heard every 65,536 items.
pub fn extract_n<T>(
    arg: &Bound<'_, PyAny>,
    n: u64,
    what: &str,
    mut item: impl FnMut(&Bound<'_, PyAny>) -> PyResult<T>,
) -> PyResult<Vec<T>> {
    let n =
        usize::try_from(n).map_err(|_| input(what, format!("{n} items do not fit in memory")))?;
    let mut out = reserve(n, what)?;
    for x in arg.try_iter()? {
        if out.len() == n {
            return Err(input(
                what,
                format!("yields more items than its length, {n}"),
            ));
        }
        out.push(item(&x?)?);
        if (out.len() as u64).is_multiple_of(SIGNAL_EVERY * 256) {
            arg.py().check_signals()?;
        }
    }
    Ok(out)
}

/// Raises what a signal (Ctrl-C) asks for; called every [`SIGNAL_EVERY`] frames of a long
/// loop run without the GIL.
pub fn check_signals() -> PyResult<()> {
    Python::attach(|py| py.check_signals())
}

/// One character of a `Model`: plays a `Motion`, reaches for IK targets, holds morph weights,
/// simulates physics, and evaluates frames into NumPy arrays.
///
/// Arrays list bones in the file's order (`Model.bone_names`); positions and matrices are in
/// the model's space (MMD: left-handed model units as the file stores them; glTF: relative to
/// the scene root). World matrices are 4×4 with the translation in the last column
/// (`world[..., :3, 3]`), so `world @ [x, y, z, 1]` maps a point.
#[pyclass(module = "sinew")]
pub struct Character {
    inner: sinew_character::Character,
    model: Py<Model>,
    source_bones: Arc<[usize]>,
    path: PathBuf,
    stages: String,
    clock: Clock,
    limits: Limits,
}

impl Character {
    /// Simulates (or seeks, physics off) to frame `frame` at `fps`.
    fn go_to_frame(&mut self, frame: u64, fps: f32) -> PyResult<()> {
        let path = self.path.clone();
        let fail = |e| character_error(e, &path);
        let last = frame_time(frame as f64, f64::from(fps))?;
        // Every frame up to `frame` has a time, as `frame` has.
        let time = |k: u64| (k as f64 / f64::from(fps)) as f32;
        if !self.inner.is_physics_enabled() {
            return self.inner.seek(last).map_err(fail);
        }
        let mut next = match self.clock {
            Clock::Fresh => 0,
            Clock::Frames { next, fps: f } if f == fps => next,
            Clock::Frames { fps: f, .. } => {
                return Err(input(
                    "fps",
                    format!("physics is simulating at {f} frames per second; call reset_physics() before another rate"),
                ))
            }
            Clock::Times { .. } => {
                return Err(input(
                    "frames",
                    "physics is simulating by times; call reset_physics() before evaluating by frames",
                ))
            }
        };
        if next > 0 && frame + 1 == next {
            return Ok(()); // the character holds this frame
        }
        if frame < next {
            return Err(input(
                "frames",
                format!("with physics, frames are simulated in order: frame {frame} comes after frame {} (call reset_physics() to start over)", next - 1),
            ));
        }
        while next <= frame {
            self.inner.update(time(next), 1.0 / fps).map_err(fail)?;
            next += 1;
            self.clock = Clock::Frames { next, fps };
            if next.is_multiple_of(SIGNAL_EVERY) {
                check_signals()?;
            }
        }
        Ok(())
    }

    /// Simulates (or seeks, physics off) to `time`, in steps of at most `1 / fps`.
    fn go_to_time(&mut self, time: f64, fps: f32) -> PyResult<()> {
        let path = self.path.clone();
        let fail = |e| character_error(e, &path);
        if !self.inner.is_physics_enabled() {
            return self.inner.seek(time as f32).map_err(fail);
        }
        let now = match self.clock {
            Clock::Fresh => {
                self.inner.update(0.0, 0.0).map_err(fail)?;
                self.clock = Clock::Times { now: 0.0 };
                0.0
            }
            Clock::Times { now, .. } => now,
            Clock::Frames { .. } => return Err(input(
                "times",
                "physics is simulating by frames; call reset_physics() before evaluating by times",
            )),
        };
        if time < now {
            return Err(input(
                "times",
                format!("with physics, times are simulated in order: {time} comes after {now} (call reset_physics() to start over)"),
            ));
        }
        // The character's clock is where this one left it: step on from there, checking for
        // Ctrl-C between chunks of steps.
        let step = 1.0 / f64::from(fps);
        while !self
            .inner
            .advance_toward(time, step, SIGNAL_EVERY)
            .map_err(fail)?
        {
            self.clock = Clock::Times {
                now: self.inner.clock(),
            };
            check_signals()?;
        }
        self.clock = Clock::Times {
            now: self.inner.clock(),
        };
        Ok(())
    }

    /// Appends the last frame's outputs to `arrays`.
    fn record(&mut self, arrays: &mut Arrays) -> PyResult<()> {
        let w = self.inner.world();
        if let Some(b) = self.source_bones.iter().find(|&&b| !w[b].is_finite()) {
            return Err(input(
                &self.path,
                format!(
                    "time {}: bone \"{}\" evaluates to a non-finite transform",
                    self.inner.time(),
                    self.inner.model().skeleton().names()[*b]
                ),
            ));
        }
        if let Some(world) = &mut arrays.world {
            for &b in self.source_bones.iter() {
                world.extend_from_slice(&Mat4::from(w[b]).transpose().to_cols_array());
            }
        }
        if let Some(morphs) = &mut arrays.morphs {
            morphs.extend_from_slice(self.inner.morph_weights());
        }
        if let Some(vertices) = &mut arrays.vertices {
            let path = self.path.clone();
            for mesh in 0..self.inner.model().meshes().len() {
                let deformed = self
                    .inner
                    .skinned_mesh(mesh)
                    .map_err(|e| character_error(e, &path))?;
                vertices.extend(deformed.positions().iter().flat_map(|p| p.to_array()));
            }
        }
        Ok(())
    }

    fn evaluate_into(&mut self, request: &Request, fps: f32, arrays: &mut Arrays) -> PyResult<()> {
        match request {
            Request::Frames(frames) => {
                for (k, &f) in frames.iter().enumerate() {
                    self.go_to_frame(f, fps)?;
                    arrays.times.push((f as f64 / f64::from(fps)) as f32);
                    self.record(arrays)?;
                    if (k as u64 + 1).is_multiple_of(SIGNAL_EVERY) {
                        check_signals()?;
                    }
                }
            }
            Request::Times(times) => {
                for (k, &t) in times.iter().enumerate() {
                    self.go_to_time(t, fps)?;
                    arrays.times.push(t as f32);
                    self.record(arrays)?;
                    if (k as u64 + 1).is_multiple_of(SIGNAL_EVERY) {
                        check_signals()?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The frames of the whole of what plays at `fps`, counted from its end time before
    /// anything is built (an endless end saturates, and the cap refuses it).
    fn whole_motion(&self, fps: f32) -> u64 {
        let last = (f64::from(self.inner.end_time()) * f64::from(fps)).round();
        (last as u64).saturating_add(1)
    }

    /// The frames or times asked for; `n` is the length already measured and checked against
    /// the limits, so the storage is reserved once, fallibly.
    fn request(
        &self,
        frames: Option<&Bound<'_, PyAny>>,
        times: Option<&Bound<'_, PyAny>>,
        n: u64,
    ) -> PyResult<Request> {
        match (frames, times) {
            (Some(_), Some(_)) => Err(input("evaluate", "give frames or times, not both")),
            (Some(frames), None) => extract_n(frames, n, "frames", |x| {
                let f: i64 = x.extract()?;
                u64::try_from(f)
                    .map_err(|_| input("frames", format!("frame numbers are >= 0, got {f}")))
            })
            .map(Request::Frames),
            (None, Some(times)) => extract_n(times, n, "times", |x| {
                let t: f64 = x.extract()?;
                if t.is_finite() && t >= 0.0 && t < f64::from(f32::MAX) {
                    Ok(t)
                } else {
                    Err(input(
                        "times",
                        format!("times are finite and >= 0, got {t:?}"),
                    ))
                }
            })
            .map(Request::Times),
            (None, None) => {
                // The whole motion at the given rate: what a bake or a dataset wants.
                let n = usize::try_from(n).map_err(|_| input("frames", "too many frames"))?;
                let mut out = reserve(n, "frames")?;
                out.extend(0..n as u64);
                Ok(Request::Frames(out))
            }
        }
    }
}

/// The time of frame `frame` at `fps`, in seconds; a frame whose time no `f32` clock holds (a
/// huge number at a tiny rate) is refused rather than evaluated at infinity.
pub fn frame_time(frame: f64, fps: f64) -> PyResult<f32> {
    let t = frame / fps;
    if t < f64::from(f32::MAX) {
        Ok(t as f32)
    } else {
        Err(input(
            "frames",
            format!("frame {frame:?} at {fps:?} fps is {t:e} s, past any time a clock holds"),
        ))
    }
}

fn check_fps(fps: f32) -> PyResult<()> {
    if fps.is_finite() && fps > 0.0 && fps <= 1000.0 {
        Ok(())
    } else {
        Err(input(
            "fps",
            format!("must be within (0, 1000], got {fps:?}"),
        ))
    }
}

#[pymethods]
impl Character {
    /// A character of `model`, playing `motion` when given, with physics on when `physics`
    /// (see `enable_physics` for `dynamic`).
    ///
    /// `max_frames` and `max_memory_mb` bound each call as the CLI's `--max-frames` and
    /// `--max-memory-mb` do (frames evaluated or simulated; bytes returned or baked).
    #[new]
    #[pyo3(signature = (model, motion = None, *, physics = false, dynamic = None, max_frames = DEFAULT_MAX_FRAMES, max_memory_mb = DEFAULT_MAX_MEMORY_MB))]
    fn new(
        model: Bound<'_, Model>,
        motion: Option<&Motion>,
        physics: bool,
        dynamic: Option<Vec<String>>,
        max_frames: u64,
        max_memory_mb: u64,
    ) -> PyResult<Self> {
        let m = model.get();
        let mut character = Self {
            inner: sinew_character::Character::new(&m.inner),
            source_bones: Arc::clone(&m.source_bones),
            path: m.path.clone(),
            model: model.clone().unbind(),
            stages: "full".to_owned(),
            clock: Clock::Fresh,
            limits: Limits {
                max_frames,
                max_memory_mb,
            },
        };
        if let Some(motion) = motion {
            character.inner.play(&motion.inner);
        }
        if physics || dynamic.is_some() {
            character.enable_physics(dynamic)?;
        }
        Ok(character)
    }

    /// Most frames one call evaluates or simulates (default 36,000, the CLI's).
    #[getter]
    fn get_max_frames(&self) -> u64 {
        self.limits.max_frames
    }

    #[setter]
    fn set_max_frames(&mut self, frames: u64) {
        self.limits.max_frames = frames;
    }

    /// Most MiB one call returns or bakes (default 2,048, the CLI's).
    #[getter]
    fn get_max_memory_mb(&self) -> u64 {
        self.limits.max_memory_mb
    }

    #[setter]
    fn set_max_memory_mb(&mut self, mb: u64) {
        self.limits.max_memory_mb = mb;
    }

    /// The model.
    #[getter]
    fn model(&self, py: Python<'_>) -> Py<Model> {
        self.model.clone_ref(py)
    }

    /// Plays `motion` alone (replacing what played), from time 0.
    fn play(&mut self, motion: &Motion) {
        self.inner.play(&motion.inner);
    }

    /// Stops every motion: the rest pose (IK targets, morph overrides and physics stay).
    fn stop(&mut self) {
        self.inner.stop();
    }

    /// The end of what plays, in seconds (0 with nothing playing).
    #[getter]
    fn duration(&self) -> f32 {
        self.inner.end_time()
    }

    /// The time of the last evaluated frame, in seconds (the character's `f64` clock).
    #[getter]
    fn time(&self) -> f64 {
        self.inner.clock()
    }

    /// Motion bones the model does not have (names), for what plays.
    #[getter]
    fn unmatched_bones(&self) -> Vec<String> {
        let layer = self.inner.layers().next().map(|l| l.0);
        layer
            .and_then(|l| self.inner.unmatched(l))
            .map(|(bones, _)| bones.to_vec())
            .unwrap_or_default()
    }

    // ----- stages, IK, morphs -----

    /// Which stages run: "fk" (animation only), "grant" (+ pose constraints: MMD append),
    /// "ik" (+ IK, no constraints), "full" (everything; the default).
    #[getter]
    fn get_stages(&self) -> &str {
        &self.stages
    }

    #[setter]
    fn set_stages(&mut self, mode: &str) -> PyResult<()> {
        let stages = Stages::from_mode(mode).ok_or_else(|| {
            input(
                "stages",
                format!("unknown mode \"{mode}\" (use fk, grant, ik, full)"),
            )
        })?;
        self.inner.set_stages(stages);
        self.stages = mode.to_owned();
        Ok(())
    }

    /// Chain `chain` reaches for `position` (x, y, z in the model's space), blended from
    /// what it would do by `weight` in [0, 1]. Holds until cleared.
    #[pyo3(signature = (chain, position, weight = 1.0))]
    fn set_ik_target(&mut self, chain: &str, position: [f32; 3], weight: f32) -> PyResult<()> {
        self.inner
            .set_ik_target(chain, Vec3::from_array(position), weight)
            .map_err(|e| character_error(e, Path::new("ik target")))
    }

    /// Clears chain `chain`'s target; False when it had none.
    fn clear_ik_target(&mut self, chain: &str) -> bool {
        self.inner.clear_ik_target(chain)
    }

    /// Switches chain `chain` on or off whatever the motion keys (None: as the motion keys it).
    #[pyo3(signature = (chain, enabled))]
    fn set_ik_enabled(&mut self, chain: &str, enabled: Option<bool>) -> PyResult<()> {
        self.inner
            .set_ik_enabled(chain, enabled)
            .map_err(|e| character_error(e, Path::new("ik chain")))
    }

    /// Holds morph `name` at `weight` whatever the motion keys (None: as the motion keys it).
    #[pyo3(signature = (name, weight))]
    fn set_morph_weight(&mut self, name: &str, weight: Option<f32>) -> PyResult<()> {
        let index = self
            .inner
            .morph_index(name)
            .ok_or_else(|| input("morph", format!("no morph \"{name}\"")))?;
        self.inner
            .set_morph_weight(index, weight)
            .map_err(|e| character_error(e, Path::new("morph weight")))
    }

    // ----- physics -----

    /// Turns rigid-body physics on. MMD models simulate their own table; glTF models hang the
    /// subtrees of the `dynamic` bones under physics (default: the chains named like hair,
    /// tail, skirt, cape, ...). Frames are then simulated in order (see `evaluate`).
    #[pyo3(signature = (dynamic = None))]
    fn enable_physics(&mut self, dynamic: Option<Vec<String>>) -> PyResult<()> {
        let roots = dynamic.unwrap_or_default();
        self.inner
            .enable_physics_on_chains(&roots)
            .map_err(|e| input(&self.path, format!("physics: {e}")))?;
        self.clock = Clock::Fresh;
        Ok(())
    }

    /// Turns physics off: bones follow the animation again.
    fn disable_physics(&mut self) {
        self.inner.disable_physics();
        self.clock = Clock::Fresh;
    }

    /// Restarts the simulation: bodies re-seeded at the next frame's pose, frames counted
    /// from 0 again.
    fn reset_physics(&mut self) {
        self.inner.reset_physics();
        self.clock = Clock::Fresh;
    }

    /// Whether physics is on.
    #[getter]
    fn physics(&self) -> bool {
        self.inner.is_physics_enabled()
    }

    // ----- evaluation -----

    /// Evaluates frames (`frames`, numbers at `fps`) or times (`times`, seconds) and returns
    /// a dict of arrays, one row per frame:
    ///
    /// * `"times"`: `[frames]` float32, seconds;
    /// * `"world"`: `[frames, bones, 4, 4]` float32 world matrices (when `world`);
    /// * `"morphs"`: `[frames, morphs]` float32 weights (when `morphs`);
    /// * `"vertices"`: `[frames, vertices, 3]` float32 skinned, morphed positions of every
    ///   mesh concatenated (`Model.mesh_vertex_counts`; when `vertices`).
    ///
    /// With neither `frames` nor `times`, every frame of what plays at `fps`. With physics
    /// on, frames (or times) are simulated in order from the last one evaluated (from 0 after
    /// `enable_physics` / `reset_physics`), every frame in between included; without physics
    /// each is evaluated on its own. The GIL is released while it runs.
    #[pyo3(signature = (frames = None, *, times = None, fps = 30.0, world = true, morphs = true, vertices = false))]
    #[allow(clippy::too_many_arguments)]
    fn evaluate<'py>(
        &mut self,
        py: Python<'py>,
        frames: Option<Bound<'py, PyAny>>,
        times: Option<Bound<'py, PyAny>>,
        fps: f32,
        world: bool,
        morphs: bool,
        vertices: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        check_fps(fps)?;
        let bones = self.source_bones.len();
        let model = Arc::clone(self.inner.model());
        let morph_count = model.morph_names().len();
        let vertex_count: usize = model.meshes().iter().map(|m| m.mesh.positions.len()).sum();
        // Bytes a frame takes: its rows of the arrays returned, its time, and its number in the
        // request.
        let per_frame = 4
            * (bones as u64 * 16 * u64::from(world)
                + morph_count as u64 * u64::from(morphs)
                + vertex_count as u64 * 3 * u64::from(vertices)
                + 1)
            + 8;
        // How many frames, before anything is built from the argument: a sequence's length
        // (a huge range is never materialised), or the whole motion's from its end time.
        let (asked, what) = match (&frames, &times) {
            (Some(_), Some(_)) => {
                return Err(input("evaluate", "give frames or times, not both"));
            }
            (Some(f), None) => (sequence_len(f, "frames", self.limits)?, "frames"),
            (None, Some(t)) => (sequence_len(t, "times", self.limits)?, "times"),
            (None, None) => (self.whole_motion(fps), "frames"),
        };
        self.limits.frames(asked, what)?;
        self.limits
            .memory(asked.saturating_mul(per_frame), "evaluate")?;
        let request = self.request(frames.as_ref(), times.as_ref(), asked)?;
        let n = request.len();
        // With physics every frame from the last one simulated up to the last one asked for is
        // simulated: those are the frames the call evaluates.
        if self.inner.is_physics_enabled() {
            let simulated = match (&request, self.clock) {
                (Request::Frames(f), Clock::Frames { next, .. }) => {
                    f.iter().max().map_or(0, |&m| (m + 1).saturating_sub(next))
                }
                (Request::Frames(f), _) => f.iter().max().map_or(0, |&m| m.saturating_add(1)),
                (Request::Times(t), clock) => {
                    let now = match clock {
                        Clock::Times { now } => now,
                        _ => 0.0,
                    };
                    let last = t.iter().copied().fold(0.0f64, f64::max);
                    // `as` saturates: a time past what a u64 counts is refused by the cap.
                    ((last - now).max(0.0) * f64::from(fps)).ceil() as u64
                }
            };
            self.limits.frames(simulated.max(n as u64), what)?;
        }
        let size = |per: usize| n.saturating_mul(per);
        let mut arrays = Arrays {
            times: reserve(n, "times")?,
            world: world
                .then(|| reserve(size(bones * 16), "world"))
                .transpose()?,
            morphs: morphs
                .then(|| reserve(size(morph_count), "morphs"))
                .transpose()?,
            vertices: vertices
                .then(|| reserve(size(vertex_count * 3), "vertices"))
                .transpose()?,
        };
        py.detach(|| self.evaluate_into(&request, fps, &mut arrays))?;
        let out = PyDict::new(py);
        out.set_item("times", Array1::from_vec(arrays.times).into_pyarray(py))?;
        if let Some(w) = arrays.world {
            let a = Array4::from_shape_vec((n, bones, 4, 4), w).map_err(internal)?;
            out.set_item("world", a.into_pyarray(py))?;
        }
        if let Some(m) = arrays.morphs {
            let a = Array2::from_shape_vec((n, morph_count), m).map_err(internal)?;
            out.set_item("morphs", a.into_pyarray(py))?;
        }
        if let Some(v) = arrays.vertices {
            let a = Array3::from_shape_vec((n, vertex_count, 3), v).map_err(internal)?;
            out.set_item("vertices", a.into_pyarray(py))?;
        }
        Ok(out)
    }

    /// Advances what plays by `dt` seconds and evaluates one frame (physics steps by `dt`).
    fn advance(&mut self, py: Python<'_>, dt: f32) -> PyResult<()> {
        if self.inner.is_physics_enabled() && self.clock != Clock::Fresh {
            if let Clock::Frames { .. } = self.clock {
                return Err(input(
                    "advance",
                    "physics is simulating by frames; call reset_physics() before advancing by time",
                ));
            }
        }
        let inner = &mut self.inner;
        py.detach(|| inner.advance(dt))
            .map_err(|e| character_error(e, &self.path))?;
        if self.inner.is_physics_enabled() {
            self.clock = Clock::Times {
                now: self.inner.clock(),
            };
        }
        Ok(())
    }

    /// The last evaluated frame's world matrices: `[bones, 4, 4]` float32 (the rest pose
    /// before the first frame).
    fn world<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArray3<f32>>> {
        let w = self.inner.world();
        let mut out = Vec::with_capacity(self.source_bones.len() * 16);
        for &b in self.source_bones.iter() {
            out.extend_from_slice(&Mat4::from(w[b]).transpose().to_cols_array());
        }
        let a = Array3::from_shape_vec((self.source_bones.len(), 4, 4), out).map_err(internal)?;
        Ok(a.into_pyarray(py))
    }

    /// The last evaluated frame's skinned, morphed vertices: `[vertices, 3]` float32, every
    /// mesh concatenated.
    fn vertices<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, numpy::PyArray2<f32>>> {
        let mut out = Vec::new();
        for mesh in 0..self.inner.model().meshes().len() {
            let d = self
                .inner
                .skinned_mesh(mesh)
                .map_err(|e| character_error(e, &self.path))?;
            out.extend(d.positions().iter().flat_map(|p| p.to_array()));
        }
        let a = Array2::from_shape_vec((out.len() / 3, 3), out).map_err(internal)?;
        Ok(a.into_pyarray(py))
    }

    /// The last evaluated frame's morph weights, one per `Model.morph_names`.
    fn morph_weights<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<f32>> {
        self.inner.morph_weights().to_vec().into_pyarray(py)
    }

    /// Evaluates `frames` frames at `fps` from time 0 (default: all of what plays; physics
    /// restarted and simulated along) and writes them as a `.glb` animation to `path`.
    /// Returns warnings (textures that could not be embedded).
    #[pyo3(signature = (path, *, fps = 30.0, frames = None))]
    fn bake(
        &mut self,
        py: Python<'_>,
        path: PathBuf,
        fps: f32,
        frames: Option<i64>,
    ) -> PyResult<Vec<String>> {
        check_fps(fps)?;
        let count = match frames {
            Some(n) if n < 1 => return Err(input("frames", "a bake has at least one frame")),
            Some(n) => n as u64,
            None => self.whole_motion(fps),
        };
        self.limits.frames(count, "frames")?;
        // The CLI's estimate: about 24 KiB a bone of document, and a bone's three channels
        // (3 × 48 bytes) a frame; plus the frames held until the bake (a world matrix and a
        // local transform a bone, the morph weights held and baked).
        let model = Arc::clone(self.inner.model());
        let bones = model.skeleton().len() as u64;
        let morph_count = model.morph_names().len() as u64;
        let per_frame = bones * (48 * 3 + 48 + 48) + morph_count * 8;
        self.limits.memory(
            (bones * 24 * 1024).saturating_add(count.saturating_mul(per_frame)),
            "bake",
        )?;
        let count = u32::try_from(count).map_err(|_| input("frames", "too many frames"))?;
        let mut held: Vec<BakedFrame> = reserve(count as usize, "bake")?;
        if self.inner.is_physics_enabled() {
            self.inner.reset_physics();
        }
        self.clock = Clock::Fresh;
        let physics = self.inner.is_physics_enabled();
        let model_path = self.path.clone();
        let fail = |e| character_error(e, &model_path);
        let (bytes, warnings) = py.detach(|| -> PyResult<_> {
            // Character::bake's frames, with Ctrl-C heard every SIGNAL_EVERY of them.
            for k in 0..count {
                self.inner.update(k as f32 / fps, 1.0 / fps).map_err(fail)?;
                held.push(self.inner.baked_frame());
                if physics {
                    // Evaluation by frames continues from the last frame simulated.
                    self.clock = Clock::Frames {
                        next: u64::from(k) + 1,
                        fps,
                    };
                }
                if (u64::from(k) + 1).is_multiple_of(SIGNAL_EVERY) {
                    check_signals()?;
                }
            }
            bake_glb(&model, fps, &held).map_err(fail)
        })?;
        py.detach(|| write_atomically(&path, &bytes))
            .map_err(|e| input(&path, format!("cannot write: {e}")))?;
        Ok(warnings)
    }

    fn __repr__(&self) -> String {
        format!(
            "Character(model={:?}, time={:.3}, physics={}, stages={:?})",
            self.model.get().path.display().to_string(),
            self.inner.time(),
            self.inner.is_physics_enabled(),
            self.stages
        )
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder, so a reader never
/// sees half a file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("not a file path"))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}
