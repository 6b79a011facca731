//! Blending: weight normalisation, masks, additive layers, rest fallback, cross-fades.

use glam::{Quat, Vec3};
use sinew::anim::{blend, AdditiveLayer, BlendLayer, BlendParams};
use sinew::Transform;
use sinew_humanoid::Humanoid;

fn poses() -> (Humanoid, Vec<Transform>, Vec<Transform>) {
    let h = Humanoid::new();
    let mut a = h.skeleton.rest_pose().to_vec();
    let mut b = a.clone();
    h.animate(0.15, &mut a);
    h.animate(0.65, &mut b);
    (h, a, b)
}

#[test]
fn weights_normalise() {
    let (h, a, b) = poses();
    let rest = h.skeleton.rest_pose();
    let mut scaled = vec![Transform::IDENTITY; a.len()];
    let mut unit = scaled.clone();
    let p = BlendParams::default();
    blend(
        rest,
        &[BlendLayer::new(&a, 2.0), BlendLayer::new(&b, 6.0)],
        &[],
        &p,
        &mut scaled,
    );
    blend(
        rest,
        &[BlendLayer::new(&a, 0.25), BlendLayer::new(&b, 0.75)],
        &[],
        &p,
        &mut unit,
    );
    for (((s, u), pa), pb) in scaled.iter().zip(&unit).zip(&a).zip(&b) {
        assert!(s.abs_diff_eq(u, 1e-5));
        let want = pa.translation * 0.25 + pb.translation * 0.75;
        assert!(s.translation.abs_diff_eq(want, 1e-5));
        assert!((s.rotation.length() - 1.0).abs() < 1e-5);
    }
    // A single layer at any weight above the threshold is that layer.
    blend(rest, &[BlendLayer::new(&a, 0.5)], &[], &p, &mut unit);
    for (u, pa) in unit.iter().zip(&a) {
        assert!(u.abs_diff_eq(pa, 1e-5));
    }
}

#[test]
fn rotations_are_sign_aligned() {
    let q = Quat::from_rotation_y(0.4);
    let a = [Transform::from_rotation(q)];
    let b = [Transform::from_rotation(-q)]; // the same rotation, opposite sign
    let mut out = [Transform::IDENTITY];
    blend(
        &[Transform::IDENTITY],
        &[BlendLayer::new(&a, 0.5), BlendLayer::new(&b, 0.5)],
        &[],
        &BlendParams::default(),
        &mut out,
    );
    assert!(out[0].rotation.abs_diff_eq(q, 1e-6) || out[0].rotation.abs_diff_eq(-q, 1e-6));
}

#[test]
fn masks_select_bones() {
    let (h, a, b) = poses();
    let n = a.len();
    let upper = h.bones.spine[0].index();
    // Layer b only above the spine (its subtree), layer a everywhere at weight 1.
    let end = h.skeleton.subtree_end(h.bones.spine[0]);
    let mask_b: Vec<f32> = (0..n)
        .map(|i| f32::from(u8::from((upper..end).contains(&i))))
        .collect();
    let mask_a: Vec<f32> = mask_b.iter().map(|m| 1.0 - m).collect();
    let mut out = vec![Transform::IDENTITY; n];
    blend(
        h.skeleton.rest_pose(),
        &[
            BlendLayer::new(&a, 1.0).with_mask(&mask_a),
            BlendLayer::new(&b, 1.0).with_mask(&mask_b),
        ],
        &[],
        &BlendParams::default(),
        &mut out,
    );
    for i in 0..n {
        let want = if (upper..end).contains(&i) {
            &b[i]
        } else {
            &a[i]
        };
        assert!(out[i].abs_diff_eq(want, 1e-5), "bone {i}");
    }
}

#[test]
fn threshold_falls_back_to_rest() {
    let (h, a, _) = poses();
    let rest = h.skeleton.rest_pose();
    let mut out = vec![Transform::IDENTITY; a.len()];
    let p = BlendParams { threshold: 0.1 };
    // Weight zero: pure rest.
    blend(rest, &[BlendLayer::new(&a, 0.0)], &[], &p, &mut out);
    for (o, r) in out.iter().zip(rest) {
        assert!(o.abs_diff_eq(r, 1e-6));
    }
    // Weight 0.04 < 0.1: rest is blended in with 0.06, i.e. 40 % layer, 60 % rest.
    blend(rest, &[BlendLayer::new(&a, 0.04)], &[], &p, &mut out);
    for ((o, r), pa) in out.iter().zip(rest).zip(&a) {
        let want = r.translation * 0.6 + pa.translation * 0.4;
        assert!(o.translation.abs_diff_eq(want, 1e-5));
    }
    // Masked: the bones whose mask is zero fall back to rest, the others are the layer.
    let mask: Vec<f32> = (0..a.len()).map(|i| (i % 2) as f32).collect();
    blend(
        rest,
        &[BlendLayer::new(&a, 1.0).with_mask(&mask)],
        &[],
        &p,
        &mut out,
    );
    for (i, o) in out.iter().enumerate() {
        let want = if i % 2 == 1 { &a[i] } else { &rest[i] };
        assert!(o.abs_diff_eq(want, 1e-5));
    }
}

#[test]
fn additive_from_rest_and_from_reference() {
    let (h, a, b) = poses();
    let rest = h.skeleton.rest_pose();
    let n = a.len();
    let p = BlendParams::default();
    // Additive of `b` relative to rest, at weight 1, on top of rest gives `b` back.
    let mut out = vec![Transform::IDENTITY; n];
    blend(
        rest,
        &[],
        &[AdditiveLayer::new(&b, 1.0)],
        &BlendParams { threshold: 1.0 },
        &mut out,
    );
    for (o, pb) in out.iter().zip(&b) {
        assert!(o.abs_diff_eq(pb, 1e-4));
    }
    // Relative to a reference pose: base `a` + (b − a) = b.
    blend(
        rest,
        &[BlendLayer::new(&a, 1.0)],
        &[AdditiveLayer::new(&b, 1.0).relative_to(&a)],
        &p,
        &mut out,
    );
    for (o, pb) in out.iter().zip(&b) {
        assert!(o.abs_diff_eq(pb, 1e-4));
    }
    // Weight 0 changes nothing; a masked additive only touches masked bones.
    let mut base = vec![Transform::IDENTITY; n];
    blend(rest, &[BlendLayer::new(&a, 1.0)], &[], &p, &mut base);
    blend(
        rest,
        &[BlendLayer::new(&a, 1.0)],
        &[AdditiveLayer::new(&b, 0.0)],
        &p,
        &mut out,
    );
    assert_eq!(out, base);
    let head = h.bones.head.index();
    let mask: Vec<f32> = (0..n).map(|i| f32::from(u8::from(i == head))).collect();
    let lean = {
        let mut l = rest.to_vec();
        l[head].rotation = rest[head].rotation * Quat::from_rotation_x(0.5);
        l[0].translation += Vec3::X; // masked out
        l
    };
    blend(
        rest,
        &[BlendLayer::new(&a, 1.0)],
        &[AdditiveLayer::new(&lean, 0.5).with_mask(&mask)],
        &p,
        &mut out,
    );
    for i in 0..n {
        if i == head {
            let want = a[head].rotation
                * Quat::from_rotation_x(0.5)
                    .lerp(Quat::IDENTITY, 0.5)
                    .normalize();
            assert!(out[i].rotation.abs_diff_eq(want, 1e-4));
        } else {
            assert!(out[i].abs_diff_eq(&a[i], 1e-6));
        }
    }
}
