//! PMX rigid bodies, joints (six kinds) and PMX 2.1 soft bodies.

use glam::Vec3;

/// Collision shape of a rigid body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RigidShape {
    /// 0: sphere; radius is `size.x`.
    Sphere,
    /// 1: box; half extents are `size`.
    Box,
    /// 2: capsule; radius `size.x`, cylinder height `size.y`.
    Capsule,
}

impl RigidShape {
    pub(crate) fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(RigidShape::Sphere),
            1 => Some(RigidShape::Box),
            2 => Some(RigidShape::Capsule),
            _ => None,
        }
    }
    /// The byte stored in the file.
    #[must_use]
    pub fn to_u8(self) -> u8 {
        self as u8
    }
}

/// How a rigid body moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PhysicsMode {
    /// 0: kinematic, follows its bone.
    FollowBone,
    /// 1: dynamic, drives its bone's rotation and translation.
    Dynamic,
    /// 2: dynamic, drives rotation only; the bone keeps its translation.
    DynamicWithBonePosition,
}

impl PhysicsMode {
    pub(crate) fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(PhysicsMode::FollowBone),
            1 => Some(PhysicsMode::Dynamic),
            2 => Some(PhysicsMode::DynamicWithBonePosition),
            _ => None,
        }
    }
    /// The byte stored in the file.
    #[must_use]
    pub fn to_u8(self) -> u8 {
        self as u8
    }
}

/// A rigid body.
#[derive(Debug, Clone, PartialEq)]
pub struct PmxRigidBody {
    /// Name.
    pub name: String,
    /// English name.
    pub name_en: String,
    /// Related bone index, `-1` none.
    pub bone: i32,
    /// Collision group, 0..=15.
    pub group: u8,
    /// Bit set of the groups this body collides with (bit i = group i), as stored in the file
    /// (PMX Editor shows its complement as "non-collision groups"; Bullet uses it as the mask).
    pub collision_mask: u16,
    /// Shape.
    pub shape: RigidShape,
    /// Shape size (see [`RigidShape`]).
    pub size: Vec3,
    /// Position, model space.
    pub position: Vec3,
    /// Rotation, Euler angles in radians (MMD order Y, X, Z), model space.
    pub rotation: Vec3,
    /// Mass.
    pub mass: f32,
    /// Linear damping.
    pub linear_damping: f32,
    /// Angular damping.
    pub angular_damping: f32,
    /// Restitution.
    pub restitution: f32,
    /// Friction.
    pub friction: f32,
    /// Mode.
    pub mode: PhysicsMode,
}

/// Kind of a joint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PmxJointKind {
    /// 0: 6DOF with springs (the only kind PMX 2.0 has).
    Spring6Dof,
    /// 1: 6DOF (2.1).
    SixDof,
    /// 2: point-to-point (2.1).
    P2p,
    /// 3: cone twist (2.1).
    ConeTwist,
    /// 5: slider (2.1).
    Slider,
    /// 6: hinge (2.1).
    Hinge,
}

impl PmxJointKind {
    pub(super) fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(PmxJointKind::Spring6Dof),
            1 => Some(PmxJointKind::SixDof),
            2 => Some(PmxJointKind::P2p),
            3 => Some(PmxJointKind::ConeTwist),
            5 => Some(PmxJointKind::Slider),
            6 => Some(PmxJointKind::Hinge),
            _ => None,
        }
    }
    /// The byte stored in the file.
    #[must_use]
    pub fn to_u8(self) -> u8 {
        match self {
            PmxJointKind::Spring6Dof => 0,
            PmxJointKind::SixDof => 1,
            PmxJointKind::P2p => 2,
            PmxJointKind::ConeTwist => 3,
            PmxJointKind::Slider => 5,
            PmxJointKind::Hinge => 6,
        }
    }
}

/// A joint between two rigid bodies.
#[derive(Debug, Clone, PartialEq)]
pub struct PmxJoint {
    /// Name.
    pub name: String,
    /// English name.
    pub name_en: String,
    /// Kind.
    pub kind: PmxJointKind,
    /// First rigid body, `-1` none.
    pub body_a: i32,
    /// Second rigid body, `-1` none.
    pub body_b: i32,
    /// Position, model space.
    pub position: Vec3,
    /// Rotation, Euler radians, model space.
    pub rotation: Vec3,
    /// Lower translation limit.
    pub linear_lower: Vec3,
    /// Upper translation limit.
    pub linear_upper: Vec3,
    /// Lower rotation limit, radians.
    pub angular_lower: Vec3,
    /// Upper rotation limit, radians.
    pub angular_upper: Vec3,
    /// Translation spring constants.
    pub spring_linear: Vec3,
    /// Rotation spring constants.
    pub spring_angular: Vec3,
}

/// A soft body (PMX 2.1), kept as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct PmxSoftBody {
    /// Name.
    pub name: String,
    /// English name.
    pub name_en: String,
    /// Shape: 0 tri-mesh, 1 rope.
    pub shape: u8,
    /// Material index.
    pub material: i32,
    /// Collision group.
    pub group: u8,
    /// Non-collision group mask.
    pub collision_mask: u16,
    /// Flags: 0x01 B-link, 0x02 cluster creation, 0x04 link crossing.
    pub flags: u8,
    /// B-link creation distance.
    pub b_link_distance: i32,
    /// Number of clusters.
    pub cluster_count: i32,
    /// Total mass.
    pub total_mass: f32,
    /// Collision margin.
    pub collision_margin: f32,
    /// Aerodynamics model.
    pub aero_model: i32,
    /// Config: VCF, DP, DG, LF, PR, VC, DF, MT, CHR, KHR, SHR, AHR.
    pub config: [f32; 12],
    /// Cluster: SRHR_CL, SKHR_CL, SSHR_CL, SR_SPLT_CL, SK_SPLT_CL, SS_SPLT_CL.
    pub cluster: [f32; 6],
    /// Iterations: V_IT, P_IT, D_IT, C_IT.
    pub iterations: [i32; 4],
    /// Material: LST, AST, VST.
    pub material_coefficients: [f32; 3],
    /// Anchors to rigid bodies.
    pub anchors: Vec<PmxSoftBodyAnchor>,
    /// Pinned vertex indices.
    pub pins: Vec<u32>,
}

/// A soft-body anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PmxSoftBodyAnchor {
    /// Rigid-body index.
    pub rigid_body: i32,
    /// Vertex index.
    pub vertex: u32,
    /// Near mode.
    pub near_mode: u8,
}
