//! Drawing a frame's skinned meshes into a cell with `sinew-raster`: the cell's orthographic
//! camera, per-material diffuse colour and texture (PMD/PMX: BMP, PNG, TGA next to the model),
//! MMD edges as outlines, double-sided and translucent materials as the file says.

use std::sync::Arc;

use glam::{Affine3A, Vec2, Vec3};
use sinew_raster::{Camera, DrawMaterial, Frame, Light, MeshView, Texture, Winding};
use sinew_skin::TextureSource;

use super::Cell;
use crate::error::CliError;
use crate::skinning::Meshes;

/// Largest texture file read (bytes).
const MAX_TEXTURE_FILE: u64 = 64 << 20;

/// Decoded textures, per mesh part, per texture index (`None`: missing or undecodable).
pub type Textures = Vec<Vec<Option<Texture>>>;

/// Loads every texture the meshes name; what cannot be loaded is reported in the returned
/// warnings and drawn in its material's colour.
pub fn load_textures(meshes: &Meshes) -> (Arc<Textures>, Vec<String>) {
    let mut warnings = Vec::new();
    let textures = meshes
        .parts
        .iter()
        .map(|part| {
            part.mesh
                .textures
                .iter()
                .map(|t| {
                    let (name, bytes) = match t {
                        TextureSource::File(rel) => {
                            let Some(path) = sinew_raster::find_texture(&meshes.folder, rel) else {
                                warnings.push(format!("texture {} not found", rel.display()));
                                return None;
                            };
                            let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
                            if size > MAX_TEXTURE_FILE {
                                warnings.push(format!("texture {} is over 64 MiB", rel.display()));
                                return None;
                            }
                            (rel.display().to_string(), std::fs::read(&path).ok()?)
                        }
                        TextureSource::Embedded { mime, bytes } => {
                            (format!("embedded {mime}"), bytes.to_vec())
                        }
                    };
                    match Texture::decode(&bytes) {
                        Ok(t) => Some(t),
                        Err(e) => {
                            warnings.push(format!("texture {name}: {e}"));
                            None
                        }
                    }
                })
                .collect()
        })
        .collect();
    (Arc::new(textures), warnings)
}

/// What to draw besides the meshes' colours.
#[derive(Clone, Copy, Debug)]
pub struct MeshStyle {
    /// MMD edges (outlines).
    pub outlines: bool,
    /// Background RGBA.
    pub background: [u8; 4],
}

/// One worker's mesh drawing state: deformed meshes, display-space copies, a frame buffer.
pub struct MeshPainter {
    meshes: Meshes,
    textures: Arc<Textures>,
    style: MeshStyle,
    frame: Option<Frame>,
    /// Index of the frame the meshes were last deformed for.
    last: Option<usize>,
    positions: Vec<Vec<Vec3>>,
    normals: Vec<Vec<Vec3>>,
}

impl MeshPainter {
    /// A painter for `meshes` (each worker clones its own).
    pub fn new(meshes: Meshes, textures: Arc<Textures>, style: MeshStyle) -> Self {
        Self {
            positions: meshes
                .parts
                .iter()
                .map(|p| p.mesh.positions.clone())
                .collect(),
            normals: meshes
                .parts
                .iter()
                .map(|p| p.mesh.normals.clone())
                .collect(),
            meshes,
            textures,
            style,
            frame: None,
            last: None,
        }
    }

    /// Deforms the meshes for frame `index` (once per frame, however many views draw it) and
    /// copies them into display space (z mirrored for MMD models).
    pub fn deform(
        &mut self,
        index: usize,
        world: &[Affine3A],
        morphs: &[f32],
    ) -> Result<(), CliError> {
        if self.last == Some(index) {
            return Ok(());
        }
        self.meshes.update(world, morphs)?;
        let mirror = if self.meshes.mirror_z {
            Vec3::new(1.0, 1.0, -1.0)
        } else {
            Vec3::ONE
        };
        for (k, part) in self.meshes.parts.iter().enumerate() {
            for (o, p) in self.positions[k]
                .iter_mut()
                .zip(part.deformed().positions())
            {
                *o = *p * mirror;
            }
            for (o, n) in self.normals[k].iter_mut().zip(part.deformed().normals()) {
                *o = *n * mirror;
            }
        }
        self.last = Some(index);
        Ok(())
    }

    /// The display-space bounds of frame `index`'s deformed meshes, in model space (mirror
    /// undone), or `None` without vertices.
    pub fn bounds(
        &mut self,
        index: usize,
        world: &[Affine3A],
        morphs: &[f32],
    ) -> Result<Option<(Vec3, Vec3)>, CliError> {
        self.deform(index, world, morphs)?;
        let mut b: Option<(Vec3, Vec3)> = None;
        for part in &self.meshes.parts {
            if let Some((lo, hi)) = sinew_skin::bounds(part.deformed().positions()) {
                b = Some(b.map_or((lo, hi), |(l, h)| (l.min(lo), h.max(hi))));
            }
        }
        Ok(b)
    }

    /// Draws frame `index` into `cell` with the cell's camera.
    pub fn paint(
        &mut self,
        cell: &mut Cell<'_>,
        index: usize,
        world: &[Affine3A],
        morphs: &[f32],
    ) -> Result<(), CliError> {
        self.deform(index, world, morphs)?;
        let (w, h) = cell.size();
        let frame = match &mut self.frame {
            Some(f) if f.width() == w && f.height() == h => f,
            slot => slot.insert(
                Frame::new(w, h, self.style.background)
                    .map_err(|e| CliError::Internal(format!("raster: {e}")))?,
            ),
        };
        frame.clear(self.style.background);
        let camera: Camera = cell.camera();
        let light = Light::default();
        for (k, part) in self.meshes.parts.iter().enumerate() {
            let mesh = &part.mesh;
            // The winding as a viewer in the mesh's own handedness sees it. Mirroring z turns
            // MMD's left-handed space right-handed *together with the viewer* (the picture is
            // the one DirectX draws from −Z), so the on-screen winding stays the file's.
            let front_face = match mesh.winding {
                sinew_skin::Winding::Clockwise => Winding::Clockwise,
                sinew_skin::Winding::CounterClockwise => Winding::CounterClockwise,
            };
            let uvs: &[Vec2] = part.deformed().uvs();
            let view = MeshView {
                positions: &self.positions[k],
                normals: &self.normals[k],
                uvs,
                indices: &mesh.indices,
                front_face,
            };
            let textures = &self.textures[k];
            let materials: Vec<DrawMaterial<'_>> = mesh
                .materials
                .iter()
                .map(|m| DrawMaterial {
                    first_index: m.first_index as usize,
                    index_count: m.index_count as usize,
                    diffuse: m.diffuse,
                    ambient: m.ambient,
                    texture: m
                        .texture
                        .and_then(|t| textures.get(t as usize))
                        .and_then(Option::as_ref),
                    double_sided: m.double_sided,
                    outline: if self.style.outlines { m.edge } else { None },
                })
                .collect();
            frame
                .draw(&camera, &view, &materials, &light)
                .map_err(|e| CliError::Internal(format!("raster: {e}")))?;
        }
        cell.blit(frame.rgba());
        Ok(())
    }
}
