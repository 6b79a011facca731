//! Solving independent IK chains in lockstep (a model's two legs, two hair strands) must give
//! exactly what solving them one after another gives: every world matrix of miku_v2 under the
//! whole wavefile dance, bit for bit, in the IK modes; and also with one chain of a pair
//! switched off by the motion's IK keys or by hand. The instances' buffers never grow.

mod common;

use std::sync::Arc;

use sinew_mmd::{EvalOptions, MmdInstance, MmdSkeletonInstance, MotionPlayer};

#[test]
fn lockstep_is_bit_identical_to_one_chain_at_a_time() {
    let Some((model, motion)) = common::miku_and_wavefile() else {
        return;
    };
    // The pairs the definitions find (sinew's one footprint test, `SolveFootprint`): hair,
    // legs, toes.
    let generic = MmdSkeletonInstance::new(Arc::clone(&model), EvalOptions::default()).unwrap();
    let dynamics = generic.instance().dynamics();
    let chains = dynamics.ik_chains();
    let pairs: Vec<(&str, &str)> = (0..chains.len())
        .filter_map(|c| {
            let p = dynamics.chain_path(c)?.partner()?;
            Some((chains[c].name(), chains[p].name()))
        })
        .collect();
    assert_eq!(
        pairs,
        [
            ("左髪ＩＫ", "右髪ＩＫ"),
            ("左足ＩＫ", "右足ＩＫ"),
            ("左つま先ＩＫ", "右つま先ＩＫ")
        ]
    );
    // Bone by bone, the pairs whose second controller comes right after the first in MMD's
    // order are solved side by side too.
    let ordered =
        MmdSkeletonInstance::with_evaluation(Arc::clone(&model), EvalOptions::default(), true)
            .unwrap();
    let d = ordered.instance().dynamics();
    let order = d.evaluation_order().expect("bone by bone");
    let ordered_pairs: Vec<(&str, &str)> = (0..d.ik_chains().len())
        .filter_map(|c| {
            let p = order.lockstep_partner(c)?;
            Some((d.ik_chains()[c].name(), d.ik_chains()[p].name()))
        })
        .collect();
    assert_eq!(ordered_pairs, pairs);
    let left_leg = model.bone_index("左足ＩＫ").unwrap();
    // Both evaluations: staged (miku_v2 has no `GenericGap`; pairs in lockstep lanes) and
    // bone by bone (chains one at a time: the switch changes nothing there), each paired and
    // alone.
    for bone_by_bone in [false, true] {
        let mut paired = MmdInstance::new(Arc::clone(&model));
        let mut alone = MmdInstance::new(Arc::clone(&model));
        alone.set_lockstep(false);
        for inst in [&mut paired, &mut alone] {
            inst.set_bone_by_bone(bone_by_bone);
        }
        // The instances' own buffers never grow once they have evaluated.
        let mut bytes = None;
        let mut player = MotionPlayer::new(Arc::clone(&motion), &model);
        let mut frames = 0;
        for frame in (0..2800).step_by(3) {
            for options in [
                EvalOptions::default(),
                EvalOptions::from_mode("ik").unwrap(),
            ] {
                for inst in [&mut paired, &mut alone] {
                    player.apply(frame as f32, inst);
                    if frame % 2 == 1 {
                        // One leg of the pair off: the other is solved alone.
                        inst.set_ik_enabled(left_leg, false);
                    }
                    inst.evaluate(options);
                    assert_eq!(inst.is_bone_by_bone(), bone_by_bone);
                }
                for (i, (a, b)) in paired.world().iter().zip(alone.world()).enumerate() {
                    assert!(
                        a.to_cols_array() == b.to_cols_array(),
                        "frame {frame}, bone {i} ({}): {a:?} vs {b:?}",
                        model.bones()[i].name
                    );
                }
            }
            let now = [paired.heap_bytes(), alone.heap_bytes()];
            assert_eq!(*bytes.get_or_insert(now), now);
            frames += 1;
        }
        assert_eq!(frames, 934);
    }
}
