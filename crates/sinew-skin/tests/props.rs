//! Invariants over random skins: weights that sum to one keep a shared rigid motion exact, and
//! nothing a valid skin is handed produces NaN.

use glam::{Affine3A, Quat, Vec3};
use proptest::prelude::*;
use sinew_skin::{Influence, Skin, SkinMode, SkinScratch};

fn influence(joints: u32) -> impl Strategy<Value = Influence> {
    let list = prop::collection::vec((0..joints, 0.0f32..1.0), 1..7);
    prop_oneof![
        list.clone().prop_map(Influence::Linear),
        list.prop_map(|l| Influence::DualQuaternion(l.into_iter().take(4).collect())),
        (
            0..joints,
            0..joints,
            0.0f32..=1.0,
            prop::array::uniform3(-2.0f32..2.0)
        )
            .prop_map(|(a, b, w, c)| Influence::Sdef {
                joints: [a, b],
                weight: w,
                c: Vec3::from(c),
                r0: Vec3::from(c) + Vec3::Y,
                r1: Vec3::from(c) - Vec3::Y,
            }),
    ]
}

proptest! {
    #[test]
    fn one_rigid_motion_for_all_joints_moves_every_vertex_rigidly(
        infl in prop::collection::vec(influence(5), 1..40),
        angle in -3.0f32..3.0,
        t in prop::array::uniform3(-5.0f32..5.0),
        mode in prop_oneof![Just(SkinMode::Linear), Just(SkinMode::DualQuaternion)],
    ) {
        let skin = Skin::new(&infl, 5).unwrap();
        let m = Affine3A::from_rotation_translation(Quat::from_rotation_y(angle) * Quat::from_rotation_x(0.3), Vec3::from(t));
        let p: Vec<Vec3> = (0..infl.len()).map(|i| Vec3::new(i as f32 * 0.1, 1.0, -0.5)).collect();
        let mut out = vec![Vec3::ZERO; p.len()];
        let mut outn = vec![Vec3::ZERO; p.len()];
        skin.deform(&mut SkinScratch::new(&skin), mode, &[m; 5], &p, &vec![Vec3::Y; p.len()], &mut out, &mut outn).unwrap();
        for (v, q) in p.iter().zip(&out) {
            prop_assert!((m.transform_point3(*v) - *q).length() < 1e-4);
        }
        for n in &outn {
            prop_assert!((*n - m.transform_vector3(Vec3::Y)).length() < 1e-4);
        }
    }

    #[test]
    fn random_joint_matrices_give_finite_vertices(
        infl in prop::collection::vec(influence(4), 1..40),
        rots in prop::collection::vec(prop::array::uniform4(-1.0f32..1.0), 4),
        mode in prop_oneof![Just(SkinMode::Linear), Just(SkinMode::DualQuaternion)],
    ) {
        let skin = Skin::new(&infl, 4).unwrap();
        let m: Vec<Affine3A> = rots.iter().map(|r| {
            let q = Quat::from_xyzw(r[0], r[1], r[2], r[3] + 1.5).normalize();
            Affine3A::from_rotation_translation(q, Vec3::new(r[0], r[1], r[2]))
        }).collect();
        let p = vec![Vec3::ONE; infl.len()];
        let mut out = vec![Vec3::ZERO; p.len()];
        skin.deform(&mut SkinScratch::new(&skin), mode, &m, &p, &[], &mut out, &mut []).unwrap();
        prop_assert!(out.iter().all(|v| v.is_finite()));
    }
}
