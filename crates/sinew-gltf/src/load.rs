//! Loading: document and buffers → skeleton, skins, clips.

use std::path::Path;
use std::sync::Arc;

use glam::{Affine3A, Mat4, Quat, Vec3};
use gltf::accessor::{DataType, Dimensions};
use sinew::anim::Clip;
use sinew::dynamics::SkeletonDynamicsBuilder;
use sinew::{BoneId, Model, Parent, Skeleton, SkeletonBuilder, Transform};

use crate::anim::{read_clips, JointSampler, JointWorld};
use crate::{GltfError, GltfWarning};

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

    fn from_bytes(
        bytes: &[u8],
        base: Option<&Path>,
        options: LoadOptions,
    ) -> Result<Self, GltfError> {
        let json_bytes: Vec<u8> = if bytes.starts_with(b"glTF") {
            gltf::binary::Glb::from_slice(bytes)
                .map_err(GltfError::Parse)?
                .json
                .into_owned()
        } else {
            bytes.to_vec()
        };
        let json: serde_json::Value = serde_json::from_slice(&json_bytes)
            .map_err(|e| GltfError::Parse(gltf::Error::Deserialize(e)))?;
        check_unvalidated(&json)?;
        let gltf = gltf::Gltf::from_slice(bytes).map_err(GltfError::Parse)?;
        let gltf::Gltf { document, blob } = gltf;
        let buffers = load_buffers(&document, base, blob)?;
        Self::build(document, json, buffers, options)
    }

    fn build(
        document: gltf::Document,
        json: serde_json::Value,
        buffers: Vec<Vec<u8>>,
        options: LoadOptions,
    ) -> Result<Self, GltfError> {
        let mut warnings = Vec::new();
        let node_count = document.nodes().len();
        if document.skins().len() == 0 {
            return Err(GltfError::NoSkin);
        }
        // Parents.
        let mut parent: Vec<Option<usize>> = vec![None; node_count];
        for node in document.nodes() {
            for child in node.children() {
                let c = child.index();
                if let Some(first) = parent[c] {
                    return Err(GltfError::MultipleParents {
                        node: c,
                        first,
                        second: node.index(),
                    });
                }
                parent[c] = Some(node.index());
            }
        }
        // Bone nodes: joints and their ancestors (bounded walk: cycles are reported by the
        // skeleton builder).
        let mut is_bone = vec![false; node_count];
        for skin in document.skins() {
            for joint in skin.joints() {
                let mut n = Some(joint.index());
                let mut steps = 0;
                while let Some(i) = n {
                    if is_bone[i] || steps > node_count {
                        break;
                    }
                    is_bone[i] = true;
                    n = parent[i];
                    steps += 1;
                }
            }
        }
        let node_names = unique_names(&document, &is_bone);
        // Skeleton, bones in node order.
        let mut source_of_node = vec![usize::MAX; node_count];
        let bone_nodes: Vec<usize> = (0..node_count).filter(|&i| is_bone[i]).collect();
        for (s, &n) in bone_nodes.iter().enumerate() {
            source_of_node[n] = s;
        }
        let mut builder = SkeletonBuilder::new();
        for &n in &bone_nodes {
            let node = document.nodes().nth(n).expect("node index in range");
            let rest = node_rest(&node, &mut warnings);
            let p = parent[n].map_or(Parent::Root, |p| Parent::Index(source_of_node[p]));
            builder.push(node_names[n].clone(), p, rest);
        }
        // Skins and their inverse bind matrices.
        let mut skins = Vec::new();
        let mut ibm_given = vec![false; node_count];
        for skin in document.skins() {
            let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
            let inverse_bind = match skin.inverse_bind_matrices() {
                Some(acc) => {
                    check_accessor(
                        &acc,
                        &buffers,
                        "inverse bind matrices",
                        &[Dimensions::Mat4],
                        &[DataType::F32],
                    )?;
                    if acc.count() < joints.len() {
                        return Err(GltfError::Accessor {
                            index: acc.index(),
                            usage: "inverse bind matrices",
                            reason: format!("{} matrices for {} joints", acc.count(), joints.len()),
                        });
                    }
                    let reader = skin.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
                    let it = reader
                        .read_inverse_bind_matrices()
                        .ok_or_else(|| unreadable(&acc, "inverse bind matrices"))?;
                    it.take(joints.len())
                        .map(|m| Affine3A::from_mat4(Mat4::from_cols_array_2d(&m)))
                        .collect()
                }
                None => vec![Affine3A::IDENTITY; joints.len()],
            };
            for (&n, m) in joints.iter().zip(&inverse_bind) {
                if ibm_given[n] {
                    continue;
                }
                ibm_given[n] = true;
                if m.is_finite() && m.matrix3.determinant().abs() > 1e-20 {
                    builder = builder.inverse_bind(node_names[n].clone(), *m);
                } else {
                    warnings.push(GltfWarning::SingularInverseBind {
                        skin: skin.index(),
                        node: n,
                    });
                }
            }
            skins.push((
                skin.index(),
                skin.name().map(str::to_owned),
                joints,
                inverse_bind,
            ));
        }
        let skeleton: Arc<Skeleton> = builder.build()?;
        let mut node_to_bone = vec![None; node_count];
        let mut bone_to_node = vec![0; skeleton.len()];
        for (s, &n) in bone_nodes.iter().enumerate() {
            let b = skeleton
                .from_source_index(s)
                .expect("every source index has a bone");
            node_to_bone[n] = Some(b);
            bone_to_node[b.index()] = n;
        }
        let skins: Vec<GltfSkin> = skins
            .into_iter()
            .map(|(index, name, joints, inverse_bind)| {
                let bones: Vec<BoneId> = joints
                    .iter()
                    .map(|&n| node_to_bone[n].expect("joints are bones"))
                    .collect();
                let root = (0..bones.len()).min_by_key(|&j| bones[j]);
                let bind_space = root.map_or(Affine3A::IDENTITY, |j| {
                    let m = skeleton.rest_world()[bones[j].index()] * inverse_bind[j];
                    if m.is_finite() && m.matrix3.determinant().abs() > 1e-20 {
                        m
                    } else {
                        Affine3A::IDENTITY
                    }
                });
                GltfSkin {
                    index,
                    name,
                    bones,
                    joints,
                    inverse_bind,
                    bind_space,
                }
            })
            .collect();
        let clips = read_clips(
            &document,
            &buffers,
            &node_to_bone,
            &node_names,
            options.normalize_rotations,
            &mut warnings,
        )?;
        let mut model = Self {
            document,
            json,
            buffers,
            options,
            model: Model::new(skeleton),
            skins,
            clips,
            node_to_bone,
            bone_to_node,
            node_names,
            warnings: Vec::new(),
            size: 1.0,
        };
        model.size = model.measure_size();
        // Bind check against the rest pose.
        let rest_world = model.model.skeleton().rest_world().to_vec();
        for skin in 0..model.skins.len() {
            for j in 0..model.skins[skin].joints.len() {
                let error = model.inverse_bind_error(skin, j, &rest_world);
                if error > INVERSE_BIND_TOLERANCE {
                    let node = model.skins[skin].joints[j];
                    warnings.push(GltfWarning::InverseBindMismatch {
                        skin: model.skins[skin].index,
                        node,
                        bone: model.node_names[node].clone(),
                        error,
                    });
                }
            }
        }
        // The reader's configure step, as at MMD model construction: the candidate physics
        // table (every bone long enough for a capsule, kinematic, profile required) is mounted.
        let skeleton = std::sync::Arc::clone(model.model.skeleton());
        match crate::GltfSkeletonDynamicsReader::candidate_table(&model) {
            Ok(table) => {
                let mut builder = SkeletonDynamicsBuilder::empty(&skeleton);
                builder.physics(table);
                if let Err(e) = builder.attach(&mut model.model) {
                    warnings.push(GltfWarning::NoCandidateTable {
                        reason: e.to_string(),
                    });
                }
            }
            Err(e) => warnings.push(GltfWarning::NoCandidateTable {
                reason: e.to_string(),
            }),
        }
        model.warnings = warnings;
        Ok(model)
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

/// Loads every buffer, in document order.
/// Refuses what the `gltf` crate (1.4) reads without validating it first, and would panic on:
/// a mesh primitive whose `POSITION` attribute names a missing accessor (its validation indexes
/// the accessor list with it; found by the `gltf_path` fuzz target), and an animation channel
/// whose target path is not a glTF property or whose target node does not exist (its
/// `Animation` validation skips the channels' targets; found by the corpus runner on a damaged
/// `"rotation"`).
fn check_unvalidated(json: &serde_json::Value) -> Result<(), GltfError> {
    fn items(v: &serde_json::Value) -> &[serde_json::Value] {
        v.as_array().map_or(&[][..], Vec::as_slice)
    }
    let accessors = items(&json["accessors"]).len();
    let nodes = items(&json["nodes"]).len();
    for (m, mesh) in items(&json["meshes"]).iter().enumerate() {
        for (p, primitive) in items(&mesh["primitives"]).iter().enumerate() {
            if let Some(index) = primitive["attributes"]["POSITION"].as_u64() {
                if index >= accessors as u64 {
                    return Err(GltfError::Accessor {
                        index: usize::try_from(index).unwrap_or(usize::MAX),
                        usage: "mesh POSITION",
                        reason: format!(
                            "named by mesh {m} primitive {p}; the document has {accessors} accessors"
                        ),
                    });
                }
            }
        }
    }
    for (a, animation) in items(&json["animations"]).iter().enumerate() {
        for (c, channel) in items(&animation["channels"]).iter().enumerate() {
            let target = &channel["target"];
            let bad = |reason: String| GltfError::Invalid {
                path: format!("animations[{a}].channels[{c}].target"),
                reason,
            };
            match target["path"].as_str() {
                Some("translation" | "rotation" | "scale" | "weights") => {}
                other => return Err(bad(format!("path {other:?}"))),
            }
            if let Some(node) = target["node"].as_u64() {
                if node >= nodes as u64 {
                    return Err(bad(format!("node {node} of {nodes}")));
                }
            }
        }
    }
    Ok(())
}

/// Largest buffer accepted, in bytes (1 GiB): a file cannot make the loader allocate more.
pub const MAX_BUFFER_BYTES: usize = 1 << 30;

/// Reads an external buffer: a relative URI (percent-decoded) naming a regular file inside the
/// glTF's own folder, of at least `length` bytes; only `length` bytes are read. Absolute paths,
/// other schemes, `..` and links that leave the folder, devices and pipes are refused.
fn external_buffer(base: &Path, uri: &str, length: usize) -> Result<Vec<u8>, String> {
    let decoded = urlencoding::decode(uri)
        .map_err(|_| "URI is not valid percent-encoded UTF-8".to_owned())?;
    let relative = Path::new(decoded.as_ref());
    if decoded.contains(':') || relative.is_absolute() {
        return Err(format!(
            "URI \"{uri}\" is absolute or has a scheme; only files beside the glTF are read"
        ));
    }
    if relative.components().any(|c| {
        !matches!(
            c,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    }) {
        return Err(format!("URI \"{uri}\" leaves the glTF's folder"));
    }
    let folder = base
        .canonicalize()
        .map_err(|e| format!("folder {}: {e}", base.display()))?;
    let path = base
        .join(relative)
        .canonicalize()
        .map_err(|e| format!("\"{uri}\": {e}"))?;
    if !path.starts_with(&folder) {
        return Err(format!("URI \"{uri}\" resolves outside the glTF's folder"));
    }
    let meta = std::fs::metadata(&path).map_err(|e| format!("\"{uri}\": {e}"))?;
    if !meta.is_file() {
        return Err(format!("\"{uri}\" is not a regular file"));
    }
    if meta.len() < length as u64 {
        return Err(format!(
            "\"{uri}\" holds {} bytes, {length} declared",
            meta.len()
        ));
    }
    let mut data = Vec::with_capacity(length);
    let file = std::fs::File::open(&path).map_err(|e| format!("\"{uri}\": {e}"))?;
    std::io::Read::read_to_end(&mut std::io::Read::take(file, length as u64), &mut data)
        .map_err(|e| format!("\"{uri}\": {e}"))?;
    Ok(data)
}

fn load_buffers(
    document: &gltf::Document,
    base: Option<&Path>,
    blob: Option<Vec<u8>>,
) -> Result<Vec<Vec<u8>>, GltfError> {
    let mut blob = blob;
    let mut out = Vec::with_capacity(document.buffers().len());
    for buffer in document.buffers() {
        let index = buffer.index();
        let err = |reason: String| GltfError::Buffer { index, reason };
        if buffer.length() > MAX_BUFFER_BYTES {
            return Err(err(format!(
                "{} bytes declared; the limit is {MAX_BUFFER_BYTES}",
                buffer.length()
            )));
        }
        let data = match buffer.source() {
            gltf::buffer::Source::Uri(uri) if !uri.starts_with("data:") => match base {
                Some(base) => external_buffer(base, uri, buffer.length()).map_err(err)?,
                None => {
                    return Err(err(
                        "external file referenced while loading from memory".to_owned()
                    ))
                }
            },
            source => {
                gltf::buffer::Data::from_source_and_blob(source, None, &mut blob)
                    .map_err(|e| {
                        err(match e {
                            gltf::Error::MissingBlob => "the GLB has no BIN chunk".to_owned(),
                            other => other.to_string(),
                        })
                    })?
                    .0
            }
        };
        if data.len() < buffer.length() {
            return Err(err(format!(
                "{} bytes declared, {} available",
                buffer.length(),
                data.len()
            )));
        }
        out.push(data);
    }
    Ok(out)
}

/// Unique names: bone nodes first (node order), then the others.
fn unique_names(document: &gltf::Document, is_bone: &[bool]) -> Vec<String> {
    let n = is_bone.len();
    let mut names = vec![String::new(); n];
    let mut taken = std::collections::HashSet::new();
    for pass in [true, false] {
        for node in document.nodes() {
            let i = node.index();
            if is_bone[i] != pass {
                continue;
            }
            let base = node
                .name()
                .filter(|s| !s.is_empty())
                .map_or_else(|| format!("node_{i}"), str::to_owned);
            let mut name = base.clone();
            while taken.contains(&name) {
                name = format!("{name}#{i}");
            }
            taken.insert(name.clone());
            names[i] = name;
        }
    }
    names
}

/// A node's local transform as TRS.
fn node_rest(node: &gltf::Node, warnings: &mut Vec<GltfWarning>) -> Transform {
    match node.transform() {
        gltf::scene::Transform::Decomposed {
            translation,
            rotation,
            scale,
        } => Transform::from_trs(
            Vec3::from(translation),
            Quat::from_array(rotation),
            Vec3::from(scale),
        ),
        gltf::scene::Transform::Matrix { matrix } => {
            let m = Affine3A::from_mat4(Mat4::from_cols_array_2d(&matrix));
            match Transform::try_from_affine(&m) {
                Some(t) if t.to_affine().abs_diff_eq(m, 1e-4) => t,
                Some(t) => {
                    warnings.push(GltfWarning::LossyNodeMatrix { node: node.index() });
                    t
                }
                None => {
                    warnings.push(GltfWarning::LossyNodeMatrix { node: node.index() });
                    Transform::from_translation(Vec3::from(m.translation))
                }
            }
        }
    }
}

fn unreadable(acc: &gltf::Accessor, usage: &'static str) -> GltfError {
    GltfError::Accessor {
        index: acc.index(),
        usage,
        reason: "data cannot be read".to_owned(),
    }
}

/// Checks an accessor before a `gltf` reader touches it: type, component type, count, and
/// that every element lies inside its buffer view and buffer.
pub(crate) fn check_accessor(
    acc: &gltf::Accessor,
    buffers: &[Vec<u8>],
    usage: &'static str,
    dims: &[Dimensions],
    types: &[DataType],
) -> Result<(), GltfError> {
    check_accessor_with(acc, buffers, usage, dims, types, true)
}

/// As [`check_accessor`]; `normalized_ints: false` accepts plain integer components (vertex
/// joint indices, triangle indices).
pub(crate) fn check_accessor_with(
    acc: &gltf::Accessor,
    buffers: &[Vec<u8>],
    usage: &'static str,
    dims: &[Dimensions],
    types: &[DataType],
    normalized_ints: bool,
) -> Result<(), GltfError> {
    let err = |reason: String| GltfError::Accessor {
        index: acc.index(),
        usage,
        reason,
    };
    if !dims.contains(&acc.dimensions()) {
        return Err(err(format!(
            "type {:?}, expected one of {dims:?}",
            acc.dimensions()
        )));
    }
    if !types.contains(&acc.data_type()) {
        return Err(err(format!(
            "component type {:?}, expected one of {types:?}",
            acc.data_type()
        )));
    }
    if normalized_ints && acc.data_type() != DataType::F32 && !acc.normalized() {
        return Err(err("integer components must be normalized".to_owned()));
    }
    if acc.count() == 0 {
        return Err(err("count is 0".to_owned()));
    }
    if acc.sparse().is_some() {
        return Err(err("sparse accessors are not supported".to_owned()));
    }
    let Some(view) = acc.view() else {
        return Err(err("no buffer view".to_owned()));
    };
    let size = acc.size();
    let stride = view.stride().unwrap_or(size);
    if stride < size {
        return Err(err(format!(
            "byte stride {stride} below element size {size}"
        )));
    }
    let need = acc.offset() as u128 + stride as u128 * (acc.count() as u128 - 1) + size as u128;
    if need > view.length() as u128 {
        return Err(err(format!(
            "needs {need} bytes of buffer view {} which has {}",
            view.index(),
            view.length()
        )));
    }
    let buffer_len = buffers.get(view.buffer().index()).map_or(0, Vec::len);
    if view.offset() as u128 + view.length() as u128 > buffer_len as u128 {
        return Err(err(format!(
            "buffer view {} ends past buffer {} ({} bytes)",
            view.index(),
            view.buffer().index(),
            buffer_len
        )));
    }
    Ok(())
}
