//! Frames into one flat array from Rust: what `sinew.Character.evaluate(range(N))` does in
//! Python (seek each frame, copy the world matrices into a `[frames, bones, 4, 4]` buffer),
//! timed, to measure what the Python layer adds (`python/bench/overhead.py` runs both).
//!
//! `cargo run --release -p sinew-examples --example frames_to_array -- MODEL MOTION FRAMES
//! REPEATS` prints one JSON line: the median microseconds per frame with physics off and on.

use std::time::Instant;

use glam::Mat4;
use sinew_character::{Character, CharacterModel};

/// Median of `samples` (sorted in place).
fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [model_path, motion_path, frames, repeats] = args.as_slice() else {
        return Err("usage: frames_to_array MODEL MOTION FRAMES REPEATS".into());
    };
    let frames: u32 = frames.parse()?;
    let repeats: usize = repeats.parse()?;
    let model = CharacterModel::load(model_path)?;
    let motion = model.load_motion(motion_path)?;
    let bones = model.skeleton().len();
    let mut out: Vec<f32> = Vec::with_capacity(frames as usize * bones * 16);
    let mut report = Vec::new();
    for physics in [false, true] {
        let mut samples = Vec::with_capacity(repeats);
        for _ in 0..repeats {
            // A new character per call, as the Python benchmark makes one per call.
            let mut c = Character::new(&model);
            c.play(&motion);
            if physics {
                c.enable_physics()?;
            }
            out.clear();
            let started = Instant::now();
            for f in 0..frames {
                if physics {
                    c.update(f as f32 / 30.0, 1.0 / 30.0)?;
                } else {
                    c.seek(f as f32 / 30.0)?;
                }
                for w in c.world() {
                    out.extend_from_slice(&Mat4::from(*w).transpose().to_cols_array());
                }
            }
            samples.push(started.elapsed().as_secs_f64() * 1e6 / f64::from(frames));
            std::hint::black_box(&out);
        }
        report.push(format!(
            "\"{}\": {:.3}",
            if physics { "physics" } else { "plain" },
            median(&mut samples)
        ));
    }
    println!("{{{}}}", report.join(", "));
    Ok(())
}
