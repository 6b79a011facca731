//! Binding: checking that another rig is animation-equivalent to a skeleton.

use std::collections::HashMap;
use std::sync::Arc;

use thiserror::Error;

use super::builder::{find_cycle, Parent, RawBone};
use super::{BoneId, Skeleton};
use crate::math::rotation_angle_between;
use crate::pose::RigState;

/// How far rest transforms may differ and still count as the same rig.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BindTolerance {
    /// Largest translation difference, in the rig's units. Default `1e-4`.
    pub translation: f32,
    /// Largest rotation difference, in radians. Default `1e-4`.
    pub rotation: f32,
    /// Largest per-axis scale difference. Default `1e-4`.
    pub scale: f32,
}

impl Default for BindTolerance {
    fn default() -> Self {
        Self {
            translation: 1e-4,
            rotation: 1e-4,
            scale: 1e-4,
        }
    }
}

/// One way in which a candidate rig differs from the skeleton.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum BindMismatch {
    /// Different numbers of bones.
    #[error("bone count differs: skeleton has {expected}, candidate has {found}")]
    Count {
        /// Skeleton's count.
        expected: usize,
        /// Candidate's count.
        found: usize,
    },
    /// The candidate has two bones with this name.
    #[error("candidate has duplicate bone \"{name}\"")]
    Duplicate {
        /// The name.
        name: String,
    },
    /// A skeleton bone is absent from the candidate.
    #[error("candidate lacks bone \"{name}\"")]
    Missing {
        /// The name.
        name: String,
    },
    /// The candidate has a bone the skeleton lacks.
    #[error("candidate has unexpected bone \"{name}\"")]
    Unexpected {
        /// The name.
        name: String,
    },
    /// The candidate names a parent it does not contain.
    #[error("candidate bone \"{bone}\" has unknown parent \"{parent}\"")]
    UnknownParent {
        /// The child.
        bone: String,
        /// The parent reference.
        parent: String,
    },
    /// A bone has a different parent.
    #[error("bone \"{bone}\" has parent {found:?}, expected {expected:?}")]
    Parent {
        /// The bone.
        bone: String,
        /// The skeleton's parent (None for a root).
        expected: Option<String>,
        /// The candidate's parent.
        found: Option<String>,
    },
    /// A bone's rest transform differs beyond tolerance.
    #[error(
        "bone \"{bone}\" rest transform differs (translation {translation_error}, rotation {rotation_error} rad, scale {scale_error})"
    )]
    Rest {
        /// The bone.
        bone: String,
        /// Translation difference.
        translation_error: f32,
        /// Rotation difference in radians.
        rotation_error: f32,
        /// Largest per-axis scale difference.
        scale_error: f32,
    },
    /// A candidate rest transform is not finite.
    #[error("candidate bone \"{bone}\" has a non-finite rest transform")]
    NonFinite {
        /// The bone.
        bone: String,
    },
    /// The candidate's parent links form a loop.
    #[error("candidate bones form a parent cycle: {}", bones.join(" -> "))]
    Cycle {
        /// The bones on the cycle.
        bones: Vec<String>,
    },
}

/// Every mismatch found, in a stable order (count, then per candidate bone in source order,
/// then bones missing from the candidate in skeleton order).
#[derive(Clone, Debug, PartialEq, Error)]
#[error("rig is not animation-equivalent ({} mismatches; first: {})", mismatches.len(), mismatches[0])]
pub struct BindReport {
    /// All mismatches; never empty.
    pub mismatches: Vec<BindMismatch>,
}

/// A successful bind: fresh state for the skeleton, and where each candidate bone went.
#[derive(Debug)]
pub struct Bound {
    /// Fresh per-character state whose local pose is the candidate's rest pose, reordered into
    /// skeleton order.
    pub state: RigState,
    /// `remap[source_index]` is the skeleton bone of the candidate bone at `source_index`.
    pub remap: Vec<BoneId>,
}

/// Validates that `candidate` is animation-equivalent to `skeleton` — same count, names,
/// parents and rest transforms within `tolerance`, no duplicates, no cycles — and returns fresh
/// state for it. Bones may be given in any order.
///
/// # Errors
/// A [`BindReport`] listing **every** mismatch, not just the first.
pub fn bind(
    skeleton: &Arc<Skeleton>,
    candidate: &[RawBone],
    tolerance: BindTolerance,
) -> Result<Bound, BindReport> {
    let mut out = Vec::new();
    if candidate.len() != skeleton.len() {
        out.push(BindMismatch::Count {
            expected: skeleton.len(),
            found: candidate.len(),
        });
    }
    let mut by_name: HashMap<&str, usize> = HashMap::with_capacity(candidate.len());
    for (i, b) in candidate.iter().enumerate() {
        if by_name.insert(&b.name, i).is_some() {
            out.push(BindMismatch::Duplicate {
                name: b.name.clone(),
            });
        }
    }
    // Resolve candidate parents to source indices (for cycle detection).
    let mut parent_src: Vec<Option<usize>> = Vec::with_capacity(candidate.len());
    let mut remap = Vec::with_capacity(candidate.len());
    for b in candidate {
        let (p, pname) = match &b.parent {
            Parent::Root => (None, None),
            Parent::Name(n) => match by_name.get(n.as_str()) {
                Some(&i) => (Some(i), Some(n.clone())),
                None => {
                    out.push(BindMismatch::UnknownParent {
                        bone: b.name.clone(),
                        parent: n.clone(),
                    });
                    (None, None)
                }
            },
            Parent::Index(i) => match candidate.get(*i) {
                Some(pb) => (Some(*i), Some(pb.name.clone())),
                None => {
                    out.push(BindMismatch::UnknownParent {
                        bone: b.name.clone(),
                        parent: format!("#{i}"),
                    });
                    (None, None)
                }
            },
        };
        parent_src.push(p);
        let Some(id) = skeleton.find(&b.name) else {
            out.push(BindMismatch::Unexpected {
                name: b.name.clone(),
            });
            continue;
        };
        remap.push(id);
        let expected = skeleton.parent(id).map(|p| skeleton.name(p).to_owned());
        let parent_unknown = matches!(&b.parent, Parent::Name(_) | Parent::Index(_)) && p.is_none();
        if !parent_unknown && expected != pname {
            out.push(BindMismatch::Parent {
                bone: b.name.clone(),
                expected,
                found: pname,
            });
        }
        if !b.rest.is_finite() {
            out.push(BindMismatch::NonFinite {
                bone: b.name.clone(),
            });
            continue;
        }
        let r = skeleton.rest(id);
        let translation_error = r.translation.distance(b.rest.translation);
        let rotation_error = rotation_angle_between(r.rotation, b.rest.rotation);
        let scale_error = (r.scale - b.rest.scale).abs().max_element();
        if translation_error > tolerance.translation
            || rotation_error > tolerance.rotation
            || scale_error > tolerance.scale
        {
            out.push(BindMismatch::Rest {
                bone: b.name.clone(),
                translation_error,
                rotation_error,
                scale_error,
            });
        }
    }
    if let Some(cycle) = find_cycle(&parent_src) {
        out.push(BindMismatch::Cycle {
            bones: cycle
                .into_iter()
                .map(|i| candidate[i].name.clone())
                .collect(),
        });
    }
    for id in skeleton.bones() {
        if !by_name.contains_key(skeleton.name(id)) {
            out.push(BindMismatch::Missing {
                name: skeleton.name(id).to_owned(),
            });
        }
    }
    if !out.is_empty() {
        return Err(BindReport { mismatches: out });
    }
    let mut state = RigState::new(Arc::clone(skeleton));
    for (b, id) in candidate.iter().zip(&remap) {
        state.locals_mut()[id.index()] = b.rest;
    }
    Ok(Bound { state, remap })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SkeletonBuilder, Transform};
    use glam::{Quat, Vec3};

    fn skel() -> Arc<Skeleton> {
        SkeletonBuilder::new()
            .bone("root", Parent::Root, Transform::IDENTITY)
            .bone("a", "root", Transform::from_translation(Vec3::Y))
            .bone("b", "a", Transform::from_translation(Vec3::Y))
            .build()
            .unwrap()
    }

    #[test]
    fn binds_a_permuted_equivalent_rig() {
        let s = skel();
        let mut raw = s.to_raw();
        raw.reverse();
        let bound = bind(&s, &raw, BindTolerance::default()).unwrap();
        assert_eq!(bound.remap[0], s.find("b").unwrap());
        assert_eq!(bound.state.locals(), s.rest_pose());
    }

    #[test]
    fn reports_every_mismatch() {
        let s = skel();
        let raw = vec![
            RawBone {
                name: "root".into(),
                parent: Parent::Name("x".into()),
                rest: Transform::IDENTITY,
            },
            RawBone {
                name: "a".into(),
                parent: Parent::Name("root".into()),
                rest: Transform::from_translation(Vec3::new(0.0, 1.5, 0.0)),
            },
            RawBone {
                name: "a".into(),
                parent: Parent::Name("ghost".into()),
                rest: Transform::IDENTITY,
            },
            RawBone {
                name: "x".into(),
                parent: Parent::Index(9),
                rest: Transform::from_rotation(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)),
            },
            RawBone {
                name: "c".into(),
                parent: Parent::Name("root".into()),
                rest: Transform::IDENTITY,
            },
        ];
        let e = bind(&s, &raw, BindTolerance::default()).unwrap_err();
        let m = &e.mismatches;
        assert!(m.contains(&BindMismatch::Count {
            expected: 3,
            found: 5
        }));
        assert!(m.contains(&BindMismatch::Duplicate { name: "a".into() }));
        assert!(m.contains(&BindMismatch::Parent {
            bone: "root".into(),
            expected: None,
            found: Some("x".into())
        }));
        assert!(m
            .iter()
            .any(|x| matches!(x, BindMismatch::Rest { bone, .. } if bone == "a")));
        assert!(m.contains(&BindMismatch::UnknownParent {
            bone: "a".into(),
            parent: "ghost".into()
        }));
        assert!(m.contains(&BindMismatch::UnknownParent {
            bone: "x".into(),
            parent: "#9".into()
        }));
        assert!(m.contains(&BindMismatch::Unexpected { name: "x".into() }));
        assert!(m.contains(&BindMismatch::Unexpected { name: "c".into() }));
        assert!(m.contains(&BindMismatch::Missing { name: "b".into() }));
        assert!(e.to_string().contains("mismatches"));
    }

    #[test]
    fn reports_cycles_and_non_finite() {
        let s = skel();
        let raw = vec![
            RawBone {
                name: "root".into(),
                parent: Parent::Name("b".into()),
                rest: Transform::IDENTITY,
            },
            RawBone {
                name: "a".into(),
                parent: Parent::Name("root".into()),
                rest: Transform::from_translation(Vec3::new(0.0, f32::NAN, 0.0)),
            },
            RawBone {
                name: "b".into(),
                parent: Parent::Name("a".into()),
                rest: Transform::from_translation(Vec3::Y),
            },
        ];
        let e = bind(&s, &raw, BindTolerance::default()).unwrap_err();
        assert!(e.mismatches.contains(&BindMismatch::Cycle {
            bones: vec!["root".into(), "b".into(), "a".into()]
        }));
        assert!(e
            .mismatches
            .contains(&BindMismatch::NonFinite { bone: "a".into() }));
    }
}
