//! `sinew.Model` (a loaded model, shared by its characters) and `sinew.Motion` (a VMD motion
//! or a glTF clip to play).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sinew_character::{ChainSpec, CharacterModel, ModelKind, SolverKind};
use sinew_mmd::MmdOrder;

use crate::error::{character_error, input};

/// A model read from a PMX, PMD, glTF or GLB file: skeleton, IK chains, pose constraints,
/// physics table, meshes, morphs and clips. Immutable; any number of `Character`s share it.
///
/// Bones are listed in the file's order (a PMX/PMD file's bone order, a glTF file's bone
/// nodes in node order): `bone_names[i]`, `parents[i]` and row `i` of every per-bone array
/// describe the same bone.
#[pyclass(frozen, module = "sinew")]
pub struct Model {
    pub(crate) inner: Arc<CharacterModel>,
    pub(crate) path: PathBuf,
    /// Per source index (file order): the skeleton's bone index.
    pub(crate) source_bones: Arc<[usize]>,
}

impl Model {
    pub(crate) fn wrap(inner: Arc<CharacterModel>, path: PathBuf) -> Self {
        let skeleton = inner.skeleton();
        let source_bones = (0..skeleton.len())
            .map(|i| skeleton.from_source_index(i).map_or(i, |b| b.index()))
            .collect();
        Self {
            inner,
            path,
            source_bones,
        }
    }

    /// Total vertices over every mesh.
    pub(crate) fn vertex_count(&self) -> usize {
        self.inner
            .meshes()
            .iter()
            .map(|m| m.mesh.positions.len())
            .sum()
    }
}

fn order_of(evaluation: Option<&str>) -> PyResult<Option<MmdOrder>> {
    match evaluation {
        None => Ok(None),
        Some("staged") => Ok(Some(MmdOrder::Staged)),
        Some("bone-by-bone") => Ok(Some(MmdOrder::BoneByBone)),
        Some(other) => Err(input(
            "evaluation",
            format!("unknown evaluation \"{other}\" (use \"staged\" or \"bone-by-bone\")"),
        )),
    }
}

fn load(path: &Path, order: Option<MmdOrder>) -> PyResult<Arc<CharacterModel>> {
    let Some(order) = order else {
        return CharacterModel::load(path).map_err(|e| character_error(e, path));
    };
    let model = CharacterModel::load_mmd_with(path, order).map_err(|e| character_error(e, path))?;
    let (mmd, _) = model.mmd().expect("an MMD model");
    if order == MmdOrder::Staged && !mmd.staged_gaps(true).is_empty() {
        return Err(input(
            path,
            "this model has rules the staged evaluation does not express (MmdModel::staged_gaps): use evaluation=\"bone-by-bone\"",
        ));
    }
    Ok(model)
}

/// One chain of `Model.with_ik_chains` from its dict.
fn chain_spec(d: &Bound<'_, PyDict>) -> PyResult<ChainSpec> {
    let field = |key: &str| -> PyResult<Option<Bound<'_, PyAny>>> { d.get_item(key) };
    let name: String = field("name")?
        .ok_or_else(|| input("ik chain", "needs \"name\""))?
        .extract()?;
    let links: Vec<String> = field("links")?
        .ok_or_else(|| {
            input(
                format!("ik chain \"{name}\""),
                "needs \"links\" (bone names, base to tip)",
            )
        })?
        .extract()?;
    let effector: String = field("effector")?
        .ok_or_else(|| {
            input(
                format!("ik chain \"{name}\""),
                "needs \"effector\" (the bone that reaches)",
            )
        })?
        .extract()?;
    let solver = match field("solver")? {
        Some(s) => {
            let s: String = s.extract()?;
            SolverKind::from_name(&s).ok_or_else(|| {
                input(
                    format!("ik chain \"{name}\""),
                    format!("solver \"{s}\" is none of {}", SolverKind::NAMES.join(", ")),
                )
            })?
        }
        None => SolverKind::default_for(links.len()),
    };
    let pole = match field("pole")? {
        Some(p) if !p.is_none() => {
            let [x, y, z]: [f32; 3] = p.extract()?;
            Some(glam::Vec3::new(x, y, z))
        }
        _ => None,
    };
    for key in d.keys() {
        let key: String = key.extract()?;
        if !matches!(
            key.as_str(),
            "name" | "links" | "effector" | "solver" | "pole"
        ) {
            return Err(input(
                format!("ik chain \"{name}\""),
                format!("unknown key \"{key}\" (name, links, effector, solver, pole)"),
            ));
        }
    }
    Ok(ChainSpec {
        name,
        links,
        effector,
        solver,
        pole,
    })
}

#[pymethods]
impl Model {
    /// Loads a PMX, PMD, glTF or GLB file. `evaluation` ("staged" or "bone-by-bone", MMD
    /// models only) overrides the evaluation order; by default a model is evaluated in stages
    /// where that expresses it whole, bone by bone (MMD's order) otherwise.
    ///
    /// Raises `SinewError` naming the file for anything unreadable.
    #[new]
    #[pyo3(signature = (path, *, evaluation = None))]
    fn new(py: Python<'_>, path: PathBuf, evaluation: Option<&str>) -> PyResult<Self> {
        let order = order_of(evaluation)?;
        let inner = py.detach(|| load(&path, order))?;
        Ok(Self::wrap(inner, path))
    }

    /// The file the model was read from.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// `"mmd"` (PMX, PMD) or `"gltf"` (glTF, GLB).
    #[getter]
    fn kind(&self) -> &'static str {
        match self.inner.kind() {
            ModelKind::Mmd => "mmd",
            ModelKind::Gltf => "gltf",
            ModelKind::Built => "built",
        }
    }

    /// The model's name (MMD: as the file names it).
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// Bone names, in the file's order.
    #[getter]
    fn bone_names(&self) -> Vec<String> {
        let names = self.inner.skeleton().names();
        self.source_bones
            .iter()
            .map(|&b| names[b].clone())
            .collect()
    }

    /// Each bone's parent as the file has it (an index into `bone_names`), -1 for a root: an
    /// int32 array.
    #[getter]
    fn parents<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i32>> {
        let parents: Vec<i32> = match self.inner.mmd() {
            // The file's hierarchy (the evaluation may hang a bone MMD evaluates before its
            // parent from the origin: `MmdModel::evaluation_skeleton`).
            Some((mmd, _)) => (mmd.bones().iter())
                .map(|b| b.parent.map_or(-1, |p| p as i32))
                .collect(),
            None => {
                let skeleton = self.inner.skeleton();
                (self.source_bones.iter())
                    .map(|&b| {
                        skeleton
                            .parent(sinew::BoneId::new(b as u16))
                            .map_or(-1, |p| skeleton.source_index(p) as i32)
                    })
                    .collect()
            }
        };
        parents.into_pyarray(py)
    }

    /// Morph names (MMD: the model's morphs, groups included; glTF: each animated mesh
    /// weight, `"<node>.weights[k]"`): the columns of `morphs` arrays.
    #[getter]
    fn morph_names(&self) -> Vec<String> {
        self.inner.morph_names().to_vec()
    }

    /// IK chain names (MMD: the IK bones' names).
    #[getter]
    fn ik_chains(&self) -> Vec<String> {
        (self.inner.model().dynamics().ik_chains().iter())
            .map(|c| c.name().to_owned())
            .collect()
    }

    /// How many clips the file carries (glTF animations; 0 for MMD models).
    #[getter]
    fn clip_count(&self) -> usize {
        self.inner.clips().len()
    }

    /// Whether the model has rigid bodies (MMD physics table, glTF physics candidates).
    #[getter]
    fn has_physics(&self) -> bool {
        !self.inner.model().dynamics().physics().bodies().is_empty()
    }

    /// Vertices of each mesh, in the order `vertices` arrays concatenate them.
    #[getter]
    fn mesh_vertex_counts(&self) -> Vec<usize> {
        (self.inner.meshes().iter())
            .map(|m| m.mesh.positions.len())
            .collect()
    }

    /// Each mesh's name.
    #[getter]
    fn mesh_names(&self) -> Vec<String> {
        self.inner.meshes().iter().map(|m| m.name.clone()).collect()
    }

    /// Mesh `mesh`'s triangles: a `[triangles, 3]` uint32 array of vertex indices into that
    /// mesh (add the mesh's offset in `vertices` arrays to index those).
    fn triangles<'py>(&self, py: Python<'py>, mesh: usize) -> PyResult<Bound<'py, PyArray2<u32>>> {
        let m = self.inner.meshes().get(mesh).ok_or_else(|| {
            input(
                "mesh",
                format!(
                    "{mesh} does not exist (the model has {})",
                    self.inner.meshes().len()
                ),
            )
        })?;
        let indices = &m.mesh.indices;
        let array =
            numpy::ndarray::Array2::from_shape_vec((indices.len() / 3, 3), indices.to_vec())
                .map_err(crate::error::internal)?;
        Ok(array.into_pyarray(py))
    }

    /// Reads a VMD motion for this (MMD) model. Raises `SinewError` naming the file.
    fn load_motion(&self, py: Python<'_>, path: PathBuf) -> PyResult<Motion> {
        let model = Arc::clone(&self.inner);
        let inner = py
            .detach(|| model.load_motion(&path))
            .map_err(|e| character_error(e, &path))?;
        Ok(Motion {
            inner,
            source: path.display().to_string(),
        })
    }

    /// The file's clip `index` (glTF animations) as a motion.
    fn clip(&self, index: usize) -> PyResult<Motion> {
        let inner = self
            .inner
            .clip(index)
            .map_err(|e| character_error(e, Path::new("clip")))?
            .clone();
        Ok(Motion {
            inner,
            source: format!("{} clip {index}", self.path.display()),
        })
    }

    /// A model with IK chains added (glTF models have none of their own), each a dict:
    /// `{"name": str, "links": [bone, ...] (base to tip), "effector": bone, "solver":
    /// "two-bone" | "fabrik" | "ccd" (default "two-bone" for two links, else "fabrik"), "pole": [x, y, z] (two-bone, optional)}`.
    fn with_ik_chains(&self, chains: Vec<Bound<'_, PyDict>>) -> PyResult<Model> {
        let specs = chains
            .iter()
            .map(chain_spec)
            .collect::<PyResult<Vec<_>>>()?;
        let inner = self
            .inner
            .with_ik_chains(&specs)
            .map_err(|e| input("ik chains", e))?;
        Ok(Model::wrap(inner, self.path.clone()))
    }

    fn __repr__(&self) -> String {
        format!(
            "Model({:?}, kind={:?}, bones={}, morphs={}, ik_chains={}, clips={}, vertices={})",
            self.path.display().to_string(),
            self.kind(),
            self.source_bones.len(),
            self.inner.morph_names().len(),
            self.inner.model().dynamics().ik_chains().len(),
            self.inner.clips().len(),
            self.vertex_count()
        )
    }
}

/// A motion to play: a VMD (`Model.load_motion`) or a glTF clip (`Model.clip`).
#[pyclass(frozen, module = "sinew")]
#[derive(Clone)]
pub struct Motion {
    pub(crate) inner: sinew_character::Motion,
    pub(crate) source: String,
}

#[pymethods]
impl Motion {
    /// Length in seconds (the time of the last key).
    #[getter]
    fn duration(&self) -> f32 {
        self.inner.duration()
    }

    /// Frames per second the motion is keyed at (30 for VMD), or None (glTF clips).
    #[getter]
    fn fps(&self) -> Option<f32> {
        self.inner.fps()
    }

    fn __repr__(&self) -> String {
        format!(
            "Motion({:?}, duration={:.3})",
            self.source,
            self.inner.duration()
        )
    }
}
