//! The MMD reader (skeleton-dynamics-api.md "Actual Default Behavior of Format Readers") on a
//! leg rig built in code and, when the shared assets are present, on miku_v2.pmd.

mod common;

use std::sync::Arc;

use glam::{Quat, Vec3};
use sinew::dynamics::{BodyMode, ChainSolver, TargetMode};
use sinew::ik::IkJoint;
use sinew::SkeletonInstance;
use sinew_mmd::pmx::{PmxAppend, PmxBoneFlags, PmxBoneTail, PmxEncoding, PmxIk, PmxIkLink};
use sinew_mmd::{MmdModel, MmdOrder, MmdReaderOptions, Pmx};

fn leg_pmx() -> Pmx {
    let mut pmx = common::fixtures::pmx_fixture(2.0, PmxEncoding::Utf16Le, 2);
    let f = PmxBoneFlags::ROTATABLE | PmxBoneFlags::VISIBLE | PmxBoneFlags::OPERABLE;
    let bone = common::fixtures::pmx_bone;
    let mut bones = common::fixtures::pmx_leg_bones(-2.0);
    bones.push(bone("両目", 0, Vec3::new(0.0, 20.0, 0.0), f));
    let mut eye = bone(
        "左目",
        5,
        Vec3::new(0.3, 20.0, -0.5),
        f | PmxBoneFlags::APPEND_ROTATE,
    );
    eye.append = Some(PmxAppend {
        parent: 5,
        ratio: 0.5,
    });
    bones.push(eye);
    let mut twist = bone(
        "左腕捩",
        0,
        Vec3::new(3.0, 15.0, 0.0),
        f | PmxBoneFlags::FIXED_AXIS,
    );
    twist.fixed_axis = Some(Vec3::new(2.0, 0.0, 0.0));
    bones.push(twist);
    let mut broken = bone("壊れたIK", 0, Vec3::ZERO, f | PmxBoneFlags::IK);
    broken.ik = Some(PmxIk {
        effector: 3,
        loop_count: 0,
        limit_angle: 1.0,
        links: vec![PmxIkLink {
            bone: 2,
            limit: None,
        }],
    });
    bones.push(broken);
    pmx.bones = bones;
    for (i, r) in pmx.rigid_bodies.iter_mut().enumerate() {
        r.bone = [1, 2, -1][i];
    }
    pmx.joints.truncate(1);
    let mut bad = pmx.joints[0].clone();
    bad.name = "self".into();
    bad.body_b = bad.body_a;
    pmx.joints.push(bad);
    pmx
}

/// World matrices (file order) of `m` evaluated as MMD runtimes do (its shared staged
/// definitions) with the left foot's IK bone moved by `lift`.
fn mmd_world(m: &MmdModel, lift: Vec3) -> Vec<glam::Affine3A> {
    let definitions = m.definitions(MmdOrder::Staged).unwrap();
    let mut inst = SkeletonInstance::new(definitions.model());
    let ik_bone = definitions
        .bone_of_file(m.bone_index("左足ＩＫ").unwrap())
        .unwrap();
    inst.input_mut()[ik_bone.index()].translation += lift;
    inst.update_transform();
    (0..m.bones().len())
        .map(|i| inst.world()[definitions.bone_of_file(i).unwrap().index()])
        .collect()
}

fn leg_model() -> MmdModel {
    let bytes = leg_pmx().to_bytes();
    MmdModel::from_bytes(&bytes).unwrap()
}

#[test]
fn ik_chains_follow_the_reader_rules() {
    let m = leg_model();
    let (model, report) = m.to_sinew_model(MmdReaderOptions::default()).unwrap();
    let d = model.dynamics();
    let s = model.skeleton();
    // "MMD uses the controller bone name as the chain name"
    let chain = d
        .chain("左足ＩＫ")
        .expect("chain named after its controller");
    assert_eq!(s.name(chain.controller()), "左足ＩＫ");
    assert_eq!(s.name(chain.effector()), "左足首");
    // "reverses chains from the file's tip-to-base to base-to-tip"
    let names: Vec<&str> = chain.links().iter().map(|l| s.name(l.bone)).collect();
    assert_eq!(names, ["左足", "左ひざ"]);
    // "tolerance 1e-4, step angle = |limit|, authored pose takeover"
    assert_eq!(chain.tolerance(), 1e-4);
    assert_eq!(chain.max_rotation_step(), 2.0);
    assert!(chain.replace_authored_rotation());
    assert_eq!(chain.iterations(), 40);
    assert_eq!(chain.solver(), ChainSolver::Ccd);
    assert_eq!(chain.target_mode(), TargetMode::Position);
    // "single-axis Euler limits are converted to Hinge" (the box is kept for CCD)
    let knee = chain.links()[1];
    assert!(matches!(knee.joint, Some(IkJoint::Hinge(_))));
    assert!(knee.limit.is_some());
    assert!(chain.links()[0].limit.is_none() && chain.links()[0].joint.is_none());
    // "non-positive iteration count: the chain does not enter the definition"
    assert!(d.chain("壊れたIK").is_none());
    assert!(report.notes.iter().any(|n| n.contains("壊れたIK")));
}

#[test]
fn bone_constraints_and_physics_follow_the_reader_rules() {
    let m = leg_model();
    let (model, report) = m.to_sinew_model(MmdReaderOptions::default()).unwrap();
    let d = model.dynamics();
    let s = model.skeleton();
    let eye = d
        .pose_constraint(s.find("左目").unwrap())
        .expect("append becomes inheritance");
    let inh = eye.inheritance().unwrap();
    assert_eq!(
        (
            s.name(inh.source()),
            inh.weight(),
            inh.rotation(),
            inh.translation()
        ),
        ("両目", 0.5, true, false)
    );
    let twist = d.pose_constraint(s.find("左腕捩").unwrap()).unwrap();
    assert_eq!(twist.fixed_axis(), Some(Vec3::X));
    let p = d.physics();
    assert_eq!(p.bodies().len(), 3, "authored order, all bodies");
    assert_eq!(p.bodies()[0].bone(), s.find("左足"));
    assert_eq!(p.bodies()[2].bone(), None, "a body without a bone");
    assert_eq!(
        p.bodies().iter().map(|b| b.mode()).collect::<Vec<_>>(),
        [
            BodyMode::Kinematic,
            BodyMode::Dynamic,
            BodyMode::DynamicRotation
        ]
    );
    // The file stores the groups a body collides with (body i: all but its own group i);
    // the table holds the complement.
    for (i, b) in p.bodies().iter().enumerate() {
        assert_eq!(b.desc().collision_group, i as u8);
        assert_eq!(b.desc().non_collision_mask, 1u64 << i, "body {i}");
    }
    assert!(p.bodies()[0].collides_with(&p.bodies()[1]));
    // MMD's Ry·Rx·Rz Euler angles become the generic Rx·Ry·Rz ones.
    let mmd = sinew_mmd::dynamics_reader::mmd_euler_to_quat(Vec3::new(0.1, 0.2, 0.3));
    let generic = sinew::math::quat_from_euler_xyz(p.bodies()[0].desc().rotation);
    assert!(mmd.dot(generic).abs() > 1.0 - 1e-6);
    // "invalid or self-connected joints do not enter the simulatable table"
    assert_eq!(p.joints().len(), 1);
    assert!(report.notes.iter().any(|n| n.contains("\"self\"")));
    assert!(!p.profile_required() && !p.affine_writeback() && p.profile_radius_scale() == 1.0);
}

#[test]
fn the_instance_solves_the_read_chain() {
    let m = leg_model();
    let (model, _) = m.to_sinew_model(MmdReaderOptions::default()).unwrap();
    let mut inst = SkeletonInstance::new(&model);
    let ik_bone = model.skeleton().find("左足ＩＫ").unwrap();
    // Lift the foot target by 2 units and forward 1 (MMD: −Z is front).
    inst.input_mut()[ik_bone.index()].translation += Vec3::new(0.0, 2.0, -1.0);
    inst.update_transform();
    let r = inst.ik_result("左足ＩＫ").unwrap();
    assert!(r.residual < 1e-2, "{r:?}");
    // The staged definitions evaluate the same file without producing non-finite
    // matrices (their CCD follows MMD's rules: sinew-character's conformance tests).
    assert!(mmd_world(&m, Vec3::new(0.0, 2.0, -1.0))
        .iter()
        .all(|w| w.is_finite()));
}

#[test]
fn miku_reads_into_definitions() {
    let Some(bytes) = common::read_asset("miku_v2.pmd") else {
        return;
    };
    let m = MmdModel::from_bytes(&bytes).unwrap();
    assert_eq!(m.bones().len(), 140);
    let (model, report) = m.to_sinew_model(MmdReaderOptions::default()).unwrap();
    let d = model.dynamics();
    assert_eq!(d.ik_chains().len(), 7, "{:?}", report.notes);
    assert_eq!(d.physics().bodies().len(), 45);
    assert_eq!(d.physics().joints().len(), 27);
    assert!(d.chain("左足ＩＫ").is_some() && d.chain("右つま先ＩＫ").is_some());
}

/// PMX "D-bones" (a deform chain appending the leg's rotations, as most models weight their
/// meshes to): after leg IK they follow their twins, under the specification's reader and
/// the staged definitions alike.
#[test]
fn d_bones_follow_the_ik_leg_in_both_runtimes() {
    let mut pmx = leg_pmx();
    let twin = |name: &str| pmx.bones.iter().position(|b| b.name == name).unwrap() as i32;
    let (thigh, knee) = (twin("左足"), twin("左ひざ"));
    let mut d_bone = |name: &str, parent: i32, of: i32| {
        let mut b = pmx.bones[of as usize].clone();
        b.name = name.into();
        b.parent = parent;
        b.ik = None;
        b.flags = PmxBoneFlags(b.flags.0 | PmxBoneFlags::APPEND_ROTATE);
        b.append = Some(PmxAppend {
            parent: of,
            ratio: 1.0,
        });
        pmx.bones.push(b);
        pmx.bones.len() as i32 - 1
    };
    let thigh_d = d_bone("左足D", 0, thigh);
    let knee_d = d_bone("左ひざD", thigh_d, knee);
    let m = MmdModel::from_bytes(&pmx.to_bytes()).unwrap();
    let pairs = [
        (thigh as usize, thigh_d as usize),
        (knee as usize, knee_d as usize),
    ];

    let (model, _) = m.to_sinew_model(MmdReaderOptions::default()).unwrap();
    let mut inst = SkeletonInstance::new(&model);
    let ik_bone = model.skeleton().find("左足ＩＫ").unwrap();
    inst.input_mut()[ik_bone.index()].translation += Vec3::new(0.0, 2.0, -1.0);
    inst.update_transform();
    let s = model.skeleton();
    let id = |file: usize| s.from_source_index(file).unwrap().index();
    for (t, d) in pairs {
        let (a, b) = (inst.world()[id(t)], inst.world()[id(d)]);
        let bent = Quat::from_mat3a(&a.matrix3).angle_between(Quat::IDENTITY);
        assert!(bent > 0.05 || t == thigh as usize, "the leg did not bend");
        assert!(
            a.abs_diff_eq(b, 1e-4),
            "generic: {} vs its D-bone",
            m.bones()[t].name
        );
    }

    let world = mmd_world(&m, Vec3::new(0.0, 2.0, -1.0));
    for (t, d) in pairs {
        assert!(world[t].abs_diff_eq(world[d], 1e-4), "staged definitions");
    }
}

/// "positive iteration counts are capped at 256"; "DIRECTION is used when there is a single
/// link, the controller/effector bind positions coincide, and the controller has a vector tail".
#[test]
fn iteration_cap_and_the_direction_rule() {
    let eye_rig = |ik_at: Vec3, tail: PmxBoneTail, loops: i32| {
        let mut pmx = leg_pmx();
        pmx.bones[4].ik.as_mut().unwrap().loop_count = 1000;
        let base = pmx.bones.len() as i32;
        let mut eye = pmx.bones[5].clone();
        eye.name = "右目".into();
        eye.parent = 0;
        eye.position = Vec3::new(-0.3, 20.0, 0.0);
        eye.append = None;
        eye.flags = PmxBoneFlags(PmxBoneFlags::ROTATABLE | PmxBoneFlags::OPERABLE);
        let mut tip = eye.clone();
        tip.name = "右目先".into();
        tip.parent = base;
        tip.position = Vec3::new(-0.3, 20.0, -1.0);
        let mut ik = eye.clone();
        ik.name = "右目ＩＫ".into();
        ik.position = ik_at;
        ik.tail = tail;
        ik.flags = PmxBoneFlags(ik.flags.0 | PmxBoneFlags::IK | PmxBoneFlags::MOVABLE);
        ik.ik = Some(PmxIk {
            effector: base + 1,
            loop_count: loops,
            limit_angle: 1.0,
            links: vec![PmxIkLink {
                bone: base,
                limit: None,
            }],
        });
        pmx.bones.extend([eye, tip, ik]);
        let m = MmdModel::from_bytes(&pmx.to_bytes()).unwrap();
        let (model, _) = m.to_sinew_model(MmdReaderOptions::default()).unwrap();
        let d = model.dynamics();
        (
            d.chain("左足ＩＫ").unwrap().params().iterations,
            d.chain("右目ＩＫ").unwrap().params().target_mode,
            d.chain("右目ＩＫ").unwrap().params().iterations,
        )
    };
    let on_tip = Vec3::new(-0.3, 20.0, -1.0);
    let vector = PmxBoneTail::Offset(Vec3::new(0.0, 0.0, -1.0));
    let (leg, mode, eye) = eye_rig(on_tip, vector, 3);
    assert_eq!(leg, 256, "1000 iterations in the file");
    assert_eq!((mode, eye), (TargetMode::Direction, 3));
    // Off the effector, or a tail given as a bone: position mode.
    let (_, mode, _) = eye_rig(on_tip + Vec3::Y, vector, 3);
    assert_eq!(mode, TargetMode::Position);
    let (_, mode, _) = eye_rig(on_tip, PmxBoneTail::Bone(0), 3);
    assert_eq!(mode, TargetMode::Position);
}

/// `read_ik` and `read_bone_constraints` on their own fill only their part of the builder, the
/// same as the whole reader does.
#[test]
fn partial_readers_fill_their_part_only() {
    use sinew::dynamics::SkeletonDynamicsBuilder;
    use sinew_mmd::dynamics_reader::{read_bone_constraints, read_ik, ReadReport};
    let m = leg_model();
    let (whole, _) = m.to_sinew_model(MmdReaderOptions::default()).unwrap();
    let options = MmdReaderOptions::default();
    let mut b = SkeletonDynamicsBuilder::new(m.skeleton());
    read_ik(&m, &mut b, &options, &mut ReadReport::default()).unwrap();
    let ik = b.build().unwrap();
    assert!(ik.pose_constraints().is_empty() && ik.physics().bodies().is_empty());
    assert_eq!(ik.ik_chains(), whole.dynamics().ik_chains());
    let mut b = SkeletonDynamicsBuilder::new(m.skeleton());
    read_bone_constraints(&m, &mut b, &mut ReadReport::default()).unwrap();
    let constraints = b.build().unwrap();
    assert!(constraints.ik_chains().is_empty() && constraints.physics().bodies().is_empty());
    assert_eq!(
        constraints.pose_constraints(),
        whole.dynamics().pose_constraints()
    );
}

/// `SkeletonDynamicsBuilder::new(model.skeleton()).ik(x).attach(&mut model)` on a read MMD
/// model adds `x` and keeps every chain, constraint and the physics table the reader mounted.
#[test]
fn builders_add_to_what_the_reader_mounted() {
    use sinew::dynamics::{IkChain, IkLink, SkeletonDynamicsBuilder};
    let m = leg_model();
    let (mut model, _) = m.to_sinew_model(MmdReaderOptions::default()).unwrap();
    let before = Arc::clone(model.dynamics());
    let s = Arc::clone(model.skeleton());
    let f = |n: &str| s.find(n).unwrap();
    let mut b = SkeletonDynamicsBuilder::new(&s);
    b.ik(IkChain::new("look", f("両目"), f("左目"), vec![IkLink::new(f("両目"))]).unwrap());
    let after = b.attach(&mut model).unwrap();
    assert_eq!(after.ik_chains().len(), before.ik_chains().len() + 1);
    assert_eq!(after.pose_constraints(), before.pose_constraints());
    assert_eq!(
        after.physics().bodies().len(),
        before.physics().bodies().len()
    );
    assert!(!before.physics().bodies().is_empty());
}

/// `MmdOrder::Staged`: a child listed before its parent hangs from the
/// origin in the evaluation skeleton (as MMD evaluates it), keeps its offset as rest and its
/// file position as bind; a well-formed model keeps its own skeleton.
#[test]
fn evaluation_skeleton_follows_mmd_order() {
    let mut pmx = leg_pmx();
    let flags = PmxBoneFlags::ROTATABLE | PmxBoneFlags::VISIBLE | PmxBoneFlags::OPERABLE;
    let n = pmx.bones.len();
    // Bone `n` hangs from bone `n + 1`, listed after it.
    pmx.bones.push(common::fixtures::pmx_bone(
        "child",
        (n + 1) as i32,
        Vec3::new(1.0, 3.0, 0.0),
        flags,
    ));
    pmx.bones.push(common::fixtures::pmx_bone(
        "parent",
        0,
        Vec3::new(1.0, 2.0, 0.0),
        flags,
    ));
    let model = MmdModel::from_bytes(&pmx.to_bytes()).unwrap();
    assert_eq!(model.bones_evaluated_before_parent(), vec![n]);
    let s = model.evaluation_skeleton();
    assert!(!Arc::ptr_eq(&s, model.skeleton()));
    let child = s.from_source_index(n).unwrap();
    assert_eq!(s.parent(child), None);
    assert!((s.rest(child).translation - Vec3::new(0.0, 1.0, 0.0)).length() < 1e-6);
    let (generic, _) = model
        .to_sinew_model(MmdReaderOptions::mmd_runtime())
        .unwrap();
    assert!(Arc::ptr_eq(generic.skeleton(), &s));
    let mut inst = SkeletonInstance::new(&generic);
    inst.update_transform();
    // At rest MMD places it at its offset (the parent seen as the identity).
    assert!(
        (Vec3::from(inst.world()[child.index()].translation) - Vec3::new(0.0, 1.0, 0.0)).length()
            < 1e-6
    );

    let well_formed = MmdModel::from_bytes(&leg_pmx().to_bytes()).unwrap();
    assert!(well_formed.bones_evaluated_before_parent().is_empty());
    assert!(Arc::ptr_eq(
        &well_formed.evaluation_skeleton(),
        well_formed.skeleton()
    ));
}

/// The specification's reader defaults (authored takeover, fixed axes as constraints) with
/// MMD's evaluation order carried in the definitions (`MmdOrder::BoneByBone`):
/// miku_v2 (no `StagedGap`) in a static pose with both legs' IK moved evaluates as the staged
/// definitions do.
#[test]
fn bone_by_bone_definitions_agree_with_staged_on_miku() {
    let Some(bytes) = common::read_asset("miku_v2.pmd") else {
        return;
    };
    let m = MmdModel::from_bytes(&bytes).unwrap();
    let staged = m.to_sinew_model(MmdReaderOptions::default()).unwrap().0;
    let ordered = (m.to_sinew_model(MmdReaderOptions {
        order: MmdOrder::BoneByBone,
        ..MmdReaderOptions::default()
    }))
    .unwrap()
    .0;
    assert!(staged.dynamics().evaluation_order().is_none());
    let order = ordered.dynamics().evaluation_order().expect("an order");
    assert_eq!(order.bones().len(), 140);
    let mut worlds = Vec::new();
    for model in [&staged, &ordered] {
        let mut inst = SkeletonInstance::new(model);
        let s = model.skeleton();
        let input = inst.input_mut();
        input[s.find("左足ＩＫ").unwrap().index()].translation += Vec3::new(0.0, 2.0, -1.0);
        input[s.find("右足ＩＫ").unwrap().index()].translation += Vec3::new(0.5, 1.0, 0.5);
        input[s.find("上半身").unwrap().index()].rotation = Quat::from_rotation_y(0.4);
        input[s.find("左腕").unwrap().index()].rotation = Quat::from_rotation_z(0.6);
        inst.update_transform();
        worlds.push(inst.world().to_vec());
    }
    // Bones MMD evaluates before their parent (the IK tips) see the identity there bone by
    // bone; staged, their parent.
    let early = m.bones_evaluated_before_parent();
    assert_eq!(early.len(), 7);
    let s = staged.skeleton();
    let mut worst = 0.0f32;
    for (i, (a, b)) in worlds[0].iter().zip(&worlds[1]).enumerate() {
        let file = s.source_index(sinew::BoneId::new(i as u16));
        if !early.contains(&file) {
            worst = worst.max((a.translation - b.translation).length());
        }
    }
    assert!(worst < 1e-4, "{worst}");
}
