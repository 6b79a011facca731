//! Unit tests of the 6-DOF joint solve: Bullet's motor factor, anchors, limit and spring rows,
//! angular momentum about a pin, row scheduling, translation axes and shape inertias.

use super::*;
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
