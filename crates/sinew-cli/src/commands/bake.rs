//! `sinew bake MODEL …`: evaluates a model over time and writes the result as a `.glb`.
//!
//! * glTF models: the clip is re-sampled (plus physics when the model carries a physics table;
//!   glTF files carry none, so `--physics` is an input error for them) and appended to a copy
//!   of the document with [`sinew_gltf::bake_glb_from_world`].
//! * MMD models: the evaluated MMD frames (motion, IK, append, optionally physics) become a new
//!   minimal glTF: one node per bone (file order, rest translations), one skin over every bone,
//!   one animation with `LINEAR` translation/rotation/scale channels at `--fps`. MMD's
//!   left-handed, ~8 cm units are converted to glTF's right-handed metres: positions × 0.08 with
//!   z → −z, quaternions `(x, y, z, w) → (−x, −y, z, w)`. The GLB container (JSON chunk + BIN
//!   chunk, 4-byte aligned) is written here by hand.

use std::path::{Path, PathBuf};

use clap::Args;
use glam::{Affine3A, Mat4, Quat, Vec3};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};
use sinew_mmd::MmdModel;

use crate::commands::inspect::bad_input;
use crate::error::CliError;
use crate::limits::{Output, WorkLimits};
use crate::source::{kind_of, load_mmd, AnimSpec, Animator, ModelKind};

/// Arguments of `sinew bake`.
#[derive(Args, Debug)]
pub struct BakeArgs {
    /// The model (.pmx, .pmd, .glb, .gltf).
    pub model: PathBuf,
    /// A VMD motion (MMD models).
    #[arg(long)]
    pub motion: Option<PathBuf>,
    /// The animation to re-sample (glTF models; default 0).
    #[arg(long)]
    pub clip: Option<usize>,
    /// Simulate rigid bodies while baking.
    #[arg(long)]
    pub physics: bool,
    /// Frames per second of the baked animation (1..=120).
    #[arg(long, default_value_t = 30.0)]
    pub fps: f32,
    /// Length in seconds (default: the motion or clip, at most 60 s; 1 s for a static model).
    #[arg(long)]
    pub seconds: Option<f32>,
    /// The `.glb` to write.
    #[arg(long)]
    pub out: PathBuf,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Work bounds.
    #[command(flatten)]
    pub limits: WorkLimits,
}

/// MMD units to metres.
pub const MMD_TO_METRES: f32 = 0.08;

/// An MMD-space point in glTF metres.
pub fn point_to_gltf(p: Vec3) -> Vec3 {
    Vec3::new(p.x, p.y, -p.z) * MMD_TO_METRES
}

/// An MMD-space rotation in glTF's right-handed space.
pub fn quat_to_gltf(q: Quat) -> Quat {
    Quat::from_xyzw(-q.x, -q.y, q.z, q.w)
}

/// Runs the command.
pub fn run(args: &BakeArgs) -> Result<(), CliError> {
    if !(args.fps.is_finite() && (1.0..=120.0).contains(&args.fps)) {
        return Err(bad_input(
            Path::new("--fps"),
            format!("must be within 1..=120, got {}", args.fps),
        ));
    }
    if let Some(s) = args.seconds {
        if !(s.is_finite() && s > 0.0 && s <= 600.0) {
            return Err(bad_input(
                Path::new("--seconds"),
                format!("must be within 0..=600 (exclusive of 0), got {s}"),
            ));
        }
    }
    let kind = kind_of(&args.model)?;
    let output = Output::create(&args.out)?;
    let mut anim = Animator::new(&AnimSpec {
        model: args.model.clone(),
        motion: args.motion.clone(),
        clip: args.clip,
        physics: args.physics,
        fps: args.fps,
    })?;
    let seconds = args.seconds.unwrap_or(if anim.duration > 0.0 {
        anim.duration.min(60.0)
    } else {
        1.0
    });
    let count = ((seconds * args.fps).round() as u32).max(1) + 1;
    args.limits.frames(u64::from(count), "--seconds")?;
    // Frames held and the baked channels (3 × 48 bytes a bone a frame), plus the document's
    // nodes, accessors and channels (measured about 24 KiB a bone).
    args.limits.memory(
        anim.bone_count as u64 * (24 * 1024 + u64::from(count) * 48 * 3),
        "--seconds",
    )?;
    if let (None, true) = (args.seconds, anim.duration > 60.0) {
        eprintln!(
            "sinew: note: the motion lasts {:.1} s; baked its first 60 s (--seconds sets the length)",
            anim.duration
        );
    }
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(u64::from(count))
    };
    bar.set_style(
        ProgressStyle::with_template("{msg:>10} [{bar:30}] {pos}/{len}")
            .map_err(|e| CliError::Internal(e.to_string()))?,
    );
    bar.set_message("evaluate");
    let mut worlds = Vec::with_capacity(count as usize);
    let mut morphs = Vec::with_capacity(count as usize);
    let mut locals = Vec::new();
    for k in 0..count {
        let posed = anim.frame(k)?;
        worlds.push(posed.world);
        morphs.push(posed.morphs);
        if let Some(l) = anim.gltf_locals() {
            locals.push(l.to_vec());
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let bytes = match kind {
        ModelKind::Gltf => {
            let model = crate::source::load_gltf(&args.model)?;
            if locals.len() == worlds.len() {
                sinew_gltf::bake_glb(&model, args.fps, &locals)
            } else {
                sinew_gltf::bake_glb_from_world(&model, args.fps, &worlds)
            }
            .map_err(|e| bad_input(&args.model, e))?
        }
        ModelKind::Mmd => {
            let model = load_mmd(&args.model)?;
            let frames: Vec<MmdFrame> = worlds
                .into_iter()
                .zip(morphs)
                .map(|(world, morphs)| MmdFrame { world, morphs })
                .collect();
            let (bytes, warnings) = mmd_glb(&model, anim.model_folder(), args.fps, &frames)?;
            for w in warnings {
                eprintln!("sinew: warning: {}: {w}", args.model.display());
            }
            bytes
        }
    };
    std::fs::write(&args.out, &bytes).map_err(|e| output.error(e))?;
    output.keep();
    println!("{}", anim.description);
    println!(
        "wrote {} ({} bytes, {} bones, {count} frames at {} fps{})",
        args.out.display(),
        bytes.len(),
        anim.bone_count,
        args.fps,
        if args.physics { ", physics on" } else { "" }
    );
    Ok(())
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
pub struct MmdFrame {
    /// World matrices.
    pub world: Vec<Affine3A>,
    /// Morph weights.
    pub morphs: Vec<f32>,
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
    let Some(path) = crate::render::find_texture(folder, rel) else {
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
pub fn mmd_glb(
    model: &MmdModel,
    folder: &Path,
    fps: f32,
    frames: &[MmdFrame],
) -> Result<(Vec<u8>, Vec<String>), CliError> {
    let n = model.bones().len();
    if frames.is_empty() || frames.iter().any(|f| f.world.len() != n) {
        return Err(CliError::Internal("bake: frame sizes disagree".into()));
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
                return Err(bad_input(
                    Path::new(&model.name()),
                    format!("bone \"{}\" has a non-finite pose; nothing baked", b.name),
                ));
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
    let json_text = serde_json::to_vec(&doc).map_err(|e| CliError::Internal(e.to_string()))?;
    Ok((glb(json_text, bin.bytes), warnings))
}

/// A GLB container: header, JSON chunk (space-padded), BIN chunk (zero-padded).
pub fn glb(mut json_chunk: Vec<u8>, mut bin: Vec<u8>) -> Vec<u8> {
    while !json_chunk.len().is_multiple_of(4) {
        json_chunk.push(b' ');
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + json_chunk.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&0x4654_6C67u32.to_le_bytes());
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json_chunk.len() as u32).to_le_bytes());
    out.extend_from_slice(&0x4E4F_534Au32.to_le_bytes());
    out.extend_from_slice(&json_chunk);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(&0x004E_4942u32.to_le_bytes());
    out.extend_from_slice(&bin);
    out
}
