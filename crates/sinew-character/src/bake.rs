//! Baking: evaluated frames of a character written as a `.glb` — the library's converter from
//! any model sinew reads, with its motion, IK, constraints and physics, to a glTF animation.
//!
//! * glTF models: the frames are appended as a new animation to a copy of the document
//!   ([`sinew_gltf::bake_glb`] from locals, [`sinew_gltf::bake_glb_from_world`] with physics).
//! * MMD models: a new minimal glTF: one node per bone (file order, rest translations), one
//!   skin over every bone, the mesh with its materials, textures (re-encoded as PNG) and vertex
//!   morphs as morph targets, one animation with `LINEAR` translation / rotation / scale
//!   channels and morph weights. MMD's left-handed, ~8 cm units become glTF's right-handed
//!   metres: positions × 0.08 with z → −z, quaternions `(x, y, z, w) → (−x, −y, z, w)`. The GLB
//!   container (JSON chunk + BIN chunk, 4-byte aligned) is written here.

use std::path::Path;

use glam::{Affine3A, Mat4, Quat, Vec3};
use serde_json::{json, Value};
use sinew::Transform;
use sinew_mmd::MmdModel;

use crate::{Character, CharacterError, CharacterModel, ModelKind};

/// One evaluated frame to bake.
#[derive(Clone, Debug, Default)]
pub struct BakedFrame {
    /// World matrices, the skeleton's order.
    pub world: Vec<Affine3A>,
    /// The frame's local transforms when they are exact (no physics writeback): a glTF bake
    /// then keeps joints scaled to zero exactly, where locals recovered from world matrices
    /// cannot.
    pub locals: Option<Vec<Transform>>,
    /// Morph weights, one per character morph.
    pub morphs: Vec<f32>,
}

impl Character {
    /// The frame as last evaluated, for baking.
    #[must_use]
    pub fn baked_frame(&self) -> BakedFrame {
        BakedFrame {
            world: self.world().to_vec(),
            locals: (!self.is_physics_enabled()).then(|| self.instance().state().locals().to_vec()),
            morphs: self.morph_weights().to_vec(),
        }
    }

    /// Evaluates `count` frames from time 0 at `fps` (physics simulated along) and bakes them
    /// into a `.glb` ([`bake_glb`]); `progress` is told each frame evaluated. Returns the bytes
    /// and warnings (textures that could not be embedded).
    ///
    /// # Errors
    /// [`CharacterError::Invalid`] for a rate or count out of range; what a frame or the bake
    /// fails with.
    pub fn bake(
        &mut self,
        fps: f32,
        count: u32,
        mut progress: impl FnMut(u32),
    ) -> Result<(Vec<u8>, Vec<String>), CharacterError> {
        if !(fps.is_finite() && fps > 0.0) {
            return Err(CharacterError::invalid("fps", "finite and > 0", fps));
        }
        if count == 0 {
            return Err(CharacterError::invalid("the frame count", ">= 1", 0));
        }
        let mut frames = Vec::with_capacity(count as usize);
        for k in 0..count {
            self.update(k as f32 / fps, 1.0 / fps)?;
            frames.push(self.baked_frame());
            progress(k + 1);
        }
        bake_glb(self.model(), fps, &frames)
    }
}

/// Bakes `frames` (evaluated at `fps` from time 0) of `model` into a `.glb` (see the module
/// docs). Returns the bytes and warnings (textures that could not be embedded).
///
/// # Errors
/// [`CharacterError::WrongKind`] for a model built in code (no document to bake into);
/// [`CharacterError::NonFinite`] for a non-finite pose; a glTF export error.
pub fn bake_glb(
    model: &CharacterModel,
    fps: f32,
    frames: &[BakedFrame],
) -> Result<(Vec<u8>, Vec<String>), CharacterError> {
    match model.kind() {
        ModelKind::Gltf => {
            let gltf = model.gltf().expect("a glTF model");
            let bytes = match frames
                .iter()
                .map(|f| f.locals.clone())
                .collect::<Option<Vec<_>>>()
            {
                Some(locals) => sinew_gltf::bake_glb(gltf, fps, &locals)?,
                None => {
                    let worlds: Vec<Vec<Affine3A>> =
                        frames.iter().map(|f| f.world.clone()).collect();
                    sinew_gltf::bake_glb_from_world(gltf, fps, &worlds)?
                }
            };
            Ok((bytes, Vec::new()))
        }
        ModelKind::Mmd => {
            let (mmd, _) = model.mmd().expect("an MMD model");
            // The bake's nodes are the file's bones: world matrices leave in file order.
            let file_frames: Vec<MmdFrame> = (frames.iter())
                .map(|f| MmdFrame {
                    world: (0..mmd.bones().len())
                        .map(|i| {
                            let b = model.bone_of_source(i).expect("a file bone");
                            f.world.get(b.index()).copied().unwrap_or(Affine3A::NAN)
                        })
                        .collect(),
                    morphs: f.morphs.clone(),
                })
                .collect();
            mmd_glb(mmd, model.folder(), fps, &file_frames)
        }
        ModelKind::Built => Err(CharacterError::WrongKind(
            "a model built in code has no document to bake into".to_owned(),
        )),
    }
}

/// MMD units to metres.
pub const MMD_TO_METRES: f32 = 0.08;

/// An MMD-space point in glTF metres.
#[must_use]
pub fn point_to_gltf(p: Vec3) -> Vec3 {
    Vec3::new(p.x, p.y, -p.z) * MMD_TO_METRES
}

/// An MMD-space rotation in glTF's right-handed space.
#[must_use]
pub fn quat_to_gltf(q: Quat) -> Quat {
    Quat::from_xyzw(-q.x, -q.y, q.z, q.w)
}

const FLOAT: u32 = 5126;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;
const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;

/// The binary chunk and the buffer views and accessors that point into it: one view per
/// accessor or image, each 4-byte aligned.
#[derive(Default)]
struct Bin {
    bytes: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Bin {
    /// Appends `data` as a buffer view (with `target` for vertex and index data).
    fn view(&mut self, data: &[u8], target: Option<u32>) -> usize {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        let mut v = json!({"buffer": 0, "byteOffset": self.bytes.len(), "byteLength": data.len()});
        if let Some(t) = target {
            v["target"] = json!(t);
        }
        self.bytes.extend_from_slice(data);
        self.views.push(v);
        self.views.len() - 1
    }

    /// A float accessor of `count` elements of type `ty`; `bounds` adds per-component min/max.
    fn floats(&mut self, values: &[f32], ty: &str, target: Option<u32>, bounds: bool) -> usize {
        let comps = match ty {
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            _ => 1,
        };
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes, target);
        let mut a = json!({"bufferView": view, "componentType": FLOAT,
                           "count": values.len() / comps, "type": ty});
        if bounds {
            let mut lo = vec![f32::INFINITY; comps];
            let mut hi = vec![f32::NEG_INFINITY; comps];
            for c in values.chunks_exact(comps) {
                for k in 0..comps {
                    lo[k] = lo[k].min(c[k]);
                    hi[k] = hi[k].max(c[k]);
                }
            }
            a["min"] = json!(lo);
            a["max"] = json!(hi);
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }

    /// An accessor of `u16` quadruples (joint indices).
    fn joints(&mut self, values: &[[u16; 4]]) -> usize {
        let bytes: Vec<u8> = values
            .iter()
            .flatten()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let view = self.view(&bytes, Some(ARRAY_BUFFER));
        self.accessors
            .push(json!({"bufferView": view, "componentType": UNSIGNED_SHORT,
                                   "count": values.len(), "type": "VEC4"}));
        self.accessors.len() - 1
    }

    /// A triangle index accessor.
    fn indices(&mut self, values: &[u32]) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes, Some(ELEMENT_ARRAY_BUFFER));
        self.accessors
            .push(json!({"bufferView": view, "componentType": UNSIGNED_INT,
                                   "count": values.len(), "type": "SCALAR"}));
        self.accessors.len() - 1
    }
}

/// One baked frame of an MMD model: world matrices (file order, MMD units) and morph weights
/// (one per model morph, after group expansion).
struct MmdFrame {
    world: Vec<Affine3A>,
    morphs: Vec<f32>,
}

/// The mesh part of an MMD bake: vertices, triangles one primitive per material, materials
/// with their textures (re-encoded as PNG), skin weights, vertex morphs as morph targets.
/// Returns the mesh JSON, the morph indices that became targets, and warnings.
fn mmd_mesh(
    model: &MmdModel,
    folder: &Path,
    bin: &mut Bin,
    images: &mut Vec<Value>,
    textures: &mut Vec<Value>,
    materials: &mut Vec<Value>,
) -> (Value, Vec<usize>, Vec<String>) {
    let mesh = model.mesh();
    let mut warnings = Vec::new();
    let positions: Vec<f32> = mesh
        .positions
        .iter()
        .flat_map(|&p| point_to_gltf(p).to_array())
        .collect();
    let normals: Vec<f32> = mesh
        .normals
        .iter()
        .flat_map(|n| Vec3::new(n.x, n.y, -n.z).normalize_or(Vec3::Y).to_array())
        .collect();
    let uvs: Vec<f32> = mesh.uvs.iter().flat_map(|uv| uv.to_array()).collect();
    let weights = mesh.skin.linear_weights();
    let joints: Vec<[u16; 4]> = weights
        .iter()
        .map(|(j, _)| j.map(|x| u16::try_from(x).unwrap_or(0)))
        .collect();
    let w: Vec<f32> = weights.iter().flat_map(|(_, w)| *w).collect();
    let mut attributes = json!({
        "POSITION": bin.floats(&positions, "VEC3", Some(ARRAY_BUFFER), true),
        "JOINTS_0": bin.joints(&joints),
        "WEIGHTS_0": bin.floats(&w, "VEC4", Some(ARRAY_BUFFER), false),
    });
    if !normals.is_empty() {
        attributes["NORMAL"] = json!(bin.floats(&normals, "VEC3", Some(ARRAY_BUFFER), false));
    }
    if !uvs.is_empty() {
        attributes["TEXCOORD_0"] = json!(bin.floats(&uvs, "VEC2", Some(ARRAY_BUFFER), false));
    }
    // Vertex morphs as dense morph targets (glTF has no UV or bone morphs).
    let n = mesh.positions.len();
    let mut target_morphs = Vec::new();
    let mut targets = Vec::new();
    let mut names = Vec::new();
    for (i, m) in mesh.morphs.iter().enumerate() {
        if let sinew_skin::MorphKind::Vertex {
            vertices,
            positions,
            ..
        } = &m.kind
        {
            if vertices.is_empty() {
                continue;
            }
            let mut dense = vec![0.0f32; n * 3];
            for (&v, d) in vertices.iter().zip(positions) {
                let d = point_to_gltf(*d).to_array();
                dense[v as usize * 3..v as usize * 3 + 3].copy_from_slice(&d);
            }
            targets.push(json!({"POSITION": bin.floats(&dense, "VEC3", Some(ARRAY_BUFFER), true)}));
            names.push(m.name.clone());
            target_morphs.push(i);
        }
    }
    // Triangles: MMD's clockwise fronts become glTF's counter-clockwise ones (two corners
    // swapped); one primitive per material.
    let mut primitives = Vec::new();
    let mut image_of: Vec<Option<usize>> = vec![None; mesh.textures.len()];
    for mat in &mesh.materials {
        if mat.index_count == 0 {
            continue;
        }
        let range = mat.first_index as usize..(mat.first_index + mat.index_count) as usize;
        let tris: Vec<u32> = mesh.indices[range]
            .chunks_exact(3)
            .flat_map(|t| [t[0], t[2], t[1]])
            .collect();
        let mut m = json!({
            "name": mat.name,
            "pbrMetallicRoughness": {
                "baseColorFactor": mat.diffuse.to_array().map(|c| c.clamp(0.0, 1.0)),
                "metallicFactor": 0.0,
                "roughnessFactor": 1.0,
            },
            "doubleSided": mat.double_sided,
        });
        if mat.diffuse.w < 1.0 {
            m["alphaMode"] = json!("BLEND");
        }
        if let Some(t) = mat.texture {
            let t = t as usize;
            if image_of[t].is_none() {
                image_of[t] = embed_texture(&mesh.textures[t], folder, bin, images, &mut warnings);
            }
            if let Some(img) = image_of[t] {
                textures.push(json!({"source": img}));
                m["pbrMetallicRoughness"]["baseColorTexture"] =
                    json!({"index": textures.len() - 1});
            }
        }
        materials.push(m);
        let mut p = json!({
            "attributes": attributes,
            "indices": bin.indices(&tris),
            "material": materials.len() - 1,
        });
        if !targets.is_empty() {
            p["targets"] = json!(targets);
        }
        primitives.push(p);
    }
    let mut mesh_json = json!({"name": model.name(), "primitives": primitives});
    if !names.is_empty() {
        mesh_json["weights"] = json!(vec![0.0; names.len()]);
        mesh_json["extras"] = json!({"targetNames": names});
    }
    (mesh_json, target_morphs, warnings)
}

/// Reads a texture next to the model, re-encodes it as PNG and adds it as an embedded image.
fn embed_texture(
    source: &sinew_skin::TextureSource,
    folder: &Path,
    bin: &mut Bin,
    images: &mut Vec<Value>,
    warnings: &mut Vec<String>,
) -> Option<usize> {
    let sinew_skin::TextureSource::File(rel) = source else {
        return None;
    };
    let Some(path) = sinew_raster::find_texture(folder, rel) else {
        warnings.push(format!(
            "texture {} not found; its material keeps its colour",
            rel.display()
        ));
        return None;
    };
    let png = std::fs::read(&path)
        .map_err(|e| e.to_string())
        .and_then(|b| sinew_raster::Texture::decode(&b).map_err(|e| e.to_string()))
        .and_then(|t| t.encode_png().map_err(|e| e.to_string()));
    match png {
        Ok(png) => {
            let view = bin.view(&png, None);
            images.push(json!({"bufferView": view, "mimeType": "image/png",
                               "name": rel.display().to_string()}));
            Some(images.len() - 1)
        }
        Err(e) => {
            warnings.push(format!(
                "texture {}: {e}; its material keeps its colour",
                rel.display()
            ));
            None
        }
    }
}

/// Bakes evaluated MMD frames (at `fps`) into a new `.glb`: bone nodes, a skin, the mesh with
/// its materials, textures and morph targets, and one animation (bone TRS and morph weights).
/// Returns the bytes and warnings (textures that could not be embedded).
fn mmd_glb(
    model: &MmdModel,
    folder: &Path,
    fps: f32,
    frames: &[MmdFrame],
) -> Result<(Vec<u8>, Vec<String>), CharacterError> {
    let n = model.bones().len();
    if frames.is_empty() || frames.iter().any(|f| f.world.len() != n) {
        return Err(CharacterError::invalid(
            "the baked frames",
            "one or more, each one matrix per bone",
            frames.len(),
        ));
    }
    let mut bin = Bin::default();
    // Nodes: bones with rest translations relative to their parents.
    let mut children = vec![Vec::new(); n];
    for (i, b) in model.bones().iter().enumerate() {
        if let Some(p) = b.parent {
            children[p].push(i);
        }
    }
    let mut nodes: Vec<Value> = model
        .bones()
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let rest = match b.parent {
                Some(p) => b.position - model.bones()[p].position,
                None => b.position,
            };
            let t = point_to_gltf(rest);
            let mut node = json!({"name": b.name, "translation": [t.x, t.y, t.z]});
            if !children[i].is_empty() {
                node["children"] = json!(children[i]);
            }
            node
        })
        .collect();
    let mut roots: Vec<usize> = (0..n)
        .filter(|&i| model.bones()[i].parent.is_none())
        .collect();
    // Inverse bind matrices: inverse rest world (a translation).
    let ibm: Vec<f32> = model
        .bones()
        .iter()
        .flat_map(|b| Mat4::from_translation(-point_to_gltf(b.position)).to_cols_array())
        .collect();
    let ibm_accessor = bin.floats(&ibm, "MAT4", None, false);
    // The mesh, on a node of its own at the scene root.
    let (mut images, mut textures, mut materials) = (Vec::new(), Vec::new(), Vec::new());
    let has_mesh = !model.mesh().positions.is_empty() && !model.mesh().indices.is_empty();
    let (mesh_json, target_morphs, warnings) = if has_mesh {
        mmd_mesh(
            model,
            folder,
            &mut bin,
            &mut images,
            &mut textures,
            &mut materials,
        )
    } else {
        (Value::Null, Vec::new(), Vec::new())
    };
    let mesh_node = has_mesh.then(|| {
        nodes.push(json!({"name": model.name(), "mesh": 0, "skin": 0}));
        roots.push(n);
        n
    });
    // Animation.
    let times: Vec<f32> = (0..frames.len()).map(|k| k as f32 / fps).collect();
    let time_accessor = bin.floats(&times, "SCALAR", None, true);
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    for (i, b) in model.bones().iter().enumerate() {
        let (mut ts, mut rs, mut ss) = (Vec::new(), Vec::new(), Vec::new());
        let mut prev = Quat::IDENTITY;
        for f in frames {
            let f = &f.world;
            let local = match b.parent {
                Some(p) => f[p].inverse() * f[i],
                None => f[i],
            };
            let (s, r, t) = local.to_scale_rotation_translation();
            if !(s.is_finite() && r.is_finite() && t.is_finite()) {
                return Err(CharacterError::NonFinite(format!(
                    "bone \"{}\"'s baked pose",
                    b.name
                )));
            }
            let t = point_to_gltf(t);
            let mut r = quat_to_gltf(r.normalize());
            if r.dot(prev) < 0.0 {
                r = -r;
            }
            prev = r;
            ts.extend_from_slice(&[t.x, t.y, t.z]);
            rs.extend_from_slice(&[r.x, r.y, r.z, r.w]);
            ss.extend_from_slice(&[s.x, s.y, s.z]);
        }
        for (path, values, ty) in [
            ("translation", &ts, "VEC3"),
            ("rotation", &rs, "VEC4"),
            ("scale", &ss, "VEC3"),
        ] {
            let out = bin.floats(values, ty, None, false);
            samplers
                .push(json!({"input": time_accessor, "output": out, "interpolation": "LINEAR"}));
            channels
                .push(json!({"sampler": samplers.len() - 1, "target": {"node": i, "path": path}}));
        }
    }
    if let (Some(node), false) = (mesh_node, target_morphs.is_empty()) {
        let weights: Vec<f32> = frames
            .iter()
            .flat_map(|f| {
                target_morphs
                    .iter()
                    .map(|&m| f.morphs.get(m).copied().unwrap_or(0.0))
            })
            .collect();
        let out = bin.floats(&weights, "SCALAR", None, false);
        samplers.push(json!({"input": time_accessor, "output": out, "interpolation": "LINEAR"}));
        channels.push(
            json!({"sampler": samplers.len() - 1, "target": {"node": node, "path": "weights"}}),
        );
    }
    let mut doc = json!({
        "asset": {"version": "2.0", "generator": format!("sinew {} bake", env!("CARGO_PKG_VERSION"))},
        "scene": 0,
        "scenes": [{"name": model.name(), "nodes": roots}],
        "nodes": nodes,
        "skins": [{"name": model.name(), "joints": (0..n).collect::<Vec<_>>(), "inverseBindMatrices": ibm_accessor}],
        "animations": [{"name": "sinew_baked", "samplers": samplers, "channels": channels}],
    });
    if has_mesh {
        doc["meshes"] = json!([mesh_json]);
        doc["materials"] = json!(materials);
        if !images.is_empty() {
            doc["images"] = json!(images);
            doc["textures"] = json!(textures);
        }
    }
    while !bin.bytes.len().is_multiple_of(4) {
        bin.bytes.push(0);
    }
    doc["accessors"] = json!(bin.accessors);
    doc["bufferViews"] = json!(bin.views);
    doc["buffers"] = json!([{"byteLength": bin.bytes.len()}]);
    Ok((sinew_gltf::write_glb(&doc, bin.bytes)?, warnings))
}
