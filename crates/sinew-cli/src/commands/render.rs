//! `sinew render MODEL …`: pictures of any PMX/PMD/glTF model. A model with a mesh is drawn as
//! its skinned, morphed mesh (software rasterizer: depth buffer, textures, lighting, MMD
//! edges); the skeleton and the rigid bodies are overlays (`--overlay bones,bodies`), drawn by
//! default only for models without a mesh. The orthographic camera holds the model over every
//! rendered frame; views `front`, `side`, `three-quarter` (`--views`). `.gif` writes the
//! animation (frames drawn in parallel), `.png` a contact sheet of up to 8 frames spread over
//! the range. MMD models are shown mirrored into a right-handed space (z → −z) so they face
//! the front view.

use std::path::{Path, PathBuf};

use std::sync::Arc;

use clap::Args;
use glam::Vec3;
use indicatif::{ProgressBar, ProgressStyle};
use sinew::dynamics::Shape;
use sinew_skin::SkinMode;

use crate::commands::inspect::bad_input;
use crate::error::CliError;
use crate::limits::{Output, WorkLimits};
use crate::render::{self, Bounds, Cell, Layout, MeshPainter, MeshStyle, Style, View};
use crate::skinning::Meshes;
use crate::source::{AnimSpec, Animator, Posed};

/// Pictures held at once while a GIF is drawn (the film's chunk), for the memory bound.
const CHUNK_PICTURES: u64 = 32;

/// Arguments of `sinew render`.
#[derive(Args, Debug)]
pub struct RenderArgs {
    /// The model (.pmx, .pmd, .glb, .gltf).
    pub model: PathBuf,
    /// A VMD motion (MMD models).
    #[arg(long)]
    pub motion: Option<PathBuf>,
    /// The animation to play (glTF models; default 0).
    #[arg(long)]
    pub clip: Option<usize>,
    /// A pose JSON: bones and IK targets (see `sinew pose --pose`).
    #[arg(long)]
    pub pose: Option<PathBuf>,
    /// Simulate rigid bodies (drawn as circles).
    #[arg(long)]
    pub physics: bool,
    /// glTF physics: the bones whose subtrees hang under physics (default: chains named like
    /// hair, tail, skirt, …).
    #[arg(long, value_delimiter = ',')]
    pub dynamic: Vec<String>,
    /// Frame range `A..B` (end exclusive) or `A..=B` at `--fps`; default: the whole motion or
    /// clip, at most 10 s.
    #[arg(long)]
    pub frames: Option<String>,
    /// Frames per second (1..=120).
    #[arg(long, default_value_t = 30.0)]
    pub fps: f32,
    /// Width and height of one view in pixels (64..=1024).
    #[arg(long = "size", alias = "cell", default_value_t = 256)]
    pub cell: u32,
    /// Views, comma-separated: front, side, three-quarter.
    #[arg(long, value_delimiter = ',', default_value = "front,side")]
    pub views: Vec<String>,
    /// Overlays, comma-separated: bones, bodies, none (default: bones and bodies for a model
    /// without a mesh, none otherwise).
    #[arg(long, value_delimiter = ',')]
    pub overlay: Vec<String>,
    /// Draw the skeleton only, not the mesh.
    #[arg(long)]
    pub no_mesh: bool,
    /// Leave out MMD edges (outlines).
    #[arg(long)]
    pub no_outlines: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Output: `.gif` (animation) or `.png` (contact sheet).
    #[arg(long)]
    pub out: PathBuf,
    /// Work bounds.
    #[command(flatten)]
    pub limits: WorkLimits,
}

/// Most frames one render evaluates.
const MAX_FRAMES: u32 = 3600;
/// Frames on a contact sheet.
const SHEET_FRAMES: usize = 8;

const BONE_BODY: [u8; 4] = [60, 110, 220, 255];
/// Bodies the physics simulates (hair, skirts, ties).
const SIMULATED_BODY: [u8; 4] = [225, 120, 30, 255];

/// Parses `A..B` / `A..=B` into a half-open range.
pub fn parse_range(text: &str) -> Result<(u32, u32), CliError> {
    let bad = || {
        bad_input(
            Path::new("--frames"),
            format!("expected A..B or A..=B with whole numbers, got \"{text}\""),
        )
    };
    let (a, b, inclusive) = if let Some((a, b)) = text.split_once("..=") {
        (a, b, true)
    } else if let Some((a, b)) = text.split_once("..") {
        (a, b, false)
    } else {
        return Err(bad());
    };
    let a: u32 = a.trim().parse().map_err(|_| bad())?;
    let b: u32 = b.trim().parse().map_err(|_| bad())?;
    let end = if inclusive { b.saturating_add(1) } else { b };
    if end <= a {
        return Err(bad_input(
            Path::new("--frames"),
            format!("the range \"{text}\" is empty"),
        ));
    }
    if end - a > MAX_FRAMES {
        return Err(bad_input(
            Path::new("--frames"),
            format!("the range \"{text}\" holds more than {MAX_FRAMES} frames"),
        ));
    }
    Ok((a, end))
}

/// The frame range to evaluate: the given one, or the whole motion (at most 10 s).
pub fn frame_range(frames: Option<&str>, anim: &Animator) -> Result<(u32, u32), CliError> {
    match frames {
        Some(t) => parse_range(t),
        None => {
            let n = (anim.duration * anim.fps()).floor() as u32 + 1;
            Ok((0, n.min((10.0 * anim.fps()) as u32).max(1)))
        }
    }
}

/// Bounds over every joint and body of every frame (unpadded; empty frames give a unit box).
pub fn bounds_of<'a>(frames: impl Iterator<Item = &'a Posed>) -> Bounds {
    let mut b = Bounds::EMPTY;
    for f in frames {
        for m in &f.world {
            b.include(m.translation.into());
        }
        for body in &f.bodies {
            let r = body.reach();
            b.include(body.center - Vec3::splat(r));
            b.include(body.center + Vec3::splat(r));
        }
    }
    if !b.min.is_finite() {
        b = Bounds {
            min: Vec3::splat(-1.0),
            max: Vec3::splat(1.0),
        };
    }
    b
}

/// Draws the overlays of one evaluated frame: bodies as their shapes (simulated ones in
/// orange, ones that follow their bones in blue), then the skeleton on top.
pub fn draw(cell: &mut Cell<'_>, frame: &Posed, parents: &[u16], overlay: Overlay) {
    if overlay.bodies {
        draw_bodies(cell, frame);
    }
    if overlay.bones {
        cell.skeleton(parents, &frame.world);
    }
}

/// Which overlays to draw.
#[derive(Clone, Copy, Debug)]
pub struct Overlay {
    /// The skeleton.
    pub bones: bool,
    /// The rigid bodies.
    pub bodies: bool,
}

impl Overlay {
    /// Parses `--overlay`; empty means the default for a model with or without a mesh.
    pub fn parse(names: &[String], has_mesh: bool) -> Result<Self, CliError> {
        if names.is_empty() {
            return Ok(Self {
                bones: !has_mesh,
                bodies: !has_mesh,
            });
        }
        let mut o = Self {
            bones: false,
            bodies: false,
        };
        for n in names {
            match n.trim() {
                "bones" => o.bones = true,
                "bodies" => o.bodies = true,
                "none" => {}
                other => {
                    return Err(bad_input(
                        Path::new("--overlay"),
                        format!("unknown overlay \"{other}\" (bones, bodies, none)"),
                    ))
                }
            }
        }
        Ok(o)
    }
}

fn draw_bodies(cell: &mut Cell<'_>, frame: &Posed) {
    for body in &frame.bodies {
        let rgba = if body.simulated {
            SIMULATED_BODY
        } else {
            BONE_BODY
        };
        match body.shape {
            Shape::Sphere => cell.circle(body.center, body.size.x, rgba),
            Shape::Box => cell.cuboid(body.center, body.rotation, body.size, rgba),
            Shape::Capsule => {
                let half = body.rotation * Vec3::new(0.0, body.size.y * 0.5, 0.0);
                cell.capsule(body.center - half, body.center + half, body.size.x, rgba);
            }
        }
    }
}

/// Runs the command.
pub fn run(args: &RenderArgs) -> Result<(), CliError> {
    let ext = args
        .out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let gif = match ext.as_deref() {
        Some("gif") => true,
        Some("png") => false,
        _ => {
            return Err(bad_input(
                &args.out,
                "output must end in .gif (animation) or .png (contact sheet)",
            ))
        }
    };
    if !(64..=1024).contains(&args.cell) {
        return Err(bad_input(
            Path::new("--cell"),
            format!("must be 64..=1024, got {}", args.cell),
        ));
    }
    if !(args.fps.is_finite() && (1.0..=120.0).contains(&args.fps)) {
        return Err(bad_input(
            Path::new("--fps"),
            format!("must be within 1..=120, got {:?}", args.fps),
        ));
    }
    let views = args
        .views
        .iter()
        .map(|v| {
            View::parse(v).ok_or_else(|| {
                bad_input(
                    Path::new("--views"),
                    format!("unknown view \"{v}\" (front, side, three-quarter)"),
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if views.is_empty() || views.len() > 3 {
        return Err(bad_input(Path::new("--views"), "give one to three views"));
    }
    let output = Output::create(&args.out)?;
    let mut anim = Animator::new(&AnimSpec {
        model: args.model.clone(),
        motion: args.motion.clone(),
        clip: args.clip,
        pose: args.pose.clone(),
        physics: args.physics,
        dynamic: args.dynamic.clone(),
        fps: args.fps,
    })?;
    let (a, b) = frame_range(args.frames.as_deref(), &anim)?;
    // With physics every frame from 0 is simulated.
    let evaluated = if args.physics { b } else { b - a };
    args.limits.frames(u64::from(evaluated), "--frames")?;
    let wanted: Vec<u32> = if gif {
        (a..b).collect()
    } else {
        render::picks((b - a) as usize, SHEET_FRAMES)
            .into_iter()
            .map(|k| a + k as u32)
            .collect()
    };
    args.limits.memory(
        wanted.len() as u64 * anim.bone_count as u64 * 48
            + u64::from(args.cell).pow(2) * 8 * views.len() as u64 * (CHUNK_PICTURES + 1),
        "--frames",
    )?;
    let meshes = if args.no_mesh {
        None
    } else {
        Meshes::of(anim.model(), SkinMode::Linear)
    };
    let overlay = Overlay::parse(&args.overlay, meshes.is_some())?;
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(wanted.len() as u64 * 2)
    };
    bar.set_style(
        ProgressStyle::with_template("{msg:>10} [{bar:30}] {pos}/{len}")
            .map_err(|e| CliError::Internal(e.to_string()))?,
    );
    bar.set_message("evaluate");
    let mut frames = Vec::with_capacity(wanted.len());
    for (k, &i) in wanted.iter().enumerate() {
        frames.push((k, anim.frame(i)?));
        bar.inc(1);
    }
    let mut bounds = bounds_of(frames.iter().map(|f| &f.1));
    let style = MeshStyle {
        outlines: !args.no_outlines,
        background: Style::default().background,
    };
    let painter = match &meshes {
        Some(m) => {
            let (textures, warnings) = render::load_textures(m);
            for w in warnings {
                eprintln!("sinew: warning: {}: {w}", args.model.display());
            }
            let mut p = MeshPainter::new(m.clone(), Arc::clone(&textures), style);
            for (k, f) in &frames {
                if let Some((lo, hi)) = p.bounds(*k, &f.world, &f.morphs)? {
                    bounds.include(lo);
                    bounds.include(hi);
                }
            }
            Some((m.clone(), textures))
        }
        None => None,
    };
    let bounds = bounds.padded(0.04);
    let layout = Layout {
        views,
        cell: args.cell,
        mirror_z: anim.model().kind() == sinew_character::ModelKind::Mmd,
    };
    let parents = anim.parents().to_vec();
    let init = || {
        painter
            .as_ref()
            .map(|(m, t)| MeshPainter::new(m.clone(), Arc::clone(t), style))
    };
    let draw_frame = |p: &mut Option<MeshPainter>, cell: &mut Cell<'_>, f: &(usize, Posed)| {
        if let Some(p) = p.as_mut() {
            p.paint(cell, f.0, &f.1.world, &f.1.morphs)?;
        }
        draw(cell, &f.1, &parents, overlay);
        Ok(())
    };
    bar.set_message("draw");
    if gif {
        render::write_gif(
            &args.out,
            &frames,
            &bounds,
            &layout,
            args.fps,
            init,
            draw_frame,
            || bar.inc(1),
        )?;
    } else {
        let picks: Vec<usize> = (0..frames.len()).collect();
        render::write_sheet(
            &args.out, &frames, &picks, &bounds, &layout, init, draw_frame,
        )?;
    }
    bar.finish_and_clear();
    output.keep();
    println!("{}", anim.description);
    println!(
        "wrote {} ({} frame{} of {a}..{b} at {} fps{}{})",
        args.out.display(),
        frames.len(),
        if frames.len() == 1 { "" } else { "s" },
        args.fps,
        if args.physics { ", physics on" } else { "" },
        if meshes.is_some() { ", mesh" } else { "" }
    );
    Ok(())
}
