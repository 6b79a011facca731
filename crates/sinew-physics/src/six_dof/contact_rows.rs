//! Contacts as the solver takes them: one point per pair, found before the step, and the
//! constants of their rows (push-out, Bullet's split impulse, bounce).

use glam::Vec3;

/// One contact point between two bodies, world space, found before the step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactPoint {
    pub a: usize,
    pub b: usize,
    /// The contact points on A's and B's surfaces.
    pub point_a: Vec3,
    pub point_b: Vec3,
    /// Unit normal from A toward B.
    pub normal: Vec3,
    /// Signed distance (negative: penetration).
    pub dist: f32,
    /// Combined friction and restitution (products, Bullet's rule).
    pub friction: f32,
    pub restitution: f32,
}

/// Fraction of a contact's penetration pushed out per step, and the fastest push-out
/// (definition units per second: times the length scale in the simulation), so deep overlaps
/// at bind separate without a jolt.
pub(super) const CONTACT_ERP: f32 = 0.2;
pub(super) const MAX_PUSH_OUT: f32 = 2.0;
/// Bullet's split impulse: a contact deeper than this (definition units) is pushed out on
/// pseudo-velocities that move positions without adding momentum, by [`SPLIT_ERP`] of its
/// depth per step (`m_splitImpulsePenetrationThreshold`, `m_erp2`).
pub(super) const SPLIT_DEPTH: f32 = 0.04;
pub(super) const SPLIT_ERP: f32 = 0.8;
/// Share of a split push-out's turn applied to orientations (`m_splitImpulseTurnErp`).
pub(crate) const SPLIT_TURN_ERP: f32 = 0.1;
/// Approach speeds (definition units per second) below which a contact does not bounce.
pub(super) const BOUNCE_THRESHOLD: f32 = 1.0;
