//! Props from glTF files: a rifle `.glb` (or `.gltf`) becomes a [`Prop`] whose nodes are the
//! file's nodes, so its named empties (`…stock`, `…grip`, `…muzzle`) anchor it and guide the
//! hands without hand-built node lists (ik3d: a prop is "a loader model").

use glam::{Quat, Vec3};
use sinew::Transform;

use crate::{Prop, PropNode, PropsError};

/// Most nodes a prop file may hold (a rifle has tens; the walk is linear in this).
pub const MAX_PROP_NODES: usize = 65_536;

fn bad(reason: impl Into<String>) -> PropsError {
    PropsError::PropFile(reason.into())
}

impl Prop {
    /// A prop from the default scene of a glTF document (`.glb` bytes or `.gltf` JSON; buffers
    /// are not read, only the node tree). Every node of the scene becomes a prop node, parents
    /// before children, with its local transform (TRS or matrix) and its name — unnamed nodes
    /// are called `node{index}`; the scene's top nodes hang from the prop root. A document
    /// without a default scene uses its first scene.
    ///
    /// # Errors
    /// [`PropsError::PropFile`] when the bytes are not a glTF document, it has no scene or a
    /// scene reaches a node twice (a cycle or a shared child), or it holds more than
    /// [`MAX_PROP_NODES`] nodes; [`PropsError::PropNode`] for a non-finite transform.
    pub fn from_gltf(bytes: &[u8]) -> Result<Self, PropsError> {
        // Unvalidated parse, then only the node tree is read, every index checked here (the
        // crate's validation walks meshes and animations this reader does not need).
        let gltf = gltf::Gltf::from_slice_without_validation(bytes)
            .map_err(|e| bad(format!("not a glTF document: {e}")))?;
        let json = gltf.document.as_json();
        let count = json.nodes.len();
        if count > MAX_PROP_NODES {
            return Err(bad(format!("{count} nodes (at most {MAX_PROP_NODES})")));
        }
        let scene = match json.scene {
            Some(i) => json
                .scenes
                .get(i.value())
                .ok_or_else(|| bad(format!("default scene {} does not exist", i.value())))?,
            None => json.scenes.first().ok_or_else(|| bad("no scene"))?,
        };
        let node_at = |i: usize| {
            json.nodes
                .get(i)
                .ok_or_else(|| bad(format!("node {i} does not exist ({count} nodes)")))
        };
        let mut seen = vec![false; count];
        let mut nodes = Vec::new();
        // Depth-first without recursion: (node index, parent index in `nodes`).
        let mut stack: Vec<(usize, Option<usize>)> = scene
            .nodes
            .iter()
            .rev()
            .map(|n| (n.value(), None))
            .collect();
        while let Some((index, parent)) = stack.pop() {
            let node = node_at(index)?;
            if std::mem::replace(&mut seen[index], true) {
                return Err(bad(format!(
                    "node {index} is reached twice (a cycle or a shared child)"
                )));
            }
            let local = match node.matrix {
                Some(m) => {
                    let (scale, rotation, translation) =
                        glam::Mat4::from_cols_array(&m).to_scale_rotation_translation();
                    Transform {
                        translation,
                        rotation,
                        scale,
                    }
                }
                None => {
                    let r = node
                        .rotation
                        .map_or(Quat::IDENTITY, |q| Quat::from_array(q.0));
                    Transform {
                        translation: Vec3::from_array(node.translation.unwrap_or([0.0; 3])),
                        rotation: if r.length_squared() > 0.0 {
                            r.normalize()
                        } else {
                            r
                        },
                        scale: Vec3::from_array(node.scale.unwrap_or([1.0; 3])),
                    }
                }
            };
            let name = node
                .name
                .as_deref()
                .filter(|n| !n.trim().is_empty())
                .map_or_else(|| format!("node{index}"), str::to_owned);
            let me = nodes.len();
            nodes.push(PropNode {
                name,
                parent,
                local,
            });
            if let Some(children) = &node.children {
                stack.extend(children.iter().rev().map(|c| (c.value(), Some(me))));
            }
        }
        Self::from_nodes(nodes)
    }

    /// [`Self::from_gltf`] on a file (`.glb` or `.gltf`).
    ///
    /// # Errors
    /// [`PropsError::PropFile`] when the file cannot be read, and those of
    /// [`Self::from_gltf`].
    pub fn load_gltf(path: impl AsRef<std::path::Path>) -> Result<Self, PropsError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| bad(format!("{}: {e}", path.display())))?;
        Self::from_gltf(&bytes).map_err(|e| match e {
            PropsError::PropFile(r) => bad(format!("{}: {r}", path.display())),
            e => e,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rifle as a glTF JSON document: body with stock, grip and a barrel holding the muzzle;
    /// one unnamed node; the barrel placed by a matrix.
    const RIFLE: &str = r#"{
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [
            {"name": "rifle", "children": [1, 2, 3, 5], "translation": [0, 0, 0]},
            {"name": "rifle_stock", "translation": [0, 0, -0.35]},
            {"name": "rifle_grip", "translation": [0, -0.08, -0.1], "rotation": [0.2588190, 0, 0, 0.9659258]},
            {"name": "barrel", "children": [4],
             "matrix": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0.02,0.3,1]},
            {"name": "rifle_muzzle", "translation": [0, 0, 0.25]},
            {}
        ]
    }"#;

    #[test]
    fn a_gltf_rifle_becomes_a_prop() {
        let prop = Prop::from_gltf(RIFLE.as_bytes()).unwrap();
        let names: Vec<&str> = prop.nodes().iter().map(|n| n.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "rifle",
                "rifle_stock",
                "rifle_grip",
                "barrel",
                "rifle_muzzle",
                "node5"
            ]
        );
        // Suffix resolution as for hand-built props; matrices and nesting composed.
        let muzzle = prop.empty_position_world("muzzle").unwrap();
        assert!(
            muzzle.abs_diff_eq(Vec3::new(0.0, 0.02, 0.55), 1e-6),
            "{muzzle}"
        );
        let stock = prop.empty_position_world("stock").unwrap();
        assert!(stock.abs_diff_eq(Vec3::new(0.0, 0.0, -0.35), 1e-6));
        let grip = prop.node_relative_rotation(prop.find("grip").unwrap());
        assert!(grip.angle_between(Quat::from_rotation_x(30f32.to_radians())) < 1e-5);
    }

    #[test]
    fn bad_files_are_refused_with_a_reason() {
        let reason = |bytes: &[u8]| match Prop::from_gltf(bytes) {
            Err(PropsError::PropFile(r)) => r,
            other => panic!("{other:?}"),
        };
        assert!(reason(b"not json").contains("not a glTF"));
        assert!(reason(br#"{"asset": {"version": "2.0"}, "nodes": []}"#).contains("no scene"));
        let shared = r#"{"asset": {"version": "2.0"}, "scenes": [{"nodes": [0, 1]}],
            "nodes": [{"children": [2]}, {"children": [2]}, {}]}"#;
        assert!(reason(shared.as_bytes()).contains("twice"));
        let cycle = r#"{"asset": {"version": "2.0"}, "scenes": [{"nodes": [0]}],
            "nodes": [{"children": [1]}, {"children": [0]}]}"#;
        assert!(reason(cycle.as_bytes()).contains("twice"));
        let missing = r#"{"asset": {"version": "2.0"}, "scenes": [{"nodes": [0]}],
            "nodes": [{"children": [7]}]}"#;
        assert!(reason(missing.as_bytes()).contains("does not exist"));
        let no_scene = r#"{"asset": {"version": "2.0"}, "scene": 3, "scenes": [], "nodes": []}"#;
        assert!(reason(no_scene.as_bytes()).contains("does not exist"));
        let nan = r#"{"asset": {"version": "2.0"}, "scenes": [{"nodes": [0]}],
            "nodes": [{"name": "x", "translation": [1e39, 0, 0]}]}"#;
        assert!(matches!(
            Prop::from_gltf(nan.as_bytes()),
            Err(PropsError::PropNode { .. } | PropsError::PropFile(_))
        ));
    }

    proptest::proptest! {
        /// Random node graphs (children anywhere, in range or not, cycles, shared children,
        /// huge or non-finite numbers) and random bytes: a prop or an error, never a panic.
        #[test]
        fn random_documents_never_panic(
            children in proptest::collection::vec(proptest::collection::vec(0usize..8, 0..4), 0..7),
            roots in proptest::collection::vec(0usize..8, 0..3),
            x in proptest::num::f32::ANY,
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64),
        ) {
            let nodes: Vec<String> = children
                .iter()
                .map(|c| format!(r#"{{"children": {c:?}, "translation": [{x:e}, 0, 0]}}"#))
                .collect();
            let doc = format!(
                r#"{{"asset": {{"version": "2.0"}}, "scenes": [{{"nodes": {roots:?}}}], "nodes": [{}]}}"#,
                nodes.join(",")
            );
            let _ = Prop::from_gltf(doc.as_bytes());
            let _ = Prop::from_gltf(&bytes);
        }
    }
}
