//! Morphs on a PMX built in code: bone morphs change the pose before IK (exactly as animating
//! the same offsets would), group morphs mix the others (nested, weighted), vertex and UV morphs
//! move the mesh, VMD morph keys drive them through the motion player; and the mesh reader on
//! every deform type.

mod common;

use std::sync::Arc;

use glam::{Affine3A, Quat, Vec2, Vec3, Vec4};
use sinew_mmd::pmx::*;
use sinew_mmd::vmd::VmdMorphKey;
use sinew_mmd::{EvalOptions, MmdInstance, MmdModel, MmdMorph, MmdMotion, MotionPlayer, Pmx, Vmd};
use sinew_skin::{Deformed, SkinMode};

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
    let mut pmx = common::fixtures::pmx_fixture(2.0, PmxEncoding::Utf16Le, 4);
    pmx.bones = common::fixtures::pmx_leg_bones(2.0);
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

fn model() -> Arc<MmdModel> {
    Arc::new(MmdModel::from_bytes(&leg().to_bytes()).unwrap())
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
fn the_reader_keeps_bone_and_group_morphs() {
    let m = model();
    assert_eq!(
        m.morph_names(),
        ["bulge", "crouch", "slide", "all", "twice"]
    );
    assert!(matches!(m.morphs()[0], MmdMorph::Mesh));
    assert!(matches!(&m.morphs()[1], MmdMorph::Bone(b) if b.len() == 2 && b[0].bone == 0));
    assert!(matches!(&m.morphs()[3], MmdMorph::Group(g) if g == &vec![(1, 1.0), (0, 0.5)]));
    assert_eq!(m.mesh().morphs.len(), 5);
    assert_eq!(m.mesh().skin.span_sizes(), [2, 2, 0, 0, 0, 0]);
}

#[test]
fn group_morphs_mix_their_members_even_nested() {
    let m = model();
    let mut out = vec![0.0; 5];
    m.expand_morph_weights(&[0.0, 0.0, 0.0, 0.5], &mut out);
    assert_eq!(out, [0.25, 0.5, 0.0, 0.5, 0.0]);
    // "twice" holds "all" × 2 and itself (a loop, ignored): crouch 1, bulge 0.5 + 0.1 direct.
    m.expand_morph_weights(&[0.1, 0.0, 0.0, 0.0, 0.5], &mut out);
    assert_eq!(out, [0.6, 1.0, 0.0, 0.0, 0.5]);
    // NaN weights count as 0.
    m.expand_morph_weights(&[f32::NAN, 0.0, 0.0, 1.0], &mut out);
    assert_eq!(out[0], 0.5);
}

#[test]
fn a_bone_morph_is_the_same_offset_animated_before_ik() {
    let m = model();
    let target = Vec3::new(0.0, 0.5, -1.0);
    for w in [0.0, 0.3, 1.0] {
        let mut morphed = MmdInstance::new(Arc::clone(&m));
        morphed.translations_mut()[4] = target;
        morphed.set_morph_weights(&[0.0, w]);
        morphed.evaluate(EvalOptions::default());
        let mut animated = MmdInstance::new(Arc::clone(&m));
        animated.translations_mut()[4] = target;
        animated.translations_mut()[0] = Vec3::new(0.0, -w, 0.0);
        animated.rotations_mut()[1] = Quat::IDENTITY.slerp(Quat::from_rotation_x(0.5), w);
        animated.evaluate(EvalOptions::default());
        assert!(
            close(morphed.world(), animated.world()) < 1e-5,
            "weight {w}"
        );
        // IK ran after the morph: the ankle is nearer the IK target than without IK.
        let gap = |i: &MmdInstance| (i.world()[3].translation - i.world()[4].translation).length();
        let mut no_ik = MmdInstance::new(Arc::clone(&m));
        no_ik.translations_mut()[4] = target;
        no_ik.set_morph_weights(&[0.0, w]);
        no_ik.evaluate(EvalOptions {
            append: true,
            ik: false,
        });
        assert!(gap(&morphed) < gap(&no_ik), "weight {w}");
    }
    // Through a group, and back to zero.
    let mut a = MmdInstance::new(Arc::clone(&m));
    a.set_morph_weights(&[0.0, 0.0, 0.0, 1.0]);
    a.evaluate(EvalOptions::default());
    let mut b = MmdInstance::new(Arc::clone(&m));
    b.set_morph_weights(&[0.0, 1.0]);
    b.evaluate(EvalOptions::default());
    assert!(close(a.world(), b.world()) < 1e-6);
    a.set_morph_weights(&[]);
    a.evaluate(EvalOptions::default());
    let mut rest = MmdInstance::new(Arc::clone(&m));
    rest.evaluate(EvalOptions::default());
    assert!(close(a.world(), rest.world()) < 1e-6);
}

#[test]
fn vertex_and_uv_morphs_move_the_mesh() {
    let m = model();
    let mesh = Arc::clone(m.mesh());
    let mut inst = MmdInstance::new(Arc::clone(&m));
    inst.set_morph_weights(&[0.0, 0.0, 0.5, 1.0]);
    inst.evaluate(EvalOptions {
        append: true,
        ik: false,
    });
    let mut matrices = vec![Affine3A::IDENTITY; 5];
    inst.skin_matrices(&mut matrices);
    let mut d = Deformed::new(&mesh);
    d.update(
        &mesh,
        &matrices,
        inst.effective_morph_weights(),
        SkinMode::Linear,
    )
    .unwrap();
    // Vertex 1 follows the ankle, after its morph offset (bulge × 0.5 through "all").
    let want = matrices[3].transform_point3(Vec3::new(1.0, 2.0, -1.0));
    assert!(
        (d.positions()[1] - want).length() < 1e-5,
        "{} vs {want}",
        d.positions()[1]
    );
    assert_eq!(d.uvs()[0], Vec2::new(0.25, 0.125));
    // The crouch moved the centre down by 1: the ankle's rest vertex 0 too (no IK here).
    assert!(
        (d.positions()[0] - matrices[3].transform_point3(Vec3::new(0.0, 2.0, 0.0))).length() < 1e-5
    );
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
    let motion = Arc::new(MmdMotion::from_vmd(&vmd, Some(&m)).unwrap());
    let mut player = MotionPlayer::new(motion, &m);
    assert_eq!(player.unmatched_morphs(), ["nothing"]);
    let mut inst = MmdInstance::new(Arc::clone(&m));
    player.apply(5.0, &mut inst);
    assert_eq!(inst.morph_weights(), [0.0, 0.0, 0.0, 0.5, 0.0]);
    assert_eq!(inst.effective_morph_weights(), [0.25, 0.5, 0.0, 0.5, 0.0]);
    inst.evaluate(EvalOptions::default());
    let mut direct = MmdInstance::new(Arc::clone(&m));
    direct.set_morph_weights(&[0.0, 0.5]);
    direct.evaluate(EvalOptions::default());
    assert!(close(inst.world(), direct.world()) < 1e-6);
}

#[test]
fn every_deform_type_reaches_the_skin() {
    // PMX 2.1 fixture: BDEF1, BDEF2, BDEF4 (a -1 bone with weight 0), SDEF, QDEF; a triangle
    // naming a vertex past the list is dropped with a warning.
    let pmx = common::fixtures::pmx_fixture(2.1, PmxEncoding::Utf8, 4);
    let m = MmdModel::from_pmx(&pmx).unwrap();
    assert_eq!(m.mesh().skin.span_sizes(), [1, 1, 1, 0, 1, 1]);
    assert_eq!(m.mesh().indices.len(), 3);
    assert!(
        m.warnings()
            .iter()
            .any(|w| w.contains("triangles name a vertex")),
        "{:?}",
        m.warnings()
    );
    let mesh = m.mesh();
    assert!(mesh.materials[0].double_sided && mesh.materials[0].edge.is_some());
    assert_eq!(mesh.winding, sinew_skin::Winding::Clockwise);
}
