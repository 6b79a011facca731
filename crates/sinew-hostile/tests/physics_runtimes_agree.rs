//! Physics through either evaluation: generated models with rigid bodies and joints as
//! characters with physics on, a pose per frame, one 1/60 s step per frame, run bone by bone
//! (before-physics pass → step → after-physics pass) and in stages (evaluate → step, world
//! writeback).
//! Models without a `StagedGap` under physics (plain after-physics bones included) give the
//! same world matrices over the first steps (later ones drift apart as any chaotic simulation
//! from inputs that differ in the last bit); models whose after-physics bones read more than
//! their parent are the gap that tells them apart.

use std::sync::Arc;

use glam::Affine3A;
use sinew_character::{Character, CharacterModel};
use sinew_hostile::gen::{self, GenLimits};
use sinew_hostile::wave_motion;
use sinew_mmd::{MmdModel, MmdOrder, StagedGap};

/// Steps compared per model.
const FRAMES: u32 = 2;

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
    let motion = wave_motion(model, &[0.1, 0.2]);
    let models = [MmdOrder::BoneByBone, MmdOrder::Staged]
        .map(|order| CharacterModel::from_mmd_order(Arc::clone(model), order).ok());
    let [Some(bone_by_bone), Some(staged)] = models else {
        return None;
    };
    let mut characters = Vec::new();
    for m in [&bone_by_bone, &staged] {
        let mut c = Character::new(m);
        c.play(&motion);
        c.enable_physics().ok()?;
        characters.push(c);
    }
    let mut worst = 0.0f32;
    for frame in 0..FRAMES {
        for c in &mut characters {
            c.update(frame as f32, 1.0 / 60.0).ok()?;
        }
        let a = bone_by_bone.to_source_order(characters[0].world());
        let b = staged.to_source_order(characters[1].world());
        if a.iter().chain(&b).any(|m| !m.is_finite()) {
            return None;
        }
        worst = worst.max(difference(&a, &b));
    }
    Some(worst)
}

#[test]
fn physics_runs_alike_through_both_evaluations_without_gaps() {
    let limits = GenLimits {
        bones: 12,
        bodies: 6,
        joints: 6,
        links: 3,
    };
    let (mut compared, mut plain_after, mut after_gap, mut after_told_apart) = (0, 0, 0, 0);
    let (mut displaced_gap, mut displaced_told_apart) = (0, 0);
    let mut worst = 0.0f32;
    for (case, pmx) in gen::seeded(3, 700, limits) {
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
        let gaps = model.staged_gaps(true);
        if gaps.is_empty() {
            assert!(d < 1e-5, "case {case}: {d}");
            worst = worst.max(d);
            compared += 1;
            plain_after += usize::from(model.bones().iter().any(|b| b.after_physics));
        } else if gaps
            .iter()
            .all(|g| matches!(g, StagedGap::AfterPhysics { .. }))
        {
            after_gap += 1;
            after_told_apart += usize::from(d > 1e-3);
        } else if gaps
            .iter()
            .all(|g| matches!(g, StagedGap::BodyOnDisplacedBone { .. }))
        {
            displaced_gap += 1;
            displaced_told_apart += usize::from(d > 1e-3);
        }
    }
    println!(
        "{compared} models without gaps under physics ({plain_after} with plain after-physics \
         bones): worst {worst:.2e}; {after_gap} whose only gaps are after-physics bones \
         ({after_told_apart} differ); {displaced_gap} whose only gaps are bodies on bones \
         evaluated before their parent ({displaced_told_apart} differ)"
    );
    assert!(
        compared >= 60 && plain_after >= 15,
        "{compared} / {plain_after}"
    );
    assert!(after_told_apart >= 10, "{after_told_apart}");
    assert!(displaced_told_apart >= 10, "{displaced_told_apart}");
}
