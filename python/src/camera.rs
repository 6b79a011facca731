//! `sinew.Camera`: a VMD camera (babylon-mmd's `MmdCamera`, cuts included) sampled at many
//! frames or times in one call into NumPy arrays.

use std::collections::TryReserveError;
use std::path::PathBuf;

use numpy::ndarray::{Array1, Array2, Array3};
use numpy::IntoPyArray;
use pyo3::exceptions::{PyMemoryError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sinew_character::{frame_of_time, CameraMotion};

use crate::error::{character_error, input};

/// A VMD camera: its keys played the way babylon-mmd's `MmdCamera` plays them (a Bézier
/// curve per channel; two keys on consecutive frames are a cut: the first holds, then the
/// camera jumps). Values are in MMD's left-handed space and units, like MMD characters'
/// world matrices.
#[pyclass(frozen, module = "sinew")]
pub struct Camera {
    inner: CameraMotion,
    path: PathBuf,
}

fn reserve<T>(n: usize, what: &str) -> PyResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|e: TryReserveError| {
        PyMemoryError::new_err(format!("{what}: {n} values cannot be allocated ({e})"))
    })?;
    Ok(v)
}

fn internal(e: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(format!("internal error: {e}"))
}

/// The camera frames (30 fps) and times (seconds) one `evaluate` call asks for.
fn request(
    camera: &CameraMotion,
    frames: Option<Vec<f64>>,
    times: Option<Vec<f64>>,
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
    match (frames, times) {
        (Some(_), Some(_)) => Err(input("evaluate", "give frames or times, not both")),
        (Some(frames), None) => {
            let mut camera_frames = reserve(frames.len(), "frames")?;
            let mut seconds = reserve(frames.len(), "frames")?;
            for f in frames {
                let f = checked(f, "frames")?;
                camera_frames.push(f * 30.0 / fps);
                seconds.push((f / fps) as f32);
            }
            Ok((camera_frames, seconds))
        }
        (None, Some(times)) => {
            let mut camera_frames = reserve(times.len(), "times")?;
            let mut seconds = reserve(times.len(), "times")?;
            for t in times {
                let t = checked(t, "times")? as f32;
                camera_frames.push(frame_of_time(t));
                seconds.push(t);
            }
            Ok((camera_frames, seconds))
        }
        (None, None) => {
            let count = (f64::from(camera.duration()) * fps).round() as usize + 1;
            let frames = (0..count).map(|f| f as f64).collect();
            request(camera, Some(frames), None, fps)
        }
    }
}

#[pymethods]
impl Camera {
    /// Reads the camera keys of a VMD file. Raises `SinewError` naming the file when it cannot
    /// be read or parsed, or has no camera keys.
    #[new]
    fn new(path: PathBuf) -> PyResult<Self> {
        let inner = CameraMotion::load(&path).map_err(|e| character_error(e, &path))?;
        Ok(Self { inner, path })
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
        frames: Option<Vec<f64>>,
        times: Option<Vec<f64>>,
        fps: f64,
    ) -> PyResult<Bound<'py, PyDict>> {
        if !(fps.is_finite() && fps > 0.0 && fps <= 1000.0) {
            return Err(input(
                "fps",
                format!("must be within (0, 1000], got {fps:?}"),
            ));
        }
        let (camera_frames, seconds) = request(&self.inner, frames, times, fps)?;
        let n = camera_frames.len();
        let v3 = || reserve::<f32>(n.saturating_mul(3), "camera");
        let (mut eye, mut target, mut up, mut forward, mut rotation) =
            (v3()?, v3()?, v3()?, v3()?, v3()?);
        let mut fov = reserve::<f32>(n, "camera")?;
        let mut distance = reserve::<f32>(n, "camera")?;
        let mut perspective = reserve::<bool>(n, "camera")?;
        let mut view = reserve::<f32>(n.saturating_mul(16), "camera")?;
        py.detach(|| {
            for &f in &camera_frames {
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
            }
        });
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
