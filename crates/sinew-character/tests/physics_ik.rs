//! With physics on, an IK chain whose links are all simulated is not solved (MMD's and
//! babylon-mmd's rule): miku_v2's hair IK (髪ＩＫ) stops pulling the twin tails once the
//! character's physics runs, while leg IK (links without bodies) still runs.

mod common;

use glam::{Quat, Vec3};
use sinew::instance::Stages;
use sinew_character::Character;

#[test]
fn hair_ik_is_left_to_physics() {
    let Some(model) = common::model("miku_v2.pmd") else {
        return;
    };
    let (mmd, _) = model.mmd().unwrap();
    let file = |name: &str| mmd.bone_index(name).unwrap();
    // Turn the upper body: FK swings the hair with it, the hair IK pulls the tip back to its
    // target (parented to the centre bone, which does not turn). Lift the right leg's IK
    // target so that leg IK has work.
    let pose = common::pose_motion(
        &model,
        &[
            (file("上半身"), Vec3::ZERO, Quat::from_rotation_y(1.0)),
            (file("右足ＩＫ"), Vec3::new(0.0, 2.0, 0.0), Quat::IDENTITY),
        ],
    );
    let (tip, knee) = (model.bone("右髪７").unwrap(), model.bone("右ひざ").unwrap());
    let evaluate = |physics: bool, stages: Stages| {
        let mut c = Character::new(&model);
        c.play(&pose);
        c.set_stages(stages);
        if physics {
            c.enable_physics().unwrap();
            // The pass before physics, with a host step that moves nothing.
            c.update_with(0.0, |_| {}).unwrap();
        } else {
            c.seek(0.0).unwrap();
        }
        (
            c.world()[tip.index()].translation,
            c.world()[knee.index()].translation,
        )
    };
    let (fk_tip, fk_knee) = evaluate(false, Stages::from_mode("grant").unwrap());
    let (ik_tip, ik_knee) = evaluate(false, Stages::ALL);
    let (phys_tip, phys_knee) = evaluate(true, Stages::ALL);
    assert!(
        (ik_tip - fk_tip).length() > 1.0,
        "the hair IK did not act: {ik_tip} {fk_tip}"
    );
    // Physics on: the hair chain is left as animated; leg IK still runs.
    assert!(
        (phys_tip - fk_tip).length() < 1e-5,
        "{phys_tip} vs {fk_tip}"
    );
    assert!((ik_knee - fk_knee).length() > 0.1, "leg IK did not act");
    assert!(
        (phys_knee - ik_knee).length() < 1e-5,
        "{phys_knee} vs {ik_knee}"
    );
}
