//! Loading: document and buffers → skeleton, skins, clips.
//!
//! Building is in `load/build.rs`; buffers, node names and accessor checks in
//! `load/buffers.rs`, `nodes.rs`, `accessor.rs`.

use std::path::Path;
use std::sync::Arc;

use glam::{Affine3A, Vec3};
use sinew::anim::Clip;
use sinew::dynamics::SkeletonDynamicsBuilder;
use sinew::{BoneId, Model, Skeleton};

use crate::anim::{JointSampler, JointWorld};
use crate::{GltfError, GltfWarning};

mod accessor;
mod buffers;
mod build;
mod nodes;

use accessor::*;
pub(crate) use accessor::{check_accessor, check_accessor_with};
pub use buffers::MAX_BUFFER_BYTES;
use buffers::*;
use nodes::*;

/// Relative error above which [`GltfWarning::InverseBindMismatch`] is reported (see there).
pub const INVERSE_BIND_TOLERANCE: f32 = 1e-3;

/// Loading options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadOptions {
    /// Normalise `LINEAR`/`STEP` rotation keys (default `true`, as glTF requires unit
    /// quaternions). `false` keeps them as stored, like three.js, which matters only for files
    /// with non-unit keys (reported as [`GltfWarning::NonUnitRotation`] either way).
    pub normalize_rotations: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            normalize_rotations: true,
        }
    }
}

/// One glTF skin resolved against the skeleton.
#[derive(Clone, Debug, PartialEq)]
pub struct GltfSkin {
    /// Index of the skin in the document.
    pub index: usize,
    /// The skin's name, if any.
    pub name: Option<String>,
    /// Joint node indices, in the skin's order (the order vertex joint indices refer to).
    pub joints: Vec<usize>,
    /// The bone of each joint, parallel to [`Self::joints`].
    pub bones: Vec<BoneId>,
    /// Inverse bind matrix of each joint, parallel to [`Self::joints`] (identity when the file
    /// gives none, as glTF specifies).
    pub inverse_bind: Vec<Affine3A>,
    /// The skin's bind space: `rest_world × inverse_bind` of its root-most joint (lowest bone
    /// index). For a skin whose bind pose is the rest pose this is the same matrix for every
    /// joint: the identity when the inverse bind matrices are expressed relative to the scene
    /// root, else the transform of the space they were authored in (many exporters bind in
    /// the armature's or the mesh's space, e.g. a Z-up → Y-up rotation or a ×100 scale).
    pub bind_space: Affine3A,
}

/// A loaded glTF file: the sinew [`Model`] built from its skins, the skins, the animations as
/// clips, and the node ↔ bone maps.
///
/// **Bones.** One bone per node that is a joint of any skin or an ancestor of one (up to the
/// scene root), given to the skeleton builder in node order, so
/// [`Skeleton::source_index`] is the rank of the node among bone nodes and
/// [`Self::bone_to_node`] / [`Self::node_to_bone`] convert. Root bones hang from the scene root,
/// so bone world transforms with an identity root are relative to the scene root. A joint
/// shared by several skins is one bone; its skeleton inverse bind matrix
/// ([`Skeleton::inverse_bind`]) is the one of the first skin listing it (every skin's own
/// matrices are in [`GltfSkin::inverse_bind`]).
///
/// **Names.** A bone is named after its node (`node_<index>` when the node has no name); a name
/// already taken gets a `#<index>` suffix. [`Self::node_names`] holds the unique name of every
/// node (bones first, then the others).
#[derive(Clone, Debug)]
pub struct GltfModel {
    document: gltf::Document,
    json: serde_json::Value,
    buffers: Vec<Vec<u8>>,
    options: LoadOptions,
    pub(crate) model: Model,
    pub(crate) skins: Vec<GltfSkin>,
    pub(crate) clips: Vec<Arc<Clip>>,
    pub(crate) node_to_bone: Vec<Option<BoneId>>,
    pub(crate) bone_to_node: Vec<usize>,
    pub(crate) node_names: Vec<String>,
    pub(crate) warnings: Vec<GltfWarning>,
    /// [`Self::model_size`], measured at load (the bind check divides by it for every joint).
    size: f32,
}

impl GltfModel {
    /// The skeleton (and dynamics, empty until a reader attaches some).
    #[must_use]
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Attaches the dynamics `builder` holds to this model (the builder must be over this
    /// model's skeleton); the skeleton the skins were bound to stays.
    ///
    /// # Errors
    /// As [`SkeletonDynamicsBuilder::attach`].
    pub fn attach_dynamics(
        &mut self,
        builder: &SkeletonDynamicsBuilder,
    ) -> Result<Arc<sinew::dynamics::SkeletonDynamics>, sinew::dynamics::DynamicsError> {
        builder.attach(&mut self.model)
    }

    /// Every skin of the document, in document order.
    #[must_use]
    pub fn skins(&self) -> &[GltfSkin] {
        &self.skins
    }

    /// Every animation of the document as a looping clip, in document order.
    #[must_use]
    pub fn clips(&self) -> &[Arc<Clip>] {
        &self.clips
    }

    /// For each node, its bone (`None` for nodes that are not bones).
    #[must_use]
    pub fn node_to_bone(&self) -> &[Option<BoneId>] {
        &self.node_to_bone
    }

    /// For each bone (indexed by [`BoneId::index`]), its node.
    #[must_use]
    pub fn bone_to_node(&self) -> &[usize] {
        &self.bone_to_node
    }

    /// A unique name for every node, indexed by node (bones use theirs as bone names).
    #[must_use]
    pub fn node_names(&self) -> &[String] {
        &self.node_names
    }

    /// Non-fatal problems found while loading.
    #[must_use]
    pub fn warnings(&self) -> &[GltfWarning] {
        &self.warnings
    }

    /// Loads a `.gltf` (buffers as `data:` URIs or files next to it) or a `.glb`.
    ///
    /// # Errors
    /// [`GltfError::Io`] when the file cannot be read or is not a regular file of at most
    /// [`MAX_BUFFER_BYTES`], else as [`Self::from_slice`]; external buffers are resolved relative
    /// to the file's folder and must stay inside it.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, GltfError> {
        Self::load_with(path, LoadOptions::default())
    }

    /// [`Self::load`] with options.
    ///
    /// # Errors
    /// As [`Self::load`].
    pub fn load_with(path: impl AsRef<Path>, options: LoadOptions) -> Result<Self, GltfError> {
        let path = path.as_ref();
        let io = |source| GltfError::Io {
            path: path.to_owned(),
            source,
        };
        let meta = std::fs::metadata(path).map_err(io)?;
        if !meta.is_file() || meta.len() > MAX_BUFFER_BYTES as u64 {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("not a regular file of at most {MAX_BUFFER_BYTES} bytes"),
            )));
        }
        let bytes = std::fs::read(path).map_err(io)?;
        let base = path.parent().unwrap_or_else(|| Path::new("."));
        Self::from_bytes(&bytes, Some(base), options)
    }

    /// Loads a `.glb` or self-contained `.gltf` (buffers as `data:` URIs) from memory.
    ///
    /// # Errors
    /// [`GltfError::Parse`] for a bad container or document, [`GltfError::Buffer`] for a buffer
    /// that cannot be loaded (an external file cannot be resolved from a slice),
    /// [`GltfError::Accessor`] for unusable accessors, [`GltfError::NoSkin`],
    /// [`GltfError::MultipleParents`], [`GltfError::Skeleton`] and [`GltfError::Clip`].
    pub fn from_slice(bytes: &[u8]) -> Result<Self, GltfError> {
        Self::from_bytes(bytes, None, LoadOptions::default())
    }

    /// [`Self::from_slice`] with options.
    ///
    /// # Errors
    /// As [`Self::from_slice`].
    pub fn from_slice_with(bytes: &[u8], options: LoadOptions) -> Result<Self, GltfError> {
        Self::from_bytes(bytes, None, options)
    }

    /// The options the model was loaded with.
    #[must_use]
    pub fn options(&self) -> LoadOptions {
        self.options
    }

    /// The parsed glTF document.
    #[must_use]
    pub fn document(&self) -> &gltf::Document {
        &self.document
    }

    /// The document's JSON exactly as read (unknown extensions and extras included).
    #[must_use]
    pub fn json(&self) -> &serde_json::Value {
        &self.json
    }

    /// The loaded buffers, in document order (GLB `BIN` chunk, data URIs and files).
    #[must_use]
    pub fn buffers(&self) -> &[Vec<u8>] {
        &self.buffers
    }

    /// The skeleton.
    #[must_use]
    pub fn skeleton(&self) -> &Arc<Skeleton> {
        self.model.skeleton()
    }

    /// The bones of every skin joint, each once, in skin order then joint order (the order
    /// the three.js oracle lists joints in), with their nodes.
    #[must_use]
    pub fn joint_bones(&self) -> Vec<(usize, BoneId)> {
        let mut seen = vec![false; self.node_to_bone.len()];
        let mut out = Vec::new();
        for skin in &self.skins {
            for (&n, &b) in skin.joints.iter().zip(&skin.bones) {
                if !std::mem::replace(&mut seen[n], true) {
                    out.push((n, b));
                }
            }
        }
        out
    }

    /// Diagonal of the bounding box of the rest world positions of every skin joint (1 when
    /// that is zero): the length scale tolerances are relative to.
    #[must_use]
    pub fn model_size(&self) -> f32 {
        self.size
    }

    /// The diagonal of the rest joints' bounding box (1 when degenerate), measured once at load.
    fn measure_size(&self) -> f32 {
        let rw = self.skeleton().rest_world();
        let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        for (_, b) in self.joint_bones() {
            let p = Vec3::from(rw[b.index()].translation);
            lo = lo.min(p);
            hi = hi.max(p);
        }
        let d = (hi - lo).length();
        if d.is_finite() && d > 1e-9 {
            d
        } else {
            1.0
        }
    }

    /// How far `world[bone] × inverse_bind` is from the skin's
    /// [`bind_space`](GltfSkin::bind_space) for joint `joint` of skin `skin` (indices into
    /// [`Self::skins`] and its joint list), measured as `bind_space⁻¹ × world × inverse_bind`
    /// against the identity: the largest absolute element error of the 3×3 part, or the
    /// translation error divided by [`Self::model_size`], whichever is larger. `world` holds
    /// one matrix per bone (e.g. a rest-pose evaluation). With the rest pose this is 0 for a
    /// file whose bind pose is its rest pose.
    ///
    /// # Panics
    /// If an index is out of range or `world` is shorter than the skeleton.
    #[must_use]
    pub fn inverse_bind_error(&self, skin: usize, joint: usize, world: &[Affine3A]) -> f32 {
        let s = &self.skins[skin];
        let m = s.bind_space.inverse() * world[s.bones[joint].index()] * s.inverse_bind[joint];
        let d = m.matrix3 - glam::Mat3A::IDENTITY;
        let e3 = d
            .to_cols_array()
            .iter()
            .fold(0.0f32, |a, &x| a.max(x.abs()));
        let et = Vec3::from(m.translation).length() / self.model_size();
        let e = e3.max(et);
        if e.is_nan() {
            f32::INFINITY
        } else {
            e
        }
    }

    /// Samples clip `clip` at `time` (seconds; wrapped modulo the clip duration like three.js's
    /// `LoopRepeat`) and returns the world transform, relative to the scene root, of every skin
    /// joint (see [`Self::joint_bones`] for the order). For many samples keep a
    /// [`JointSampler`] instead.
    ///
    /// # Errors
    /// [`GltfError::NoSuchClip`].
    pub fn joint_worlds(&self, clip: usize, time: f32) -> Result<Vec<JointWorld>, GltfError> {
        let mut s = JointSampler::new(self, clip)?;
        s.sample(time);
        Ok(s.joints())
    }
}
