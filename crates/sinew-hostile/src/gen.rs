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

/// The source of every choice: fuzz bytes, and how wild this model's floats are.
struct Draw<'a, 'b> {
    u: &'a mut Unstructured<'b>,
    /// Out of 256: how often a float is wild (zero, −1, tiny, huge, infinite or NaN). Drawn once
    /// per model, so most models stay loadable and some are wild throughout.
    wild: u8,
}

impl Draw<'_, '_> {
    /// A float: mostly ordinary within ±`scale`, sometimes (per the model's wildness) a value
    /// that breaks naive arithmetic.
    fn float(&mut self, scale: f32) -> Result<f32> {
        if self.u.int_in_range(0u8..=255)? < self.wild {
            return Ok(*self.u.choose(&[
                0.0,
                -1.0,
                f32::NAN,
                f32::INFINITY,
                -1e30,
                1e-30,
                f32::MAX,
            ])?);
        }
        Ok((f32::from(self.u.int_in_range(0u16..=2000)?) / 1000.0 - 1.0) * scale)
    }

    fn vec3(&mut self, scale: f32) -> Result<Vec3> {
        Ok(Vec3::new(
            self.float(scale)?,
            self.float(scale)?,
            self.float(scale)?,
        ))
    }

    /// An index into `n` items: mostly in range, sometimes −1, out of range or far out.
    fn index(&mut self, n: usize) -> Result<i32> {
        Ok(match self.u.int_in_range(0u8..=15)? {
            0 => -1,
            1 => n as i32,
            2 => i32::MAX,
            3 => -7,
            _ => self.u.int_in_range(0..=n.saturating_sub(1))? as i32,
        })
    }
}

fn bone(d: &mut Draw, i: usize, n: usize, limits: &GenLimits) -> Result<PmxBone> {
    // Mostly a tree (parent before child), sometimes a forward, self or random parent.
    let parent = match d.u.int_in_range(0u8..=9)? {
        0 => d.index(n)?,
        1 => i as i32,
        _ if i == 0 => -1,
        _ => d.u.int_in_range(0..=i - 1)? as i32,
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
        flags = flags.with(bit, d.u.ratio(1u8, 5)?);
    }
    let append = if flags.append_rotate() || flags.append_translate() {
        Some(PmxAppend {
            parent: d.index(n)?,
            ratio: d.float(2.0)?,
        })
    } else {
        None
    };
    let fixed_axis = if flags.fixed_axis() {
        Some(d.vec3(1.0)?)
    } else {
        None
    };
    let ik = if flags.ik() {
        let count = d.u.int_in_range(0..=limits.links)?;
        let mut links = Vec::with_capacity(count);
        for _ in 0..count {
            let limit = if d.u.arbitrary()? {
                Some((d.vec3(3.2)?, d.vec3(3.2)?))
            } else {
                None
            };
            links.push(PmxIkLink {
                bone: d.index(n)?,
                limit,
            });
        }
        Some(PmxIk {
            effector: d.index(n)?,
            loop_count: d.u.int_in_range(-5..=400)?,
            limit_angle: d.float(2.0)?,
            links,
        })
    } else {
        None
    };
    Ok(PmxBone {
        name: (*d.u.choose(&NAMES)?).to_owned(),
        name_en: String::new(),
        position: d.vec3(20.0)?,
        parent,
        layer: d.u.int_in_range(-2..=3)?,
        flags,
        tail: PmxBoneTail::Offset(d.vec3(2.0)?),
        append,
        fixed_axis,
        local_axes: None,
        external_parent: None,
        ik,
    })
}

fn body(d: &mut Draw, n: usize, stacked: bool) -> Result<PmxRigidBody> {
    Ok(PmxRigidBody {
        name: format!("body{}", d.u.int_in_range(0u8..=9)?),
        name_en: String::new(),
        bone: d.index(n)?,
        group: d.u.int_in_range(0u8..=15)?,
        collision_mask: d.u.arbitrary()?,
        shape: *d
            .u
            .choose(&[RigidShape::Sphere, RigidShape::Box, RigidShape::Capsule])?,
        size: d.vec3(3.0)?.abs(),
        // Stacked bodies all start in one place (every pair overlaps).
        position: if stacked { Vec3::ZERO } else { d.vec3(20.0)? },
        rotation: d.vec3(3.2)?,
        mass: d.float(5.0)?.abs(),
        linear_damping: d.float(1.0)?.abs(),
        angular_damping: d.float(1.0)?.abs(),
        restitution: d.float(1.0)?.abs(),
        friction: d.float(1.0)?.abs(),
        mode: *d.u.choose(&[
            PhysicsMode::FollowBone,
            PhysicsMode::Dynamic,
            PhysicsMode::DynamicWithBonePosition,
        ])?,
    })
}

fn joint(d: &mut Draw, bodies: usize) -> Result<PmxJoint> {
    let body_index = |d: &mut Draw| -> Result<i32> {
        Ok(if d.u.ratio(1u8, 8)? {
            d.index(bodies)?
        } else {
            d.u.int_in_range(0..=bodies.saturating_sub(1))? as i32
        })
    };
    Ok(PmxJoint {
        name: "joint".to_owned(),
        name_en: String::new(),
        kind: PmxJointKind::Spring6Dof,
        body_a: body_index(d)?,
        body_b: body_index(d)?,
        position: d.vec3(20.0)?,
        rotation: d.vec3(3.2)?,
        linear_lower: d.vec3(2.0)?,
        linear_upper: d.vec3(2.0)?,
        angular_lower: d.vec3(3.2)?,
        angular_upper: d.vec3(3.2)?,
        spring_linear: d.vec3(100.0)?,
        spring_angular: d.vec3(100.0)?,
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
    let d = &mut Draw { u, wild };
    let n = d.u.int_in_range(1..=limits.bones.max(1))?;
    let mut bones = Vec::with_capacity(n);
    for i in 0..n {
        bones.push(bone(d, i, n, limits)?);
    }
    let body_count = d.u.int_in_range(0..=limits.bodies)?;
    let stacked = d.u.ratio(1u8, 6)?;
    let mut rigid_bodies = Vec::with_capacity(body_count);
    for _ in 0..body_count {
        rigid_bodies.push(body(d, n, stacked)?);
    }
    let joint_count = if body_count == 0 {
        0
    } else {
        d.u.int_in_range(0..=limits.joints)?
    };
    let mut joints = Vec::with_capacity(joint_count);
    for _ in 0..joint_count {
        joints.push(joint(d, body_count)?);
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
            collision_mask: 0xFFFF,
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

/// `count` generated models from a seed, as `(case, model)`: case `k` is [`pmx`] drawn from the
/// `k`-th 4 KiB block of a [`SmallRng`](rand::rngs::SmallRng) stream seeded with `seed`, so a
/// case number names one model for good.
pub fn seeded(seed: u64, count: usize, limits: GenLimits) -> impl Iterator<Item = (usize, Pmx)> {
    use rand::SeedableRng;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    (0..count).map(move |case| {
        let mut raw = vec![0u8; 4096];
        rand::Rng::fill_bytes(&mut rng, &mut raw);
        let model = pmx(&mut Unstructured::new(&raw), &limits).expect("any bytes draw a model");
        (case, model)
    })
}
