//! Rigid-body physics for one MMD model as the commands run it ([`MmdPhysics`]) and the bodies
//! as drawn ([`BodyOutline`]).

use std::path::{Path, PathBuf};

use glam::{Affine3A, Quat, Vec3};
use sinew::dynamics::{BodyMode, Shape};
use sinew::{Model, SkeletonInstance, Transform};
use sinew_mmd::{MmdModel, MmdReaderOptions};
use sinew_physics::{PhysicsOptions, Ragdoll};

use crate::commands::inspect::bad_input;
use crate::error::CliError;

/// Rigid-body physics for one MMD instance.
pub struct MmdPhysics {
    body: SkeletonInstance,
    ragdoll: Ragdoll,
    /// Per definition body: shape, size, simulated (not kinematic).
    shapes: Vec<(Shape, Vec3, bool)>,
    frame: u64,
    /// The model file, named in errors.
    path: PathBuf,
}

impl MmdPhysics {
    /// Builds the physics of `mmd` (its rigid bodies and joints). `path` names the model in
    /// errors.
    pub fn new(mmd: &MmdModel, path: &Path) -> Result<Self, CliError> {
        if mmd.rigid_bodies().is_empty() {
            return Err(bad_input(path, "--physics: the model has no rigid bodies"));
        }
        let (model, _) = mmd
            .to_physics_model(&MmdReaderOptions::default())
            .map_err(|e| bad_input(path, format!("physics table: {e}")))?;
        Self::from_model(&model, path, Vec3::new(0.0, -98.0, 0.0), 20.0)
    }

    /// Physics for a generic model whose dynamics hold a physics table.
    pub fn from_model(
        model: &Model,
        path: &Path,
        gravity: Vec3,
        teleport: f32,
    ) -> Result<Self, CliError> {
        let shapes = model
            .dynamics()
            .physics()
            .bodies()
            .iter()
            .map(|b| {
                let d = b.desc();
                let simulated = d.mode != BodyMode::Kinematic && d.mass > 0.0;
                (d.shape, d.size.abs(), simulated)
            })
            .collect();
        let body = SkeletonInstance::new(model);
        let options = PhysicsOptions {
            teleport_distance: teleport,
            ..PhysicsOptions::default()
        };
        let mut ragdoll =
            Ragdoll::new(model, options).map_err(|e| bad_input(path, format!("physics: {e}")))?;
        ragdoll.set_gravity(gravity);
        Ok(Self {
            body,
            ragdoll,
            shapes,
            frame: 0,
            path: path.to_path_buf(),
        })
    }

    /// The generic instance's animated input (skeleton order).
    pub fn input_mut(&mut self) -> &mut [Transform] {
        self.body.input_mut()
    }

    /// Steps the simulation by `dt` seconds from the current input; returns the simulated world
    /// pose in skeleton order.
    pub fn step(&mut self, dt: f32) -> Result<&[Affine3A], CliError> {
        let time = self.frame as f32 * dt;
        self.frame += 1;
        self.ragdoll
            .evaluate_physics_frame(&mut self.body, time, dt)
            .map_err(|e| match e {
                // Built here over this instance's skeleton: a mismatch is a bug.
                sinew_physics::PhysicsError::SkeletonMismatch => {
                    CliError::Internal(format!("physics step failed: {e}"))
                }
                // What the simulation met (e.g. too many bodies piling up): the model's.
                e => bad_input(&self.path, format!("physics: {e}")),
            })?;
        Ok(self.body.world())
    }

    /// Every body's outline, model space.
    pub fn bodies(&self) -> Vec<BodyOutline> {
        self.shapes
            .iter()
            .enumerate()
            .filter_map(|(i, &(shape, size, simulated))| {
                let (center, rotation) = self.ragdoll.body_pose(i)?;
                Some(BodyOutline {
                    shape,
                    size,
                    center,
                    rotation,
                    simulated,
                })
            })
            .collect()
    }
}

/// A rigid body as drawn: its shape at its simulated pose.
#[derive(Clone, Copy, Debug)]
pub struct BodyOutline {
    /// Sphere, box or capsule.
    pub shape: Shape,
    /// Radius (x) / half extents / radius and cylinder height (x, y), model units.
    pub size: Vec3,
    /// Centre, model space.
    pub center: Vec3,
    /// Orientation.
    pub rotation: Quat,
    /// Simulated (dynamic) rather than following its bone.
    pub simulated: bool,
}

impl BodyOutline {
    /// Radius of a sphere around the centre that holds the body.
    #[must_use]
    pub fn reach(&self) -> f32 {
        match self.shape {
            Shape::Sphere => self.size.x,
            Shape::Box => self.size.length(),
            Shape::Capsule => self.size.x + self.size.y * 0.5,
        }
    }
}
