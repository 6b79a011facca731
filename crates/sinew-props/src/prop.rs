//! A held prop: a small node tree with named empties (a rifle's stock, grip, support and
//! muzzle), placed in the world by its root.

use glam::{Affine3A, Quat, Vec3};
use sinew::Transform;

use crate::{rotation_of, PropsError};

/// One node of a prop: a named empty (or mesh node) with a local transform.
#[derive(Debug, Clone, PartialEq)]
pub struct PropNode {
    /// The node's name; empties are found by the end of it.
    pub name: String,
    /// Index of the parent node (earlier in the list), or `None` to hang from the prop root.
    pub parent: Option<usize>,
    /// Transform relative to the parent (or to the prop root), metres.
    pub local: Transform,
}

/// A prop: its root's world transform and a node tree hanging from it.
///
/// The root is the prop object itself (what a loader returns and a body hangs); every node's
/// transform is relative to its parent node or, for a top node, to the root. World matrices of
/// nodes are `root_world × root_relative`, where the root-relative matrices are computed once
/// when the prop is built (props do not animate).
#[derive(Debug, Clone, PartialEq)]
pub struct Prop {
    nodes: Vec<PropNode>,
    relative: Vec<Affine3A>,
    /// `rotation_of(relative[i])`: what a node's world rotation is made of.
    relative_rotation: Vec<Quat>,
    root_world: Transform,
}

impl Prop {
    /// A prop from a node list; parents must come before their children.
    ///
    /// # Errors
    /// [`PropsError::PropNode`] for a blank name, a parent that is not earlier in the list or
    /// a non-finite transform.
    pub fn from_nodes(nodes: Vec<PropNode>) -> Result<Self, PropsError> {
        let mut relative = Vec::with_capacity(nodes.len());
        for (index, n) in nodes.iter().enumerate() {
            let err = |problem: &str| PropsError::PropNode {
                index,
                name: n.name.clone(),
                problem: problem.to_owned(),
            };
            if n.name.trim().is_empty() {
                return Err(err("blank name"));
            }
            if !n.local.is_finite() {
                return Err(err("local transform is not finite"));
            }
            let local = n.local.to_affine();
            relative.push(match n.parent {
                None => local,
                Some(p) if p < index => relative[p] * local,
                Some(_) => return Err(err("parent must come earlier in the list")),
            });
        }
        let relative_rotation = relative.iter().map(rotation_of).collect();
        Ok(Self {
            nodes,
            relative,
            relative_rotation,
            root_world: Transform::IDENTITY,
        })
    }

    /// A builder naming parents by name.
    #[must_use]
    pub fn builder() -> PropBuilder {
        PropBuilder::default()
    }

    /// The nodes, in order.
    #[must_use]
    pub fn nodes(&self) -> &[PropNode] {
        &self.nodes
    }

    /// The index of the first node whose name ends with `suffix`.
    #[must_use]
    pub fn find(&self, suffix: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name.ends_with(suffix))
    }

    /// The root's world transform (position, rotation and scale).
    #[must_use]
    pub fn root_world(&self) -> &Transform {
        &self.root_world
    }

    /// Places the prop (what the body does when it hangs it).
    pub fn set_root_world(&mut self, root_world: Transform) {
        self.root_world = root_world;
    }

    /// A node's transform relative to the prop root.
    ///
    /// # Panics
    /// If `node` is out of range.
    #[must_use]
    pub fn node_relative(&self, node: usize) -> &Affine3A {
        &self.relative[node]
    }

    /// A node's world matrix.
    ///
    /// # Panics
    /// If `node` is out of range.
    #[must_use]
    pub fn node_world(&self, node: usize) -> Affine3A {
        self.root_world.to_affine() * self.relative[node]
    }

    /// A node's world position and rotation (its world matrix's, scale taken off).
    ///
    /// With the root scaled uniformly (the usual case) the rotation is composed from the root's
    /// and the node's root-relative rotation, without building the matrix; otherwise it is
    /// [`rotation_of`] the [`Self::node_world`] matrix.
    ///
    /// # Panics
    /// If `node` is out of range.
    #[must_use]
    pub fn node_pose_world(&self, node: usize) -> (Vec3, Quat) {
        let root = &self.root_world;
        let s = root.scale;
        if s.x == s.y && s.y == s.z && s.x > 0.0 {
            let rel = &self.relative[node];
            let position = root.translation + root.rotation * Vec3::from(rel.translation * s.x);
            (
                position,
                (root.rotation * self.relative_rotation[node]).normalize(),
            )
        } else {
            let m = self.node_world(node);
            (m.translation.into(), rotation_of(&m))
        }
    }

    /// A node's rotation relative to the prop root (scale taken off), computed once.
    ///
    /// # Panics
    /// If `node` is out of range.
    #[must_use]
    pub fn node_relative_rotation(&self, node: usize) -> Quat {
        self.relative_rotation[node]
    }

    /// The world position of the first empty whose name ends with `suffix`.
    #[must_use]
    pub fn empty_position_world(&self, suffix: &str) -> Option<Vec3> {
        self.find(suffix)
            .map(|i| self.node_world(i).translation.into())
    }
}

/// Builds a [`Prop`] naming parents by name.
#[derive(Debug, Clone, Default)]
pub struct PropBuilder {
    nodes: Vec<(String, Option<String>, Transform)>,
}

impl PropBuilder {
    /// Adds a node under `parent` (a node added earlier, by exact name) or under the root.
    #[must_use]
    pub fn node(mut self, name: &str, parent: Option<&str>, local: Transform) -> Self {
        self.nodes
            .push((name.to_owned(), parent.map(str::to_owned), local));
        self
    }

    /// Builds the prop.
    ///
    /// # Errors
    /// [`PropsError::PropNode`] for an unknown parent name and everything
    /// [`Prop::from_nodes`] refuses.
    pub fn build(self) -> Result<Prop, PropsError> {
        let mut nodes: Vec<PropNode> = Vec::with_capacity(self.nodes.len());
        for (index, (name, parent, local)) in self.nodes.into_iter().enumerate() {
            let parent = match parent {
                None => None,
                Some(p) => Some(nodes.iter().position(|n| n.name == p).ok_or_else(|| {
                    PropsError::PropNode {
                        index,
                        name: name.clone(),
                        problem: format!("no earlier node named \"{p}\""),
                    }
                })?),
            };
            nodes.push(PropNode {
                name,
                parent,
                local,
            });
        }
        Prop::from_nodes(nodes)
    }
}

#[cfg(test)]
mod tests {
    use glam::{EulerRot, Quat, Vec3};

    use super::*;

    #[test]
    fn node_pose_world_matches_the_node_matrix() {
        let turn = |x: f32, y: f32, z: f32| Quat::from_euler(EulerRot::XYZ, x, y, z);
        let mut prop = Prop::builder()
            .node(
                "body",
                None,
                Transform::from_trs(Vec3::Z * 0.3, turn(0.2, 0.5, -0.3), Vec3::ONE),
            )
            .node(
                "grip",
                Some("body"),
                Transform::from_trs(Vec3::new(0.1, -0.05, 0.2), turn(-1.0, 0.4, 2.0), Vec3::ONE),
            )
            .build()
            .unwrap();
        let grip = prop.find("grip").unwrap();
        for scale in [Vec3::ONE, Vec3::splat(0.01), Vec3::new(1.0, 2.0, 0.5)] {
            prop.set_root_world(Transform::from_trs(
                Vec3::new(1.0, 1.5, -2.0),
                turn(0.7, -1.2, 0.3),
                scale,
            ));
            let m = prop.node_world(grip);
            let (position, rotation) = prop.node_pose_world(grip);
            assert!(position.distance(m.translation.into()) < 1e-6, "{scale}");
            assert!(rotation.dot(rotation_of(&m)).abs() > 1.0 - 1e-6, "{scale}");
        }
    }
}
