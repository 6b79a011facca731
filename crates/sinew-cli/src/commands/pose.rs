//! `sinew pose MODEL …`: evaluates a model at frames and writes world transforms as JSON, in the
//! schema of `../shared/conformance` (see `shared/oracle/README.md`), so sinew can be diffed
//! against three.js or babylon-mmd with the oracle's `compare.py`.
//!
//! * MMD models (`.pmx`, `.pmd`): `--motion` or `--pose`, `--frames`, `--modes`; `--physics`
//!   (with `--motion`) simulates every frame from 0 at 30 fps and records the requested ones.
//! * glTF models (`.glb`, `.gltf`): `--clip`, `--times`; the schema of
//!   `shared/conformance/gltf_*.json` (`gltf_oracle.mjs`): every skin joint's world transform
//!   relative to the scene root.
//!
//! The MMD document is streamed frame by frame; frames evaluated (simulated ones included) and
//! the output's size are bounded ([`WorkLimits`]); a non-finite transform is an error naming
//! the frame and bone, never a `null`; the output is opened first and removed on failure.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use serde_json::{json, Value};
use sinew::instance::Stages;
use sinew_character::{Character, CharacterModel, PoseFile};
use sinew_mmd::{MmdFormat, MmdModel, MmdOrder, StagedGap};

use std::io::Write;

use crate::commands::inspect::{bad_input, read_file};
use crate::error::CliError;
use crate::limits::{Output, WorkLimits};
use crate::source::{character_error, kind_of, ModelKind, MMD_FPS};

/// Arguments of `sinew pose`.
#[derive(Args, Debug)]
pub struct PoseArgs {
    /// The model (.pmx, .pmd).
    pub model: PathBuf,
    /// A VMD motion to play (frames at 30 fps).
    #[arg(long)]
    pub motion: Option<PathBuf>,
    /// A pose JSON: bones (`{"bones": {"name": {"t": [..], "r": [..]}}}`, offsets from rest)
    /// and IK targets (`{"targets": {"chain": {"position": [..], "weight": w}}}`), any model.
    #[arg(long)]
    pub pose: Option<PathBuf>,
    /// Frames (30 fps) to evaluate, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "0")]
    pub frames: Vec<u32>,
    /// Modes: fk (animation only), grant (+ append), ik (+ IK), full (IK + append).
    #[arg(long, value_delimiter = ',', default_value = "fk,grant,ik,full")]
    pub modes: Vec<String>,
    /// Simulate rigid-body physics: frames are simulated in order from frame 0 at 30 fps up
    /// to the largest requested one (MMD models: with `--motion`; glTF models: the reader's
    /// candidates under a profile, see `--dynamic`).
    #[arg(long)]
    pub physics: bool,
    /// glTF physics: the bones whose subtrees hang under physics (comma-separated; default:
    /// the chains named like hair, tail, skirt, cape, …).
    #[arg(long, value_delimiter = ',')]
    pub dynamic: Vec<String>,
    /// How the character evaluates an MMD model: `staged` (constraints →
    /// hierarchy → IK → late constraints; the default for a model it expresses whole) or
    /// `bone-by-bone` (MMD's evaluation order carried in the definitions; the default for a
    /// model with rules the staged evaluation does not express, `MmdModel::staged_gaps`,
    /// e.g. a local append from a bone evaluated later or, with `--physics`, bones MMD
    /// evaluates after physics that read more than their parent).
    #[arg(long)]
    pub evaluation: Option<String>,
    /// The animation to sample (glTF models; default 0).
    #[arg(long)]
    pub clip: Option<usize>,
    /// Times in seconds to sample (glTF models), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "0")]
    pub times: Vec<f32>,
    /// Output JSON file.
    #[arg(long)]
    pub json: PathBuf,
    /// Work bounds.
    #[command(flatten)]
    pub limits: WorkLimits,
}

/// Bytes of JSON one bone takes in one frame of one mode (an upper estimate, for the output
/// bound).
const JSON_BYTES_PER_BONE: u64 = 360;

/// `v` as written to the JSON (7 decimals), or an input error naming the frame and bone when
/// it is not finite: the schema has no place for NaN or infinity.
fn number(v: f32, model: &Path, frame: &str, bone: &str) -> Result<f64, CliError> {
    if v.is_finite() {
        Ok(round(v))
    } else {
        Err(bad_input(
            model,
            format!("{frame}: bone \"{bone}\" evaluates to a non-finite transform ({v}); nothing written"),
        ))
    }
}

/// Scale, rotation and translation of a world matrix. A matrix with a zero scale (legal in
/// glTF: a joint scaled to nothing, and everything under it) has no unique rotation; its
/// rotation is rebuilt from the axes that remain (the identity when none does), so the output
/// stays finite where a plain decomposition divides by zero.
fn decompose(w: &glam::Affine3A) -> (glam::Vec3, glam::Quat, glam::Vec3) {
    let (s, r, t) = w.to_scale_rotation_translation();
    if r.is_finite() {
        return (s, r, t);
    }
    let axes = [w.matrix3.x_axis, w.matrix3.y_axis, w.matrix3.z_axis].map(glam::Vec3::from);
    let unit = axes.map(|a| a.try_normalize());
    let rotation = match unit {
        [Some(x), Some(y), _] => glam::Quat::from_mat3(&glam::Mat3::from_cols(
            x,
            y.reject_from_normalized(x)
                .normalize_or(x.any_orthonormal_vector()),
            x.cross(y).normalize_or(x.any_orthonormal_vector()),
        )),
        [Some(x), None, Some(z)] => {
            let y = z.cross(x).normalize_or(x.any_orthonormal_vector());
            glam::Quat::from_mat3(&glam::Mat3::from_cols(x, y, x.cross(y)))
        }
        [None, Some(y), Some(z)] => {
            let x = y.cross(z).normalize_or(y.any_orthonormal_vector());
            glam::Quat::from_mat3(&glam::Mat3::from_cols(x, y, x.cross(y)))
        }
        [Some(a), None, None] => glam::Quat::from_rotation_arc(glam::Vec3::X, a),
        [None, Some(a), None] => glam::Quat::from_rotation_arc(glam::Vec3::Y, a),
        [None, None, Some(a)] => glam::Quat::from_rotation_arc(glam::Vec3::Z, a),
        [None, None, None] => glam::Quat::IDENTITY,
    };
    (axes.map(glam::Vec3::length).into(), rotation.normalize(), t)
}

/// Translation, rotation (x, y, z, w) and scale as written.
type Trs = ([f64; 3], [f64; 4], [f64; 3]);

/// One world matrix as the schema's `world_t`, `world_q`, `world_s`.
fn trs(w: &glam::Affine3A, model: &Path, frame: &str, bone: &str) -> Result<Trs, CliError> {
    let (s, r, t) = decompose(w);
    let n = |v: f32| number(v, model, frame, bone);
    Ok((
        [n(t.x)?, n(t.y)?, n(t.z)?],
        [n(r.x)?, n(r.y)?, n(r.z)?, n(r.w)?],
        [n(s.x)?, n(s.y)?, n(s.z)?],
    ))
}

fn round(v: f32) -> f64 {
    (f64::from(v) * 1e7).round() / 1e7
}

/// Runs the command.
pub fn run(args: &PoseArgs) -> Result<(), CliError> {
    if kind_of(&args.model)? == ModelKind::Gltf {
        return run_gltf(args);
    }
    if args.clip.is_some() {
        return Err(bad_input(
            &PathBuf::from("--clip"),
            "is for glTF models; MMD models take --motion and --frames",
        ));
    }
    if args.physics && args.motion.is_none() {
        return Err(bad_input(
            &PathBuf::from("--physics"),
            "needs --motion (physics is simulated along the motion from frame 0)",
        ));
    }
    let requested = match args.evaluation.as_deref() {
        None => None,
        Some("bone-by-bone") => Some(true),
        Some("staged") => Some(false),
        Some(other) => {
            return Err(bad_input(
                &PathBuf::from("--evaluation"),
                format!("unknown evaluation \"{other}\" (use staged or bone-by-bone)"),
            ))
        }
    };
    for m in &args.modes {
        if Stages::from_mode(m).is_none() {
            return Err(bad_input(
                &PathBuf::from("--modes"),
                format!("unknown mode \"{m}\" (use fk, grant, ik, full)"),
            ));
        }
    }
    let bytes = read_file(&args.model)?;
    let mmd = Arc::new(MmdModel::from_bytes(&bytes).map_err(|e| bad_input(&args.model, e))?);
    // In stages by default where that expresses the model (no `StagedGap`), else bone by
    // bone.
    let gaps = mmd.staged_gaps(args.physics);
    let bone_by_bone = match requested {
        Some(false)
            if gaps.iter().any(|g| {
                matches!(
                    g,
                    StagedGap::AfterPhysics { .. } | StagedGap::BodyOnDisplacedBone { .. }
                )
            }) =>
        {
            return Err(bad_input(
                &PathBuf::from("--evaluation"),
                "this model's physics needs MMD's order (after-physics bones that read more than their parent, or bodies on bones evaluated before their parent: MmdModel::staged_gaps): --physics needs --evaluation bone-by-bone",
            ))
        }
        Some(choice) => choice,
        None => !gaps.is_empty(),
    };
    let order = if bone_by_bone {
        MmdOrder::BoneByBone
    } else {
        MmdOrder::Staged
    };
    let mut model = CharacterModel::from_mmd_order(Arc::clone(&mmd), order)
        .map_err(|e| character_error(e, &args.model))?;
    let (pose, pose_value) = match &args.pose {
        Some(p) => {
            let text =
                String::from_utf8(read_file(p)?).map_err(|_| bad_input(p, "not UTF-8 text"))?;
            let v: Value = serde_json::from_str(&text)
                .map_err(|e| bad_input(p, format!("invalid JSON: {e}")))?;
            let pose = PoseFile::from_value(&v).map_err(|e| bad_input(p, e))?;
            (Some(pose), v)
        }
        None => (None, Value::Null),
    };
    if let (Some(pose), Some(path)) = (&pose, &args.pose) {
        if !pose.chains.is_empty() {
            model = model
                .with_ik_chains(&pose.chains)
                .map_err(|e| bad_input(path, e))?;
        }
    }
    if args.pose.is_some() && args.motion.is_some() {
        return Err(bad_input(
            &PathBuf::from("--pose"),
            "give either --pose or --motion, not both",
        ));
    }
    let motion =
        match &args.motion {
            Some(p) => Some(model.load_motion(p).map_err(|e| character_error(e, p))?),
            None => match &pose {
                Some(pose) => Some(pose.to_motion().map_err(|e| {
                    bad_input(args.pose.as_deref().unwrap_or(Path::new("--pose")), e)
                })?),
                None => None,
            },
        };
    // One character per mode, each with the motion (or pose) and the pose's targets.
    let character = |stages: Stages| -> Result<Character, CliError> {
        let mut c = Character::new(&model);
        c.set_stages(stages);
        if let Some(m) = &motion {
            c.play(m);
        }
        if let (Some(pose), Some(p)) = (&pose, &args.pose) {
            pose.apply_targets(&mut c).map_err(|e| bad_input(p, e))?;
        }
        if args.physics {
            c.enable_physics()
                .map_err(|e| bad_input(&args.model, format!("--physics: {e}")))?;
        }
        Ok(c)
    };
    {
        let probe = character(Stages::ALL)?;
        let first = probe.layers().next().map(|l| l.0);
        if let Some(id) = first {
            let (bones, _) = probe.unmatched(id).unwrap_or_default();
            if !bones.is_empty() {
                if args.pose.is_some() {
                    for u in bones {
                        eprintln!("sinew: warning: pose bone \"{u}\" is not in the model");
                    }
                } else {
                    eprintln!(
                        "sinew: warning: {} motion bones are not in the model",
                        bones.len()
                    );
                }
            }
        }
    }
    let limits = &args.limits;
    let mut sorted = args.frames.clone();
    sorted.sort_unstable();
    sorted.dedup();
    let last = u64::from(sorted.last().copied().unwrap_or(0));
    let per_mode = if args.physics {
        last + 1
    } else {
        args.frames.len() as u64
    };
    limits.frames(per_mode * args.modes.len() as u64, "--frames")?;
    limits.memory(
        JSON_BYTES_PER_BONE
            * mmd.bones().len() as u64
            * args.frames.len() as u64
            * args.modes.len() as u64,
        "--json",
    )?;
    let mut output = Output::create(&args.json)?;
    let mut out = std::io::BufWriter::new(output.file().try_clone().map_err(|e| output.error(e))?);
    let bones: Vec<Value> = mmd
        .bones()
        .iter()
        .enumerate()
        .map(|(i, b)| {
            json!({"index": i, "name": b.name, "parent": b.parent.map_or(-1, |p| p as i64), "transformOrder": b.layer,
                   "afterPhysics": b.after_physics, "hasIk": b.ik.is_some(), "hasAppend": b.append.is_some()})
        })
        .collect();
    let head = json!({
        "tool": format!("sinew {} Character, {}, physics {}", env!("CARGO_PKG_VERSION"), if bone_by_bone { "bone by bone (MMD's evaluation order)" } else { "staged" }, if args.physics { "on (30 fps from frame 0)" } else { "off" }),
        "model": args.model.file_name().map(|n| n.to_string_lossy().to_string()),
        "vmd": args.motion.as_ref().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().to_string()),
        "pose": pose_value,
        "fps": 30,
        "format": match mmd.format() { MmdFormat::Pmx => "pmx", MmdFormat::Pmd => "pmd" },
        "coordinate_note": "MMD left-handed model space: world_* equal world_*_mmd",
        "bones": bones,
    });
    // The document is streamed: the head object without its closing brace, then each mode's
    // frames one at a time (memory stays one frame, whatever the frame count).
    let head = serde_json::to_string(&head).map_err(|e| CliError::Internal(e.to_string()))?;
    let io = |e: std::io::Error| output.error(e);
    out.write_all(&head.as_bytes()[..head.len() - 1])
        .map_err(io)?;
    out.write_all(b",\"modes\":{").map_err(io)?;
    // World matrices leave in file order (the schema's): the skeleton's order stops here.
    let file_world = |world: &[glam::Affine3A]| -> Vec<glam::Affine3A> {
        (0..mmd.bones().len())
            .map(|i| world[model.bone_of_source(i).expect("a file bone").index()])
            .collect()
    };
    let write_frame = |out: &mut std::io::BufWriter<std::fs::File>,
                       first: bool,
                       frame: u32,
                       world: &[glam::Affine3A]|
     -> Result<(), CliError> {
        let label = format!("frame {frame}");
        let mut bones = Vec::with_capacity(world.len());
        for (b, w) in mmd.bones().iter().zip(world) {
            let (t, q, s) = trs(w, &args.model, &label, &b.name)?;
            bones.push(json!({"name": b.name, "world_t": t, "world_q": q, "world_s": s, "world_t_mmd": t, "world_q_mmd": q}));
        }
        let doc = json!({"frame": frame, "time": f64::from(frame) / 30.0, "bones": bones});
        if !first {
            out.write_all(b",").map_err(io)?;
        }
        serde_json::to_writer(&mut *out, &doc).map_err(|e| output.error(e))
    };
    let fail = |e| character_error(e, &args.model);
    for (m, mode) in args.modes.iter().enumerate() {
        let mut c = character(Stages::from_mode(mode).expect("checked"))?;
        if m > 0 {
            out.write_all(b",").map_err(io)?;
        }
        serde_json::to_writer(&mut out, mode).map_err(|e| output.error(e))?;
        out.write_all(b":[").map_err(io)?;
        if args.physics {
            // Simulated from frame 0; the requested frames' matrices are kept (within the
            // memory bound checked above) and written in the order asked.
            let mut kept = std::collections::HashMap::with_capacity(sorted.len());
            let mut want = sorted.iter().peekable();
            for frame in 0..=sorted.last().copied().unwrap_or(0) {
                c.update(frame as f32 / MMD_FPS, 1.0 / MMD_FPS)
                    .map_err(fail)?;
                if want.peek() == Some(&&frame) {
                    want.next();
                    kept.insert(frame, file_world(c.world()));
                }
            }
            for (k, frame) in args.frames.iter().enumerate() {
                write_frame(&mut out, k == 0, *frame, &kept[frame])?;
            }
        } else {
            for (k, &frame) in args.frames.iter().enumerate() {
                c.seek(frame as f32 / MMD_FPS).map_err(fail)?;
                write_frame(&mut out, k == 0, frame, &file_world(c.world()))?;
            }
        }
        out.write_all(b"]").map_err(io)?;
    }
    out.write_all(b"}}").map_err(io)?;
    out.flush().map_err(io)?;
    drop(out);
    output.keep();
    println!(
        "wrote {} ({} bones, {} modes × {} frames)",
        args.json.display(),
        mmd.bones().len(),
        args.modes.len(),
        args.frames.len()
    );
    Ok(())
}

/// `sinew pose` for glTF models: the schema of `gltf_oracle.mjs`. With `--pose` (IK targets
/// and bones) or `--physics`, the character's pose; times must then ascend, physics simulated
/// from time 0 in steps of at most 1/30 s.
fn run_gltf(args: &PoseArgs) -> Result<(), CliError> {
    if args.motion.is_some() {
        return Err(bad_input(
            &PathBuf::from("--motion"),
            "is for MMD models; glTF models take --clip and --times",
        ));
    }
    if let Some(t) = args.times.iter().find(|t| !t.is_finite() || **t < 0.0) {
        return Err(bad_input(
            &PathBuf::from("--times"),
            format!("times must be finite and non-negative, got {t:?}"),
        ));
    }
    if args.physics && args.times.windows(2).any(|w| w[1] < w[0]) {
        return Err(bad_input(
            &PathBuf::from("--times"),
            "must ascend with --physics (simulated from time 0)",
        ));
    }
    args.limits.frames(args.times.len() as u64, "--times")?;
    let output = Output::create(&args.json)?;
    // Rotation keys as stored (three.js does not normalise them), so the dump compares.
    let mut character_model = CharacterModel::load_gltf_with(
        &args.model,
        sinew_gltf::LoadOptions {
            normalize_rotations: false,
        },
    )
    .map_err(|e| character_error(e, &args.model))?;
    let pose = args
        .pose
        .as_deref()
        .map(crate::source::load_pose)
        .transpose()?;
    if let (Some(pose), Some(p)) = (&pose, &args.pose) {
        if !pose.chains.is_empty() {
            character_model = character_model
                .with_ik_chains(&pose.chains)
                .map_err(|e| bad_input(p, e))?;
        }
    }
    let model = character_model.gltf().expect("a glTF model");
    // A model without animations is reported in its rest pose at every time (as three.js
    // does); asking for a clip of it is an error.
    let animated = !(model.clips().is_empty() && args.clip.is_none());
    let mut character = Character::new(&character_model);
    if animated {
        let motion = character_model
            .clip(args.clip.unwrap_or(0))
            .map_err(|e| bad_input(&PathBuf::from("--clip"), e))?;
        character.play(motion);
    }
    if let (Some(p), Some(pose)) = (&args.pose, &pose) {
        if !pose.bones.is_empty() {
            character.play(&pose.to_motion().map_err(|e| bad_input(p, e))?);
        }
        pose.apply_targets(&mut character)
            .map_err(|e| bad_input(p, e))?;
    }
    if args.physics {
        crate::source::enable_physics(&mut character, &args.model, &args.dynamic)?;
    }
    let clip = args.clip.unwrap_or(0);
    let doc = model.document();
    let node_name = |n: usize| -> Value {
        doc.nodes()
            .nth(n)
            .and_then(|x| x.name().map(|s| Value::from(s.to_owned())))
            .unwrap_or(Value::Null)
    };
    let clip_json = |i: usize, c: &sinew::anim::Clip| {
        let name = doc
            .animations()
            .nth(i)
            .and_then(|a| a.name().map(str::to_owned))
            .unwrap_or_else(|| c.name().to_owned());
        json!({"index": i, "name": name, "duration": round(c.duration())})
    };
    let clips: Vec<Value> = model
        .clips()
        .iter()
        .enumerate()
        .map(|(i, c)| clip_json(i, c))
        .collect();
    let skins: Vec<Value> = doc
        .skins()
        .map(|s| {
            json!({"index": s.index(),
                   "joints": s.joints().map(|j| j.index()).collect::<Vec<_>>(),
                   "skeleton": s.skeleton().map(|n| n.index())})
        })
        .collect();
    let joints = model.joint_bones();
    args.limits.memory(
        2 * JSON_BYTES_PER_BONE * joints.len() as u64 * args.times.len() as u64,
        "--times",
    )?;
    let mut samples = Vec::with_capacity(args.times.len());
    let fail = |e| character_error(e, &args.model);
    for &time in &args.times {
        if args.physics {
            // From time 0 (or the last time) in steps of at most 1/30 s.
            character
                .advance_to(f64::from(time), 1.0 / 30.0)
                .map_err(fail)?;
        } else {
            character.seek(time).map_err(fail)?;
        }
        let world = character.world();
        let label = format!("time {time}");
        let mut js = Vec::with_capacity(joints.len());
        for &(node, bone) in &joints {
            let name = model.skeleton().name(bone).to_owned();
            let (t, q, s) = trs(&world[bone.index()], &args.model, &label, &name)?;
            js.push(json!({"node": node, "name": node_name(node),
                   "world_t": t, "world_q": q, "world_s": s}));
        }
        samples.push(json!({"time": f64::from(time), "joints": js}));
    }
    let out = json!({
        "tool": format!("sinew {} Character", env!("CARGO_PKG_VERSION")),
        "file": args.model.file_name().map(|n| n.to_string_lossy().to_string()),
        "clip": if animated { clip_json(clip, &model.clips()[clip]) } else { Value::Null },
        "clips": clips,
        "skins": skins,
        "samples": samples,
    });
    let text = serde_json::to_string(&out).map_err(|e| CliError::Internal(e.to_string()))?;
    std::fs::write(&args.json, text).map_err(|e| output.error(e))?;
    output.keep();
    let which = if animated {
        format!("clip {clip}")
    } else {
        "rest pose: no animation".to_owned()
    };
    println!(
        "wrote {} ({} joints × {} times, {which})",
        args.json.display(),
        joints.len(),
        args.times.len()
    );
    Ok(())
}
