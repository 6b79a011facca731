//! Plain-data parameters: [`PhysicsOptions`] and [`Profile`].

use sinew::dynamics::BodyMode;

pub use sinew::Writeback;

use crate::PhysicsError;

/// Which bodies of a table are simulated, how, and what joins them: a
/// profile, required to enable a candidate table (a glTF reader's, `profile_required`), usable
/// on any table to pick a part of it.
///
/// Bodies not listed are not created; joints touching them are skipped. A candidate table
/// carries no joints: the profile's [`Self::joints`] join its bodies (a chain of capsules
/// hanging from a kinematic one, say).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    /// Entries, at most one per body index (a later entry for the same body wins).
    pub bodies: Vec<ProfileBody>,
    /// Joints added to the table's, over the table's body indices (both bodies must be in
    /// the profile for the joint to be created).
    pub joints: Vec<sinew::dynamics::Joint>,
}

/// One simulated body of a [`Profile`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProfileBody {
    /// Index into `Physics::bodies()`.
    pub body: usize,
    /// Mode override; `None` keeps the table's mode.
    pub mode: Option<BodyMode>,
    /// Multiplies sphere/capsule radii (together with `Physics::profile_radius_scale()`; a
    /// capsule keeps its full length, its cylinder shortened by what the caps grew); finite
    /// and `> 0`. Default 1.
    pub radius_scale: f32,
}

impl ProfileBody {
    /// Body `body` with the table's mode and radius scale 1.
    #[must_use]
    pub fn new(body: usize) -> Self {
        Self {
            body,
            mode: None,
            radius_scale: 1.0,
        }
    }
}

impl Profile {
    /// A profile simulating exactly `bodies` with their table modes.
    #[must_use]
    pub fn from_bodies(bodies: impl IntoIterator<Item = usize>) -> Self {
        Self {
            bodies: bodies.into_iter().map(ProfileBody::new).collect(),
            joints: Vec::new(),
        }
    }

    /// Adds body `body` with mode `mode` (`None`: the table's).
    #[must_use]
    pub fn body(mut self, body: usize, mode: Option<BodyMode>) -> Self {
        self.bodies.push(ProfileBody {
            body,
            mode,
            radius_scale: 1.0,
        });
        self
    }

    /// Adds a joint.
    #[must_use]
    pub fn joint(mut self, joint: sinew::dynamics::Joint) -> Self {
        self.joints.push(joint);
        self
    }
}

/// Simulation parameters. Plain data with documented defaults; validated by
/// [`Ragdoll::new`](crate::Ragdoll::new).
#[derive(Clone, Debug, PartialEq)]
pub struct PhysicsOptions {
    /// Fixed internal step rate, Hz. Default 60 (MMD runtimes use 60–120).
    pub step_hz: f32,
    /// Most fixed steps per frame; time beyond that is dropped (reported). Default 4.
    pub max_steps_per_frame: u32,
    /// Gauss–Seidel sweeps over the joint and contact rows per step. Default 10 (Bullet's).
    pub solver_iterations: usize,
    /// Damp as Bullet does: body damping `d` (clamped to `[0, 1]`) is the fraction of velocity
    /// lost per second, applied each step after gravity (`v·(1 − d)^dt`; `d = 1` stops the
    /// body's own motion every step), then Bullet's additional damping of nearly stopped
    /// bodies. `false` hands the values to rapier as its damping rates. Default true.
    pub bullet_damping: bool,
    /// A frame in which the instance's root (placement, or its first root bone) moves more
    /// than this, in world units, counts as a teleport: every body is re-seeded at its animated
    /// pose with zero velocity instead of being dragged. Default 1.0.
    pub teleport_distance: f32,
    /// Same for a root rotation larger than this, radians. Default 1.0 (≈57°).
    pub teleport_angle: f32,
    /// A simulated body farther than this (evaluation units) from its animated pose after a
    /// step is treated as exploded and reset like a non-finite one. Default 50.
    pub max_body_deviation: f32,
    /// Seeking backwards in time (a frame `time` more than one step earlier than the last)
    /// re-seeds every body. Default true.
    pub reset_on_rewind: bool,
    /// The profile; required when `Physics::profile_required()`.
    pub profile: Option<Profile>,
    /// Joint projection after every step (see [`JointProjection`]); `None` leaves the joints
    /// to the solver alone, as Bullet does. Default `None`.
    pub joint_projection: Option<JointProjection>,
    /// How the simulated pose reaches the character's state, and so how the frame is split
    /// around physics. Default [`Writeback::Locals`]; MMD models want [`Writeback::World`].
    pub writeback: Writeback,
}

impl Default for PhysicsOptions {
    fn default() -> Self {
        Self {
            step_hz: 60.0,
            max_steps_per_frame: 4,
            solver_iterations: 10,
            bullet_damping: true,
            teleport_distance: 1.0,
            teleport_angle: 1.0,
            max_body_deviation: 50.0,
            reset_on_rewind: true,
            profile: None,
            joint_projection: None,
            writeback: Writeback::Locals,
        }
    }
}

/// Position-level joint projection (as PhysX's joint projection), off by default: after each
/// step, joints whose relative rotation left the authored box by more than
/// `angular_tolerance`, or whose anchors drifted apart by more than `linear_tolerance`, are
/// corrected by moving one body — the one farther from a kinematic body along the joint tree —
/// onto the box and onto the anchor. Velocities are kept. Joints that close a loop in the joint
/// graph (skirt rings) are left out, since one body cannot satisfy two of them.
///
/// The joint solver lets limits give a little under load, as Bullet's does (the MMD look
/// depends on it: on miku_v2 Bullet's hair joints sit up to ≈ 10° past their boxes while the
/// upper body turns); projection makes them hard, for rigs that need a hard guarantee. It
/// moves hair farther from MMD's motion (measured ratios 0.02 → 0.54 at rest, 0.23 → 0.80
/// over the wavefile dance, `compare_physics.py`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointProjection {
    /// Rotation excess beyond the box, radians, tolerated before projecting. Default 0.02.
    pub angular_tolerance: f32,
    /// Anchor separation, evaluation units, tolerated before projecting. Default 0.002.
    pub linear_tolerance: f32,
}

impl Default for JointProjection {
    fn default() -> Self {
        Self {
            angular_tolerance: 0.02,
            linear_tolerance: 0.002,
        }
    }
}

fn invalid(field: &'static str, value: impl ToString, expected: &'static str) -> PhysicsError {
    PhysicsError::InvalidOption {
        field,
        value: value.to_string(),
        expected,
    }
}

impl PhysicsOptions {
    /// Checks every field.
    ///
    /// # Errors
    /// [`PhysicsError::InvalidOption`] naming the first bad field.
    pub fn validate(&self) -> Result<(), PhysicsError> {
        if !(self.step_hz.is_finite() && self.step_hz >= 1.0) {
            return Err(invalid("step_hz", self.step_hz, "finite and >= 1"));
        }
        if self.max_steps_per_frame == 0 {
            return Err(invalid("max_steps_per_frame", 0, ">= 1"));
        }
        if self.solver_iterations == 0 {
            return Err(invalid("solver_iterations", 0, ">= 1"));
        }
        for (field, v) in [
            ("teleport_distance", self.teleport_distance),
            ("teleport_angle", self.teleport_angle),
            ("max_body_deviation", self.max_body_deviation),
        ] {
            if v.is_nan() || v <= 0.0 {
                return Err(invalid(field, v, "> 0 (infinity disables)"));
            }
        }
        if let Some(p) = self.joint_projection {
            for (field, v) in [
                ("joint_projection.angular_tolerance", p.angular_tolerance),
                ("joint_projection.linear_tolerance", p.linear_tolerance),
            ] {
                if v.is_nan() || v < 0.0 {
                    return Err(invalid(field, v, ">= 0 (infinity disables)"));
                }
            }
        }
        Ok(())
    }
}
