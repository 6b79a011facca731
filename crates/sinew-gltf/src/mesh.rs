//! The meshes of a glTF file as [`sinew_skin::Mesh`]es: one per primitive of every node that
//! has a mesh and either a skin or a bone ancestor it moves with, in three.js's traversal order (depth first from the scene
//! roots, a node's primitives before its children), with positions, normals, first UV set,
//! every `JOINTS_n`/`WEIGHTS_n` set (any number, weights normalised), base colour (factor and
//! texture, embedded bytes or a file next to the model), morph targets (position and normal
//! deltas) with their default weights and the names of the clip tracks that animate them.
//!
//! Skinning follows glTF (and three.js, which the conformance compares against): a vertex's
//! skinning matrices are `joint world × inverse bind` relative to the scene root, the mesh
//! node's own transform ignored ([`GltfMesh::matrices`]). Every accessor is checked
//! before it is read; a malformed primitive is an error naming it, never a panic.

use std::path::PathBuf;
use std::sync::Arc;

use glam::{Affine3A, Vec2, Vec3, Vec4};
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::util::{ReadIndices, ReadJoints, ReadTexCoords, ReadWeights};
use gltf::Semantic;
use sinew::BoneId;
use sinew_skin::{Influence, Material, Mesh, Morph, MorphKind, Skin, TextureSource, Winding};

use crate::load::check_accessor_with;
use crate::{GltfError, GltfModel};

/// Most vertices one primitive may have.
pub const MAX_PRIMITIVE_VERTICES: usize = 1 << 24;

/// A skinned primitive of the file.
#[derive(Clone, Debug)]
pub struct GltfMesh {
    /// three.js's name: the node's name for a one-primitive mesh, else the mesh name with
    /// `_<primitive + 1>` (whitespace as `_`, `[ ] . : /` removed).
    pub name: String,
    /// The node that holds it.
    pub node: usize,
    /// The skin (index into [`GltfModel::skins`]); `None` for a mesh without one, which
    /// moves rigidly with its nearest bone ancestor (one joint: that bone).
    pub skin: Option<usize>,
    /// Rest data, triangles, material, skin (joint `j` = the skin's `j`-th joint), morphs.
    pub mesh: Arc<Mesh>,
    /// The bone of each skin joint.
    pub bones: Vec<BoneId>,
    /// Per skin joint: its inverse bind matrix.
    pub inverse_bind: Vec<Affine3A>,
    /// Per morph target: its weight when nothing animates it.
    pub default_weights: Vec<f32>,
    /// Per morph target: the clip float track that animates it (`"<node>.weights[k]"`).
    pub weight_tracks: Vec<String>,
}

impl GltfMesh {
    /// Writes this mesh's skinning matrices for bone world transforms `world` (skeleton order,
    /// relative to the scene root) into `out` (one per skin joint).
    ///
    /// # Panics
    /// If `out` is not one entry per skin joint or a bone is past `world`.
    pub fn matrices(&self, world: &[Affine3A], out: &mut [Affine3A]) {
        assert_eq!(out.len(), self.bones.len(), "one matrix per skin joint");
        sinew::pose::joint_skin_matrices(world, &self.bones, &self.inverse_bind, out);
    }
}

fn invalid(what: String) -> GltfError {
    GltfError::Invalid {
        path: "meshes".into(),
        reason: what,
    }
}

/// Every node's rest world transform (relative to the scene root).
fn node_worlds(doc: &gltf::Document) -> Vec<Affine3A> {
    let n = doc.nodes().len();
    let mut parent = vec![None; n];
    for node in doc.nodes() {
        for c in node.children() {
            parent[c.index()] = Some(node.index());
        }
    }
    let local: Vec<Affine3A> = doc
        .nodes()
        .map(|node| {
            let a = Affine3A::from_mat4(glam::Mat4::from_cols_array_2d(&node.transform().matrix()));
            if a.is_finite() {
                a
            } else {
                Affine3A::IDENTITY
            }
        })
        .collect();
    (0..n)
        .map(|i| {
            let mut w = local[i];
            let mut p = parent[i];
            let mut steps = 0;
            while let (Some(j), true) = (p, steps <= n) {
                w = local[j] * w;
                p = parent[j];
                steps += 1;
            }
            w
        })
        .collect()
}

/// A name as three.js's `PropertyBinding.sanitizeNodeName` writes it.
fn sanitize(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '[' | ']' | '.' | ':' | '/'))
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect()
}

/// Nodes in three.js's traversal order: the default scene's (else the first scene's) roots,
/// depth first, each node before its children.
fn traversal(doc: &gltf::Document) -> Vec<usize> {
    let scene = doc.default_scene().or_else(|| doc.scenes().next());
    let mut order = Vec::new();
    let mut seen = vec![false; doc.nodes().len()];
    let mut stack: Vec<gltf::Node> = scene
        .map(|s| s.nodes().collect::<Vec<_>>())
        .unwrap_or_default();
    stack.reverse();
    while let Some(node) = stack.pop() {
        if std::mem::replace(&mut seen[node.index()], true) {
            continue;
        }
        order.push(node.index());
        let mut children: Vec<_> = node.children().collect();
        children.reverse();
        stack.extend(children);
    }
    order
}

impl GltfModel {
    /// The meshes (see the module docs): skinned ones, and ones without a skin whose node hangs
    /// under a bone (they follow that bone rigidly, e.g. a robot's armour plates). Meshes with
    /// neither a skin nor a bone ancestor (static scenery) are left out.
    ///
    /// # Errors
    /// [`GltfError::Accessor`] for an attribute that cannot be read as glTF says,
    /// [`GltfError::Invalid`] for inconsistent primitives (counts, indices, joints).
    pub fn meshes(&self) -> Result<Vec<GltfMesh>, GltfError> {
        let doc = self.document();
        let buffers = self.buffers();
        let worlds = node_worlds(doc);
        let mut parent = vec![None; doc.nodes().len()];
        for node in doc.nodes() {
            for c in node.children() {
                parent[c.index()] = Some(node.index());
            }
        }
        let mut out = Vec::new();
        for node_index in traversal(doc) {
            let Some(node) = doc.nodes().nth(node_index) else {
                continue;
            };
            let Some(mesh) = node.mesh() else {
                continue;
            };
            // The joints and inverse binds: the skin's, or the nearest bone ancestor's rest
            // pose relative to this node (a rigid mesh).
            let (skin_index, bones, inverse_bind) = match node.skin() {
                Some(skin) => {
                    let Some(k) = self.skins().iter().position(|s| s.index == skin.index()) else {
                        continue;
                    };
                    let gskin = &self.skins()[k];
                    (Some(k), gskin.bones.clone(), gskin.inverse_bind.clone())
                }
                None => {
                    let mut at = Some(node_index);
                    let mut steps = 0;
                    let bone = loop {
                        match at {
                            Some(i) if steps <= parent.len() => {
                                if let Some(b) = self.node_to_bone().get(i).copied().flatten() {
                                    break Some((i, b));
                                }
                                at = parent[i];
                                steps += 1;
                            }
                            _ => break None,
                        }
                    };
                    let Some((bone_node, bone)) = bone else {
                        continue;
                    };
                    let rel = worlds[bone_node].inverse() * worlds[node_index];
                    (None, vec![bone], vec![rel])
                }
            };
            let primitives: Vec<_> = mesh.primitives().collect();
            let node_name = self
                .node_names()
                .get(node_index)
                .cloned()
                .unwrap_or_default();
            let default_weights: Vec<f32> = mesh
                .weights()
                .or(node.weights())
                .map(<[f32]>::to_vec)
                .unwrap_or_default();
            for (k, prim) in primitives.iter().enumerate() {
                let name = if primitives.len() == 1 {
                    sanitize(node.name().or(mesh.name()).unwrap_or("mesh"))
                } else {
                    format!("{}_{}", sanitize(mesh.name().unwrap_or("mesh")), k + 1)
                };
                let built = read_primitive(prim, buffers, bones.len(), skin_index.is_some(), &name)
                    .map_err(|e| match e {
                        GltfError::Invalid { reason, .. } => {
                            invalid(format!("mesh {} primitive {k}: {reason}", mesh.index()))
                        }
                        e => e,
                    })?;
                let mut built = built;
                // Target names: the mesh's `extras.targetNames` (the common convention).
                let names = &self.json()["meshes"][mesh.index()]["extras"]["targetNames"];
                for (t, m) in built.morphs.iter_mut().enumerate() {
                    if let Some(n) = names.get(t).and_then(serde_json::Value::as_str) {
                        m.name = n.to_owned();
                    }
                }
                let targets = built.morphs.len();
                let mut weights = default_weights.clone();
                weights.resize(targets, 0.0);
                out.push(GltfMesh {
                    name,
                    node: node_index,
                    skin: skin_index,
                    mesh: Arc::new(built),
                    bones: bones.clone(),
                    inverse_bind: inverse_bind.clone(),
                    default_weights: weights,
                    weight_tracks: (0..targets)
                        .map(|t| format!("{node_name}.weights[{t}]"))
                        .collect(),
                });
            }
        }
        Ok(self.with_materials(out))
    }

    /// Where an image's bytes are.
    fn texture_source(&self, image: &gltf::Image) -> Option<TextureSource> {
        match image.source() {
            gltf::image::Source::View { view, mime_type } => {
                let buffer = self.buffers().get(view.buffer().index())?;
                let bytes = buffer.get(view.offset()..view.offset() + view.length())?;
                Some(TextureSource::Embedded {
                    mime: mime_type.to_owned(),
                    bytes: Arc::from(bytes),
                })
            }
            gltf::image::Source::Uri { uri, .. } if !uri.starts_with("data:") => {
                let decoded = urlencoding::decode(uri).ok()?;
                Some(TextureSource::File(PathBuf::from(decoded.as_ref())))
            }
            gltf::image::Source::Uri { .. } => None,
        }
    }

    /// Each mesh's material: name, base colour factor and texture (first UV set), double
    /// sidedness.
    fn with_materials(&self, meshes: Vec<GltfMesh>) -> Vec<GltfMesh> {
        let doc = self.document();
        meshes
            .into_iter()
            .map(|mut m| {
                let Some(node) = doc.nodes().nth(m.node) else {
                    return m;
                };
                let Some(gmesh) = node.mesh() else { return m };
                let prims: Vec<_> = gmesh.primitives().collect();
                let k = if prims.len() == 1 {
                    0
                } else {
                    m.name
                        .rsplit('_')
                        .next()
                        .and_then(|s| s.parse::<usize>().ok())
                        .map_or(0, |k| k.saturating_sub(1))
                };
                let Some(prim) = prims.get(k) else { return m };
                let mat = prim.material();
                let pbr = mat.pbr_metallic_roughness();
                let mut mesh = (*m.mesh).clone();
                if let Some(material) = mesh.materials.first_mut() {
                    material.name = mat.name().unwrap_or("material").to_owned();
                    material.diffuse = Vec4::from(pbr.base_color_factor());
                    material.double_sided = mat.double_sided();
                    if let Some(info) = pbr.base_color_texture() {
                        if info.tex_coord() == 0 {
                            if let Some(src) = self.texture_source(&info.texture().source()) {
                                mesh.textures.push(src);
                                material.texture = Some((mesh.textures.len() - 1) as u32);
                            }
                        }
                    }
                }
                m.mesh = Arc::new(mesh);
                m
            })
            .collect()
    }
}

fn read_primitive(
    prim: &gltf::Primitive,
    buffers: &[Vec<u8>],
    joint_count: usize,
    skinned: bool,
    name: &str,
) -> Result<Mesh, GltfError> {
    use gltf::mesh::Mode;
    if prim.mode() != Mode::Triangles {
        return Err(invalid(format!(
            "mode {:?}: only triangle lists are read",
            prim.mode()
        )));
    }
    let get = |s: &Semantic| prim.get(s);
    let position = get(&Semantic::Positions).ok_or_else(|| invalid("no POSITION".into()))?;
    let f32_only = [DataType::F32];
    check_accessor_with(
        &position,
        buffers,
        "POSITION",
        &[Dimensions::Vec3],
        &f32_only,
        true,
    )?;
    let n = position.count();
    if n > MAX_PRIMITIVE_VERTICES {
        return Err(invalid(format!(
            "{n} vertices (at most {MAX_PRIMITIVE_VERTICES})"
        )));
    }
    let same_count = |acc: &gltf::Accessor, what: &str| {
        if acc.count() == n {
            Ok(())
        } else {
            Err(invalid(format!(
                "{what} has {} entries for {n} vertices",
                acc.count()
            )))
        }
    };
    if let Some(a) = get(&Semantic::Normals) {
        check_accessor_with(&a, buffers, "NORMAL", &[Dimensions::Vec3], &f32_only, true)?;
        same_count(&a, "NORMAL")?;
    }
    if let Some(a) = get(&Semantic::TexCoords(0)) {
        check_accessor_with(
            &a,
            buffers,
            "TEXCOORD_0",
            &[Dimensions::Vec2],
            &[DataType::F32, DataType::U8, DataType::U16],
            true,
        )?;
        same_count(&a, "TEXCOORD_0")?;
    }
    let mut sets = 0;
    while let (Some(j), Some(w)) = (get(&Semantic::Joints(sets)), get(&Semantic::Weights(sets))) {
        check_accessor_with(
            &j,
            buffers,
            "JOINTS",
            &[Dimensions::Vec4],
            &[DataType::U8, DataType::U16],
            false,
        )?;
        check_accessor_with(
            &w,
            buffers,
            "WEIGHTS",
            &[Dimensions::Vec4],
            &[DataType::F32, DataType::U8, DataType::U16],
            true,
        )?;
        same_count(&j, "JOINTS")?;
        same_count(&w, "WEIGHTS")?;
        sets += 1;
        if sets > 16 {
            return Err(invalid("more than 16 JOINTS/WEIGHTS sets".into()));
        }
    }
    if sets == 0 && skinned {
        return Err(invalid(
            "a skinned primitive without JOINTS_0/WEIGHTS_0".into(),
        ));
    }
    if !skinned {
        sets = 0;
    }
    if let Some(ind) = prim.indices() {
        check_accessor_with(
            &ind,
            buffers,
            "indices",
            &[Dimensions::Scalar],
            &[DataType::U8, DataType::U16, DataType::U32],
            false,
        )?;
    }
    for (t, target) in prim.morph_targets().enumerate() {
        for (acc, what) in [
            (target.positions(), "target POSITION"),
            (target.normals(), "target NORMAL"),
        ] {
            if let Some(a) = acc {
                check_accessor_with(
                    &a,
                    buffers,
                    "morph target",
                    &[Dimensions::Vec3],
                    &f32_only,
                    true,
                )?;
                if a.count() != n {
                    return Err(invalid(format!(
                        "target {t}: {what} has {} entries",
                        a.count()
                    )));
                }
            }
        }
    }
    let reader = prim.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
    let positions: Vec<Vec3> = reader
        .read_positions()
        .ok_or_else(|| invalid("POSITION unreadable".into()))?
        .map(Vec3::from)
        .collect();
    let normals: Vec<Vec3> = reader
        .read_normals()
        .map(|it| it.map(Vec3::from).collect())
        .unwrap_or_default();
    let uvs: Vec<Vec2> = match reader.read_tex_coords(0) {
        Some(ReadTexCoords::F32(it)) => it.map(Vec2::from).collect(),
        Some(other) => other.into_f32().map(Vec2::from).collect(),
        None => Vec::new(),
    };
    let mut influences: Vec<Vec<(u32, f32)>> = vec![Vec::new(); n];
    for set in 0..sets {
        let joints: Vec<[u16; 4]> = match reader.read_joints(set) {
            Some(ReadJoints::U8(it)) => it.map(|j| j.map(u16::from)).collect(),
            Some(ReadJoints::U16(it)) => it.collect(),
            None => return Err(invalid(format!("JOINTS_{set} unreadable"))),
        };
        let weights: Vec<[f32; 4]> = match reader.read_weights(set) {
            Some(ReadWeights::F32(it)) => it.collect(),
            Some(other) => other.into_f32().collect(),
            None => return Err(invalid(format!("WEIGHTS_{set} unreadable"))),
        };
        for (v, (j, w)) in joints.iter().zip(&weights).enumerate() {
            for c in 0..4 {
                if w[c] != 0.0 {
                    if usize::from(j[c]) >= joint_count {
                        return Err(invalid(format!(
                            "vertex {v}: joint {} of a skin with {joint_count} joints",
                            j[c]
                        )));
                    }
                    influences[v].push((u32::from(j[c]), w[c]));
                }
            }
        }
    }
    let influences: Vec<Influence> = if skinned {
        influences.into_iter().map(Influence::Linear).collect()
    } else {
        vec![Influence::rigid(0); n]
    };
    let indices: Vec<u32> = match reader.read_indices() {
        Some(ReadIndices::U8(it)) => it.map(u32::from).collect(),
        Some(ReadIndices::U16(it)) => it.map(u32::from).collect(),
        Some(ReadIndices::U32(it)) => it.collect(),
        None => (0..n as u32).collect(),
    };
    let whole = indices.len() / 3 * 3;
    let mut morphs = Vec::new();
    for (t, target) in reader.read_morph_targets().enumerate() {
        let (dp, dn, _) = target;
        let dp: Vec<Vec3> = dp
            .map(|it| it.map(Vec3::from).collect())
            .unwrap_or_default();
        let dn: Vec<Vec3> = dn
            .map(|it| it.map(Vec3::from).collect())
            .unwrap_or_default();
        let mut vertices = Vec::new();
        let (mut mp, mut mn) = (Vec::new(), Vec::new());
        for v in 0..n {
            let p = dp.get(v).copied().unwrap_or(Vec3::ZERO);
            let q = dn.get(v).copied().unwrap_or(Vec3::ZERO);
            if p != Vec3::ZERO || q != Vec3::ZERO {
                vertices.push(v as u32);
                mp.push(p);
                mn.push(q);
            }
        }
        if dn.is_empty() {
            mn.clear();
        }
        morphs.push(Morph {
            name: format!("target {t}"),
            kind: MorphKind::Vertex {
                vertices,
                positions: mp,
                normals: mn,
            },
        });
    }
    let mesh = Mesh {
        name: name.to_owned(),
        skin: Skin::new(&influences, joint_count).map_err(|e| invalid(e.to_string()))?,
        positions,
        normals,
        uvs,
        materials: vec![Material {
            name: "material".into(),
            diffuse: Vec4::ONE,
            ambient: Vec3::ZERO,
            specular: Vec4::ZERO,
            texture: None,
            double_sided: false,
            edge: None,
            first_index: 0,
            index_count: whole as u32,
        }],
        indices,
        textures: Vec::new(),
        winding: Winding::CounterClockwise,
        morphs,
    };
    mesh.validate().map_err(|e| invalid(e.to_string()))?;
    Ok(mesh)
}
