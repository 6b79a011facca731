//! 1,000 instances of one model, driven in parallel with rayon from one `Arc` definition, each
//! with its own targets: results must equal the same work done serially, one instance at a
//! time (no shared mutable state between instances).

use glam::Vec3;
use rayon::prelude::*;
use sinew::SkeletonInstance;
use sinew_humanoid::Humanoid;

fn target_for(i: usize, shoulder: Vec3) -> Vec3 {
    let a = i as f32 * 0.37;
    shoulder
        + Vec3::new(
            0.25 + 0.05 * a.sin(),
            -0.2 + 0.1 * a.cos(),
            0.15 + 0.05 * (2.0 * a).sin(),
        )
}

#[test]
fn thousand_instances_in_parallel_do_not_interfere() {
    let h = Humanoid::new();
    let model = h.model_with_ik();
    let mut probe = SkeletonInstance::new(&model);
    probe.update_transform();
    let shoulder: Vec3 = probe.world()[h.bones.arm[0].upper.index()]
        .translation
        .into();
    let hand = h.bones.arm[0].end.index();

    let run = |i: usize, inst: &mut SkeletonInstance| -> Vec3 {
        h.animate(i as f32 * 0.01, inst.input_mut());
        inst.set_ik_target("arm_l", target_for(i, shoulder), 1.0)
            .unwrap();
        inst.update_transform();
        inst.world()[hand].translation.into()
    };

    let mut instances: Vec<SkeletonInstance> =
        (0..1000).map(|_| SkeletonInstance::new(&model)).collect();
    let parallel: Vec<Vec3> = instances
        .par_iter_mut()
        .enumerate()
        .map(|(i, inst)| run(i, inst))
        .collect();
    let serial: Vec<Vec3> = (0..1000)
        .map(|i| run(i, &mut SkeletonInstance::new(&model)))
        .collect();
    assert_eq!(parallel, serial, "parallel evaluation differs from serial");
    // Each instance really went to its own target.
    let mut distinct = parallel.clone();
    distinct.dedup();
    assert!(distinct.len() > 900);
    for (i, inst) in instances.iter().enumerate() {
        assert!(
            inst.ik_result("arm_l").is_some(),
            "instance {i} has no result"
        );
    }
    // One shared definition.
    assert!(instances
        .iter()
        .all(|i| std::sync::Arc::ptr_eq(i.dynamics(), model.dynamics())));
}
