//! The per-frame solve: suffixes, anchoring, reaching, idempotence, limp bodies, `_N` copies,
//! `short`, loading props and the tick loop.

mod common;

use std::sync::{Arc, Mutex};

use common::{bar, body, config, state, t};
use glam::{Affine3A, DVec3, Quat, Vec3};
use sinew::instance::{ModuleError, Slot, TickContext, TickLoop, TickModule};
use sinew::math::quat_from_euler_xyz;
use sinew::{Model, RigState, RootPlacement, SkeletonInstance, Transform};
use sinew_humanoid::rifle;
use sinew_props::{
    anchor, rotation_of, HandedLimb, Prop, PropSlot, PropsConfig, PropsError, PropsModule, PropsRig,
};
use std::f32::consts::FRAC_PI_2;

fn rig() -> PropsRig {
    let mut rig = PropsRig::new(config(), Some("xbot")).unwrap();
    rig.hold("bar", PropSlot::Ready(bar()));
    rig
}

fn pos(s: &RigState, name: &str) -> Vec3 {
    let id = s.skeleton().find(name).unwrap();
    s.world().unwrap()[id.index()].translation.into()
}

fn rot(s: &RigState, name: &str) -> Quat {
    let id = s.skeleton().find(name).unwrap();
    rotation_of(&s.world().unwrap()[id.index()])
}

fn same_rot(a: Quat, b: Quat, eps: f32) -> bool {
    a.dot(b).abs() > 1.0 - eps
}

#[test]
fn suffixes_resolve_to_the_first_bone_ending_with_them() {
    let skel = body(false);
    let mut s = state(&skel);
    let mut rig = rig();
    rig.solve(&mut s).unwrap();
    // "RightShoulder" names mixamorig:RightShoulder, "RightHand" mixamorig:RightHand (not
    // ...RightHandIndex1, which does not end with it).
    let tip = rig
        .prop("bar")
        .unwrap()
        .empty_position_world("tip")
        .unwrap();
    assert!(pos(&s, "mixamorig:RightHand").distance(tip) < 1e-4);
    assert_eq!(rig.short().unwrap(), &[0.0]);
}

#[test]
fn unresolved_names_are_errors_naming_them() {
    let skel = body(false);
    let mut c = (*config()).clone();
    c.kinds.get_mut("xbot").unwrap().limbs[0].bones[1] = "LeftForeArm".into();
    let mut rig = PropsRig::new(Arc::new(c), Some("xbot")).unwrap();
    rig.hold("bar", PropSlot::Ready(bar()));
    let mut s = state(&skel);
    let e = rig.solve(&mut s).unwrap_err();
    assert_eq!(
        e.to_string(),
        "kinds.xbot.limbs[0].bones[1]: no bone ends with \"LeftForeArm\""
    );
    assert!(rig.short().is_none());

    let mut rig = PropsRig::new(config(), Some("xbot")).unwrap();
    rig.hold("rifle", PropSlot::Ready(bar()));
    assert_eq!(
        rig.solve(&mut s).unwrap_err(),
        PropsError::PropNotHeld {
            path: "kinds.xbot.anchor.prop".into(),
            prop: "bar".into()
        }
    );

    let mut c = (*config()).clone();
    c.kinds.get_mut("xbot").unwrap().limbs[0].target = "grip".into();
    let mut rig = PropsRig::new(Arc::new(c), Some("xbot")).unwrap();
    rig.hold("bar", PropSlot::Ready(bar()));
    assert_eq!(
        rig.solve(&mut s).unwrap_err().to_string(),
        "kinds.xbot.limbs[0].target: prop \"bar\" has no empty ending with \"grip\""
    );
    // The failed solve left the clip's pose.
    assert_eq!(s.locals(), skel.rest_pose());
}

#[test]
fn anchor_puts_the_point_on_the_bone_frame_without_its_scale() {
    let mut prop = bar();
    prop.set_root_world(Transform::from_trs(
        Vec3::ZERO,
        Quat::IDENTITY,
        Vec3::splat(0.5),
    ));
    let bone_rot = Quat::from_rotation_y(0.7) * Quat::from_rotation_z(-0.3);
    let bone = Affine3A::from_scale_rotation_translation(
        Vec3::splat(3.0),
        bone_rot,
        Vec3::new(1.0, 2.0, 3.0),
    );
    let at = Vec3::new(0.1, -0.2, 0.3);
    let turn = quat_from_euler_xyz(Vec3::new(10f32, 20.0, -30.0) * (std::f32::consts::PI / 180.0));
    let handle = prop.find("handle");
    anchor(&mut prop, &bone, at, turn, handle);
    let point = prop.node_world(handle.unwrap());
    let want_pos = Vec3::new(1.0, 2.0, 3.0) + bone_rot * at;
    assert!(Vec3::from(point.translation).distance(want_pos) < 1e-5);
    assert!(same_rot(rotation_of(&point), bone_rot * turn, 1e-6));
    // The prop keeps its own scale; the bone's 3× is taken off.
    assert!(prop.root_world().scale.abs_diff_eq(Vec3::splat(0.5), 1e-6));

    // No point: the root lands on the frame.
    let mut prop = bar();
    anchor(&mut prop, &bone, at, turn, None);
    assert!(prop.root_world().translation.distance(want_pos) < 1e-5);
    assert!(same_rot(prop.root_world().rotation, bone_rot * turn, 1e-6));
    assert!(prop.root_world().scale.abs_diff_eq(Vec3::ONE, 1e-6));
}

#[test]
fn config_anchor_with_and_without_point() {
    let skel = body(false);
    let mut s = state(&skel);
    let mut rig = rig();
    rig.solve(&mut s).unwrap();
    let shoulder = pos(&s, "mixamorig:RightShoulder");
    let frame = rot(&s, "mixamorig:RightShoulder");
    let turn = quat_from_euler_xyz(Vec3::new(0.0, 10f32.to_radians(), 0.0));
    let prop = rig.prop("bar").unwrap();
    let handle = prop.node_world(prop.find("handle").unwrap());
    assert!(
        Vec3::from(handle.translation).distance(shoulder + frame * Vec3::new(-0.1, -0.05, 0.1))
            < 1e-5
    );
    assert!(same_rot(rotation_of(&handle), frame * turn, 1e-6));

    // A point the prop does not have: set by its root.
    let mut c = (*config()).clone();
    c.kinds
        .get_mut("xbot")
        .unwrap()
        .anchor
        .as_mut()
        .unwrap()
        .point = Some("nope".into());
    let mut rig = PropsRig::new(Arc::new(c), Some("xbot")).unwrap();
    rig.hold("bar", PropSlot::Ready(bar()));
    let mut s = state(&skel);
    rig.solve(&mut s).unwrap();
    let root = rig.prop("bar").unwrap().root_world().translation;
    assert!(root.distance(shoulder + frame * Vec3::new(-0.1, -0.05, 0.1)) < 1e-5);
}

#[test]
fn reach_turns_the_hand_to_the_target_and_never_stretches() {
    let skel = body(false);
    let mut s = state(&skel);
    let mut rig = rig();
    rig.solve(&mut s).unwrap();
    let prop = rig.prop("bar").unwrap();
    let tip = prop.node_world(prop.find("tip").unwrap());
    assert!(same_rot(
        rot(&s, "mixamorig:RightHand"),
        rotation_of(&tip),
        1e-5
    ));
    let l1 = pos(&s, "mixamorig:RightArm").distance(pos(&s, "mixamorig:RightForeArm"));
    let l2 = pos(&s, "mixamorig:RightForeArm").distance(pos(&s, "mixamorig:RightHand"));
    assert!((l1 - 0.3).abs() < 1e-5 && (l2 - 0.25).abs() < 1e-5);
    // Elbow toward the pole (−1, −1, 0): below the shoulder line.
    assert!(pos(&s, "mixamorig:RightForeArm").y < pos(&s, "mixamorig:RightArm").y);
}

/// ik3d-props-and-limbs.md, `kinds`: `anchor` is optional ("With no anchor, every prop stays
/// where its body hung it") and the limbs still reach. A kind with limbs only bends its arm to
/// the bar's tip where the body hung the bar, and leaves the bar there. A rig that required an
/// anchor before bending (or skipped the limbs without one) leaves the arm as the clip drew it
/// and reports no limb in `short`.
#[test]
fn a_kind_without_an_anchor_bends_its_limbs() {
    let c = PropsConfig::from_json(
        r#"{
          "mods": { "body": "anim" },
          "kinds": { "xbot": { "limbs": [
            { "bones": ["RightArm", "RightForeArm", "RightHand"], "prop": "bar", "target": "tip", "pole": [-1, -1, 0] }
          ] } }
        }"#,
    )
    .unwrap();
    assert!(c.kinds["xbot"].anchor.is_none());
    let skel = body(false);
    let mut s = state(&skel);
    let mut rig = PropsRig::new(Arc::new(c), Some("xbot")).unwrap();
    let mut prop = bar();
    let hung = Transform::from_translation_rotation(
        Vec3::new(-0.5, 1.2, -0.4),
        Quat::from_rotation_y(0.4),
    );
    prop.set_root_world(hung);
    rig.hold("bar", PropSlot::Ready(prop));
    rig.solve(&mut s).unwrap();
    assert_eq!(rig.short().unwrap(), &[0.0]);
    let prop = rig.prop("bar").unwrap();
    assert_eq!(
        *prop.root_world(),
        hung,
        "the bar stays where the body hung it"
    );
    let tip = prop.node_world(prop.find("tip").unwrap());
    assert!(pos(&s, "mixamorig:RightHand").distance(tip.translation.into()) < 1e-4);
    assert!(same_rot(
        rot(&s, "mixamorig:RightHand"),
        rotation_of(&tip),
        1e-5
    ));
}

/// ik3d-props-and-limbs.md, `limbs[].pole`: "a direction in the body root's frame". The same
/// body, config and prop, once unturned and once with its root turned and moved: the turned
/// solve is the unturned one carried by the root, elbow included, for the kind's limb and a
/// handed one alike. A pole read as a world direction bends the turned elbow elsewhere.
#[test]
fn the_pole_is_in_the_turned_body_roots_frame() {
    let skel = body(false);
    let placement = RootPlacement {
        translation: DVec3::new(2.0, 0.5, -1.0),
        rotation: Quat::from_rotation_y(FRAC_PI_2) * Quat::from_rotation_x(0.3),
        scale: Vec3::ONE,
    };
    let solve = |turned: bool, handed: bool| {
        let mut s = RigState::new(Arc::clone(&skel));
        if turned {
            s.set_placement(placement);
        }
        s.compute_world();
        let root = s.root_affine();
        let mut rig = if handed {
            let mut rig = PropsRig::new(config(), None).unwrap();
            rig.handed_limbs_mut().push(HandedLimb {
                bones: ["RightArm".into(), "RightForeArm".into(), "RightHand".into()],
                pole: Vec3::new(0.0, -1.0, 1.0),
                target_world: Transform::from_translation(
                    root.transform_point3(Vec3::new(-0.45, 1.25, 0.2)),
                ),
            });
            rig
        } else {
            rig()
        };
        rig.solve(&mut s).unwrap();
        assert_eq!(rig.short().unwrap(), &[0.0]);
        let back = root.inverse();
        let local = |n: &str| back.transform_point3(pos(&s, n));
        let elbow = local("mixamorig:RightForeArm");
        let hand = local("mixamorig:RightHand");
        // The elbow is off the shoulder–hand line (the limb is bent).
        let shoulder = local("mixamorig:RightArm");
        let line = (hand - shoulder).normalize();
        let off = (elbow - shoulder).reject_from(line);
        assert!(off.length() > 0.05, "bent: {off}");
        (elbow, hand)
    };
    for handed in [false, true] {
        let (elbow, hand) = solve(false, handed);
        let (elbow_t, hand_t) = solve(true, handed);
        assert!(hand_t.distance(hand) < 1e-4, "{hand_t} vs {hand}");
        assert!(
            elbow_t.distance(elbow) < 1e-4,
            "handed {handed}: elbow in the root's frame {elbow_t} vs {elbow}"
        );
    }
}

/// ik3d-props-and-limbs.md, "How a limb reaches": "The upper and lower bones are each turned by
/// the shortest arc, so the twist each had is kept", and the end bone is turned to the target's
/// rotation. The clip rolls the arm and the forearm about their own length (local X, where each
/// child lies): after the reach each one's correction `clip⁻¹ · solved` turns about an axis
/// across the bone, never about it, so the roll the clip gave stays; the hand ends turned as the
/// target. A limb turned by any other arc (a frame rebuilt from the bone direction and the
/// bend plane, say) twists the bones and fails the first check.
#[test]
fn the_limb_keeps_its_twist_when_it_reaches() {
    let skel = body(false);
    let mut s = state(&skel);
    let arm = skel.find("mixamorig:RightArm").unwrap();
    let fore = skel.find("mixamorig:RightForeArm").unwrap();
    s.locals_mut()[arm.index()].rotation = Quat::from_rotation_x(0.8);
    s.locals_mut()[fore.index()].rotation = Quat::from_rotation_x(-0.5);
    s.compute_world();
    let clip = s.locals().to_vec();
    let mut rig = rig();
    rig.solve(&mut s).unwrap();
    assert_eq!(rig.short().unwrap(), &[0.0]);
    for b in [arm, fore] {
        let c = clip[b.index()].rotation.inverse() * s.locals()[b.index()].rotation;
        let (axis, angle) = c.to_axis_angle();
        assert!(angle > 0.1, "{}: bent by {angle}", skel.name(b));
        assert!(
            axis.x.abs() < 1e-4,
            "{}: the correction twists the bone about its length: axis {axis}",
            skel.name(b)
        );
    }
    let prop = rig.prop("bar").unwrap();
    let tip = prop.node_world(prop.find("tip").unwrap());
    assert!(same_rot(
        rot(&s, "mixamorig:RightHand"),
        rotation_of(&tip),
        1e-5
    ));
}

#[test]
fn solving_twice_lands_the_same() {
    let skel = body(false);
    let mut s = state(&skel);
    let mut rig = rig();
    rig.solve(&mut s).unwrap();
    let once = s.locals().to_vec();
    let world_once = s.world().unwrap().to_vec();
    rig.solve(&mut s).unwrap();
    assert_eq!(s.locals(), &once[..]);
    for (a, b) in s.world().unwrap().iter().zip(&world_once) {
        assert!(a.abs_diff_eq(*b, 1e-6));
    }
    // A clip that draws the pose again is taken as the new start.
    s.locals_mut().copy_from_slice(skel.rest_pose());
    s.compute_world();
    rig.solve(&mut s).unwrap();
    assert_eq!(s.locals(), &once[..]);
}

#[test]
fn limp_bodies_stand_as_the_clip_draws_them() {
    let skel = body(false);
    let mut s = state(&skel);
    let mut rig = rig();
    rig.solve(&mut s).unwrap();
    assert_ne!(s.locals(), skel.rest_pose());
    rig.set_limp(true);
    rig.solve(&mut s).unwrap();
    assert_eq!(s.locals(), skel.rest_pose());
    assert!(rig.short().is_none());
    // The kind taken out of the table: the same.
    rig.set_limp(false);
    rig.solve(&mut s).unwrap();
    assert!(rig.short().is_some());
    rig.set_config(Arc::new(PropsConfig::new("anim"))).unwrap();
    rig.solve(&mut s).unwrap();
    assert_eq!(s.locals(), skel.rest_pose());
    assert!(rig.short().is_none());
}

#[test]
fn loading_props_are_waited_for() {
    let skel = body(false);
    let mut s = state(&skel);
    let mut rig = PropsRig::new(config(), Some("xbot")).unwrap();
    rig.hold("bar", PropSlot::Loading);
    rig.solve(&mut s).unwrap();
    assert!(rig.short().is_none());
    assert_eq!(s.locals(), skel.rest_pose());
    rig.hold("bar", PropSlot::Ready(bar()));
    rig.solve(&mut s).unwrap();
    assert_eq!(rig.short().unwrap().len(), 1);
}

#[test]
fn copies_take_the_solved_bones_turns() {
    let skel = body(true);
    let mut s = state(&skel);
    let mut rig = rig();
    rig.solve(&mut s).unwrap();
    for name in ["RightArm", "RightForeArm", "RightHand"] {
        let a = s
            .local(skel.find(&format!("mixamorig:{name}")).unwrap())
            .rotation;
        let b = s
            .local(skel.find(&format!("mixamorig:{name}_1")).unwrap())
            .rotation;
        assert_eq!(a, b, "{name}");
        assert!(!same_rot(a, Quat::IDENTITY, 1e-6), "{name} was bent");
    }
    // The copy's world is refreshed: its hand stands where the solved one does.
    assert!(pos(&s, "mixamorig:RightHand_1").distance(pos(&s, "mixamorig:RightHand")) < 1e-5);
    // And it goes back with the rest.
    rig.set_limp(true);
    rig.solve(&mut s).unwrap();
    assert_eq!(s.locals(), skel.rest_pose());
}

#[test]
fn short_reports_kind_limbs_then_handed_ones() {
    let skel = body(false);
    let mut s = state(&skel);
    let mut rig = rig();
    let shoulder = pos(&s, "mixamorig:RightArm");
    // Out of reach: 2 m straight out; reach is 0.3 + 0.25 − 1 mm.
    let far = shoulder + Vec3::new(-2.0, 0.0, 0.0);
    rig.handed_limbs_mut().push(HandedLimb {
        bones: ["RightArm".into(), "RightForeArm".into(), "RightHand".into()],
        pole: Vec3::NEG_Y,
        target_world: Transform::from_translation(far),
    });
    rig.solve(&mut s).unwrap();
    let short = rig.short().unwrap();
    assert_eq!(short.len(), 2);
    assert_eq!(short[0], 0.0);
    assert!((short[1] - (2.0 - 0.549)).abs() < 1e-4, "{short:?}");
    assert!((pos(&s, "mixamorig:RightHand").distance(far) - short[1]).abs() < 1e-4);
    // Too close: cut to |l1 − l2| = 5 cm.
    rig.handed_limbs_mut()[0].target_world =
        Transform::from_translation(shoulder + Vec3::new(0.0, 0.0, 0.01));
    rig.solve(&mut s).unwrap();
    assert!((rig.short().unwrap()[1] - 0.04).abs() < 1e-4);
    // A handed limb naming a missing bone.
    rig.handed_limbs_mut()[0].bones[0] = "LeftArm".into();
    assert_eq!(
        rig.solve(&mut s).unwrap_err().to_string(),
        "handed limb 0.bones[0]: no bone ends with \"LeftArm\""
    );
    // A body of no listed kind is bent for its handed limbs only.
    let mut rig = PropsRig::new(config(), None).unwrap();
    rig.handed_limbs_mut().push(HandedLimb {
        bones: ["RightArm".into(), "RightForeArm".into(), "RightHand".into()],
        pole: Vec3::NEG_Y,
        target_world: Transform::from_translation(shoulder + Vec3::new(-0.3, -0.2, 0.1)),
    });
    rig.solve(&mut s).unwrap();
    assert_eq!(rig.short().unwrap(), &[0.0]);
}

struct ReadHand {
    out: Arc<Mutex<Option<(Vec3, Vec3)>>>,
    hand: sinew::BoneId,
    rig: Arc<Mutex<PropsRig>>,
}

impl TickModule for ReadHand {
    fn tick(&mut self, ctx: &mut TickContext<'_>) -> Result<(), ModuleError> {
        let hand: Vec3 = ctx.instance.world()[self.hand.index()].translation.into();
        let grip = self
            .rig
            .lock()
            .unwrap()
            .prop(rifle::RIFLE)
            .unwrap()
            .empty_position_world("grip")
            .unwrap();
        *self.out.lock().unwrap() = Some((hand, grip));
        Ok(())
    }
}

#[test]
fn demo_humanoid_holds_the_rifle_in_a_tick_loop() {
    let h = sinew_humanoid::Humanoid::new();
    let model = Model::new(h.skeleton.clone());
    let mut instance = SkeletonInstance::new(&model);
    let mut rig = PropsRig::new(
        Arc::new(rifle::humanoid_rifle_config()),
        Some(rifle::HUMANOID_KIND),
    )
    .unwrap();
    rig.hold(rifle::RIFLE, PropSlot::Ready(rifle::rifle()));
    let module = PropsModule::new(rig);
    let shared = Arc::clone(module.rig());
    let out = Arc::new(Mutex::new(None));
    let mut tick = TickLoop::new();
    tick.add(Slot::Ik, "props", module).unwrap();
    tick.add(
        Slot::Post,
        "reader",
        ReadHand {
            out: Arc::clone(&out),
            hand: h.bones.arm[1].end,
            rig: Arc::clone(&shared),
        },
    )
    .unwrap();
    for frame in 0..30 {
        let time = frame as f32 / 30.0;
        h.animate(time, instance.input_mut());
        let report = tick.tick(&mut instance, time, 1.0 / 30.0);
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        let short = shared.lock().unwrap().short().unwrap().to_vec();
        assert_eq!(short, vec![0.0, 0.0], "frame {frame}");
        let (hand, grip) = out.lock().unwrap().unwrap();
        assert!(
            hand.distance(grip) < 1e-4,
            "frame {frame}: {hand} vs {grip}"
        );
        let rig = shared.lock().unwrap();
        let support = rig
            .prop(rifle::RIFLE)
            .unwrap()
            .empty_position_world("support")
            .unwrap();
        let left: Vec3 = instance.world()[h.bones.arm[0].end.index()]
            .translation
            .into();
        assert!(left.distance(support) < 1e-4);
    }
    let _ = t(0.0, 0.0, 0.0);
}

mod props {
    //! The rig under arbitrary clip poses (any bone turned anyway, the hips anywhere): the
    //! solve succeeds, every world matrix stays finite, the arm keeps its lengths, and a second
    //! solve lands the same.

    use core::f32::consts::PI;

    use glam::{Quat, Vec3};
    use proptest::prelude::*;

    use super::common::{body, state};
    use super::{pos, rig};

    fn quat() -> impl Strategy<Value = Quat> {
        ((-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0), -PI..PI).prop_map(|((x, y, z), a)| {
            Quat::from_axis_angle(Vec3::new(x, y, z).try_normalize().unwrap_or(Vec3::X), a)
        })
    }

    proptest! {
        #[test]
        fn any_clip_pose_keeps_the_rig_sane(
            turns in prop::collection::vec(quat(), 7),
            hips in prop_oneof![3 => (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0), 1 => (-1e6f32..1e6, -1e6f32..1e6, -1e6f32..1e6)],
        ) {
            let skel = body(false);
            let mut s = state(&skel);
            for (local, turn) in s.locals_mut().iter_mut().zip(&turns) {
                local.rotation = *turn * local.rotation;
            }
            s.locals_mut()[0].translation = Vec3::new(hips.0, hips.1, hips.2);
            s.compute_world();
            let mut rig = rig();
            rig.solve(&mut s).unwrap();
            prop_assert!(s.world().unwrap().iter().all(|m| m.is_finite()));
            let scale = 1.0 + Vec3::new(hips.0, hips.1, hips.2).abs().max_element();
            let l1 = pos(&s, "mixamorig:RightArm").distance(pos(&s, "mixamorig:RightForeArm"));
            let l2 = pos(&s, "mixamorig:RightForeArm").distance(pos(&s, "mixamorig:RightHand"));
            prop_assert!((l1 - 0.3).abs() < 1e-5 * scale && (l2 - 0.25).abs() < 1e-5 * scale, "{} {}", l1, l2);
            let once = s.locals().to_vec();
            rig.solve(&mut s).unwrap();
            prop_assert_eq!(s.locals(), &once[..]);
        }
    }
}

/// The same bar as a glTF document the test writes: loaded with `Prop::from_gltf`, it anchors
/// and guides the hand exactly as the hand-built one.
#[test]
fn a_gltf_prop_holds_like_the_hand_built_one() {
    let (s, c) = (0.15f32.sin(), 0.15f32.cos());
    let doc = format!(
        r#"{{"asset": {{"version": "2.0"}}, "scene": 0, "scenes": [{{"nodes": [0]}}],
            "nodes": [
              {{"name": "bar", "children": [1, 2]}},
              {{"name": "bar/handle", "translation": [0, 0, 0.2]}},
              {{"name": "bar/tip", "translation": [0, 0.1, 0.6], "rotation": [{s}, 0, 0, {c}]}}
            ]}}"#
    );
    let dir = std::env::temp_dir().join(format!("sinew-props-gltf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bar.gltf");
    std::fs::write(&path, doc).unwrap();
    let from_file = Prop::load_gltf(&path).unwrap();
    let _ = std::fs::remove_dir_all(&dir);

    let skel = body(false);
    let (mut built, mut loaded) = (state(&skel), state(&skel));
    rig().solve(&mut built).unwrap();
    let mut r = rig();
    r.hold("bar", PropSlot::Ready(from_file));
    r.solve(&mut loaded).unwrap();
    let (a, b) = (built.world().unwrap(), loaded.world().unwrap());
    assert!(a.iter().zip(b).all(|(x, y)| x.abs_diff_eq(*y, 1e-5)));
    assert!(
        a.iter()
            .zip(built.skeleton().rest_world().iter())
            .any(|(x, rest)| !x.abs_diff_eq(*rest, 1e-3)),
        "the hold moved the arm"
    );
}
