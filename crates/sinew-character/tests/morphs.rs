//! Morphs driving a character, on a PMX built in code: bone morphs change the pose before IK
//! (exactly as animating the same offsets would), group morphs mix the others, vertex and UV
//! morphs move the mesh, VMD morph keys drive them through a motion.

mod common;
#[path = "../../sinew-mmd/tests/common/fixtures.rs"]
#[allow(dead_code)]
mod fixtures;

use std::sync::Arc;

use glam::{Affine3A, Quat, Vec2, Vec3, Vec4};
use sinew::instance::Stages;
use sinew_character::{Character, CharacterModel, Motion};
use sinew_mmd::pmx::*;
use sinew_mmd::vmd::VmdMorphKey;
use sinew_mmd::{MmdModel, Pmx, Vmd};

fn morph(name: &str, offsets: PmxMorphOffsets) -> PmxMorph {
    PmxMorph {
        name: name.into(),
        name_en: String::new(),
        panel: 4,
        offsets,
    }
}

/// A leg with IK, a quad weighted to the ankle and the knee, and the morphs:
/// 0 "bulge" (vertex), 1 "crouch" (bone: centre down, thigh turned), 2 "slide" (UV),
/// 3 "all" (group: crouch × 1, bulge × 0.5), 4 "twice" (group of the group × 2).
fn leg() -> Pmx {
    let mut pmx = fixtures::pmx_fixture(2.0, PmxEncoding::Utf16Le, 4);
    pmx.bones = fixtures::pmx_leg_bones(2.0);
    pmx.vertices = (0..4)
        .map(|i| PmxVertex {
            position: Vec3::new(i as f32, 2.0 + (i / 2) as f32 * 4.0, 0.0),
            normal: Vec3::Z,
            uv: Vec2::new(0.25 * i as f32, 0.0),
            additional_uvs: [Vec4::ZERO; 4],
            deform: if i < 2 {
                PmxDeform::Bdef1 { bone: 3 }
            } else {
                PmxDeform::Bdef2 {
                    bones: [2, 3],
                    weight: 0.75,
                }
            },
            edge_scale: 1.0,
        })
        .collect();
    pmx.indices = vec![0, 1, 2, 1, 3, 2];
    for m in &mut pmx.materials {
        m.index_count = 3;
        m.texture = -1;
    }
    pmx.morphs = vec![
        morph(
            "bulge",
            PmxMorphOffsets::Vertex(vec![PmxVertexOffset {
                vertex: 1,
                offset: Vec3::new(0.0, 0.0, -2.0),
            }]),
        ),
        morph(
            "crouch",
            PmxMorphOffsets::Bone(vec![
                PmxBoneOffset {
                    bone: 0,
                    translation: Vec3::new(0.0, -1.0, 0.0),
                    rotation: Quat::IDENTITY,
                },
                PmxBoneOffset {
                    bone: 1,
                    translation: Vec3::ZERO,
                    rotation: Quat::from_rotation_x(0.5),
                },
            ]),
        ),
        morph(
            "slide",
            PmxMorphOffsets::Uv {
                channel: 0,
                offsets: vec![PmxUvOffset {
                    vertex: 0,
                    offset: Vec4::new(0.5, 0.25, 0.0, 0.0),
                }],
            },
        ),
        morph(
            "all",
            PmxMorphOffsets::Group(vec![
                PmxGroupOffset {
                    morph: 1,
                    weight: 1.0,
                },
                PmxGroupOffset {
                    morph: 0,
                    weight: 0.5,
                },
            ]),
        ),
        morph(
            "twice",
            PmxMorphOffsets::Group(vec![
                PmxGroupOffset {
                    morph: 3,
                    weight: 2.0,
                },
                PmxGroupOffset {
                    morph: 4,
                    weight: 1.0,
                },
            ]),
        ),
    ];
    pmx.rigid_bodies.clear();
    pmx.joints.clear();
    pmx.soft_bodies.clear();
    pmx.display_frames.clear();
    pmx
}

fn model() -> Arc<CharacterModel> {
    CharacterModel::from_mmd(Arc::new(MmdModel::from_bytes(&leg().to_bytes()).unwrap())).unwrap()
}

/// A character of `m` standing in `pose` with morph weights `weights` held.
fn character(m: &Arc<CharacterModel>, pose: &Motion, weights: &[f32], stages: Stages) -> Character {
    let mut c = Character::new(m);
    c.play(pose);
    for (i, &w) in weights.iter().enumerate() {
        c.set_morph_weight(i, Some(w)).unwrap();
    }
    c.set_stages(stages);
    c.seek(0.0).unwrap();
    c
}

fn close(a: &[Affine3A], b: &[Affine3A]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            (x.translation - y.translation).length().max(
                (0..3)
                    .map(|c| (x.matrix3.col(c) - y.matrix3.col(c)).length())
                    .fold(0.0, f32::max),
            )
        })
        .fold(0.0, f32::max)
}

#[test]
fn a_bone_morph_is_the_same_offset_animated_before_ik() {
    let m = model();
    let target = Vec3::new(0.0, 0.5, -1.0);
    let aim = common::pose_motion(&m, &[(4, target, Quat::IDENTITY)]);
    for w in [0.0, 0.3, 1.0] {
        let morphed = character(&m, &aim, &[0.0, w], Stages::ALL);
        let animated_pose = common::pose_motion(
            &m,
            &[
                (4, target, Quat::IDENTITY),
                (0, Vec3::new(0.0, -w, 0.0), Quat::IDENTITY),
                (
                    1,
                    Vec3::ZERO,
                    Quat::IDENTITY.slerp(Quat::from_rotation_x(0.5), w),
                ),
            ],
        );
        let animated = character(&m, &animated_pose, &[], Stages::ALL);
        let (a, b) = (common::file_world(&morphed), common::file_world(&animated));
        assert!(close(&a, &b) < 1e-5, "weight {w}");
        // IK ran after the morph: the ankle is nearer the IK target than without IK.
        let gap = |w: &[Affine3A]| (w[3].translation - w[4].translation).length();
        let no_ik = character(&m, &aim, &[0.0, w], Stages::from_mode("grant").unwrap());
        assert!(gap(&a) < gap(&common::file_world(&no_ik)), "weight {w}");
    }
    // Through a group, and back to zero.
    let rest_pose = common::pose_motion(&m, &[]);
    let mut a = character(&m, &rest_pose, &[0.0, 0.0, 0.0, 1.0], Stages::ALL);
    let b = character(&m, &rest_pose, &[0.0, 1.0], Stages::ALL);
    assert!(close(a.world(), b.world()) < 1e-6);
    a.set_morph_weight(3, None).unwrap();
    a.seek(0.0).unwrap();
    let rest = character(&m, &rest_pose, &[], Stages::ALL);
    assert!(close(a.world(), rest.world()) < 1e-6);
}

#[test]
fn vertex_and_uv_morphs_move_the_mesh() {
    let m = model();
    let mut c = character(
        &m,
        &common::pose_motion(&m, &[]),
        &[0.0, 0.0, 0.5, 1.0],
        Stages::from_mode("grant").unwrap(),
    );
    let world = common::file_world(&c);
    let ankle = world[3] * Affine3A::from_translation(-m.mmd().unwrap().0.bones()[3].position);
    let d = c.skinned_mesh(0).unwrap();
    // Vertex 1 follows the ankle, after its morph offset (bulge × 0.5 through "all").
    let want = ankle.transform_point3(Vec3::new(1.0, 2.0, -1.0));
    assert!(
        (d.positions()[1] - want).length() < 1e-5,
        "{} vs {want}",
        d.positions()[1]
    );
    assert_eq!(d.uvs()[0], Vec2::new(0.25, 0.125));
    // The crouch moved the centre down by 1: the ankle's rest vertex 0 too (no IK here).
    assert!((d.positions()[0] - ankle.transform_point3(Vec3::new(0.0, 2.0, 0.0))).length() < 1e-5);
}

#[test]
fn vmd_morph_keys_drive_group_and_bone_morphs() {
    let m = model();
    let vmd = Vmd {
        morph_keys: vec![
            VmdMorphKey {
                morph_name: "all".into(),
                frame: 0,
                weight: 0.0,
            },
            VmdMorphKey {
                morph_name: "all".into(),
                frame: 10,
                weight: 1.0,
            },
            VmdMorphKey {
                morph_name: "nothing".into(),
                frame: 0,
                weight: 1.0,
            },
        ],
        ..Vmd::default()
    };
    let motion = Motion::from_vmd(&vmd.to_bytes(), Some(m.mmd().unwrap().0)).unwrap();
    let mut c = Character::new(&m);
    let layer = c.add_layer(&motion, 1.0).unwrap();
    assert_eq!(c.unmatched(layer).unwrap().1, ["nothing"]);
    c.seek(5.0 / 30.0).unwrap();
    assert_eq!(c.morph_weights(), [0.25, 0.5, 0.0, 0.5, 0.0]);
    let direct = character(&m, &common::pose_motion(&m, &[]), &[0.0, 0.5], Stages::ALL);
    assert!(close(c.world(), direct.world()) < 1e-6);
}
