//! Physics candidates for glTF skeletons (a `sinew_physics::Profile` enables them).

use glam::{Quat, Vec3};
use sinew::dynamics::{
    BodyMode, DynamicsError, Physics, RigidBody, RigidBodyDesc, Shape, SkeletonDynamicsBuilder,
    SkeletonDynamicsReader,
};
use sinew::math::euler_xyz_from_quat;
use sinew::{BoneId, Skeleton};

use crate::GltfModel;

/// Capsule radius of a generated candidate as a fraction of its bone length (before the
/// profile's radius scale).
pub const RADIUS_FRACTION: f32 = 0.2;

/// Bones shorter than this (in model units) get no candidate: their capsule would be
/// degenerate.
pub const MIN_BONE_LENGTH: f32 = 1e-6;

/// Bone names that say a chain hangs loose (matched case-insensitively against the words of a
/// bone's name, `Hair_L2` → hair, `ponyTail01` → pony, tail; plurals too): what
/// [`loose_chain_roots`] looks for.
pub const LOOSE_CHAIN_NAMES: [&str; 10] = [
    "hair", "tail", "skirt", "cape", "ear", "tie", "ribbon", "tassel", "ponytail", "chain",
];

/// The words of a bone name, lower-cased: split at anything not a letter and where a capital
/// follows a small letter (`b_LeftForeArm_010` → b, left, fore, arm).
fn name_words(name: &str) -> impl Iterator<Item = String> + '_ {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for ch in name.chars() {
        if !ch.is_alphabetic() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if ch.is_uppercase() && prev_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        prev_lower = ch.is_lowercase();
        word.extend(ch.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words.into_iter()
}

/// The topmost bones whose names say they hang loose (a word of the name is one of
/// [`LOOSE_CHAIN_NAMES`], or its plural), in skeleton order: the roots of the subtrees a
/// character's physics simulates by default on a glTF model.
#[must_use]
pub fn loose_chain_roots(skeleton: &Skeleton) -> Vec<BoneId> {
    let loose = |bone: BoneId| {
        name_words(skeleton.name(bone)).any(|w| {
            LOOSE_CHAIN_NAMES
                .iter()
                .any(|k| w == *k || w.strip_suffix('s') == Some(k))
        })
    };
    (skeleton.bones())
        .filter(|&b| loose(b) && !skeleton.parent(b).is_some_and(loose))
        .collect()
}

/// One generated physics candidate: a capsule along a skin bone.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// Candidate index: the index of its body in the candidate table, and what a profile
    /// (`sinew_physics::Profile`) refers to.
    pub index: usize,
    /// The bone's node.
    pub node: usize,
    /// The bone the capsule follows.
    pub bone: BoneId,
    /// The child bone that sets the capsule's length and direction.
    pub child: BoneId,
    /// Bone length: rest distance from the bone's origin to the child's, model units.
    pub length: f32,
}

/// Reads a [`GltfModel`] into physics **candidates**:
///
/// * candidates in node order: one capsule per skin joint that has a child bone (the child
///   with the lowest node index, skin joints preferred), from the bone's rest origin to the
///   child's, radius `length × 0.2` ([`RADIUS_FRACTION`]), cylinder height
///   `max(length − 2·radius, 0)` so the capsule spans the bone, centred on the bone's midpoint
///   and oriented with its local Y along the bone; kinematic, mass 1, group 0, no collision
///   mask; bodies are named after their bones;
/// * the table has `profile_required = true` (it cannot be enabled without a profile,
///   `sinew_physics::Profile`, which picks bodies and modes and may add joints),
///   `affine_writeback = true`, unit scale 1, radius scale 1, every skin joint as a bind-pose
///   follower, and no joints;
/// * no IK chain is guessed or created.
///
/// Bones are resolved by name in the builder's skeleton, so the builder may hold the model's
/// skeleton or any skeleton with the same bone names.
#[derive(Clone, Copy, Debug, Default)]
pub struct GltfSkeletonDynamicsReader;

impl GltfSkeletonDynamicsReader {
    /// The candidates of `model`, in node order.
    #[must_use]
    pub fn candidates(model: &GltfModel) -> Vec<Candidate> {
        let s = model.skeleton();
        let rw = s.rest_world();
        let mut is_joint = vec![false; s.len()];
        for skin in &model.skins {
            for &b in &skin.bones {
                is_joint[b.index()] = true;
            }
        }
        let mut out = Vec::new();
        for (node, bone) in model.node_to_bone.iter().enumerate() {
            let Some(bone) = *bone else { continue };
            if !is_joint[bone.index()] {
                continue;
            }
            let child = s
                .children(bone)
                .iter()
                .copied()
                .min_by_key(|c| (!is_joint[c.index()], model.bone_to_node[c.index()]));
            let Some(child) = child else { continue };
            let head = Vec3::from(rw[bone.index()].translation);
            let tail = Vec3::from(rw[child.index()].translation);
            let length = head.distance(tail);
            if length.is_nan() || length < MIN_BONE_LENGTH {
                continue;
            }
            out.push(Candidate {
                index: out.len(),
                node,
                bone,
                child,
                length,
            });
        }
        out
    }

    /// The candidate physics table of `model`, with bones resolved in `skeleton`'s names via
    /// `resolve` (see the type docs for its contents).
    fn table(
        model: &GltfModel,
        resolve: impl Fn(&str) -> Result<BoneId, DynamicsError>,
    ) -> Result<Physics, DynamicsError> {
        let s = model.skeleton();
        let rw = s.rest_world();
        let mut bodies = Vec::new();
        for c in Self::candidates(model) {
            let head = Vec3::from(rw[c.bone.index()].translation);
            let tail = Vec3::from(rw[c.child.index()].translation);
            let dir = (tail - head) / c.length;
            let radius = c.length * RADIUS_FRACTION;
            let rotation = Quat::from_rotation_arc(Vec3::Y, dir);
            let name = s.name(c.bone);
            bodies.push(RigidBody::new(RigidBodyDesc {
                name: name.to_owned(),
                alias: format!("node_{}", c.node),
                bone: Some(resolve(name)?),
                shape: Shape::Capsule,
                size: Vec3::new(radius, (c.length - 2.0 * radius).max(0.0), radius),
                position: (head + tail) * 0.5,
                rotation: euler_xyz_from_quat(rotation),
                mass: 1.0,
                mode: BodyMode::Kinematic,
                ..RigidBodyDesc::default()
            })?);
        }
        let mut followers = Vec::new();
        for skin in &model.skins {
            for &b in &skin.bones {
                followers.push(resolve(s.name(b))?);
            }
        }
        Physics::new(bodies, Vec::new(), Vec3::ONE, true, true, 1.0, followers)
    }

    /// The candidate physics table of `model` against its own skeleton.
    ///
    /// # Errors
    /// A [`DynamicsError`] if a generated body is invalid (non-finite rest pose).
    pub fn candidate_table(model: &GltfModel) -> Result<Physics, DynamicsError> {
        let s = model.skeleton();
        Self::table(model, |n| {
            s.find(n)
                .ok_or_else(|| DynamicsError::UnknownBone { name: n.to_owned() })
        })
    }
}

impl SkeletonDynamicsReader<GltfModel> for GltfSkeletonDynamicsReader {
    fn read(
        &self,
        source: &GltfModel,
        builder: &mut SkeletonDynamicsBuilder,
    ) -> Result<(), DynamicsError> {
        let physics = Self::table(source, |n| builder.bone(n))?;
        builder.physics(physics);
        Ok(())
    }
}

#[cfg(test)]
mod name_tests {
    use super::name_words;

    #[test]
    fn bone_names_split_into_words() {
        let words = |n: &str| name_words(n).collect::<Vec<_>>();
        assert_eq!(words("b_LeftForeArm_010"), ["b", "left", "fore", "arm"]);
        assert_eq!(words("ponyTail01"), ["pony", "tail"]);
        assert_eq!(words("HAIR_L2"), ["hair", "l"]);
        assert_eq!(words("髪_1"), ["髪"]);
        assert!(words("").is_empty());
    }
}
