//! [`CharacterModel`]: what every character of one model shares — the skeleton and its
//! dynamics (IK, pose constraints, the physics table), the meshes, the morph names, the clips
//! a file carries and the physics settings that suit it — read from a PMX, PMD or glTF file, or
//! wrapped around a model built in code.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::{Affine3A, Vec3};
use sinew::anim::{Clip, ClipBinding};
use sinew::{BoneId, Model, Skeleton};
use sinew_gltf::{GltfModel, LoadOptions};
use sinew_mmd::{MmdDefinitions, MmdModel, MmdOrder};
use sinew_physics::{PhysicsOptions, Writeback};

use crate::files::{folder_of, kind_of, kind_of_bytes, read_file, regular_file, MAX_FILE_BYTES};
use crate::mesh::CharacterMesh;
use crate::motion::Motion;
use crate::pose_file::SolverKind;
use crate::CharacterError;

/// MMD's gravity in MMD units (≈ 10 units a metre): what MMD, babylon-mmd and saba simulate
/// with.
pub const MMD_GRAVITY: f32 = -98.0;

/// How far (world units) an MMD model's root may move in one frame before its bodies are
/// re-seeded rather than dragged (MMD units; a dance's steps stay well below).
pub const MMD_TELEPORT_DISTANCE: f32 = 20.0;

/// Which reader a model came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModelKind {
    /// PMX or PMD.
    Mmd,
    /// glTF or GLB.
    Gltf,
    /// Built in code.
    Built,
}

/// Physics parameters a character enables its ragdoll with.
#[derive(Clone, Debug, PartialEq)]
pub struct PhysicsSettings {
    /// Step rate, bounds, writeback, profile.
    pub options: PhysicsOptions,
    /// Gravity, simulation units per second² (definition units × the table's unit scale).
    pub gravity: Vec3,
}

impl Default for PhysicsSettings {
    fn default() -> Self {
        Self {
            options: PhysicsOptions::default(),
            gravity: sinew_physics::DEFAULT_GRAVITY,
        }
    }
}

/// What every character of one model shares (see the module docs). Build once, share in an
/// `Arc`.
#[derive(Debug)]
pub struct CharacterModel {
    kind: ModelKind,
    name: String,
    model: Model,
    mmd: Option<(Arc<MmdModel>, Arc<MmdDefinitions>)>,
    gltf: Option<Arc<GltfModel>>,
    meshes: Vec<CharacterMesh>,
    morph_names: Vec<String>,
    default_morphs: Vec<f32>,
    clips: Vec<Motion>,
    physics: PhysicsSettings,
    folder: PathBuf,
    /// Clip bindings to this model's skeleton and morphs, one per clip played, shared by every
    /// character (a binding is a clip's tracks resolved once; characters keep only their
    /// sampling caches).
    bindings: std::sync::Mutex<Vec<Arc<ClipBinding>>>,
}

impl CharacterModel {
    /// Loads a PMX, PMD, glTF or GLB file (the reader chosen by extension, then by the first
    /// bytes). Errors name the file.
    ///
    /// # Errors
    /// A [`CharacterError::InFile`] saying what is wrong with it.
    pub fn load(path: impl AsRef<Path>) -> Result<Arc<Self>, CharacterError> {
        let path = path.as_ref();
        let model = match kind_of(path)? {
            ModelKind::Mmd => {
                let bytes = read_file(path)?;
                let mmd = MmdModel::from_bytes(&bytes)
                    .map_err(|e| CharacterError::from(e).in_file(path))?;
                Self::read_mmd(Arc::new(mmd), None)
            }
            _ => Self::load_gltf(path, LoadOptions::default()),
        };
        model
            .map(|mut m| {
                m.folder = folder_of(path);
                Arc::new(m)
            })
            .map_err(|e| e.in_file(path))
    }

    /// Loads a PMX or PMD file evaluated in `order` (another order than the one
    /// [`Self::load`] picks: [`MmdModel::mmd_order`]).
    ///
    /// # Errors
    /// As [`Self::load`]; [`CharacterError::WrongKind`] for a glTF file.
    pub fn load_mmd_with(
        path: impl AsRef<Path>,
        order: MmdOrder,
    ) -> Result<Arc<Self>, CharacterError> {
        let path = path.as_ref();
        let read = || {
            if kind_of(path)? != ModelKind::Mmd {
                return Err(CharacterError::WrongKind(
                    "an evaluation order is for PMX and PMD models".to_owned(),
                ));
            }
            let mmd = MmdModel::from_bytes(&read_file(path)?)?;
            let definitions = mmd.definitions(order)?;
            Self::read_mmd(Arc::new(mmd), Some(definitions))
        };
        let mut m = read().map_err(|e| e.in_file(path))?;
        m.folder = folder_of(path);
        Ok(Arc::new(m))
    }

    /// Loads a glTF or GLB file with reader options.
    ///
    /// # Errors
    /// As [`Self::load`].
    pub fn load_gltf_with(
        path: impl AsRef<Path>,
        options: LoadOptions,
    ) -> Result<Arc<Self>, CharacterError> {
        let path = path.as_ref();
        let mut m = Self::load_gltf(path, options).map_err(|e| e.in_file(path))?;
        m.folder = folder_of(path);
        Ok(Arc::new(m))
    }

    fn load_gltf(path: &Path, options: LoadOptions) -> Result<Self, CharacterError> {
        let meta = regular_file(path)?;
        if meta.len() > MAX_FILE_BYTES {
            return Err(CharacterError::TooLarge {
                size: meta.len(),
                limit: MAX_FILE_BYTES,
            });
        }
        let gltf = GltfModel::load_with(path, options).map_err(|e| match e {
            sinew_gltf::GltfError::Io { source, .. } => CharacterError::Io(source),
            e => CharacterError::Gltf(e),
        })?;
        Self::read_gltf(Arc::new(gltf))
    }

    /// Reads a PMX, PMD, GLB or self-contained glTF (buffers as `data:` URIs) from memory, the
    /// reader chosen by the first bytes; as [`Self::load`] but with no folder (textures and
    /// motions named by relative paths resolve from the working directory).
    ///
    /// # Errors
    /// [`CharacterError::UnknownFormat`], [`CharacterError::TooLarge`], or what the reader
    /// finds wrong with the bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Arc<Self>, CharacterError> {
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(CharacterError::TooLarge {
                size: bytes.len() as u64,
                limit: MAX_FILE_BYTES,
            });
        }
        match kind_of_bytes(bytes)? {
            ModelKind::Mmd => Self::from_mmd(Arc::new(MmdModel::from_bytes(bytes)?)),
            _ => Self::from_gltf(Arc::new(
                GltfModel::from_slice(bytes).map_err(CharacterError::Gltf)?,
            )),
        }
    }

    /// An MMD model evaluated as MMD runtimes do: staged when it has no
    /// [`StagedGap`](sinew_mmd::StagedGap), bone by bone otherwise
    /// ([`MmdModel::mmd_order`]).
    ///
    /// # Errors
    /// [`CharacterError::Definitions`] when the file's values break a definition contract.
    pub fn from_mmd(mmd: Arc<MmdModel>) -> Result<Arc<Self>, CharacterError> {
        Self::read_mmd(mmd, None).map(Arc::new)
    }

    /// An MMD model over definitions of one's choice (another [`MmdOrder`], another unit
    /// scale: [`MmdDefinitions::read`]).
    ///
    /// # Errors
    /// As [`Self::from_mmd`].
    pub fn from_mmd_definitions(
        mmd: Arc<MmdModel>,
        definitions: Arc<MmdDefinitions>,
    ) -> Result<Arc<Self>, CharacterError> {
        Self::read_mmd(mmd, Some(definitions)).map(Arc::new)
    }

    /// An MMD model evaluated in `order`, with the shared definitions of that order.
    ///
    /// # Errors
    /// As [`Self::from_mmd`].
    pub fn from_mmd_order(
        mmd: Arc<MmdModel>,
        order: MmdOrder,
    ) -> Result<Arc<Self>, CharacterError> {
        let definitions = mmd.definitions(order)?;
        Self::read_mmd(mmd, Some(definitions)).map(Arc::new)
    }

    fn read_mmd(
        mmd: Arc<MmdModel>,
        definitions: Option<Arc<MmdDefinitions>>,
    ) -> Result<Self, CharacterError> {
        let definitions = match definitions {
            Some(d) => d,
            None => mmd.definitions(mmd.mmd_order())?,
        };
        let model = definitions.model().clone();
        let mut meshes = Vec::new();
        if !mmd.mesh().positions.is_empty() {
            meshes.push(CharacterMesh {
                name: mmd.name().to_owned(),
                skinned: true,
                mesh: Arc::clone(mmd.mesh()),
                joints: definitions.file_bones().into(),
                inverse_bind: (mmd.bones().iter())
                    .map(|b| Affine3A::from_translation(-b.position))
                    .collect(),
                morph_slots: (0..mmd.mesh().morphs.len()).collect(),
            });
        }
        let scale = definitions.options().unit_scale;
        let physics = PhysicsSettings {
            options: PhysicsOptions {
                teleport_distance: MMD_TELEPORT_DISTANCE,
                writeback: Writeback::World,
                ..PhysicsOptions::default()
            },
            gravity: Vec3::new(0.0, MMD_GRAVITY, 0.0) * scale,
        };
        Ok(Self {
            kind: ModelKind::Mmd,
            name: mmd.name().to_owned(),
            morph_names: mmd.morph_names().to_vec(),
            default_morphs: vec![0.0; mmd.morph_names().len()],
            model,
            mmd: Some((mmd, definitions)),
            gltf: None,
            meshes,
            clips: Vec::new(),
            physics,
            folder: PathBuf::from("."),
            bindings: Default::default(),
        })
    }

    /// A glTF model: its skeleton with the reader's physics candidates, its skinned meshes
    /// (morph targets weighted by the clips' `weights` tracks), its clips.
    ///
    /// # Errors
    /// [`CharacterError::Gltf`] for a malformed mesh.
    pub fn from_gltf(gltf: Arc<GltfModel>) -> Result<Arc<Self>, CharacterError> {
        Self::read_gltf(gltf).map(Arc::new)
    }

    fn read_gltf(gltf: Arc<GltfModel>) -> Result<Self, CharacterError> {
        let mut morph_names: Vec<String> = Vec::new();
        let mut default_morphs = Vec::new();
        let mut meshes = Vec::new();
        for m in gltf.meshes()? {
            let slots = (m.weight_tracks.iter().zip(&m.default_weights))
                .map(
                    |(name, &w)| match morph_names.iter().position(|n| n == name) {
                        Some(i) => i,
                        None => {
                            morph_names.push(name.clone());
                            default_morphs.push(w);
                            morph_names.len() - 1
                        }
                    },
                )
                .collect();
            meshes.push(CharacterMesh {
                name: m.name,
                skinned: m.skin.is_some(),
                mesh: m.mesh,
                joints: m.bones.into(),
                inverse_bind: m.inverse_bind.into(),
                morph_slots: slots,
            });
        }
        let clips = gltf
            .clips()
            .iter()
            .map(|c| Motion::from_clip(Arc::clone(c)))
            .collect();
        let name = (gltf.document().scenes().next())
            .and_then(|s| s.name().map(str::to_owned))
            .unwrap_or_else(|| "glTF model".to_owned());
        Ok(Self {
            kind: ModelKind::Gltf,
            name,
            model: gltf.model().clone(),
            mmd: None,
            meshes,
            morph_names,
            default_morphs,
            clips,
            physics: PhysicsSettings::default(),
            folder: PathBuf::from("."),
            gltf: Some(gltf),
            bindings: Default::default(),
        })
    }

    /// A model built in code (skeleton and dynamics; no mesh until [`Self::with_mesh`]).
    #[must_use]
    pub fn from_model(model: Model) -> Self {
        Self {
            kind: ModelKind::Built,
            name: "model".to_owned(),
            model,
            mmd: None,
            gltf: None,
            meshes: Vec::new(),
            morph_names: Vec::new(),
            default_morphs: Vec::new(),
            clips: Vec::new(),
            physics: PhysicsSettings::default(),
            folder: PathBuf::from("."),
            bindings: Default::default(),
        }
    }

    /// Adds a skinned mesh (joint `j` follows `joints[j]`; its morph targets get character
    /// morphs named after them).
    ///
    /// # Errors
    /// [`CharacterError::Invalid`] when `joints` and `inverse_bind` differ in length from the
    /// skin's joints, or a joint is not a bone of the skeleton.
    pub fn with_mesh(
        mut self,
        mesh: Arc<sinew_skin::Mesh>,
        joints: Vec<BoneId>,
        inverse_bind: Vec<Affine3A>,
    ) -> Result<Self, CharacterError> {
        let n = mesh.skin.joint_count();
        if joints.len() != n || inverse_bind.len() != n {
            return Err(CharacterError::Invalid {
                what: "the mesh's joint list",
                expected: "one bone and one inverse bind per skin joint",
                value: format!(
                    "{} bones, {} inverse binds for {n} joints",
                    joints.len(),
                    inverse_bind.len()
                ),
            });
        }
        if let Some(j) = joints
            .iter()
            .find(|j| j.index() >= self.model.skeleton().len())
        {
            return Err(CharacterError::invalid(
                "a mesh joint",
                "a bone of the skeleton",
                j.index(),
            ));
        }
        let slots = (mesh.morphs.iter())
            .map(|m| {
                self.morph_names.push(m.name.clone());
                self.default_morphs.push(0.0);
                self.morph_names.len() - 1
            })
            .collect();
        self.meshes.push(CharacterMesh {
            name: mesh.name.clone(),
            skinned: true,
            mesh,
            joints: joints.into(),
            inverse_bind: inverse_bind.into(),
            morph_slots: slots,
        });
        Ok(self)
    }

    /// Replaces the physics settings characters enable their ragdolls with.
    #[must_use]
    pub fn with_physics_settings(mut self, settings: PhysicsSettings) -> Self {
        self.physics = settings;
        self
    }

    /// This model with IK chains added (a glTF file carries none; a pose file's `chains`),
    /// shared by the characters made from the result. Chains are appended after the model's
    /// own, which keep their indices.
    ///
    /// # Errors
    /// [`CharacterError::Unknown`] for a bone the model lacks; [`CharacterError::Definitions`]
    /// for a chain the definitions refuse (links not a parent chain down to the effector, a
    /// two-bone chain without two links, a repeated name).
    pub fn with_ik_chains(
        &self,
        chains: &[crate::pose_file::ChainSpec],
    ) -> Result<Arc<Self>, CharacterError> {
        use sinew::dynamics::{
            ChainSolver, IkChain, IkChainParams, IkLink, SkeletonDynamicsBuilder,
        };
        let skeleton = self.model.skeleton();
        let bone = |name: &str| {
            skeleton.find(name).ok_or_else(|| CharacterError::Unknown {
                what: "bone",
                name: name.to_owned(),
            })
        };
        let mut builder = SkeletonDynamicsBuilder::from_model(&self.model);
        let rest = skeleton.rest_world();
        let at = |b: BoneId| Vec3::from(rest[b.index()].translation);
        for spec in chains {
            let links: Vec<BoneId> = spec
                .links
                .iter()
                .map(|n| bone(n))
                .collect::<Result<_, _>>()?;
            let effector = bone(&spec.effector)?;
            let solver = match spec.solver {
                SolverKind::TwoBone => {
                    let pole = spec.pole.unwrap_or_else(|| match links.as_slice() {
                        [upper, lower] => {
                            let mid = (at(*upper) + at(effector)) * 0.5;
                            (at(*lower) - mid).try_normalize().unwrap_or(Vec3::Z)
                        }
                        _ => Vec3::Z,
                    });
                    ChainSolver::TwoBone { pole }
                }
                SolverKind::Ccd => ChainSolver::Ccd,
                SolverKind::Fabrik => ChainSolver::Fabrik,
            };
            let params = IkChainParams {
                solver,
                ..IkChainParams::default()
            };
            builder.ik(IkChain::with_params(
                spec.name.clone(),
                effector,
                effector,
                links.into_iter().map(IkLink::new).collect(),
                params,
            )?);
        }
        let mut model = self.model.clone();
        builder.attach(&mut model)?;
        Ok(Arc::new(Self {
            kind: self.kind,
            name: self.name.clone(),
            model,
            mmd: self.mmd.clone(),
            gltf: self.gltf.clone(),
            meshes: self.meshes.clone(),
            morph_names: self.morph_names.clone(),
            default_morphs: self.default_morphs.clone(),
            clips: self.clips.clone(),
            physics: self.physics.clone(),
            folder: self.folder.clone(),
            bindings: Default::default(),
        }))
    }

    /// `clip` bound to this model's skeleton and morphs: made on first use, then shared by
    /// every character that plays it.
    pub(crate) fn binding(&self, clip: &Clip) -> Arc<ClipBinding> {
        let mut cache = self.bindings.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = cache.iter().find(|b| b.clip_id() == clip.id()) {
            return Arc::clone(b);
        }
        let b = Arc::new(ClipBinding::with_float_targets(
            clip,
            self.model.skeleton(),
            &self.morph_names,
        ));
        cache.push(Arc::clone(&b));
        b
    }

    /// Which reader the model came from.
    #[must_use]
    pub fn kind(&self) -> ModelKind {
        self.kind
    }

    /// The model's name (MMD: as the file names it).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The skeleton and dynamics every character evaluates.
    #[must_use]
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The skeleton: the order of every per-bone slice of a character.
    #[must_use]
    pub fn skeleton(&self) -> &Arc<Skeleton> {
        self.model.skeleton()
    }

    /// A bone by name.
    #[must_use]
    pub fn bone(&self, name: &str) -> Option<BoneId> {
        self.model.skeleton().find(name)
    }

    /// The MMD model and definitions, for an MMD model.
    #[must_use]
    pub fn mmd(&self) -> Option<(&Arc<MmdModel>, &Arc<MmdDefinitions>)> {
        self.mmd.as_ref().map(|(m, d)| (m, d))
    }

    /// The glTF model, for a glTF model.
    #[must_use]
    pub fn gltf(&self) -> Option<&Arc<GltfModel>> {
        self.gltf.as_ref()
    }

    /// The bone of a source index (an MMD file's bone index, a glTF bone's rank among bone
    /// nodes): what file-order data maps through.
    #[must_use]
    pub fn bone_of_source(&self, index: usize) -> Option<BoneId> {
        self.model.skeleton().from_source_index(index)
    }

    /// `values` (one per bone, the skeleton's order) in source order — an MMD file's bone
    /// order, a glTF file's bone-node order: the file-order edge of outputs (conformance
    /// dumps, file-indexed tools).
    ///
    /// # Panics
    /// If `values` is not one per bone.
    #[must_use]
    pub fn to_source_order<T: Copy>(&self, values: &[T]) -> Vec<T> {
        let skeleton = self.model.skeleton();
        assert_eq!(values.len(), skeleton.len(), "one value per bone");
        let mut out = values.to_vec();
        for b in skeleton.bones() {
            out[skeleton.source_index(b)] = values[b.index()];
        }
        out
    }

    /// The skinned meshes.
    #[must_use]
    pub fn meshes(&self) -> &[CharacterMesh] {
        &self.meshes
    }

    /// The character's morphs (MMD: the model's, groups included; glTF: every animated weight
    /// of every mesh, `"<node>.weights[k]"`).
    #[must_use]
    pub fn morph_names(&self) -> &[String] {
        &self.morph_names
    }

    /// Each morph's weight when nothing sets it.
    #[must_use]
    pub fn default_morph_weights(&self) -> &[f32] {
        &self.default_morphs
    }

    /// The clips the file carries (glTF animations), as motions.
    #[must_use]
    pub fn clips(&self) -> &[Motion] {
        &self.clips
    }

    /// Clip `index`.
    ///
    /// # Errors
    /// [`CharacterError::NoSuchClip`].
    pub fn clip(&self, index: usize) -> Result<&Motion, CharacterError> {
        self.clips.get(index).ok_or(CharacterError::NoSuchClip {
            index,
            count: self.clips.len(),
        })
    }

    /// Reads a VMD motion for this (MMD) model. Errors name the file.
    ///
    /// # Errors
    /// [`CharacterError::WrongKind`] for a model that is not MMD; a read or parse error.
    pub fn load_motion(&self, path: impl AsRef<Path>) -> Result<Motion, CharacterError> {
        let path = path.as_ref();
        let Some((mmd, _)) = &self.mmd else {
            return Err(CharacterError::WrongKind(
                "a VMD motion plays on MMD models; glTF models play their clips".to_owned(),
            )
            .in_file(path));
        };
        let bytes = read_file(path)?;
        Motion::from_vmd(&bytes, Some(mmd)).map_err(|e| e.in_file(path))
    }

    /// The physics settings characters enable their ragdolls with (MMD: MMD units, gravity
    /// −98 scaled by the table's unit scale, world writeback; others: the defaults).
    #[must_use]
    pub fn physics_settings(&self) -> &PhysicsSettings {
        &self.physics
    }

    /// The folder the model file is in (textures are relative to it; `.` when built).
    #[must_use]
    pub fn folder(&self) -> &Path {
        &self.folder
    }
}
