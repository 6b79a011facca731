//! Morph targets: sparse per-vertex offsets of position, normal and texture coordinate,
//! mixed by weight onto the rest mesh before skinning; material morphs kept as data.

use glam::{Vec2, Vec3, Vec4};

use crate::SkinError;

/// A named morph.
#[derive(Debug, Clone, PartialEq)]
pub struct Morph {
    /// Name (VMD morph keys and glTF `targetNames` refer to it).
    pub name: String,
    /// What it moves.
    pub kind: MorphKind,
}

/// What a morph moves.
#[derive(Debug, Clone, PartialEq)]
pub enum MorphKind {
    /// Vertex offsets (PMX/PMD vertex morphs, glTF morph targets).
    Vertex {
        /// The vertices moved.
        vertices: Vec<u32>,
        /// Position offset per listed vertex.
        positions: Vec<Vec3>,
        /// Normal offset per listed vertex, or empty.
        normals: Vec<Vec3>,
    },
    /// Texture-coordinate offsets (PMX UV morphs on the base UV; `channel` 0 is the base,
    /// 1..=4 the additional UVs, which this mesh keeps only as morph data).
    Uv {
        /// 0 = base UV.
        channel: u8,
        /// The vertices moved.
        vertices: Vec<u32>,
        /// Offset per listed vertex (`xy` apply to the base UV).
        offsets: Vec<Vec4>,
    },
    /// Material changes (PMX material morphs), applied by a renderer through
    /// [`MaterialMorph::apply`].
    Material(Vec<MaterialMorph>),
    /// A morph that moves no mesh data itself: its reader resolves it (MMD bone, group, flip and
    /// impulse morphs). Kept so morph indices match the file's.
    Other,
}

/// One material change of a material morph.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialMorph {
    /// The material, or `None` for every material.
    pub material: Option<u32>,
    /// Multiply (`true`) or add (`false`).
    pub multiply: bool,
    /// Diffuse RGBA.
    pub diffuse: Vec4,
    /// Specular RGB and exponent.
    pub specular: Vec4,
    /// Ambient RGB.
    pub ambient: Vec3,
    /// Edge colour RGBA.
    pub edge_color: Vec4,
    /// Edge size.
    pub edge_size: f32,
    /// Texture tint RGBA.
    pub texture_tint: Vec4,
}

/// The parts of a material a material morph changes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialState {
    /// Diffuse RGBA.
    pub diffuse: Vec4,
    /// Ambient RGB.
    pub ambient: Vec3,
    /// Edge colour RGBA.
    pub edge_color: Vec4,
    /// Edge size.
    pub edge_size: f32,
    /// Texture tint RGBA (1 = unchanged).
    pub texture_tint: Vec4,
}

impl MaterialMorph {
    /// Applies this change at `weight` to `state` (PMX: multiply mixes towards `value`,
    /// add adds `value · weight`).
    pub fn apply(&self, weight: f32, state: &mut MaterialState) {
        if self.multiply {
            let mix4 = |v: Vec4, m: Vec4| v * (Vec4::ONE + (m - Vec4::ONE) * weight);
            state.diffuse = mix4(state.diffuse, self.diffuse);
            state.ambient *= Vec3::ONE + (self.ambient - Vec3::ONE) * weight;
            state.edge_color = mix4(state.edge_color, self.edge_color);
            state.edge_size *= 1.0 + (self.edge_size - 1.0) * weight;
            state.texture_tint = mix4(state.texture_tint, self.texture_tint);
        } else {
            state.diffuse += self.diffuse * weight;
            state.ambient += self.ambient * weight;
            state.edge_color += self.edge_color * weight;
            state.edge_size += self.edge_size * weight;
            state.texture_tint += self.texture_tint * weight;
        }
    }
}

impl Morph {
    /// Checks every vertex index against `vertex_count` and the offsets' lengths and values.
    ///
    /// # Errors
    /// [`SkinError::VertexOutOfRange`] or [`SkinError::Mesh`].
    pub fn validate(&self, vertex_count: usize) -> Result<(), SkinError> {
        let check = |vertices: &[u32], finite: bool| {
            if !finite {
                return Err(SkinError::Mesh(format!(
                    "morph \"{}\" has an offset that is not finite or lies beyond ±{:e}",
                    self.name,
                    crate::MAX_COORDINATE
                )));
            }
            for (i, &v) in vertices.iter().enumerate() {
                if v as usize >= vertex_count {
                    return Err(SkinError::VertexOutOfRange {
                        what: "morph offset",
                        index: i,
                        vertex: v,
                        count: vertex_count,
                    });
                }
            }
            Ok(())
        };
        match &self.kind {
            MorphKind::Vertex {
                vertices,
                positions,
                normals,
            } => {
                if positions.len() != vertices.len()
                    || !(normals.is_empty() || normals.len() == vertices.len())
                {
                    return Err(SkinError::Mesh(format!(
                        "morph \"{}\": offsets and vertices differ in number",
                        self.name
                    )));
                }
                let finite = positions.iter().chain(normals).all(|&v| crate::usable(v));
                check(vertices, finite)
            }
            MorphKind::Uv {
                vertices, offsets, ..
            } => {
                if offsets.len() != vertices.len() {
                    return Err(SkinError::Mesh(format!(
                        "morph \"{}\": offsets and vertices differ in number",
                        self.name
                    )));
                }
                check(vertices, offsets.iter().all(|v| v.is_finite()))
            }
            MorphKind::Material(_) | MorphKind::Other => Ok(()),
        }
    }
}

/// Writes the rest data plus every weighted vertex and base-UV morph into the outputs (each of
/// the rest slice's length; `normals`/`uvs` and their outputs may be empty). Morphs and weights
/// pair by index; weights of 0 and non-finite weights are skipped. Morphs must have been
/// [validated](Morph::validate) against the rest data's length.
///
/// # Errors
/// [`SkinError::Length`] when an output does not match its rest slice.
#[allow(clippy::too_many_arguments)]
pub fn apply_morphs(
    morphs: &[Morph],
    weights: &[f32],
    positions: &[Vec3],
    normals: &[Vec3],
    uvs: &[Vec2],
    out_positions: &mut [Vec3],
    out_normals: &mut [Vec3],
    out_uvs: &mut [Vec2],
) -> Result<(), SkinError> {
    for (what, got, expected) in [
        ("out_positions", out_positions.len(), positions.len()),
        ("out_normals", out_normals.len(), normals.len()),
        ("out_uvs", out_uvs.len(), uvs.len()),
    ] {
        if got != expected {
            return Err(SkinError::Length {
                what,
                expected,
                got,
            });
        }
    }
    out_positions.copy_from_slice(positions);
    out_normals.copy_from_slice(normals);
    out_uvs.copy_from_slice(uvs);
    for (morph, &w) in morphs.iter().zip(weights) {
        if w == 0.0 || !w.is_finite() {
            continue;
        }
        match &morph.kind {
            MorphKind::Vertex {
                vertices,
                positions: dp,
                normals: dn,
            } => {
                for (&v, d) in vertices.iter().zip(dp) {
                    if let Some(p) = out_positions.get_mut(v as usize) {
                        *p += *d * w;
                    }
                }
                if !out_normals.is_empty() {
                    for (&v, d) in vertices.iter().zip(dn) {
                        if let Some(n) = out_normals.get_mut(v as usize) {
                            *n += *d * w;
                        }
                    }
                }
            }
            MorphKind::Uv {
                channel: 0,
                vertices,
                offsets,
            } => {
                for (&v, d) in vertices.iter().zip(offsets) {
                    if let Some(uv) = out_uvs.get_mut(v as usize) {
                        *uv += d.truncate().truncate() * w;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}
