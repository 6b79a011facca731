//! A model's meshes as Bevy skinned meshes: one [`SinewMeshPart`] per material of each mesh,
//! holding only the vertices its triangles use, the joints they follow (Bevy skins a mesh with
//! at most 256) and the vertex morphs that move them.

use bevy::asset::{Handle, LoadContext, RenderAssetUsages};
use bevy::image::{CompressedImageFormats, Image, ImageSampler, ImageType};
use bevy::math::{Mat4, Vec3};
use bevy::mesh::morph::{MorphAttributes, MAX_MORPH_WEIGHTS};
use bevy::mesh::skinning::SkinnedMeshInverseBindposes;
use bevy::mesh::{Indices, Mesh, PrimitiveTopology};
use sinew_character::{CharacterMesh, CharacterModel};
use sinew_skin::{MorphKind, TextureSource, Winding};

/// The most joints Bevy skins one mesh with.
pub const MAX_PART_JOINTS: usize = 256;

/// One drawable part of a model: the triangles of one material of one of its meshes.
#[derive(Clone, Debug)]
pub struct SinewMeshPart {
    /// The mesh (label `Mesh{m}/Material{k}` of the model's asset): positions, normals, UVs,
    /// joint indices and weights (the part's joints), morph targets, triangles.
    pub mesh: Handle<Mesh>,
    /// The inverse bind matrices of the part's joints.
    pub inverse_bindposes: Handle<SkinnedMeshInverseBindposes>,
    /// Per joint of the part: its bone (the skeleton's order).
    pub joints: Vec<usize>,
    /// Per morph target of the part: the character morph whose weight drives it (an index into
    /// [`CharacterModel::morph_names`]).
    pub morphs: Vec<usize>,
    /// Per vertex of the part: its vertex in the sinew mesh.
    pub vertices: Vec<u32>,
    /// The sinew mesh (an index into [`CharacterModel::meshes`]).
    pub source_mesh: usize,
    /// The material of that mesh.
    pub source_material: usize,
    /// The material's diffuse texture, if it names one that could be read.
    pub texture: Option<Handle<Image>>,
    /// The material's diffuse colour (RGBA, as the file states it).
    pub color: [f32; 4],
    /// Whether both faces are drawn.
    pub double_sided: bool,
    /// Its Bevy material (label `Mesh{m}/Material{k}/Standard`; feature `render`).
    #[cfg(feature = "render")]
    pub material: Handle<bevy::pbr::StandardMaterial>,
}

/// Builds every part of `model`'s meshes as labeled assets of the model's load.
///
/// Triangles are written counter-clockwise for Bevy: MMD's clockwise triangles are reversed, so
/// an MMD character is front-facing under a transform that mirrors its z axis (MMD is
/// left-handed; [`crate::mmd_transform`] is such a transform).
///
/// # Errors
/// A part whose triangles use more than [`MAX_PART_JOINTS`] joints or move with more than
/// Bevy's 256 morph targets.
pub(crate) async fn build_parts(
    model: &CharacterModel,
    load_context: &mut LoadContext<'_>,
) -> Result<Vec<SinewMeshPart>, String> {
    let mut parts = Vec::new();
    for (m, mesh) in model.meshes().iter().enumerate() {
        let textures = read_textures(mesh, m, load_context).await;
        let weights = mesh.mesh.skin.linear_weights();
        for (k, material) in mesh.mesh.materials.iter().enumerate() {
            let start = material.first_index as usize;
            let end = (start + material.index_count as usize).min(mesh.mesh.indices.len());
            if start >= end {
                continue;
            }
            let built = build_part(mesh, &weights, &mesh.mesh.indices[start..end])
                .map_err(|e| format!("mesh {} material {}: {e}", mesh.name, material.name))?;
            let label = format!("Mesh{m}/Material{k}");
            let inverse_bindposes = load_context.add_labeled_asset(
                format!("{label}/InverseBindposes"),
                SkinnedMeshInverseBindposes::from(built.inverse_binds),
            );
            let texture = material
                .texture
                .and_then(|t| textures.get(t as usize).cloned().flatten());
            #[cfg(feature = "render")]
            let standard = load_context.add_labeled_asset(
                format!("{label}/Standard"),
                standard_material(material, texture.clone()),
            );
            parts.push(SinewMeshPart {
                mesh: load_context.add_labeled_asset(label, built.mesh),
                inverse_bindposes,
                joints: built.joints,
                morphs: built.morphs,
                vertices: built.vertices,
                source_mesh: m,
                source_material: k,
                texture,
                color: material.diffuse.to_array(),
                double_sided: material.double_sided,
                #[cfg(feature = "render")]
                material: standard,
            });
        }
    }
    Ok(parts)
}

/// A sinew material as Bevy's `StandardMaterial`: its diffuse colour and texture on a rough,
/// non-metallic surface; blended where the colour is translucent, alpha-tested where a texture
/// may cut it out; culled at the back unless double-sided.
#[cfg(feature = "render")]
fn standard_material(
    material: &sinew_skin::Material,
    texture: Option<Handle<Image>>,
) -> bevy::pbr::StandardMaterial {
    use bevy::prelude::AlphaMode;
    let [r, g, b, a] = material.diffuse.to_array();
    let alpha_mode = if a < 0.999 {
        AlphaMode::Blend
    } else if texture.is_some() {
        AlphaMode::Mask(0.5)
    } else {
        AlphaMode::Opaque
    };
    bevy::pbr::StandardMaterial {
        base_color: bevy::color::Color::srgba(r, g, b, a),
        base_color_texture: texture,
        perceptual_roughness: 0.9,
        reflectance: 0.2,
        alpha_mode,
        double_sided: material.double_sided,
        cull_mode: (!material.double_sided).then_some(bevy::render::render_resource::Face::Back),
        ..Default::default()
    }
}

struct BuiltPart {
    mesh: Mesh,
    inverse_binds: Vec<Mat4>,
    joints: Vec<usize>,
    morphs: Vec<usize>,
    vertices: Vec<u32>,
}

/// One material's triangles `indices` of `mesh` as a Bevy mesh over the vertices they use.
fn build_part(
    mesh: &CharacterMesh,
    weights: &[([u32; 4], [f32; 4])],
    indices: &[u32],
) -> Result<BuiltPart, String> {
    let source = &mesh.mesh;
    // The part's vertices, in first-use order, and each source vertex's place among them.
    let mut slot = vec![u32::MAX; source.positions.len()];
    let mut vertices = Vec::new();
    let mut triangles = Vec::with_capacity(indices.len());
    for &v in indices {
        let s = slot
            .get_mut(v as usize)
            .ok_or_else(|| format!("index {v} past {} vertices", source.positions.len()))?;
        if *s == u32::MAX {
            *s = vertices.len() as u32;
            vertices.push(v);
        }
        triangles.push(*s);
    }
    if source.winding == Winding::Clockwise {
        for t in triangles.chunks_exact_mut(3) {
            t.swap(1, 2);
        }
    }
    // The joints the part's vertices follow, each once.
    let mut joint_slot = vec![u16::MAX; mesh.joints.len()];
    let mut joints = Vec::new();
    let mut joint_index = Vec::with_capacity(vertices.len());
    let mut joint_weight = Vec::with_capacity(vertices.len());
    for &v in &vertices {
        let (js, ws) = weights[v as usize];
        let mut out = [0u16; 4];
        for k in 0..4 {
            if ws[k] <= 0.0 && k > 0 {
                continue;
            }
            let j = js[k] as usize;
            let s = &mut joint_slot[j];
            if *s == u16::MAX {
                if joints.len() == MAX_PART_JOINTS {
                    return Err(format!(
                        "its triangles follow more than {MAX_PART_JOINTS} joints (Bevy's limit)"
                    ));
                }
                *s = joints.len() as u16;
                joints.push(j);
            }
            out[k] = *s;
        }
        joint_index.push(out);
        joint_weight.push(ws);
    }
    let inverse_binds = joints
        .iter()
        .map(|&j| Mat4::from_cols_array(&glam::Mat4::from(mesh.inverse_bind[j]).to_cols_array()))
        .collect();
    let bones = joints.iter().map(|&j| mesh.joints[j].index()).collect();

    let pick3 = |all: &[glam::Vec3]| -> Vec<[f32; 3]> {
        vertices
            .iter()
            .map(|&v| all.get(v as usize).map_or([0.0; 3], |p| p.to_array()))
            .collect()
    };
    let uvs: Vec<[f32; 2]> = vertices
        .iter()
        .map(|&v| {
            source
                .uvs
                .get(v as usize)
                .map_or([0.0; 2], |p| p.to_array())
        })
        .collect();
    let mut out = Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, pick3(&source.positions))
    .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, pick3(&source.normals))
    .with_inserted_attribute(Mesh::ATTRIBUTE_UV_0, uvs)
    .with_inserted_attribute(
        Mesh::ATTRIBUTE_JOINT_INDEX,
        bevy::mesh::VertexAttributeValues::Uint16x4(joint_index),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_JOINT_WEIGHT, joint_weight)
    .with_inserted_indices(Indices::U32(triangles));

    // Vertex morphs that move a vertex of the part, as dense targets over its vertices.
    let mut targets = Vec::new();
    let mut morphs = Vec::new();
    let mut names = Vec::new();
    for (t, morph) in source.morphs.iter().enumerate() {
        let MorphKind::Vertex {
            vertices: moved,
            positions,
            normals,
        } = &morph.kind
        else {
            continue;
        };
        if !moved
            .iter()
            .any(|&v| slot.get(v as usize).is_some_and(|&s| s != u32::MAX))
        {
            continue;
        }
        let first = targets.len();
        targets.resize(first + vertices.len(), MorphAttributes::default());
        for (i, &v) in moved.iter().enumerate() {
            let Some(&s) = slot.get(v as usize).filter(|&&s| s != u32::MAX) else {
                continue;
            };
            let target = &mut targets[first + s as usize];
            target.position += Vec3::from_array(positions[i].to_array());
            if let Some(n) = normals.get(i) {
                target.normal += Vec3::from_array(n.to_array());
            }
        }
        morphs.push(mesh.morph_slots.get(t).copied().unwrap_or(usize::MAX));
        names.push(morph.name.clone());
    }
    if morphs.len() > MAX_MORPH_WEIGHTS {
        return Err(format!(
            "its vertices move with {} morphs (Bevy draws at most {MAX_MORPH_WEIGHTS})",
            morphs.len()
        ));
    }
    if !morphs.is_empty() {
        out.set_morph_targets(targets);
        out.set_morph_target_names(names);
    }
    Ok(BuiltPart {
        mesh: out,
        inverse_binds,
        joints: bones,
        morphs,
        vertices,
    })
}

/// Reads and decodes each texture of `mesh` as a labeled image (`Mesh{m}/Texture{t}`); one that
/// is missing or cannot be decoded is `None` (its material is drawn in its colour) and logged.
async fn read_textures(
    mesh: &CharacterMesh,
    m: usize,
    load_context: &mut LoadContext<'_>,
) -> Vec<Option<Handle<Image>>> {
    let mut out = Vec::with_capacity(mesh.mesh.textures.len());
    for (t, source) in mesh.mesh.textures.iter().enumerate() {
        let decoded = match source {
            TextureSource::Embedded { mime, bytes } => decode(bytes, ImageType::MimeType(mime)),
            TextureSource::File(relative) => read_texture_file(relative, load_context).await,
        };
        out.push(match decoded {
            Ok(image) => Some(load_context.add_labeled_asset(format!("Mesh{m}/Texture{t}"), image)),
            Err(e) => {
                bevy::log::warn!("{}: texture {t}: {e}", load_context.path());
                None
            }
        });
    }
    out
}

async fn read_texture_file(
    relative: &std::path::Path,
    load_context: &mut LoadContext<'_>,
) -> Result<Image, String> {
    let name = relative.to_string_lossy().replace('\\', "/");
    let extension = relative
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    // MMD models come from Windows, where names differ in case from the files: the name as
    // written, then in lower case.
    let mut last = String::new();
    for candidate in [name.clone(), name.to_lowercase()] {
        let path = load_context
            .path()
            .resolve_embed_str(&candidate)
            .map_err(|e| format!("{name}: {e}"))?;
        match load_context.read_asset_bytes(path).await {
            Ok(bytes) => return decode(&bytes, ImageType::Extension(&extension)),
            Err(e) => last = e.to_string(),
        }
    }
    Err(format!("{name}: {last}"))
}

fn decode(bytes: &[u8], kind: ImageType<'_>) -> Result<Image, String> {
    Image::from_buffer(
        bytes,
        kind,
        CompressedImageFormats::NONE,
        true,
        ImageSampler::Default,
        RenderAssetUsages::default(),
    )
    .map_err(|e| e.to_string())
}
