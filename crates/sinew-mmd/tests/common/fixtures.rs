//! Fixtures built in code with the public types, covering every PMX feature
//! (all deform types, bone flags, morph kinds, joint kinds, soft bodies) and
//! every VMD section.

use glam::{Quat, Vec2, Vec3, Vec4};
use sinew_mmd::pmx::*;
use sinew_mmd::vmd::*;

fn v3(i: usize) -> Vec3 {
    let f = i as f32;
    Vec3::new(f * 0.5, f + 1.0, -f)
}

/// A plain bone: no tail, append, axes or IK; `flags` as the file stores them.
pub fn pmx_bone(name: &str, parent: i32, position: Vec3, flags: u16) -> PmxBone {
    PmxBone {
        name: name.into(),
        name_en: String::new(),
        position,
        parent,
        layer: 0,
        flags: PmxBoneFlags(flags),
        tail: PmxBoneTail::Offset(Vec3::ZERO),
        append: None,
        fixed_axis: None,
        local_axes: None,
        external_parent: None,
        ik: None,
    }
}

/// An MMD leg: センター (0, 8, 0) → 左足 (1, 10, 0) → 左ひざ (1, 6, 0) → 左足首 (1, 2, 0),
/// and 左足ＩＫ at the ankle (parent センター) solving the ankle through the knee (limited to X
/// in [−3, −0.008] rad) and the thigh, 40 iterations, unit angle `limit_angle`.
pub fn pmx_leg_bones(limit_angle: f32) -> Vec<PmxBone> {
    let f = PmxBoneFlags::ROTATABLE | PmxBoneFlags::VISIBLE | PmxBoneFlags::OPERABLE;
    let mut ik = pmx_bone(
        "左足ＩＫ",
        0,
        Vec3::new(1.0, 2.0, 0.0),
        f | PmxBoneFlags::MOVABLE | PmxBoneFlags::IK,
    );
    ik.ik = Some(PmxIk {
        effector: 3,
        loop_count: 40,
        limit_angle,
        links: vec![
            PmxIkLink {
                bone: 2,
                limit: Some((Vec3::new(-3.0, 0.0, 0.0), Vec3::new(-0.008, 0.0, 0.0))),
            },
            PmxIkLink {
                bone: 1,
                limit: None,
            },
        ],
    });
    vec![
        pmx_bone(
            "センター",
            -1,
            Vec3::new(0.0, 8.0, 0.0),
            f | PmxBoneFlags::MOVABLE,
        ),
        pmx_bone("左足", 0, Vec3::new(1.0, 10.0, 0.0), f),
        pmx_bone("左ひざ", 1, Vec3::new(1.0, 6.0, 0.0), f),
        pmx_bone("左足首", 2, Vec3::new(1.0, 2.0, 0.0), f),
        ik,
    ]
}

/// A PMX model with one of everything. `version` 2.0 drops the 2.1-only parts.
pub fn pmx_fixture(version: f32, encoding: PmxEncoding, index_size: u8) -> Pmx {
    let v21 = version > 2.0;
    let globals = PmxGlobals {
        encoding,
        additional_uv_count: 2,
        vertex_index_size: index_size,
        texture_index_size: index_size,
        material_index_size: index_size,
        bone_index_size: index_size,
        morph_index_size: index_size,
        rigid_body_index_size: index_size,
    };
    let mut deforms = vec![
        PmxDeform::Bdef1 { bone: 0 },
        PmxDeform::Bdef2 {
            bones: [0, 1],
            weight: 0.25,
        },
        PmxDeform::Bdef4 {
            bones: [0, 1, 2, -1],
            weights: [0.5, 0.25, 0.25, 0.0],
        },
        PmxDeform::Sdef {
            bones: [1, 2],
            weight: 0.75,
            c: v3(1),
            r0: v3(2),
            r1: v3(3),
        },
    ];
    if v21 {
        deforms.push(PmxDeform::Qdef {
            bones: [2, 1, 0, -1],
            weights: [0.4, 0.3, 0.3, 0.0],
        });
    }
    let vertices: Vec<PmxVertex> = deforms
        .into_iter()
        .enumerate()
        .map(|(i, deform)| PmxVertex {
            position: v3(i),
            normal: Vec3::Y,
            uv: Vec2::new(0.1 * i as f32, 0.2),
            additional_uvs: [
                Vec4::splat(i as f32),
                Vec4::new(1.0, 2.0, 3.0, 4.0),
                Vec4::ZERO,
                Vec4::ZERO,
            ],
            deform,
            edge_scale: 1.0,
        })
        .collect();
    // A vertex index above 127 / 32767 checks unsignedness where it fits.
    let big = match index_size {
        1 => 200,
        2 => 40_000,
        _ => 3_000_000,
    };
    let indices = vec![0, 1, 2, 2, 3, big];
    let materials = vec![
        PmxMaterial {
            name: "材質1".into(),
            name_en: "mat1".into(),
            diffuse: Vec4::new(1.0, 0.5, 0.25, 1.0),
            specular: Vec3::splat(0.1),
            specular_strength: 5.0,
            ambient: Vec3::splat(0.4),
            flags: 0x1F,
            edge_color: Vec4::new(0.0, 0.0, 0.0, 1.0),
            edge_size: 1.0,
            texture: 0,
            sphere_texture: -1,
            sphere_mode: 1,
            toon: PmxToon::Shared(3),
            memo: "memo".into(),
            index_count: 3,
        },
        PmxMaterial {
            name: "材質2".into(),
            name_en: String::new(),
            diffuse: Vec4::ONE,
            specular: Vec3::ZERO,
            specular_strength: 0.0,
            ambient: Vec3::ZERO,
            flags: 0,
            edge_color: Vec4::ZERO,
            edge_size: 0.0,
            texture: -1,
            sphere_texture: 1,
            sphere_mode: 2,
            toon: PmxToon::Texture(1),
            memo: String::new(),
            index_count: 3,
        },
    ];
    let f = PmxBoneFlags::ROTATABLE | PmxBoneFlags::VISIBLE | PmxBoneFlags::OPERABLE;
    let bone = |name: &str, parent: i32, flags: u16| PmxBone {
        name: name.into(),
        name_en: format!("{name}_en"),
        position: v3(name.len()),
        parent,
        layer: 0,
        flags: PmxBoneFlags(flags),
        tail: PmxBoneTail::Offset(Vec3::new(0.0, 1.0, 0.0)),
        append: None,
        fixed_axis: None,
        local_axes: None,
        external_parent: None,
        ik: None,
    };
    let mut bones = vec![
        bone("センター", -1, f | PmxBoneFlags::MOVABLE),
        bone("上半身", 0, f),
        bone("下半身", 0, f),
    ];
    let mut b = bone(
        "右腕捩",
        1,
        f | PmxBoneFlags::TAIL_IS_BONE | PmxBoneFlags::FIXED_AXIS,
    );
    b.tail = PmxBoneTail::Bone(1);
    b.fixed_axis = Some(Vec3::X);
    bones.push(b);
    let mut b = bone(
        "目",
        1,
        f | PmxBoneFlags::APPEND_ROTATE
            | PmxBoneFlags::APPEND_TRANSLATE
            | PmxBoneFlags::LOCAL_APPEND
            | PmxBoneFlags::LOCAL_AXES,
    );
    b.append = Some(PmxAppend {
        parent: 2,
        ratio: 0.5,
    });
    b.local_axes = Some(PmxLocalAxes {
        x: Vec3::X,
        z: Vec3::Z,
    });
    bones.push(b);
    let mut b = bone(
        "右足ＩＫ",
        0,
        f | PmxBoneFlags::MOVABLE
            | PmxBoneFlags::IK
            | PmxBoneFlags::AFTER_PHYSICS
            | PmxBoneFlags::EXTERNAL_PARENT,
    );
    b.layer = 1;
    b.external_parent = Some(7);
    b.ik = Some(PmxIk {
        effector: 3,
        loop_count: 40,
        limit_angle: 0.5,
        links: vec![
            PmxIkLink {
                bone: 2,
                limit: Some((Vec3::new(-3.0, 0.0, 0.0), Vec3::new(-0.01, 0.0, 0.0))),
            },
            PmxIkLink {
                bone: 1,
                limit: None,
            },
        ],
    });
    bones.push(b);
    let mut b = bone("回転付与", 1, f | PmxBoneFlags::APPEND_ROTATE);
    b.append = Some(PmxAppend {
        parent: 4,
        ratio: -1.0,
    });
    bones.push(b);

    let morph = |name: &str, offsets| PmxMorph {
        name: name.into(),
        name_en: name.to_uppercase(),
        panel: 4,
        offsets,
    };
    let mut morphs = vec![
        morph(
            "group",
            PmxMorphOffsets::Group(vec![PmxGroupOffset {
                morph: 1,
                weight: 0.5,
            }]),
        ),
        morph(
            "vertex",
            PmxMorphOffsets::Vertex(vec![PmxVertexOffset {
                vertex: big,
                offset: v3(4),
            }]),
        ),
        morph(
            "bone",
            PmxMorphOffsets::Bone(vec![PmxBoneOffset {
                bone: 1,
                translation: v3(5),
                rotation: Quat::from_rotation_y(0.3),
            }]),
        ),
        morph(
            "material",
            PmxMorphOffsets::Material(vec![PmxMaterialOffset {
                material: -1,
                operation: 1,
                diffuse: Vec4::splat(0.1),
                specular: Vec3::splat(0.2),
                specular_strength: 0.3,
                ambient: Vec3::splat(0.4),
                edge_color: Vec4::splat(0.5),
                edge_size: 0.6,
                texture_tint: Vec4::splat(0.7),
                sphere_tint: Vec4::splat(0.8),
                toon_tint: Vec4::splat(0.9),
            }]),
        ),
    ];
    for channel in 0..=4u8 {
        morphs.push(morph(
            &format!("uv{channel}"),
            PmxMorphOffsets::Uv {
                channel,
                offsets: vec![PmxUvOffset {
                    vertex: 2,
                    offset: Vec4::new(0.1, 0.2, 0.3, f32::from(channel)),
                }],
            },
        ));
    }
    if v21 {
        morphs.push(morph(
            "flip",
            PmxMorphOffsets::Flip(vec![
                PmxGroupOffset {
                    morph: 0,
                    weight: 1.0,
                },
                PmxGroupOffset {
                    morph: 2,
                    weight: 1.0,
                },
            ]),
        ));
        morphs.push(morph(
            "impulse",
            PmxMorphOffsets::Impulse(vec![PmxImpulseOffset {
                rigid_body: 1,
                local: true,
                velocity: v3(6),
                torque: v3(7),
            }]),
        ));
    }
    let display_frames = vec![
        PmxDisplayFrame {
            name: "Root".into(),
            name_en: "Root".into(),
            special: true,
            items: vec![PmxDisplayItem::Bone(0)],
        },
        PmxDisplayFrame {
            name: "表情".into(),
            name_en: "Exp".into(),
            special: true,
            items: vec![PmxDisplayItem::Morph(0), PmxDisplayItem::Morph(1)],
        },
    ];
    let shapes = [RigidShape::Sphere, RigidShape::Box, RigidShape::Capsule];
    let modes = [
        PhysicsMode::FollowBone,
        PhysicsMode::Dynamic,
        PhysicsMode::DynamicWithBonePosition,
    ];
    let rigid_bodies: Vec<PmxRigidBody> = (0..3)
        .map(|i| PmxRigidBody {
            name: format!("剛体{i}"),
            name_en: format!("rb{i}"),
            bone: i as i32,
            group: i as u8,
            collision_mask: 0xFFFF ^ (1 << i),
            shape: shapes[i],
            size: v3(i + 1),
            position: v3(i + 2),
            rotation: Vec3::new(0.1, 0.2, 0.3),
            mass: 1.0 + i as f32,
            linear_damping: 0.5,
            angular_damping: 0.5,
            restitution: 0.0,
            friction: 0.5,
            mode: modes[i],
        })
        .collect();
    let kinds: &[PmxJointKind] = if v21 {
        &[
            PmxJointKind::Spring6Dof,
            PmxJointKind::SixDof,
            PmxJointKind::P2p,
            PmxJointKind::ConeTwist,
            PmxJointKind::Slider,
            PmxJointKind::Hinge,
        ]
    } else {
        &[PmxJointKind::Spring6Dof]
    };
    let joints = kinds
        .iter()
        .enumerate()
        .map(|(i, &kind)| PmxJoint {
            name: format!("J{i}"),
            name_en: String::new(),
            kind,
            body_a: 0,
            body_b: 1 + (i as i32 % 2),
            position: v3(i),
            rotation: Vec3::ZERO,
            linear_lower: Vec3::splat(-1.0),
            linear_upper: Vec3::splat(1.0),
            angular_lower: Vec3::splat(-0.5),
            angular_upper: Vec3::splat(0.5),
            spring_linear: Vec3::splat(10.0),
            spring_angular: Vec3::splat(100.0),
        })
        .collect();
    let soft_bodies = if v21 {
        vec![PmxSoftBody {
            name: "スカート".into(),
            name_en: "skirt".into(),
            shape: 0,
            material: 1,
            group: 2,
            collision_mask: 0xFFFE,
            flags: 0x03,
            b_link_distance: 2,
            cluster_count: 4,
            total_mass: 1.5,
            collision_margin: 0.05,
            aero_model: 1,
            config: [
                1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0,
            ],
            cluster: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
            iterations: [1, 2, 3, 4],
            material_coefficients: [0.7, 0.8, 0.9],
            anchors: vec![PmxSoftBodyAnchor {
                rigid_body: 0,
                vertex: big,
                near_mode: 1,
            }],
            pins: vec![0, 2, big],
        }]
    } else {
        Vec::new()
    };
    Pmx {
        version,
        globals,
        extra_globals: Vec::new(),
        name: "テストモデル".into(),
        name_en: "test model".into(),
        comment: "コメント\r\nline 2".into(),
        comment_en: "comment".into(),
        vertices,
        indices,
        textures: vec!["tex\\a.png".into(), "sphere.spa".into()],
        materials,
        bones,
        morphs,
        display_frames,
        rigid_bodies,
        joints,
        soft_bodies,
    }
}

/// Every PMX fixture variant: both versions, both encodings, all index sizes.
pub fn pmx_fixtures() -> Vec<Pmx> {
    let mut out = Vec::new();
    for version in [2.0, 2.1] {
        for enc in [PmxEncoding::Utf16Le, PmxEncoding::Utf8] {
            for size in [1, 2, 4] {
                out.push(pmx_fixture(version, enc, size));
            }
        }
    }
    out
}

/// A VMD with every section filled.
pub fn vmd_fixture(version: VmdVersion) -> Vmd {
    let mut interp = [0u8; 64];
    for (i, b) in interp.iter_mut().enumerate() {
        *b = (i * 2) as u8;
    }
    Vmd {
        version,
        model_name: "初音ミク".into(),
        bone_keys: vec![
            VmdBoneKey {
                bone_name: "センター".into(),
                frame: 0,
                translation: Vec3::new(0.0, 1.0, 2.0),
                rotation: Quat::IDENTITY,
                interpolation: interp,
            },
            VmdBoneKey {
                bone_name: "右足ＩＫ".into(),
                frame: 30,
                translation: Vec3::ZERO,
                rotation: Quat::from_rotation_x(0.5),
                interpolation: [20; 64],
            },
        ],
        morph_keys: vec![VmdMorphKey {
            morph_name: "まばたき".into(),
            frame: 10,
            weight: 1.0,
        }],
        camera_keys: vec![VmdCameraKey {
            frame: 5,
            distance: -45.0,
            target: Vec3::new(0.0, 10.0, 0.0),
            rotation: Vec3::new(0.1, 0.2, 0.0),
            interpolation: [20; 24],
            fov: 30,
            orthographic: false,
        }],
        light_keys: vec![VmdLightKey {
            frame: 0,
            color: Vec3::splat(0.6),
            direction: Vec3::new(-0.5, -1.0, 0.5),
        }],
        self_shadow_keys: vec![VmdSelfShadowKey {
            frame: 0,
            mode: 1,
            distance: 0.1,
        }],
        property_keys: vec![VmdPropertyKey {
            frame: 0,
            visible: true,
            ik_states: vec![
                VmdIkState {
                    bone_name: "右足ＩＫ".into(),
                    enabled: true,
                },
                VmdIkState {
                    bone_name: "左足ＩＫ".into(),
                    enabled: false,
                },
            ],
        }],
    }
}
