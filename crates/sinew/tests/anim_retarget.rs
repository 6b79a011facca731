//! Retargeting between rigs with different rest rotations, bone names and proportions.

use std::sync::Arc;

use glam::{Affine3A, Quat, Vec3};
use sinew::anim::{leg_length, RetargetMap, RetargetScratch};
use sinew::pose::local_to_world;
use sinew::{Parent, Skeleton, SkeletonBuilder, Transform};
use sinew_humanoid::Humanoid;

/// A copy of `src` with every bone renamed `t_<name>`, every rest *world* rotation turned by a
/// per-bone twist, and lengths multiplied by `scale`. Joint positions (at `scale` 1) match.
fn twisted_copy(src: &Skeleton, scale: f32) -> Arc<Skeleton> {
    let n = src.len();
    let rest_world: Vec<Affine3A> = src.rest_world().to_vec();
    let world_rot: Vec<Quat> = (0..n)
        .map(|i| {
            let (_, r, _) = rest_world[i].to_scale_rotation_translation();
            let twist = Quat::from_euler(glam::EulerRot::XYZ, 0.3 * i as f32, -0.2 * i as f32, 0.7);
            (r * twist).normalize()
        })
        .collect();
    let mut b = SkeletonBuilder::new();
    for bone in src.bones() {
        let i = bone.index();
        let name = format!("t_{}", src.name(bone));
        let pos = Vec3::from(rest_world[i].translation) * scale;
        let t = match src.parent(bone) {
            None => Transform::from_translation_rotation(pos, world_rot[i]),
            Some(p) => {
                let pp = Vec3::from(rest_world[p.index()].translation) * scale;
                let pr = world_rot[p.index()];
                Transform::from_translation_rotation(
                    pr.conjugate() * (pos - pp),
                    (pr.conjugate() * world_rot[i]).normalize(),
                )
            }
        };
        let parent = src
            .parent(bone)
            .map_or(Parent::Root, |p| Parent::from(format!("t_{}", src.name(p))));
        b.push(name, parent, t);
    }
    b.build().unwrap()
}

fn pairs(src: &Skeleton) -> Vec<(String, String)> {
    src.bones()
        .map(|b| (src.name(b).to_owned(), format!("t_{}", src.name(b))))
        .collect()
}

fn world(skel: &Skeleton, locals: &[Transform]) -> Vec<Affine3A> {
    let mut w = vec![Affine3A::IDENTITY; locals.len()];
    local_to_world(skel.parent_indices(), locals, &Affine3A::IDENTITY, &mut w);
    w
}

/// Translation and scale within `eps`, rotation component-wise up to sign (robust near zero angle).
fn close(a: &Transform, b: &Transform, eps: f32) -> bool {
    a.translation.abs_diff_eq(b.translation, eps)
        && a.scale.abs_diff_eq(b.scale, eps)
        && (a.rotation.abs_diff_eq(b.rotation, eps) || a.rotation.abs_diff_eq(-b.rotation, eps))
}

fn rot(a: &Affine3A) -> Quat {
    a.to_scale_rotation_translation().1
}

#[test]
fn rest_maps_to_rest() {
    let h = Humanoid::new();
    let tgt = twisted_copy(&h.skeleton, 1.0);
    let map = RetargetMap::from_names(&h.skeleton, &tgt, &pairs(&h.skeleton));
    assert!(map.unmatched().is_empty());
    let mut scratch = RetargetScratch::new(&map);
    let mut out = vec![Transform::IDENTITY; tgt.len()];
    map.apply(h.skeleton.rest_pose(), &mut scratch, &mut out);
    for (o, r) in out.iter().zip(tgt.rest_pose()) {
        assert!(close(o, r, 1e-4), "{o:?} vs {r:?}");
    }
}

#[test]
fn world_space_motion_matches_and_round_trips() {
    let h = Humanoid::new();
    let src = &h.skeleton;
    let tgt = twisted_copy(src, 1.0);
    let hips = [src.find("root").unwrap(), src.find("pelvis").unwrap()];
    let mut fwd = RetargetMap::from_names(src, &tgt, &pairs(src));
    let back_pairs: Vec<(String, String)> = pairs(src).into_iter().map(|(a, b)| (b, a)).collect();
    let mut back = RetargetMap::from_names(&tgt, src, &back_pairs);
    for b in hips {
        fwd = fwd.with_translation(tgt.find(&format!("t_{}", src.name(b))).unwrap(), 1.0);
        back = back.with_translation(b, 1.0);
    }
    let mut s1 = RetargetScratch::new(&fwd);
    let mut s2 = RetargetScratch::new(&back);
    let mut src_pose = src.rest_pose().to_vec();
    let mut tgt_pose = vec![Transform::IDENTITY; tgt.len()];
    let mut round = src_pose.clone();
    let src_rest_w = src.rest_world();
    let tgt_rest_w = tgt.rest_world();
    for k in 0..10 {
        h.animate(0.13 * k as f32, &mut src_pose);
        fwd.apply(&src_pose, &mut s1, &mut tgt_pose);
        let ws = world(src, &src_pose);
        let wt = world(&tgt, &tgt_pose);
        for i in 0..src.len() {
            // Same joint positions, and the same model-space rotation away from each rest.
            let ps = Vec3::from(ws[i].translation);
            let pt = Vec3::from(wt[i].translation);
            assert!(ps.abs_diff_eq(pt, 1e-4), "bone {i}: {ps} vs {pt}");
            let ds = rot(&ws[i]) * rot(&src_rest_w[i]).conjugate();
            let dt = rot(&wt[i]) * rot(&tgt_rest_w[i]).conjugate();
            assert!(ds.dot(dt).abs() > 1.0 - 1e-5, "bone {i}");
        }
        back.apply(&tgt_pose, &mut s2, &mut round);
        for (r, s) in round.iter().zip(&src_pose) {
            assert!(close(r, s, 1e-4));
        }
    }
}

#[test]
fn hip_translation_scales_with_leg_length() {
    let h = Humanoid::new();
    let src = &h.skeleton;
    let tgt = twisted_copy(src, 1.5);
    let ratio = leg_length(
        &tgt,
        tgt.find("t_pelvis").unwrap(),
        tgt.find("t_foot_l").unwrap(),
    )
    .unwrap()
        / leg_length(
            src,
            src.find("pelvis").unwrap(),
            src.find("foot_l").unwrap(),
        )
        .unwrap();
    assert!((ratio - 1.5).abs() < 1e-4);
    let pelvis_t = tgt.find("t_pelvis").unwrap();
    let map = RetargetMap::from_names(src, &tgt, &pairs(src))
        .with_translation(tgt.find("t_root").unwrap(), ratio)
        .with_translation(pelvis_t, ratio);
    let mut scratch = RetargetScratch::new(&map);
    let mut src_pose = src.rest_pose().to_vec();
    let mut tgt_pose = vec![Transform::IDENTITY; tgt.len()];
    let pelvis_s = src.find("pelvis").unwrap().index();
    for k in 0..5 {
        h.animate(0.21 * k as f32, &mut src_pose);
        map.apply(&src_pose, &mut scratch, &mut tgt_pose);
        let ws = world(src, &src_pose);
        let wt = world(&tgt, &tgt_pose);
        let ds = Vec3::from(ws[pelvis_s].translation)
            - Vec3::from(src.rest_world()[pelvis_s].translation);
        let dt = Vec3::from(wt[pelvis_t.index()].translation)
            - Vec3::from(tgt.rest_world()[pelvis_t.index()].translation);
        assert!((ds * ratio).abs_diff_eq(dt, 1e-4), "{ds} × {ratio} vs {dt}");
    }
}

#[test]
fn same_name_mode_and_unmatched() {
    let h = Humanoid::new();
    let mut b = SkeletonBuilder::new();
    b.push("root", Parent::Root, Transform::IDENTITY);
    b.push("pelvis", "root", Transform::from_translation(Vec3::Y));
    b.push("antenna", "pelvis", Transform::from_translation(Vec3::Y));
    let small = b.build().unwrap();
    let map = RetargetMap::same_names(&h.skeleton, &small);
    assert_eq!(map.unmatched(), ["antenna".to_owned()]);
    assert_eq!(
        map.source_of(small.find("pelvis").unwrap()),
        h.skeleton.find("pelvis")
    );
    assert_eq!(map.source_of(small.find("antenna").unwrap()), None);
    let mut scratch = RetargetScratch::new(&map);
    let mut pose = h.skeleton.rest_pose().to_vec();
    h.animate(0.3, &mut pose);
    let mut out = vec![Transform::IDENTITY; 3];
    map.apply(&pose, &mut scratch, &mut out);
    assert!(out[2].abs_diff_eq(&small.rest_pose()[2], 1e-6));
}
