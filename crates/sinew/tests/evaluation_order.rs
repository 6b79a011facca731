//! Definitions carrying an explicit [`EvaluationOrder`]: the builder's checks, and what the
//! bone-by-bone evaluation reads at each bone's turn (parents, constraint sources, chains),
//! the physics split, and agreement with the staged evaluation where the order changes nothing.

use std::sync::Arc;

use glam::{Quat, Vec3};
use sinew::dynamics::*;
use sinew::{
    BoneId, Model, Parent, Skeleton, SkeletonBuilder, SkeletonInstance, Transform, Writeback,
};
use sinew_humanoid::Humanoid;

fn t(x: f32, y: f32) -> Transform {
    Transform::from_translation(Vec3::new(x, y, 0.0))
}

/// root → a → b, and s (source) / c (constrained) under root.
fn skeleton() -> Arc<Skeleton> {
    SkeletonBuilder::new()
        .bone("root", Parent::Root, t(1.0, 0.0))
        .bone("a", "root", t(0.0, 1.0))
        .bone("b", "a", t(0.0, 1.0))
        .bone("s", "root", t(1.0, 0.0))
        .bone("c", "root", t(-1.0, 0.0))
        .build()
        .unwrap()
}

fn ids(s: &Skeleton, names: &[&str]) -> Vec<BoneId> {
    names.iter().map(|n| s.find(n).unwrap()).collect()
}

fn model(s: &Arc<Skeleton>, build: impl FnOnce(&mut SkeletonDynamicsBuilder)) -> Model {
    let mut m = Model::new(Arc::clone(s));
    let mut b = SkeletonDynamicsBuilder::empty(s);
    build(&mut b);
    b.attach(&mut m).unwrap();
    m
}

fn position(inst: &SkeletonInstance, s: &Skeleton, name: &str) -> Vec3 {
    inst.world()[s.find(name).unwrap().index()]
        .translation
        .into()
}

#[test]
fn the_builder_checks_the_order() {
    let s = skeleton();
    let build = |order: EvaluationOrder| {
        let mut b = SkeletonDynamicsBuilder::empty(&s);
        b.evaluation_order(order);
        b.build()
    };
    let all = ids(&s, &["root", "a", "b", "s", "c"]);
    assert!(build(EvaluationOrder::new(&all, &[])).is_ok());
    assert!(build(EvaluationOrder::new(&all[..3], &all[3..])).is_ok());
    for (order, what) in [
        (EvaluationOrder::new(&all[..4], &[]), "not listed"),
        (EvaluationOrder::new(&all, &[all[0]]), "listed twice"),
        (
            EvaluationOrder::new(&[all[0], all[1], all[2], all[3], BoneId::new(9)], &[]),
            "not in the skeleton",
        ),
    ] {
        match build(order) {
            Err(DynamicsError::InvalidEvaluationOrder { reason }) => {
                assert!(reason.contains(what), "{reason}")
            }
            other => panic!("{what}: {other:?}"),
        }
    }
    // An order defines what each constraint reads: a cycle is no error with one, and is
    // without.
    let cycle = |b: &mut SkeletonDynamicsBuilder| {
        let [a, sb] = [s.find("a").unwrap(), s.find("s").unwrap()];
        let inh = |src| TransformInheritance::new(src, 1.0, false, true).unwrap();
        b.pose(BonePoseConstraint::new(a, Some(inh(sb)), None).unwrap());
        b.pose(BonePoseConstraint::new(sb, Some(inh(a)), None).unwrap());
    };
    let mut b = SkeletonDynamicsBuilder::empty(&s);
    cycle(&mut b);
    assert!(matches!(
        b.build(),
        Err(DynamicsError::InheritanceCycle { .. })
    ));
    b.evaluation_order(EvaluationOrder::new(&all, &[]));
    let d = b.build().unwrap();
    assert_eq!(d.evaluation_order().unwrap().bones(), &all[..]);
}

#[test]
fn a_bone_ordered_before_its_parent_sees_the_identity_there() {
    let s = skeleton();
    let m = model(&s, |b| {
        b.evaluation_order(EvaluationOrder::new(
            &ids(&s, &["b", "root", "a", "s", "c"]),
            &[],
        ));
    });
    let mut inst = SkeletonInstance::new(&m);
    inst.update_transform();
    // b composes with a's world as it stands at b's turn: the identity.
    assert_eq!(position(&inst, &s, "b"), Vec3::new(0.0, 1.0, 0.0));
    assert_eq!(position(&inst, &s, "a"), Vec3::new(1.0, 1.0, 0.0));
    // Staged, the hierarchy is whole.
    let staged = model(&s, |_| {});
    let mut inst = SkeletonInstance::new(&staged);
    inst.update_transform();
    assert_eq!(position(&inst, &s, "b"), Vec3::new(1.0, 2.0, 0.0));
}

#[test]
fn a_constraint_reads_its_source_as_it_stands_at_its_turn() {
    let s = skeleton();
    let [root, a, sb, c] = [
        s.find("root").unwrap(),
        s.find("a").unwrap(),
        s.find("s").unwrap(),
        s.find("c").unwrap(),
    ];
    let inh = |src| TransformInheritance::new(src, 1.0, false, true).unwrap();
    let constraints = |b: &mut SkeletonDynamicsBuilder| {
        // s inherits a's rotation, c inherits s's.
        b.pose(BonePoseConstraint::new(sb, Some(inh(a)), None).unwrap());
        b.pose(BonePoseConstraint::new(c, Some(inh(sb)), None).unwrap());
    };
    let turn = Quat::from_rotation_z(0.5);
    let rotation_of_c = |order: &[BoneId]| {
        let m = model(&s, |b| {
            constraints(b);
            b.evaluation_order(EvaluationOrder::new(order, &[]));
        });
        let mut inst = SkeletonInstance::new(&m);
        inst.input_mut()[a.index()].rotation = turn;
        inst.update_transform();
        inst.state().locals()[c.index()].rotation
    };
    let b = s.find("b").unwrap();
    // s evaluated before c: c passes a's turn on.
    assert!(rotation_of_c(&[root, a, b, sb, c]).abs_diff_eq(turn, 1e-6));
    // c before s: s's constrained rotation is at rest until its turn.
    assert!(rotation_of_c(&[root, a, b, c, sb]).abs_diff_eq(Quat::IDENTITY, 1e-6));
}

#[test]
fn the_physics_split_leaves_later_bones_to_the_second_pass() {
    let s = skeleton();
    let all = ids(&s, &["root", "a", "b", "s", "c"]);
    let m = model(&s, |b| {
        b.evaluation_order(EvaluationOrder::new(&all[..3], &all[3..]));
    });
    let mut inst = SkeletonInstance::new(&m);
    inst.evaluate_before_physics(Writeback::World);
    assert_eq!(position(&inst, &s, "b"), Vec3::new(1.0, 2.0, 0.0));
    assert_eq!(position(&inst, &s, "s"), Vec3::ZERO, "not yet evaluated");
    inst.evaluate_after_physics(Writeback::World);
    assert_eq!(position(&inst, &s, "s"), Vec3::new(2.0, 0.0, 0.0));
    // The whole frame at once evaluates both parts.
    let mut whole = SkeletonInstance::new(&m);
    whole.update_transform();
    assert_eq!(whole.world(), inst.world());
}

/// The humanoid's chains (two-bone legs, FABRIK arms) and twist constraints, targets moved:
/// evaluated bone by bone in the skeleton's own order the frame equals the staged one (the
/// order then changes nothing the constraints or chains read).
#[test]
fn in_skeleton_order_bone_by_bone_equals_staged() {
    let h = Humanoid::new();
    let staged = h.model_with_ik();
    let s = Arc::clone(staged.skeleton());
    let mut ordered = Model::new(Arc::clone(&s));
    let mut b = SkeletonDynamicsBuilder::from_model(&staged);
    let order: Vec<BoneId> = s.bones().collect();
    b.evaluation_order(EvaluationOrder::new(&order, &[]));
    b.attach(&mut ordered).unwrap();
    let mut x = SkeletonInstance::new(&staged);
    let mut y = SkeletonInstance::new(&ordered);
    for inst in [&mut x, &mut y] {
        inst.set_ik_target("arm_l", Vec3::new(0.5, 1.2, 0.3), 1.0)
            .unwrap();
        inst.set_ik_target("leg_r", Vec3::new(-0.1, 0.3, 0.2), 1.0)
            .unwrap();
        inst.input_mut()[s.find("hand_l").unwrap().index()].rotation = Quat::from_rotation_x(0.7);
        inst.update_transform();
    }
    let mut worst = 0.0f32;
    for (i, (a, b)) in x.world().iter().zip(y.world()).enumerate() {
        let d = (a.translation - b.translation).length();
        if d > 1e-5 {
            eprintln!("{} {d}", s.name(BoneId::new(i as u16)));
        }
        worst = worst.max(d);
    }
    assert!(worst < 1e-5, "{worst}");
    for chain in ["arm_l", "leg_r"] {
        let (a, b) = (x.ik_result(chain).unwrap(), y.ik_result(chain).unwrap());
        assert!(
            (a.residual - b.residual).abs() < 1e-5,
            "{chain}: {a:?} {b:?}"
        );
    }
}

/// skeleton-dynamics-api.md, `replaceAuthoredRotation`: "morph/grant/fixed-axis still
/// participate afterwards" — bone by bone too. At `base`'s turn its authored pose is already
/// taken over by the rest pose, and its constraint (`src`'s rotation, only the twist about Y)
/// applies to that; `follower`, later in the order, reads `base` as constrained. Were the
/// takeover applied after the constraint, `base` would stand at rest (its grant wiped) and
/// `follower` would not match it.
#[test]
fn bone_by_bone_constraints_apply_after_the_takeover() {
    let s = SkeletonBuilder::new()
        .bone("root", Parent::Root, Transform::IDENTITY)
        .bone("src", "root", t(2.0, 0.0))
        .bone("base", "root", t(0.0, 1.0))
        .bone("tip", "base", t(0.0, 1.0))
        .bone("follower", "root", t(-2.0, 0.0))
        .build()
        .unwrap();
    let f = |n: &str| s.find(n).unwrap();
    let grant = |from: &str| Some(TransformInheritance::new(f(from), 1.0, false, true).unwrap());
    let m = model(&s, |b| {
        // Controller = effector: solved where it stands, no correction.
        b.ik(IkChain::with_params(
            "c",
            f("tip"),
            f("tip"),
            vec![IkLink::new(f("base"))],
            IkChainParams {
                replace_authored_rotation: true,
                ..IkChainParams::default()
            },
        )
        .unwrap());
        b.pose(BonePoseConstraint::new(f("base"), grant("src"), Some(Vec3::Y)).unwrap());
        b.pose(BonePoseConstraint::new(f("follower"), grant("base"), None).unwrap());
        b.evaluation_order(EvaluationOrder::new(
            &ids(&s, &["root", "src", "base", "tip", "follower"]),
            &[],
        ));
    });
    let mut inst = SkeletonInstance::new(&m);
    let q_src = Quat::from_rotation_z(0.4) * Quat::from_rotation_y(0.8);
    inst.input_mut()[f("src").index()].rotation = q_src;
    inst.input_mut()[f("base").index()] =
        Transform::from_translation_rotation(Vec3::new(3.0, 1.0, 0.0), Quat::from_rotation_x(1.0));
    inst.update_transform();
    assert!(inst.ik_result("c").unwrap().satisfied);
    let l = inst.state().locals();
    let expected = sinew::instance::twist_about(q_src, Vec3::Y);
    let got = l[f("base").index()].rotation;
    assert!(
        got.dot(expected).abs() > 1.0 - 1e-6,
        "base: {got} vs {expected}"
    );
    assert!(got.angle_between(Quat::IDENTITY) > 0.5, "{got}");
    assert_eq!(l[f("base").index()].translation, Vec3::new(0.0, 1.0, 0.0));
    let follower = l[f("follower").index()].rotation;
    assert!(
        follower.dot(expected).abs() > 1.0 - 1e-6,
        "follower: {follower} vs {expected}"
    );
}

/// A CCD chain is solved at its controller's turn: a bone evaluated after the controller sees
/// the solved chain, one evaluated before it (reading the effector's world) does not.
#[test]
fn a_chain_is_solved_at_its_controllers_turn() {
    let s = SkeletonBuilder::new()
        .bone("root", Parent::Root, Transform::IDENTITY)
        .bone("l1", "root", t(0.0, 1.0))
        .bone("l2", "l1", t(0.0, 1.0))
        .bone("tip", "l2", t(0.0, 1.0))
        .bone("goal", "root", t(1.5, 1.5))
        .bone("early", "root", Transform::IDENTITY)
        .bone("late", "root", Transform::IDENTITY)
        .build()
        .unwrap();
    let f = |n: &str| s.find(n).unwrap();
    let params = IkChainParams {
        solver: ChainSolver::Ccd,
        iterations: 40,
        max_rotation_step: 2.0,
        ..IkChainParams::default()
    };
    let chain = IkChain::with_params(
        "reach",
        f("goal"),
        f("tip"),
        vec![IkLink::new(f("l1")), IkLink::new(f("l2"))],
        params,
    )
    .unwrap();
    // `early` and `late` read the tip's world matrix (world-space inheritance).
    let world_inh = |b: BoneId| {
        BonePoseConstraint::new(
            b,
            Some(
                TransformInheritance::new(f("tip"), 1.0, true, false)
                    .unwrap()
                    .in_space(InheritanceSpace::World),
            ),
            None,
        )
        .unwrap()
    };
    let order = ids(&s, &["root", "l1", "l2", "tip", "early", "goal", "late"]);
    let m = model(&s, |b| {
        b.ik(chain);
        b.pose(world_inh(f("early")));
        b.pose(world_inh(f("late")));
        b.evaluation_order(EvaluationOrder::new(&order, &[]));
    });
    let mut inst = SkeletonInstance::new(&m);
    inst.update_transform();
    let r = inst.ik_result("reach").unwrap();
    assert!(r.residual < 1e-3, "{r:?}");
    let tip = position(&inst, &s, "tip");
    assert!(tip.abs_diff_eq(Vec3::new(1.5, 1.5, 0.0), 1e-3), "{tip}");
    // World-space inheritance of the tip's translation relative to its bind (0, 3, 0).
    let bind = Vec3::new(0.0, 3.0, 0.0);
    assert!(position(&inst, &s, "late").abs_diff_eq(tip - bind, 1e-5));
    assert!(position(&inst, &s, "early").abs_diff_eq(Vec3::ZERO, 1e-5));
}
