//! The physics table from the file's rigid bodies and joints: shapes, modes, masks, the
//! unit scale.

use sinew::dynamics::{
    BodyMode, DynamicsError, Joint, JointDesc, Physics, RigidBody, RigidBodyDesc, Shape,
    SkeletonDynamicsBuilder,
};
use sinew::math::euler_xyz_from_quat;
use std::sync::Arc;

use super::{bone, mmd_euler_to_quat, MmdReaderOptions, ReadReport};
use crate::model::MmdModel;
use crate::pmx::{PhysicsMode, RigidShape};

/// Each file body's mode as MMD runtimes simulate it: a "physics + bone position" body
/// (`DynamicWithBonePosition`) jointed to a simulated body on its bone's parent is simulated
/// as a plain dynamic body (its bone takes the body's position too), as babylon-mmd's Bullet
/// physics resolves it, joint by joint in file order. (Only its chain's first body, hanging
/// from a bone that follows the animation, keeps the animated position.) With joints that
/// allow no translation the two modes barely differ; with translation freedom (ties and
/// skirts on translation springs) the chain hangs by that freedom.
pub(crate) fn resolved_modes(model: &MmdModel) -> Vec<PhysicsMode> {
    let mut modes: Vec<PhysicsMode> = model.rigid_bodies.iter().map(|r| r.mode).collect();
    let n = modes.len() as i64;
    let parent_of = |body: usize| {
        model.rigid_bodies[body]
            .bone
            .and_then(|b| model.bones().get(b).and_then(|bone| bone.parent))
    };
    for j in &model.joints {
        if !(0..n).contains(&j.body_a) || !(0..n).contains(&j.body_b) || j.body_a == j.body_b {
            continue;
        }
        let (a, b) = (j.body_a as usize, j.body_b as usize);
        let hangs_from = |child: usize, parent: usize| {
            parent_of(child).is_some_and(|p| Some(p) == model.rigid_bodies[parent].bone)
        };
        let with_bone = PhysicsMode::DynamicWithBonePosition;
        if modes[a] != PhysicsMode::FollowBone && modes[b] == with_bone {
            if hangs_from(b, a) {
                modes[b] = PhysicsMode::Dynamic;
            }
        } else if modes[b] != PhysicsMode::FollowBone && modes[a] == with_bone && hangs_from(a, b) {
            modes[a] = PhysicsMode::Dynamic;
        }
    }
    modes
}

/// Converts the rigid body and joint tables. A body or joint whose values the table refuses
/// (non-finite, an orientation that overflows) is left out with a note in `report`, joints on a
/// body left out with it, so a broken body never costs the model its bones.
///
/// # Errors
/// A [`DynamicsError`] when the table itself is refused (its unit scale).
pub fn read_physics(
    model: &MmdModel,
    builder: &mut SkeletonDynamicsBuilder,
    options: &MmdReaderOptions,
    report: &mut ReadReport,
) -> Result<(), DynamicsError> {
    let s = Arc::clone(builder.skeleton());
    let mut bodies = Vec::with_capacity(model.rigid_bodies.len());
    // Per file body: its index in the table (a body whose values the table refuses is left
    // out, and the joints on it with it).
    let mut table_index: Vec<Option<usize>> = Vec::with_capacity(model.rigid_bodies.len());
    let modes = resolved_modes(model);
    for (r, mode) in model.rigid_bodies.iter().zip(&modes) {
        if r.size.min_element() < 0.0 {
            report.notes.push(format!(
                "rigid body \"{}\": negative size {} read as its absolute value",
                r.name, r.size
            ));
        }
        let body = RigidBody::new(RigidBodyDesc {
            name: r.name.clone(),
            alias: String::new(),
            bone: r.bone.map(|b| bone(&s, b)),
            collision_group: r.group.min(63),
            // The file stores the groups a body collides with; the table holds the ones it
            // does not (MMD's 16 groups; groups 16..=63 do not exist in MMD files).
            non_collision_mask: u64::from(!r.collision_mask),
            shape: match r.shape {
                RigidShape::Sphere => Shape::Sphere,
                RigidShape::Box => Shape::Box,
                RigidShape::Capsule => Shape::Capsule,
            },
            size: r.size.abs(),
            position: r.position,
            rotation: euler_xyz_from_quat(mmd_euler_to_quat(r.rotation)),
            mass: r.mass,
            linear_damping: r.linear_damping,
            angular_damping: r.angular_damping,
            restitution: r.restitution,
            friction: r.friction,
            mode: match mode {
                PhysicsMode::FollowBone => BodyMode::Kinematic,
                PhysicsMode::Dynamic => BodyMode::Dynamic,
                PhysicsMode::DynamicWithBonePosition => BodyMode::DynamicRotation,
            },
        });
        match body {
            Ok(b) => {
                table_index.push(Some(bodies.len()));
                bodies.push(b);
            }
            Err(e) => {
                report
                    .notes
                    .push(format!("rigid body \"{}\": {e}; left out", r.name));
                table_index.push(None);
            }
        }
    }
    let mut joints = Vec::with_capacity(model.joints.len());
    let n = model.rigid_bodies.len() as i64;
    for j in &model.joints {
        if !(0..n).contains(&j.body_a) || !(0..n).contains(&j.body_b) || j.body_a == j.body_b {
            report.notes.push(format!(
                "joint \"{}\": bodies {} and {} are invalid or the same; left out",
                j.name, j.body_a, j.body_b
            ));
            continue;
        }
        let (Some(a), Some(b)) = (
            table_index[j.body_a as usize],
            table_index[j.body_b as usize],
        ) else {
            report.notes.push(format!(
                "joint \"{}\": a body of it was left out; left out",
                j.name
            ));
            continue;
        };
        let joint = Joint::new(JointDesc {
            name: j.name.clone(),
            alias: String::new(),
            body_a: a,
            body_b: b,
            position: j.position,
            rotation: euler_xyz_from_quat(mmd_euler_to_quat(j.rotation)),
            position_min: j.linear_lower,
            position_max: j.linear_upper,
            rotation_min: j.angular_lower,
            rotation_max: j.angular_upper,
            position_spring: j.spring_linear,
            rotation_spring: j.spring_angular,
        });
        match joint {
            Ok(joint) => joints.push(joint),
            Err(e) => report
                .notes
                .push(format!("joint \"{}\": {e}; left out", j.name)),
        }
    }
    builder.physics(Physics::new(
        bodies,
        joints,
        options.unit_scale,
        false,
        false,
        1.0,
        Vec::new(),
    )?);
    Ok(())
}
