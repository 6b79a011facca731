//! `sinew demo`: the built-in procedural humanoid walking over uneven ground with foot IK,
//! holding a rifle (props and limbs), looking down the barrel, with physics strands; writes an animated GIF and a
//! PNG contact sheet (front and side views; targets, look-at line and bodies drawn) and prints
//! per-frame timings and residuals.

use std::path::PathBuf;

use clap::Args;
use glam::Vec3;
use indicatif::{ProgressBar, ProgressStyle};

use crate::error::CliError;
use crate::limits::Output;
use crate::render::{self, Bounds, Cell, Layout, MeshPainter, MeshStyle, Style, View};
use crate::scene::body::humanoid_body;
use crate::scene::humanoid::{ground, Hands, HumanoidScene};
use crate::scene::DrawFrame;
use crate::skinning::Meshes;

/// Arguments of `sinew demo`.
#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Where to write the contact sheet (PNG).
    #[arg(long, default_value = "sinew-demo.png")]
    pub out: PathBuf,
    /// Where to write the animation (GIF); `--gif none` skips it.
    #[arg(long, default_value = "sinew-demo.gif")]
    pub gif: PathBuf,
    /// Length of the animation in seconds (0.1..=20).
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f32,
    /// Animation frames per second (1..=60).
    #[arg(long, default_value_t = 20)]
    pub fps: u32,
    /// Frames on the contact sheet (1..=32).
    #[arg(long, default_value_t = 6)]
    pub frames: u32,
    /// Width and height of one view in pixels (64..=1024).
    #[arg(long, default_value_t = 220)]
    pub cell: u32,
    /// What the hands do: hold the rifle (props) or reach moving targets (instance IK).
    #[arg(long, value_enum, default_value = "rifle")]
    pub hands: Hands,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

fn check(ok: bool, flag: &str, message: String) -> Result<(), CliError> {
    if ok {
        Ok(())
    } else {
        Err(CliError::Input {
            path: flag.into(),
            message,
        })
    }
}

const TARGET: [u8; 4] = [30, 160, 60, 255];
const SEGMENT: [u8; 4] = [230, 140, 30, 255];
const BODY: [u8; 4] = [60, 110, 220, 255];
/// Hair, skirt and cape strands (bones without a mesh).
const STRAND: [u8; 4] = [120, 70, 40, 255];

/// Draws one frame into a cell: the skinned body (when a painter is given), the ground, the
/// physics strands (their bones and bodies: they have no mesh), the rifle and the IK targets.
fn draw(
    painter: Option<&mut MeshPainter>,
    cell: &mut Cell<'_>,
    frame: &DrawFrame,
    parents: &[u16],
    strand: &[bool],
    bounds: &Bounds,
) -> Result<(), CliError> {
    if let Some(p) = painter {
        // The frame's address keys the painter's per-frame cache (views share one skinning).
        p.paint(cell, std::ptr::from_ref(frame) as usize, &frame.world, &[])?;
    }
    // Ground profile under the feet, along the view's horizontal axis.
    let n = 48;
    let pts: Vec<Vec3> = (0..=n)
        .map(|i| {
            let s = i as f32 / n as f32;
            match cell.view() {
                View::Front => {
                    let x = bounds.min.x + s * (bounds.max.x - bounds.min.x);
                    let z = frame.world[0].translation.z;
                    Vec3::new(x, ground(x, z), z)
                }
                View::Side | View::ThreeQuarter | View::Orbit { .. } => {
                    let z = bounds.min.z + s * (bounds.max.z - bounds.min.z);
                    Vec3::new(0.1, ground(0.1, z), z)
                }
            }
        })
        .collect();
    cell.polyline(&pts, [150, 140, 120, 255], 1.5);
    for &(c, r) in &frame.bodies {
        cell.circle(c, r, BODY);
    }
    let no_parent = sinew::skeleton::NO_PARENT;
    for (i, w) in frame.world.iter().enumerate() {
        let p = parents[i];
        if strand[i] && p != no_parent {
            cell.line(
                frame.world[p as usize].translation.into(),
                w.translation.into(),
                STRAND,
                2.0,
            );
        }
    }
    for &(a, b) in &frame.segments {
        cell.line(a, b, SEGMENT, 1.5);
    }
    for &t in &frame.targets {
        cell.cross(t, 4.0, TARGET);
    }
    Ok(())
}

/// Runs the demo.
pub fn run(args: &DemoArgs) -> Result<(), CliError> {
    check(
        (1..=32).contains(&args.frames),
        "--frames",
        format!("must be 1..=32, got {}", args.frames),
    )?;
    check(
        (64..=1024).contains(&args.cell),
        "--cell",
        format!("must be 64..=1024, got {}", args.cell),
    )?;
    check(
        (1..=60).contains(&args.fps),
        "--fps",
        format!("must be 1..=60, got {:?}", args.fps),
    )?;
    check(
        args.seconds.is_finite() && (0.1..=20.0).contains(&args.seconds),
        "--seconds",
        format!("must be within 0.1..=20, got {:?}", args.seconds),
    )?;

    // Both outputs opened before the work (a bad path fails at once; a failed run leaves none).
    let sheet_out = Output::create(&args.out)?;
    let gif_out = if args.gif.as_os_str() == "none" {
        None
    } else {
        Some(Output::create(&args.gif)?)
    };
    let mut scene = HumanoidScene::new(args.hands)?;
    let total = ((args.seconds * args.fps as f32).round() as usize).max(1);
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(total as u64 * 2)
    };
    bar.set_style(
        ProgressStyle::with_template("{msg:>10} [{bar:30}] {pos}/{len}")
            .map_err(|e| CliError::Internal(e.to_string()))?
            .progress_chars("=> "),
    );
    bar.set_message("simulate");
    let mut frames = Vec::with_capacity(total);
    for i in 0..total {
        frames.push(scene.frame(i as f32 / args.fps as f32)?);
        bar.inc(1);
    }
    let mut bounds = Bounds::EMPTY;
    for f in &frames {
        for m in &f.world {
            bounds.include(m.translation.into());
        }
        for t in &f.targets {
            bounds.include(*t);
        }
    }
    bounds.include(Vec3::new(bounds.min.x, -0.1, bounds.min.z));
    // The body around the bones: at most 0.13 m out from them.
    let bounds = Bounds {
        min: bounds.min - Vec3::splat(0.13),
        max: bounds.max + Vec3::splat(0.13),
    }
    .padded(0.02);
    let parents = scene.parents().to_vec();
    let skeleton = std::sync::Arc::clone(scene.skeleton());
    let strand: Vec<bool> = skeleton
        .names()
        .iter()
        .map(|name| name.starts_with("ponytail") || name.starts_with("extra"))
        .collect();
    let body = humanoid_body(&skeleton)?;
    let meshes = Meshes::single(body, skeleton.inverse_bind().to_vec(), false);
    let style = MeshStyle {
        outlines: true,
        background: Style::default().background,
    };
    let textures = std::sync::Arc::new(vec![Vec::new()]);
    let init = || MeshPainter::new(meshes.clone(), std::sync::Arc::clone(&textures), style);

    // Animated GIF: front and side side by side.
    bar.set_message("gif");
    let write_gif = args.gif.as_os_str() != "none";
    if write_gif {
        render::write_gif(
            &args.gif,
            &frames,
            &bounds,
            &Layout::front_side(args.cell),
            args.fps as f32,
            init,
            |p, cell, f| draw(Some(p), cell, f, &parents, &strand, &bounds),
            || bar.inc(1),
        )?;
    }
    bar.finish_and_clear();

    // Contact sheet.
    let picks = render::picks(total, args.frames as usize);
    render::write_sheet(
        &args.out,
        &frames,
        &picks,
        &bounds,
        &Layout::front_side(args.cell),
        init,
        |p, cell, f| draw(Some(p), cell, f, &parents, &strand, &bounds),
    )?;

    println!(
        "sinew demo: procedural humanoid, {} joints, {} rigid bodies, {} frames over {:.1} s",
        scene.joints(),
        scene.bodies(),
        total,
        args.seconds
    );
    let hands = match args.hands {
        Hands::Rifle => "rifle anchored at the shoulder with both hands on it (props)",
        Hands::Reach => "hands following moving targets (FABRIK arms through the instance runtime)",
    };
    println!("foot IK on uneven ground (two-bone), {hands}, head look-at (aim), hair/skirt/cape physics (rapier)");
    let names: Vec<String> = frames[0].residuals.iter().map(|(n, _)| n.clone()).collect();
    let mut header = format!("{:>6} {:>7} {:>9}", "frame", "time s", "eval µs");
    for n in &names {
        header.push_str(&format!(" {:>9}", format!("{n} mm")));
    }
    println!("{header}");
    for &i in &picks {
        let f = &frames[i];
        let mut row = format!(
            "{:>6} {:>7.3} {:>9.1}",
            i,
            f.time,
            f.eval_ns as f64 / 1000.0
        );
        for (_, r) in &f.residuals {
            row.push_str(&format!(" {:>9.3}", r * 1000.0));
        }
        println!("{row}");
    }
    let mean = frames.iter().map(|f| f.eval_ns as f64).sum::<f64>() / frames.len() as f64 / 1000.0;
    let worst = frames
        .iter()
        .flat_map(|f| f.residuals.iter().map(|r| r.1))
        .fold(0.0f32, f32::max);
    println!(
        "mean frame evaluation {mean:.1} µs; worst IK residual {:.3} mm",
        worst * 1000.0
    );
    sheet_out.keep();
    if let Some(g) = gif_out {
        g.keep();
    }
    if write_gif {
        println!(
            "wrote {} ({}x{} px, {} frames) and {}",
            args.gif.display(),
            2 * args.cell,
            args.cell,
            total,
            args.out.display()
        );
    } else {
        println!("wrote {}", args.out.display());
    }
    Ok(())
}
