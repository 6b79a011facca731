//! The model's mesh and morphs: PMX/PMD vertices, triangles, materials, textures, skin
//! weights and morphs turned into a [`sinew_skin::Mesh`] (MMD model space, left-handed,
//! clockwise front faces), plus the morphs that act on bones ([`MmdMorph`]): bone morphs
//! change the pose before IK, group morphs mix the others.
//!
//! Repairs, each reported as a warning: a vertex weight on a bone index outside the model is
//! dropped (the vertex keeps its other bones; with none left it follows bone 0); materials
//! whose index counts overrun the triangle list are cut; triangles naming a vertex past the
//! vertex list are dropped; morph offsets naming a vertex past it are dropped.

use std::path::PathBuf;

use glam::{Quat, Vec2, Vec3, Vec4};
use sinew_skin::{
    Influence, Material, MaterialMorph, Mesh, Morph, MorphKind, Skin, TextureSource, Winding,
};

use crate::model::MmdError;
use crate::pmd::Pmd;
use crate::pmx::{Pmx, PmxDeform, PmxMorphOffsets};

/// A morph as a character drives it. Vertex, UV and material morphs live in the mesh
/// ([`MmdModel::mesh`](crate::MmdModel::mesh)) at the same index.
#[derive(Debug, Clone, PartialEq)]
pub enum MmdMorph {
    /// Moves mesh data only (vertex, UV, material morphs).
    Mesh,
    /// Mixes other morphs: `(morph index, ratio)`.
    Group(Vec<(usize, f32)>),
    /// Moves bones: per bone, a translation offset and a rotation, scaled by the weight.
    Bone(Vec<BoneMorph>),
    /// A morph this runtime does not drive (PMX 2.1 flip and impulse morphs).
    Unsupported,
}

/// One bone of a bone morph.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoneMorph {
    /// The bone (file index).
    pub bone: usize,
    /// Translation added at weight 1.
    pub translation: Vec3,
    /// Rotation reached at weight 1 (slerped from identity by the weight).
    pub rotation: Quat,
}

/// Group morphs nested deeper than this are not followed (PMX forbids nesting; files that
/// nest anyway, or loop, stop here).
pub const MAX_GROUP_DEPTH: usize = 4;

fn texture_path(name: &str) -> TextureSource {
    TextureSource::File(PathBuf::from(name.trim().replace('\\', "/")))
}

fn material_ranges(counts: &[u64], indices: usize, warnings: &mut Vec<String>) -> Vec<(u32, u32)> {
    let mut start = 0u64;
    counts
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let first = start.min(indices as u64);
            let end = (start + c).min(indices as u64);
            if start + c > indices as u64 {
                warnings.push(format!(
                    "material {i}: draws indices {start}..{} of {indices}; cut",
                    start + c
                ));
            }
            start += c;
            let count = (end - first) / 3 * 3;
            (first as u32, count as u32)
        })
        .collect()
}

/// Keeps whole triangles whose three vertices exist; remaps material ranges accordingly.
fn checked_indices(
    raw: impl Iterator<Item = u32>,
    vertex_count: usize,
    ranges: &mut [(u32, u32)],
    warnings: &mut Vec<String>,
) -> Vec<u32> {
    let raw: Vec<u32> = raw.collect();
    let mut out = Vec::with_capacity(raw.len());
    let mut dropped = 0usize;
    for r in ranges.iter_mut() {
        let (first, count) = (r.0 as usize, r.1 as usize);
        let new_first = out.len();
        for tri in raw[first..first + count].chunks_exact(3) {
            if tri.iter().all(|&v| (v as usize) < vertex_count) {
                out.extend_from_slice(tri);
            } else {
                dropped += 1;
            }
        }
        *r = (new_first as u32, (out.len() - new_first) as u32);
    }
    if dropped > 0 {
        warnings.push(format!(
            "{dropped} triangles name a vertex past the {vertex_count} vertices; dropped"
        ));
    }
    out
}

fn influence(deform: &PmxDeform, bones: usize, dropped: &mut usize) -> Influence {
    let ok = |b: i32| (b >= 0 && (b as usize) < bones).then_some(b as u32);
    let linear = |pairs: &[(i32, f32)], dropped: &mut usize| {
        let mut list = Vec::with_capacity(pairs.len());
        for &(b, w) in pairs {
            match ok(b) {
                Some(j) => list.push((j, if w.is_finite() { w.max(0.0) } else { 0.0 })),
                None if w != 0.0 && b >= 0 => *dropped += 1,
                None => {}
            }
        }
        if list.is_empty() {
            list.push((0, 1.0));
        }
        list
    };
    match *deform {
        PmxDeform::Bdef1 { bone } => Influence::Linear(linear(&[(bone, 1.0)], dropped)),
        PmxDeform::Bdef2 { bones: b, weight } => {
            Influence::Linear(linear(&[(b[0], weight), (b[1], 1.0 - weight)], dropped))
        }
        PmxDeform::Bdef4 { bones: b, weights } => {
            let pairs: Vec<(i32, f32)> = b.into_iter().zip(weights).collect();
            Influence::Linear(linear(&pairs, dropped))
        }
        PmxDeform::Qdef { bones: b, weights } => {
            let pairs: Vec<(i32, f32)> = b.into_iter().zip(weights).collect();
            Influence::DualQuaternion(linear(&pairs, dropped))
        }
        PmxDeform::Sdef {
            bones: b,
            weight,
            c,
            r0,
            r1,
        } => match (ok(b[0]), ok(b[1])) {
            (Some(j0), Some(j1))
                if weight.is_finite()
                    && (0.0..=1.0).contains(&weight)
                    && sinew_skin::usable(c)
                    && sinew_skin::usable(r0)
                    && sinew_skin::usable(r1) =>
            {
                Influence::Sdef {
                    joints: [j0, j1],
                    weight,
                    c,
                    r0,
                    r1,
                }
            }
            _ => Influence::Linear(linear(&[(b[0], weight), (b[1], 1.0 - weight)], dropped)),
        },
    }
}

/// Every vertex's influence, weights on bones outside the model dropped (counted in one
/// warning).
fn influences(
    deforms: impl Iterator<Item = PmxDeform>,
    bones: usize,
    warnings: &mut Vec<String>,
) -> Vec<Influence> {
    let mut dropped = 0;
    let out = deforms
        .map(|d| influence(&d, bones, &mut dropped))
        .collect();
    if dropped > 0 {
        warnings.push(format!(
            "{dropped} vertex weights name a bone outside the model; dropped"
        ));
    }
    out
}

/// The mesh from the vertices' position, normal and UV (non-finite values zeroed), the
/// checked triangles, materials and textures, the skin and the morphs; validated.
fn assemble(
    name: &str,
    vertices: impl Iterator<Item = (Vec3, Vec3, Vec2)>,
    (indices, materials, textures): (Vec<u32>, Vec<Material>, Vec<TextureSource>),
    influences: &[Influence],
    bones: usize,
    morphs: Vec<Morph>,
) -> Result<Mesh, MmdError> {
    let (mut positions, mut normals, mut uvs) = (Vec::new(), Vec::new(), Vec::new());
    for (p, n, uv) in vertices {
        positions.push(usable_or_zero(p));
        normals.push(usable_or_zero(n));
        uvs.push(if uv.is_finite() { uv } else { Vec2::ZERO });
    }
    let mesh = Mesh {
        name: name.to_owned(),
        positions,
        normals,
        uvs,
        indices,
        materials,
        textures,
        winding: Winding::Clockwise,
        skin: Skin::new(influences, bones).map_err(|e| MmdError::Mesh(e.to_string()))?,
        morphs,
    };
    mesh.validate().map_err(|e| MmdError::Mesh(e.to_string()))?;
    Ok(mesh)
}

/// `v`, or zero where it is not finite or lies beyond ±[`sinew_skin::MAX_COORDINATE`] (a
/// damaged value; skinning it would overflow).
fn usable_or_zero(v: Vec3) -> Vec3 {
    if sinew_skin::usable(v) {
        v
    } else {
        Vec3::ZERO
    }
}

/// The mesh and runtime morphs of a PMX.
pub(crate) fn from_pmx(
    pmx: &Pmx,
    warnings: &mut Vec<String>,
) -> Result<(Mesh, Vec<MmdMorph>), MmdError> {
    let nv = pmx.vertices.len();
    let nb = pmx.bones.len();
    let influences = influences(pmx.vertices.iter().map(|v| v.deform), nb, warnings);
    let counts: Vec<u64> = pmx
        .materials
        .iter()
        .map(|m| m.index_count.max(0) as u64)
        .collect();
    let mut ranges = material_ranges(&counts, pmx.indices.len(), warnings);
    let indices = checked_indices(pmx.indices.iter().copied(), nv, &mut ranges, warnings);
    let textures: Vec<TextureSource> = pmx.textures.iter().map(|t| texture_path(t)).collect();
    let materials = pmx
        .materials
        .iter()
        .zip(&ranges)
        .map(|(m, &(first, count))| Material {
            name: m.name.clone(),
            diffuse: m.diffuse,
            ambient: m.ambient,
            specular: m.specular.extend(m.specular_strength),
            texture: u32::try_from(m.texture)
                .ok()
                .filter(|&t| (t as usize) < textures.len()),
            double_sided: m.flags & 0x01 != 0,
            edge: (m.flags & 0x10 != 0).then_some((m.edge_color, m.edge_size)),
            first_index: first,
            index_count: count,
        })
        .collect();
    let mut morphs = Vec::with_capacity(pmx.morphs.len());
    let mut runtime = Vec::with_capacity(pmx.morphs.len());
    let mut bad_offsets = 0usize;
    for m in &pmx.morphs {
        let (kind, rt) = match &m.offsets {
            PmxMorphOffsets::Vertex(list) => {
                let list: Vec<_> = list
                    .iter()
                    .filter(|o| {
                        let ok = (o.vertex as usize) < nv;
                        bad_offsets += usize::from(!ok);
                        ok
                    })
                    .collect();
                (
                    MorphKind::Vertex {
                        vertices: list.iter().map(|o| o.vertex).collect(),
                        positions: list.iter().map(|o| usable_or_zero(o.offset)).collect(),
                        normals: Vec::new(),
                    },
                    MmdMorph::Mesh,
                )
            }
            PmxMorphOffsets::Uv { channel, offsets } => {
                let list: Vec<_> = offsets
                    .iter()
                    .filter(|o| {
                        let ok = (o.vertex as usize) < nv;
                        bad_offsets += usize::from(!ok);
                        ok
                    })
                    .collect();
                (
                    MorphKind::Uv {
                        channel: *channel,
                        vertices: list.iter().map(|o| o.vertex).collect(),
                        offsets: list
                            .iter()
                            .map(|o| {
                                if o.offset.is_finite() {
                                    o.offset
                                } else {
                                    Vec4::ZERO
                                }
                            })
                            .collect(),
                    },
                    MmdMorph::Mesh,
                )
            }
            PmxMorphOffsets::Material(list) => (
                MorphKind::Material(
                    list.iter()
                        .map(|o| MaterialMorph {
                            material: u32::try_from(o.material).ok(),
                            multiply: o.operation == 0,
                            diffuse: o.diffuse,
                            specular: o.specular.extend(o.specular_strength),
                            ambient: o.ambient,
                            edge_color: o.edge_color,
                            edge_size: o.edge_size,
                            texture_tint: o.texture_tint,
                        })
                        .collect(),
                ),
                MmdMorph::Mesh,
            ),
            PmxMorphOffsets::Group(list) => (
                MorphKind::Other,
                MmdMorph::Group(
                    list.iter()
                        .filter_map(|g| {
                            let i = usize::try_from(g.morph).ok()?;
                            (i < pmx.morphs.len() && g.weight.is_finite()).then_some((i, g.weight))
                        })
                        .collect(),
                ),
            ),
            PmxMorphOffsets::Bone(list) => (
                MorphKind::Other,
                MmdMorph::Bone(
                    list.iter()
                        .filter_map(|b| {
                            let bone = usize::try_from(b.bone).ok().filter(|&i| i < nb)?;
                            let rotation = b.rotation.normalize();
                            Some(BoneMorph {
                                bone,
                                translation: usable_or_zero(b.translation),
                                rotation: if rotation.is_finite() {
                                    rotation
                                } else {
                                    Quat::IDENTITY
                                },
                            })
                        })
                        .collect(),
                ),
            ),
            PmxMorphOffsets::Flip(_) | PmxMorphOffsets::Impulse(_) => {
                (MorphKind::Other, MmdMorph::Unsupported)
            }
        };
        morphs.push(Morph {
            name: m.name.clone(),
            kind,
        });
        runtime.push(rt);
    }
    if bad_offsets > 0 {
        warnings.push(format!(
            "{bad_offsets} morph offsets name a vertex past the {nv} vertices; dropped"
        ));
    }
    let mesh = assemble(
        &pmx.name,
        pmx.vertices.iter().map(|v| (v.position, v.normal, v.uv)),
        (indices, materials, textures),
        &influences,
        nb,
        morphs,
    )?;
    Ok((mesh, runtime))
}

/// The mesh and runtime morphs of a PMD (morph indices without the "base" morph, as
/// [`MmdModel::morph_names`](crate::MmdModel::morph_names)).
pub(crate) fn from_pmd(
    pmd: &Pmd,
    warnings: &mut Vec<String>,
) -> Result<(Mesh, Vec<MmdMorph>), MmdError> {
    let nv = pmd.vertices.len();
    let nb = pmd.bones.len();
    let influences = influences(
        pmd.vertices.iter().map(|v| PmxDeform::Bdef2 {
            bones: [i32::from(v.bones[0]), i32::from(v.bones[1])],
            weight: f32::from(v.weight.min(100)) / 100.0,
        }),
        nb,
        warnings,
    );
    let counts: Vec<u64> = pmd
        .materials
        .iter()
        .map(|m| u64::from(m.index_count))
        .collect();
    let mut ranges = material_ranges(&counts, pmd.indices.len(), warnings);
    let indices = checked_indices(
        pmd.indices.iter().map(|&i| u32::from(i)),
        nv,
        &mut ranges,
        warnings,
    );
    let mut textures = Vec::new();
    let materials = pmd
        .materials
        .iter()
        .zip(&ranges)
        .enumerate()
        .map(|(i, (m, &(first, count)))| {
            // "color.bmp*sphere.sph": the part that is not a sphere map is the texture.
            let texture = m
                .texture
                .split('*')
                .map(str::trim)
                .find(|t| {
                    let l = t.to_ascii_lowercase();
                    !t.is_empty() && !l.ends_with(".sph") && !l.ends_with(".spa")
                })
                .map(|t| {
                    textures.push(texture_path(t));
                    (textures.len() - 1) as u32
                });
            Material {
                name: format!("material {i}"),
                diffuse: m.diffuse,
                ambient: m.ambient,
                specular: m.specular.extend(m.specular_power),
                texture,
                // MMD draws translucent PMD materials from both sides.
                double_sided: m.diffuse.w < 1.0,
                edge: (m.edge_flag != 0).then_some((Vec4::new(0.0, 0.0, 0.0, 1.0), 1.0)),
                first_index: first,
                index_count: count,
            }
        })
        .collect();
    let base = pmd.morphs.first().filter(|m| m.kind == 0);
    let mut bad_offsets = 0usize;
    let morphs: Vec<Morph> = pmd
        .morphs
        .iter()
        .skip(1)
        .map(|m| {
            let mut vertices = Vec::with_capacity(m.offsets.len());
            let mut positions = Vec::with_capacity(m.offsets.len());
            for o in &m.offsets {
                let v = base
                    .and_then(|b| b.offsets.get(o.vertex as usize))
                    .map(|b| b.vertex);
                match v.filter(|&v| (v as usize) < nv) {
                    Some(v) => {
                        vertices.push(v);
                        positions.push(usable_or_zero(o.offset));
                    }
                    None => bad_offsets += 1,
                }
            }
            Morph {
                name: m.name.clone(),
                kind: MorphKind::Vertex {
                    vertices,
                    positions,
                    normals: Vec::new(),
                },
            }
        })
        .collect();
    if bad_offsets > 0 {
        warnings.push(format!(
            "{bad_offsets} morph offsets name no base-morph vertex; dropped"
        ));
    }
    let runtime = vec![MmdMorph::Mesh; morphs.len()];
    let mesh = assemble(
        &pmd.name,
        pmd.vertices.iter().map(|v| (v.position, v.normal, v.uv)),
        (indices, materials, textures),
        &influences,
        nb,
        morphs,
    )?;
    Ok((mesh, runtime))
}

/// Expands group morphs: `out[i] = weights[i] + Σ over groups g holding i of out[g] · ratio`
/// (depth-limited). `out` must be as long as `morphs`.
pub(crate) fn expand(morphs: &[MmdMorph], weights: &[f32], out: &mut [f32]) {
    out.fill(0.0);
    for (o, &w) in out.iter_mut().zip(weights) {
        *o = if w.is_finite() { w } else { 0.0 };
    }
    fn spread(morphs: &[MmdMorph], g: usize, w: f32, out: &mut [f32], depth: usize) {
        if depth >= MAX_GROUP_DEPTH {
            return;
        }
        if let Some(MmdMorph::Group(list)) = morphs.get(g) {
            for &(child, ratio) in list {
                if child == g {
                    continue;
                }
                let add = w * ratio;
                if matches!(morphs.get(child), Some(MmdMorph::Group(_))) {
                    spread(morphs, child, add, out, depth + 1);
                } else if let Some(o) = out.get_mut(child) {
                    *o += add;
                }
            }
        }
    }
    for g in 0..morphs.len().min(weights.len()) {
        let w = out[g];
        if w != 0.0 && matches!(morphs[g], MmdMorph::Group(_)) {
            spread(morphs, g, w, out, 0);
        }
    }
}
