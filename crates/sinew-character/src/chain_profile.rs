//! The physics profile that hangs a glTF character's loose chains (hair, tails, skirts) under
//! physics: which candidate bodies are dynamic, their kinematic anchors and the joints.

use glam::Vec3;
use sinew::BoneId;
use sinew_gltf::{loose_chain_roots, LOOSE_CHAIN_NAMES};

use crate::{CharacterError, CharacterModel};

/// Half-range of each rotation axis of the joints [`chain_profile`] adds, radians (30°).
pub const CHAIN_JOINT_LIMIT: f32 = std::f32::consts::FRAC_PI_6;

/// A profile over a candidate table (a glTF reader's) that hangs the subtrees of `roots` under
/// physics: every candidate body on a bone of those subtrees becomes dynamic, jointed (each
/// rotation axis within ±[`CHAIN_JOINT_LIMIT`], no translation) at its bone's origin to the
/// body of its nearest ancestor bone that has one, which is added as a kinematic anchor when
/// it is outside the subtrees. With `roots` empty, the subtrees are the topmost bones whose
/// names say they hang loose ([`loose_chain_roots`]).
///
/// # Errors
/// [`CharacterError::Unknown`] for a root that is not a bone; [`CharacterError::Profile`] when
/// no candidate body lies in the subtrees (or, by default, no bone is named so).
pub fn chain_profile(
    model: &CharacterModel,
    roots: &[String],
) -> Result<sinew_physics::Profile, CharacterError> {
    use sinew::dynamics::{BodyMode, Joint, JointDesc};
    let skeleton = model.skeleton();
    let table = model.model().dynamics().physics();
    let n = skeleton.len();
    let mut body_of_bone: Vec<Option<usize>> = vec![None; n];
    for (i, b) in table.bodies().iter().enumerate() {
        if let Some(bone) = b.bone().filter(|b| b.index() < n) {
            body_of_bone[bone.index()].get_or_insert(i);
        }
    }
    let roots: Vec<BoneId> = if roots.is_empty() {
        loose_chain_roots(skeleton)
    } else {
        (roots.iter())
            .map(|r| {
                skeleton.find(r).ok_or_else(|| CharacterError::Unknown {
                    what: "bone",
                    name: r.clone(),
                })
            })
            .collect::<Result<_, _>>()?
    };
    let mut in_chain = vec![false; n];
    for r in &roots {
        for flag in &mut in_chain[r.index()..skeleton.subtree_end(*r)] {
            *flag = true;
        }
    }
    let mut profile = sinew_physics::Profile::default();
    let mut listed = vec![false; table.bodies().len()];
    let rest = skeleton.rest_world();
    for b in skeleton.bones() {
        let Some(body) = body_of_bone[b.index()].filter(|_| in_chain[b.index()]) else {
            continue;
        };
        profile = profile.body(body, Some(BodyMode::Dynamic));
        listed[body] = true;
        let mut up = skeleton.parent(b);
        while let Some(p) = up {
            if let Some(anchor) = body_of_bone[p.index()] {
                if !listed[anchor] {
                    profile = profile.body(anchor, Some(BodyMode::Kinematic));
                    listed[anchor] = true;
                }
                let limit = Vec3::splat(CHAIN_JOINT_LIMIT);
                profile = profile.joint(Joint::new(JointDesc {
                    name: format!("{} joint", skeleton.name(b)),
                    alias: String::new(),
                    body_a: anchor,
                    body_b: body,
                    position: Vec3::from(rest[b.index()].translation),
                    rotation: Vec3::ZERO,
                    position_min: Vec3::ZERO,
                    position_max: Vec3::ZERO,
                    rotation_min: -limit,
                    rotation_max: limit,
                    position_spring: Vec3::ZERO,
                    rotation_spring: Vec3::ZERO,
                })?);
                break;
            }
            up = skeleton.parent(p);
        }
    }
    if !profile
        .bodies
        .iter()
        .any(|e| e.mode == Some(BodyMode::Dynamic))
    {
        return Err(CharacterError::Profile(if roots.is_empty() {
            format!(
                "no bone is named like a loose chain ({}); name the subtrees to simulate",
                LOOSE_CHAIN_NAMES.join(", ")
            )
        } else {
            "no physics candidate lies in the named subtrees".to_owned()
        }));
    }
    Ok(profile)
}
