//! Unit tests of the 6-DOF joint solve: Bullet's motor factor, anchors, limit and spring rows,
//! angular momentum about a pin, row scheduling, translation axes and shape inertias.

use super::*;
use crate::inertia::{box_inertia, capsule_inertia, sphere_inertia};
use glam::Quat;

fn body(t: Vec3, mass: f32) -> BodyState {
    BodyState {
        pose: Rigid::new(t, Quat::IDENTITY),
        v: Vec3::ZERO,
        w: Vec3::ZERO,
        inv_mass: if mass > 0.0 { 1.0 / mass } else { 0.0 },
        inv_inertia: if mass > 0.0 {
            Mat3::from_diagonal(Vec3::ONE / sphere_inertia(mass, 0.5))
        } else {
            Mat3::ZERO
        },
    }
}

fn joint(lo: Vec3, hi: Vec3) -> SixDof {
    SixDof {
        a: 0,
        b: 1,
        frame_a: Rigid::new(Vec3::new(0.0, -1.0, 0.0), Quat::IDENTITY),
        frame_b: Rigid::new(Vec3::new(0.0, 1.0, 0.0), Quat::IDENTITY),
        lin_lo: Vec3::ZERO,
        lin_hi: Vec3::ZERO,
        ang_lo: lo,
        ang_hi: hi,
        lin_k: Vec3::ZERO,
        ang_k: Vec3::ZERO,
    }
}

#[test]
fn motor_factor_matches_bullet_cases() {
    assert_eq!(motor_factor(0.0, 1.0, -1.0, 5.0, 1.0), 1.0);
    assert_eq!(motor_factor(0.0, 0.5, 0.5, 5.0, 1.0), 0.0);
    assert_eq!(motor_factor(0.0, -1.0, 1.0, 0.5, 1.0), 1.0);
    assert!((motor_factor(0.9, -1.0, 1.0, 0.5, 1.0) - 0.2).abs() < 1e-6);
    assert_eq!(motor_factor(1.5, -1.0, 1.0, 0.5, 1.0), 0.0);
}

#[test]
fn a_separated_anchor_is_pulled_together() {
    // B hangs from a fixed A with its anchor 0.1 too low: the rows move B up.
    let mut bodies = [body(Vec3::ZERO, 0.0), body(Vec3::new(0.0, -2.1, 0.0), 1.0)];
    let j = joint(Vec3::ZERO, Vec3::ZERO);
    JointSolver::default().solve(&[j], &[], &mut bodies, 1.0 / 60.0, ITERATIONS);
    let v = bodies[1].v;
    assert!(v.y > 0.0, "{v}");
    // Bullet's bias: ERP · error · fps.
    assert!((v.y - STOP_ERP * 0.1 * 60.0).abs() < 0.05, "{v}");
}

#[test]
fn limit_rows_push_back_only_outside_the_box() {
    // B rotated about X so that Bullet's angle (A seen from B) is −0.3, below lo = −0.2.
    let mut bodies = [body(Vec3::ZERO, 0.0), body(Vec3::new(0.0, -2.0, 0.0), 1.0)];
    let q = Quat::from_rotation_x(0.3);
    // Keep the anchor: B's centre under the joint point (0, −1, 0).
    bodies[1].pose = Rigid::new(Vec3::new(0.0, -1.0, 0.0) + q * Vec3::new(0.0, -1.0, 0.0), q);
    let lo = Vec3::new(-0.2, -0.1, -0.1);
    let hi = Vec3::new(0.2, 0.1, 0.1);
    let j = joint(lo, hi);
    let e = euler_xyz_from_quat(j.frame_b.r.inverse() * q.inverse());
    assert!((e.x + 0.3).abs() < 1e-5, "{e}");
    JointSolver::default().solve(&[j], &[], &mut bodies, 1.0 / 60.0, ITERATIONS);
    // The angle (−ω_B about x) must grow: B turns back, ω_B.x < 0.
    assert!(bodies[1].w.x < 0.0, "{}", bodies[1].w);
    // Inside the box nothing moves (no spring).
    let mut still = [body(Vec3::ZERO, 0.0), body(Vec3::new(0.0, -2.0, 0.0), 1.0)];
    JointSolver::default().solve(&[j], &[], &mut still, 1.0 / 60.0, ITERATIONS);
    assert_eq!(still[1].w, Vec3::ZERO);
    assert_eq!(still[1].v, Vec3::ZERO);
}

#[test]
fn springs_pull_toward_zero_with_a_capped_impulse() {
    let mut bodies = [body(Vec3::ZERO, 0.0), body(Vec3::new(0.0, -2.0, 0.0), 1.0)];
    let q = Quat::from_rotation_z(0.1);
    bodies[1].pose = Rigid::new(Vec3::new(0.0, -1.0, 0.0) + q * Vec3::new(0.0, -1.0, 0.0), q);
    let mut j = joint(Vec3::splat(-1.0), Vec3::splat(1.0));
    j.ang_k = Vec3::splat(10.0);
    JointSolver::default().solve(&[j], &[], &mut bodies, 1.0 / 60.0, ITERATIONS);
    // Back toward the rest angle: ω_B.z < 0, and the impulse is at most k·δ/fps.
    let w = bodies[1].w;
    assert!(w.z < 0.0, "{w}");
    let inertia = sphere_inertia(1.0, 0.5).z;
    assert!(w.z.abs() * inertia <= 10.0 * 0.1 / 60.0 * 1.5 + 1e-4, "{w}");
}

#[test]
fn a_pinned_spinning_body_keeps_its_angular_momentum_about_the_pin() {
    // Free angles (lo > hi), locked anchor 1 above B's centre; B spins about x at 60 rad/s.
    // (A locked axis exactly at its value has no row, as in Bullet: start 1e-4 off on each.)
    let mut bodies = [
        body(Vec3::ZERO, 0.0),
        body(Vec3::new(1e-4, -2.0 - 1e-4, 1e-4), 1.0),
    ];
    bodies[1].w = Vec3::new(60.0, 0.0, 0.0);
    let j = joint(Vec3::ONE, -Vec3::ONE);
    JointSolver::default().solve(&[j], &[], &mut bodies, 1.0 / 60.0, 50);
    // About the pin: I_cm·ω = (I_cm + m·r²)·ω'.
    let i = sphere_inertia(1.0, 0.5).x;
    let expected = 60.0 * i / (i + 1.0);
    let w = bodies[1].w;
    assert!((w.x - expected).abs() < 0.5, "{w} vs {expected}");
    // The anchor's velocity is zero: v + ω × r with r = (0, 1, 0).
    let anchor = bodies[1].v + w.cross(Vec3::new(0.0, 1.0, 0.0));
    assert!(anchor.length() < 0.01, "{anchor}");
}

#[test]
fn scheduling_changes_nothing_but_the_order() {
    // Two hanging chains of three bodies under one fixed body, each joint off its anchor
    // and past its limits, plus contacts between the chains: the scheduled sweep equals
    // the authored-order sweep bit for bit.
    let mut bodies = vec![body(Vec3::ZERO, 0.0)];
    let mut joints = Vec::new();
    for chain in 0..2 {
        for k in 0..3 {
            let x = chain as f32 * 0.3;
            let mut b = body(
                Vec3::new(x + 0.01 * k as f32, -2.0 * (k + 1) as f32, 0.02),
                1.0,
            );
            b.pose.r = Quat::from_rotation_z(0.2 * (k as f32 + 1.0) * (chain as f32 - 0.5));
            b.v = Vec3::new(0.3, -0.2 * k as f32, 0.1);
            b.w = Vec3::new(0.5, 0.1, -0.4 * chain as f32);
            bodies.push(b);
            let mut j = joint(Vec3::splat(-0.1), Vec3::splat(0.1));
            j.a = if k == 0 { 0 } else { bodies.len() - 2 };
            j.b = bodies.len() - 1;
            j.ang_k = Vec3::splat(5.0);
            joints.push(j);
        }
    }
    let contacts = [ContactPoint {
        a: 2,
        b: 5,
        point_a: Vec3::new(0.1, -4.0, 0.0),
        point_b: Vec3::new(0.2, -4.0, 0.0),
        normal: Vec3::X,
        dist: -0.05,
        friction: 0.5,
        restitution: 0.0,
    }];
    let run = |unscheduled: bool| {
        let mut b = bodies.clone();
        let mut solver = JointSolver {
            unscheduled,
            ..JointSolver::default()
        };
        solver.solve(&joints, &contacts, &mut b, 1.0 / 60.0, ITERATIONS);
        b.iter().map(|s| (s.v, s.w)).collect::<Vec<_>>()
    };
    let (scheduled, authored) = (run(false), run(true));
    assert_ne!(authored[3].0, bodies[3].v, "the rows did nothing");
    assert_eq!(scheduled, authored);
}

#[test]
fn translation_limits_and_springs() {
    // A slider along frame A's x: free within ±0.5, pushed back past it, sprung to 0.
    let mut j = joint(Vec3::ZERO, Vec3::ZERO);
    j.lin_lo = Vec3::new(-0.5, 0.0, 0.0);
    j.lin_hi = Vec3::new(0.5, 0.0, 0.0);
    let at = |x: f32| {
        let mut b = [body(Vec3::ZERO, 0.0), body(Vec3::new(x, -2.0, 0.0), 1.0)];
        // Off by 1e-4 on the locked axes so that their rows exist (as in Bullet).
        b[1].pose.t += Vec3::new(0.0, -1e-4, 1e-4);
        b
    };
    // The anchor's velocity along x (the body may also turn about it).
    let anchor_vx = |b: &[BodyState; 2]| (b[1].v + b[1].w.cross(Vec3::Y)).x;
    let mut inside = at(0.3);
    JointSolver::default().solve(&[j], &[], &mut inside, 1.0 / 60.0, ITERATIONS);
    assert!(anchor_vx(&inside).abs() < 1e-4, "{inside:?}");
    let mut past = at(0.7);
    JointSolver::default().solve(&[j], &[], &mut past, 1.0 / 60.0, ITERATIONS);
    // Back toward the range by ERP · 0.2 per step.
    let v = anchor_vx(&past);
    assert!((v + STOP_ERP * 0.2 * 60.0).abs() < 0.1, "{v}");
    j.lin_k = Vec3::new(50.0, 0.0, 0.0);
    let mut sprung = at(0.3);
    JointSolver::default().solve(&[j], &[], &mut sprung, 1.0 / 60.0, ITERATIONS);
    // Toward 0, short of the motor's target speed (its impulse is capped at k·δ/fps).
    let v = anchor_vx(&sprung);
    let target = 60.0 / ITERATIONS as f32 * 50.0 * 0.3;
    assert!(v < -0.01 && v > -target, "{v}");
}

#[test]
fn bullet_inertias() {
    assert_eq!(
        box_inertia(12.0, Vec3::new(0.5, 1.0, 1.5)),
        Vec3::new(13.0, 10.0, 5.0)
    );
    let c = capsule_inertia(12.0, 0.5, 1.0);
    assert_eq!(c, box_inertia(12.0, Vec3::new(0.5, 1.0, 0.5)));
}

/// B hanging under a fixed A, moved by `t` from its rest place and turned by `q` about the
/// joint point (0, −1, 0).
fn hanging(t: Vec3, q: Quat) -> [BodyState; 2] {
    let mut b = [body(Vec3::ZERO, 0.0), body(Vec3::ZERO, 1.0)];
    b[1].pose = Rigid::new(
        Vec3::new(0.0, -1.0, 0.0) + t + q * Vec3::new(0.0, -1.0, 0.0),
        q,
    );
    b
}

/// The anchor of B's velocity (the rate of the joint's linear values along frame A's axes).
fn anchor_velocity(b: &[BodyState; 2]) -> Vec3 {
    let r = b[1].pose.r * Vec3::new(0.0, 1.0, 0.0);
    b[1].v + b[1].w.cross(r)
}

#[test]
fn every_translation_axis_limits_locks_frees_and_springs() {
    let h = 1.0 / 60.0;
    for axis in 0..3 {
        let e = Vec3::AXES[axis];
        // Free rotations: only the linear rows act.
        let mut j = joint(Vec3::ONE, -Vec3::ONE);
        // Limited ±0.5 on this axis, locked on the others (A axis exactly at its value has no
        // row: the others sit at 0).
        j.lin_lo = -0.5 * e;
        j.lin_hi = 0.5 * e;
        let solve = |j: &SixDof, x: f32| {
            let mut b = hanging(x * e, Quat::IDENTITY);
            JointSolver::default().solve(&[*j], &[], &mut b, h, ITERATIONS);
            anchor_velocity(&b).dot(e)
        };
        // Inside the range nothing moves; past it, back by ERP of the excess a step.
        assert!(solve(&j, 0.3).abs() < 1e-5, "axis {axis}");
        let v = solve(&j, 0.7);
        assert!((v + STOP_ERP * 0.2 / h).abs() < 1e-3, "axis {axis}: {v}");
        let v = solve(&j, -0.8);
        assert!((v - STOP_ERP * 0.3 / h).abs() < 1e-3, "axis {axis}: {v}");
        // Locked (lo == hi): pulled back from either side.
        let mut locked = j;
        locked.lin_lo = Vec3::ZERO;
        locked.lin_hi = Vec3::ZERO;
        let v = solve(&locked, 0.1);
        assert!((v + STOP_ERP * 0.1 / h).abs() < 1e-3, "axis {axis}: {v}");
        // Free (lo > hi): never held.
        let mut free = j;
        free.lin_lo = 0.5 * e;
        free.lin_hi = -0.5 * e;
        assert!(solve(&free, 3.0).abs() < 1e-5, "axis {axis}");
        // A spring inside the range: toward 0 at Bullet's motor speed fps / iterations · k·δ,
        // its impulse capped at k·δ / fps; that impulse at the anchor (lever (0, 1, 0), unit
        // mass, inertia 0.1) moves it at cap · (1/m + |r × e|² / I).
        let mut sprung = j;
        sprung.lin_k = 40.0 * e;
        let v = solve(&sprung, 0.25);
        let cap = 40.0 * 0.25 * h;
        let reach = 1.0 + Vec3::Y.cross(e).length_squared() / sphere_inertia(1.0, 0.5).x;
        assert!(
            (v + cap * reach).abs() < 1e-4,
            "axis {axis}: {v} (cap {cap})"
        );
    }
}

#[test]
fn every_rotation_axis_limits_and_springs() {
    let h = 1.0 / 60.0;
    for axis in 0..3 {
        let e = Vec3::AXES[axis];
        // Turned by −0.3 about `axis` is Bullet's angle +0.3 (A seen from B), past hi = 0.2.
        let q = Quat::from_axis_angle(e, -0.3);
        let j = joint(Vec3::splat(-0.2), Vec3::splat(0.2));
        let angle = SixDof::angles(&j.frame_a, &Rigid::new(Vec3::ZERO, q).mul(j.frame_b));
        assert!((angle[axis] - 0.3).abs() < 1e-5, "axis {axis}: {angle}");
        let mut b = hanging(Vec3::ZERO, q);
        JointSolver::default().solve(&[j], &[], &mut b, h, ITERATIONS);
        // The angle's rate, d(angle)/dt = −ω_B along the axis, is −ERP · 0.1 · fps (B is 1e-5
        // off nowhere: the rate axes are the frame's own).
        let rate = -b[1].w.dot(e);
        assert!(
            (rate + STOP_ERP * 0.1 / h).abs() < 0.05,
            "axis {axis}: rate {rate}"
        );
        // Inside with a spring: back toward 0, never past the cap k·δ / fps of impulse.
        let mut sprung = joint(Vec3::splat(-1.0), Vec3::splat(1.0));
        sprung.ang_k = 10.0 * e;
        let mut b = hanging(Vec3::ZERO, Quat::from_axis_angle(e, -0.1));
        JointSolver::default().solve(&[sprung], &[], &mut b, h, ITERATIONS);
        let rate = -b[1].w.dot(e);
        let inertia = b[1].inv_inertia.inverse() * e;
        assert!(rate < 0.0, "axis {axis}: {rate}");
        assert!(
            rate.abs() * inertia.length() <= 10.0 * 0.1 * h * 1.01,
            "axis {axis}: {rate}"
        );
    }
}

#[test]
fn frame_offset_slides_without_turning_against_an_immovable_body() {
    // B past its x slide limit; its y and z rotations locked and (just) off 0, so both axes
    // crossing x sit at their limits: Bullet's frame offset gives the x row no lever on B.
    let h = 1.0 / 60.0;
    let turned = Quat::from_rotation_y(1e-3) * Quat::from_rotation_z(1e-3);
    let solve = |slide: bool, q: Quat| {
        let mut j = joint(Vec3::new(1.0, 0.0, 0.0), Vec3::new(-1.0, 0.0, 0.0));
        if slide {
            j.lin_lo = Vec3::new(-0.5, 0.0, 0.0);
            j.lin_hi = Vec3::new(0.5, 0.0, 0.0);
        } else {
            // The x slide free: no row on it.
            j.lin_lo = Vec3::new(0.5, 0.0, 0.0);
            j.lin_hi = Vec3::new(-0.5, 0.0, 0.0);
        }
        let mut b = hanging(Vec3::new(0.8, 0.0, 0.0), q);
        JointSolver::default().solve(&[j], &[], &mut b, h, ITERATIONS);
        b[1]
    };
    let (with, without) = (solve(true, turned), solve(false, turned));
    assert!(with.v.x < -1.0, "{}", with.v);
    assert!(
        (with.w - without.w).length() < 1e-5,
        "{} {}",
        with.w,
        without.w
    );
    // With free crossing rotations the same row turns B too (the plain anchor's lever).
    let free = |slide: bool| {
        let mut j = joint(Vec3::ONE, -Vec3::ONE);
        if slide {
            j.lin_lo = Vec3::new(-0.5, 0.0, 0.0);
            j.lin_hi = Vec3::new(0.5, 0.0, 0.0);
        } else {
            j.lin_lo = Vec3::new(0.5, 0.0, 0.0);
            j.lin_hi = Vec3::new(-0.5, 0.0, 0.0);
        }
        let mut b = hanging(Vec3::new(0.8, 0.0, 0.0), Quat::IDENTITY);
        JointSolver::default().solve(&[j], &[], &mut b, h, ITERATIONS);
        b[1].w
    };
    assert!((free(true) - free(false)).length() > 1e-2);
}

#[test]
fn deep_contacts_push_out_without_momentum() {
    // A unit ball 0.3 into a fixed one along +y: the split pass pushes it out at ERP₂ of the
    // depth a step; its velocity keeps no push.
    let h = 1.0 / 60.0;
    let mut b = [body(Vec3::ZERO, 0.0), body(Vec3::new(0.0, 0.7, 0.0), 1.0)];
    let contact = ContactPoint {
        a: 0,
        b: 1,
        point_a: Vec3::new(0.0, 0.5, 0.0),
        point_b: Vec3::new(0.0, 0.2, 0.0),
        normal: Vec3::Y,
        dist: -0.3,
        friction: 0.0,
        restitution: 0.0,
    };
    let mut solver = JointSolver::default();
    solver.solve(&[], &[contact], &mut b, h, ITERATIONS);
    assert!(b[1].v.length() < 1e-5, "{}", b[1].v);
    let (push, _) = solver.pushes()[1];
    assert!((push.y - SPLIT_ERP * 0.3 / h).abs() < 1e-3, "{push}");
    // A shallow one is pushed by the velocities (Baumgarte), no split.
    let shallow = ContactPoint {
        dist: -0.02,
        ..contact
    };
    let mut b = [body(Vec3::ZERO, 0.0), body(Vec3::new(0.0, 0.98, 0.0), 1.0)];
    solver.solve(&[], &[shallow], &mut b, h, ITERATIONS);
    assert!(
        (b[1].v.y - CONTACT_ERP * 0.02 / h).abs() < 1e-3,
        "{}",
        b[1].v
    );
    assert!(solver.pushes().is_empty());
}
