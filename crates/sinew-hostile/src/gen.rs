//! Valid-but-hostile PMX models: files that parse, built from fuzz bytes, whose *content*
//! attacks what comes after the parser — parent and IK cycles, IK bones that target themselves
//! or each other, links that are not ancestors of their effector, append cycles, fixed axes of
//! zero length, non-finite or enormous numbers, bodies on missing or shared bones, overlapping
//! bodies, joints naming missing bodies.
//!
//! Every choice is drawn from an [`arbitrary::Unstructured`], so a fuzzer's mutations of its
//! bytes move through the space of models (structured fuzzing), and a seeded byte buffer gives
//! a reproducible model for tests and corpora.

use arbitrary::{Result, Unstructured};
use glam::{Vec2, Vec3, Vec4};
use sinew_mmd::pmx::{
    PhysicsMode, Pmx, PmxAppend, PmxBone, PmxBoneFlags, PmxBoneTail, PmxDeform, PmxGlobals, PmxIk,
    PmxIkLink, PmxJoint, PmxJointKind, PmxRigidBody, PmxVertex, RigidShape,
};

/// Bounds of a generated model.
#[derive(Clone, Copy, Debug)]
pub struct GenLimits {
    /// Most bones.
    pub bones: usize,
    /// Most rigid bodies.
    pub bodies: usize,
    /// Most joints.
    pub joints: usize,
    /// Most links per IK chain.
    pub links: usize,
}

impl Default for GenLimits {
    /// Small enough to evaluate many per second, large enough for every interaction.
    fn default() -> Self {
        Self {
            bones: 48,
            bodies: 24,
            joints: 24,
            links: 8,
        }
    }
}

/// Names drawn for bones: a few repeat (duplicate names), some are ones MMD treats specially.
const NAMES: [&str; 12] = [
    "センター",
    "左足",
    "左ひざ",
    "左足首",
    "左足ＩＫ",
    "右足ＩＫ",
    "頭",
    "髪",
    "",
    "bone",
    "左足D",
    "ネクタイ",
];

thread_local! {
    /// Out of 256: how often a float is wild (zero, tiny, huge, infinite or NaN). Drawn once per
    /// model, so most models stay loadable and some are wild throughout.
    static WILD: std::cell::Cell<u8> = const { std::cell::Cell::new(8) };
}

/// A float: mostly ordinary, sometimes (per the model's wildness) zero, tiny, huge, infinite
/// or NaN.
fn float(u: &mut Unstructured, scale: f32) -> Result<f32> {
    if u.int_in_range(0u8..=255)? < WILD.with(std::cell::Cell::get) {
        return Ok(*u.choose(&[0.0, -1.0, f32::NAN, f32::INFINITY, -1e30, 1e-30, f32::MAX])?);
    }
    Ok((f32::from(u.int_in_range(0u16..=2000)?) / 1000.0 - 1.0) * scale)
}

fn vec3(u: &mut Unstructured, scale: f32) -> Result<Vec3> {
    Ok(Vec3::new(
        float(u, scale)?,
        float(u, scale)?,
        float(u, scale)?,
    ))
}

/// A bone index: mostly in range, sometimes −1, out of range or far out.
fn bone_index(u: &mut Unstructured, n: usize) -> Result<i32> {
    Ok(match u.int_in_range(0u8..=15)? {
        0 => -1,
        1 => n as i32,
        2 => i32::MAX,
        3 => -7,
        _ => u.int_in_range(0..=n.saturating_sub(1))? as i32,
    })
}

fn bone(u: &mut Unstructured, i: usize, n: usize, limits: &GenLimits) -> Result<PmxBone> {
    // Mostly a tree (parent before child), sometimes a forward, self or random parent.
    let parent = match u.int_in_range(0u8..=9)? {
        0 => bone_index(u, n)?,
        1 => i as i32,
        _ if i == 0 => -1,
        _ => u.int_in_range(0..=i - 1)? as i32,
    };
    let mut flags = PmxBoneFlags(PmxBoneFlags::ROTATABLE | PmxBoneFlags::VISIBLE);
    for bit in [
        PmxBoneFlags::MOVABLE,
        PmxBoneFlags::IK,
        PmxBoneFlags::LOCAL_APPEND,
        PmxBoneFlags::APPEND_ROTATE,
        PmxBoneFlags::APPEND_TRANSLATE,
        PmxBoneFlags::FIXED_AXIS,
        PmxBoneFlags::AFTER_PHYSICS,
    ] {
        flags = flags.with(bit, u.ratio(1u8, 5)?);
    }
    let append = if flags.append_rotate() || flags.append_translate() {
        Some(PmxAppend {
            parent: bone_index(u, n)?,
            ratio: float(u, 2.0)?,
        })
    } else {
        None
    };
    let fixed_axis = if flags.fixed_axis() {
        Some(vec3(u, 1.0)?)
    } else {
        None
    };
    let ik = if flags.ik() {
        let count = u.int_in_range(0..=limits.links)?;
        let mut links = Vec::with_capacity(count);
        for _ in 0..count {
            let limit = if u.arbitrary()? {
                Some((vec3(u, 3.2)?, vec3(u, 3.2)?))
            } else {
                None
            };
            links.push(PmxIkLink {
                bone: bone_index(u, n)?,
                limit,
            });
        }
        Some(PmxIk {
            effector: bone_index(u, n)?,
            loop_count: u.int_in_range(-5..=400)?,
            limit_angle: float(u, 2.0)?,
            links,
        })
    } else {
        None
    };
    Ok(PmxBone {
        name: (*u.choose(&NAMES)?).to_owned(),
        name_en: String::new(),
        position: vec3(u, 20.0)?,
        parent,
        layer: u.int_in_range(-2..=3)?,
        flags,
        tail: PmxBoneTail::Offset(vec3(u, 2.0)?),
        append,
        fixed_axis,
        local_axes: None,
        external_parent: None,
        ik,
    })
}

fn body(u: &mut Unstructured, n: usize, stacked: bool) -> Result<PmxRigidBody> {
    Ok(PmxRigidBody {
        name: format!("body{}", u.int_in_range(0u8..=9)?),
        name_en: String::new(),
        bone: bone_index(u, n)?,
        group: u.int_in_range(0u8..=15)?,
        no_collision_mask: u.arbitrary()?,
        shape: *u.choose(&[RigidShape::Sphere, RigidShape::Box, RigidShape::Capsule])?,
        size: vec3(u, 3.0)?.abs(),
        // Stacked bodies all start in one place (every pair overlaps).
        position: if stacked { Vec3::ZERO } else { vec3(u, 20.0)? },
        rotation: vec3(u, 3.2)?,
        mass: float(u, 5.0)?.abs(),
        linear_damping: float(u, 1.0)?.abs(),
        angular_damping: float(u, 1.0)?.abs(),
        restitution: float(u, 1.0)?.abs(),
        friction: float(u, 1.0)?.abs(),
        mode: *u.choose(&[
            PhysicsMode::FollowBone,
            PhysicsMode::Dynamic,
            PhysicsMode::DynamicWithBonePosition,
        ])?,
    })
}

fn joint(u: &mut Unstructured, bodies: usize) -> Result<PmxJoint> {
    let body_index = |u: &mut Unstructured| -> Result<i32> {
        Ok(if u.ratio(1u8, 8)? {
            bone_index(u, bodies)?
        } else {
            u.int_in_range(0..=bodies.saturating_sub(1))? as i32
        })
    };
    Ok(PmxJoint {
        name: "joint".to_owned(),
        name_en: String::new(),
        kind: PmxJointKind::Spring6Dof,
        body_a: body_index(u)?,
        body_b: body_index(u)?,
        position: vec3(u, 20.0)?,
        rotation: vec3(u, 3.2)?,
        linear_lower: vec3(u, 2.0)?,
        linear_upper: vec3(u, 2.0)?,
        angular_lower: vec3(u, 3.2)?,
        angular_upper: vec3(u, 3.2)?,
        spring_linear: vec3(u, 100.0)?,
        spring_angular: vec3(u, 100.0)?,
    })
}

/// A PMX 2.0 model whose every part is drawn from `u` within `limits`. It always writes and
/// parses back; what it contains is anything a file can say.
///
/// # Errors
/// Only [`arbitrary::Error`] from `u` (never when `u` runs out of bytes: missing bytes read as
/// zeros).
pub fn pmx(u: &mut Unstructured, limits: &GenLimits) -> Result<Pmx> {
    let wild = *u.choose(&[0u8, 0, 1, 2, 8, 64])?;
    WILD.with(|w| w.set(wild));
    let n = u.int_in_range(1..=limits.bones.max(1))?;
    let mut bones = Vec::with_capacity(n);
    for i in 0..n {
        bones.push(bone(u, i, n, limits)?);
    }
    let body_count = u.int_in_range(0..=limits.bodies)?;
    let stacked = u.ratio(1u8, 6)?;
    let mut rigid_bodies = Vec::with_capacity(body_count);
    for _ in 0..body_count {
        rigid_bodies.push(body(u, n, stacked)?);
    }
    let joint_count = if body_count == 0 {
        0
    } else {
        u.int_in_range(0..=limits.joints)?
    };
    let mut joints = Vec::with_capacity(joint_count);
    for _ in 0..joint_count {
        joints.push(joint(u, body_count)?);
    }
    // One triangle weighted to the first bones, so skinning-minded readers see a mesh.
    let vertices = (0..3)
        .map(|k| PmxVertex {
            position: Vec3::new(k as f32, 1.0, 0.0),
            normal: Vec3::Y,
            uv: Vec2::ZERO,
            additional_uvs: [Vec4::ZERO; 4],
            deform: PmxDeform::Bdef1 {
                bone: (k % n) as i32,
            },
            edge_scale: 1.0,
        })
        .collect();
    Ok(Pmx {
        version: 2.0,
        globals: PmxGlobals::default(),
        extra_globals: Vec::new(),
        name: "hostile".to_owned(),
        name_en: String::new(),
        comment: String::new(),
        comment_en: String::new(),
        vertices,
        indices: vec![0, 1, 2],
        textures: Vec::new(),
        materials: Vec::new(),
        bones,
        morphs: Vec::new(),
        display_frames: Vec::new(),
        rigid_bodies,
        joints,
        soft_bodies: Vec::new(),
    })
}

/// A chain of `n` bones, each the parent of the next (deep hierarchies: recursion and
/// quadratic-time checks show up here).
#[must_use]
pub fn chain(n: usize) -> Pmx {
    let mut u = Unstructured::new(&[]);
    let mut model = pmx(&mut u, &GenLimits::default()).expect("empty input draws defaults");
    model.bones = (0..n)
        .map(|i| PmxBone {
            name: format!("b{i}"),
            name_en: String::new(),
            position: Vec3::new(0.0, i as f32 * 0.01, 0.0),
            parent: i as i32 - 1,
            layer: 0,
            flags: PmxBoneFlags(PmxBoneFlags::ROTATABLE | PmxBoneFlags::VISIBLE),
            tail: PmxBoneTail::Offset(Vec3::ZERO),
            append: None,
            fixed_axis: None,
            local_axes: None,
            external_parent: None,
            ik: None,
        })
        .collect();
    model
}

/// `count` bodies, all boxes at the origin on bone 0, colliding with one another: every pair
/// overlaps (the contact-pair bound's case).
#[must_use]
pub fn stacked_bodies(count: usize) -> Pmx {
    let mut model = chain(2);
    model.rigid_bodies = (0..count)
        .map(|i| PmxRigidBody {
            name: format!("body{i}"),
            name_en: String::new(),
            bone: 1,
            group: 0,
            no_collision_mask: 0,
            shape: RigidShape::Box,
            size: Vec3::ONE,
            position: Vec3::ZERO,
            rotation: Vec3::ZERO,
            mass: 1.0,
            linear_damping: 0.5,
            angular_damping: 0.5,
            restitution: 0.0,
            friction: 0.5,
            mode: if i == 0 {
                PhysicsMode::FollowBone
            } else {
                PhysicsMode::Dynamic
            },
        })
        .collect();
    model
}
