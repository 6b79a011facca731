//! `sinew.Camera`: a VMD camera (babylon-mmd's `MmdCamera`, cuts included) sampled at many
//! frames or times in one call into NumPy arrays.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use numpy::ndarray::{Array1, Array2, Array3};
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sinew_character::{frame_of_time, CameraMotion};

use crate::character::{
    check_signals, extract_n, frame_time, reserve, sequence_len, Limits, DEFAULT_MAX_FRAMES,
    DEFAULT_MAX_MEMORY_MB, SIGNAL_EVERY,
};
use crate::error::{character_error, input, internal};

/// A VMD camera: its keys played the way babylon-mmd's `MmdCamera` plays them (a Bézier
/// curve per channel; two keys on consecutive frames are a cut: the first holds, then the
/// camera jumps). Values are in MMD's left-handed space and units, like MMD characters'
/// world matrices.
#[pyclass(frozen, module = "sinew")]
pub struct Camera {
    inner: CameraMotion,
    path: PathBuf,
    /// The limits (`max_frames`, `max_memory_mb`), atomics so that a frozen camera can be
    /// sampled from many threads and still have them set.
    max_frames: AtomicU64,
    max_memory_mb: AtomicU64,
}

/// Bytes one sample takes: five 3-vectors, the view matrix, fov, distance and time (f32),
/// the perspective flag, and the request's frame and second.
const BYTES_PER_SAMPLE: u64 = 4 * (5 * 3 + 16 + 3) + 1 + 8 + 4;

/// The camera frames (30 fps) and times (seconds) one `evaluate` call asks for; `n` is the
/// count already measured and checked against the limits.
fn request(
    frames: Option<&Bound<'_, PyAny>>,
    times: Option<&Bound<'_, PyAny>>,
    n: u64,
    fps: f64,
) -> PyResult<(Vec<f64>, Vec<f32>)> {
    let checked = |v: f64, what: &str| {
        if v.is_finite() && v >= 0.0 && v < f64::from(f32::MAX) {
            Ok(v)
        } else {
            Err(input(
                what,
                format!("{what} are finite and >= 0, got {v:?}"),
            ))
        }
    };
    let values = match (frames, times) {
        (Some(_), Some(_)) => return Err(input("evaluate", "give frames or times, not both")),
        (Some(frames), None) => {
            extract_n(frames, n, "frames", |x| checked(x.extract()?, "frames"))?
        }
        (None, Some(times)) => extract_n(times, n, "times", |x| checked(x.extract()?, "times"))?,
        (None, None) => {
            let n = usize::try_from(n).map_err(|_| input("frames", "too many frames"))?;
            let mut all = reserve(n, "frames")?;
            all.extend((0..n).map(|f| f as f64));
            all
        }
    };
    let mut camera_frames = reserve(values.len(), "frames")?;
    let mut seconds = reserve(values.len(), "frames")?;
    if times.is_some() {
        for t in values {
            let t = t as f32;
            camera_frames.push(frame_of_time(t));
            seconds.push(t);
        }
    } else {
        for f in values {
            seconds.push(frame_time(f, fps)?);
            camera_frames.push(f * 30.0 / fps);
        }
    }
    Ok((camera_frames, seconds))
}

#[pymethods]
impl Camera {
    /// Reads the camera keys of a VMD file. Raises `SinewError` naming the file when it cannot
    /// be read or parsed, or has no camera keys. `max_frames` and `max_memory_mb` bound each
    /// `evaluate` as the CLI's `--max-frames` and `--max-memory-mb` do.
    #[new]
    #[pyo3(signature = (path, *, max_frames = DEFAULT_MAX_FRAMES, max_memory_mb = DEFAULT_MAX_MEMORY_MB))]
    fn new(path: PathBuf, max_frames: u64, max_memory_mb: u64) -> PyResult<Self> {
        let inner = CameraMotion::load(&path).map_err(|e| character_error(e, &path))?;
        Ok(Self {
            inner,
            path,
            max_frames: AtomicU64::new(max_frames),
            max_memory_mb: AtomicU64::new(max_memory_mb),
        })
    }

    /// Most frames one `evaluate` samples (default 36,000, the CLI's).
    #[getter]
    fn get_max_frames(&self) -> u64 {
        self.max_frames.load(Ordering::Relaxed)
    }

    #[setter]
    fn set_max_frames(&self, frames: u64) {
        self.max_frames.store(frames, Ordering::Relaxed);
    }

    /// Most MiB one `evaluate` returns (default 2,048, the CLI's).
    #[getter]
    fn get_max_memory_mb(&self) -> u64 {
        self.max_memory_mb.load(Ordering::Relaxed)
    }

    #[setter]
    fn set_max_memory_mb(&self, mb: u64) {
        self.max_memory_mb.store(mb, Ordering::Relaxed);
    }

    /// The file read.
    #[getter]
    fn path(&self) -> String {
        self.path.display().to_string()
    }

    /// Seconds from 0 to the last key.
    #[getter]
    fn duration(&self) -> f32 {
        self.inner.duration()
    }

    /// The keys' frame numbers (30 fps), sorted.
    #[getter]
    fn key_frames(&self) -> Vec<u32> {
        self.inner.keys().iter().map(|k| k.frame).collect()
    }

    /// The frames the camera jumps at (a key on the frame after another).
    #[getter]
    fn cuts(&self) -> Vec<u32> {
        self.inner.cuts().collect()
    }

    /// Samples frames (`frames`, numbers at `fps`, fractions allowed) or times (`times`,
    /// seconds) and returns a dict of arrays, one row per sample:
    ///
    /// * `"times"`: `[F]` float32 seconds;
    /// * `"eye"`, `"target"`, `"up"`, `"forward"`, `"rotation"`: `[F, 3]` float32 (the
    ///   eye, the point it orbits, the unit up and view axes, MMD's rotation in radians);
    /// * `"fov"` (vertical, radians), `"distance"` (signed, negative: the eye behind the
    ///   target): `[F]` float32;
    /// * `"view"`: `[F, 4, 4]` float32 world → camera matrices (left-handed, looking down
    ///   +z), translation in the last column: `view[f] @ [x, y, z, 1]`;
    /// * `"perspective"`: `[F]` bool, MMD's perspective switch.
    ///
    /// With neither `frames` nor `times`, every frame from 0 to the last key at `fps`.
    #[pyo3(signature = (frames = None, *, times = None, fps = 30.0))]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        frames: Option<Bound<'py, PyAny>>,
        times: Option<Bound<'py, PyAny>>,
        fps: f64,
    ) -> PyResult<Bound<'py, PyDict>> {
        if !(fps.is_finite() && fps > 0.0 && fps <= 1000.0) {
            return Err(input(
                "fps",
                format!("must be within (0, 1000], got {fps:?}"),
            ));
        }
        // The count first, from the argument's length or the last key, before anything is
        // built: a huge range or a key billions of frames away is refused, not materialised.
        let limits = Limits {
            max_frames: self.max_frames.load(Ordering::Relaxed),
            max_memory_mb: self.max_memory_mb.load(Ordering::Relaxed),
        };
        let (asked, what) = match (&frames, &times) {
            (Some(_), Some(_)) => {
                return Err(input("evaluate", "give frames or times, not both"));
            }
            (Some(f), None) => (sequence_len(f, "frames", limits)?, "frames"),
            (None, Some(t)) => (sequence_len(t, "times", limits)?, "times"),
            (None, None) => {
                let last = (f64::from(self.inner.duration()) * fps).round();
                ((last as u64).saturating_add(1), "frames")
            }
        };
        limits.frames(asked, what)?;
        limits.memory(asked.saturating_mul(BYTES_PER_SAMPLE), "evaluate")?;
        let (camera_frames, seconds) = request(frames.as_ref(), times.as_ref(), asked, fps)?;
        let n = camera_frames.len();
        let v3 = || reserve::<f32>(n.saturating_mul(3), "camera");
        let (mut eye, mut target, mut up, mut forward, mut rotation) =
            (v3()?, v3()?, v3()?, v3()?, v3()?);
        let mut fov = reserve::<f32>(n, "camera")?;
        let mut distance = reserve::<f32>(n, "camera")?;
        let mut perspective = reserve::<bool>(n, "camera")?;
        let mut view = reserve::<f32>(n.saturating_mul(16), "camera")?;
        py.detach(|| -> PyResult<()> {
            for (k, &f) in camera_frames.iter().enumerate() {
                let c = self.inner.sample_frame(f);
                eye.extend_from_slice(&c.position.to_array());
                target.extend_from_slice(&c.target.to_array());
                up.extend_from_slice(&c.up.to_array());
                forward.extend_from_slice(&c.forward.to_array());
                rotation.extend_from_slice(&c.rotation.to_array());
                fov.push(c.fov);
                distance.push(c.distance);
                perspective.push(c.perspective);
                view.extend_from_slice(&c.view.transpose().to_cols_array());
                if (k as u64 + 1).is_multiple_of(SIGNAL_EVERY) {
                    check_signals()?;
                }
            }
            Ok(())
        })?;
        let out = PyDict::new(py);
        out.set_item("times", Array1::from_vec(seconds).into_pyarray(py))?;
        for (key, values) in [
            ("eye", eye),
            ("target", target),
            ("up", up),
            ("forward", forward),
            ("rotation", rotation),
        ] {
            let a = Array2::from_shape_vec((n, 3), values).map_err(internal)?;
            out.set_item(key, a.into_pyarray(py))?;
        }
        out.set_item("fov", Array1::from_vec(fov).into_pyarray(py))?;
        out.set_item("distance", Array1::from_vec(distance).into_pyarray(py))?;
        out.set_item(
            "perspective",
            Array1::from_vec(perspective).into_pyarray(py),
        )?;
        let a = Array3::from_shape_vec((n, 4, 4), view).map_err(internal)?;
        out.set_item("view", a.into_pyarray(py))?;
        Ok(out)
    }

    fn __repr__(&self) -> String {
        format!(
            "Camera({:?}, keys={}, cuts={}, duration={:.3})",
            self.path.display().to_string(),
            self.inner.keys().len(),
            self.inner.cuts().count(),
            self.inner.duration()
        )
    }
}
