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
    let mut worlds = Vec::with_capacity(count as usize);
    let mut locals = Vec::new();
    for k in 0..count {
        worlds.push(anim.frame(k)?.world);
        if let Some(l) = anim.gltf_locals() {
            locals.push(l.to_vec());
        }
    }
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
            mmd_glb(&model, args.fps, &worlds)?
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

/// Appends `values` to `bin` and returns their byte offset.
fn push_f32(bin: &mut Vec<u8>, values: &[f32]) -> usize {
    let offset = bin.len();
    for v in values {
        bin.extend_from_slice(&v.to_le_bytes());
    }
    offset
}

const FLOAT: u32 = 5126;

/// Bakes MMD world matrices (file order, MMD units, one `Vec` per frame at `fps`) into a new
/// minimal `.glb`.
pub fn mmd_glb(model: &MmdModel, fps: f32, frames: &[Vec<Affine3A>]) -> Result<Vec<u8>, CliError> {
    let n = model.bones().len();
    if frames.is_empty() || frames.iter().any(|f| f.len() != n) {
        return Err(CliError::Internal("bake: frame sizes disagree".into()));
    }
    let mut bin = Vec::new();
    let mut accessors: Vec<Value> = Vec::new();
    let mut add = |bin: &mut Vec<u8>, values: &[f32], ty: &str, count: usize, minmax: bool| {
        let offset = push_f32(bin, values);
        let mut a = json!({"bufferView": 0, "byteOffset": offset, "componentType": FLOAT,
                           "count": count, "type": ty});
        if minmax {
            let lo = values.iter().copied().fold(f32::INFINITY, f32::min);
            let hi = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            a["min"] = json!([lo]);
            a["max"] = json!([hi]);
        }
        accessors.push(a);
        accessors.len() - 1
    };
    // Nodes: bones with rest translations relative to their parents.
    let mut children = vec![Vec::new(); n];
    for (i, b) in model.bones().iter().enumerate() {
        if let Some(p) = b.parent {
            children[p].push(i);
        }
    }
    let nodes: Vec<Value> = model
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
    let roots: Vec<usize> = (0..n)
        .filter(|&i| model.bones()[i].parent.is_none())
        .collect();
    // Inverse bind matrices: inverse rest world (a translation).
    let ibm: Vec<f32> = model
        .bones()
        .iter()
        .flat_map(|b| Mat4::from_translation(-point_to_gltf(b.position)).to_cols_array())
        .collect();
    let ibm_accessor = add(&mut bin, &ibm, "MAT4", n, false);
    // Animation.
    let times: Vec<f32> = (0..frames.len()).map(|k| k as f32 / fps).collect();
    let time_accessor = add(&mut bin, &times, "SCALAR", times.len(), true);
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    for (i, b) in model.bones().iter().enumerate() {
        let (mut ts, mut rs, mut ss) = (Vec::new(), Vec::new(), Vec::new());
        let mut prev = Quat::IDENTITY;
        for f in frames {
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
            let out = add(&mut bin, values, ty, frames.len(), false);
            samplers
                .push(json!({"input": time_accessor, "output": out, "interpolation": "LINEAR"}));
            channels
                .push(json!({"sampler": samplers.len() - 1, "target": {"node": i, "path": path}}));
        }
    }
    let doc = json!({
        "asset": {"version": "2.0", "generator": format!("sinew {} bake", env!("CARGO_PKG_VERSION"))},
        "scene": 0,
        "scenes": [{"name": model.name(), "nodes": roots}],
        "nodes": nodes,
        "skins": [{"name": model.name(), "joints": (0..n).collect::<Vec<_>>(), "inverseBindMatrices": ibm_accessor}],
        "animations": [{"name": "sinew_baked", "samplers": samplers, "channels": channels}],
        "accessors": accessors,
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": bin.len()}],
        "buffers": [{"byteLength": bin.len()}],
    });
    let json_text = serde_json::to_vec(&doc).map_err(|e| CliError::Internal(e.to_string()))?;
    Ok(glb(json_text, bin))
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
