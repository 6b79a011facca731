//! With physics on, an IK chain whose links are all simulated is not solved (MMD's and
//! babylon-mmd's rule): miku_v2's hair IK (髪ＩＫ) stops pulling the twin tails when the
//! instance is told physics runs. Skips (with a message) when the shared assets are absent.

use std::sync::Arc;

use glam::Quat;
use sinew_mmd::{EvalOptions, MmdInstance, MmdModel};

#[test]
fn hair_ik_is_left_to_physics() {
    let Some(path) = sinew_testkit::asset("mmd/threejs-examples/miku/miku_v2.pmd") else {
        return;
    };
    let model = Arc::new(MmdModel::from_bytes(&std::fs::read(path).unwrap()).unwrap());
    let upper = model.bone_index("上半身").unwrap();
    let tip = model.bone_index("右髪７").unwrap();
    let leg_ik = model.bone_index("右足ＩＫ").unwrap();
    let knee = model.bone_index("右ひざ").unwrap();
    // Turn the upper body: FK swings the hair with it, the hair IK pulls the tip back to its
    // target (parented to the centre bone, which does not turn).
    let pose = |physics: bool, ik: bool| {
        let mut inst = MmdInstance::new(Arc::clone(&model));
        inst.set_physics_active(physics);
        inst.rotations_mut()[upper] = Quat::from_rotation_y(1.0);
        // Lift the right leg's IK target so that leg IK (links without bodies) has work.
        inst.translations_mut()[leg_ik].y += 2.0;
        inst.evaluate(EvalOptions { append: true, ik });
        (
            inst.world()[tip].translation,
            inst.world()[knee].translation,
        )
    };
    let (fk_tip, fk_knee) = pose(false, false);
    let (ik_tip, ik_knee) = pose(false, true);
    let (phys_tip, phys_knee) = pose(true, true);
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
