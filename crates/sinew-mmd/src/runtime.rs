//! [`MmdInstance`]: one character's animated input (motion, bone morphs, IK toggles) and its
//! world matrices, evaluated by the generic `SkeletonInstance` over the reader's MMD
//! definitions ([`MmdSkeletonInstance`], one per mode used, built on first use and fed from
//! this input each frame). A model without a [`GenericGap`](crate::GenericGap) (every shared
//! asset) is evaluated in stages; one with gaps — or any model after
//! [`MmdInstance::set_bone_by_bone`] — bone by bone in MMD's order (the definitions carry it
//! as an [`EvaluationOrder`](sinew::dynamics::EvaluationOrder)), as babylon-mmd 1.3.0 (after
//! saba) evaluates:
//!
//! 1. every world matrix is reset to identity, IK and append state cleared;
//! 2. bones are visited in [`MmdModel::eval_order`] (deform layer, then file order; bones
//!    flagged "after physics" last). Each visit: animated rotation (a fixed-axis bone keeps
//!    only the rotation's angle about its axis) and translation → append (inherit) → IK
//!    rotation → `world = parent_world × local` (reading the parent's matrix *as it is then*: a
//!    child listed before its parent sees an identity parent, as in MMD) → if the bone owns an
//!    enabled IK, the IK is solved there and then;
//! 3. the IK is MMD's CCD (sinew-ik's one implementation, [`sinew::ik::ccd`]): per iteration
//!    each link turns about the axis between (link → effector) and (link → IK bone) by at
//!    most `limit_angle × (link index + 1)`; a link with angle limits uses the single limited
//!    axis (knees) for the first half of the iterations, Euler limits in the order YXZ / ZYX /
//!    XZY chosen by which axis stays within ±90°, reflected back into range during the first
//!    half and clamped after; the chain below the link is re-evaluated after every step.
//!
//! Both evaluations match babylon-mmd (the shared assets; 249 generated models:
//! `sinew-hostile/tests/babylon_generated.rs`). Rule sources: babylon-mmd `ikSolver.ts`,
//! `mmdRuntimeBone.ts`, `appendTransformSolver.ts` (MIT), which document their own debt to
//! saba's `MMDIkSolver.cpp`.

use std::sync::Arc;

use glam::{Affine3A, Quat, Vec3};

use crate::model::MmdModel;
use crate::MmdSkeletonInstance;

/// MMD's IK tolerance: an IK stops iterating once its effector is this close (model units) to
/// the IK bone, or already starts there (babylon-mmd, saba).
pub const MMD_IK_TOLERANCE: f32 = 1e-4;

/// What one evaluation applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalOptions {
    /// Apply append (grant) bones.
    pub append: bool,
    /// Solve IK.
    pub ik: bool,
}

impl EvalOptions {
    /// `0..8`, one per combination with the evaluation (staged, `bone_by_bone`): what the
    /// per-mode caches index by.
    pub(crate) const fn slot(self, bone_by_bone: bool) -> usize {
        (self.append as usize) | (self.ik as usize) << 1 | (bone_by_bone as usize) << 2
    }

    /// The conformance oracle's mode names: `fk` (animation only), `grant` (+ append), `ik`
    /// (+ IK), `full` (IK + append). `None` for any other name.
    #[must_use]
    pub fn from_mode(name: &str) -> Option<Self> {
        let (append, ik) = match name {
            "fk" => (false, false),
            "grant" => (true, false),
            "ik" => (false, true),
            "full" => (true, true),
            _ => return None,
        };
        Some(Self { append, ik })
    }
}

impl Default for EvalOptions {
    fn default() -> Self {
        Self {
            append: true,
            ik: true,
        }
    }
}

/// One character evaluated the MMD way. Holds the animated input (per file bone: translation
/// offset from rest and rotation), bone morphs, IK toggles, and the world matrices in file
/// order; evaluates through the generic `SkeletonInstance` (see the module docs).
#[derive(Clone, Debug)]
pub struct MmdInstance {
    model: Arc<MmdModel>,
    /// Animated translation offset from the rest position, per file bone (VMD/VPD "t").
    translation: Vec<Vec3>,
    /// Animated local rotation, per file bone (VMD/VPD "r").
    rotation: Vec<Quat>,
    ik_enabled: Vec<bool>,
    /// Physics is on: chains whose links are all simulated are not solved.
    physics_active: bool,
    world: Vec<Affine3A>,
    /// Whether pairs are solved in lockstep (see [`Self::set_lockstep`]).
    lockstep: bool,
    /// The caller's tolerance, if any (`None`: MMD's).
    ik_tolerance: Option<f32>,
    /// Morph weights as set, and after group expansion (one per model morph).
    morph_weights: Vec<f32>,
    morph_effective: Vec<f32>,
    /// Per bone: the bone morphs' translation offset and rotation (identity / zero when none);
    /// empty for a model without bone morphs.
    morph_translation: Vec<Vec3>,
    morph_rotation: Vec<Quat>,
    /// The generic instances evaluating this character, one per mode and evaluation (built on
    /// first use).
    generic: GenericSlot,
    /// Bone by bone whatever the model ([`Self::set_bone_by_bone`]).
    bone_by_bone: bool,
    /// The slot of the last evaluation's generic instance.
    last: Option<usize>,
}

impl MmdInstance {
    /// A new instance in rest pose, all IK enabled.
    #[must_use]
    pub fn new(model: Arc<MmdModel>) -> Self {
        let n = model.bones.len();
        let bone_morphs =
            (model.morphs.iter()).any(|m| matches!(m, crate::mesh::MmdMorph::Bone(_)));
        Self {
            translation: vec![Vec3::ZERO; n],
            rotation: vec![Quat::IDENTITY; n],
            ik_enabled: vec![true; n],
            physics_active: false,
            world: vec![Affine3A::IDENTITY; n],
            lockstep: true,
            ik_tolerance: None,
            morph_weights: vec![0.0; model.morphs.len()],
            morph_effective: vec![0.0; model.morphs.len()],
            morph_translation: vec![Vec3::ZERO; if bone_morphs { n } else { 0 }],
            morph_rotation: vec![Quat::IDENTITY; if bone_morphs { n } else { 0 }],
            generic: GenericSlot::default(),
            bone_by_bone: false,
            last: None,
            model,
        }
    }

    /// Evaluates bone by bone in MMD's order even where the staged evaluation expresses the
    /// model (which it otherwise uses: faster, the same result to f32 rounding). For
    /// comparisons; both match babylon-mmd.
    pub fn set_bone_by_bone(&mut self, on: bool) {
        self.bone_by_bone = on;
    }

    /// Whether the last evaluation ran bone by bone ([`Self::set_bone_by_bone`], or a model
    /// with [`GenericGap`](crate::GenericGap)s) rather than in stages.
    #[must_use]
    pub fn is_bone_by_bone(&self) -> bool {
        (self.last.and_then(|slot| self.generic.0[slot].as_ref()))
            .is_some_and(|g| g.is_bone_by_bone())
    }

    /// Bytes this instance holds on the heap in its own buffers (animated input, morphs,
    /// world), not the model or the definitions it shares with every other instance, nor the
    /// generic instances it evaluates through (measured with a counting allocator by the
    /// `mmd_instance_bytes` example).
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        fn bytes<T>(v: &Vec<T>) -> usize {
            v.capacity() * std::mem::size_of::<T>()
        }
        bytes(&self.translation)
            + bytes(&self.rotation)
            + bytes(&self.ik_enabled)
            + bytes(&self.world)
            + bytes(&self.morph_weights)
            + bytes(&self.morph_effective)
            + bytes(&self.morph_translation)
            + bytes(&self.morph_rotation)
            + std::mem::size_of::<Self>()
    }

    /// The model.
    #[must_use]
    pub fn model(&self) -> &Arc<MmdModel> {
        &self.model
    }

    /// Bones (the model's, in file order): the length of every per-bone slice here.
    #[must_use]
    pub fn bone_count(&self) -> usize {
        self.rotation.len()
    }

    /// Animated translation offsets from the rest position, per file bone (VMD/VPD "t").
    #[must_use]
    pub fn translations(&self) -> &[Vec3] {
        &self.translation
    }

    /// Animated translation offsets, writable (a slice: its length stays the model's).
    pub fn translations_mut(&mut self) -> &mut [Vec3] {
        &mut self.translation
    }

    /// Animated local rotations, per file bone (VMD/VPD "r").
    #[must_use]
    pub fn rotations(&self) -> &[Quat] {
        &self.rotation
    }

    /// Animated local rotations, writable (a slice: its length stays the model's).
    pub fn rotations_mut(&mut self) -> &mut [Quat] {
        &mut self.rotation
    }

    /// World (model-space) matrices in file order, from the last evaluation.
    #[must_use]
    pub fn world(&self) -> &[Affine3A] {
        &self.world
    }

    /// World matrices, writable: a physics step writes simulated bones here (file order)
    /// between [`Self::evaluate_before_physics`] and [`Self::evaluate_after_physics`].
    pub fn world_mut(&mut self) -> &mut [Affine3A] {
        &mut self.world
    }

    /// Sets every world matrix from sinew world matrices in skeleton order.
    ///
    /// # Panics
    /// If `world` is not the skeleton's length.
    pub fn set_world_from_skeleton_order(&mut self, world: &[Affine3A]) {
        self.model.world_to_file_order(world, &mut self.world);
    }

    /// Enables or disables the IK owned by bone `bone` (file index). Returns false when the
    /// bone owns no IK.
    pub fn set_ik_enabled(&mut self, bone: usize, enabled: bool) -> bool {
        match self.model.bones.get(bone) {
            Some(b) if b.ik.is_some() => {
                self.ik_enabled[bone] = enabled;
                true
            }
            _ => false,
        }
    }

    /// How every IK of this instance decides to stop iterating. `None` (the default) is MMD's
    /// and babylon-mmd's rule, which the conformance figures hold for: stop once the effector
    /// is within [`MMD_IK_TOLERANCE`] (1e-4 units) of the IK bone, or when an iteration leaves
    /// every IK rotation bit-identical (ending the limited-axis phase, then the solve).
    /// `Some(distance)` trades exactness for speed: stop once within `distance` (a reachable
    /// target then stops after a few iterations instead of going on toward 1e-4 units; one the
    /// chain cannot reach still runs every iteration, as in MMD). Returns false, changing
    /// nothing, unless `distance` is finite and positive.
    pub fn set_ik_tolerance(&mut self, tolerance: Option<f32>) -> bool {
        let valid = sinew::instance::IkDriver::is_valid_tolerance(tolerance);
        if valid {
            self.ik_tolerance = tolerance;
        }
        valid
    }

    /// The tolerance set by [`Self::set_ik_tolerance`] (`None`: MMD's rule).
    #[must_use]
    pub fn ik_tolerance(&self) -> Option<f32> {
        self.ik_tolerance
    }

    /// Tells the instance whether rigid-body physics runs after its before-physics pass. With
    /// physics on, an IK chain whose links all carry simulated rigid bodies is not solved, as
    /// in MMD and babylon-mmd (physics overwrites those links; a hair IK, e.g. miku_v2's
    /// 髪ＩＫ, would otherwise bend the simulated hair's starting pose toward its target).
    /// Default off.
    pub fn set_physics_active(&mut self, active: bool) {
        self.physics_active = active;
    }

    /// Whether [`Self::set_physics_active`] is on.
    #[must_use]
    pub fn physics_active(&self) -> bool {
        self.physics_active
    }

    /// Bone `i`'s animated local translation offset and rotation as MMD evaluates them: bone
    /// morphs applied, the rotation under the bone's fixed axis
    /// ([`MmdModel::fixed_axis_rotation`]).
    pub(crate) fn animated_input(&self, i: usize) -> (Vec3, Quat) {
        let rotation = self.model.fixed_axis_rotation(i, self.rotation[i]);
        match (self.morph_translation.get(i), self.morph_rotation.get(i)) {
            (Some(&t), Some(&r)) => (self.translation[i] + t, r * rotation),
            _ => (self.translation[i], rotation),
        }
    }

    /// Whether the IK owned by bone `i` is solved: enabled, and not a chain physics simulates
    /// while physics runs.
    pub(crate) fn ik_active(&self, i: usize) -> bool {
        self.ik_enabled[i] && !(self.physics_active && self.model.ik_is_simulated(i))
    }

    /// Whether the IK owned by `bone` is enabled (true for bones without IK).
    #[must_use]
    pub fn is_ik_enabled(&self, bone: usize) -> bool {
        self.ik_enabled.get(bone).copied().unwrap_or(true)
    }

    /// Resets the animated input to the rest pose.
    pub fn reset_pose(&mut self) {
        self.translation.fill(Vec3::ZERO);
        self.rotation.fill(Quat::IDENTITY);
    }

    /// Whether pairs of IK chains of the same shape that touch disjoint bones (a model's two
    /// legs, two hair strands), next to each other in the evaluation order, are solved in
    /// lockstep: each chain's CCD is a chain of dependent operations, and two at once keep the
    /// core busier. On by default; the results are bit-identical either way (off is for
    /// comparison). Bone by bone, a pair is solved so when the second chain's IK bone comes
    /// right after the first's in MMD's order.
    pub fn set_lockstep(&mut self, on: bool) {
        self.lockstep = on;
    }

    /// Evaluates every bone (before- and after-physics passes back to back, physics off).
    pub fn evaluate(&mut self, options: EvalOptions) {
        self.evaluate_pass(options, false);
    }

    /// Evaluates the part of the frame before a physics step: bone by bone, the bones not
    /// flagged "after physics" (those follow in [`Self::evaluate_after_physics`]); in stages,
    /// every bone (a plain after-physics bone follows its parent through the step).
    pub fn evaluate_before_physics(&mut self, options: EvalOptions) {
        self.evaluate_pass(options, true);
    }

    fn evaluate_pass(&mut self, options: EvalOptions, before_physics: bool) {
        let bone_by_bone = self.bone_by_bone || !self.model.evaluates_in_stages();
        let slot = options.slot(bone_by_bone);
        let generic = (self.generic.0[slot].take()).or_else(|| {
            MmdSkeletonInstance::without_world(&self.model, options, bone_by_bone).map(Box::new)
        });
        let Some(mut g) = generic else {
            // Definitions refused (never for a model this crate loaded): the rest pose.
            self.world.fill(Affine3A::IDENTITY);
            self.last = None;
            return;
        };
        g.set_lockstep(self.lockstep);
        let mut world = std::mem::take(&mut self.world);
        g.evaluate_into(self, &mut world, before_physics);
        self.world = world;
        self.generic.0[slot] = Some(g);
        self.last = Some(slot);
    }

    /// Evaluates the bones flagged "after physics" from the world matrices the step left
    /// ([`Self::set_world_from_skeleton_order`]); nothing to do after a staged evaluation.
    pub fn evaluate_after_physics(&mut self) {
        let Some(slot) = self.last else { return };
        if let Some(mut g) = self.generic.0[slot].take() {
            let mut world = std::mem::take(&mut self.world);
            g.after_physics_into(&mut world);
            self.world = world;
            self.generic.0[slot] = Some(g);
        }
    }

    /// Writes the evaluated pose into sinew local transforms (skeleton order):
    /// `local = parent_world⁻¹ × world`.
    ///
    /// # Panics
    /// If `locals` is not the skeleton's length.
    pub fn write_locals(&self, locals: &mut [sinew::Transform]) {
        self.model.locals_from_world(&self.world, locals);
    }

    /// Sets the morph weights (one per model morph, in [`MmdModel::morph_names`] order;
    /// missing entries count as 0, non-finite ones as 0). Group morphs are expanded and bone
    /// morphs applied to the animated pose of the next evaluation: translation `+= offset ·
    /// weight`, rotation `= slerp(identity, morph rotation, weight) · animated rotation`
    /// (babylon-mmd's order). No allocation.
    pub fn set_morph_weights(&mut self, weights: &[f32]) {
        for (i, w) in self.morph_weights.iter_mut().enumerate() {
            *w = weights
                .get(i)
                .copied()
                .filter(|w| w.is_finite())
                .unwrap_or(0.0);
        }
        crate::mesh::expand(
            &self.model.morphs,
            &self.morph_weights,
            &mut self.morph_effective,
        );
        self.morph_translation.fill(Vec3::ZERO);
        self.morph_rotation.fill(Quat::IDENTITY);
        for (m, &w) in self.model.morphs.iter().zip(&self.morph_effective) {
            if let (crate::mesh::MmdMorph::Bone(list), true) = (m, w != 0.0) {
                for b in list {
                    self.morph_translation[b.bone] += b.translation * w;
                    self.morph_rotation[b.bone] = self.morph_rotation[b.bone].slerp(b.rotation, w);
                }
            }
        }
    }

    /// The morph weights as last set.
    #[must_use]
    pub fn morph_weights(&self) -> &[f32] {
        &self.morph_weights
    }

    /// The morph weights after group expansion: what the mesh's vertex, UV and material morphs
    /// use ([`sinew_skin::Deformed::update`]).
    #[must_use]
    pub fn effective_morph_weights(&self) -> &[f32] {
        &self.morph_effective
    }

    /// Writes skinning matrices of the evaluated pose (see [`MmdModel::skin_matrices`]).
    ///
    /// # Panics
    /// If `out` is not one entry per bone.
    pub fn skin_matrices(&self, out: &mut [Affine3A]) {
        self.model.skin_matrices(&self.world, out);
    }
}

/// The generic instances an [`MmdInstance`] evaluates through, one per mode (append, IK) and
/// evaluation (staged, bone by bone) used, each built on first use.
#[derive(Clone, Debug, Default)]
struct GenericSlot([Option<Box<MmdSkeletonInstance>>; 8]);

#[cfg(test)]
mod tests {
    use super::EvalOptions;

    #[test]
    fn oracle_mode_names() {
        let m = |n| EvalOptions::from_mode(n).map(|o| (o.append, o.ik));
        assert_eq!(m("fk"), Some((false, false)));
        assert_eq!(m("grant"), Some((true, false)));
        assert_eq!(m("ik"), Some((false, true)));
        assert_eq!(m("full"), Some((true, true)));
        assert_eq!(m("both"), None);
        assert_eq!(EvalOptions::from_mode("full"), Some(EvalOptions::default()));
    }
}
