//! Bone pose constraints: transform inheritance (MMD "append"/"grant") and fixed axes.

use glam::Vec3;

use super::DynamicsError;
use crate::BoneId;

/// Which motion of the source an inheritance reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum InheritanceSpace {
    /// The source's evaluated local pose delta from its rest pose (plain
    /// inheritance): translation `current − rest`, rotation `rest⁻¹ · current`.
    #[default]
    Local,
    /// The source's world (model-space) pose relative to its bind pose, composed from the
    /// evaluated local poses of the source and its ancestors as they stand when the constraint
    /// is applied: translation `inverse_bind · world position` (the world position minus the
    /// bind position for a bind without rotation), rotation `world rotation · bind rotation⁻¹`.
    /// A PMX *local* append, as babylon-mmd evaluates it. The target may not be an ancestor of
    /// the source. Each evaluation walks the source's ancestry (time linear in its depth).
    World,
}

/// A bone inheriting part of another bone's evaluated motion.
///
/// The source provides its motion ([`InheritanceSpace`]: by default its current local pose
/// **delta** from its rest pose, not its rest pose or world position): translation delta ×
/// `weight`, and rotation delta slerped from identity by `weight`. The weight is finite and may
/// be negative (mirrored motion).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TransformInheritance {
    source: BoneId,
    weight: f32,
    translation: bool,
    rotation: bool,
    space: InheritanceSpace,
}

impl TransformInheritance {
    /// Validates and creates an inheritance.
    ///
    /// # Errors
    /// [`DynamicsError::InvalidParameter`] for a non-finite weight,
    /// [`DynamicsError::EmptyInheritance`] when neither translation nor rotation is enabled.
    pub fn new(
        source: BoneId,
        weight: f32,
        translation: bool,
        rotation: bool,
    ) -> Result<Self, DynamicsError> {
        if !weight.is_finite() {
            return Err(DynamicsError::InvalidParameter {
                what: "inheritance",
                name: format!("from bone {source}"),
                field: "weight",
                value: weight.to_string(),
                expected: "finite",
            });
        }
        if !translation && !rotation {
            return Err(DynamicsError::EmptyInheritance {
                bone: format!("from bone {source}"),
            });
        }
        Ok(Self {
            source,
            weight,
            translation,
            rotation,
            space: InheritanceSpace::Local,
        })
    }

    /// The same inheritance reading the source's motion in `space`.
    #[must_use]
    pub fn in_space(self, space: InheritanceSpace) -> Self {
        Self { space, ..self }
    }

    /// Which motion of the source is read.
    #[must_use]
    pub fn space(&self) -> InheritanceSpace {
        self.space
    }

    /// The bone whose motion is inherited.
    #[must_use]
    pub fn source(&self) -> BoneId {
        self.source
    }

    /// The weight (may be negative).
    #[must_use]
    pub fn weight(&self) -> f32 {
        self.weight
    }

    /// Whether translation is inherited.
    #[must_use]
    pub fn translation(&self) -> bool {
        self.translation
    }

    /// Whether rotation is inherited.
    #[must_use]
    pub fn rotation(&self) -> bool {
        self.rotation
    }
}

/// A constraint on one bone's local pose: inheritance first, then twist extraction about a
/// fixed axis (in the bone's local frame). Applied before IK and physics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BonePoseConstraint {
    bone: BoneId,
    inheritance: Option<TransformInheritance>,
    fixed_axis: Option<Vec3>,
}

impl BonePoseConstraint {
    /// Validates and creates a constraint. The axis is copied and normalised.
    ///
    /// # Errors
    /// [`DynamicsError::EmptyPoseConstraint`] when both parts are `None`;
    /// [`DynamicsError::InvalidParameter`] for a non-finite axis or one whose squared length is
    /// below `1e-8`; [`DynamicsError::SelfInheritance`] when the bone inherits from itself.
    pub fn new(
        bone: BoneId,
        inheritance: Option<TransformInheritance>,
        fixed_axis: Option<Vec3>,
    ) -> Result<Self, DynamicsError> {
        if inheritance.is_none() && fixed_axis.is_none() {
            return Err(DynamicsError::EmptyPoseConstraint {
                bone: bone.to_string(),
            });
        }
        if let Some(i) = inheritance {
            if i.source == bone {
                return Err(DynamicsError::SelfInheritance {
                    bone: bone.to_string(),
                });
            }
        }
        let fixed_axis = match fixed_axis {
            None => None,
            Some(a) if a.is_finite() && a.length_squared() >= 1e-8 => Some(a.normalize()),
            Some(a) => {
                return Err(DynamicsError::InvalidParameter {
                    what: "pose constraint",
                    name: bone.to_string(),
                    field: "fixed_axis",
                    value: a.to_string(),
                    expected: "finite with squared length >= 1e-8",
                })
            }
        };
        Ok(Self {
            bone,
            inheritance,
            fixed_axis,
        })
    }

    /// The constrained bone.
    #[must_use]
    pub fn bone(&self) -> BoneId {
        self.bone
    }

    /// The inheritance, if any.
    #[must_use]
    pub fn inheritance(&self) -> Option<&TransformInheritance> {
        self.inheritance.as_ref()
    }

    /// The normalised fixed axis in the bone's local frame, if any (a copy).
    #[must_use]
    pub fn fixed_axis(&self) -> Option<Vec3> {
        self.fixed_axis
    }

    /// Whether a fixed axis is defined.
    #[must_use]
    pub fn has_fixed_axis(&self) -> bool {
        self.fixed_axis.is_some()
    }
}
