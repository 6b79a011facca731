//! `sinew pose MODEL …`: evaluates a model at frames and writes world transforms as JSON, in the
//! schema of `../shared/conformance` (see `shared/oracle/README.md`), so sinew can be diffed
//! against three.js or babylon-mmd with the oracle's `compare.py`.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use serde_json::{json, Value};
use sinew_mmd::{
    EvalOptions, MmdFormat, MmdInstance, MmdModel, MmdMotion, MotionPlayer, StaticPose, Vmd,
};

use crate::commands::inspect::{bad_input, read_file};
use crate::error::CliError;

/// Arguments of `sinew pose`.
#[derive(Args, Debug)]
pub struct PoseArgs {
    /// The model (.pmx, .pmd).
    pub model: PathBuf,
    /// A VMD motion to play (frames at 30 fps).
    #[arg(long)]
    pub motion: Option<PathBuf>,
    /// A static pose JSON (`{"bones": {"name": {"t": [..], "r": [..]}}}`, MMD coordinates).
    #[arg(long)]
    pub pose: Option<PathBuf>,
    /// Frames (30 fps) to evaluate, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "0")]
    pub frames: Vec<u32>,
    /// Modes: fk (animation only), grant (+ append), ik (+ IK), full (IK + append).
    #[arg(long, value_delimiter = ',', default_value = "fk,grant,ik,full")]
    pub modes: Vec<String>,
    /// Output JSON file.
    #[arg(long)]
    pub json: PathBuf,
}

fn options(mode: &str) -> Option<EvalOptions> {
    Some(match mode {
        "fk" => EvalOptions {
            append: false,
            ik: false,
        },
        "grant" => EvalOptions {
            append: true,
            ik: false,
        },
        "ik" => EvalOptions {
            append: false,
            ik: true,
        },
        "full" => EvalOptions {
            append: true,
            ik: true,
        },
        _ => return None,
    })
}

fn round(v: f32) -> f64 {
    (f64::from(v) * 1e7).round() / 1e7
}

/// Runs the command.
pub fn run(args: &PoseArgs) -> Result<(), CliError> {
    for m in &args.modes {
        if options(m).is_none() {
            return Err(bad_input(
                &PathBuf::from("--modes"),
                format!("unknown mode \"{m}\" (use fk, grant, ik, full)"),
            ));
        }
    }
    let bytes = read_file(&args.model)?;
    let model = Arc::new(MmdModel::from_bytes(&bytes).map_err(|e| bad_input(&args.model, e))?);
    let (pose, pose_value) = match &args.pose {
        Some(p) => {
            let text =
                String::from_utf8(read_file(p)?).map_err(|_| bad_input(p, "not UTF-8 text"))?;
            let v: Value = serde_json::from_str(&text)
                .map_err(|e| bad_input(p, format!("invalid JSON: {e}")))?;
            let pose = StaticPose::from_value(&v).map_err(|e| bad_input(p, e))?;
            (Some(pose), v)
        }
        None => (None, Value::Null),
    };
    if args.pose.is_some() && args.motion.is_some() {
        return Err(bad_input(
            &PathBuf::from("--pose"),
            "give either --pose or --motion, not both",
        ));
    }
    let mut player = match &args.motion {
        Some(p) => {
            let vmd = Vmd::parse(&read_file(p)?).map_err(|e| bad_input(p, e))?;
            let motion = MmdMotion::from_vmd(&vmd, Some(&model)).map_err(|e| bad_input(p, e))?;
            let player = MotionPlayer::new(Arc::new(motion), &model);
            if !player.unmatched_bones().is_empty() {
                eprintln!(
                    "sinew: warning: {} motion bones are not in the model",
                    player.unmatched_bones().len()
                );
            }
            Some(player)
        }
        None => None,
    };
    let mut inst = MmdInstance::new(Arc::clone(&model));
    if let Some(pose) = &pose {
        let unknown = pose.apply(&mut inst);
        for u in unknown {
            eprintln!("sinew: warning: pose bone \"{u}\" is not in the model");
        }
    }
    let mut modes = serde_json::Map::new();
    for mode in &args.modes {
        let opts = options(mode).expect("checked");
        let mut frames = Vec::with_capacity(args.frames.len());
        for &frame in &args.frames {
            if let Some(player) = player.as_mut() {
                player.apply(frame as f32, &mut inst);
            }
            inst.evaluate(opts);
            let bones: Vec<Value> = model
                .bones
                .iter()
                .zip(inst.world())
                .map(|(b, w)| {
                    let (s, r, t) = w.to_scale_rotation_translation();
                    let t = [round(t.x), round(t.y), round(t.z)];
                    let q = [round(r.x), round(r.y), round(r.z), round(r.w)];
                    json!({"name": b.name, "world_t": t, "world_q": q, "world_s": [round(s.x), round(s.y), round(s.z)], "world_t_mmd": t, "world_q_mmd": q})
                })
                .collect();
            frames.push(json!({"frame": frame, "time": f64::from(frame) / 30.0, "bones": bones}));
        }
        modes.insert(mode.clone(), Value::Array(frames));
    }
    let bones: Vec<Value> = model
        .bones
        .iter()
        .enumerate()
        .map(|(i, b)| {
            json!({"index": i, "name": b.name, "parent": b.parent.map_or(-1, |p| p as i64), "transformOrder": b.layer,
                   "afterPhysics": b.after_physics, "hasIk": b.ik.is_some(), "hasAppend": b.append.is_some()})
        })
        .collect();
    let doc = json!({
        "tool": format!("sinew {} MmdInstance, physics off", env!("CARGO_PKG_VERSION")),
        "model": args.model.file_name().map(|n| n.to_string_lossy().to_string()),
        "vmd": args.motion.as_ref().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().to_string()),
        "pose": pose_value,
        "fps": 30,
        "format": match model.format { MmdFormat::Pmx => "pmx", MmdFormat::Pmd => "pmd" },
        "coordinate_note": "MMD left-handed model space: world_* equal world_*_mmd",
        "bones": bones,
        "modes": modes,
    });
    let text = serde_json::to_string(&doc).map_err(|e| CliError::Internal(e.to_string()))?;
    std::fs::write(&args.json, text).map_err(|e| CliError::Output {
        path: args.json.clone(),
        message: e.to_string(),
    })?;
    println!(
        "wrote {} ({} bones, {} modes × {} frames)",
        args.json.display(),
        model.bones.len(),
        args.modes.len(),
        args.frames.len()
    );
    Ok(())
}
