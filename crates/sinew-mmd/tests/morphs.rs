//! Morphs on a PMX built in code as the reader keeps them: bone and group morphs, group
//! expansion (nested, weighted), the mesh reader on every deform type. (Morphs driving a
//! character: `sinew-character/tests/morphs.rs`.)

mod common;

use std::sync::Arc;

use glam::{Quat, Vec2, Vec3, Vec4};
use sinew_mmd::pmx::*;
use sinew_mmd::{MmdModel, MmdMorph, Pmx};

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
