//! A crowd equals independent `SkeletonInstance`s, is finite, and is deterministic across runs
//! and thread counts.

mod common;

use glam::{Affine3A, Vec3};
use sinew::anim::{sample, ClipBinding, SampleCache, Untracked};
use sinew::instance::apply_pose_constraints;
use sinew::pose::local_to_world;
use sinew::{RootPlacement, SkeletonInstance, Transform};
use sinew_crowd::{Crowd, CrowdError, CrowdTarget};
use sinew_humanoid::Humanoid;

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

fn max_diff(a: &Affine3A, b: &Affine3A) -> f32 {
    let d = a.to_cols_array();
    let e = b.to_cols_array();
    d.iter()
        .zip(&e)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn crowd_of_100_equals_independent_instances() {
    let h = Humanoid::new();
    let model = h.model_with_ik();
    let clip = common::walk_clip(&h);
    let n = 100;
    let mut crowd = common::crowd(&h, &model, &clip, n);
    let binding = ClipBinding::new(&clip, &h.skeleton);
    let dynamics = model.dynamics();
    let mut worst = 0.0f32;
    for frame in 0..3 {
        let time = 0.37 + frame as f32 * 0.3;
        pool(2).install(|| crowd.update(time));
        for i in 0..n {
            let s = common::setup(&h, i);
            let mut inst = SkeletonInstance::new(&model);
            let mut cache = SampleCache::for_binding(&binding);
            sample(
                &clip,
                &binding,
                &mut cache,
                time + s.offset,
                Untracked::Rest,
                inst.input_mut(),
            );
            inst.state_mut().set_placement(RootPlacement {
                translation: s.root_t.as_dvec3(),
                rotation: s.root_r,
                scale: Vec3::ONE,
            });
            // Feet: the animated (pre-IK) foot position lifted by the ground height.
            let mut locals = inst.input().to_vec();
            apply_pose_constraints(&h.skeleton, dynamics.pose_constraints(), &mut locals);
            let mut world = vec![Affine3A::IDENTITY; locals.len()];
            let root = inst.state().root_affine();
            local_to_world(h.skeleton.parent_indices(), &locals, &root, &mut world);
            for (side, name) in [(0, "leg_l"), (1, "leg_r")] {
                let foot = Vec3::from(world[h.bones.leg[side].end.index()].translation);
                let goal = foot + Vec3::Y * common::ground(foot.x, foot.z);
                inst.set_ik_target(name, goal, s.foot_weight).unwrap();
            }
            inst.set_ik_target("arm_l", s.hand, s.hand_weight).unwrap();
            inst.update_transform();
            for (a, b) in inst.world().iter().zip(crowd.world(i)) {
                worst = worst.max(max_diff(a, b));
            }
            for (a, b) in inst.state().locals().iter().zip(crowd.locals(i)) {
                assert!(a.translation.abs_diff_eq(b.translation, 1e-5));
                assert!(a.rotation.abs_diff_eq(b.rotation, 1e-5));
            }
            for (c, r) in crowd.ik_results(i).iter().enumerate() {
                let name = dynamics.ik_chains()[c].name();
                match r {
                    Some(r) => {
                        let o = inst.ik_result(name).unwrap();
                        assert!((r.residual - o.residual).abs() < 1e-5, "{name}");
                        assert_eq!(r.iterations, o.iterations, "{name}");
                    }
                    // Skipped as a no-op by the crowd: the instance solved it in place.
                    None => {
                        assert_eq!(crowd.target(i, c), CrowdTarget::Hold, "{name}");
                        assert!(inst.ik_result(name).unwrap().residual < 1e-5, "{name}");
                    }
                }
            }
        }
    }
    assert!(worst <= 1e-5, "max world difference {worst}");
}

#[test]
fn crowd_is_finite_and_reaches_ground_targets() {
    let h = Humanoid::new();
    let model = h.model_with_ik();
    let clip = common::walk_clip(&h);
    let mut crowd = common::crowd(&h, &model, &clip, 500);
    let leg_l = crowd.chain_index("leg_l").unwrap();
    for frame in 0..10 {
        crowd.update(frame as f32 / 30.0);
        assert!(crowd
            .all_world()
            .iter()
            .all(|m| m.matrix3.is_finite() && m.translation.is_finite()));
        assert!(crowd
            .all_locals()
            .iter()
            .all(|t| t.translation.is_finite() && t.rotation.is_finite()));
        // A two-bone leg is solved every frame.
        for i in 0..crowd.len() {
            assert!(crowd.ik_results(i)[leg_l].is_some());
        }
    }
}

#[test]
fn crowd_is_deterministic_across_runs_and_thread_counts() {
    let h = Humanoid::new();
    let model = h.model_with_ik();
    let clip = common::walk_clip(&h);
    let run = |threads: usize| -> Vec<Affine3A> {
        let mut crowd = common::crowd(&h, &model, &clip, 300);
        let p = pool(threads);
        for frame in 0..4 {
            p.install(|| crowd.update(0.1 + frame as f32 / 60.0));
        }
        crowd.all_world().to_vec()
    };
    let one = run(1);
    assert_eq!(one, run(1), "two runs on one thread");
    assert_eq!(one, run(2), "one thread vs two");
}

#[test]
fn evaluate_uses_the_host_input_and_hold_keeps_the_pose() {
    let h = Humanoid::new();
    let model = h.model_with_ik();
    let clip = common::walk_clip(&h);
    let mut crowd = Crowd::new(&model, clip, 3).expect("staged definitions");
    let j = crowd.joint_count();
    for i in 0..3 {
        h.animate(0.2 * i as f32, &mut crowd.inputs_mut()[i * j..(i + 1) * j]);
    }
    crowd.evaluate();
    let mut locals = vec![Transform::IDENTITY; j];
    let mut world = vec![Affine3A::IDENTITY; j];
    for i in 0..3 {
        h.animate(0.2 * i as f32, &mut locals);
        apply_pose_constraints(
            &h.skeleton,
            model.dynamics().pose_constraints(),
            &mut locals,
        );
        local_to_world(
            h.skeleton.parent_indices(),
            &locals,
            &Affine3A::IDENTITY,
            &mut world,
        );
        for side in 0..2 {
            for b in [h.bones.leg[side].end, h.bones.arm[side].end] {
                let want = Vec3::from(world[b.index()].translation);
                let got = Vec3::from(crowd.world(i)[b.index()].translation);
                assert!((want - got).length() < 2e-3, "{i}: {want} vs {got}");
            }
        }
    }
}

#[test]
fn bad_input_is_rejected() {
    let h = Humanoid::new();
    let model = h.model_with_ik();
    let mut crowd = Crowd::new(&model, common::walk_clip(&h), 2).expect("staged definitions");
    assert!(matches!(
        crowd.set_target(2, 0, CrowdTarget::Hold),
        Err(CrowdError::InstanceOutOfRange { .. })
    ));
    assert!(matches!(
        crowd.set_target(0, 9, CrowdTarget::Hold),
        Err(CrowdError::ChainOutOfRange { .. })
    ));
    assert_eq!(
        crowd.set_target(0, 0, CrowdTarget::Ground { weight: 1.5 }),
        Err(CrowdError::InvalidWeight(1.5))
    );
    assert_eq!(
        crowd.set_target(
            0,
            0,
            CrowdTarget::Point {
                world: Vec3::NAN,
                weight: 1.0
            }
        ),
        Err(CrowdError::NonFinite)
    );
    assert_eq!(
        crowd.set_time_offset(0, f32::INFINITY),
        Err(CrowdError::NonFinite)
    );
    assert_eq!(crowd.target(0, 0), CrowdTarget::Hold);
    crowd.set_enabled(1, 1, false).unwrap();
    assert!(!crowd.is_enabled(1, 1));
    crowd.update(0.5);
    assert!(crowd.ik_results(1)[1].is_none());
    crowd
        .set_target(0, 1, CrowdTarget::Ground { weight: 1.0 })
        .unwrap();
    crowd.update(0.5);
    assert!(crowd.ik_results(0)[1].is_some());
    // Definitions evaluated bone by bone cannot be a crowd's (it evaluates in stages).
    let mut ordered = model.clone();
    let order: Vec<sinew::BoneId> = model.skeleton().bones().collect();
    let mut b = sinew::dynamics::SkeletonDynamicsBuilder::from_model(&model);
    b.evaluation_order(sinew::dynamics::EvaluationOrder::new(&order, &[]));
    b.attach(&mut ordered).unwrap();
    assert_eq!(
        Crowd::new(&ordered, common::walk_clip(&h), 2).err(),
        Some(CrowdError::BoneByBone)
    );
}

#[test]
fn baked_walk_matches_the_procedural_walk_at_keys() {
    let h = Humanoid::new();
    let clip = common::walk_clip(&h);
    let binding = ClipBinding::new(&clip, &h.skeleton);
    assert!(binding.unmatched_bones().is_empty());
    let mut cache = SampleCache::for_binding(&binding);
    let mut got = vec![Transform::IDENTITY; h.skeleton.len()];
    let mut want = got.clone();
    for k in [0usize, 7, 15, 29] {
        let t = k as f32 / 30.0;
        sample(&clip, &binding, &mut cache, t, Untracked::Rest, &mut got);
        h.animate(t, &mut want);
        for (a, b) in got.iter().zip(&want) {
            assert!(a.translation.abs_diff_eq(b.translation, 1e-4));
            assert!(
                a.rotation.abs_diff_eq(b.rotation, 1e-4)
                    || a.rotation.abs_diff_eq(-b.rotation, 1e-4)
            );
        }
    }
}
