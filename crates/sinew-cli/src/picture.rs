//! What one evaluated frame looks like: the model's meshes painted (skinned, morphed,
//! textured, MMD edges) and the overlays (rigid bodies, skeleton) drawn over them, into one
//! cell. `render` (GIF, sheet), the video writer and the viewer paint through a [`Painter`]:
//! one shared set of meshes and textures, one [`MeshPainter`] per drawing thread.

use std::path::Path;
use std::sync::Arc;

use glam::Vec3;
use sinew::dynamics::Shape;
use sinew_character::CharacterModel;
use sinew_skin::SkinMode;

use crate::commands::inspect::bad_input;
use crate::error::CliError;
use crate::render::{self, Bounds, Cell, MeshPainter, MeshStyle, Style};
use crate::skinning::Meshes;
use crate::source::Posed;

/// Bodies that follow their bones.
const BONE_BODY: [u8; 4] = [60, 110, 220, 255];
/// Bodies the physics simulates (hair, skirts, ties).
const SIMULATED_BODY: [u8; 4] = [225, 120, 30, 255];

/// A unit box where `b` holds nothing.
fn or_unit(b: Bounds) -> Bounds {
    if b.min.is_finite() {
        b
    } else {
        Bounds {
            min: Vec3::splat(-1.0),
            max: Vec3::splat(1.0),
        }
    }
}

/// The box a picture frames for what `b` holds: padded by 4 %, a unit box when empty.
pub fn framed(b: Bounds) -> Bounds {
    or_unit(b).padded(0.04)
}

/// Grows `b` by a frame's joints.
fn include_joints(b: &mut Bounds, f: &Posed) {
    for m in &f.world {
        b.include(m.translation.into());
    }
}

/// Grows `b` by a frame's bodies.
fn include_bodies(b: &mut Bounds, f: &Posed) {
    for body in &f.bodies {
        let r = body.reach();
        b.include(body.center - Vec3::splat(r));
        b.include(body.center + Vec3::splat(r));
    }
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

/// The meshes, textures and overlays one model is drawn with, shared by the drawing threads.
pub struct Painter {
    meshes: Option<(Meshes, Arc<render::Textures>)>,
    style: MeshStyle,
    parents: Vec<u16>,
    /// The overlays drawn over the meshes.
    pub overlay: Overlay,
}

impl Painter {
    /// The painter of `anim`'s model: its meshes (none with `no_mesh`, or a model without
    /// any) with textures loaded once (what cannot be loaded is warned about, naming
    /// `model_path`), MMD edges unless `no_outlines`, the overlays `--overlay` names.
    pub fn new(
        model: &CharacterModel,
        model_path: &Path,
        no_mesh: bool,
        no_outlines: bool,
        overlay: &[String],
    ) -> Result<Self, CliError> {
        let meshes = if no_mesh {
            None
        } else {
            Meshes::of(model, SkinMode::Linear)
        };
        let overlay = Overlay::parse(overlay, meshes.is_some())?;
        let meshes = meshes.map(|m| {
            let (textures, warnings) = render::load_textures(&m);
            for w in warnings {
                eprintln!("sinew: warning: {}: {w}", model_path.display());
            }
            (m, textures)
        });
        Ok(Self {
            meshes,
            style: MeshStyle {
                outlines: !no_outlines,
                background: Style::default().background,
            },
            parents: model.skeleton().parent_indices().to_vec(),
            overlay,
        })
    }

    /// Whether a mesh is drawn.
    pub fn has_mesh(&self) -> bool {
        self.meshes.is_some()
    }

    /// One drawing thread's state (its own deformed meshes and frame buffer).
    pub fn worker(&self) -> Option<MeshPainter> {
        (self.meshes.as_ref()).map(|(m, t)| MeshPainter::new(m.clone(), Arc::clone(t), self.style))
    }

    /// Draws frame `index` (`posed`) into `cell`: the meshes, then the overlays.
    pub fn draw(
        &self,
        worker: &mut Option<MeshPainter>,
        cell: &mut Cell<'_>,
        index: usize,
        posed: &Posed,
    ) -> Result<(), CliError> {
        self.draw_with(worker, cell, index, posed, self.overlay)
    }

    /// [`Self::draw`] with other overlays.
    pub fn draw_with(
        &self,
        worker: &mut Option<MeshPainter>,
        cell: &mut Cell<'_>,
        index: usize,
        posed: &Posed,
        overlay: Overlay,
    ) -> Result<(), CliError> {
        if let Some(p) = worker.as_mut() {
            p.paint(cell, index, &posed.world, &posed.morphs)?;
        }
        draw(cell, posed, &self.parents, overlay);
        Ok(())
    }

    /// Grows `bounds` by what frame `index` (`posed`) draws: the deformed meshes, the bodies
    /// when they are drawn, the joints when the skeleton is drawn or there is no mesh (a joint
    /// off the mesh, an IK target or a bone MMD hangs from the origin, does not widen the
    /// picture of a mesh).
    pub fn include(
        &self,
        worker: &mut Option<MeshPainter>,
        bounds: &mut Bounds,
        index: usize,
        posed: &Posed,
    ) -> Result<(), CliError> {
        if self.overlay.bones || worker.is_none() {
            include_joints(bounds, posed);
        }
        if self.overlay.bodies {
            include_bodies(bounds, posed);
        }
        if let Some(p) = worker.as_mut() {
            if let Some((lo, hi)) = p.bounds(index, &posed.world, &posed.morphs)? {
                bounds.include(lo);
                bounds.include(hi);
            }
        }
        Ok(())
    }

    /// The box framing `frames` (what [`Self::include`] grows, a unit box when empty),
    /// padded by 4 %.
    pub fn frame_bounds<'a>(
        &self,
        frames: impl Iterator<Item = (usize, &'a Posed)>,
    ) -> Result<Bounds, CliError> {
        let mut worker = self.worker();
        let mut b = Bounds::EMPTY;
        for (k, f) in frames {
            self.include(&mut worker, &mut b, k, f)?;
        }
        Ok(framed(b))
    }
}
