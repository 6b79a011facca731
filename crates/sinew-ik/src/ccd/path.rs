//! Plain IK chains as the CCD iterations keep them ([`PathLanes`]): the path from the base
//! link's parent down to the effector as local and world rotation + position poses, parent
//! first, for `N` chains of one shape side by side. Composing quaternion poses costs about half
//! of composing matrices, and only the path's poses are read while iterating.

use glam::{Quat, Vec3A};

use super::lanes::CcdBones;

/// A rotation + position pose (local or world).
pub type Pose = (Quat, Vec3A);

/// `parent ∘ local` for rotation + position poses.
#[inline(always)]
#[must_use]
pub fn compose((pr, pp): Pose, (lr, lp): Pose) -> Pose {
    (pr * lr, pp + pr * lp)
}

/// The effector after the link standing at `pose` (world, before the step), hanging from
/// `parent` (world rotation), takes the local rotation `local`; `arc` as in
/// [`CcdBones::turn`].
#[inline(always)]
fn carried_effector(
    (rotation, position): Pose,
    parent: Quat,
    local: Quat,
    effector: Vec3A,
    arc: Option<(Vec3A, f32)>,
) -> Vec3A {
    match arc {
        Some((from_goal, ratio)) => position - from_goal * ratio,
        None => {
            let offset = rotation.conjugate() * (effector - position);
            position + (parent * local) * offset
        }
    }
}

/// A link's IK rotation `ik` as a correction of its local rotation without IK, `animated`
/// (`local' = local × correction`).
#[inline]
pub(super) fn correction(animated: Quat, ik: Quat) -> Quat {
    (animated.inverse() * (ik * animated)).normalize()
}

/// The buffers of [`PathLanes`]; they grow to the longest path seen, then never allocate.
#[derive(Clone, Debug, Default)]
pub struct PathScratch {
    local: Vec<Pose>,
    world: Vec<Pose>,
    ik: Vec<Quat>,
    animated: Vec<Quat>,
    saved: Vec<Quat>,
}

impl PathScratch {
    /// Empty buffers.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Buffers for paths of `poses` poses and `links` links in all (entries or links times
    /// lanes), so that solves up to that size never allocate.
    #[must_use]
    pub fn with_capacity(poses: usize, links: usize) -> Self {
        Self {
            local: Vec::with_capacity(poses),
            world: Vec::with_capacity(poses),
            ik: Vec::with_capacity(links),
            animated: Vec::with_capacity(links),
            saved: Vec::with_capacity(links),
        }
    }

    /// Bytes held on the heap.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        use core::mem::size_of;
        (self.local.capacity() + self.world.capacity()) * size_of::<Pose>()
            + (self.ik.capacity() + self.animated.capacity() + self.saved.capacity())
                * size_of::<Quat>()
    }

    /// `N` paths of `link_entry`'s shape: `entries` poses each (the last one the effector),
    /// link `ci` (from the effector) at entry `link_entry[ci]`. Every pose starts at the
    /// identity, every IK rotation too; set the bases, the local poses and the animated
    /// rotations, then [`PathLanes::compose`].
    ///
    /// # Panics
    /// When a link's entry is not below `entries`.
    pub fn lanes<'s, const N: usize>(
        &'s mut self,
        entries: usize,
        link_entry: &'s [usize],
    ) -> PathLanes<'s, N> {
        assert!(link_entry.iter().all(|&k| k < entries));
        let links = link_entry.len();
        let identity = (Quat::IDENTITY, Vec3A::ZERO);
        fn fit<T: Copy>(v: &mut Vec<T>, n: usize, value: T) {
            v.clear();
            v.resize(n, value);
        }
        fit(&mut self.local, entries * N, identity);
        fit(&mut self.world, entries * N, identity);
        fit(&mut self.ik, links * N, Quat::IDENTITY);
        fit(&mut self.animated, links * N, Quat::IDENTITY);
        fit(&mut self.saved, links * N, Quat::IDENTITY);
        PathLanes {
            entries,
            link_entry,
            base: [identity; N],
            stale: [usize::MAX; N],
            local: &mut self.local,
            world: &mut self.world,
            ik: &mut self.ik,
            animated: &mut self.animated,
            saved: &mut self.saved,
        }
    }
}

/// `N` plain IK chains of one shape (their bones turn only through their own IK rotations),
/// each a path of rotation + position poses hanging from a base pose; the [`CcdBones`] of
/// [`solve_lanes`](super::solve_lanes) for them. Entry-major: entry `k` of lane `l` at
/// `k · N + l`, link `ci` of lane `l` at `ci · N + l`.
#[derive(Debug)]
pub struct PathLanes<'s, const N: usize> {
    entries: usize,
    link_entry: &'s [usize],
    base: [Pose; N],
    /// Per lane, the first entry whose world pose is stale (`usize::MAX`: none): a step
    /// changes its link's local rotation; the entries below are brought up to date once per
    /// iteration, before the next sweep reads them.
    stale: [usize; N],
    local: &'s mut [Pose],
    world: &'s mut [Pose],
    ik: &'s mut [Quat],
    animated: &'s mut [Quat],
    saved: &'s mut [Quat],
}

impl<const N: usize> PathLanes<'_, N> {
    /// Sets the world pose lane `lane`'s path hangs from (its first entry's parent).
    pub fn set_base(&mut self, lane: usize, pose: Pose) {
        self.base[lane] = pose;
    }

    /// Sets entry `k`'s local pose (relative to entry `k − 1`, or the base).
    pub fn set_local(&mut self, lane: usize, k: usize, pose: Pose) {
        self.local[k * N + lane] = pose;
    }

    /// Sets link `ci`'s local rotation without IK (the one its limit and IK rotation act on).
    pub fn set_animated(&mut self, lane: usize, ci: usize, rotation: Quat) {
        self.animated[ci * N + lane] = rotation;
    }

    /// Entry `k`'s local pose.
    #[must_use]
    pub fn local(&self, lane: usize, k: usize) -> Pose {
        self.local[k * N + lane]
    }

    /// Recomposes every world pose from the local ones.
    pub fn compose(&mut self) {
        self.recompose(0);
    }

    /// Entry `k`'s world pose.
    #[must_use]
    pub fn world(&self, lane: usize, k: usize) -> Pose {
        self.world[k * N + lane]
    }

    /// Link `ci`'s IK rotation.
    #[must_use]
    pub fn ik(&self, lane: usize, ci: usize) -> Quat {
        self.ik[ci * N + lane]
    }

    /// Link `ci`'s IK rotation as a correction of its local rotation without IK (`local' =
    /// local × correction`, what callers holding local poses apply).
    #[must_use]
    pub fn correction(&self, lane: usize, ci: usize) -> Quat {
        correction(self.animated[ci * N + lane], self.ik(lane, ci))
    }

    /// The effector's position (the last entry's).
    #[must_use]
    pub fn effector(&self, lane: usize) -> Vec3A {
        self.world[(self.entries - 1) * N + lane].1
    }

    /// Entries `from..` of every lane recomposed (a lane whose entries did not change gets the
    /// same values again).
    fn recompose(&mut self, from: usize) {
        for k in from..self.entries {
            for l in 0..N {
                let parent = if k == 0 {
                    self.base[l]
                } else {
                    self.world[(k - 1) * N + l]
                };
                self.world[k * N + l] = compose(parent, self.local[k * N + l]);
            }
        }
    }

    #[inline(always)]
    fn parent_rotation(&self, lane: usize, k: usize) -> Quat {
        if k == 0 {
            self.base[lane].0
        } else {
            self.world[(k - 1) * N + lane].0
        }
    }
}

impl<const N: usize> CcdBones<N> for PathLanes<'_, N> {
    #[inline(always)]
    fn refresh(&mut self, live: [bool; N]) -> [Option<Vec3A>; N] {
        let from = (0..N)
            .filter(|&l| live[l])
            .map(|l| self.stale[l])
            .min()
            .unwrap_or(usize::MAX);
        if from != usize::MAX {
            // The effector as the new local rotations place it (the one carried through the
            // sweep is the same up to rounding, which is not let accumulate).
            self.recompose(from);
        }
        let mut moved = [None; N];
        for (l, moved) in moved.iter_mut().enumerate() {
            if live[l] && self.stale[l] != usize::MAX {
                self.stale[l] = usize::MAX;
                *moved = Some(self.effector(l));
            }
        }
        moved
    }

    #[inline(always)]
    fn link_position(&self, lane: usize, ci: usize) -> Vec3A {
        self.world[self.link_entry[ci] * N + lane].1
    }

    #[inline(always)]
    fn to_parent(&self, lane: usize, ci: usize, axis: Vec3A) -> Vec3A {
        self.parent_rotation(lane, self.link_entry[ci]).conjugate() * axis
    }

    #[inline(always)]
    fn ik_rotation(&self, lane: usize, ci: usize) -> Quat {
        self.ik[ci * N + lane]
    }

    #[inline(always)]
    fn animated(&self, lane: usize, ci: usize) -> Quat {
        self.animated[ci * N + lane]
    }

    #[inline(always)]
    fn turn(
        &mut self,
        lane: usize,
        ci: usize,
        ik: Quat,
        local: Quat,
        effector: Vec3A,
        arc: Option<(Vec3A, f32)>,
    ) -> Vec3A {
        // Within an iteration the sweep goes from the effector toward the base, so the links
        // still to come are this one's ancestors and keep their poses: only the effector is
        // needed, turned with this link from where it stands.
        let k = self.link_entry[ci];
        self.ik[ci * N + lane] = ik;
        self.local[k * N + lane].0 = local;
        self.stale[lane] = self.stale[lane].min(k);
        let parent = self.parent_rotation(lane, k);
        carried_effector(self.world[k * N + lane], parent, local, effector, arc)
    }

    #[inline(always)]
    fn save(&mut self, lane: usize) {
        for ci in 0..self.link_entry.len() {
            self.saved[ci * N + lane] = self.ik[ci * N + lane];
        }
    }

    #[inline(always)]
    fn unchanged(&self, lane: usize) -> bool {
        (0..self.link_entry.len()).all(|ci| self.saved[ci * N + lane] == self.ik[ci * N + lane])
    }
}
