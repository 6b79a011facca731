//! Physics through either evaluation of the generic `SkeletonInstance`: generated models with
//! rigid bodies and joints, a pose per frame, one 1/60 s step per frame, run bone by bone
//! (`MmdInstance::set_bone_by_bone`: before-physics pass → step → after-physics pass) and in
//! stages (`MmdSkeletonInstance::with_evaluation(.., false)`: evaluate → physics → world back).
//! Models without a `GenericGap` under physics (plain after-physics bones included) give the
//! same world matrices over the first steps (later ones drift apart as any chaotic simulation
//! from inputs that differ in the last bit); models whose after-physics bones read more than
//! their parent are the gap that tells them apart.

use std::sync::Arc;

use glam::{Affine3A, Vec3};
use sinew::{SkeletonInstance, Transform};
use sinew_hostile::gen::{self, GenLimits};
use sinew_hostile::wave_pose;
use sinew_mmd::{
    EvalOptions, GenericGap, MmdInstance, MmdModel, MmdReaderOptions, MmdSkeletonInstance,
};
use sinew_physics::{PhysicsOptions, Ragdoll};

/// Steps compared per model.
const FRAMES: u32 = 2;
/// The pose of `frame` ([`wave_pose`]).
fn pose(inst: &mut MmdInstance, frame: u32) {
    wave_pose(inst, (frame as f32 + 1.0) * 0.1);
}

/// The physics of a model as the tools build it (MMD units: gravity −98).
fn physics(model: &MmdModel) -> Option<(SkeletonInstance, Ragdoll)> {
    let (m, _) = model.to_physics_model(&MmdReaderOptions::default()).ok()?;
    let options = PhysicsOptions {
        teleport_distance: 20.0,
        ..PhysicsOptions::default()
    };
    let mut ragdoll = Ragdoll::new(&m, options).ok()?;
    ragdoll.set_gravity(Vec3::new(0.0, -98.0, 0.0));
    Some((SkeletonInstance::new(&m), ragdoll))
}

/// One 1/60 s physics step from `locals`: the step's world matrices (skeleton order), `None`
/// when it fails.
fn step<'a>(
    body: &'a mut SkeletonInstance,
    ragdoll: &mut Ragdoll,
    locals: &[Transform],
    time: f32,
) -> Option<&'a [Affine3A]> {
    body.input_mut().copy_from_slice(locals);
    ragdoll
        .evaluate_physics_frame(body, time, 1.0 / 60.0)
        .ok()?;
    Some(body.world())
}

/// Largest difference of matching world matrices (translation relative to its size, axes).
fn difference(a: &[Affine3A], b: &[Affine3A]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            ((x.translation - y.translation).length() / (1.0 + x.translation.length()))
                .max((x.matrix3.x_axis - y.matrix3.x_axis).length())
                .max((x.matrix3.y_axis - y.matrix3.y_axis).length())
        })
        .fold(0.0, f32::max)
}

/// The worst difference over [`FRAMES`] steps, `None` when the model is refused or a step
/// fails or goes non-finite (hostile numbers: other tests cover those).
fn worst_difference(model: &Arc<MmdModel>) -> Option<f32> {
    let (mut body_a, mut ragdoll_a) = physics(model)?;
    let (mut body_b, mut ragdoll_b) = physics(model)?;
    let mut generic =
        MmdSkeletonInstance::with_evaluation(Arc::clone(model), EvalOptions::default(), false)
            .ok()?;
    let mut inst = MmdInstance::new(Arc::clone(model));
    inst.set_bone_by_bone(true);
    inst.set_physics_active(true);
    let mut locals = vec![Transform::IDENTITY; model.skeleton().len()];
    let mut worst = 0.0f32;
    for frame in 0..FRAMES {
        let time = frame as f32 / 60.0;
        pose(&mut inst, frame);
        generic.evaluate(&inst);
        inst.evaluate_before_physics(EvalOptions::default());
        inst.write_locals(&mut locals);
        inst.set_world_from_skeleton_order(step(&mut body_a, &mut ragdoll_a, &locals, time)?);
        inst.evaluate_after_physics();
        generic.write_locals(&mut locals);
        generic.set_world_from_skeleton_order(step(&mut body_b, &mut ragdoll_b, &locals, time)?);
        generic.evaluate_after_physics();
        if inst
            .world()
            .iter()
            .chain(generic.world())
            .any(|m| !m.is_finite())
        {
            return None;
        }
        worst = worst.max(difference(inst.world(), generic.world()));
    }
    Some(worst)
}

#[test]
fn physics_runs_alike_through_both_runtimes_without_gaps() {
    let limits = GenLimits {
        bones: 12,
        bodies: 6,
        joints: 6,
        links: 3,
    };
    let (mut compared, mut plain_after, mut after_gap, mut after_told_apart) = (0, 0, 0, 0);
    let mut worst = 0.0f32;
    for (case, pmx) in gen::seeded(3, 400, limits) {
        let Ok(model) = MmdModel::from_bytes(&pmx.to_bytes()) else {
            continue;
        };
        if model.rigid_bodies().is_empty() {
            continue;
        }
        let model = Arc::new(model);
        let Some(d) = worst_difference(&model) else {
            continue;
        };
        let gaps = model.generic_gaps(true);
        if gaps.is_empty() {
            assert!(d < 1e-5, "case {case}: {d}");
            worst = worst.max(d);
            compared += 1;
            plain_after += usize::from(model.bones().iter().any(|b| b.after_physics));
        } else if gaps
            .iter()
            .all(|g| matches!(g, GenericGap::AfterPhysics { .. }))
        {
            after_gap += 1;
            after_told_apart += usize::from(d > 1e-3);
        }
    }
    println!(
        "{compared} models without gaps under physics ({plain_after} with plain after-physics \
         bones): worst {worst:.2e}; {after_gap} whose only gaps are after-physics bones \
         ({after_told_apart} differ)"
    );
    assert!(
        compared >= 60 && plain_after >= 15,
        "{compared} / {plain_after}"
    );
    assert!(after_told_apart >= 10, "{after_told_apart}");
}
