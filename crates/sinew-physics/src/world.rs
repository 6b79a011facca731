//! The private rapier world of one ragdoll (bodies and integration; contacts and joints are
//! solved by the ragdoll), and glam ↔ rapier conversions.
//!
//! rapier 0.36 uses glam 0.31 (through `glamx`) while sinew uses glam 0.30, so values cross
//! the boundary as plain components.

use glam::{Affine3A, Quat, Vec3};
use rapier3d::math::{Pose, Rotation, Vector};
use rapier3d::prelude::{
    CCDSolver, ColliderSet, DefaultBroadPhase, ImpulseJointSet, IntegrationParameters,
    IslandManager, MultibodyJointSet, NarrowPhase, PhysicsPipeline, RigidBodySet, SoftBodySet,
};

pub(crate) fn to_r(v: Vec3) -> Vector {
    Vector::new(v.x, v.y, v.z)
}

pub(crate) fn from_r(v: Vector) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}

pub(crate) fn rot_to_r(q: Quat) -> Rotation {
    Rotation::from_xyzw(q.x, q.y, q.z, q.w)
}

pub(crate) fn rot_from_r(q: Rotation) -> Quat {
    Quat::from_xyzw(q.x, q.y, q.z, q.w)
}

/// A rotation and translation (no scale).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rigid {
    pub t: Vec3,
    pub r: Quat,
}

impl Rigid {
    pub const IDENTITY: Self = Self {
        t: Vec3::ZERO,
        r: Quat::IDENTITY,
    };

    pub fn new(t: Vec3, r: Quat) -> Self {
        Self { t, r }
    }

    /// The rigid part of an affine matrix (scale and shear dropped).
    pub fn from_affine(m: &Affine3A) -> Self {
        let (_, r, t) = m.to_scale_rotation_translation();
        Self {
            t,
            r: r.normalize(),
        }
    }

    pub fn to_affine(self) -> Affine3A {
        Affine3A::from_rotation_translation(self.r, self.t)
    }

    pub fn mul(self, o: Self) -> Self {
        Self {
            t: self.t + self.r * o.t,
            r: (self.r * o.r).normalize(),
        }
    }

    pub fn inverse(self) -> Self {
        let r = self.r.inverse();
        Self {
            t: -(r * self.t),
            r,
        }
    }

    pub fn lerp(self, o: Self, a: f32) -> Self {
        Self {
            t: self.t.lerp(o.t, a),
            r: self.r.slerp(o.r, a).normalize(),
        }
    }

    pub fn is_finite(self) -> bool {
        self.t.is_finite() && self.r.is_finite()
    }

    pub fn to_r(self) -> Pose {
        Pose::from_parts(to_r(self.t), rot_to_r(self.r))
    }

    pub fn from_r(p: &Pose) -> Self {
        Self {
            t: from_r(p.translation),
            r: rot_from_r(p.rotation),
        }
    }
}

/// MMD's rule: each body's mask must allow the other's group (same as
/// `sinew::dynamics::RigidBody::collides_with`).
#[must_use]
pub(crate) fn mmd_collides(a: (u8, u64), b: (u8, u64)) -> bool {
    a.1 & (1u64 << b.0) == 0 && b.1 & (1u64 << a.0) == 0
}

/// Every rapier set of one ragdoll.
pub(crate) struct World {
    pub pipeline: PhysicsPipeline,
    pub params: IntegrationParameters,
    pub islands: IslandManager,
    pub broad: DefaultBroadPhase,
    pub narrow: NarrowPhase,
    pub bodies: RigidBodySet,
    pub colliders: ColliderSet,
    pub impulse_joints: ImpulseJointSet,
    pub multibody_joints: MultibodyJointSet,
    pub soft: SoftBodySet,
    pub ccd: CCDSolver,
}

impl World {
    pub fn new(step: f32) -> Self {
        // Rapier only integrates (no colliders, no joints): one solver pass is enough.
        let params = IntegrationParameters {
            dt: step,
            num_solver_iterations: 1,
            ..IntegrationParameters::default()
        };
        Self {
            pipeline: PhysicsPipeline::new(),
            params,
            islands: IslandManager::new(),
            broad: DefaultBroadPhase::new(),
            narrow: NarrowPhase::new(),
            bodies: RigidBodySet::new(),
            colliders: ColliderSet::new(),
            impulse_joints: ImpulseJointSet::new(),
            multibody_joints: MultibodyJointSet::new(),
            soft: SoftBodySet::new(),
            ccd: CCDSolver::new(),
        }
    }

    pub fn step(&mut self, gravity: Vec3) {
        self.pipeline.step(
            to_r(gravity),
            &self.params,
            &mut self.islands,
            &mut self.broad,
            &mut self.narrow,
            &mut self.bodies,
            &mut self.colliders,
            &mut self.impulse_joints,
            &mut self.multibody_joints,
            &mut self.soft,
            &mut self.ccd,
            &(),
            &(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rigid_roundtrip() {
        let a = Rigid::new(Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_y(0.7));
        let b = a.mul(a.inverse());
        assert!(b.t.length() < 1e-5);
        assert!(b.r.angle_between(Quat::IDENTITY) < 1e-4);
        let back = Rigid::from_r(&a.to_r());
        assert!((back.t - a.t).length() < 1e-6 && back.r.angle_between(a.r) < 1e-4);
    }
}
