//! Load-time validation (`sinew_mmd::validate`): every defect the evaluation would trust is
//! refused or repaired with a warning, and what loads evaluates without a crash, in time
//! linear in the model's size. Each test fails without its check (a stack overflow, an endless
//! loop, a quadratic walk or a non-finite pose).

use std::sync::Arc;

use glam::{Quat, Vec2, Vec3, Vec4};
use sinew::instance::Stages;
use sinew::SkeletonInstance;
use sinew_mmd::pmx::{
    PhysicsMode, Pmx, PmxAppend, PmxBone, PmxBoneFlags, PmxBoneTail, PmxDeform, PmxGlobals, PmxIk,
    PmxIkLink, PmxJoint, PmxJointKind, PmxRigidBody, PmxVertex, RigidShape,
};
use sinew_mmd::validate::{MAX_APPEND_RATIO, MAX_COORDINATE, MAX_IK_NESTING};
use sinew_mmd::{MmdError, MmdModel, MmdOrder};

fn bone(name: &str, parent: i32, y: f32) -> PmxBone {
    PmxBone {
        name: name.to_owned(),
        name_en: String::new(),
        position: Vec3::new(0.0, y, 0.0),
        parent,
        layer: 0,
        flags: PmxBoneFlags(PmxBoneFlags::ROTATABLE | PmxBoneFlags::VISIBLE),
        tail: PmxBoneTail::Offset(Vec3::ZERO),
        append: None,
        fixed_axis: None,
        local_axes: None,
        external_parent: None,
        ik: None,
    }
}

/// A chain `b0 → b1 → … → b{n-1}` (each the parent of the next), one unit apart.
fn chain(n: usize) -> Vec<PmxBone> {
    (0..n)
        .map(|i| bone(&format!("b{i}"), i as i32 - 1, i as f32))
        .collect()
}

fn pmx(bones: Vec<PmxBone>) -> Pmx {
    Pmx {
        version: 2.0,
        globals: PmxGlobals::default(),
        extra_globals: Vec::new(),
        name: "validation".into(),
        name_en: String::new(),
        comment: String::new(),
        comment_en: String::new(),
        vertices: vec![PmxVertex {
            position: Vec3::ZERO,
            normal: Vec3::Y,
            uv: Vec2::ZERO,
            additional_uvs: [Vec4::ZERO; 4],
            deform: PmxDeform::Bdef1 { bone: 0 },
            edge_scale: 1.0,
        }],
        indices: Vec::new(),
        textures: Vec::new(),
        materials: Vec::new(),
        bones,
        morphs: Vec::new(),
        display_frames: Vec::new(),
        rigid_bodies: Vec::new(),
        joints: Vec::new(),
        soft_bodies: Vec::new(),
    }
}

/// Gives bone `owner` an IK chain.
fn ik(bones: &mut [PmxBone], owner: usize, effector: i32, links: &[i32]) {
    let b = &mut bones[owner];
    b.flags = b.flags.with(PmxBoneFlags::IK, true);
    b.ik = Some(PmxIk {
        effector,
        loop_count: 40,
        limit_angle: 1.0,
        links: links
            .iter()
            .map(|&bone| PmxIkLink { bone, limit: None })
            .collect(),
    });
}

/// Loads through the bytes (as a file would come) and evaluates every mode with a pose, in
/// stages and bone by bone.
fn load_and_evaluate(p: &Pmx) -> Result<Arc<MmdModel>, MmdError> {
    let model = Arc::new(MmdModel::from_bytes(&p.to_bytes())?);
    for order in [MmdOrder::Staged, MmdOrder::BoneByBone] {
        let definitions = model.definitions(order).expect("definitions");
        let mut inst = SkeletonInstance::new(definitions.model());
        for (i, &b) in definitions.file_bones().iter().enumerate() {
            inst.input_mut()[b.index()].rotation = Quat::from_rotation_z(0.1 * i as f32);
        }
        for mode in ["fk", "grant", "ik", "full"] {
            inst.set_stages(Stages::from_mode(mode).unwrap());
            inst.update_transform();
            assert!(
                inst.world().iter().all(|m| m.is_finite()),
                "{mode}: non-finite world"
            );
        }
    }
    Ok(model)
}

fn has_warning(model: &MmdModel, needle: &str) -> bool {
    model.warnings().iter().any(|w| w.contains(needle))
}

#[test]
fn ik_targeting_its_own_bone_is_ignored() {
    let mut bones = chain(4);
    ik(&mut bones, 3, 3, &[1]);
    let model = load_and_evaluate(&pmx(bones)).unwrap();
    assert!(model.bones()[3].ik.is_none());
    assert!(
        has_warning(&model, "IK effector is the IK bone itself"),
        "{:?}",
        model.warnings()
    );
}

#[test]
fn ik_chains_targeting_each_other_lose_one_chain() {
    // b3 solves towards b4 and b4 towards b3: solving either evaluated the other forever.
    let mut bones = chain(3);
    bones.push(bone("ik_a", 2, 3.0));
    bones.push(bone("ik_b", 2, 4.0));
    ik(&mut bones, 3, 4, &[1]);
    ik(&mut bones, 4, 3, &[1]);
    let model = load_and_evaluate(&pmx(bones)).unwrap();
    assert!(
        model.bones()[3].ik.is_none(),
        "the cycle's lowest bone loses its IK"
    );
    assert!(model.bones()[4].ik.is_some());
    assert!(has_warning(&model, "in a cycle"), "{:?}", model.warnings());
}

#[test]
fn ik_nesting_is_bounded() {
    // IK bone k targets IK bone k+1 (not a cycle, but a chain of nested solves).
    let n = MAX_IK_NESTING + 8;
    let mut bones = chain(3);
    for k in 0..n {
        bones.push(bone(&format!("ik{k}"), 2, 3.0 + k as f32));
    }
    bones.push(bone("end", 2, 100.0));
    for k in 0..n {
        ik(&mut bones, 3 + k, (4 + k) as i32, &[1]);
    }
    let model = load_and_evaluate(&pmx(bones)).unwrap();
    // The chain is cut where it nests too deep: every remaining IK nests at most the limit.
    let depth = |mut b: usize| {
        let mut d = 0;
        while let Some(ik) = &model.bones()[b].ik {
            d += 1;
            b = ik.effector;
        }
        d
    };
    assert!((3..3 + n).all(|b| depth(b) <= MAX_IK_NESTING));
    assert!(
        has_warning(&model, "nests more than"),
        "{:?}",
        model.warnings()
    );
}

#[test]
fn ik_links_off_the_effector_ancestry_are_dropped() {
    // b1 → b2 → b3 (effector); "side" hangs from b0, not an ancestor of b3; the IK bone itself
    // as a link too.
    let mut bones = chain(4);
    bones.push(bone("side", 0, 1.0));
    bones.push(bone("ik", -1, 3.0));
    ik(&mut bones, 5, 3, &[2, 4, 5, 1]);
    let model = load_and_evaluate(&pmx(bones)).unwrap();
    let links: Vec<usize> = model.bones()[5]
        .ik
        .as_ref()
        .unwrap()
        .links
        .iter()
        .map(|l| l.bone)
        .collect();
    assert_eq!(links, [2, 1]);
    assert_eq!(
        model
            .warnings()
            .iter()
            .filter(|w| w.contains("link dropped"))
            .count(),
        2,
        "{:?}",
        model.warnings()
    );
    // Nothing valid left: the IK goes.
    let mut bones = chain(4);
    bones.push(bone("side", 0, 1.0));
    ik(&mut bones, 4, 3, &[4]);
    let model = load_and_evaluate(&pmx(bones)).unwrap();
    assert!(model.bones()[4].ik.is_none());
}

#[test]
fn non_finite_ik_limits_are_refused_as_repairs() {
    let mut bones = chain(4);
    bones.push(bone("ik", -1, 3.0));
    ik(&mut bones, 4, 3, &[2, 1]);
    bones[4].ik.as_mut().unwrap().limit_angle = f32::NAN;
    let model = load_and_evaluate(&pmx(bones.clone())).unwrap();
    assert!(model.bones()[4].ik.is_none());
    bones[4].ik.as_mut().unwrap().limit_angle = 1.0;
    bones[4].ik.as_mut().unwrap().links[0].limit =
        Some((Vec3::splat(f32::NEG_INFINITY), Vec3::ZERO));
    let model = load_and_evaluate(&pmx(bones)).unwrap();
    assert!(model.bones()[4].ik.is_none());
    assert!(has_warning(&model, "not finite"));
}

fn with_append(bones: &mut [PmxBone], i: usize, source: i32, ratio: f32) {
    let b = &mut bones[i];
    b.flags = b
        .flags
        .with(PmxBoneFlags::APPEND_ROTATE, true)
        .with(PmxBoneFlags::APPEND_TRANSLATE, true);
    b.append = Some(PmxAppend {
        parent: source,
        ratio,
    });
}

#[test]
fn append_ratios_out_of_range_are_ignored() {
    for ratio in [
        f32::NAN,
        f32::INFINITY,
        -f32::INFINITY,
        MAX_APPEND_RATIO * 2.0,
        -1e30,
    ] {
        let mut bones = chain(3);
        with_append(&mut bones, 2, 1, ratio);
        let model = load_and_evaluate(&pmx(bones)).unwrap();
        assert!(model.bones()[2].append.is_none(), "{ratio}");
        assert!(has_warning(&model, "append ratio"), "{ratio}");
    }
    // In range (negative included): kept.
    let mut bones = chain(3);
    with_append(&mut bones, 2, 1, -MAX_APPEND_RATIO);
    let model = load_and_evaluate(&pmx(bones)).unwrap();
    assert!(model.bones()[2].append.is_some());
}

#[test]
fn append_cycles_are_broken() {
    let mut bones = chain(5);
    with_append(&mut bones, 2, 3, 1.0);
    with_append(&mut bones, 3, 4, 1.0);
    with_append(&mut bones, 4, 2, 1.0);
    with_append(&mut bones, 1, 2, 0.5); // leads into the cycle, not on it: kept
    let model = load_and_evaluate(&pmx(bones)).unwrap();
    assert!(model.bones()[2].append.is_none());
    assert!(model.bones()[3].append.is_some() && model.bones()[4].append.is_some());
    assert!(model.bones()[1].append.is_some());
    assert_eq!(
        model
            .warnings()
            .iter()
            .filter(|w| w.contains("append cycle"))
            .count(),
        1
    );
    // And the definitions the reader builds from it are accepted.
    model
        .to_sinew_model(sinew_mmd::MmdReaderOptions::default())
        .expect("generic definitions of a repaired model");
}

#[test]
fn non_finite_fixed_axis_is_ignored() {
    let mut bones = chain(3);
    bones[2].flags = bones[2].flags.with(PmxBoneFlags::FIXED_AXIS, true);
    bones[2].fixed_axis = Some(Vec3::new(f32::NAN, 1.0, 0.0));
    let model = load_and_evaluate(&pmx(bones)).unwrap();
    assert!(model.bones()[2].fixed_axis.is_none());
}

#[test]
fn bone_positions_must_be_finite_and_in_range() {
    for bad in [f32::NAN, f32::INFINITY, MAX_COORDINATE * 10.0, -3e38] {
        let mut bones = chain(3);
        bones[1].position.x = bad;
        let e = MmdModel::from_bytes(&pmx(bones).to_bytes()).unwrap_err();
        assert!(matches!(e, MmdError::OutOfRange { .. }), "{bad}: {e}");
        assert!(e.to_string().contains("bone 1 \"b1\" position"), "{e}");
    }
}

#[test]
fn parent_cycles_are_broken_in_linear_time() {
    // One long chain whose first bone's parent is the last: a single cycle through every bone.
    // The old check walked to the root from every bone (quadratic: minutes at 200,000).
    let n = 60_000;
    let mut bones = chain(n);
    bones[0].parent = n as i32 - 1;
    let model = load_and_evaluate(&pmx(bones)).unwrap();
    assert!(
        model.bones()[0].parent.is_none(),
        "the lowest bone of the cycle is the root"
    );
    assert_eq!(
        model
            .warnings()
            .iter()
            .filter(|w| w.contains("parent cycle"))
            .count(),
        1
    );
}

fn body(name: &str, bone: i32, mode: PhysicsMode) -> PmxRigidBody {
    PmxRigidBody {
        name: name.to_owned(),
        name_en: String::new(),
        bone,
        group: 0,
        collision_mask: 0,
        shape: RigidShape::Sphere,
        size: Vec3::splat(0.5),
        position: Vec3::ZERO,
        rotation: Vec3::ZERO,
        mass: 1.0,
        linear_damping: 0.5,
        angular_damping: 0.5,
        restitution: 0.0,
        friction: 0.5,
        mode,
    }
}

#[test]
fn bodies_and_joints_with_bad_references_are_reported() {
    let mut p = pmx(chain(3));
    p.rigid_bodies = vec![
        body("a", 7, PhysicsMode::Dynamic),
        body("b", 2, PhysicsMode::Dynamic),
        body("c", 2, PhysicsMode::DynamicWithBonePosition),
        body("d", 2, PhysicsMode::FollowBone),
    ];
    p.joints = vec![PmxJoint {
        name: "j".into(),
        name_en: String::new(),
        kind: PmxJointKind::Spring6Dof,
        body_a: 1,
        body_b: 9,
        position: Vec3::ZERO,
        rotation: Vec3::ZERO,
        linear_lower: Vec3::ZERO,
        linear_upper: Vec3::ZERO,
        angular_lower: Vec3::ZERO,
        angular_upper: Vec3::ZERO,
        spring_linear: Vec3::ZERO,
        spring_angular: Vec3::ZERO,
    }];
    let model = load_and_evaluate(&p).unwrap();
    assert!(
        has_warning(&model, "rigid body 0 \"a\": bone 7 is missing"),
        "{:?}",
        model.warnings()
    );
    assert!(
        has_warning(&model, "rigid bodies 1 and 2 both drive bone 2"),
        "{:?}",
        model.warnings()
    );
    assert!(
        has_warning(&model, "joint 0 \"j\": bodies 1 and 9"),
        "{:?}",
        model.warnings()
    );
}

#[test]
fn ik_work_is_bounded() {
    use sinew_mmd::validate::{MAX_IK_LINKS, MAX_IK_PATH, MAX_IK_WORK};
    // Too many links (the same ancestor listed over and over).
    let mut bones = chain(4);
    bones.push(bone("ik", -1, 3.0));
    ik(&mut bones, 4, 3, &vec![1; MAX_IK_LINKS + 1]);
    let model = load_and_evaluate(&pmx(bones)).unwrap();
    assert!(model.bones()[4].ik.is_none());
    assert!(has_warning(&model, "links (most"), "{:?}", model.warnings());
    // A path longer than the bound.
    let n = MAX_IK_PATH + 10;
    let mut bones = chain(n);
    bones.push(bone("ik", -1, 3.0));
    ik(&mut bones, n, n as i32 - 1, &[0]);
    let model = MmdModel::from_bytes(&pmx(bones).to_bytes()).unwrap();
    assert!(model.bones()[n].ik.is_none());
    assert!(has_warning(&model, "a path of"), "{:?}", model.warnings());
    // Many chains of 256 links × 256 iterations: the ones past the model's budget go.
    let per_chain = (MAX_IK_LINKS as u64) * 256;
    let fit = (MAX_IK_WORK / per_chain) as usize;
    let mut bones = chain(MAX_IK_LINKS + 2);
    let tip = MAX_IK_LINKS as i32 + 1;
    for k in 0..fit + 3 {
        bones.push(bone(&format!("ik{k}"), -1, 1.0));
    }
    let links: Vec<i32> = (0..MAX_IK_LINKS as i32).collect();
    for k in 0..fit + 3 {
        let owner = MAX_IK_LINKS + 2 + k;
        ik(&mut bones, owner, tip, &links);
        bones[owner].ik.as_mut().unwrap().loop_count = 256;
    }
    let model = MmdModel::from_bytes(&pmx(bones).to_bytes()).unwrap();
    let kept = model.bones().iter().filter(|b| b.ik.is_some()).count();
    assert_eq!(kept, fit);
    assert_eq!(
        model
            .warnings()
            .iter()
            .filter(|w| w.contains("link steps"))
            .count(),
        3
    );
}

#[test]
fn non_finite_vmd_keys_are_refused_alike() {
    // One rule for translation and rotation: a non-finite key refuses the motion (a NaN
    // rotation used to become the identity while a NaN translation was an error). A zero
    // quaternion stays the identity, as MMD writes it.
    use sinew_mmd::vmd::{VmdBoneKey, VmdVersion};
    use sinew_mmd::{MmdMotion, Vmd};
    let key = |translation: Vec3, rotation: Quat| VmdBoneKey {
        bone_name: "b1".into(),
        frame: 0,
        translation,
        rotation,
        interpolation: [20; 64],
    };
    let vmd = |k: VmdBoneKey| Vmd {
        version: VmdVersion::V2,
        model_name: "m".into(),
        bone_keys: vec![k],
        morph_keys: Vec::new(),
        camera_keys: Vec::new(),
        light_keys: Vec::new(),
        self_shadow_keys: Vec::new(),
        property_keys: Vec::new(),
    };
    let nan_q = Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0);
    let e_rot = MmdMotion::from_vmd(&vmd(key(Vec3::ZERO, nan_q)), None).unwrap_err();
    let e_pos = MmdMotion::from_vmd(&vmd(key(Vec3::NAN, Quat::IDENTITY)), None).unwrap_err();
    assert!(e_rot.to_string().contains("finite"), "{e_rot}");
    assert!(e_pos.to_string().contains("finite"), "{e_pos}");
    let zero = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    MmdMotion::from_vmd(&vmd(key(Vec3::ZERO, zero)), None).unwrap();
}

#[test]
fn renamed_duplicates_do_not_collide_with_given_names() {
    // "a" twice: the second would become "a#2", which bone 0 already carries.
    let bones = vec![
        bone("a#2", -1, 0.0),
        bone("a", 0, 1.0),
        bone("a", 0, 2.0),
        bone("", 0, 3.0),
    ];
    let model = load_and_evaluate(&pmx(bones)).unwrap();
    let names: std::collections::HashSet<&str> =
        model.bones().iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names.len(), 4, "{names:?}");
    assert!(has_warning(&model, "renamed"));
}

/// A "physics + bone position" body jointed to a simulated body on its bone's parent is
/// simulated as a plain dynamic body (its bone takes the body's position), as babylon-mmd's
/// Bullet physics resolves it; the first body of the chain, under a body that follows its bone,
/// keeps the bone's position, and so does one jointed to a body that is not on its parent.
#[test]
fn physics_with_bone_position_under_a_simulated_parent_is_simulated() {
    use sinew::dynamics::BodyMode;
    let mut p = pmx(chain(5));
    p.rigid_bodies = vec![
        body("root", 0, PhysicsMode::FollowBone),
        body("t1", 1, PhysicsMode::DynamicWithBonePosition),
        body("t2", 2, PhysicsMode::DynamicWithBonePosition),
        body("t3", 3, PhysicsMode::DynamicWithBonePosition),
        body("skip", 4, PhysicsMode::DynamicWithBonePosition),
    ];
    let joint = |a: i32, b: i32| PmxJoint {
        name: format!("j{a}{b}"),
        name_en: String::new(),
        kind: PmxJointKind::Spring6Dof,
        body_a: a,
        body_b: b,
        position: Vec3::ZERO,
        rotation: Vec3::ZERO,
        linear_lower: Vec3::splat(-0.5),
        linear_upper: Vec3::splat(0.5),
        angular_lower: Vec3::ZERO,
        angular_upper: Vec3::ZERO,
        spring_linear: Vec3::splat(100.0),
        spring_angular: Vec3::ZERO,
    };
    // root–t1, t1–t2, t3–t2 (the parent second), t2–skip (b4's parent is b3, not b2).
    p.joints = vec![joint(0, 1), joint(1, 2), joint(3, 2), joint(2, 4)];
    let model = load_and_evaluate(&p).unwrap();
    let definitions = model.definitions(MmdOrder::Staged).unwrap();
    let modes: Vec<BodyMode> = (definitions.model().dynamics().physics().bodies().iter())
        .map(|b| b.desc().mode)
        .collect();
    assert_eq!(
        modes,
        [
            BodyMode::Kinematic,
            BodyMode::DynamicRotation,
            BodyMode::Dynamic,
            BodyMode::Dynamic,
            BodyMode::DynamicRotation,
        ]
    );
}
