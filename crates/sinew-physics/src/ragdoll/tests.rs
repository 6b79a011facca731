//! Unit tests of the ragdoll's free helpers (projection order, local solve) and of `Send`.

use super::build::projection_order;
use super::writeback::solve_local;
use super::*;
use sinew::Transform;

#[test]
fn ragdoll_is_send() {
    fn send<T: Send>() {}
    send::<Ragdoll>();
}

#[test]
fn projection_follows_the_joint_tree_from_driven_bodies() {
    // 0 driven; chain 0–1–2 with 2 given as (b=1, a=2) reversed; loop 1–3, 2–3, 3–1 closes.
    let driven = [true, false, false, false, false, false];
    let joints = [(0, 1), (2, 1), (1, 3), (2, 3), (4, 5), (0, 0)];
    let order = projection_order(&driven, &joints[..5]);
    // From 0: joint 0 moves B (1); from 1: joint 1 moves A (2), joint 2 moves B (3);
    // joint 3 closes a loop and is left out; 4–5 float free: rooted at 4, joint 4 moves 5.
    assert_eq!(order, vec![(0, true), (1, false), (2, true), (4, true)]);
    // Two driven ends: nothing between driven bodies, each dynamic body reached once.
    let order = projection_order(&[true, false, true], &[(0, 1), (1, 2), (0, 2)]);
    assert_eq!(order, vec![(0, true)]);
}

#[test]
fn affine_solve_reproduces_desired_under_scaled_parent() {
    let parent = Affine3A::from_scale_rotation_translation(
        Vec3::splat(2.0),
        Quat::from_rotation_z(0.3),
        Vec3::new(1.0, 0.0, 0.0),
    );
    let desired = Affine3A::from_scale_rotation_translation(
        Vec3::splat(2.0),
        Quat::from_rotation_x(0.5),
        Vec3::new(0.0, 3.0, 1.0),
    );
    let l = solve_local(&parent, &desired, &Transform::IDENTITY, true, false).unwrap();
    let back = parent * l.to_affine();
    assert!(back.abs_diff_eq(desired, 1e-4));
    let r = solve_local(&parent, &desired, &Transform::IDENTITY, false, false).unwrap();
    let back = parent * r.to_affine();
    assert!(!back.abs_diff_eq(desired, 1e-2));
}
