//! The CCD iterations, written once for `N` chains of one shape solved side by side ("lanes")
//! over any storage of their bones ([`CcdBones`]).
//!
//! A chain's CCD is a long chain of dependent square roots, divisions and quaternion products:
//! one chain alone leaves most of the core idle. Two independent chains whose every statement
//! is computed for both before the next let the core overlap them (MMD's two legs; BENCHMARKS.md has
//! the figures). Each lane computes exactly what the same chain computes alone
//! (`N = 1`) — the same operations in the same order — so the results are bit-identical.

use core::cmp::Ordering;

use glam::{Quat, Vec3A};

use super::link::{LinkPlan, SolveAxis};
use super::step::{limit_turn, step_rotation, Directions};

/// The bones of `N` CCD chains of one shape, as the iterations read and turn them. Links are
/// indexed `ci` from the effector toward the base (MMD's order); lane `l` is one chain.
///
/// [`PathLanes`](super::PathLanes) keeps plain chains (every bone between the base link and
/// the effector turns only through its own IK rotation) as rotation + position poses; a
/// runtime whose chains pass through bones with more rules (MMD's append bones) implements this
/// over its own bones, with `N = 1`.
pub trait CcdBones<const N: usize> {
    /// Before each iteration: brings stale poses up to date (`live`: the lanes still
    /// solving) and returns, per lane, the effector's position when a step changed it.
    fn refresh(&mut self, live: [bool; N]) -> [Option<Vec3A>; N];
    /// Link `ci`'s model position.
    fn link_position(&self, lane: usize, ci: usize) -> Vec3A;
    /// `axis` (model frame) in link `ci`'s parent frame.
    fn to_parent(&self, lane: usize, ci: usize, axis: Vec3A) -> Vec3A;
    /// Link `ci`'s IK rotation (the turn the solve has given it; identity at the start).
    fn ik_rotation(&self, lane: usize, ci: usize) -> Quat;
    /// Link `ci`'s local rotation without IK.
    fn animated(&self, lane: usize, ci: usize) -> Quat;
    /// Turns link `ci`: its IK rotation becomes `ik` and its local rotation `local`
    /// (`ik × animated`, limited). Returns the effector's position after the turn, from
    /// `effector` (where it stood before). `arc` is `Some((link − target, |link → effector| /
    /// |link → target|))` when the free link turned the whole angle, which puts the effector
    /// on the line to the target at its own distance.
    fn turn(
        &mut self,
        lane: usize,
        ci: usize,
        ik: Quat,
        local: Quat,
        effector: Vec3A,
        arc: Option<(Vec3A, f32)>,
    ) -> Vec3A;
    /// Remembers the IK rotations of `lane`'s links (before an iteration's sweep).
    fn save(&mut self, lane: usize);
    /// Whether every IK rotation of `lane` is bit-identical to the saved one.
    fn unchanged(&self, lane: usize) -> bool;
}

/// One lane's solve: the target (`goal`), where the effector stands, and its progress.
#[derive(Clone, Copy, Debug)]
pub struct Lane {
    /// The position the effector is turned toward (MMD: the IK bone's).
    pub goal: Vec3A,
    /// The effector's position.
    pub effector: Vec3A,
    /// Sweeps run.
    pub sweeps: u32,
    it: u32,
    live: bool,
}

impl Lane {
    /// A lane to solve, from the target and the effector's position.
    #[must_use]
    pub const fn new(goal: Vec3A, effector: Vec3A) -> Self {
        Self {
            goal,
            effector,
            sweeps: 0,
            it: 0,
            live: true,
        }
    }

    /// A lane with nothing to solve (its chain already at the target, or absent).
    #[must_use]
    pub const fn idle() -> Self {
        Self {
            goal: Vec3A::ZERO,
            effector: Vec3A::ZERO,
            sweeps: 0,
            it: 0,
            live: false,
        }
    }
}

/// `[f(0), …, f(N − 1)]`, inlined: each statement of a step is written once for the lanes and
/// compiled as straight-line code for all of them (`array::from_fn` and `array::map` may call
/// the closure out of line, which keeps the core from overlapping the lanes). `N ≥ 1`.
#[inline(always)]
fn lanes<T: Copy, const N: usize>(mut f: impl FnMut(usize) -> T) -> [T; N] {
    let mut out = [f(0); N];
    for (i, v) in out.iter_mut().enumerate().skip(1) {
        *v = f(i);
    }
    out
}

/// The iteration after `it` (in a loop whose first `half` iterations use the limited axis),
/// or `None` when the loop ends: an iteration that left every IK rotation bit-identical
/// (`unchanged`) will do so again until the phase changes, so the rest of the phase is
/// skipped without changing the result.
#[inline(always)]
pub(super) fn next_iteration(it: u32, half: u32, unchanged: bool) -> Option<u32> {
    match (unchanged, it < half) {
        (true, true) => Some(half),
        (true, false) => None,
        (false, _) => Some(it + 1),
    }
}

/// Solves `N` chains of one shape by MMD's CCD, as babylon-mmd does:
///
/// - each iteration turns every link, from the one nearest the effector to the base
///   (`plans[ci]`, `ci` from the effector), toward the target by the angle between
///   (link → effector) and (link → target), capped per link ([`LinkPlan::new`]); a fixed link
///   is skipped, and so is a step whose axis is under 1e-4 (sin θ);
/// - in the first half of the `iterations` (`iterations / 2`), a link limited about one axis
///   turns about that axis and a bound crossed is reflected when the reflection stays in
///   range; later, limits clamp;
/// - the loop stops once the effector is within `tolerance_sq` (squared distance, strict) of
///   the target, and when an iteration changes no IK rotation (the rest of its phase would
///   not either).
///
/// `lanes[l]` is lane `l`'s target and effector ([`Lane::idle`] for none); on return each
/// holds the effector's final position and the sweeps run.
pub fn solve_lanes<const N: usize, B: CcdBones<N>>(
    bones: &mut B,
    plans: &[LinkPlan],
    iterations: u32,
    tolerance_sq: f32,
    lanes_state: &mut [Lane; N],
) {
    let half = iterations >> 1;
    if iterations == 0 {
        for lane in lanes_state.iter_mut() {
            lane.live = false;
        }
    }
    while lanes_state.iter().any(|l| l.live) {
        let live = lanes(|l| lanes_state[l].live);
        let moved = bones.refresh(live);
        for (lane, moved) in lanes_state.iter_mut().zip(moved) {
            if let (true, Some(effector)) = (lane.live, moved) {
                lane.effector = effector;
            }
        }
        for (l, lane) in lanes_state.iter().enumerate() {
            if lane.live {
                bones.save(l);
            }
        }
        for (ci, plan) in plans.iter().enumerate() {
            if plan.axis != SolveAxis::Fixed {
                step(bones, lanes_state, ci, plan, half);
            }
        }
        for (l, lane) in lanes_state.iter_mut().enumerate() {
            if !lane.live {
                continue;
            }
            lane.sweeps += 1;
            let next = if lane.goal.distance_squared(lane.effector) < tolerance_sq {
                None
            } else {
                next_iteration(lane.it, half, bones.unchanged(l))
            };
            lane.it = next.unwrap_or(lane.it);
            if next.is_none() || lane.it >= iterations {
                lane.live = false;
            }
        }
    }
}

/// One link's step in every lane (a lane that is done or whose step is skipped keeps its
/// state).
#[inline(always)]
fn step<const N: usize, B: CcdBones<N>>(
    bones: &mut B,
    state: &mut [Lane; N],
    ci: usize,
    plan: &LinkPlan,
    half: u32,
) {
    let position: [Vec3A; N] = lanes(|l| bones.link_position(l, ci));
    let from_goal: [Vec3A; N] = lanes(|l| position[l] - state[l].goal);
    let directions: [Option<Directions>; N] =
        lanes(|l| Directions::new(position[l] - state[l].effector, from_goal[l]));
    let axis: [Vec3A; N] = lanes(|l| directions[l].map_or(Vec3A::ZERO, |d| d.axis));
    // Not below 1e-8 (a NaN goes on, as babylon-mmd's comparison lets it).
    let run: [bool; N] = lanes(|l| {
        state[l].live
            && directions[l].is_some()
            && axis[l].length_squared().partial_cmp(&1e-8) != Some(Ordering::Less)
    });
    if !run.iter().any(|&r| r) {
        return;
    }
    let local_axis: [Vec3A; N] = lanes(|l| bones.to_parent(l, ci, axis[l]));
    let dot: [f32; N] = lanes(|l| directions[l].map_or(0.0, |d| d.dot));
    let use_axis: [bool; N] = lanes(|l| state[l].it < half);
    let limited = plan.limit.is_some();
    let step: [Quat; N] =
        lanes(|l| step_rotation(plan, limited && use_axis[l], axis[l], local_axis[l], dot[l]));
    let turned: [Quat; N] = lanes(|l| step[l] * bones.ik_rotation(l, ci));
    let limited_turn: [(Quat, Quat); N] =
        lanes(|l| limit_turn(plan, turned[l], bones.animated(l, ci), use_axis[l]));
    for l in 0..N {
        if run[l] {
            let arc = (!limited && dot[l] >= plan.cap_cos)
                .then(|| (from_goal[l], directions[l].map_or(0.0, |d| d.ratio)));
            let (ik, local) = limited_turn[l];
            state[l].effector = bones.turn(l, ci, ik, local, state[l].effector, arc);
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3, Vec3A};

    use super::{solve_lanes, Lane};
    use crate::ccd::{LinkPlan, PathScratch};
    use crate::test_rng::Rng;

    /// Random chains of one shape (a free link over one limited about X, a free one, …) solved
    /// two at a time in lanes give the bits each gives alone.
    #[test]
    fn two_lanes_equal_one_at_a_time() {
        let mut rng = Rng(0x5eed_1a7e);
        let mut sweeps = 0;
        for case in 0..200 {
            let links = 1 + case % 4;
            let entries = links + 1 + case % 2;
            // Links at entries 0, 1, …; a rigid bone between the last link and the effector
            // in odd cases. CCD order: from the effector.
            let link_entry: Vec<usize> = (0..links).rev().collect();
            let plans: Vec<LinkPlan> = (0..links)
                .map(|ci| {
                    let limit = (ci % 2 == 0 && links > 1).then(|| {
                        let lo = rng.range(-3.0, -0.5);
                        (
                            Vec3::new(lo, 0.0, 0.0),
                            Vec3::new(rng.range(lo, 0.0), 0.0, 0.0),
                        )
                    });
                    LinkPlan::new(limit, rng.range(0.2, 2.5), ci)
                })
                .collect();
            let iterations = 1 + (case as u32 * 7) % 40;
            let chain = |rng: &mut Rng| {
                let base = (rng.quat(), Vec3A::from(rng.vec(1.0)));
                let locals: Vec<(Quat, Vec3A)> = (0..entries)
                    .map(|k| {
                        let offset = if k == 0 {
                            Vec3A::ZERO
                        } else {
                            Vec3A::from(rng.vec(0.8))
                        };
                        (rng.quat(), offset)
                    })
                    .collect();
                let goal = Vec3A::from(rng.vec(2.0));
                (base, locals, goal)
            };
            let chains = [chain(&mut rng), chain(&mut rng)];
            let solve =
                |which: &[usize], scratch: &mut PathScratch| -> Vec<(Vec<Quat>, Vec3A, u32)> {
                    macro_rules! run {
                        ($n:literal) => {{
                            let mut lanes = scratch.lanes::<$n>(entries, &link_entry);
                            let mut state = [Lane::idle(); $n];
                            for (l, &c) in which.iter().enumerate() {
                                let (base, locals, _) = &chains[c];
                                lanes.set_base(l, *base);
                                for (k, &pose) in locals.iter().enumerate() {
                                    lanes.set_local(l, k, pose);
                                }
                                for ci in 0..links {
                                    lanes.set_animated(l, ci, locals[link_entry[ci]].0);
                                }
                            }
                            lanes.compose();
                            for (l, &c) in which.iter().enumerate() {
                                state[l] = Lane::new(chains[c].2, lanes.effector(l));
                            }
                            solve_lanes(&mut lanes, &plans, iterations, 1e-8, &mut state);
                            (0..$n)
                                .map(|l| {
                                    let ik = (0..links).map(|ci| lanes.ik(l, ci)).collect();
                                    (ik, state[l].effector, state[l].sweeps)
                                })
                                .collect()
                        }};
                    }
                    if which.len() == 1 {
                        run!(1)
                    } else {
                        run!(2)
                    }
                };
            let mut scratch = PathScratch::new();
            let pair = solve(&[0, 1], &mut scratch);
            sweeps += pair[0].2 + pair[1].2;
            for (l, c) in [0, 1].into_iter().enumerate() {
                let alone = solve(&[c], &mut scratch);
                let (a, b) = (&pair[l], &alone[0]);
                assert!(
                    a.0.iter()
                        .zip(&b.0)
                        .all(|(x, y)| x.to_array() == y.to_array()),
                    "case {case}"
                );
                assert_eq!(a.1.to_array(), b.1.to_array(), "case {case}");
                assert_eq!(a.2, b.2, "case {case}");
            }
        }
        // The chains were solved, not skipped at the start.
        assert!(sweeps > 2_000, "{sweeps} sweeps");
    }
}
