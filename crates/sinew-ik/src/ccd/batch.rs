//! Many chains of one shape solved together ([`CcdBatch`]): the one CCD with its chains side by
//! side in SIMD lanes, a finished lane refilled with the next chain.

use glam::{Quat, Vec3, Vec3A};

use super::lanes::next_iteration;
use super::link::{LinkPlan, SolveAxis};
use super::path::correction as correction_of;
use super::wide::{Mask, Q4, V3};
use super::wide_step::{compose_wide, step_wide, StepLanes, WidePose};
use super::{finish, lay_out, plan_chain, start, CcdLink, CcdParams, PathPose, Pose, Start};
use crate::dispatch::avx2_dispatch;
use crate::{IkError, RotationLimit, SolveResult};

/// Chains solved side by side: two AVX2 registers of eight lanes each, so that the core
/// overlaps two independent dependency chains.
const LANES: usize = 16;

/// One pushed chain.
#[derive(Clone, Copy, Debug)]
struct Job {
    effector: Vec3,
    target: Vec3,
    goal: Vec3A,
    base: Pose,
    /// Where its path is stored (`locals` from `path · 2n`, `animated` from `path · n`).
    path: usize,
}

/// Many IK chains of one shape (the same number of links with the same limits; any poses and
/// targets) solved by MMD's CCD — the iterations of [`solve_ccd`](super::solve_ccd), with the
/// same rules and, chain for chain, the same bits — in SIMD lanes: a crowd's legs, a tool
/// solving a chain toward many targets.
///
/// One chain's CCD is a chain of dependent square roots and divisions that leaves most of the
/// core idle; here sixteen chains step at once in structure-of-arrays lanes (two AVX2
/// registers of eight on a CPU that has AVX2), and a lane whose chain is done takes the next
/// one, so chains that stop early do not wait for those running every iteration.
///
/// ```
/// # use glam::{Quat, Vec3};
/// # use sinew_ik::{CcdBatch, CcdLink, CcdParams};
/// let link = |y: f32| CcdLink {
///     position: Vec3::new(0.0, y, 0.0),
///     rotation: Quat::IDENTITY,
///     local_rotation: Quat::IDENTITY,
///     limit: None,
/// };
/// let leg = [link(2.0), link(1.0)];
/// let mut batch = CcdBatch::new(&[None, None], CcdParams::default());
/// for x in [0.3, 0.5, 0.7] {
///     batch.push(&leg, Vec3::ZERO, Vec3::new(x, 0.5, 0.0)).unwrap();
/// }
/// batch.solve();
/// for job in 0..batch.len() {
///     assert!(batch.result(job).residual < 1e-3);
///     let [_hip, _knee] = batch.corrections(job) else { unreachable!() };
/// }
/// ```
#[derive(Clone, Debug)]
pub struct CcdBatch {
    params: CcdParams,
    shape: Vec<Option<RotationLimit>>,
    plans: Vec<LinkPlan>,
    link_entry: Vec<usize>,
    jobs: Vec<Job>,
    /// Per job: its links (`n`), path entries (`2·n`), animated rotations (`n`, from the
    /// effector), results and corrections (`n`, base→tip).
    links: Vec<CcdLink>,
    locals: Vec<Pose>,
    animated: Vec<Quat>,
    results: Vec<SolveResult>,
    corrections: Vec<Quat>,
    /// Jobs pushed and not yet solved.
    pending: Vec<usize>,
    block: Block,
}

impl CcdBatch {
    /// An empty batch for chains of `limits.len()` links whose limits (base→tip, as
    /// [`CcdLink::limit`]) are `limits`.
    #[must_use]
    pub fn new(limits: &[Option<RotationLimit>], params: CcdParams) -> Self {
        let n = limits.len();
        let mut batch = Self {
            params,
            shape: limits.to_vec(),
            plans: Vec::with_capacity(n),
            link_entry: Vec::with_capacity(n),
            jobs: Vec::new(),
            links: Vec::new(),
            locals: Vec::new(),
            animated: Vec::new(),
            results: Vec::new(),
            corrections: Vec::new(),
            pending: Vec::new(),
            block: Block::default(),
        };
        plan_chain(
            n,
            |i| limits[i],
            &params,
            &mut batch.link_entry,
            &mut batch.plans,
        );
        batch
    }

    /// The parameters every chain is solved with.
    #[must_use]
    pub fn params(&self) -> &CcdParams {
        &self.params
    }

    /// Links per chain.
    #[must_use]
    pub fn links(&self) -> usize {
        self.shape.len()
    }

    /// Chains pushed since the last [`clear`](Self::clear).
    #[must_use]
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Whether no chain was pushed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Forgets every chain; the buffers are kept (a batch of the same size again does not
    /// allocate).
    pub fn clear(&mut self) {
        self.jobs.clear();
        self.links.clear();
        self.locals.clear();
        self.animated.clear();
        self.results.clear();
        self.corrections.clear();
        self.pending.clear();
    }

    /// Adds one chain to solve, as [`solve_ccd`](super::solve_ccd) takes it (`links` base→tip,
    /// the effector's and the target's model positions); returns its index. A chain already
    /// within the tolerance is done at once (0 iterations, identity corrections).
    ///
    /// # Errors
    /// What [`solve_ccd`](super::solve_ccd) refuses ([`IkError::EmptyChain`],
    /// [`IkError::NonFiniteInput`]), and [`IkError::LengthMismatch`] /
    /// [`IkError::ShapeMismatch`] for a chain whose links or limits are not the batch's.
    pub fn push(
        &mut self,
        links: &[CcdLink],
        effector_model: Vec3,
        target_model: Vec3,
    ) -> Result<usize, IkError> {
        let n = self.shape.len();
        if links.is_empty() {
            return Err(IkError::EmptyChain { name: "links" });
        }
        crate::chain::check_len("links", n, links.len())?;
        if let Some(index) = (0..n).find(|&i| links[i].limit != self.shape[i]) {
            return Err(IkError::ShapeMismatch {
                name: "links.limit",
                index,
            });
        }
        let start = start(links, effector_model, target_model, &self.params, n)?;
        let job = self.jobs.len();
        let mut base = (Quat::IDENTITY, Vec3A::ZERO);
        let path = self.animated.len() / n;
        let goal = match start {
            Start::Done(result) => {
                self.results.push(result);
                Vec3A::from(target_model)
            }
            Start::Solve(goal) => {
                let (locals, animated) = (self.locals.len(), self.animated.len());
                self.locals
                    .resize(locals + 2 * n, (Quat::IDENTITY, Vec3A::ZERO));
                self.animated.resize(animated + n, Quat::IDENTITY);
                lay_out(links, effector_model, |pose| match pose {
                    PathPose::Base(p) => base = p,
                    PathPose::Local(k, p) => self.locals[locals + k] = p,
                    PathPose::Animated(ci, q) => self.animated[animated + ci] = q,
                });
                self.results.push(SolveResult {
                    residual: f32::NAN,
                    satisfied: false,
                    iterations: 0,
                });
                self.pending.push(job);
                goal
            }
        };
        self.jobs.push(Job {
            effector: effector_model,
            target: target_model,
            goal,
            base,
            path,
        });
        self.links.extend_from_slice(links);
        self.corrections
            .extend(core::iter::repeat_n(Quat::IDENTITY, n));
        Ok(job)
    }

    /// Solves every chain pushed and not yet solved.
    pub fn solve(&mut self) {
        solve_batch(self);
    }

    /// Chain `job`'s result (its residual is `NaN` until [`solve`](Self::solve) ran).
    ///
    /// # Panics
    /// When `job` is not below [`len`](Self::len).
    #[must_use]
    pub fn result(&self, job: usize) -> SolveResult {
        self.results[job]
    }

    /// Chain `job`'s local corrections, base→tip (`local_i' = local_i × c_i`).
    ///
    /// # Panics
    /// When `job` is not below [`len`](Self::len).
    #[must_use]
    pub fn corrections(&self, job: usize) -> &[Quat] {
        let n = self.shape.len();
        &self.corrections[job * n..(job + 1) * n]
    }

    /// Bytes held on the heap.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        use core::mem::size_of;
        self.shape.capacity() * size_of::<Option<RotationLimit>>()
            + self.plans.capacity() * size_of::<LinkPlan>()
            + self.link_entry.capacity() * size_of::<usize>()
            + self.jobs.capacity() * size_of::<Job>()
            + self.links.capacity() * size_of::<CcdLink>()
            + self.locals.capacity() * size_of::<Pose>()
            + (self.animated.capacity() + self.corrections.capacity()) * size_of::<Quat>()
            + self.results.capacity() * size_of::<SolveResult>()
            + self.pending.capacity() * size_of::<usize>()
            + self.block.heap_bytes()
    }
}

/// The lanes' state, structure of arrays: entry `k`'s poses and link `ci`'s rotations for
/// every lane.
#[derive(Clone, Debug, Default)]
struct Block {
    local: Vec<WidePose<LANES>>,
    world: Vec<WidePose<LANES>>,
    ik: Vec<Q4<LANES>>,
    animated: Vec<Q4<LANES>>,
    saved: Vec<Q4<LANES>>,
    it: [u32; LANES],
    sweeps: [u32; LANES],
    job: [usize; LANES],
    live: [bool; LANES],
}

impl Block {
    fn heap_bytes(&self) -> usize {
        use core::mem::size_of;
        (self.local.capacity() + self.world.capacity()) * size_of::<WidePose<LANES>>()
            + (self.ik.capacity() + self.animated.capacity() + self.saved.capacity())
                * size_of::<Q4<LANES>>()
    }
}

avx2_dispatch! {
    /// Solves the batch's pending chains.
    fn solve_batch / solve_batch_portable(batch: &mut CcdBatch) -> () => solve_batch_body
}

/// [`CcdBatch::solve`]'s body, inlined into both of its builds: [`solve_lanes`]'s loop with
/// its per-lane decisions, a finished lane taking the next pending chain.
///
/// [`solve_lanes`]: super::solve_lanes
#[inline(always)]
fn solve_batch_body(batch: &mut CcdBatch) {
    let CcdBatch {
        params,
        shape,
        plans,
        link_entry,
        jobs,
        links,
        locals,
        animated,
        results,
        corrections,
        pending,
        block,
    } = batch;
    if pending.is_empty() {
        return;
    }
    let n = shape.len();
    let entries = 2 * n;
    let identity = (Q4::IDENTITY, V3::ZERO);
    fn fit<T: Copy>(v: &mut Vec<T>, len: usize, value: T) {
        v.clear();
        v.resize(len, value);
    }
    fit(&mut block.local, entries, identity);
    fit(&mut block.world, entries, identity);
    fit(&mut block.ik, n, Q4::IDENTITY);
    fit(&mut block.animated, n, Q4::IDENTITY);
    fit(&mut block.saved, n, Q4::IDENTITY);
    let mut base = identity;
    let mut goal = V3::ZERO;
    let mut effector = V3::ZERO;
    let iterations = params.iterations;
    let half = iterations >> 1;
    let tolerance_sq = params.tolerance * params.tolerance;
    let mut queue = pending.drain(..);
    // The first entry whose world pose is stale in some lane (`usize::MAX`: none).
    let mut stale;

    // Lane `l` takes job `j`: its path, its rotations at the start, its target.
    let load = |block: &mut Block,
                base: &mut WidePose<LANES>,
                goal: &mut V3<LANES>,
                l: usize,
                j: usize| {
        let job = &jobs[j];
        base.0.set_lane(l, job.base.0);
        base.1.set_lane(l, job.base.1);
        goal.set_lane(l, job.goal);
        let slot = job.path;
        for k in 0..entries {
            let (r, p) = locals[slot * entries + k];
            block.local[k].0.set_lane(l, r);
            block.local[k].1.set_lane(l, p);
        }
        for ci in 0..n {
            block.animated[ci].set_lane(l, animated[slot * n + ci]);
            block.ik[ci].set_lane(l, Quat::IDENTITY);
        }
        block.it[l] = 0;
        block.sweeps[l] = 0;
        block.job[l] = j;
        block.live[l] = true;
    };
    for l in 0..LANES {
        match queue.next() {
            Some(j) => load(block, &mut base, &mut goal, l, j),
            None => block.live[l] = false,
        }
    }
    stale = 0;

    while block.live.iter().any(|&l| l) {
        // Refresh: the world poses below the first turned entry, the effector from them (a
        // lane that turned nothing gets the same bits again).
        if stale != usize::MAX {
            for k in stale..entries {
                let parent = if k == 0 { base } else { block.world[k - 1] };
                block.world[k] = compose_wide(parent, block.local[k]);
            }
            stale = usize::MAX;
            effector = block.world[entries - 1].1;
        }
        block.saved.copy_from_slice(&block.ik);
        let live = Mask::from_fn(|l| block.live[l]);
        let use_axis = Mask::from_fn(|l| block.it[l] < half);
        for (ci, plan) in plans.iter().enumerate() {
            if plan.axis == SolveAxis::Fixed {
                continue;
            }
            let k = link_entry[ci];
            let parent = if k == 0 { base.0 } else { block.world[k - 1].0 };
            let (local, ik) = (&mut block.local[k].0, &mut block.ik[ci]);
            let stepped = step_wide(
                plan,
                StepLanes {
                    world: block.world[k],
                    parent,
                    ik,
                    animated: block.animated[ci],
                    local,
                    goal,
                    effector: &mut effector,
                    live,
                    use_axis,
                },
            );
            if stepped {
                stale = stale.min(k);
            }
        }
        // Each lane's decision, as `solve_lanes`.
        let away = goal - effector;
        let close = away.dot(away).lt(super::wide::Wide::splat(tolerance_sq));
        let mut unchanged = Mask::splat(true);
        for (saved, ik) in block.saved.iter().zip(&block.ik) {
            let same = saved
                .x
                .eq(ik.x)
                .and(saved.y.eq(ik.y))
                .and(saved.z.eq(ik.z))
                .and(saved.w.eq(ik.w));
            unchanged = unchanged.and(same);
        }
        for l in 0..LANES {
            if !block.live[l] {
                continue;
            }
            block.sweeps[l] += 1;
            let next = if close.lane(l) {
                None
            } else {
                next_iteration(block.it[l], half, unchanged.lane(l))
            };
            block.it[l] = next.unwrap_or(block.it[l]);
            if next.is_some() && block.it[l] < iterations {
                continue;
            }
            // Done: the corrections and the result, then the next chain.
            let j = block.job[l];
            let out = &mut corrections[j * n..(j + 1) * n];
            for (i, correction) in out.iter_mut().enumerate() {
                let ci = n - 1 - i;
                *correction = correction_of(block.animated[ci].lane(l), block.ik[ci].lane(l));
            }
            let job = &jobs[j];
            results[j] = finish(
                &links[j * n..(j + 1) * n],
                job.effector,
                job.target,
                params,
                out,
                block.sweeps[l],
            );
            match queue.next() {
                Some(next) => {
                    load(block, &mut base, &mut goal, l, next);
                    stale = 0;
                }
                None => block.live[l] = false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::{solve_batch, solve_batch_portable, CcdBatch};
    use crate::test_rng::Rng;
    use crate::{CcdLink, CcdParams, RotationLimit};

    /// The AVX2 build (on a CPU that has it) and the portable build give the same bits.
    #[test]
    fn builds_agree() {
        let mut rng = Rng(0x0ba7_c4ed);
        let knee = RotationLimit::new(Vec3::new(-3.0, 0.0, 0.0), Vec3::new(-0.01, 0.0, 0.0)).ok();
        let shape = [None, knee, None];
        let params = CcdParams::new(30, 0.7, 1e-4).unwrap();
        let (mut a, mut b) = (CcdBatch::new(&shape, params), CcdBatch::new(&shape, params));
        for _ in 0..40 {
            let links: Vec<CcdLink> = shape
                .iter()
                .enumerate()
                .map(|(i, &limit)| CcdLink {
                    position: rng.vec(0.2) - Vec3::Y * i as f32,
                    rotation: rng.quat(),
                    local_rotation: rng.quat(),
                    limit,
                })
                .collect();
            let target = rng.vec(2.5);
            for batch in [&mut a, &mut b] {
                batch.push(&links, Vec3::NEG_Y * 3.0, target).unwrap();
            }
        }
        solve_batch(&mut a);
        solve_batch_portable(&mut b);
        let bits = |q: &[Quat]| -> Vec<u32> {
            q.iter()
                .flat_map(|q| q.to_array().map(f32::to_bits))
                .collect()
        };
        for j in 0..a.len() {
            assert_eq!(bits(a.corrections(j)), bits(b.corrections(j)));
            assert_eq!(a.result(j), b.result(j));
        }
        assert!((0..a.len()).map(|j| a.result(j).iterations).sum::<u32>() > 200);
    }
}
