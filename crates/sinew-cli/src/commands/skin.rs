//! `sinew skin MODEL …`: skinned vertex positions (and morph weights) at frames, as JSON in the
//! schema of `shared/oracle/three_skin_oracle.mjs`, so sinew's CPU skinning can be diffed
//! against three.js (`shared/conformance/skin/`).
//!
//! MMD models (`.pmx`, `.pmd`): `--motion`, `--frames` (30 fps); positions in MMD model space.
//! glTF models (`.glb`, `.gltf`): `--clip`, `--times` (seconds); every skinned primitive,
//! relative to the scene root, with its animated morph weights. Either kind: `--pose` (bones
//! and IK targets), `--physics` (simulated in order from 0; glTF: `--dynamic`). The evaluation
//! is the library's `Character`. Morphs are applied before
//! skinning; SDEF and QDEF vertices are skinned as such (three.js blends them linearly, so
//! compare those separately). `--dual-quaternion` skins every vertex with dual quaternions.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use serde_json::{json, Value};
use sinew_skin::SkinMode;

use crate::commands::inspect::bad_input;
use crate::error::CliError;
use crate::limits::{Output, WorkLimits};
use crate::skinning::Meshes;
use crate::source::SourceArgs;
use crate::source::{kind_of, AnimSpec, Animator, ModelKind, MMD_FPS};

/// Arguments of `sinew skin`.
#[derive(Args, Debug)]
pub struct SkinArgs {
    /// What is played.
    #[command(flatten)]
    pub source: SourceArgs,
    /// Frames (30 fps) to evaluate, comma-separated (increasing with `--physics`; MMD models).
    #[arg(long, value_delimiter = ',', default_value = "0")]
    pub frames: Vec<u32>,
    /// Times in seconds to sample (glTF models), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "0")]
    pub times: Vec<f32>,
    /// Skin every vertex with dual quaternions instead of linear blending.
    #[arg(long)]
    pub dual_quaternion: bool,
    /// Output JSON file.
    #[arg(long)]
    pub json: PathBuf,
    /// Work bounds.
    #[command(flatten)]
    pub limits: WorkLimits,
}

/// Bytes of JSON one vertex takes in one frame (an upper estimate, for the output bound).
const JSON_BYTES_PER_VERTEX: u64 = 40;

fn round(v: f32) -> f64 {
    (f64::from(v) * 1e5).round() / 1e5
}

/// Vertex positions as the schema's flat, rounded array; a non-finite one is the error `bad`
/// makes for its index.
fn positions_json(
    positions: &[glam::Vec3],
    bad: impl Fn(usize) -> CliError,
) -> Result<Vec<f64>, CliError> {
    let mut out = Vec::with_capacity(positions.len() * 3);
    for (v, p) in positions.iter().enumerate() {
        if !p.is_finite() {
            return Err(bad(v));
        }
        out.extend([round(p.x), round(p.y), round(p.z)]);
    }
    Ok(out)
}

/// Writes `doc` to the output and keeps it.
fn write_json(mut output: Output, doc: &Value) -> Result<(), CliError> {
    {
        let mut out =
            std::io::BufWriter::new(output.file().try_clone().map_err(|e| output.error(e))?);
        serde_json::to_writer(&mut out, doc).map_err(|e| output.error(e))?;
        out.flush().map_err(|e| output.error(e))?;
    }
    output.keep();
    Ok(())
}

/// Runs the command.
pub fn run(args: &SkinArgs) -> Result<(), CliError> {
    if kind_of(&args.source.model)? == ModelKind::Gltf {
        return run_gltf(args);
    }
    if args.source.physics && args.frames.windows(2).any(|w| w[1] <= w[0]) {
        return Err(bad_input(
            std::path::Path::new("--frames"),
            "with --physics, frames must be increasing (they are simulated in order)",
        ));
    }
    let last = args.frames.iter().copied().max().unwrap_or(0);
    let output = Output::create(&args.json)?;
    let mut anim = Animator::new(&args.source.spec(MMD_FPS))?;
    let model = std::sync::Arc::clone(anim.model());
    let mode = if args.dual_quaternion {
        SkinMode::DualQuaternion
    } else {
        SkinMode::Linear
    };
    let mut meshes = Meshes::of(&model, mode)
        .ok_or_else(|| bad_input(&args.source.model, "the model has no mesh"))?;
    let evaluated = if args.source.physics {
        u64::from(last) + 1
    } else {
        args.frames.len() as u64
    };
    args.limits.frames(evaluated, "--frames")?;
    let vertices: usize = meshes.parts.iter().map(|p| p.mesh.positions.len()).sum();
    args.limits.memory(
        args.frames.len() as u64 * vertices as u64 * JSON_BYTES_PER_VERTEX,
        "--frames",
    )?;
    let mut frames = Vec::with_capacity(args.frames.len());
    for &f in &args.frames {
        let posed = anim.frame(f)?;
        meshes.update(&posed.world, &posed.morphs)?;
        let morphs: serde_json::Map<String, Value> = model
            .morph_names()
            .iter()
            .zip(&posed.morphs)
            .filter(|(_, &w)| w != 0.0)
            .map(|(n, &w)| (n.clone(), json!(round(w))))
            .collect();
        let mut parts = Vec::new();
        for part in &meshes.parts {
            let positions = positions_json(part.deformed().positions(), |v| {
                bad_input(
                    &args.source.model,
                    format!("frame {f}: vertex {v} skins to a non-finite position"),
                )
            })?;
            parts.push(json!({
                "name": Value::Null,
                "vertices": part.mesh.positions.len(),
                "positions": positions,
            }));
        }
        frames.push(json!({
            "frame": f,
            "time": f as f32 / MMD_FPS,
            "morphs": morphs,
            "meshes": parts,
        }));
    }
    let doc = json!({
        "tool": format!("sinew {} skin ({})", env!("CARGO_PKG_VERSION"), if args.dual_quaternion { "dual quaternion" } else { "linear blend, SDEF, QDEF" }),
        "model": args.source.model.file_name().map(|n| n.to_string_lossy().into_owned()),
        "vmd": args.source.motion.as_ref().and_then(|m| m.file_name()).map(|n| n.to_string_lossy().into_owned()),
        "fps": MMD_FPS,
        "physics": args.source.physics,
        "coordinate_note": "positions in MMD model space (left-handed, file space)",
        "frames": frames,
    });
    write_json(output, &doc)?;
    println!(
        "wrote {} ({} frame{}, {vertices} vertices)",
        args.json.display(),
        args.frames.len(),
        if args.frames.len() == 1 { "" } else { "s" }
    );
    Ok(())
}

/// glTF: every skinned primitive (three.js's traversal order) at each time, relative to the
/// scene root, in the schema of the oracle's glTF output.
fn run_gltf(args: &SkinArgs) -> Result<(), CliError> {
    if args.source.motion.is_some() {
        return Err(bad_input(
            std::path::Path::new("--motion"),
            "glTF models take --clip and --times",
        ));
    }
    if let Some(t) = args.times.iter().find(|t| !t.is_finite() || **t < 0.0) {
        return Err(bad_input(
            std::path::Path::new("--times"),
            format!("times must be finite and >= 0, got {t:?}"),
        ));
    }
    if args.source.physics && args.times.windows(2).any(|w| w[1] < w[0]) {
        return Err(bad_input(
            std::path::Path::new("--times"),
            "must ascend with --physics (simulated from time 0)",
        ));
    }
    let output = Output::create(&args.json)?;
    let mut anim = Animator::new(&AnimSpec {
        motion: None,
        ..args.source.spec(MMD_FPS)
    })?;
    let model = std::sync::Arc::clone(anim.model());
    let mode = if args.dual_quaternion {
        SkinMode::DualQuaternion
    } else {
        SkinMode::Linear
    };
    let mut meshes = Meshes::of(&model, mode)
        .filter(|m| m.parts.iter().any(|p| p.source.skinned))
        .ok_or_else(|| bad_input(&args.source.model, "the model has no skinned mesh"))?;
    meshes.parts.retain(|p| p.source.skinned);
    args.limits.frames(args.times.len() as u64, "--times")?;
    let vertices: usize = meshes.parts.iter().map(|p| p.mesh.positions.len()).sum();
    args.limits.memory(
        args.times.len() as u64 * vertices as u64 * JSON_BYTES_PER_VERTEX,
        "--times",
    )?;
    let mut samples = Vec::with_capacity(args.times.len());
    for &t in &args.times {
        let posed = anim.at(t)?;
        meshes.update(&posed.world, &posed.morphs)?;
        let mut morphs = serde_json::Map::new();
        let mut parts = Vec::new();
        for part in &meshes.parts {
            for (morph, &slot) in part.mesh.morphs.iter().zip(part.source.morph_slots.iter()) {
                let w = posed.morphs.get(slot).copied().unwrap_or(0.0);
                if w != 0.0 {
                    morphs.insert(morph.name.clone(), json!(round(w)));
                }
            }
            let positions = positions_json(part.deformed().positions(), |v| {
                bad_input(
                    &args.source.model,
                    format!(
                        "time {t}: mesh {} vertex {v} skins to a non-finite position",
                        part.source.name
                    ),
                )
            })?;
            parts.push(json!({ "name": part.source.name, "vertices": part.deformed().positions().len(), "positions": positions }));
        }
        samples.push(json!({ "time": t, "morphs": morphs, "meshes": parts }));
    }
    let clip_index = args.source.clip.unwrap_or(0);
    let clip = match model.clips().get(clip_index) {
        Some(c) => {
            json!({ "index": clip_index, "name": c.clip().name(), "duration": c.duration() })
        }
        None => json!({ "index": clip_index, "name": "rest pose", "duration": 0.0 }),
    };
    let doc = json!({
        "tool": format!("sinew {} skin ({})", env!("CARGO_PKG_VERSION"), if args.dual_quaternion { "dual quaternion" } else { "linear blend" }),
        "file": args.source.model.file_name().map(|n| n.to_string_lossy().into_owned()),
        "clip": clip,
        "coordinate_note": "positions relative to the glTF scene root (right-handed, +Y up); meshes in three.js traversal order (primitives split into meshes)",
        "samples": samples,
    });
    write_json(output, &doc)?;
    println!(
        "wrote {} ({} time{}, {} meshes, {vertices} vertices)",
        args.json.display(),
        args.times.len(),
        if args.times.len() == 1 { "" } else { "s" },
        meshes.parts.len()
    );
    Ok(())
}
