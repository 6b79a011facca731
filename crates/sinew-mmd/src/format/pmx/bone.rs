//! PMX bones: flags, tail, append (inherit), local axes, IK and its links.

use glam::Vec3;

/// Bone flags, the PMX `u16` bit set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PmxBoneFlags(pub u16);

impl PmxBoneFlags {
    /// 0x0001: the tail is another bone (otherwise an offset).
    pub const TAIL_IS_BONE: u16 = 0x0001;
    /// 0x0002: rotatable.
    pub const ROTATABLE: u16 = 0x0002;
    /// 0x0004: movable (translatable).
    pub const MOVABLE: u16 = 0x0004;
    /// 0x0008: visible.
    pub const VISIBLE: u16 = 0x0008;
    /// 0x0010: operable (enabled in the editor).
    pub const OPERABLE: u16 = 0x0010;
    /// 0x0020: IK bone; IK data follows.
    pub const IK: u16 = 0x0020;
    /// 0x0080: append (inherit) from the parent's local transform.
    pub const LOCAL_APPEND: u16 = 0x0080;
    /// 0x0100: append (inherit) rotation.
    pub const APPEND_ROTATE: u16 = 0x0100;
    /// 0x0200: append (inherit) translation.
    pub const APPEND_TRANSLATE: u16 = 0x0200;
    /// 0x0400: fixed axis; the axis follows.
    pub const FIXED_AXIS: u16 = 0x0400;
    /// 0x0800: local axes; X and Z follow.
    pub const LOCAL_AXES: u16 = 0x0800;
    /// 0x1000: deform after physics.
    pub const AFTER_PHYSICS: u16 = 0x1000;
    /// 0x2000: external parent deform; the key follows.
    pub const EXTERNAL_PARENT: u16 = 0x2000;

    /// Whether every bit of `bits` is set.
    #[must_use]
    pub const fn contains(self, bits: u16) -> bool {
        self.0 & bits == bits
    }
    /// The tail is a bone index.
    #[must_use]
    pub const fn tail_is_bone(self) -> bool {
        self.contains(Self::TAIL_IS_BONE)
    }
    /// Rotatable.
    #[must_use]
    pub const fn rotatable(self) -> bool {
        self.contains(Self::ROTATABLE)
    }
    /// Movable.
    #[must_use]
    pub const fn movable(self) -> bool {
        self.contains(Self::MOVABLE)
    }
    /// Visible.
    #[must_use]
    pub const fn visible(self) -> bool {
        self.contains(Self::VISIBLE)
    }
    /// Operable.
    #[must_use]
    pub const fn operable(self) -> bool {
        self.contains(Self::OPERABLE)
    }
    /// IK bone.
    #[must_use]
    pub const fn ik(self) -> bool {
        self.contains(Self::IK)
    }
    /// Local append.
    #[must_use]
    pub const fn local_append(self) -> bool {
        self.contains(Self::LOCAL_APPEND)
    }
    /// Append rotation.
    #[must_use]
    pub const fn append_rotate(self) -> bool {
        self.contains(Self::APPEND_ROTATE)
    }
    /// Append translation.
    #[must_use]
    pub const fn append_translate(self) -> bool {
        self.contains(Self::APPEND_TRANSLATE)
    }
    /// Fixed axis.
    #[must_use]
    pub const fn fixed_axis(self) -> bool {
        self.contains(Self::FIXED_AXIS)
    }
    /// Local axes.
    #[must_use]
    pub const fn local_axes(self) -> bool {
        self.contains(Self::LOCAL_AXES)
    }
    /// Deform after physics.
    #[must_use]
    pub const fn after_physics(self) -> bool {
        self.contains(Self::AFTER_PHYSICS)
    }
    /// External parent deform.
    #[must_use]
    pub const fn external_parent(self) -> bool {
        self.contains(Self::EXTERNAL_PARENT)
    }
    /// These flags with `bits` set or cleared.
    #[must_use]
    pub const fn with(self, bits: u16, on: bool) -> Self {
        if on {
            PmxBoneFlags(self.0 | bits)
        } else {
            PmxBoneFlags(self.0 & !bits)
        }
    }
}

/// A bone.
///
/// The optional parts (`append`, `fixed_axis`, `local_axes`, `external_parent`,
/// `ik`) are `Some` exactly when the flag announcing them is set. When writing,
/// the announcing flags are derived from these fields and from `tail`
/// (`append` is written when it is `Some` and `APPEND_ROTATE` or
/// `APPEND_TRANSLATE` is set).
#[derive(Debug, Clone, PartialEq)]
pub struct PmxBone {
    /// Name.
    pub name: String,
    /// English name.
    pub name_en: String,
    /// Rest position, model space (not relative to the parent).
    pub position: Vec3,
    /// Parent bone index, `-1` none.
    pub parent: i32,
    /// Deform layer (transform order): bones are evaluated by layer, then by index.
    pub layer: i32,
    /// Flags.
    pub flags: PmxBoneFlags,
    /// Tail (display end) of the bone.
    pub tail: PmxBoneTail,
    /// Append (inherit) source; rotation and/or translation per flags.
    pub append: Option<PmxAppend>,
    /// Fixed rotation axis, model space.
    pub fixed_axis: Option<Vec3>,
    /// Local axes.
    pub local_axes: Option<PmxLocalAxes>,
    /// External parent key.
    pub external_parent: Option<i32>,
    /// IK solver owned by this bone.
    pub ik: Option<PmxIk>,
}

/// A bone's tail.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PmxBoneTail {
    /// Offset from the bone's position, model space.
    Offset(Vec3),
    /// Another bone's index (`-1` none).
    Bone(i32),
}

/// Append (inherit / grant) source.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmxAppend {
    /// Source bone index.
    pub parent: i32,
    /// Ratio applied to the source's rotation / translation.
    pub ratio: f32,
}

/// Local axes of a bone, model space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmxLocalAxes {
    /// X axis.
    pub x: Vec3,
    /// Z axis.
    pub z: Vec3,
}

/// An IK solver.
#[derive(Debug, Clone, PartialEq)]
pub struct PmxIk {
    /// The effector: the bone that should reach the IK bone ("IK target" in the PMX spec).
    pub effector: i32,
    /// CCD iterations.
    pub loop_count: i32,
    /// Per-iteration rotation limit, radians.
    pub limit_angle: f32,
    /// Chain links, from the effector's parent towards the root.
    pub links: Vec<PmxIkLink>,
}

/// One IK link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmxIkLink {
    /// Bone index.
    pub bone: i32,
    /// Euler angle limits `(min, max)`, radians, when present.
    pub limit: Option<(Vec3, Vec3)>,
}
