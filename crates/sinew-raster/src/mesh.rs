//! What the caller hands to [`Frame::draw`](crate::Frame::draw): geometry, materials, light.

use glam::{Vec2, Vec3, Vec4};

use crate::Texture;

/// Which screen-space winding counts as a front face.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Winding {
    /// Vertices in counter-clockwise order as seen on screen are front faces (glTF, OpenGL).
    #[default]
    CounterClockwise,
    /// Vertices in clockwise order as seen on screen are front faces (Direct3D's default, and
    /// MMD's PMX/PMD when the picture is not mirrored).
    Clockwise,
}

/// Geometry borrowed from the caller: already skinned, in world space.
///
/// `normals` and `uvs` are either empty or hold one entry per position. Without normals,
/// triangles are shaded flat and get no outline; without uvs, textures are not looked up.
#[derive(Clone, Copy, Debug)]
pub struct MeshView<'a> {
    /// Vertex positions (world space).
    pub positions: &'a [Vec3],
    /// Vertex normals (world space; need not be unit length), or empty.
    pub normals: &'a [Vec3],
    /// Texture coordinates (`(0, 0)` = top-left of the image), or empty.
    pub uvs: &'a [Vec2],
    /// Triangle list: three indices into `positions` per triangle.
    pub indices: &'a [u32],
    /// The winding of front faces as seen on screen.
    pub front_face: Winding,
}

impl<'a> MeshView<'a> {
    /// Positions and indices only (flat shading, no texture), counter-clockwise front faces.
    pub fn new(positions: &'a [Vec3], indices: &'a [u32]) -> MeshView<'a> {
        MeshView {
            positions,
            normals: &[],
            uvs: &[],
            indices,
            front_face: Winding::CounterClockwise,
        }
    }
}

/// One draw call's material: a range of the index list and how to shade it.
#[derive(Clone, Copy, Debug)]
pub struct DrawMaterial<'a> {
    /// First index (not triangle) of the range in [`MeshView::indices`]. Clamped to the list.
    pub first_index: usize,
    /// Number of indices; clamped to the list and rounded down to a multiple of 3.
    pub index_count: usize,
    /// Diffuse RGBA; alpha is the opacity.
    pub diffuse: Vec4,
    /// Ambient RGB, added unlit.
    pub ambient: Vec3,
    /// Texture multiplied into the lit colour, if any.
    pub texture: Option<&'a Texture>,
    /// Draw back faces too (with flipped normals) instead of culling them.
    pub double_sided: bool,
    /// MMD-style edge: colour (RGBA) and width in pixels (`1.0` = one pixel). Needs normals.
    pub outline: Option<(Vec4, f32)>,
}

impl DrawMaterial<'_> {
    /// An opaque white, single-sided, untextured material without outline over
    /// `index_count` indices from `first_index`.
    pub fn new(first_index: usize, index_count: usize) -> Self {
        DrawMaterial {
            first_index,
            index_count,
            diffuse: Vec4::ONE,
            ambient: Vec3::ZERO,
            texture: None,
            double_sided: false,
            outline: None,
        }
    }
}

/// A directional light plus a global ambient term.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Light {
    /// Direction the light travels (from the light toward the scene); need not be unit.
    pub direction: Vec3,
    /// Light colour, multiplied with the material's diffuse.
    pub color: Vec3,
    /// Ambient colour, multiplied with the material's diffuse and added everywhere.
    pub ambient: Vec3,
}

impl Default for Light {
    /// A key light from the upper front-left, for a Y-up world viewed from `+Z`.
    fn default() -> Self {
        Light {
            direction: Vec3::new(0.45, -0.7, -0.55).normalize(),
            color: Vec3::splat(0.7),
            ambient: Vec3::splat(0.3),
        }
    }
}
