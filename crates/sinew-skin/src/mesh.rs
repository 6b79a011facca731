//! [`Mesh`]: a skinned mesh as a reader hands it over (rest vertices, triangles, materials,
//! textures, skin and morphs), and [`Deformed`], one character's deformed copy of it.

use std::path::PathBuf;
use std::sync::Arc;

use glam::{Affine3A, Vec2, Vec3, Vec4};

use crate::{apply_morphs, Morph, Skin, SkinError, SkinMode, SkinScratch};

/// Which winding a triangle's front face has, seen from its front, in the mesh's own space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Winding {
    /// glTF's convention.
    #[default]
    CounterClockwise,
    /// MMD's (left-handed model space, clockwise fronts as seen from outside).
    Clockwise,
}

/// Where a texture's bytes are.
#[derive(Debug, Clone, PartialEq)]
pub enum TextureSource {
    /// A file, relative to the model file's folder as written in the model (may be missing).
    File(PathBuf),
    /// Bytes inside the model file (glTF buffer views / data URIs), with their MIME type.
    Embedded {
        /// `image/png`, `image/jpeg`, …
        mime: String,
        /// The encoded image.
        bytes: Arc<[u8]>,
    },
}

/// A material: a run of triangles drawn alike.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Name.
    pub name: String,
    /// Diffuse (base) colour RGBA; alpha is opacity.
    pub diffuse: Vec4,
    /// Ambient RGB (MMD) — black for glTF.
    pub ambient: Vec3,
    /// Specular RGB and exponent.
    pub specular: Vec4,
    /// Index into [`Mesh::textures`], if textured.
    pub texture: Option<u32>,
    /// Both faces drawn.
    pub double_sided: bool,
    /// MMD edge (outline) colour and size, if drawn.
    pub edge: Option<(Vec4, f32)>,
    /// First index (into [`Mesh::indices`]) of its triangles.
    pub first_index: u32,
    /// Number of indices (three per triangle).
    pub index_count: u32,
}

/// A skinned mesh. Readers build it and check it with [`validate`](Self::validate); it is
/// immutable afterwards and shared between characters (put it in an `Arc`).
#[derive(Debug, Clone, Default)]
pub struct Mesh {
    /// Name (glTF mesh name, MMD model name).
    pub name: String,
    /// Rest positions in the skin's bind space.
    pub positions: Vec<Vec3>,
    /// Rest normals (empty when the file has none).
    pub normals: Vec<Vec3>,
    /// Texture coordinates (empty when the file has none).
    pub uvs: Vec<Vec2>,
    /// Triangle list, three vertex indices each.
    pub indices: Vec<u32>,
    /// Materials, drawn in order; their index ranges cover parts of `indices`.
    pub materials: Vec<Material>,
    /// Textures the materials name.
    pub textures: Vec<TextureSource>,
    /// Front-face winding.
    pub winding: Winding,
    /// The vertices' joints and weights.
    pub skin: Skin,
    /// Morph targets, in the file's order.
    pub morphs: Vec<Morph>,
}

/// The largest rest coordinate (position, normal, morph offset) a mesh may hold: far beyond any
/// real model in any unit, and small enough that skinning and morphing it cannot overflow
/// `f32` into infinities.
pub const MAX_COORDINATE: f32 = 1e15;

/// Whether every component of `v` is finite and within ±[`MAX_COORDINATE`].
#[must_use]
pub fn usable(v: Vec3) -> bool {
    v.is_finite() && v.abs().max_element() <= MAX_COORDINATE
}

impl Mesh {
    /// Checks every cross-reference: attribute lengths, triangle and morph indices, material
    /// ranges and texture indices, the skin's vertex count, finite rest data within
    /// ±[`MAX_COORDINATE`].
    ///
    /// # Errors
    /// [`SkinError::VertexOutOfRange`] or [`SkinError::Mesh`] naming the first problem.
    pub fn validate(&self) -> Result<(), SkinError> {
        let n = self.positions.len();
        let bad = |s: String| Err(SkinError::Mesh(s));
        if !self.normals.is_empty() && self.normals.len() != n {
            return bad(format!("{} normals for {n} vertices", self.normals.len()));
        }
        if !self.uvs.is_empty() && self.uvs.len() != n {
            return bad(format!("{} UVs for {n} vertices", self.uvs.len()));
        }
        if self.skin.vertex_count() != n {
            return bad(format!(
                "the skin has {} vertices, the mesh {n}",
                self.skin.vertex_count()
            ));
        }
        if !self
            .positions
            .iter()
            .chain(&self.normals)
            .all(|&v| usable(v))
            || !self.uvs.iter().all(|v| v.is_finite())
        {
            return bad(format!(
                "a rest position, normal or UV is not finite or lies beyond ±{MAX_COORDINATE:e}"
            ));
        }
        if !self.indices.len().is_multiple_of(3) {
            return bad(format!(
                "{} indices is not whole triangles",
                self.indices.len()
            ));
        }
        for (i, &v) in self.indices.iter().enumerate() {
            if v as usize >= n {
                return Err(SkinError::VertexOutOfRange {
                    what: "triangle index",
                    index: i,
                    vertex: v,
                    count: n,
                });
            }
        }
        for m in &self.materials {
            let end = u64::from(m.first_index) + u64::from(m.index_count);
            if end > self.indices.len() as u64 {
                return bad(format!(
                    "material \"{}\" draws indices {}..{end} of {}",
                    m.name,
                    m.first_index,
                    self.indices.len()
                ));
            }
            if let Some(t) = m.texture {
                if t as usize >= self.textures.len() {
                    return bad(format!(
                        "material \"{}\" names texture {t} of {}",
                        m.name,
                        self.textures.len()
                    ));
                }
            }
        }
        for m in &self.morphs {
            m.validate(n)?;
        }
        Ok(())
    }

    /// The axis-aligned bounds of the rest positions (`None` when empty).
    #[must_use]
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        bounds(&self.positions)
    }
}

/// The axis-aligned bounds of `points` (`None` when empty).
#[must_use]
pub fn bounds(points: &[Vec3]) -> Option<(Vec3, Vec3)> {
    let first = *points.first()?;
    Some(
        points
            .iter()
            .fold((first, first), |(lo, hi), &p| (lo.min(p), hi.max(p))),
    )
}

/// One character's deformed copy of a [`Mesh`]: morphed and skinned vertices, recomputed by
/// [`update`](Self::update) into buffers sized once.
#[derive(Debug, Clone)]
pub struct Deformed {
    morphed_p: Vec<Vec3>,
    morphed_n: Vec<Vec3>,
    uvs: Vec<Vec2>,
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    scratch: SkinScratch,
    /// The UVs hold a morphed frame (restored from the rest UVs when morphs stop).
    uvs_morphed: bool,
}

impl Deformed {
    /// Buffers for `mesh`, holding its rest pose.
    #[must_use]
    pub fn new(mesh: &Mesh) -> Self {
        Self {
            morphed_p: mesh.positions.clone(),
            morphed_n: mesh.normals.clone(),
            uvs: mesh.uvs.clone(),
            positions: mesh.positions.clone(),
            normals: mesh.normals.clone(),
            scratch: SkinScratch::new(&mesh.skin),
            uvs_morphed: false,
        }
    }

    /// Applies `morph_weights` (one per [`Mesh::morphs`] entry; missing ones count as 0) and
    /// skins with `matrices`.
    ///
    /// # Errors
    /// [`SkinError::Length`] when `matrices` is shorter than the skin's joints or the buffers
    /// were made for another mesh.
    pub fn update(
        &mut self,
        mesh: &Mesh,
        matrices: &[Affine3A],
        morph_weights: &[f32],
        mode: SkinMode,
    ) -> Result<(), SkinError> {
        let morphed = morph_weights
            .iter()
            .zip(&mesh.morphs)
            .any(|(&w, m)| w != 0.0 && w.is_finite() && !matches!(m.kind, crate::MorphKind::Other));
        let (p, n) = if morphed {
            apply_morphs(
                &mesh.morphs,
                morph_weights,
                &mesh.positions,
                &mesh.normals,
                &mesh.uvs,
                &mut self.morphed_p,
                &mut self.morphed_n,
                &mut self.uvs,
            )?;
            self.uvs_morphed = true;
            (&self.morphed_p[..], &self.morphed_n[..])
        } else {
            if self.uvs_morphed && self.uvs.len() == mesh.uvs.len() {
                self.uvs.copy_from_slice(&mesh.uvs);
                self.uvs_morphed = false;
            }
            (&mesh.positions[..], &mesh.normals[..])
        };
        mesh.skin.deform(
            &mut self.scratch,
            mode,
            matrices,
            p,
            n,
            &mut self.positions,
            &mut self.normals,
        )
    }

    /// Deformed positions.
    #[must_use]
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// Deformed normals (not renormalised; empty when the mesh has none).
    #[must_use]
    pub fn normals(&self) -> &[Vec3] {
        &self.normals
    }

    /// Texture coordinates after UV morphs.
    #[must_use]
    pub fn uvs(&self) -> &[Vec2] {
        &self.uvs
    }
}
