//! The constraint arbiter: additive goals add, absolute goals average by weight, priority fades
//! continuously, residuals per goal, strict priority, limits.

mod common;

use glam::{EulerRot, Quat, Vec3};
use sinew_ik::arbiter::{corrections_len, StrictParams};
use sinew_ik::{
    apply_corrections, Arbiter, ArbiterChain, ArbiterScratch, ChainId, ChainJoint, DefaultArbiter,
    FabrikLink, Goal, GoalTarget, IkError, RotationLimit, StrictPriorityArbiter,
};

/// `n` links of `len` along +X, then the effector.
fn chain(n: usize, len: f32) -> Vec<ChainJoint> {
    (0..=n)
        .map(|i| ChainJoint::at(Vec3::X * len * i as f32))
        .collect()
}

const C0: ChainId = ChainId(0);

fn solve(
    arbiter: &dyn Arbiter,
    joints: &[ChainJoint],
    links: &[FabrikLink],
    goals: &[Goal],
) -> (ChainJoint, Vec<f32>, Vec<Quat>) {
    let chains = [ArbiterChain {
        joints_model: joints,
        links,
    }];
    let mut corrections = vec![Quat::IDENTITY; corrections_len(&chains)];
    let mut residuals = vec![f32::NAN; goals.len()];
    let mut scratch = ArbiterScratch::new();
    arbiter
        .solve(
            &chains,
            goals,
            &mut scratch,
            &mut corrections,
            &mut residuals,
        )
        .unwrap();
    let mut out = joints.to_vec();
    apply_corrections(joints, &corrections, &mut out).unwrap();
    (*out.last().unwrap(), residuals, corrections)
}

/// The last link's solved origin.
fn solve_last(joints: &[ChainJoint], links: &[FabrikLink], goals: &[Goal]) -> Vec3 {
    let chains = [ArbiterChain {
        joints_model: joints,
        links,
    }];
    let mut c = vec![Quat::IDENTITY; links.len()];
    let mut r = vec![0.0; goals.len()];
    DefaultArbiter::shared()
        .solve(&chains, goals, &mut ArbiterScratch::new(), &mut c, &mut r)
        .unwrap();
    let mut out = joints.to_vec();
    apply_corrections(joints, &c, &mut out).unwrap();
    out[links.len() - 1].position
}

fn pos(p: Vec3) -> GoalTarget {
    GoalTarget::Position(p)
}

#[test]
fn arbiters_are_sync_and_shareable() {
    fn sync<T: Sync + Send>(_: &T) {}
    sync(DefaultArbiter::shared());
    sync(&StrictPriorityArbiter::default());
    let shared: &'static dyn Arbiter = DefaultArbiter::shared();
    std::thread::scope(|s| {
        for k in 0..2 {
            s.spawn(move || {
                let j = chain(3, 0.3);
                let goals = [Goal::absolute(C0, pos(Vec3::new(0.5, 0.2 * k as f32, 0.1)))];
                let (e, r, _) = solve(shared, &j, &[FabrikLink::FREE; 3], &goals);
                assert!(
                    r[0] < 1e-3 && e.position.distance(Vec3::new(0.5, 0.2 * k as f32, 0.1)) < 1e-3
                );
            });
        }
    });
}

#[test]
fn two_recoils_add_not_average() {
    let j = chain(3, 0.3);
    let links = [FabrikLink::FREE; 3];
    let start = Vec3::new(0.6, 0.3, 0.0);
    let hold = Goal::absolute(C0, pos(start));
    let recoil = Goal::additive(C0, pos(Vec3::new(-0.05, 0.0, 0.0)));
    let (held, _, _) = solve(DefaultArbiter::shared(), &j, &links, &[hold]);
    let (one, _, _) = solve(DefaultArbiter::shared(), &j, &links, &[hold, recoil]);
    let (two, r, _) = solve(
        DefaultArbiter::shared(),
        &j,
        &links,
        &[hold, recoil, recoil],
    );
    assert!((one.position - held.position).distance(Vec3::new(-0.05, 0.0, 0.0)) < 1e-3);
    assert!(
        (two.position - held.position).distance(Vec3::new(-0.1, 0.0, 0.0)) < 1e-3,
        "{}",
        two.position
    );
    assert_eq!(r.len(), 3);
    // Additive orientations add too: two 0.2 rad turns make 0.4.
    let q = Quat::from_rotation_x(0.2);
    let g = Goal::additive(C0, GoalTarget::Orientation(q));
    let (e, _, _) = solve(DefaultArbiter::shared(), &j, &links, &[g, g]);
    let (axis, angle) = e.rotation.to_axis_angle();
    assert!(
        (angle - 0.4).abs() < 1e-4 && axis.abs_diff_eq(Vec3::X, 1e-3),
        "{axis} {angle}"
    );
}

#[test]
fn absolute_goals_average_by_weight() {
    let j = chain(3, 0.3);
    let links = [FabrikLink::FREE; 3];
    let a = Vec3::new(0.5, 0.3, 0.0);
    let b = Vec3::new(0.4, -0.2, 0.2);
    let goals = [
        Goal::absolute(C0, pos(a)),
        Goal::absolute(C0, pos(b)).with_weight(0.5),
    ];
    let (e, r, _) = solve(DefaultArbiter::shared(), &j, &links, &goals);
    let want = (a + b * 0.5) / 1.5;
    assert!(e.position.distance(want) < 1e-3, "{} vs {want}", e.position);
    assert!((r[0] - want.distance(a)).abs() < 1e-3);
    assert!((r[1] - want.distance(b)).abs() < 1e-3);
    // A single half-weight goal goes half way.
    let (e, _, _) = solve(
        DefaultArbiter::shared(),
        &j,
        &links,
        &[Goal::absolute(C0, pos(a)).with_weight(0.5)],
    );
    assert!(e.position.distance((a + Vec3::new(0.9, 0.0, 0.0)) * 0.5) < 1e-3);
}

#[test]
fn priority_fade_is_continuous() {
    const EPS: f32 = 2e-3;
    let j = chain(3, 0.3);
    let links = [FabrikLink::FREE; 3];
    let a = Vec3::new(0.5, 0.35, 0.0);
    let b = Vec3::new(0.45, -0.3, 0.15);
    let mut prev: Option<Vec3> = None;
    let mut max_jump = 0.0f32;
    let steps = 4000;
    for k in 0..=steps {
        let p = -2.0 + 4.0 * k as f32 / steps as f32; // A's priority fades from −2 to 2
        let goals = [
            Goal::absolute(C0, pos(a)).with_priority(p),
            Goal::absolute(C0, pos(b)),
        ];
        let (e, _, _) = solve(DefaultArbiter::shared(), &j, &links, &goals);
        if let Some(q) = prev {
            max_jump = max_jump.max(q.distance(e.position));
        }
        prev = Some(e.position);
        if k == 0 {
            assert!(e.position.distance(b) < 1e-3, "B wins outright at p = −2");
        }
        if k == steps {
            assert!(e.position.distance(a) < 1e-3, "A wins outright at p = 2");
        }
    }
    // Step 1e-3 in priority; |a − b| ≈ 0.68 m over a band of 1: ≈ 7e-4 m per step.
    assert!(max_jump < EPS, "max jump {max_jump}");
    // The weight fading in is continuous too.
    let mut prev: Option<Vec3> = None;
    for k in 0..=1000 {
        let w = k as f32 / 1000.0;
        let goals = [
            Goal::absolute(C0, pos(a)).with_priority(1.0).with_weight(w),
            Goal::absolute(C0, pos(b)),
        ];
        let (e, _, _) = solve(DefaultArbiter::shared(), &j, &links, &goals);
        if let Some(q) = prev {
            assert!(q.distance(e.position) < EPS);
        }
        prev = Some(e.position);
    }
}

/// constraint-arbiter.md: "Goals are grouped by the chain they move." Two chains and their
/// goals, interleaved, in one solve give each chain what it gets solved alone with its own
/// goals — chain 0's higher priority does not crowd out chain 1's goals, chain 1's goals are not
/// averaged into chain 0's target — and the corrections land in each chain's slice. Without the
/// grouping (every goal counted on every chain, or priorities compared across chains) chain 0
/// is pulled toward chain 1's targets, or chain 1 does not move.
#[test]
fn goals_of_several_chains_are_grouped_by_chain() {
    let a = chain(3, 0.3);
    let b: Vec<ChainJoint> = (0..=2)
        .map(|i| ChainJoint::at(Vec3::new(0.4 * i as f32, 1.0, 0.0)))
        .collect();
    let (links_a, links_b) = ([FabrikLink::FREE; 3], [FabrikLink::FREE; 2]);
    let c1 = ChainId(1);
    let ta = Vec3::new(0.5, 0.3, 0.0);
    let (tb, tb2) = (Vec3::new(0.5, 1.4, 0.1), Vec3::new(0.4, 1.5, -0.1));
    let goals = [
        Goal::absolute(c1, pos(tb)),
        Goal::absolute(C0, pos(ta)).with_priority(1.0),
        Goal::absolute(c1, pos(tb2)).with_weight(0.5),
    ];
    let strict = StrictPriorityArbiter::default();
    for arbiter in [DefaultArbiter::shared() as &dyn Arbiter, &strict] {
        let chains = [
            ArbiterChain {
                joints_model: &a,
                links: &links_a,
            },
            ArbiterChain {
                joints_model: &b,
                links: &links_b,
            },
        ];
        let mut corrections = vec![Quat::IDENTITY; corrections_len(&chains)];
        let mut residuals = vec![f32::NAN; goals.len()];
        arbiter
            .solve(
                &chains,
                &goals,
                &mut ArbiterScratch::new(),
                &mut corrections,
                &mut residuals,
            )
            .unwrap();
        // Each chain alone, with its own goals (re-addressed to chain 0).
        let (end_a, r_a, c_a) = solve(arbiter, &a, &links_a, &[goals[1]]);
        let alone_b = alone_b_goals(&goals);
        let (end_b, r_b, c_b) = solve(arbiter, &b, &links_b, &alone_b);
        for (got, want) in corrections.iter().zip(c_a.iter().chain(&c_b)) {
            assert!(got.abs_diff_eq(*want, 1e-6), "{got} vs {want}");
        }
        for (got, want) in residuals.iter().zip([r_b[0], r_a[0], r_b[1]]) {
            assert!((got - want).abs() < 1e-6, "{residuals:?}");
        }
        assert!(end_a.position.distance(ta) < 1e-3, "{}", end_a.position);
        let mut out_b = b.clone();
        apply_corrections(&b, &corrections[3..], &mut out_b).unwrap();
        assert!(out_b[2].position.distance(end_b.position) < 1e-5);
        assert!(
            out_b[2].position.distance(b[2].position) > 0.3,
            "chain 1 moved: {}",
            out_b[2].position
        );
    }
    // The weighted arbiter: chain 1's two goals average by weight between themselves only.
    let (e, _, _) = solve(
        DefaultArbiter::shared(),
        &b,
        &links_b,
        &alone_b_goals(&goals),
    );
    assert!(
        e.position.distance((tb + tb2 * 0.5) / 1.5) < 1e-3,
        "{}",
        e.position
    );
}

/// Chain 1's goals of `goals_of_several_chains_are_grouped_by_chain`, on chain 0.
fn alone_b_goals(goals: &[Goal; 3]) -> [Goal; 2] {
    [
        Goal {
            chain: C0,
            ..goals[0]
        },
        Goal {
            chain: C0,
            ..goals[2]
        },
    ]
}

/// constraint-arbiter.md, "How priority works": "a half-weight one leaves half the chain to
/// everybody else". A half-weight goal a full priority band above a full-weight one takes its
/// half, and the lower goal gets the half it leaves (share `1 × (1 − ½)`): both pull equally, and
/// the pair moves the effector `1 − (1 − ½)(1 − ½) = ¾` of the way to their mean. A priority
/// that ignored the higher goal's weight (a hard ordering) would leave the lower goal nothing:
/// the effector would only go half way to the higher goal.
#[test]
fn a_half_weight_high_priority_goal_leaves_half_to_lower_ones() {
    let j = chain(3, 0.3);
    let links = [FabrikLink::FREE; 3];
    let start = j[3].position;
    let high = Vec3::new(0.5, 0.3, 0.0);
    let low = Vec3::new(0.5, -0.3, 0.1);
    let goals = [
        Goal::absolute(C0, pos(high))
            .with_weight(0.5)
            .with_priority(2.0),
        Goal::absolute(C0, pos(low)),
    ];
    let (e, _, _) = solve(DefaultArbiter::shared(), &j, &links, &goals);
    let want = start + (high - start) * 0.375 + (low - start) * 0.375;
    assert!(e.position.distance(want) < 1e-3, "{} vs {want}", e.position);
    // At full weight the higher goal wins outright.
    let (e, _, _) = solve(
        DefaultArbiter::shared(),
        &j,
        &links,
        &[goals[0].with_weight(1.0), goals[1]],
    );
    assert!(e.position.distance(high) < 1e-3, "{}", e.position);
}

#[test]
fn residuals_are_reported_per_goal_and_kind() {
    let j = chain(3, 0.3);
    let links = [FabrikLink::FREE; 3];
    let target = Vec3::new(0.5, 0.3, 0.1);
    let goals = [
        Goal::absolute(C0, pos(target)),
        Goal::absolute(C0, GoalTarget::Orientation(Quat::from_rotation_y(0.5))),
        Goal::absolute(
            C0,
            GoalTarget::Aim {
                target: Vec3::new(2.0, 2.0, 0.0),
                axis: Vec3::X,
            },
        ),
        Goal::absolute(C0, pos(Vec3::new(5.0, 0.0, 0.0))).with_weight(0.0),
    ];
    let (e, r, _) = solve(DefaultArbiter::shared(), &j, &links, &goals);
    assert_eq!(r.len(), 4);
    assert!(r.iter().all(|x| x.is_finite() && *x >= 0.0), "{r:?}");
    // A full-weight orientation leaves the aim no freedom: its residual is what is left.
    let aim_dir = e.rotation * Vec3::X;
    let want = Vec3::new(2.0, 2.0, 0.0) - solve_last(&j, &links, &goals);
    assert!((r[2] - aim_dir.angle_between(want)).abs() < 1e-3, "{r:?}");
    // Alone, the aim is met.
    let (_, r_aim, _) = solve(DefaultArbiter::shared(), &j, &links, &goals[2..3]);
    assert!(r_aim[0] < 1e-3, "{r_aim:?}");
    assert!((r[0] - e.position.distance(target)).abs() < 1e-6);
    assert!((r[3] - e.position.distance(Vec3::new(5.0, 0.0, 0.0))).abs() < 1e-6);
    // Strict: the same residual meanings.
    let (e, r, _) = solve(&StrictPriorityArbiter::default(), &j, &links, &goals[..2]);
    assert!((r[0] - e.position.distance(target)).abs() < 1e-6);
    assert!(r[0] < 1e-4 && r[1] < 1e-3, "{r:?}");
}

#[test]
fn orientation_uses_only_the_freedom_position_left() {
    let j = chain(3, 0.3);
    let links = [FabrikLink::FREE; 3];
    let target = Vec3::new(0.5, 0.3, 0.0);
    let twist = Quat::from_rotation_x(0.8); // about the bone axis: compatible with position
    let goals = [
        Goal::absolute(C0, pos(target)),
        Goal::absolute(C0, GoalTarget::Orientation(Quat::from_rotation_z(1.2))),
    ];
    let (e, _, _) = solve(DefaultArbiter::shared(), &j, &links, &goals);
    assert!(
        e.position.distance(target) < 1e-3,
        "position kept: {}",
        e.position
    );
    let (e, r, _) = solve(
        DefaultArbiter::shared(),
        &j,
        &links,
        &[Goal::absolute(C0, GoalTarget::Orientation(twist))],
    );
    assert!(r[0] < 1e-4 && e.position.distance(Vec3::new(0.9, 0.0, 0.0)) < 1e-4);
}

#[test]
fn strict_priority_meets_the_higher_goal_exactly() {
    let j = chain(4, 0.25);
    let links = [FabrikLink::FREE; 4];
    let high = Vec3::new(0.55, 0.4, 0.1);
    let low = Vec3::new(-0.3, -0.6, 0.2);
    let goals = [
        Goal::absolute(C0, pos(low)).with_priority(0.0),
        Goal::absolute(C0, pos(high)).with_priority(1.0),
    ];
    let strict = StrictPriorityArbiter::default();
    let (e, r, _) = solve(&strict, &j, &links, &goals);
    assert!(r[1] < 1e-4, "high residual {}", r[1]);
    assert!(e.position.distance(high) < 1e-4);
    assert!((r[0] - high.distance(low)).abs() < 1e-3);
    // The weighted arbiter with a half-weight high goal does not (by design).
    let soft = [goals[0], goals[1].with_weight(0.5)];
    let (_, r, _) = solve(DefaultArbiter::shared(), &j, &links, &soft);
    assert!(r[1] > 1e-2);

    // Orientation over a conflicting position: the orientation is met.
    let q = Quat::from_euler(EulerRot::XYZ, 0.3, -0.8, 0.9);
    let goals = [
        Goal::absolute(C0, GoalTarget::Orientation(q)).with_priority(2.0),
        Goal::absolute(C0, pos(Vec3::new(0.0, 0.9, 0.3))).with_priority(1.0),
        Goal::absolute(
            C0,
            GoalTarget::Aim {
                target: Vec3::new(0.0, -3.0, 0.0),
                axis: Vec3::Y,
            },
        ),
    ];
    let (e, r, _) = solve(&strict, &j, &links, &goals);
    assert!(r[0] < 1e-4, "{r:?}");
    assert!(e.rotation.dot(q).abs() > 1.0 - 1e-6);
    // The lower position still moved toward its target from the start.
    assert!(r[1] < Vec3::new(1.0, 0.0, 0.0).distance(Vec3::new(0.0, 0.9, 0.3)));
}

#[test]
fn both_arbiters_clamp_to_euler_boxes() {
    let j = chain(3, 0.3);
    let limit = RotationLimit::new(Vec3::splat(-0.3), Vec3::splat(0.3)).unwrap();
    let links = [FabrikLink::with_limit(limit); 3];
    let goals = [
        Goal::absolute(C0, pos(Vec3::new(0.0, 0.6, 0.0))),
        Goal::absolute(C0, GoalTarget::Orientation(Quat::from_rotation_x(2.5))),
    ];
    let strict = StrictPriorityArbiter {
        params: StrictParams::default(),
    };
    for arbiter in [DefaultArbiter::shared() as &dyn Arbiter, &strict] {
        let (_, r, c) = solve(arbiter, &j, &links, &goals);
        for q in &c {
            assert!(limit.contains(*q, 1e-3), "{q}");
        }
        assert!(r[0] > 0.1, "out of reach under the limits: {r:?}");
    }
}

#[test]
fn invalid_goals_are_refused() {
    let j = chain(2, 0.3);
    let links = [FabrikLink::FREE; 2];
    let chains = [ArbiterChain {
        joints_model: &j,
        links: &links,
    }];
    let mut c = [Quat::IDENTITY; 2];
    let mut r = [0.0; 1];
    let mut s = ArbiterScratch::new();
    let bad = [Goal::absolute(C0, pos(Vec3::X)).with_weight(1.5)];
    assert!(matches!(
        DefaultArbiter::shared().solve(&chains, &bad, &mut s, &mut c, &mut r),
        Err(IkError::InvalidParameter { name: "weight", .. })
    ));
    let bad = [Goal::absolute(ChainId(3), pos(Vec3::X))];
    assert!(StrictPriorityArbiter::default()
        .solve(&chains, &bad, &mut s, &mut c, &mut r)
        .is_err());
    let bad = [Goal::absolute(
        C0,
        GoalTarget::Aim {
            target: Vec3::X,
            axis: Vec3::ZERO,
        },
    )];
    assert!(DefaultArbiter::shared()
        .solve(&chains, &bad, &mut s, &mut c, &mut r)
        .is_err());
}

/// A case `props::arbiters_are_sane` found: a one-link chain 4e4 long whose first goal's rows
/// have rank 2; the null-space projection's regularisation was an absolute 1e-10, below f64's
/// resolution next to `a ≈ length²`, and its inverse turned the whole solve into NaN.
#[test]
fn strict_priority_at_large_scale_stays_finite() {
    for scale in [1.0f32, 1e3, 1.6e5, 1e7] {
        let joints = chain(1, 0.261 * scale);
        let goals = [
            Goal::absolute(C0, pos(Vec3::ZERO)).with_weight(0.14),
            Goal::absolute(C0, pos(Vec3::new(0.0, 0.0, -2.12 * scale))).with_weight(0.13),
            Goal::absolute(C0, pos(Vec3::new(0.1, 0.2, 0.0) * scale)),
        ];
        let strict = StrictPriorityArbiter::default();
        let (e, r, c) = solve(&strict, &joints, &[FabrikLink::FREE], &goals);
        assert!(
            e.position.is_finite() && r.iter().all(|x| x.is_finite()),
            "{scale}: {r:?}"
        );
        assert!(
            c.iter().all(|q| (q.length_squared() - 1.0).abs() < 1e-5),
            "{scale}: {c:?}"
        );
    }
}

mod props {
    //! Both arbiters over random chains (boxes, rotors, hinges) and random goal sets, at any
    //! scale: no error for valid input, unit corrections, finite non-negative residuals,
    //! lengths kept, deterministic.

    use core::f32::consts::PI;

    use glam::{Quat, Vec3};
    use proptest::prelude::*;

    use super::common::bone_lengths;
    use super::common::strategies::{quat, unit, vec3};
    use sinew_ik::arbiter::corrections_len;
    use sinew_ik::{
        apply_corrections, Arbiter, ArbiterChain, ArbiterScratch, ChainId, ChainJoint,
        DefaultArbiter, FabrikLink, Goal, GoalMode, GoalTarget, Hinge, IkJoint, RotationLimit,
        Rotor, StrictPriorityArbiter,
    };

    fn link() -> impl Strategy<Value = FabrikLink> {
        prop_oneof![
            2 => Just(FabrikLink::FREE),
            1 => (0.05f32..PI).prop_map(|a| FabrikLink::with_joint(IkJoint::Rotor(Rotor::new(a).unwrap()))),
            1 => (-PI..0.0f32, 0.0f32..PI).prop_map(|(lo, hi)| FabrikLink::with_joint(IkJoint::Hinge(
                Hinge::new(Vec3::Z, Vec3::X, lo, hi).unwrap()))),
            1 => (vec3(1.5), vec3(1.5)).prop_map(|(lo, span)| FabrikLink::with_limit(
                RotationLimit::new(lo.min(Vec3::ZERO), lo.min(Vec3::ZERO) + span.abs()).unwrap())),
        ]
    }

    fn goal() -> impl Strategy<Value = Goal> {
        let target = prop_oneof![
            2 => vec3(3.0).prop_map(GoalTarget::Position),
            1 => quat().prop_map(GoalTarget::Orientation),
            1 => (vec3(3.0), unit()).prop_map(|(target, axis)| GoalTarget::Aim { target, axis }),
        ];
        (target, prop::bool::ANY, 0.0f32..=1.0, -2.0f32..2.0).prop_map(
            |(target, additive, weight, priority)| Goal {
                chain: ChainId(0),
                target,
                mode: if additive {
                    GoalMode::Additive
                } else {
                    GoalMode::Absolute
                },
                weight,
                priority,
            },
        )
    }

    fn scaled_target(target: GoalTarget, scale: f32) -> GoalTarget {
        match target {
            GoalTarget::Position(p) => GoalTarget::Position(p * scale),
            GoalTarget::Aim { target, axis } => GoalTarget::Aim {
                target: target * scale,
                axis,
            },
            other => other,
        }
    }

    proptest! {
        #[test]
        fn arbiters_are_sane(
            segs in prop::collection::vec((unit(), 0.05f32..1.0, quat(), link()), 1..6),
            goals in prop::collection::vec(goal(), 1..5),
            exponent in -4.0f32..6.0,
            strict in prop::bool::ANY,
        ) {
            let scale = 10f32.powf(exponent);
            let mut p = Vec3::ZERO;
            let mut joints = Vec::new();
            for (d, l, roll, _) in &segs {
                joints.push(ChainJoint::new(p, Quat::from_rotation_arc(Vec3::X, *d) * *roll));
                p += *d * (*l * scale);
            }
            joints.push(ChainJoint::new(p, Quat::IDENTITY));
            let links: Vec<FabrikLink> = segs.iter().map(|s| s.3).collect();
            let goals: Vec<Goal> = goals
                .iter()
                .map(|g| Goal { target: scaled_target(g.target, scale), ..*g })
                .collect();
            let chains = [ArbiterChain { joints_model: &joints, links: &links }];
            let strict_arbiter = StrictPriorityArbiter::default();
            let arbiter: &dyn Arbiter = if strict { &strict_arbiter } else { DefaultArbiter::shared() };
            let run = || {
                let mut c = vec![Quat::IDENTITY; corrections_len(&chains)];
                let mut r = vec![f32::NAN; goals.len()];
                arbiter.solve(&chains, &goals, &mut ArbiterScratch::new(), &mut c, &mut r).unwrap();
                (c, r)
            };
            let (c, r) = run();
            for q in &c {
                prop_assert!(q.is_finite() && (q.length_squared() - 1.0).abs() <= 1e-5, "{:?}", c);
            }
            prop_assert!(r.iter().all(|x| x.is_finite() && *x >= 0.0), "{:?}", r);
            let mut out = joints.clone();
            apply_corrections(&joints, &c, &mut out).unwrap();
            for (la, lb) in bone_lengths(&joints, &out) {
                prop_assert!((la - lb).abs() <= 1e-4 * la, "length {} -> {}", la, lb);
            }
            prop_assert_eq!((c, r), run());
        }
    }
}
