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

/// skeleton-dynamics-api.md, "Lifecycle": "on disposal, close the ModelInstance or detach
/// physics" (`instance.detachPhysics()`, sinew's `Character::disable_physics`). Detached, the
/// character is one that never had physics: its next frame equals, bone for bone, that of a
/// character playing the same pose without physics — the simulated hair back where the
/// animation puts it and the hair IK, left to physics while it ran, solved again — and no
/// physics report is given. A detach that left the instance believing physics runs would keep
/// the hair IK off; one that kept stepping the ragdoll would keep the simulated hair.
#[test]
fn detached_physics_gives_the_bones_back_to_the_animation() {
    let Some(model) = common::model("miku_v2.pmd") else {
        return;
    };
    let (mmd, _) = model.mmd().unwrap();
    let file = |name: &str| mmd.bone_index(name).unwrap();
    let pose = common::pose_motion(
        &model,
        &[(file("上半身"), Vec3::ZERO, Quat::from_rotation_y(1.0))],
    );
    let tip = model.bone("右髪７").unwrap();
    let mut plain = Character::new(&model);
    plain.play(&pose);
    let mut c = Character::new(&model);
    c.play(&pose);
    c.enable_physics().unwrap();
    let dt = 1.0 / 30.0;
    for _ in 0..20 {
        c.advance(dt).unwrap();
        plain.advance(dt).unwrap();
    }
    let apart = (Vec3::from(c.world()[tip.index()].translation)
        - Vec3::from(plain.world()[tip.index()].translation))
    .length();
    assert!(apart > 0.5, "physics and the hair IK apart: {apart}");
    assert!(c.physics_report().is_some());

    c.disable_physics();
    assert!(!c.is_physics_enabled() && !c.instance().physics_active());
    c.advance(dt).unwrap();
    plain.advance(dt).unwrap();
    assert!(c.physics_report().is_none());
    for (bone, (got, want)) in c.world().iter().zip(plain.world()).enumerate() {
        assert!(
            got.abs_diff_eq(*want, 1e-5),
            "bone {bone}: {got:?} vs {want:?}"
        );
    }
}
