//! [`Character`]: one character of a [`CharacterModel`] — its motions, morphs, IK targets and
//! toggles, props, physics and skinned meshes — and its frame, in the skeleton's one bone
//! order:
//!
//! ```text
//!  mixer: sample + blend the layers at t ──▶ animated input (absolute locals) + morph weights
//!  MMD input rules (fixed axes, bone morphs), IK switches (motion keys, then the caller's)
//!  SkeletonInstance: pose constraints → hierarchy → IK (stages as switched)
//!  props (anchor + limbs) ─▶ physics (Ragdoll: drive, step, writeback by the model's rule)
//!  world matrices ─▶ skinning matrices ─▶ morphed, skinned vertices (on request)
//! ```

use std::sync::Arc;

use glam::{Affine3A, Vec3};
use sinew::anim::Ease;
use sinew::instance::Stages;
use sinew::{BoneId, SkeletonInstance, Writeback};
use sinew_mmd::MmdInput;
use sinew_physics::{FrameReport, Ragdoll};
use sinew_props::PropsRig;
use sinew_skin::{Deformed, SkinMode};

use crate::chain_profile::chain_profile;
use crate::mesh::MeshState;
use crate::mixer::{LayerId, Mixer};
use crate::model::{CharacterModel, PhysicsSettings};
use crate::motion::Motion;
use crate::CharacterError;

mod frame;
pub(crate) use frame::{run_block, PhysicsStage};

/// A ragdoll and whether it runs.
#[derive(Debug)]
struct Physics {
    ragdoll: Ragdoll,
    enabled: bool,
}

/// One character (see the module docs): everything a player needs for it, over a shared
/// [`CharacterModel`].
///
/// Every per-bone slice in and out is in the skeleton's order ([`CharacterModel::skeleton`]);
/// file indices appear only through [`CharacterModel::bone_of_source`]. World matrices are in
/// the character's evaluation space: the model's space under the root placement, relative to
/// the floating-origin anchor ([`SkeletonInstance::origin`]) — MMD units and MMD's
/// left-handed axes for MMD models, the glTF scene root's space for glTF models.
#[derive(Debug)]
pub struct Character {
    model: Arc<CharacterModel>,
    instance: SkeletonInstance,
    mixer: Mixer,
    mmd_input: Option<MmdInput>,
    /// Morph weights: as the motions sample them, the caller's overrides, the two combined,
    /// and after MMD's group expansion (what meshes and bone morphs use).
    motion_morphs: Vec<f32>,
    overrides: Vec<Option<f32>>,
    morphs: Vec<f32>,
    effective: Vec<f32>,
    physics: Option<Physics>,
    props: Option<PropsRig>,
    /// Per mesh: its skinning matrices and deformed vertices (allocated by the first
    /// [`Character::skin`]: a character nobody skins holds no vertex buffers).
    meshes: Vec<MeshState>,
    skin_mode: SkinMode,
    /// The meshes hold the current pose's vertices.
    skinned: bool,
    time: f32,
    /// The clock `advance` moves, in seconds: kept in `f64` so that it keeps moving at any
    /// time (an `f32` stops taking steps of 1/60 s past about 2^18 s); `time` is its nearest
    /// `f32`.
    clock: f64,
    /// A frame has been evaluated.
    evaluated: bool,
    /// The writeback of the frame being evaluated (decided by its input stage; `None`: no
    /// physics stage).
    writeback: Option<Writeback>,
}

impl Character {
    /// A character of `model` in its rest pose (no motion, physics off, every IK on).
    #[must_use]
    pub fn new(model: &Arc<CharacterModel>) -> Self {
        let instance = SkeletonInstance::new(model.model());
        let morphs = model.morph_names().len();
        Self {
            mmd_input: model.mmd().map(|(_, d)| MmdInput::new(d)),
            instance,
            mixer: Mixer::new(),
            motion_morphs: vec![0.0; morphs],
            overrides: vec![None; morphs],
            morphs: model.default_morph_weights().to_vec(),
            effective: model.default_morph_weights().to_vec(),
            physics: None,
            props: None,
            meshes: Vec::new(),
            skin_mode: SkinMode::Linear,
            skinned: false,
            time: 0.0,
            clock: 0.0,
            evaluated: false,
            writeback: None,
            model: Arc::clone(model),
        }
    }

    /// The model.
    #[must_use]
    pub fn model(&self) -> &Arc<CharacterModel> {
        &self.model
    }

    // ----- motions -----

    /// Plays `motion` alone from the current time (replacing every layer), at full weight.
    pub fn play(&mut self, motion: &Motion) {
        self.mixer.clear();
        self.add_layer(motion, 1.0);
    }

    /// Adds `motion` as a layer starting at the current time with constant `weight` (clamped
    /// to `[0, 1]`). `None` when [`MAX_LAYERS`](crate::MAX_LAYERS) layers play already.
    pub fn add_layer(&mut self, motion: &Motion, weight: f32) -> Option<LayerId> {
        let weight = if weight.is_finite() {
            weight.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let dynamics = Arc::clone(self.model.model().dynamics());
        self.mixer.add(
            motion,
            self.model.binding(motion.clip()),
            self.model.morph_names().len(),
            |name| dynamics.chain_index(name),
            self.time,
            weight,
        )
    }

    /// Cross-fades to `motion` over `seconds`: it starts now at weight 0 and rises to 1 while
    /// every other layer falls to 0 and is then removed. Returns the new layer (`None` when
    /// the mixer is full).
    pub fn cross_fade(&mut self, motion: &Motion, seconds: f32, ease: Ease) -> Option<LayerId> {
        let seconds = if seconds.is_finite() {
            seconds.max(0.0)
        } else {
            0.0
        };
        let others: Vec<LayerId> = self.mixer.layers(self.time).map(|(id, _, _)| id).collect();
        let id = self.add_layer(motion, 0.0)?;
        for other in others {
            self.mixer.fade(other, self.time, seconds, 0.0, ease, true);
        }
        self.mixer.fade(id, self.time, seconds, 1.0, ease, false);
        Some(id)
    }

    /// Fades layer `layer` from its current weight to `weight` over `seconds`. False for an
    /// unknown layer.
    pub fn fade_layer(&mut self, layer: LayerId, weight: f32, seconds: f32, ease: Ease) -> bool {
        let w = if weight.is_finite() {
            weight.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let s = if seconds.is_finite() {
            seconds.max(0.0)
        } else {
            0.0
        };
        self.mixer.fade(layer, self.time, s, w, ease, false)
    }

    /// Removes a layer. False for an unknown layer.
    pub fn remove_layer(&mut self, layer: LayerId) -> bool {
        self.mixer.remove(layer)
    }

    /// Stops every motion (the character returns to its rest pose).
    pub fn stop(&mut self) {
        self.mixer.clear();
    }

    /// The layers playing: id, motion, weight now.
    pub fn layers(&self) -> impl Iterator<Item = (LayerId, &Motion, f32)> {
        self.mixer.layers(self.time)
    }

    /// The names of layer `layer`'s motion that match nothing in the model: bones, morphs.
    #[must_use]
    pub fn unmatched(&self, layer: LayerId) -> Option<(&[String], &[String])> {
        self.mixer.unmatched(layer)
    }

    /// When the longest motion playing ends (character time, seconds).
    #[must_use]
    pub fn end_time(&self) -> f32 {
        self.mixer.end()
    }

    // ----- time -----

    /// The time of the last evaluated frame, seconds.
    #[must_use]
    pub fn time(&self) -> f32 {
        self.time
    }

    /// The time of the last evaluated frame, seconds, as the character's `f64` clock keeps it:
    /// [`Self::advance`] moves it by every `dt`, however long the character has played.
    #[must_use]
    pub fn clock(&self) -> f64 {
        self.clock
    }

    /// Advances `dt` seconds and evaluates the frame there (physics steps what `dt` pays for).
    ///
    /// # Errors
    /// [`CharacterError::Invalid`] for a `dt` that is negative or not finite; a physics or
    /// props failure.
    pub fn advance(&mut self, dt: f32) -> Result<(), CharacterError> {
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(CharacterError::invalid("dt", "finite and >= 0", dt));
        }
        let t = self.clock + f64::from(dt);
        self.update(t as f32, dt)?;
        self.clock = t;
        Ok(())
    }

    /// Moves the clock forward to `time`, evaluating the frames on the way in steps of at most
    /// `max_step` seconds, so physics sees every step (the last step is what is left). Without
    /// physics nothing depends on the path, so `time` is evaluated once. A character with no
    /// frame yet evaluates time 0 first (the bodies start from its pose).
    ///
    /// # Errors
    /// [`CharacterError::Invalid`] for a `time` that is not finite or lies before the clock,
    /// or a `max_step` that is not finite and positive; as [`Self::update`].
    pub fn advance_to(&mut self, time: f64, max_step: f64) -> Result<(), CharacterError> {
        self.advance_toward(time, max_step, u64::MAX).map(|_| ())
    }

    /// [`Self::advance_to`], stopping after at most `max_steps` steps: true when the clock
    /// reached `time`. A host that must stay responsive (checking for an interrupt, drawing a
    /// progress bar) calls it in a loop; the steps are those of one [`Self::advance_to`].
    ///
    /// # Errors
    /// As [`Self::advance_to`].
    pub fn advance_toward(
        &mut self,
        time: f64,
        max_step: f64,
        max_steps: u64,
    ) -> Result<bool, CharacterError> {
        if !time.is_finite() {
            return Err(CharacterError::invalid("time", "finite", time));
        }
        if !(max_step.is_finite() && max_step > 0.0) {
            return Err(CharacterError::invalid(
                "max_step",
                "finite and > 0",
                max_step,
            ));
        }
        if !self.evaluated {
            self.update(0.0, 0.0)?;
        }
        let mut now = self.clock;
        if time < now {
            return Err(CharacterError::invalid(
                "time",
                "not before the character's clock",
                time,
            ));
        }
        let step = if self.is_physics_enabled() {
            max_step
        } else {
            f64::INFINITY
        };
        let mut steps = 0;
        while now < time {
            if steps == max_steps {
                return Ok(false);
            }
            let next = (now + step).min(time);
            self.update(next as f32, (next - now) as f32)?;
            self.clock = next;
            now = next;
            steps += 1;
        }
        Ok(true)
    }

    /// Jumps to `time` and evaluates the frame there; simulated bodies start again from the
    /// pose there (no drag across the jump).
    ///
    /// # Errors
    /// As [`Self::advance`].
    pub fn seek(&mut self, time: f32) -> Result<(), CharacterError> {
        if let Some(p) = &mut self.physics {
            p.ragdoll.reset();
        }
        self.update(time, 0.0)
    }

    /// Evaluates the frame at `time`, `dt` seconds after the previous one: what
    /// [`Self::advance`] and [`Self::seek`] run. Physics steps the fixed steps `dt` pays for;
    /// a `time` more than one step before the last re-seeds the bodies.
    ///
    /// # Errors
    /// [`CharacterError::Invalid`] for a time or `dt` that is not finite (or a negative `dt`);
    /// [`CharacterError::Physics`] when the simulation fails (bodies piling past the contact
    /// bound); [`CharacterError::Props`].
    pub fn update(&mut self, time: f32, dt: f32) -> Result<(), CharacterError> {
        run_block(
            std::slice::from_mut(self),
            &[time],
            PhysicsStage::Ragdoll(dt),
        )
    }

    /// Evaluates the frame at `time` with a physics step of the host's own (another engine, a
    /// stand-in, a recorded simulation) instead of the character's ragdoll: `step` gets the
    /// world matrices the part before physics left (the skeleton's order; bones the
    /// definitions order after physics not yet evaluated) and writes the simulated ones in
    /// place, as [`sinew_physics::Writeback::World`] does; the bones ordered after physics are
    /// evaluated from there.
    ///
    /// # Errors
    /// As [`Self::update`].
    pub fn update_with(
        &mut self,
        time: f32,
        step: impl FnOnce(&mut [Affine3A]),
    ) -> Result<(), CharacterError> {
        let mut step = Some(step);
        let mut host = |_: usize, world: &mut [Affine3A]| {
            if let Some(step) = step.take() {
                step(world);
            }
        };
        run_block(
            std::slice::from_mut(self),
            &[time],
            PhysicsStage::Host(&mut host),
        )
    }

    /// The animated input of the frame at `time`: motions sampled and blended, morph weights,
    /// MMD's input rules, IK toggles.
    fn apply_input(&mut self, time: f32) {
        let rest = self.model.skeleton().rest_pose();
        self.motion_morphs
            .copy_from_slice(self.model.default_morph_weights());
        let ik_key = self.mixer.sample(
            time,
            rest,
            self.instance.input_mut(),
            &mut self.motion_morphs,
        );
        for ((m, &sampled), o) in self
            .morphs
            .iter_mut()
            .zip(&self.motion_morphs)
            .zip(&self.overrides)
        {
            *m = o.unwrap_or(sampled);
        }
        match self.model.mmd() {
            Some((mmd, definitions)) => {
                mmd.expand_morph_weights(&self.morphs, &mut self.effective);
                if let Some(input) = &mut self.mmd_input {
                    input.set_morph_weights(definitions, &self.effective);
                    input.apply(definitions, self.instance.input_mut());
                }
            }
            None => self.effective.copy_from_slice(&self.morphs),
        }
        // The motion's IK switches (the caller's toggles, in the instance, win over them).
        if !self.model.model().dynamics().ik_chains().is_empty() {
            self.instance.reset_ik_keyed();
            if let Some(key) = ik_key {
                for (c, on) in self.mixer.ik_states(key) {
                    self.instance.set_ik_keyed(c, on);
                }
            }
        }
    }

    // ----- morphs -----

    /// The morph weights of the last frame, one per [`CharacterModel::morph_names`] entry,
    /// after MMD's group expansion (what the meshes and bone morphs used).
    #[must_use]
    pub fn morph_weights(&self) -> &[f32] {
        &self.effective
    }

    /// Holds morph `morph` at `weight` whatever the motions key (`None`: as they key it).
    /// Takes effect at the next frame.
    ///
    /// # Errors
    /// [`CharacterError::Unknown`] for an index past the morphs, [`CharacterError::Invalid`]
    /// for a weight that is not finite.
    pub fn set_morph_weight(
        &mut self,
        morph: usize,
        weight: Option<f32>,
    ) -> Result<(), CharacterError> {
        if let Some(w) = weight.filter(|w| !w.is_finite()) {
            return Err(CharacterError::invalid("a morph weight", "finite", w));
        }
        let slot = self
            .overrides
            .get_mut(morph)
            .ok_or_else(|| CharacterError::Unknown {
                what: "morph",
                name: morph.to_string(),
            })?;
        *slot = weight;
        Ok(())
    }

    /// The index of the morph named `name`.
    #[must_use]
    pub fn morph_index(&self, name: &str) -> Option<usize> {
        self.model.morph_names().iter().position(|n| n == name)
    }

    // ----- IK -----

    fn chain(&self, chain: &str) -> Result<usize, CharacterError> {
        self.model
            .model()
            .dynamics()
            .chain_index(chain)
            .ok_or_else(|| CharacterError::Unknown {
                what: "IK chain",
                name: chain.to_owned(),
            })
    }

    /// The IK chains' names, in definition order (MMD: the IK bones' names).
    pub fn ik_chains(&self) -> impl Iterator<Item = &str> {
        self.model
            .model()
            .dynamics()
            .ik_chains()
            .iter()
            .map(|c| c.name())
    }

    /// Sets a persistent IK target: chain `chain` reaches for `world` (evaluation space),
    /// blended from its controller by `weight` in `[0, 1]`.
    ///
    /// # Errors
    /// [`CharacterError::Unknown`] for an unknown chain; [`CharacterError::Instance`] for a
    /// non-finite target or a weight outside `[0, 1]`.
    pub fn set_ik_target(
        &mut self,
        chain: &str,
        world: Vec3,
        weight: f32,
    ) -> Result<(), CharacterError> {
        self.chain(chain)?;
        self.instance.set_ik_target(chain, world, weight)?;
        Ok(())
    }

    /// Clears chain `chain`'s persistent target. False when it had none.
    pub fn clear_ik_target(&mut self, chain: &str) -> bool {
        self.instance.clear_ik_target(chain)
    }

    /// Switches chain `chain` on or off whatever the motions key (`None`: as they key it, on
    /// by default).
    ///
    /// # Errors
    /// [`CharacterError::Unknown`] for an unknown chain.
    pub fn set_ik_enabled(
        &mut self,
        chain: &str,
        enabled: Option<bool>,
    ) -> Result<(), CharacterError> {
        let c = self.chain(chain)?;
        self.instance.set_ik_enabled_by_index(c, enabled);
        Ok(())
    }

    /// Which stages run (pose constraints, IK): the MMD modes fk / grant / ik / full are
    /// [`Stages::from_mode`].
    pub fn set_stages(&mut self, stages: Stages) {
        self.instance.set_stages(stages);
    }

    /// The instance the character evaluates through: goals, the arbiter, IK tolerance, the
    /// root placement and floating origin, IK toggles (the caller's; the motion's keys are
    /// written each frame, and the caller's win), solve results.
    #[must_use]
    pub fn instance(&self) -> &SkeletonInstance {
        &self.instance
    }

    /// The instance, writable (see [`Self::instance`]).
    pub fn instance_mut(&mut self) -> &mut SkeletonInstance {
        &mut self.instance
    }

    // ----- props -----

    /// Gives the character a props rig (anchors and limbs solved after IK, before physics).
    pub fn set_props(&mut self, props: Option<PropsRig>) {
        self.props = props;
    }

    /// The props rig.
    #[must_use]
    pub fn props(&self) -> Option<&PropsRig> {
        self.props.as_ref()
    }

    /// The props rig, writable (hold, release, place props).
    pub fn props_mut(&mut self) -> Option<&mut PropsRig> {
        self.props.as_mut()
    }

    // ----- physics -----

    /// Turns physics on with the model's settings ([`CharacterModel::physics_settings`]),
    /// building the ragdoll on first use; bodies start at the next frame's pose.
    ///
    /// # Errors
    /// [`CharacterError::NoBodies`] for a model without rigid bodies; a
    /// [`CharacterError::Physics`] the table or settings are refused with (a candidate table
    /// without a profile, say).
    pub fn enable_physics(&mut self) -> Result<(), CharacterError> {
        match &mut self.physics {
            Some(p) => {
                if !p.enabled {
                    p.ragdoll.reset();
                    p.enabled = true;
                }
                self.instance.set_physics_active(true);
                Ok(())
            }
            None => {
                let settings = self.model.physics_settings().clone();
                self.enable_physics_with(&settings)
            }
        }
    }

    /// Turns physics on with `settings` (a profile for a candidate table, other units, another
    /// step rate), replacing any ragdoll.
    ///
    /// # Errors
    /// As [`Self::enable_physics`].
    pub fn enable_physics_with(
        &mut self,
        settings: &PhysicsSettings,
    ) -> Result<(), CharacterError> {
        if self.model.model().dynamics().physics().bodies().is_empty() {
            return Err(CharacterError::NoBodies);
        }
        let mut ragdoll = Ragdoll::new(self.model.model(), settings.options.clone())?;
        ragdoll.set_gravity(settings.gravity);
        self.physics = Some(Physics {
            ragdoll,
            enabled: true,
        });
        self.instance.set_physics_active(true);
        Ok(())
    }

    /// Turns physics on for any model that has rigid bodies: a table of its own (MMD) as
    /// [`Self::enable_physics`]; a candidate table (a glTF reader's, which needs a profile)
    /// with the subtrees of `roots` hanging under physics ([`chain_profile`]; `roots` empty:
    /// the chains named like hair, tail, skirt, …).
    ///
    /// # Errors
    /// [`CharacterError::NoBodies`]; [`CharacterError::WrongKind`] for `roots` on a model
    /// with a table of its own; what [`chain_profile`] refuses.
    pub fn enable_physics_on_chains(&mut self, roots: &[String]) -> Result<(), CharacterError> {
        let model = Arc::clone(&self.model);
        let table = model.model().dynamics().physics();
        if table.bodies().is_empty() {
            return Err(CharacterError::NoBodies);
        }
        if !table.profile_required() {
            if !roots.is_empty() {
                return Err(CharacterError::WrongKind(
                    "the model simulates its own physics table; dynamic chains are for candidate tables (glTF)".to_owned(),
                ));
            }
            return self.enable_physics();
        }
        let mut settings = model.physics_settings().clone();
        settings.options.profile = Some(chain_profile(&model, roots)?);
        self.enable_physics_with(&settings)
    }

    /// Turns physics off (bones follow the animation again); the ragdoll is kept, and
    /// re-seeded at the pose when physics comes back on.
    pub fn disable_physics(&mut self) {
        if let Some(p) = &mut self.physics {
            p.enabled = false;
        }
        self.instance.set_physics_active(false);
    }

    /// Whether physics runs.
    #[must_use]
    pub fn is_physics_enabled(&self) -> bool {
        self.physics.as_ref().is_some_and(|p| p.enabled)
    }

    /// Re-seeds every body at the next frame's animated pose, at rest.
    pub fn reset_physics(&mut self) {
        if let Some(p) = &mut self.physics {
            p.ragdoll.reset();
        }
    }

    /// The ragdoll (bodies, report), once physics has been enabled.
    #[must_use]
    pub fn ragdoll(&self) -> Option<&Ragdoll> {
        self.physics.as_ref().map(|p| &p.ragdoll)
    }

    /// The ragdoll, writable (gravity, velocities, placing bodies).
    pub fn ragdoll_mut(&mut self) -> Option<&mut Ragdoll> {
        self.physics.as_mut().map(|p| &mut p.ragdoll)
    }

    /// The last physics frame's report (steps, resets, bad bodies), when physics ran.
    #[must_use]
    pub fn physics_report(&self) -> Option<&FrameReport> {
        self.physics
            .as_ref()
            .filter(|p| p.enabled)
            .map(|p| p.ragdoll.last_report())
    }

    // ----- outputs -----

    /// World matrices of the last frame, one per bone in the skeleton's order, in the
    /// character's evaluation space (see the type docs). The rest pose before the first frame.
    #[must_use]
    pub fn world(&self) -> &[Affine3A] {
        match self.instance.state().world() {
            Some(w) if self.evaluated => w,
            _ => self.model.skeleton().rest_world(),
        }
    }

    /// The world matrix of one bone (see [`Self::world`]).
    #[must_use]
    pub fn bone_world(&self, bone: BoneId) -> Option<Affine3A> {
        self.world().get(bone.index()).copied()
    }

    /// Skinning matrices (`world × inverse bind`, one per skeleton bone) into `out`.
    ///
    /// # Panics
    /// If `out` is not one matrix per bone.
    pub fn skin_matrices(&self, out: &mut [Affine3A]) {
        sinew::pose::skin_matrices(self.world(), self.model.skeleton().inverse_bind(), out);
    }

    /// How linear vertices are skinned (default [`SkinMode::Linear`]).
    pub fn set_skin_mode(&mut self, mode: SkinMode) {
        if mode != self.skin_mode {
            self.skin_mode = mode;
            self.skinned = false;
        }
    }

    /// Morphs and skins every mesh for the last frame (nothing to do when they hold it).
    ///
    /// # Errors
    /// [`CharacterError::Skin`] when a mesh's skin does not fit its buffers (never for a
    /// model read by sinew).
    pub fn skin(&mut self) -> Result<(), CharacterError> {
        if self.skinned {
            return Ok(());
        }
        if self.meshes.is_empty() {
            self.meshes = self.model.meshes().iter().map(MeshState::new).collect();
        }
        let world = match self.instance.state().world() {
            Some(w) if self.evaluated => w,
            _ => self.model.skeleton().rest_world(),
        };
        for (state, mesh) in self.meshes.iter_mut().zip(self.model.meshes()) {
            state.update(mesh, world, &self.effective, self.skin_mode)?;
        }
        self.skinned = true;
        Ok(())
    }

    /// Mesh `mesh`'s morphed, skinned vertices for the last frame ([`Self::skin`] first when
    /// they are not current).
    ///
    /// # Errors
    /// [`CharacterError::Unknown`] for a mesh index past the model's meshes; as
    /// [`Self::skin`].
    pub fn skinned_mesh(&mut self, mesh: usize) -> Result<&Deformed, CharacterError> {
        if mesh >= self.model.meshes().len() {
            return Err(CharacterError::Unknown {
                what: "mesh",
                name: mesh.to_string(),
            });
        }
        self.skin()?;
        Ok(self.meshes[mesh].deformed())
    }

    /// Mesh `mesh`'s skinning matrices of the last [`Self::skin`] (one per skin joint; `None`
    /// before the first).
    #[must_use]
    pub fn mesh_matrices(&self, mesh: usize) -> Option<&[Affine3A]> {
        self.meshes.get(mesh).map(MeshState::matrices)
    }

    /// Bytes this character holds on the heap in its own buffers (not the shared model):
    /// the instance's pose buffers, morphs, MMD input, deformed meshes once skinned. The
    /// mixer's caches and the ragdoll's rapier world are not counted.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        let n = self.model.skeleton().len();
        let t = std::mem::size_of::<sinew::Transform>();
        let a = std::mem::size_of::<Affine3A>();
        // Input, output locals, world.
        let instance = n * (2 * t + a);
        instance
            + (self.motion_morphs.capacity() + self.morphs.capacity() + self.effective.capacity())
                * 4
            + self.overrides.capacity() * std::mem::size_of::<Option<f32>>()
            + self.mmd_input.as_ref().map_or(0, MmdInput::heap_bytes)
            + self.meshes.iter().map(MeshState::heap_bytes).sum::<usize>()
            + std::mem::size_of::<Self>()
    }
}
