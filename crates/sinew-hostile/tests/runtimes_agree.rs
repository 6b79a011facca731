//! The two evaluations agree: generated models (hierarchies listed in any order, deform
//! layers, append of every kind, fixed axes, IK chains with limits) as characters evaluated
//! bone by bone in MMD's order (proven against babylon-mmd) and in stages, in every mode, give
//! the same world matrices whenever the model has no [`StagedGap`]; the gaps are what tells
//! them apart (and why a model with gaps is evaluated bone by bone).

use std::sync::Arc;

use glam::Affine3A;
use sinew::instance::Stages;
use sinew_character::{Character, CharacterModel};
use sinew_hostile::gen::{self, GenLimits};
use sinew_hostile::wave_motion;
use sinew_mmd::{MmdModel, MmdOrder, StagedGap};

/// The largest difference of two world matrices (translation, axes), relative to the size of
/// the position.
fn difference(a: &Affine3A, b: &Affine3A) -> f32 {
    let d = (a.translation - b.translation)
        .length()
        .max((a.matrix3.x_axis - b.matrix3.x_axis).length())
        .max((a.matrix3.y_axis - b.matrix3.y_axis).length())
        .max((a.matrix3.z_axis - b.matrix3.z_axis).length());
    d / (1.0 + a.translation.length())
}

/// Per model: the worst difference over every mode and frame, or `None` when the model does
/// not load, is refused by the reader, or produces non-finite matrices (hostile
/// numbers; other tests cover those).
fn worst_difference(model: &Arc<MmdModel>) -> Option<f32> {
    let mut worst = 0.0f32;
    let bone_by_bone =
        CharacterModel::from_mmd_order(Arc::clone(model), MmdOrder::BoneByBone).ok()?;
    let staged = CharacterModel::from_mmd_order(Arc::clone(model), MmdOrder::Staged).ok()?;
    let motion = wave_motion(model, &[0.3, 0.6, 0.9]);
    for mode in ["fk", "grant", "ik", "full"] {
        let [mut a, mut b] = [&bone_by_bone, &staged].map(|m| {
            let mut c = Character::new(m);
            c.play(&motion);
            c.set_stages(Stages::from_mode(mode).expect("a mode"));
            c
        });
        for frame in 0..3 {
            a.seek(frame as f32).ok()?;
            b.seek(frame as f32).ok()?;
            let (wa, wb) = (
                bone_by_bone.to_source_order(a.world()),
                staged.to_source_order(b.world()),
            );
            for (a, b) in wa.iter().zip(&wb) {
                if !a.is_finite() || !b.is_finite() {
                    return None;
                }
                worst = worst.max(difference(a, b));
            }
        }
    }
    Some(worst)
}

#[test]
fn generated_models_without_gaps_evaluate_alike() {
    let limits = GenLimits {
        bones: 16,
        bodies: 0,
        joints: 0,
        links: 4,
    };
    let (mut compared, mut with_gaps, mut told_apart) = (0, 0, 0);
    let mut worst = 0.0f32;
    let mut by_kind = [0usize; 5];
    for (case, pmx) in gen::seeded(7, 1500, limits) {
        let Ok(model) = MmdModel::from_bytes(&pmx.to_bytes()) else {
            continue;
        };
        let model = Arc::new(model);
        let Some(d) = worst_difference(&model) else {
            continue;
        };
        let gaps = model.staged_gaps(false);
        if gaps.is_empty() {
            assert!(d < 5e-6, "case {case}: {d}");
            worst = worst.max(d);
            compared += 1;
        } else {
            with_gaps += 1;
            told_apart += usize::from(d > 1e-3);
            for g in gaps {
                by_kind[match g {
                    StagedGap::AfterPhysics { .. } => 0,
                    StagedGap::LocalAppend { .. } => 1,
                    StagedGap::LateAppendSource { .. } => 2,
                    StagedGap::BeforeParentUnderIk { .. } => 3,
                    StagedGap::BodyOnDisplacedBone { .. } => 0,
                    StagedGap::UnreadIk { .. } => 4,
                }] += 1;
            }
        }
    }
    println!(
        "{compared} models without gaps: worst {worst:.2e}; {with_gaps} with gaps \
         ({told_apart} differ; local append {}, late append source {}, before parent under IK {}, \
         unread IK {})",
        by_kind[1], by_kind[2], by_kind[3], by_kind[4]
    );
    // Without physics "after physics" is no gap.
    assert_eq!(by_kind[0], 0);
    assert!(compared >= 150, "{compared} models compared");
    // The gaps are real: models with them do differ.
    assert!(told_apart >= 50, "{told_apart}");
}
