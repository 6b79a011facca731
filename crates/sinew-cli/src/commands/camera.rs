//! `sinew camera CAMERA.vmd …`: plays a VMD camera (`sinew_character::CameraMotion`:
//! babylon-mmd's `MmdCamera`, cuts included) and writes it per frame as JSON in the schema of
//! `../shared/conformance/camera` (`babylon_camera_oracle.mjs`): `frame`, `target`,
//! `rotation`, `distance`, `fov`, `position`, `view` (Babylon's row-major `m[0..15]`),
//! `forward`, `up`, plus `time` and `perspective`. Frames may be fractional (12.5 is half-way
//! between frames 12 and 13); by default every frame from 0 to the last key.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{json, Value};
use sinew_character::{frame_of_time, CameraMotion, CameraState};

use crate::commands::inspect::{bad_input, read_file};
use crate::commands::render::parse_range_within;
use crate::error::CliError;
use crate::limits::{Output, WorkLimits};
use crate::source::character_error;

/// Arguments of `sinew camera`.
#[derive(Args, Debug)]
pub struct CameraArgs {
    /// The camera motion (a .vmd with camera keys).
    pub vmd: PathBuf,
    /// Frames (30 fps, fractions allowed) to sample, comma-separated; `A..B` / `A..=B` are
    /// ranges of whole frames (default: every frame from 0 to the last key).
    #[arg(long, allow_hyphen_values = true)]
    pub frames: Option<String>,
    /// Times in seconds to sample, comma-separated (instead of --frames).
    #[arg(long, allow_hyphen_values = true)]
    pub times: Option<String>,
    /// Output JSON file.
    #[arg(long)]
    pub json: PathBuf,
    /// Work bounds.
    #[command(flatten)]
    pub limits: WorkLimits,
}

/// Bytes of JSON one frame takes (an upper estimate, for the output bound).
const JSON_BYTES_PER_FRAME: u64 = 700;

/// One requested sample: the frame time and the time in seconds as asked.
struct Sample {
    frame: f64,
    time: f64,
}

/// A number of a list: finite and non-negative.
fn number(item: &str, flag: &str, what: &str) -> Result<f64, CliError> {
    let v: f64 = item.trim().parse().map_err(|_| {
        bad_input(
            Path::new(flag),
            format!("\"{}\" is not a {what}", item.trim()),
        )
    })?;
    if v.is_finite() && v >= 0.0 && v <= f64::from(f32::MAX) {
        Ok(v)
    } else {
        Err(bad_input(
            Path::new(flag),
            format!(
                "{what}s must be finite and non-negative, got {}",
                item.trim()
            ),
        ))
    }
}

/// The samples `--frames` / `--times` ask for (every frame of the camera without either).
fn samples(args: &CameraArgs, camera: &CameraMotion) -> Result<Vec<Sample>, CliError> {
    let mut out = Vec::new();
    let count = |n: usize, flag: &str| args.limits.frames(n as u64, flag);
    match (&args.frames, &args.times) {
        (Some(_), Some(_)) => {
            return Err(bad_input(
                Path::new("--times"),
                "give --frames or --times, not both",
            ))
        }
        (Some(frames), None) => {
            for item in frames.split(',') {
                if item.contains("..") {
                    let (a, b) = parse_range_within(item.trim(), u32::MAX)?;
                    count(out.len() + (b - a) as usize, "--frames")?;
                    out.extend((a..b).map(f64::from).map(|frame| Sample {
                        frame,
                        time: frame / 30.0,
                    }));
                } else {
                    let frame = number(item, "--frames", "frame")?;
                    out.push(Sample {
                        frame,
                        time: frame / 30.0,
                    });
                }
                count(out.len(), "--frames")?;
            }
        }
        (None, Some(times)) => {
            for item in times.split(',') {
                let time = number(item, "--times", "time")?;
                out.push(Sample {
                    frame: frame_of_time(time as f32),
                    time,
                });
                count(out.len(), "--times")?;
            }
        }
        (None, None) => {
            count(camera.end_frame() as usize + 1, "--frames")?;
            out.extend((0..=camera.end_frame()).map(f64::from).map(|frame| Sample {
                frame,
                time: frame / 30.0,
            }));
        }
    }
    Ok(out)
}

/// Seven decimals, as the oracle writes them (and no `-0`).
fn round(v: f64) -> f64 {
    (v * 1e7).round() / 1e7 + 0.0
}

/// A frame number as written: whole frames as integers, as the oracle writes them.
fn frame_value(frame: f64) -> Value {
    if frame.fract() == 0.0 && frame <= 9.0e15 {
        json!(frame as u64)
    } else {
        json!(frame)
    }
}

/// One frame in the conformance schema, or an input error when a value is not finite (keys
/// so large that the eye overflows).
fn frame_doc(vmd: &Path, sample: &Sample, c: &CameraState) -> Result<Value, CliError> {
    let mut bad = None;
    let mut n = |v: f32| {
        if !v.is_finite() {
            bad = Some(v);
        }
        round(f64::from(v))
    };
    let doc = json!({
        "frame": frame_value(sample.frame),
        "time": round(sample.time),
        "target": c.target.to_array().map(&mut n),
        "rotation": c.rotation.to_array().map(&mut n),
        "distance": n(c.distance),
        "fov": n(c.fov),
        "perspective": c.perspective,
        "position": c.position.to_array().map(&mut n),
        "view": c.view.to_cols_array().map(&mut n),
        "forward": c.forward.to_array().map(&mut n),
        "up": c.up.to_array().map(&mut n),
    });
    match bad {
        None => Ok(doc),
        Some(v) => Err(bad_input(
            vmd,
            format!(
                "frame {}: the camera evaluates to a non-finite value ({v}); nothing written",
                sample.frame
            ),
        )),
    }
}

/// Runs the command.
pub fn run(args: &CameraArgs) -> Result<(), CliError> {
    let bytes = read_file(&args.vmd)?;
    let camera = CameraMotion::from_vmd(&bytes).map_err(|e| character_error(e, &args.vmd))?;
    let samples = samples(args, &camera)?;
    args.limits.memory(
        JSON_BYTES_PER_FRAME * samples.len() as u64,
        if args.times.is_some() {
            "--times"
        } else {
            "--frames"
        },
    )?;
    let mut output = Output::create(&args.json)?;
    let frames = samples
        .iter()
        .map(|s| frame_doc(&args.vmd, s, &camera.sample_frame(s.frame)))
        .collect::<Result<Vec<_>, _>>()?;
    let cuts: Vec<u32> = camera.cuts().collect();
    let doc = json!({
        "tool": "sinew camera (babylon-mmd 1.3.0 MmdCamera semantics)",
        "vmd": args.vmd.file_name().map(|n| n.to_string_lossy()),
        "fps": 30,
        "keys": camera.keys().len(),
        "key_frames": camera.keys().iter().map(|k| k.frame).collect::<Vec<_>>(),
        "cuts": cuts,
        "frames": frames,
    });
    {
        let mut out =
            std::io::BufWriter::new(output.file().try_clone().map_err(|e| output.error(e))?);
        serde_json::to_writer(&mut out, &doc).map_err(|e| output.error(e))?;
        out.write_all(b"\n").map_err(|e| output.error(e))?;
        out.flush().map_err(|e| output.error(e))?;
    }
    output.keep();
    println!(
        "wrote {} ({} frames of a camera with {} keys, {} cuts)",
        args.json.display(),
        samples.len(),
        camera.keys().len(),
        cuts.len()
    );
    Ok(())
}
