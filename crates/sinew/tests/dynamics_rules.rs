//! One test per validation rule, contract and default of the dynamics definitions
//! (skeleton-dynamics-api.md: "SkeletonDynamicsBuilder", "Generic Bone Pose Constraints",
//! "Physics Data", "IK Data and Limits", "IkChain", "Diamond Closure").

use std::f32::consts::PI;
use std::sync::Arc;

use glam::Vec3;
use sinew::dynamics::*;
use sinew::ik::{Hinge, IkJoint, Rotor};
use sinew::{BoneId, Model, Parent, Skeleton, SkeletonBuilder, Transform};

/// root ─┬─ a1 ─ a2 ─ a3      (a1 and b1 coincide at bind)
///       ├─ b1 ─ b2 ─ b3
///       ├─ t
///       └─ far
fn skeleton() -> Arc<Skeleton> {
    let t = |x: f32, y: f32| Transform::from_translation(Vec3::new(x, y, 0.0));
    SkeletonBuilder::new()
        .bone("root", Parent::Root, Transform::IDENTITY)
        .bone("a1", "root", t(0.0, 1.0))
        .bone("a2", "a1", t(-1.0, 1.0))
        .bone("a3", "a2", t(1.0, 1.0))
        .bone("b1", "root", t(0.0, 1.0))
        .bone("b2", "b1", t(1.0, 1.0))
        .bone("b3", "b2", t(-1.0, 1.0))
        .bone("t", "root", t(0.0, 3.0))
        .bone("far", "root", t(5.0, 1.0))
        .build()
        .unwrap()
}

fn id(s: &Skeleton, n: &str) -> BoneId {
    s.find(n).unwrap()
}

fn chain(s: &Skeleton, name: &str, links: &[&str], effector: &str) -> IkChain {
    IkChain::new(
        name,
        id(s, "t"),
        id(s, effector),
        links.iter().map(|l| IkLink::new(id(s, l))).collect(),
    )
    .unwrap()
}

#[test]
fn chain_defaults_match_the_spec() {
    let s = skeleton();
    let c = chain(&s, "c", &["a1", "a2"], "a3");
    assert_eq!(c.iterations(), 32);
    assert_eq!(c.tolerance(), 1e-4);
    assert_eq!(c.max_rotation_step(), PI);
    assert!(!c.replace_authored_rotation());
    assert_eq!(c.target_mode(), TargetMode::Position);
    assert_eq!(c.solver(), ChainSolver::Fabrik);
}

#[test]
fn chain_parameter_contracts() {
    let s = skeleton();
    let links = || vec![IkLink::new(id(&s, "a1"))];
    let with = |p: IkChainParams| IkChain::with_params("c", id(&s, "t"), id(&s, "a2"), links(), p);
    // "non-blank chain name"
    assert_eq!(
        IkChain::new("  ", id(&s, "t"), id(&s, "a2"), links()).unwrap_err(),
        DynamicsError::BlankName { what: "IK chain" }
    );
    // "links: non-empty"
    assert!(matches!(
        IkChain::new("c", id(&s, "t"), id(&s, "a2"), vec![]),
        Err(DynamicsError::EmptyChain { .. })
    ));
    // "iterations 1..256"
    for it in [0, 257] {
        assert!(matches!(
            with(IkChainParams {
                iterations: it,
                ..Default::default()
            }),
            Err(DynamicsError::InvalidParameter {
                field: "iterations",
                ..
            })
        ));
    }
    assert!(with(IkChainParams {
        iterations: 256,
        ..Default::default()
    })
    .is_ok());
    // "tolerance: finite positive distance"
    for tol in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        assert!(matches!(
            with(IkChainParams {
                tolerance: tol,
                ..Default::default()
            }),
            Err(DynamicsError::InvalidParameter {
                field: "tolerance",
                ..
            })
        ));
    }
    // "maxRotationStep: finite non-negative; 0 limits the increment to zero"
    assert!(with(IkChainParams {
        max_rotation_step: 0.0,
        ..Default::default()
    })
    .is_ok());
    for step in [-0.1, f32::NAN] {
        assert!(matches!(
            with(IkChainParams {
                max_rotation_step: step,
                ..Default::default()
            }),
            Err(DynamicsError::InvalidParameter {
                field: "max_rotation_step",
                ..
            })
        ));
    }
    // sinew: two-bone chains need two links and a non-zero pole.
    assert!(matches!(
        with(IkChainParams {
            solver: ChainSolver::TwoBone { pole: Vec3::Z },
            ..Default::default()
        }),
        Err(DynamicsError::InvalidParameter { field: "links", .. })
    ));
    let two = IkChain::with_params(
        "c",
        id(&s, "t"),
        id(&s, "a3"),
        vec![IkLink::new(id(&s, "a1")), IkLink::new(id(&s, "a2"))],
        IkChainParams {
            solver: ChainSolver::TwoBone { pole: Vec3::ZERO },
            ..Default::default()
        },
    );
    assert!(matches!(
        two,
        Err(DynamicsError::InvalidParameter { field: "pole", .. })
    ));
}

#[test]
fn limits_contracts() {
    // "RotationLimit: finite XYZ Euler bounds, per-axis minimum <= maximum"
    assert!(sinew::ik::RotationLimit::new(Vec3::splat(-1.0), Vec3::splat(1.0)).is_ok());
    assert!(sinew::ik::RotationLimit::new(Vec3::new(1.0, 0.0, 0.0), Vec3::ZERO).is_err());
    assert!(sinew::ik::RotationLimit::new(Vec3::splat(f32::NAN), Vec3::ZERO).is_err());
    // "Rotor: finite angle 0..π"
    assert!(Rotor::new(0.0).is_ok() && Rotor::new(PI).is_ok());
    assert!(Rotor::new(-0.1).is_err() && Rotor::new(3.2).is_err() && Rotor::new(f32::NAN).is_err());
    // "Hinge: non-zero, normalised, orthogonality error <= 1e-4, angles in [-π, π], min <= max"
    assert!(Hinge::new(Vec3::Z * 3.0, Vec3::X, -PI / 2.0, 0.0).is_ok());
    assert!(Hinge::new(Vec3::ZERO, Vec3::X, -1.0, 1.0).is_err());
    assert!(Hinge::new(Vec3::Z, Vec3::new(1.0, 0.0, 0.01), -1.0, 1.0).is_err());
    assert!(Hinge::new(Vec3::Z, Vec3::X, -4.0, 1.0).is_err());
    assert!(Hinge::new(Vec3::Z, Vec3::X, 1.0, -1.0).is_err());
}

#[test]
fn builder_bone_lookup_errors_on_unknown_names() {
    let s = skeleton();
    let b = SkeletonDynamicsBuilder::new(&s);
    assert_eq!(b.bone("a1").unwrap(), id(&s, "a1"));
    assert_eq!(
        b.bone("nope").unwrap_err(),
        DynamicsError::UnknownBone {
            name: "nope".into()
        }
    );
}

#[test]
fn same_name_replaces_chain_diamond_and_same_bone_replaces_pose() {
    let s = skeleton();
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(chain(&s, "x", &["a1"], "a2"))
        .ik(chain(&s, "y", &["b1"], "b2"))
        .ik(chain(&s, "x", &["a1", "a2"], "a3"));
    let d = b.build().unwrap();
    assert_eq!(d.ik_chains().len(), 2);
    assert_eq!(d.ik_chains()[0].name(), "x", "definition order kept");
    assert_eq!(d.chain("x").unwrap().links().len(), 2);
    let inh = TransformInheritance::new(id(&s, "b1"), 1.0, true, false).unwrap();
    b.pose(BonePoseConstraint::new(id(&s, "a1"), Some(inh), None).unwrap());
    b.pose(BonePoseConstraint::new(id(&s, "a1"), None, Some(Vec3::Y)).unwrap());
    let d = b.build().unwrap();
    assert_eq!(d.pose_constraints().len(), 1);
    assert!(d.pose_constraint(id(&s, "a1")).unwrap().has_fixed_axis());
}

#[test]
fn chains_by_name_and_by_bone() {
    let s = skeleton();
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(chain(&s, "x", &["a1", "a2"], "a3"))
        .ik(chain(&s, "y", &["a2"], "a3"));
    let d = b.build().unwrap();
    assert_eq!(d.chain_index("y"), Some(1));
    assert_eq!(d.chains_by_bone(id(&s, "a2")), &[0, 1]);
    assert!(d.chains_by_bone(id(&s, "b1")).is_empty());
}

#[test]
fn ownership_rule_bones_must_belong_to_the_skeleton() {
    let s = skeleton();
    let stranger = BoneId::new(200);
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(IkChain::new("c", stranger, id(&s, "a2"), vec![IkLink::new(id(&s, "a1"))]).unwrap());
    assert!(matches!(
        b.build(),
        Err(DynamicsError::BoneOutOfRange { index: 200, .. })
    ));
    let mut b = SkeletonDynamicsBuilder::new(&s);
    let body = RigidBody::new(RigidBodyDesc {
        bone: Some(stranger),
        ..Default::default()
    })
    .unwrap();
    b.physics_tables(vec![body], vec![]);
    assert!(matches!(
        b.build(),
        Err(DynamicsError::BoneOutOfRange { .. })
    ));
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.physics(Physics::new(vec![], vec![], Vec3::ONE, false, true, 1.0, vec![stranger]).unwrap());
    assert!(matches!(
        b.build(),
        Err(DynamicsError::BoneOutOfRange { .. })
    ));
    let mut b = SkeletonDynamicsBuilder::new(&s);
    let inh = TransformInheritance::new(stranger, 1.0, true, true).unwrap();
    b.pose(BonePoseConstraint::new(id(&s, "a1"), Some(inh), None).unwrap());
    assert!(matches!(
        b.build(),
        Err(DynamicsError::BoneOutOfRange { .. })
    ));
}

/// An id from another skeleton — even an identical one, even with an index in range — is
/// refused; ids made from bare indices and ids of clones of the same skeleton are accepted.
#[test]
fn ownership_rule_bone_ids_of_another_skeleton_are_refused() {
    let s = skeleton();
    let other = skeleton();
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(IkChain::new(
        "c",
        id(&other, "a3"),
        id(&s, "a3"),
        vec![IkLink::new(id(&s, "a2"))],
    )
    .unwrap());
    assert!(
        matches!(b.build(), Err(DynamicsError::ForeignBone { index, .. }) if index == id(&s, "a3").index()),
        "an in-range id of another skeleton"
    );
    let mut b = SkeletonDynamicsBuilder::new(&s);
    let inh = TransformInheritance::new(id(&other, "b1"), 1.0, true, true).unwrap();
    b.pose(BonePoseConstraint::new(id(&s, "a1"), Some(inh), None).unwrap());
    assert!(matches!(b.build(), Err(DynamicsError::ForeignBone { .. })));
    // The same bone through a bare index, or through a clone of the same skeleton: accepted.
    let same = Arc::new((*s).clone());
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(IkChain::new(
        "c",
        BoneId::new(id(&other, "a3").index() as u16),
        id(&same, "a3"),
        vec![IkLink::new(id(&s, "a2"))],
    )
    .unwrap());
    assert!(b.build().is_ok());
    // Ids still compare by index.
    assert_eq!(id(&s, "a1"), id(&other, "a1"));
    assert!(id(&other, "a1").is_foreign_to(&s) && !id(&s, "a1").is_foreign_to(&s));
    assert!(id(&s, "a1").fits(&s) && !id(&other, "a1").fits(&s) && BoneId::new(1).fits(&s));
}

#[test]
fn pose_constraint_contracts() {
    let s = skeleton();
    // "inheritance weight finite, may be negative"
    assert!(TransformInheritance::new(id(&s, "a1"), -2.5, true, false).is_ok());
    assert!(TransformInheritance::new(id(&s, "a1"), f32::NAN, true, false).is_err());
    // "at least one of translation or rotation"
    assert!(matches!(
        TransformInheritance::new(id(&s, "a1"), 1.0, false, false),
        Err(DynamicsError::EmptyInheritance { .. })
    ));
    // "inheritance or fixedAxis may be null, but not both"
    assert!(matches!(
        BonePoseConstraint::new(id(&s, "a1"), None, None),
        Err(DynamicsError::EmptyPoseConstraint { .. })
    ));
    // "axis copied and normalized, rejected when squared length < 1e-8"
    let c = BonePoseConstraint::new(id(&s, "a1"), None, Some(Vec3::new(0.0, 3.0, 4.0))).unwrap();
    assert!((c.fixed_axis().unwrap() - Vec3::new(0.0, 0.6, 0.8)).length() < 1e-6);
    assert!(BonePoseConstraint::new(id(&s, "a1"), None, Some(Vec3::splat(5e-5))).is_err());
    // "self-references are rejected"
    let inh = TransformInheritance::new(id(&s, "a1"), 1.0, true, true).unwrap();
    assert!(matches!(
        BonePoseConstraint::new(id(&s, "a1"), Some(inh), None),
        Err(DynamicsError::SelfInheritance { .. })
    ));
}

#[test]
fn inheritance_cycles_are_rejected_and_order_follows_dependencies() {
    let s = skeleton();
    let inh = |src: &str| Some(TransformInheritance::new(id(&s, src), 1.0, false, true).unwrap());
    let mut b = SkeletonDynamicsBuilder::new(&s);
    // a1 <- b3 <- far (cross-branch): far must come first even though it is later in bone order.
    b.pose(BonePoseConstraint::new(id(&s, "a1"), inh("b3"), None).unwrap());
    b.pose(BonePoseConstraint::new(id(&s, "b3"), inh("far"), None).unwrap());
    b.pose(BonePoseConstraint::new(id(&s, "far"), None, Some(Vec3::X)).unwrap());
    let d = b.build().unwrap();
    let order: Vec<&str> = d
        .pose_constraints()
        .iter()
        .map(|c| s.name(c.bone()))
        .collect();
    assert_eq!(order, ["far", "b3", "a1"]);
    b.pose(BonePoseConstraint::new(id(&s, "far"), inh("a1"), None).unwrap());
    match b.build() {
        Err(DynamicsError::InheritanceCycle { bones }) => assert_eq!(bones.len(), 3),
        other => panic!("{other:?}"),
    }
}

#[test]
fn joint_body_indices_are_valid_and_different() {
    let s = skeleton();
    let body = || {
        RigidBody::new(RigidBodyDesc {
            bone: Some(id(&s, "a1")),
            size: Vec3::ONE,
            ..Default::default()
        })
        .unwrap()
    };
    let joint = |a, b| {
        Joint::new(JointDesc {
            name: "j".into(),
            body_a: a,
            body_b: b,
            ..Default::default()
        })
        .unwrap()
    };
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.physics_tables(vec![body(), body()], vec![joint(0, 2)]);
    assert_eq!(
        b.build().unwrap_err(),
        DynamicsError::JointBodyIndex {
            joint: "j".into(),
            index: 2,
            bodies: 2
        }
    );
    b.physics_tables(vec![body(), body()], vec![joint(1, 1)]);
    assert_eq!(
        b.build().unwrap_err(),
        DynamicsError::JointSameBody {
            joint: "j".into(),
            index: 1
        }
    );
    b.physics_tables(vec![body(), body()], vec![joint(0, 1)]);
    let d = b.build().unwrap();
    // "physics(bodies, joints): unit scaling, no required profile, affine writeback, radius 1"
    let p = d.physics();
    assert_eq!(p.unit_scale(), Vec3::ONE);
    assert!(
        !p.profile_required()
            && p.affine_writeback()
            && p.profile_radius_scale() == 1.0
            && p.bind_pose_followers().is_empty()
    );
}

#[test]
fn chain_rules_repeated_drivers_and_ancestry() {
    let s = skeleton();
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(chain(&s, "c", &["a1", "a1"], "a3"));
    assert!(matches!(
        b.build(),
        Err(DynamicsError::RepeatedDriver { .. })
    ));
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(chain(&s, "c", &["a1", "b2"], "b3"));
    assert!(matches!(
        b.build(),
        Err(DynamicsError::NotDescendant { .. })
    ));
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(chain(&s, "c", &["a2"], "a1"));
    assert!(matches!(
        b.build(),
        Err(DynamicsError::NotDescendant { .. })
    ));
    // "intermediate bones may be skipped"
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(chain(&s, "c", &["a1"], "a3"));
    assert!(b.build().is_ok());
}

fn diamond_builder(s: &Arc<Skeleton>) -> SkeletonDynamicsBuilder {
    let mut b = SkeletonDynamicsBuilder::new(s);
    b.ik(chain(s, "left", &["a1", "a2"], "a3"))
        .ik(chain(s, "right", &["b1", "b2"], "b3"));
    b
}

#[test]
fn diamond_contracts_and_defaults() {
    let d = DiamondConstraint::new("d", "left", "right").unwrap();
    assert_eq!((d.iterations(), d.tolerance()), (32, 1e-4));
    assert!(DiamondConstraint::new(" ", "left", "right").is_err());
    assert!(DiamondConstraint::new("d", "", "right").is_err());
    assert!(matches!(
        DiamondConstraint::new("d", "x", "x"),
        Err(DynamicsError::DiamondSameChain { .. })
    ));
    assert!(DiamondConstraint::with_params("d", "a", "b", 0, 1e-4).is_err());
    assert!(DiamondConstraint::with_params("d", "a", "b", 1, 0.0).is_err());
}

#[test]
fn diamond_rules() {
    let s = skeleton();
    // valid closure
    let mut b = diamond_builder(&s);
    b.diamond(DiamondConstraint::new("d", "left", "right").unwrap());
    let d = b.build().unwrap();
    assert_eq!(d.diamond_of_chain(0), Some(0));
    // "references two existing chains"
    let mut b = diamond_builder(&s);
    b.diamond(DiamondConstraint::new("d", "left", "ghost").unwrap());
    assert!(matches!(
        b.build(),
        Err(DynamicsError::DiamondUnknownChain { .. })
    ));
    // "POSITION chains"
    let mut b = diamond_builder(&s);
    let dir = IkChain::with_params(
        "right",
        id(&s, "t"),
        id(&s, "b3"),
        vec![IkLink::new(id(&s, "b1")), IkLink::new(id(&s, "b2"))],
        IkChainParams {
            target_mode: TargetMode::Direction,
            ..Default::default()
        },
    )
    .unwrap();
    b.ik(dir)
        .diamond(DiamondConstraint::new("d", "left", "right").unwrap());
    assert!(matches!(
        b.build(),
        Err(DynamicsError::DiamondNotPosition { .. })
    ));
    // "the same chain cannot belong to multiple closures"
    let mut b = diamond_builder(&s);
    b.ik(chain(&s, "third", &["b2"], "b3"));
    b.diamond(DiamondConstraint::new("d1", "left", "right").unwrap())
        .diamond(DiamondConstraint::new("d2", "left", "third").unwrap());
    assert!(matches!(
        b.build(),
        Err(DynamicsError::ChainInTwoDiamonds { .. })
    ));
    // "branches do not share driver bones"
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(chain(&s, "left", &["a1", "a2"], "a3"))
        .ik(chain(&s, "right", &["a2"], "a3"));
    b.diamond(DiamondConstraint::new("d", "left", "right").unwrap());
    assert!(matches!(
        b.build(),
        Err(DynamicsError::DiamondSharedDriver { .. })
    ));
    // "their endpoints differ"
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(chain(&s, "left", &["a1"], "a3"))
        .ik(chain(&s, "right", &["a2"], "a3"));
    b.diamond(DiamondConstraint::new("d", "left", "right").unwrap());
    assert!(matches!(
        b.build(),
        Err(DynamicsError::DiamondSameEndpoint { .. })
    ));
    // "bind positions of the branch bases no farther apart than the closure tolerance"
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(chain(&s, "left", &["a1", "a2"], "a3"))
        .ik(chain(&s, "right", &["far"], "far"));
    let b2 = {
        let mut b2 = SkeletonDynamicsBuilder::new(&s);
        b2.ik(chain(&s, "left", &["a2"], "a3"))
            .ik(chain(&s, "right", &["b2"], "b3"));
        b2.diamond(DiamondConstraint::new("d", "left", "right").unwrap());
        b2
    };
    assert!(matches!(
        b2.build(),
        Err(DynamicsError::DiamondBasesApart { .. })
    ));
    // "one branch's driver cannot be an ancestor of the other base"
    b.ik(chain(&s, "left", &["root"], "a1"))
        .ik(chain(&s, "right", &["b1"], "b2"));
    b.diamond(DiamondConstraint::new("d", "left", "right").unwrap());
    let e = b.build().unwrap_err();
    assert!(
        matches!(
            e,
            DynamicsError::DiamondAncestor { .. } | DynamicsError::DiamondBasesApart { .. }
        ),
        "{e:?}"
    );
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(chain(&s, "left", &["root", "a1"], "a2"))
        .ik(chain(&s, "right", &["b1"], "b2"));
    b.diamond(DiamondConstraint::with_params("d", "left", "right", 8, 2.0).unwrap());
    assert!(matches!(
        b.build(),
        Err(DynamicsError::DiamondAncestor { .. })
    ));
}

#[test]
fn attach_mounts_and_from_model_copies() {
    let s = skeleton();
    let mut model = Model::new(s.clone());
    assert!(model.dynamics().is_empty());
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(chain(&s, "c", &["a1"], "a2"));
    let d = b.attach(&mut model).unwrap();
    assert!(Arc::ptr_eq(&d, model.dynamics()));
    let copy = SkeletonDynamicsBuilder::from_model(&model);
    assert_eq!(copy.chains().len(), 1);
    // Another skeleton (even an identical one) is not this model's.
    let other = SkeletonDynamicsBuilder::new(&skeleton());
    assert_eq!(
        other.attach(&mut model).unwrap_err(),
        DynamicsError::SkeletonMismatch
    );
}

#[test]
fn readers_fill_the_builder() {
    let s = skeleton();
    let reader = |name: &str, b: &mut SkeletonDynamicsBuilder| -> Result<(), DynamicsError> {
        let c = IkChain::new(
            name,
            b.bone("t")?,
            b.bone("a3")?,
            vec![IkLink::new(b.bone("a1")?), IkLink::new(b.bone("a2")?)],
        )?;
        b.ik(c);
        Ok(())
    };
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.read("left-arm", &reader).unwrap();
    assert_eq!(b.build().unwrap().ik_chains()[0].name(), "left-arm");
    let failing = |_: &str, b: &mut SkeletonDynamicsBuilder| -> Result<(), DynamicsError> {
        b.bone("missing").map(|_| ())
    };
    assert!(matches!(
        SkeletonDynamicsBuilder::new(&s).read("x", &failing),
        Err(DynamicsError::UnknownBone { .. })
    ));
}

#[test]
fn hinge_example_of_the_spec_builds() {
    let s = skeleton();
    let elbow = Hinge::new(Vec3::Z, Vec3::X, -PI / 2.0, 0.0).unwrap();
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(IkChain::new(
        "left-arm",
        id(&s, "t"),
        id(&s, "a3"),
        vec![
            IkLink::new(id(&s, "a1")),
            IkLink::with_joint(id(&s, "a2"), IkJoint::Hinge(elbow)),
        ],
    )
    .unwrap());
    assert!(b.build().is_ok());
}

#[test]
fn definitions_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<SkeletonDynamics>();
    assert_send_sync::<Model>();
    assert_send_sync::<sinew::SkeletonInstance>();
}

#[test]
fn a_diamond_replaces_a_same_named_closure() {
    let s = skeleton();
    let mut b = diamond_builder(&s);
    b.diamond(DiamondConstraint::new("d", "left", "right").unwrap());
    b.diamond(DiamondConstraint::with_params("d", "left", "right", 7, 1e-3).unwrap());
    let d = b.build().unwrap();
    assert_eq!(d.diamonds().len(), 1, "same name: replaced, not added");
    assert_eq!(
        (d.diamonds()[0].iterations(), d.diamonds()[0].tolerance()),
        (7, 1e-3)
    );
}

#[test]
fn ownership_of_effectors_links_and_constraint_targets() {
    let s = skeleton();
    let stranger = BoneId::new(200);
    let out_of_range = |b: &SkeletonDynamicsBuilder| {
        matches!(
            b.build(),
            Err(DynamicsError::BoneOutOfRange { index: 200, .. })
        )
    };
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(IkChain::new("c", id(&s, "a3"), stranger, vec![IkLink::new(id(&s, "a1"))]).unwrap());
    assert!(out_of_range(&b), "effector");
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(IkChain::new("c", id(&s, "a3"), id(&s, "a3"), vec![IkLink::new(stranger)]).unwrap());
    assert!(out_of_range(&b), "link");
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.pose(BonePoseConstraint::new(stranger, None, Some(Vec3::X)).unwrap());
    assert!(out_of_range(&b), "constraint target");
}

/// The spec's builder path: a builder made with `new(model.skeleton())` starts from what the
/// model has mounted (e.g. what a reader put there); `empty` and `clear` start from nothing.
#[test]
fn new_builders_start_from_the_mounted_definitions() {
    let s = skeleton();
    let mut model = Model::new(s.clone());
    let mut reader = SkeletonDynamicsBuilder::new(&s);
    reader
        .ik(chain(&s, "x", &["a1"], "a2"))
        .pose(BonePoseConstraint::new(id(&s, "b1"), None, Some(Vec3::X)).unwrap())
        .physics(Physics::new(vec![], vec![], Vec3::splat(2.0), false, true, 1.0, vec![]).unwrap());
    reader.attach(&mut model).unwrap();

    // Adding a chain keeps the mounted chain, constraint and physics table.
    let mut b = SkeletonDynamicsBuilder::new(model.skeleton());
    b.ik(chain(&s, "y", &["b1"], "b2"));
    let d = b.attach(&mut model).unwrap();
    assert_eq!(
        d.ik_chains().iter().map(|c| c.name()).collect::<Vec<_>>(),
        ["x", "y"]
    );
    assert_eq!(d.pose_constraints().len(), 1);
    assert_eq!(d.physics().unit_scale(), Vec3::splat(2.0));
    // A same-named chain replaces the mounted one in place.
    let mut b = SkeletonDynamicsBuilder::new(model.skeleton());
    b.ik(chain(&s, "x", &["a1", "a2"], "a3"));
    let d = b.attach(&mut model).unwrap();
    assert_eq!(d.ik_chains().len(), 2);
    assert_eq!(d.chain("x").unwrap().links().len(), 2);
    // Validation covers the merged whole: a chain reusing a mounted chain's driver fails as
    // it would had both been added to one builder.
    let together = {
        let mut one = SkeletonDynamicsBuilder::from_model(&model);
        one.ik(chain(&s, "z", &["a1"], "a2"));
        one.build().map(|_| ())
    };
    let mut b = SkeletonDynamicsBuilder::new(model.skeleton());
    b.ik(chain(&s, "z", &["a1"], "a2"));
    assert_eq!(b.attach(&mut model).map(|_| ()), together);

    // `empty` replaces everything; so does `clear` on any builder.
    let mut b = SkeletonDynamicsBuilder::empty(model.skeleton());
    b.ik(chain(&s, "y", &["b1"], "b2"));
    let d = b.attach(&mut model).unwrap();
    assert_eq!(d.ik_chains().len(), 1);
    assert!(d.pose_constraints().is_empty());
    assert_eq!(d.physics().unit_scale(), Vec3::ONE);
    let mut b = SkeletonDynamicsBuilder::new(model.skeleton());
    b.ik(chain(&s, "q", &["a1"], "a2")).clear();
    assert!(b.attach(&mut model).unwrap().is_empty());
}

/// `SkeletonBuilder::dynamics`: the callback runs after the skeleton is built, its definitions
/// are validated and mounted by `build_model`; a second call replaces it; `clear_dynamics`
/// removes it; a foreign bone id in it is refused.
#[test]
fn skeleton_builder_dynamics_callback() {
    use sinew::skeleton::BuildModelError;
    let bones = || {
        SkeletonBuilder::new()
            .bone("root", Parent::Root, Transform::IDENTITY)
            .bone("a1", "root", Transform::from_translation(Vec3::Y))
            .bone("a2", "a1", Transform::from_translation(Vec3::Y))
            .bone("a3", "a2", Transform::from_translation(Vec3::Y))
    };
    let arm = |_: &Arc<Skeleton>, b: &mut SkeletonDynamicsBuilder, name: &str| {
        let (a1, a2, a3) = (b.bone("a1")?, b.bone("a2")?, b.bone("a3")?);
        b.ik(IkChain::new(
            name,
            a3,
            a3,
            vec![IkLink::new(a1), IkLink::new(a2)],
        )?);
        Ok(())
    };
    let model = bones()
        .dynamics(move |s, b| arm(s, b, "first"))
        .build_model()
        .unwrap();
    assert_eq!(model.dynamics().ik_chains().len(), 1);
    assert!(model.dynamics().chain("first").is_some());
    // Replaced, not added.
    let model = bones()
        .dynamics(move |s, b| arm(s, b, "first"))
        .dynamics(move |s, b| arm(s, b, "second"))
        .build_model()
        .unwrap();
    assert!(
        model.dynamics().chain("first").is_none() && model.dynamics().chain("second").is_some()
    );
    // Removed.
    let model = bones()
        .dynamics(move |s, b| arm(s, b, "first"))
        .clear_dynamics()
        .build_model()
        .unwrap();
    assert!(model.dynamics().ik_chains().is_empty());
    assert!(bones()
        .dynamics(move |s, b| arm(s, b, "x"))
        .clear()
        .bone("r", Parent::Root, Transform::IDENTITY)
        .build_model()
        .unwrap()
        .dynamics()
        .ik_chains()
        .is_empty());
    // A bone of another skeleton inside the callback.
    let other = skeleton();
    let stranger = id(&other, "a3");
    let err = bones()
        .dynamics(move |s, b| {
            let f = |n: &str| s.find(n).unwrap();
            b.ik(IkChain::new(
                "c",
                stranger,
                f("a3"),
                vec![IkLink::new(f("a2"))],
            )?);
            Ok(())
        })
        .build_model()
        .unwrap_err();
    assert!(
        matches!(
            err,
            BuildModelError::Dynamics(DynamicsError::ForeignBone { .. })
        ),
        "{err}"
    );
    // A wrong bone name inside the callback is the build's error, not a panic.
    let err = bones()
        .dynamics(|_, b| {
            b.bone("no such bone")?;
            Ok(())
        })
        .build_model()
        .unwrap_err();
    assert!(
        matches!(
            err,
            BuildModelError::Dynamics(DynamicsError::UnknownBone { .. })
        ),
        "{err}"
    );
    // `build` builds no model: it refuses to drop the callback.
    assert_eq!(
        bones()
            .dynamics(move |s, b| arm(s, b, "x"))
            .build()
            .unwrap_err(),
        sinew::SkeletonError::DynamicsCallback
    );
    // `build_model` without a callback: the bare model.
    assert!(bones()
        .build_model()
        .unwrap()
        .dynamics()
        .ik_chains()
        .is_empty());
}

/// World-space inheritance (a PMX local append) reads the source's world pose relative to its
/// bind pose, composed from its ancestors' current locals; its target may not be an ancestor of
/// the source, and it is ordered after every constraint on the source's ancestry.
#[test]
fn world_space_inheritance_reads_the_source_world_pose() {
    let s = skeleton();
    // b2 inherits a3's world motion: a1 turned about Z and a2 moved move a3 in the world.
    let world = |translation: bool, rotation: bool| {
        TransformInheritance::new(id(&s, "a3"), 0.5, translation, rotation)
            .unwrap()
            .in_space(InheritanceSpace::World)
    };
    assert_eq!(world(true, true).space(), InheritanceSpace::World);
    assert_eq!(
        TransformInheritance::new(id(&s, "a3"), 0.5, true, true)
            .unwrap()
            .space(),
        InheritanceSpace::Local
    );
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.pose(BonePoseConstraint::new(id(&s, "b2"), Some(world(true, true)), None).unwrap());
    // a constraint on a3's ancestor a2 (inheriting far's local motion) must come first.
    let local = TransformInheritance::new(id(&s, "far"), 1.0, true, false).unwrap();
    b.pose(BonePoseConstraint::new(id(&s, "a2"), Some(local), None).unwrap());
    let d = b.build().unwrap();
    let order: Vec<BoneId> = d.pose_constraints().iter().map(|c| c.bone()).collect();
    assert_eq!(order, [id(&s, "a2"), id(&s, "b2")]);

    let mut model = Model::new(Arc::clone(&s));
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.pose(BonePoseConstraint::new(id(&s, "b2"), Some(world(true, true)), None).unwrap());
    b.pose(BonePoseConstraint::new(id(&s, "a2"), Some(local), None).unwrap());
    b.attach(&mut model).unwrap();
    let mut inst = sinew::SkeletonInstance::new(&model);
    let turn = glam::Quat::from_rotation_z(0.4);
    inst.input_mut()[id(&s, "a1").index()].rotation = turn;
    inst.input_mut()[id(&s, "far").index()].translation += Vec3::new(0.0, 0.0, 2.0);
    inst.update_transform();
    // a3's world pose: a1 turned, a2 moved 2 along Z (from far); relative to its bind pose.
    let rest = s.rest_world();
    let a2 = rest[id(&s, "a1").index()]
        * glam::Affine3A::from_quat(turn)
        * glam::Affine3A::from_translation(Vec3::new(-1.0, 1.0, 2.0));
    let a3 = a2 * glam::Affine3A::from_translation(Vec3::new(1.0, 1.0, 0.0));
    let moved = Vec3::from(a3.translation - rest[id(&s, "a3").index()].translation);
    let local = inst.state().locals()[id(&s, "b2").index()];
    let expected = s.rest(id(&s, "b2")).translation + moved * 0.5;
    assert!(
        local.translation.abs_diff_eq(expected, 1e-5),
        "{} vs {expected}",
        local.translation
    );
    let expected = glam::Quat::from_rotation_z(0.2);
    assert!(
        local.rotation.abs_diff_eq(expected, 1e-5),
        "{} vs {expected}",
        local.rotation
    );

    // The target may not be an ancestor of the source.
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.pose(BonePoseConstraint::new(id(&s, "a1"), Some(world(true, false)), None).unwrap());
    assert!(matches!(
        b.build(),
        Err(DynamicsError::InheritanceCycle { .. })
    ));
}
