//! # sinew-python — the `sinew` Python package's native module
//!
//! The character runtime of `sinew-character` for Python: a `Model` read from a file, `Motion`s
//! to play, `Character`s that evaluate many frames per call into NumPy arrays (world matrices,
//! morph weights, skinned vertices) with the GIL released, and bake `.glb` files. Built with
//! maturin (`pip install ./python`); the Python side (`python/sinew/`) adds the Ray batch.
//!
//! ```text
//!  Model(path) ──▶ Character(model, motion, physics=…) ──evaluate(frames)──▶ {"world": [F, B, 4, 4], …}
//!  Camera(camera.vmd) ──evaluate(frames)──▶ {"eye": [F, 3], "view": [F, 4, 4], …}
//! ```
//!
//! Bad input raises `sinew.SinewError` with the CLI's one-line message; nothing panics across
//! the boundary (a panic would surface as `pyo3_runtime.PanicException`, a bug).

mod camera;
mod character;
mod error;
mod model;

use pyo3::prelude::*;

/// sinew's native module: `Model`, `Motion`, `Character`, `Camera`, `SinewError`.
#[pymodule]
fn _sinew(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<model::Model>()?;
    m.add_class::<model::Motion>()?;
    m.add_class::<character::Character>()?;
    m.add_class::<camera::Camera>()?;
    m.add("SinewError", m.py().get_type::<error::SinewError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
