//! Building a [`Skeleton`] from bones given in any order.

use std::collections::HashMap;
use std::sync::Arc;

use crate::dynamics::{DynamicsError, SkeletonDynamicsBuilder};
use crate::Model;

use glam::Affine3A;

use super::{BoneId, Skeleton, SkeletonError};
use crate::Transform;

/// How a bone names its parent.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Parent {
    /// The bone is a root.
    Root,
    /// The parent's name.
    Name(String),
    /// The parent's source index: its position in the order bones were given.
    Index(usize),
}

impl From<&str> for Parent {
    fn from(name: &str) -> Self {
        Self::Name(name.to_owned())
    }
}

impl From<String> for Parent {
    fn from(name: String) -> Self {
        Self::Name(name)
    }
}

impl From<usize> for Parent {
    fn from(index: usize) -> Self {
        Self::Index(index)
    }
}

impl From<Option<&str>> for Parent {
    fn from(name: Option<&str>) -> Self {
        name.map_or(Self::Root, Self::from)
    }
}

impl std::fmt::Display for Parent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Root => f.write_str("<root>"),
            Self::Name(n) => f.write_str(n),
            Self::Index(i) => write!(f, "#{i}"),
        }
    }
}

/// A bone as given to the builder: unchecked, in source order.
#[derive(Clone, Debug, PartialEq)]
pub struct RawBone {
    /// Unique, non-empty name.
    pub name: String,
    /// Parent reference.
    pub parent: Parent,
    /// Rest (bind) transform relative to the parent.
    pub rest: Transform,
}

/// Collects bones in any order, then validates and freezes them into an `Arc<Skeleton>`.
///
/// ```
/// use sinew::{SkeletonBuilder, Parent, Transform};
/// use glam::Vec3;
/// let skeleton = SkeletonBuilder::new()
///     .bone("hand", "arm", Transform::from_translation(Vec3::X))
///     .bone("root", Parent::Root, Transform::IDENTITY)
///     .bone("arm", "root", Transform::from_translation(Vec3::Y))
///     .build()
///     .unwrap();
/// assert_eq!(skeleton.name(skeleton.find("root").unwrap()), "root");
/// ```
#[derive(Clone, Default)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct SkeletonBuilder {
    bones: Vec<RawBone>,
    inverse_binds: Vec<(String, Affine3A)>,
    configure: Option<Configure>,
}

/// The dynamics callback of [`SkeletonBuilder::dynamics`].
type Configure = Arc<
    dyn Fn(&Arc<Skeleton>, &mut SkeletonDynamicsBuilder) -> Result<(), DynamicsError> + Send + Sync,
>;

impl std::fmt::Debug for SkeletonBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkeletonBuilder")
            .field("bones", &self.bones)
            .field("inverse_binds", &self.inverse_binds)
            .field("dynamics", &self.configure.is_some())
            .finish()
    }
}

/// Why [`SkeletonBuilder::build_model`] failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BuildModelError {
    /// The skeleton was refused.
    #[error(transparent)]
    Skeleton(#[from] SkeletonError),
    /// The dynamics the callback configured were refused.
    #[error(transparent)]
    Dynamics(#[from] DynamicsError),
}

impl SkeletonBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder over bones already collected.
    pub fn from_raw(bones: Vec<RawBone>) -> Self {
        Self {
            bones,
            inverse_binds: Vec::new(),
            configure: None,
        }
    }

    /// Sets the callback that configures the skeleton's dynamics. [`Self::build_model`] runs it
    /// once the skeleton is built (the bones' ids exist then: `builder.bone("name")?` finds
    /// them, a wrong name an error), then validates and mounts the result on the model; an
    /// error the callback returns is the build's. [`Self::build`], which builds no model,
    /// refuses a builder with a callback rather than drop it. A second call replaces the
    /// callback; [`Self::clear_dynamics`] and [`Self::clear`] remove it.
    pub fn dynamics(
        mut self,
        configure: impl Fn(&Arc<Skeleton>, &mut SkeletonDynamicsBuilder) -> Result<(), DynamicsError>
            + Send
            + Sync
            + 'static,
    ) -> Self {
        self.configure = Some(Arc::new(configure));
        self
    }

    /// Removes the dynamics callback.
    pub fn clear_dynamics(mut self) -> Self {
        self.configure = None;
        self
    }

    /// Removes everything: bones, inverse bind overrides and the dynamics callback.
    pub fn clear(self) -> Self {
        Self::default()
    }

    /// Builds the skeleton ([`Self::build`]) and a [`Model`] over it, with the dynamics the
    /// callback of [`Self::dynamics`] configures validated and mounted (none without one).
    ///
    /// # Errors
    /// [`BuildModelError::Skeleton`] as [`Self::build`]; [`BuildModelError::Dynamics`] when the
    /// configured definitions break a rule (bones of another skeleton included).
    pub fn build_model(mut self) -> Result<Model, BuildModelError> {
        let configure = self.configure.take();
        let skeleton = self.build()?;
        let mut model = Model::new(Arc::clone(&skeleton));
        if let Some(configure) = configure {
            let mut b = SkeletonDynamicsBuilder::empty(&skeleton);
            configure(&skeleton, &mut b)?;
            b.attach(&mut model)?;
        }
        Ok(model)
    }

    /// Adds a bone. Its source index is the number of bones added before it.
    pub fn bone(
        mut self,
        name: impl Into<String>,
        parent: impl Into<Parent>,
        rest: Transform,
    ) -> Self {
        self.push(name, parent, rest);
        self
    }

    /// Adds a bone through a mutable reference (for loops); returns its source index.
    pub fn push(
        &mut self,
        name: impl Into<String>,
        parent: impl Into<Parent>,
        rest: Transform,
    ) -> usize {
        self.bones.push(RawBone {
            name: name.into(),
            parent: parent.into(),
            rest,
        });
        self.bones.len() - 1
    }

    /// Overrides a bone's inverse bind matrix (e.g. from a glTF skin). Without an override the
    /// inverse of the bone's rest world transform is used.
    pub fn inverse_bind(mut self, bone: impl Into<String>, matrix: Affine3A) -> Self {
        self.inverse_binds.push((bone.into(), matrix));
        self
    }

    /// Validates and freezes the skeleton.
    ///
    /// # Errors
    /// [`SkeletonError`] for: no bones, too many, empty or duplicate names, unknown parents,
    /// cycles (including self-parenting), non-finite rest transforms and invalid inverse bind
    /// overrides. The first problem in source order is reported.
    /// A builder with a dynamics callback ([`Self::dynamics`]) is refused with
    /// [`SkeletonError::DynamicsCallback`]: only [`Self::build_model`] runs it.
    pub fn build(self) -> Result<Arc<Skeleton>, SkeletonError> {
        if self.configure.is_some() {
            return Err(SkeletonError::DynamicsCallback);
        }
        let resolved = resolve(&self.bones)?;
        let mut skeleton = Skeleton::from_resolved(&self.bones, &resolved);
        for (name, m) in &self.inverse_binds {
            let Some(id) = skeleton.find(name) else {
                return Err(SkeletonError::InvalidInverseBind {
                    bone: name.clone(),
                    reason: "no bone has this name",
                });
            };
            if !m.is_finite() || m.matrix3.determinant().abs() < 1e-20 {
                return Err(SkeletonError::InvalidInverseBind {
                    bone: name.clone(),
                    reason: "matrix is non-finite or singular",
                });
            }
            skeleton.set_inverse_bind(id, *m);
        }
        Ok(Arc::new(skeleton))
    }
}

/// Parents resolved to source indices, plus the depth-first order.
pub(crate) struct Resolved {
    /// Source index of each bone's parent.
    pub parent_source: Vec<Option<usize>>,
    /// Source indices in depth-first, parent-before-child order.
    pub order: Vec<usize>,
}

/// Checks names, parents, finiteness and cycles; computes the depth-first order.
pub(crate) fn resolve(bones: &[RawBone]) -> Result<Resolved, SkeletonError> {
    if bones.is_empty() {
        return Err(SkeletonError::Empty);
    }
    if bones.len() > BoneId::MAX_BONES - 1 {
        return Err(SkeletonError::TooManyBones {
            count: bones.len(),
            max: BoneId::MAX_BONES - 1,
        });
    }
    let mut by_name: HashMap<&str, usize> = HashMap::with_capacity(bones.len());
    for (i, b) in bones.iter().enumerate() {
        if b.name.is_empty() {
            return Err(SkeletonError::EmptyName { index: i });
        }
        if let Some(&first) = by_name.get(b.name.as_str()) {
            return Err(SkeletonError::DuplicateName {
                name: b.name.clone(),
                first,
                second: i,
            });
        }
        by_name.insert(&b.name, i);
    }
    let mut parent_source = Vec::with_capacity(bones.len());
    for b in bones {
        if !b.rest.is_finite() {
            return Err(SkeletonError::NonFiniteTransform {
                bone: b.name.clone(),
            });
        }
        let p = match &b.parent {
            Parent::Root => None,
            Parent::Name(n) => {
                Some(
                    *by_name
                        .get(n.as_str())
                        .ok_or_else(|| SkeletonError::UnknownParent {
                            bone: b.name.clone(),
                            parent: n.clone(),
                        })?,
                )
            }
            Parent::Index(i) if *i < bones.len() => Some(*i),
            Parent::Index(i) => {
                return Err(SkeletonError::UnknownParent {
                    bone: b.name.clone(),
                    parent: format!("#{i}"),
                })
            }
        };
        parent_source.push(p);
    }
    if let Some(cycle) = find_cycle(&parent_source) {
        return Err(SkeletonError::Cycle {
            bones: cycle.into_iter().map(|i| bones[i].name.clone()).collect(),
        });
    }
    // Depth-first order: roots in source order, children in source order.
    let mut first_child = vec![usize::MAX; bones.len()];
    let mut next_sibling = vec![usize::MAX; bones.len()];
    let mut roots = Vec::new();
    for i in (0..bones.len()).rev() {
        match parent_source[i] {
            Some(p) => {
                next_sibling[i] = first_child[p];
                first_child[p] = i;
            }
            None => roots.push(i),
        }
    }
    let mut order = Vec::with_capacity(bones.len());
    let mut stack: Vec<usize> = roots; // reversed source order: pop gives the first root
    while let Some(i) = stack.pop() {
        order.push(i);
        let mut children = Vec::new();
        let mut c = first_child[i];
        while c != usize::MAX {
            children.push(c);
            c = next_sibling[c];
        }
        stack.extend(children.into_iter().rev());
    }
    Ok(Resolved {
        parent_source,
        order,
    })
}

/// Finds one parent cycle, returned in parent-link order starting at its smallest source index.
pub(crate) fn find_cycle(parent: &[Option<usize>]) -> Option<Vec<usize>> {
    // 0 = unvisited, 1 = on current path, 2 = done.
    let mut state = vec![0u8; parent.len()];
    for start in 0..parent.len() {
        let mut path = Vec::new();
        let mut i = start;
        loop {
            match state[i] {
                2 => break,
                1 => {
                    let pos = path.iter().position(|&x| x == i).unwrap_or(0);
                    let mut cycle: Vec<usize> = path[pos..].to_vec();
                    let min_pos = cycle
                        .iter()
                        .enumerate()
                        .min_by_key(|(_, &v)| v)
                        .map_or(0, |(k, _)| k);
                    cycle.rotate_left(min_pos);
                    return Some(cycle);
                }
                _ => {}
            }
            state[i] = 1;
            path.push(i);
            match parent[i] {
                Some(p) => i = p,
                None => break,
            }
        }
        for &v in &path {
            state[v] = 2;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Quat, Vec3};

    fn t() -> Transform {
        Transform::IDENTITY
    }

    #[test]
    fn empty_is_error() {
        assert_eq!(
            SkeletonBuilder::new().build().unwrap_err(),
            SkeletonError::Empty
        );
    }

    #[test]
    fn empty_name_is_error() {
        let e = SkeletonBuilder::new()
            .bone("", Parent::Root, t())
            .build()
            .unwrap_err();
        assert_eq!(e, SkeletonError::EmptyName { index: 0 });
    }

    #[test]
    fn duplicate_names_are_reported_with_both_indices() {
        let e = SkeletonBuilder::new()
            .bone("a", Parent::Root, t())
            .bone("b", "a", t())
            .bone("a", "b", t())
            .build()
            .unwrap_err();
        assert_eq!(
            e,
            SkeletonError::DuplicateName {
                name: "a".into(),
                first: 0,
                second: 2
            }
        );
    }

    #[test]
    fn unknown_parent_by_name_and_index() {
        let e = SkeletonBuilder::new()
            .bone("a", "nope", t())
            .build()
            .unwrap_err();
        assert_eq!(
            e,
            SkeletonError::UnknownParent {
                bone: "a".into(),
                parent: "nope".into()
            }
        );
        let e = SkeletonBuilder::new()
            .bone("a", 5usize, t())
            .build()
            .unwrap_err();
        assert_eq!(
            e,
            SkeletonError::UnknownParent {
                bone: "a".into(),
                parent: "#5".into()
            }
        );
    }

    #[test]
    fn cycles_are_named() {
        let e = SkeletonBuilder::new()
            .bone("root", Parent::Root, t())
            .bone("a", "c", t())
            .bone("b", "a", t())
            .bone("c", "b", t())
            .build()
            .unwrap_err();
        assert_eq!(
            e,
            SkeletonError::Cycle {
                bones: vec!["a".into(), "c".into(), "b".into()]
            }
        );
        let e = SkeletonBuilder::new()
            .bone("self", "self", t())
            .build()
            .unwrap_err();
        assert_eq!(
            e,
            SkeletonError::Cycle {
                bones: vec!["self".into()]
            }
        );
    }

    #[test]
    fn non_finite_rest_is_error() {
        for bad in [
            Transform::from_translation(Vec3::new(f32::NAN, 0.0, 0.0)),
            Transform::from_rotation(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)),
            Transform::from_trs(Vec3::ZERO, Quat::IDENTITY, Vec3::splat(f32::INFINITY)),
        ] {
            let e = SkeletonBuilder::new()
                .bone("a", Parent::Root, bad)
                .build()
                .unwrap_err();
            assert_eq!(e, SkeletonError::NonFiniteTransform { bone: "a".into() });
        }
    }

    #[test]
    fn inverse_bind_override_errors() {
        let e = SkeletonBuilder::new()
            .bone("a", Parent::Root, t())
            .inverse_bind("b", Affine3A::IDENTITY)
            .build()
            .unwrap_err();
        assert!(matches!(e, SkeletonError::InvalidInverseBind { .. }));
        let e = SkeletonBuilder::new()
            .bone("a", Parent::Root, t())
            .inverse_bind("a", Affine3A::from_scale(Vec3::ZERO))
            .build()
            .unwrap_err();
        assert!(matches!(e, SkeletonError::InvalidInverseBind { .. }));
    }

    #[test]
    fn too_many_bones() {
        let mut b = SkeletonBuilder::new();
        for i in 0..BoneId::MAX_BONES {
            b.push(format!("b{i}"), Parent::Root, t());
        }
        assert!(matches!(
            b.build().unwrap_err(),
            SkeletonError::TooManyBones { .. }
        ));
    }
}
