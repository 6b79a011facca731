//! The skinning kernels against independent formulas: linear blends written out by hand, SDEF
//! against the rotation about its centre, QDEF against rigid motions, morphs by hand.

use glam::{Affine3A, Quat, Vec2, Vec3, Vec4};
use sinew_skin::{
    apply_morphs, Deformed, DualQuat, Influence, Material, Mesh, Morph, MorphKind, Skin, SkinError,
    SkinMode, SkinScratch,
};

fn deform(
    skin: &Skin,
    mode: SkinMode,
    m: &[Affine3A],
    p: &[Vec3],
    n: &[Vec3],
) -> (Vec<Vec3>, Vec<Vec3>) {
    let mut scratch = SkinScratch::new(skin);
    let mut op = vec![Vec3::ZERO; p.len()];
    let mut on = vec![Vec3::ZERO; n.len()];
    skin.deform(&mut scratch, mode, m, p, n, &mut op, &mut on)
        .unwrap();
    (op, on)
}

fn close(a: Vec3, b: Vec3, tol: f32) -> bool {
    (a - b).length() <= tol
}

fn mats() -> Vec<Affine3A> {
    vec![
        Affine3A::from_rotation_translation(Quat::from_rotation_y(0.7), Vec3::new(1.0, 2.0, 3.0)),
        Affine3A::from_scale_rotation_translation(
            Vec3::splat(1.5),
            Quat::from_rotation_x(-1.1),
            Vec3::new(-2.0, 0.5, 0.0),
        ),
        Affine3A::from_rotation_translation(Quat::from_rotation_z(2.0), Vec3::new(0.0, -1.0, 4.0)),
        Affine3A::from_translation(Vec3::new(0.3, 0.3, 0.3)),
        Affine3A::from_rotation_translation(Quat::from_rotation_x(0.2), Vec3::X),
        Affine3A::IDENTITY,
    ]
}

#[test]
fn linear_spans_match_the_blend_written_out() {
    let m = mats();
    let infl = vec![
        Influence::rigid(1),
        Influence::two([0, 2], 0.3),
        Influence::Linear(vec![(0, 0.2), (1, 0.3), (3, 0.5)]),
        Influence::Linear(vec![(0, 1.0), (1, 1.0), (2, 1.0), (3, 1.0)]),
        Influence::Linear(vec![
            (0, 0.1),
            (1, 0.2),
            (2, 0.3),
            (3, 0.15),
            (4, 0.15),
            (5, 0.1),
        ]),
        // Unnormalised weights and a repeated joint are folded.
        Influence::Linear(vec![(2, 2.0), (2, 2.0), (4, 4.0)]),
    ];
    let skin = Skin::new(&infl, m.len()).unwrap();
    assert_eq!(skin.span_sizes(), [1, 2, 2, 1, 0, 0]);
    let p: Vec<Vec3> = (0..6)
        .map(|i| Vec3::new(i as f32, 1.0 - i as f32, 0.5))
        .collect();
    let n: Vec<Vec3> = (0..6)
        .map(|i| Vec3::new(0.0, 1.0, i as f32).normalize())
        .collect();
    let (op, on) = deform(&skin, SkinMode::Linear, &m, &p, &n);
    for (v, inf) in infl.iter().enumerate() {
        let Influence::Linear(list) = inf else {
            unreachable!()
        };
        let sum: f32 = list.iter().map(|e| e.1).sum();
        let mut ep = Vec3::ZERO;
        let mut en = Vec3::ZERO;
        for &(j, w) in list {
            ep += m[j as usize].transform_point3(p[v]) * (w / sum);
            en += m[j as usize].transform_vector3(n[v]) * (w / sum);
        }
        assert!(close(op[v], ep, 1e-5), "vertex {v}: {} vs {ep}", op[v]);
        assert!(close(on[v], en, 1e-5), "vertex {v} normal");
    }
}

#[test]
fn without_normals_only_positions_are_written() {
    let skin = Skin::new(&[Influence::rigid(0)], 1).unwrap();
    let (op, on) = deform(
        &skin,
        SkinMode::Linear,
        &[Affine3A::from_translation(Vec3::X)],
        &[Vec3::Y],
        &[],
    );
    assert_eq!(op[0], Vec3::new(1.0, 1.0, 0.0));
    assert!(on.is_empty());
}

/// SDEF: bone 0 still, bone 1 turned by θ about an axis through C (with R0, R1 on that axis, so
/// the centre stays). The vertex turns about C by the slerped rotation, angle w1·θ about the same
/// axis, so its distance to C is kept — where linear blending pulls it in.
#[test]
fn sdef_turns_about_its_centre_and_keeps_the_radius() {
    let c = Vec3::new(0.0, 1.0, 0.0);
    let theta = 1.4_f32;
    let turn = Quat::from_rotation_z(theta);
    let m1 =
        Affine3A::from_translation(c) * Affine3A::from_quat(turn) * Affine3A::from_translation(-c);
    let m = [Affine3A::IDENTITY, m1];
    for &w0 in &[1.0_f32, 0.75, 0.5, 0.2, 0.0] {
        let w1 = 1.0 - w0;
        let p = c + Vec3::new(0.3, 0.2, 0.1);
        let inf = Influence::Sdef {
            joints: [0, 1],
            weight: w0,
            c,
            r0: c + Vec3::new(0.0, 0.0, -0.5),
            r1: c + Vec3::new(0.0, 0.0, 0.5),
        };
        let skin = Skin::new(&[inf], 2).unwrap();
        let (op, on) = deform(&skin, SkinMode::Linear, &m, &[p], &[Vec3::X]);
        let angle = w1 * theta;
        let expect = c + Quat::from_rotation_z(angle) * (p - c);
        assert!(close(op[0], expect, 1e-5), "w0 {w0}: {} vs {expect}", op[0]);
        assert!(((op[0] - c).length() - (p - c).length()).abs() < 1e-5);
        assert!(close(on[0], Quat::from_rotation_z(angle) * Vec3::X, 1e-5));
        if w0 == 0.5 {
            let lbs = (p + m1.transform_point3(p)) * 0.5;
            assert!(
                (lbs - c).length() < (p - c).length() - 0.01,
                "LBS shrinks here"
            );
        }
    }
}

/// SDEF with both joints moving alike is that rigid motion; with weight 1 it is joint 0's.
#[test]
fn sdef_reduces_to_rigid_motions() {
    let m = mats();
    let p = Vec3::new(0.4, -0.3, 1.2);
    let inf = |w| Influence::Sdef {
        joints: [2, 4],
        weight: w,
        c: Vec3::new(0.1, 0.2, 0.3),
        r0: Vec3::new(0.5, 0.0, 0.3),
        r1: Vec3::new(-0.2, 0.9, 0.3),
    };
    let skin = Skin::new(&[inf(1.0)], m.len()).unwrap();
    let (op, _) = deform(&skin, SkinMode::Linear, &m, &[p], &[]);
    assert!(close(op[0], m[2].transform_point3(p), 1e-5));
    let same = vec![m[0]; 6];
    let skin = Skin::new(&[inf(0.37)], 6).unwrap();
    let (op, _) = deform(&skin, SkinMode::Linear, &same, &[p], &[]);
    assert!(close(op[0], m[0].transform_point3(p), 1e-5));
}

/// QDEF: two rotations about the same pivot blend into the rotation by the weighted angle
/// about that pivot (exact for a shared axis), a rigid motion where LBS is not.
#[test]
fn qdef_blends_rotations_about_a_pivot() {
    let pivot = Vec3::new(1.0, 2.0, -1.0);
    let about = |q: Quat| {
        Affine3A::from_translation(pivot)
            * Affine3A::from_quat(q)
            * Affine3A::from_translation(-pivot)
    };
    let m = [
        about(Quat::from_rotation_y(0.2)),
        about(Quat::from_rotation_y(1.8)),
    ];
    let p = pivot + Vec3::new(0.5, 0.1, -0.7);
    let n = Vec3::new(0.0, 0.6, 0.8);
    for &w in &[0.0_f32, 0.25, 0.5, 0.9] {
        let skin = Skin::new(&[Influence::DualQuaternion(vec![(0, 1.0 - w), (1, w)])], 2).unwrap();
        assert_eq!(skin.span_sizes()[5], 1);
        let (op, on) = deform(&skin, SkinMode::Linear, &m, &[p], &[n]);
        // Blending unit quaternions of angles a, b about one axis by weights gives the angle
        // 2·atan2(Σ w·sin(a/2), Σ w·cos(a/2)).
        let (s, c) = (
            (1.0 - w) * 0.1_f32.sin() + w * 0.9_f32.sin(),
            (1.0 - w) * 0.1_f32.cos() + w * 0.9_f32.cos(),
        );
        let q = Quat::from_rotation_y(2.0 * s.atan2(c));
        let expect = pivot + q * (p - pivot);
        assert!(close(op[0], expect, 1e-5), "w {w}: {} vs {expect}", op[0]);
        assert!(close(on[0], q * n, 1e-5));
    }
    // The dual-quaternion mode skins a linear vertex the same way.
    let skin = Skin::new(&[Influence::two([0, 1], 0.5)], 2).unwrap();
    let (dq, _) = deform(&skin, SkinMode::DualQuaternion, &m, &[p], &[]);
    let q = Quat::from_rotation_y(1.0);
    assert!(close(dq[0], pivot + q * (p - pivot), 1e-5));
    let (lbs, _) = deform(&skin, SkinMode::Linear, &m, &[p], &[]);
    assert!((lbs[0] - pivot).length() < (p - pivot).length() - 0.05);
}

#[test]
fn dual_quaternion_round_trips_a_rigid_motion() {
    let r = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.2, 2.5);
    let t = Vec3::new(3.0, -4.0, 0.5);
    let d = DualQuat::from_rotation_translation(r, t);
    assert!(close(d.translation(), t, 1e-5));
    let p = Vec3::new(0.2, 0.4, -0.9);
    assert!(close(d.transform_point(p.into()).into(), r * p + t, 1e-5));
    assert_eq!(DualQuat::blend(std::iter::empty()), DualQuat::IDENTITY);
}

#[test]
fn bad_influences_and_lengths_are_errors() {
    assert!(matches!(
        Skin::new(&[Influence::rigid(3)], 3),
        Err(SkinError::JointOutOfRange {
            vertex: 0,
            joint: 3,
            ..
        })
    ));
    for w in [f32::NAN, f32::INFINITY, -0.5] {
        assert!(matches!(
            Skin::new(&[Influence::Linear(vec![(0, w)])], 1),
            Err(SkinError::InvalidWeight { .. })
        ));
    }
    let sdef = |w: f32, c: Vec3| Influence::Sdef {
        joints: [0, 0],
        weight: w,
        c,
        r0: c,
        r1: c,
    };
    assert!(Skin::new(&[sdef(1.5, Vec3::ZERO)], 1).is_err());
    assert!(Skin::new(&[sdef(0.5, Vec3::NAN)], 1).is_err());
    // All-zero weights follow the first joint and are counted.
    let skin = Skin::new(&[Influence::Linear(vec![(0, 0.0), (1, 0.0)])], 2).unwrap();
    assert_eq!(skin.repaired(), 1);
    let mut scratch = SkinScratch::new(&skin);
    let mut out = [Vec3::ZERO; 2];
    let err = skin.deform(
        &mut scratch,
        SkinMode::Linear,
        &[Affine3A::IDENTITY; 2],
        &[Vec3::ZERO; 2],
        &[],
        &mut out,
        &mut [],
    );
    assert!(matches!(
        err,
        Err(SkinError::Length {
            what: "positions",
            ..
        })
    ));
    let err = skin.deform(
        &mut scratch,
        SkinMode::Linear,
        &[Affine3A::IDENTITY; 1],
        &[Vec3::ZERO],
        &[],
        &mut out[..1],
        &mut [],
    );
    assert!(matches!(
        err,
        Err(SkinError::Length {
            what: "matrices",
            ..
        })
    ));
}

fn quad_mesh() -> Mesh {
    let positions = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::ONE];
    Mesh {
        name: "quad".into(),
        normals: vec![Vec3::Z; 4],
        uvs: vec![Vec2::ZERO; 4],
        indices: vec![0, 1, 2, 1, 3, 2],
        materials: vec![Material {
            name: "m".into(),
            diffuse: Vec4::ONE,
            ambient: Vec3::ZERO,
            specular: Vec4::ZERO,
            texture: None,
            double_sided: false,
            edge: None,
            first_index: 0,
            index_count: 6,
        }],
        skin: Skin::new(&vec![Influence::rigid(0); 4], 1).unwrap(),
        morphs: vec![
            Morph {
                name: "lift".into(),
                kind: MorphKind::Vertex {
                    vertices: vec![3],
                    positions: vec![Vec3::Z],
                    normals: vec![],
                },
            },
            Morph {
                name: "bone".into(),
                kind: MorphKind::Other,
            },
            Morph {
                name: "slide".into(),
                kind: MorphKind::Uv {
                    channel: 0,
                    vertices: vec![0, 1],
                    offsets: vec![Vec4::X; 2],
                },
            },
        ],
        positions,
        ..Mesh::default()
    }
}

#[test]
fn morphs_add_weighted_offsets_before_skinning() {
    let mesh = quad_mesh();
    mesh.validate().unwrap();
    let mut d = Deformed::new(&mesh);
    let m = [Affine3A::from_translation(Vec3::new(0.0, 0.0, 10.0))];
    d.update(&mesh, &m, &[0.5, 1.0, 0.25], SkinMode::Linear)
        .unwrap();
    assert_eq!(d.positions()[3], Vec3::new(1.0, 1.0, 11.5));
    assert_eq!(d.positions()[0], Vec3::new(0.0, 0.0, 10.0));
    assert_eq!(d.uvs()[1], Vec2::new(0.25, 0.0));
    // Back to no morph: rest again.
    d.update(&mesh, &m, &[], SkinMode::Linear).unwrap();
    assert_eq!(d.positions()[3], Vec3::new(1.0, 1.0, 11.0));
    assert_eq!(d.uvs()[1], Vec2::ZERO);
    // The free function agrees.
    let (mut p, mut n, mut uv) = (
        vec![Vec3::ZERO; 4],
        vec![Vec3::ZERO; 4],
        vec![Vec2::ZERO; 4],
    );
    apply_morphs(
        &mesh.morphs,
        &[2.0],
        &mesh.positions,
        &mesh.normals,
        &mesh.uvs,
        &mut p,
        &mut n,
        &mut uv,
    )
    .unwrap();
    assert_eq!(p[3], Vec3::new(1.0, 1.0, 3.0));
}

#[test]
fn validate_names_the_broken_reference() {
    let mut mesh = quad_mesh();
    mesh.indices[4] = 9;
    assert!(matches!(
        mesh.validate(),
        Err(SkinError::VertexOutOfRange {
            what: "triangle index",
            index: 4,
            vertex: 9,
            ..
        })
    ));
    let mut mesh = quad_mesh();
    mesh.materials[0].index_count = 9;
    assert!(mesh.validate().is_err());
    let mut mesh = quad_mesh();
    mesh.materials[0].texture = Some(0);
    assert!(mesh.validate().is_err());
    let mut mesh = quad_mesh();
    if let MorphKind::Vertex { vertices, .. } = &mut mesh.morphs[0].kind {
        vertices[0] = 4;
    }
    assert!(matches!(
        mesh.validate(),
        Err(SkinError::VertexOutOfRange {
            what: "morph offset",
            ..
        })
    ));
    let mut mesh = quad_mesh();
    mesh.positions[0] = Vec3::NAN;
    assert!(mesh.validate().is_err());
}

#[test]
fn linear_weights_give_back_every_vertex_strongest_four() {
    let infl = vec![
        Influence::rigid(2),
        Influence::two([3, 1], 0.75),
        Influence::Linear(vec![
            (0, 0.1),
            (1, 0.2),
            (2, 0.3),
            (3, 0.15),
            (4, 0.15),
            (5, 0.1),
        ]),
        Influence::Sdef {
            joints: [4, 5],
            weight: 0.4,
            c: Vec3::ZERO,
            r0: Vec3::X,
            r1: Vec3::Y,
        },
        Influence::DualQuaternion(vec![(1, 1.0), (2, 3.0)]),
    ];
    let w = Skin::new(&infl, 6).unwrap().linear_weights();
    assert_eq!(w[0], ([2, 0, 0, 0], [1.0, 0.0, 0.0, 0.0]));
    assert_eq!(w[1].0[..2], [3, 1]);
    assert!((w[1].1[0] - 0.75).abs() < 1e-6);
    assert_eq!(w[2].0, [2, 1, 3, 4]);
    assert!((w[2].1.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    assert_eq!(w[3].0[..2], [5, 4]);
    assert!((w[3].1[0] - 0.6).abs() < 1e-6);
    assert_eq!(w[4].0[..2], [2, 1]);
    assert!((w[4].1[0] - 0.75).abs() < 1e-6);
}

/// SDEF runs of four or more vertices go through the four-lane kernel: the same results as
/// each vertex skinned alone (the one-by-one path).
#[test]
fn sdef_lanes_match_one_by_one() {
    let m = mats();
    let infl: Vec<Influence> = (0..11)
        .map(|i| {
            let f = i as f32;
            Influence::Sdef {
                joints: [1, 4],
                weight: (f * 0.093).fract(),
                c: Vec3::new(0.1 * f, 1.0, -0.2),
                r0: Vec3::new(0.1 * f, 0.5, -0.2 + 0.01 * f),
                r1: Vec3::new(0.1 * f, 1.5, -0.2),
            }
        })
        .collect();
    let p: Vec<Vec3> = (0..11)
        .map(|i| Vec3::new(0.3 * i as f32, 1.1, 0.2))
        .collect();
    let n: Vec<Vec3> = (0..11)
        .map(|i| Vec3::new(1.0, 0.1 * i as f32, 0.0).normalize())
        .collect();
    // Distinct joint rotations (slerp), then nearly equal ones (normalised lerp).
    let mut near = m.clone();
    near[4] = near[1] * Affine3A::from_quat(Quat::from_rotation_y(1e-3));
    for m in [m, near] {
        let skin = Skin::new(&infl, m.len()).unwrap();
        let (all_p, all_n) = deform(&skin, SkinMode::Linear, &m, &p, &n);
        for v in 0..11 {
            let one = Skin::new(&infl[v..v + 1], m.len()).unwrap();
            let (op, on) = deform(&one, SkinMode::Linear, &m, &p[v..v + 1], &n[v..v + 1]);
            assert!(
                close(all_p[v], op[0], 1e-5),
                "vertex {v}: {} vs {}",
                all_p[v],
                op[0]
            );
            assert!(close(all_n[v], on[0], 1e-5), "vertex {v} normal");
        }
    }
}
