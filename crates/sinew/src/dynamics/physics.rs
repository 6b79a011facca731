//! Physics definition tables: rigid bodies, joints and how they write back. The simulation
//! itself lives in `sinew-physics`; these are plain validated data.

use glam::Vec3;

use super::DynamicsError;
use crate::BoneId;

/// Collision shape kind. Sizes are given by [`RigidBodyDesc::size`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Shape {
    /// `size.x` is the radius.
    #[default]
    Sphere,
    /// `size` holds the three half-extents.
    Box,
    /// `size.x` is the radius, `size.y` the full height of the cylinder along local Y.
    Capsule,
}

/// How a body moves and what it writes back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BodyMode {
    /// Driven by its animated bone every step.
    #[default]
    Kinematic,
    /// Simulated; writes back the bone's full pose.
    Dynamic,
    /// Simulated; writes back only the bone's rotation, keeping the animated translation.
    DynamicRotation,
}

/// A rigid body as plain data, before validation. Positions, sizes and translations are in
/// definition units (the simulation multiplies them by [`Physics::unit_scale`]); rotations are
/// XYZ Euler radians (`Rx·Ry·Rz`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RigidBodyDesc {
    /// Display name (need not be a bone name).
    pub name: String,
    /// Auxiliary name, may be empty.
    pub alias: String,
    /// The bone the body follows or drives; `None` for a free body.
    pub bone: Option<BoneId>,
    /// Collision group, `0..=63`.
    pub collision_group: u8,
    /// Bit `g` set: this body does not collide with bodies of group `g`.
    pub non_collision_mask: u64,
    /// Shape kind.
    pub shape: Shape,
    /// Shape size (see [`Shape`]); finite, non-negative.
    pub size: Vec3,
    /// Position in definition coordinates (model space).
    pub position: Vec3,
    /// Orientation, XYZ Euler radians.
    pub rotation: Vec3,
    /// Mass, finite `>= 0`; 0 gives no dynamic inverse mass.
    pub mass: f32,
    /// Linear damping, finite `>= 0`.
    pub linear_damping: f32,
    /// Angular damping, finite `>= 0`.
    pub angular_damping: f32,
    /// Restitution, finite `>= 0`.
    pub restitution: f32,
    /// Friction, finite `>= 0`.
    pub friction: f32,
    /// Motion and writeback mode.
    pub mode: BodyMode,
}

/// A validated rigid body definition.
#[derive(Clone, Debug, PartialEq)]
pub struct RigidBody(RigidBodyDesc);

fn bad(
    what: &'static str,
    name: &str,
    field: &'static str,
    value: impl std::fmt::Display,
    expected: &'static str,
) -> DynamicsError {
    DynamicsError::InvalidParameter {
        what,
        name: name.to_owned(),
        field,
        value: value.to_string(),
        expected,
    }
}

fn finite_non_negative(
    what: &'static str,
    name: &str,
    field: &'static str,
    v: f32,
) -> Result<(), DynamicsError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(bad(what, name, field, v, "finite and >= 0"))
    }
}

fn finite_vec(
    what: &'static str,
    name: &str,
    field: &'static str,
    v: Vec3,
) -> Result<(), DynamicsError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(bad(what, name, field, v, "finite"))
    }
}

impl RigidBody {
    /// Validates a body definition. Sizes may be zero here; creating the collision shape later
    /// rejects degenerate shapes.
    ///
    /// # Errors
    /// [`DynamicsError::InvalidParameter`] naming the field: group above 63, non-finite or
    /// negative size/mass/damping/restitution/friction, non-finite position or rotation.
    pub fn new(desc: RigidBodyDesc) -> Result<Self, DynamicsError> {
        const W: &str = "rigid body";
        let n = desc.name.as_str();
        if desc.collision_group > 63 {
            return Err(bad(W, n, "collision_group", desc.collision_group, "0..=63"));
        }
        if !(desc.size.is_finite() && desc.size.min_element() >= 0.0) {
            return Err(bad(W, n, "size", desc.size, "finite and non-negative"));
        }
        finite_vec(W, n, "position", desc.position)?;
        finite_vec(W, n, "rotation", desc.rotation)?;
        finite_non_negative(W, n, "mass", desc.mass)?;
        finite_non_negative(W, n, "linear_damping", desc.linear_damping)?;
        finite_non_negative(W, n, "angular_damping", desc.angular_damping)?;
        finite_non_negative(W, n, "restitution", desc.restitution)?;
        finite_non_negative(W, n, "friction", desc.friction)?;
        Ok(Self(desc))
    }

    /// The validated data.
    #[must_use]
    pub fn desc(&self) -> &RigidBodyDesc {
        &self.0
    }

    /// Display name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The bone, if bound.
    #[must_use]
    pub fn bone(&self) -> Option<BoneId> {
        self.0.bone
    }

    /// Mode.
    #[must_use]
    pub fn mode(&self) -> BodyMode {
        self.0.mode
    }

    /// Whether this body collides with `other` under MMD's rule: each body's mask must allow
    /// the other's group.
    #[must_use]
    pub fn collides_with(&self, other: &RigidBody) -> bool {
        let allows = |a: &RigidBodyDesc, b: &RigidBodyDesc| {
            a.non_collision_mask & (1u64 << b.collision_group) == 0
        };
        allows(&self.0, &other.0) && allows(&other.0, &self.0)
    }
}

/// A six-axis spring joint between two bodies, as plain data before validation. Vectors are in
/// definition coordinates; rotations XYZ Euler radians.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JointDesc {
    /// Display name.
    pub name: String,
    /// Auxiliary name, may be empty.
    pub alias: String,
    /// Index of body A in [`Physics::bodies`].
    pub body_a: usize,
    /// Index of body B in [`Physics::bodies`].
    pub body_b: usize,
    /// Joint frame position.
    pub position: Vec3,
    /// Joint frame orientation.
    pub rotation: Vec3,
    /// Translation lower limits.
    pub position_min: Vec3,
    /// Translation upper limits.
    pub position_max: Vec3,
    /// Rotation lower limits (radians).
    pub rotation_min: Vec3,
    /// Rotation upper limits (radians).
    pub rotation_max: Vec3,
    /// Translation spring stiffness per axis.
    pub position_spring: Vec3,
    /// Rotation spring stiffness per axis.
    pub rotation_spring: Vec3,
}

/// A validated joint definition. Body indices are checked by the builder, which sees the
/// body table.
#[derive(Clone, Debug, PartialEq)]
pub struct Joint(JointDesc);

impl Joint {
    /// Validates a joint definition.
    ///
    /// # Errors
    /// [`DynamicsError::InvalidParameter`] for any non-finite vector.
    pub fn new(desc: JointDesc) -> Result<Self, DynamicsError> {
        const W: &str = "joint";
        let n = desc.name.as_str();
        for (field, v) in [
            ("position", desc.position),
            ("rotation", desc.rotation),
            ("position_min", desc.position_min),
            ("position_max", desc.position_max),
            ("rotation_min", desc.rotation_min),
            ("rotation_max", desc.rotation_max),
            ("position_spring", desc.position_spring),
            ("rotation_spring", desc.rotation_spring),
        ] {
            finite_vec(W, n, field, v)?;
        }
        Ok(Self(desc))
    }

    /// The validated data.
    #[must_use]
    pub fn desc(&self) -> &JointDesc {
        &self.0
    }

    /// Display name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.0.name
    }
}

/// The physics table of a model: bodies, joints and writeback options.
#[derive(Clone, Debug, PartialEq)]
pub struct Physics {
    bodies: Vec<RigidBody>,
    joints: Vec<Joint>,
    unit_scale: Vec3,
    profile_required: bool,
    affine_writeback: bool,
    profile_radius_scale: f32,
    bind_pose_followers: Vec<BoneId>,
}

impl Default for Physics {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl Physics {
    /// Empty tables, unit scale 1, no profile required, affine writeback, radius scale 1, no
    /// followers.
    pub const EMPTY: Self = Self {
        bodies: Vec::new(),
        joints: Vec::new(),
        unit_scale: Vec3::ONE,
        profile_required: false,
        affine_writeback: true,
        profile_radius_scale: 1.0,
        bind_pose_followers: Vec::new(),
    };

    /// Validates a physics table. Follower bones are deduplicated and sorted.
    ///
    /// # Errors
    /// [`DynamicsError::InvalidParameter`] for a unit scale that is not three finite positive
    /// components or a radius scale that is not finite and positive. Joint body indices are
    /// checked by the builder.
    pub fn new(
        bodies: Vec<RigidBody>,
        joints: Vec<Joint>,
        unit_scale: Vec3,
        profile_required: bool,
        affine_writeback: bool,
        profile_radius_scale: f32,
        mut bind_pose_followers: Vec<BoneId>,
    ) -> Result<Self, DynamicsError> {
        if !(unit_scale.is_finite() && unit_scale.min_element() > 0.0) {
            return Err(bad(
                "physics",
                "table",
                "unit_scale",
                unit_scale,
                "three finite positive components",
            ));
        }
        if !(profile_radius_scale.is_finite() && profile_radius_scale > 0.0) {
            return Err(bad(
                "physics",
                "table",
                "profile_radius_scale",
                profile_radius_scale,
                "finite and > 0",
            ));
        }
        bind_pose_followers.sort_unstable();
        bind_pose_followers.dedup();
        Ok(Self {
            bodies,
            joints,
            unit_scale,
            profile_required,
            affine_writeback,
            profile_radius_scale,
            bind_pose_followers,
        })
    }

    /// Bodies and joints with the defaults of the builder's two-list form: unit scale, no
    /// profile required, affine writeback, radius scale 1, no followers.
    #[must_use]
    pub fn from_tables(bodies: Vec<RigidBody>, joints: Vec<Joint>) -> Self {
        Self {
            bodies,
            joints,
            ..Self::EMPTY
        }
    }

    /// Rigid bodies; joints and profiles refer to these indices.
    #[must_use]
    pub fn bodies(&self) -> &[RigidBody] {
        &self.bodies
    }

    /// Joints.
    #[must_use]
    pub fn joints(&self) -> &[Joint] {
        &self.joints
    }

    /// Definition-to-simulation scale.
    #[must_use]
    pub fn unit_scale(&self) -> Vec3 {
        self.unit_scale
    }

    /// True when the table cannot be enabled without a profile (candidate tables).
    #[must_use]
    pub fn profile_required(&self) -> bool {
        self.profile_required
    }

    /// True when writeback solves the local transform within the full affine parent chain.
    #[must_use]
    pub fn affine_writeback(&self) -> bool {
        self.affine_writeback
    }

    /// Radius scale of generated profile capsules.
    #[must_use]
    pub fn profile_radius_scale(&self) -> f32 {
        self.profile_radius_scale
    }

    /// Bones without a body that follow the nearest physics ancestor's bind-to-current delta.
    #[must_use]
    pub fn bind_pose_followers(&self) -> &[BoneId] {
        &self.bind_pose_followers
    }

    /// True when there are no bodies.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body() -> RigidBodyDesc {
        RigidBodyDesc {
            name: "b".into(),
            size: Vec3::ONE,
            mass: 1.0,
            ..RigidBodyDesc::default()
        }
    }

    #[test]
    fn body_contracts() {
        assert!(RigidBody::new(body()).is_ok());
        let cases: Vec<(&str, RigidBodyDesc)> = vec![
            (
                "collision_group",
                RigidBodyDesc {
                    collision_group: 64,
                    ..body()
                },
            ),
            (
                "size",
                RigidBodyDesc {
                    size: Vec3::new(-1.0, 1.0, 1.0),
                    ..body()
                },
            ),
            (
                "size",
                RigidBodyDesc {
                    size: Vec3::new(f32::NAN, 1.0, 1.0),
                    ..body()
                },
            ),
            (
                "position",
                RigidBodyDesc {
                    position: Vec3::splat(f32::INFINITY),
                    ..body()
                },
            ),
            (
                "rotation",
                RigidBodyDesc {
                    rotation: Vec3::splat(f32::NAN),
                    ..body()
                },
            ),
            (
                "mass",
                RigidBodyDesc {
                    mass: -1.0,
                    ..body()
                },
            ),
            (
                "linear_damping",
                RigidBodyDesc {
                    linear_damping: f32::NAN,
                    ..body()
                },
            ),
            (
                "angular_damping",
                RigidBodyDesc {
                    angular_damping: -0.1,
                    ..body()
                },
            ),
            (
                "restitution",
                RigidBodyDesc {
                    restitution: -0.1,
                    ..body()
                },
            ),
            (
                "friction",
                RigidBodyDesc {
                    friction: f32::INFINITY,
                    ..body()
                },
            ),
        ];
        for (field, d) in cases {
            match RigidBody::new(d) {
                Err(DynamicsError::InvalidParameter { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{field}: {other:?}"),
            }
        }
        // Zero sizes are allowed in the definition.
        assert!(RigidBody::new(RigidBodyDesc {
            size: Vec3::ZERO,
            ..body()
        })
        .is_ok());
    }

    #[test]
    fn joint_contracts() {
        assert!(Joint::new(JointDesc::default()).is_ok());
        let e = Joint::new(JointDesc {
            rotation_max: Vec3::splat(f32::NAN),
            ..JointDesc::default()
        })
        .unwrap_err();
        assert!(matches!(
            e,
            DynamicsError::InvalidParameter {
                field: "rotation_max",
                ..
            }
        ));
    }

    #[test]
    fn physics_contracts_and_empty() {
        let e = Physics::EMPTY;
        assert!(e.is_empty() && e.affine_writeback() && !e.profile_required());
        assert_eq!(e.unit_scale(), Vec3::ONE);
        assert_eq!(e.profile_radius_scale(), 1.0);
        assert!(Physics::new(
            vec![],
            vec![],
            Vec3::new(1.0, 0.0, 1.0),
            false,
            true,
            1.0,
            vec![]
        )
        .is_err());
        assert!(Physics::new(vec![], vec![], Vec3::ONE, false, true, 0.0, vec![]).is_err());
        let p = Physics::new(
            vec![],
            vec![],
            Vec3::ONE,
            true,
            false,
            2.0,
            vec![BoneId::new(3), BoneId::new(1), BoneId::new(3)],
        )
        .unwrap();
        assert_eq!(p.bind_pose_followers(), &[BoneId::new(1), BoneId::new(3)]);
    }

    #[test]
    fn mmd_collision_mask_rule() {
        let a = RigidBody::new(RigidBodyDesc {
            collision_group: 1,
            non_collision_mask: 1 << 2,
            ..body()
        })
        .unwrap();
        let b = RigidBody::new(RigidBodyDesc {
            collision_group: 2,
            ..body()
        })
        .unwrap();
        let c = RigidBody::new(RigidBodyDesc {
            collision_group: 3,
            ..body()
        })
        .unwrap();
        assert!(!a.collides_with(&b) && !b.collides_with(&a));
        assert!(a.collides_with(&c));
    }
}
