//! Bodies and joints of a ragdoll as typed handles ([`BodyId`], [`JointId`]): what each came
//! from, and bodies read and placed in
//! world coordinates.

use glam::{DVec3, Quat};
use sinew::dynamics::{Joint, RigidBody};

use super::Ragdoll;
use crate::world::Rigid;

/// A body the ragdoll created (an index into its bodies, not the table's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyId(u32);

/// A joint the ragdoll created (an index into its joints, not the table's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JointId(u32);

impl BodyId {
    /// The index among the ragdoll's bodies (`0..Ragdoll::body_count`).
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl JointId {
    /// The index among the ragdoll's joints (`0..Ragdoll::joint_count`).
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl Ragdoll {
    /// Every body created, in the table's order (bodies a profile left out are not there).
    pub fn body_ids(&self) -> impl Iterator<Item = BodyId> + '_ {
        (0..self.bodies.len()).map(|i| BodyId(i as u32))
    }

    /// Every joint created (joints whose two bodies both exist): the table's, then the
    /// profile's.
    pub fn joint_ids(&self) -> impl Iterator<Item = JointId> + '_ {
        (0..self.six.len()).map(|i| JointId(i as u32))
    }

    /// The body made from table body `definition`, if it was created.
    #[must_use]
    pub fn body_of(&self, definition: usize) -> Option<BodyId> {
        self.body_of_def
            .get(definition)
            .copied()
            .flatten()
            .map(|i| BodyId(i as u32))
    }

    /// The definition body `id` came from (`Body.source()`), `None` for an id of another
    /// ragdoll past this one's bodies.
    #[must_use]
    pub fn body_source(&self, id: BodyId) -> Option<&RigidBody> {
        let b = self.bodies.get(id.index())?;
        self.definitions.0.get(b.def)
    }

    /// The index in the table of the definition body `id` came from.
    #[must_use]
    pub fn body_definition(&self, id: BodyId) -> Option<usize> {
        self.bodies.get(id.index()).map(|b| b.def)
    }

    /// The definition joint `id` came from (`Joint.source()`): a table joint or a profile's.
    #[must_use]
    pub fn joint_source(&self, id: JointId) -> Option<&Joint> {
        let def = *self.joint_defs.get(id.index())?;
        self.definitions.1.get(def)
    }

    /// The two bodies joint `id` joins (A, B).
    #[must_use]
    pub fn joint_bodies(&self, id: JointId) -> Option<(BodyId, BodyId)> {
        let j = self.six.get(id.index())?;
        Some((BodyId(j.a as u32), BodyId(j.b as u32)))
    }

    /// Body `id`'s pose in world coordinates (`f64` position, anchor added back, unit scale
    /// divided out). Before the first frame the anchor counts as the origin.
    #[must_use]
    pub fn body_world(&self, id: BodyId) -> Option<(DVec3, Quat)> {
        let (t, r) = self.body_pose(id)?;
        let origin = self.last_origin.unwrap_or(DVec3::ZERO);
        Some((origin + (t / self.unit_scale).as_dvec3(), r))
    }

    /// Places body `id` at a world pose (its velocities kept): a hit, a grab, a body moved by
    /// the host. A kinematic body is sent there too, until its animation drives it again at
    /// the next step. Returns false for an unknown id or a pose that is not finite.
    pub fn set_body_world(&mut self, id: BodyId, position: DVec3, rotation: Quat) -> bool {
        let Some(b) = self.bodies.get_mut(id.index()) else {
            return false;
        };
        if !(position.is_finite() && rotation.is_finite()) || rotation.length_squared() < 1e-12 {
            return false;
        }
        let origin = self.last_origin.unwrap_or(DVec3::ZERO);
        let t = (position - origin).as_vec3() * self.unit_scale;
        let pose = Rigid::new(t, rotation.normalize());
        let rb = &mut self.world.bodies[b.handle];
        rb.set_position(pose.to_r(), true);
        if b.driven {
            rb.set_next_kinematic_position(pose.to_r());
            b.prev = pose;
        }
        true
    }
}
