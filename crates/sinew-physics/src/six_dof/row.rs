//! One constraint row of the projected Gauss–Seidel solve: its Jacobian, what a unit impulse
//! does to each side, its bounds and its place in the sweep.

use glam::{Vec3, Vec3A};

#[derive(Clone, Copy, Debug)]
pub(super) struct Row {
    pub(super) a: u32,
    pub(super) b: u32,
    /// Linear Jacobian of A (B's is its negative).
    pub(super) lin: Vec3A,
    pub(super) ang_a: Vec3A,
    pub(super) ang_b: Vec3A,
    /// What a unit impulse does to each side: `lin / m` and `I⁻¹·ang`.
    pub(super) la: Vec3A,
    pub(super) lb: Vec3A,
    pub(super) ia: Vec3A,
    pub(super) ib: Vec3A,
    pub(super) m_eff: f32,
    pub(super) rhs: f32,
    /// A deep contact's push-out, solved apart on pseudo-velocities that move positions
    /// only (Bullet's split impulse); 0 on every other row.
    pub(super) rhs_pen: f32,
    pub(super) lo: f32,
    pub(super) hi: f32,
    /// A friction row: the normal row whose impulse bounds it (`NO_ROW`: none), and `μ`.
    pub(super) normal: u32,
    pub(super) mu: f32,
    /// Bit 0: body A moves (finite mass or inertia); bit 1: body B moves.
    pub(super) moves: u8,
    /// Sweep level (see `JointSolver::schedule`).
    pub(super) level: u32,
}

pub(super) const NO_ROW: u32 = u32::MAX;

impl Row {
    /// A row between bodies `a` and `b` whose Jacobian `[lin, ang_a, ang_b]` measures
    /// `lin·(v_a − v_b) + ang_a·ω_a + ang_b·ω_b`, driven to `rhs` with its accumulated impulse
    /// kept in `[lo, hi]`.
    pub(super) fn new(
        a: usize,
        b: usize,
        [lin, ang_a, ang_b]: [Vec3; 3],
        rhs: f32,
        (lo, hi): (f32, f32),
    ) -> Self {
        Self {
            a: a as u32,
            b: b as u32,
            lin: lin.into(),
            ang_a: ang_a.into(),
            ang_b: ang_b.into(),
            la: Vec3A::ZERO,
            lb: Vec3A::ZERO,
            ia: Vec3A::ZERO,
            ib: Vec3A::ZERO,
            m_eff: 0.0,
            rhs,
            rhs_pen: 0.0,
            lo,
            hi,
            normal: NO_ROW,
            mu: 0.0,
            moves: 0,
            level: 0,
        }
    }

    /// The rate the row measures at velocities `vel` (one horizontal sum: the row's latency
    /// is the sweep's critical path).
    #[inline(always)]
    pub(super) fn rate(&self, vel: &[(Vec3A, Vec3A)]) -> f32 {
        let ((va, wa), (vb, wb)) = (vel[self.a as usize], vel[self.b as usize]);
        (self.lin * (va - vb) + self.ang_a * wa + self.ang_b * wb).element_sum()
    }

    /// Applies an impulse `delta` along the row to `vel`. Immovable sides (kinematic bodies)
    /// are not written: rows sharing only them stay independent.
    #[inline(always)]
    pub(super) fn apply(&self, vel: &mut [(Vec3A, Vec3A)], delta: f32) {
        let (a, b) = (self.a as usize, self.b as usize);
        if self.moves & 1 != 0 {
            let (va, wa) = vel[a];
            vel[a] = (va + self.la * delta, wa + self.ia * delta);
        }
        if self.moves & 2 != 0 {
            let (vb, wb) = vel[b];
            vel[b] = (vb - self.lb * delta, wb + self.ib * delta);
        }
    }

    /// The Jacobian measuring the velocity of `B`'s point (offset `rb` from its centre) relative
    /// to `A`'s point (offset `ra`) along `n`.
    pub(super) fn point(ra: Vec3, rb: Vec3, n: Vec3) -> [Vec3; 3] {
        [-n, -ra.cross(n), rb.cross(n)]
    }
}
