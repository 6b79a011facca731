//! One character's pose state.

use std::sync::Arc;

use glam::{Affine3A, DVec3, Vec3};

use super::{local_to_world, local_to_world_range, skin_matrices, RootPlacement};
use crate::{BoneId, Skeleton, Transform};

/// Mutable per-character state over a shared [`Skeleton`].
///
/// * `locals`: the current local transforms — the solver output every stage writes.
/// * `world`: retained world matrices, allocated on first use ([`Self::allocate_world`] or
///   [`Self::compute_world`]) and reused every frame; only
///   the `compute_*` methods evaluate them, reading ([`Self::world`]) or allocating never does.
/// * no blend scratch: [`crate::anim::blend`] accumulates
///   each bone's layers in registers and needs none.
/// * a [`RootPlacement`] in `f64` and a floating-origin anchor: world matrices are relative to
///   the anchor, so a character 10⁶ m from the origin keeps sub-millimetre precision.
#[derive(Clone, Debug)]
pub struct RigState {
    skeleton: Arc<Skeleton>,
    locals: Vec<Transform>,
    world: Vec<Affine3A>,
    placement: RootPlacement,
    origin: DVec3,
    /// `placement` relative to `origin`, kept up to date by the setters so evaluating the
    /// hierarchy does not rebuild it every frame.
    root: Affine3A,
}

impl RigState {
    /// Fresh state in rest pose, without validation (for trusted callers). Use [`bind`](crate::skeleton::bind) to validate another rig first.
    #[must_use]
    pub fn new(skeleton: Arc<Skeleton>) -> Self {
        let locals = skeleton.rest_pose().to_vec();
        Self {
            skeleton,
            locals,
            world: Vec::new(),
            placement: RootPlacement::IDENTITY,
            origin: DVec3::ZERO,
            root: RootPlacement::IDENTITY.to_affine_relative(DVec3::ZERO),
        }
    }

    /// The shared skeleton.
    #[must_use]
    pub fn skeleton(&self) -> &Arc<Skeleton> {
        &self.skeleton
    }

    /// Current local transforms, in bone order.
    #[must_use]
    pub fn locals(&self) -> &[Transform] {
        &self.locals
    }

    /// Current local transforms, writable. World matrices are stale until recomputed.
    pub fn locals_mut(&mut self) -> &mut [Transform] {
        &mut self.locals
    }

    /// One bone's local transform.
    #[must_use]
    pub fn local(&self, bone: BoneId) -> &Transform {
        &self.locals[bone.index()]
    }

    /// Sets one bone's local transform.
    pub fn set_local(&mut self, bone: BoneId, t: Transform) {
        self.locals[bone.index()] = t;
    }

    /// The root placement.
    #[must_use]
    pub fn placement(&self) -> &RootPlacement {
        &self.placement
    }

    /// Moves the character. World matrices are stale until recomputed.
    pub fn set_placement(&mut self, placement: RootPlacement) {
        self.placement = placement;
        self.root = placement.to_affine_relative(self.origin);
    }

    /// The floating-origin anchor, in world units (default zero).
    #[must_use]
    pub fn origin(&self) -> DVec3 {
        self.origin
    }

    /// Sets the floating-origin anchor: world matrices become relative to it.
    pub fn set_origin(&mut self, origin: DVec3) {
        self.origin = origin;
        self.root = self.placement.to_affine_relative(origin);
    }

    /// The root matrix every root bone hangs from: placement relative to the anchor.
    #[must_use]
    pub fn root_affine(&self) -> Affine3A {
        self.root
    }

    /// Allocates the retained world buffer if it is not there yet: idempotent, and it computes nothing — a new buffer holds
    /// identity matrices, an existing one is returned as it is (the last evaluation's
    /// matrices, or whatever the caller wrote). [`Self::compute_world`] evaluates into it.
    pub fn allocate_world(&mut self) -> &mut [Affine3A] {
        if self.world.len() != self.locals.len() {
            self.world = vec![Affine3A::IDENTITY; self.locals.len()];
        }
        &mut self.world
    }

    /// The world matrices from the last evaluation, or `None` before the buffer exists. Reading
    /// evaluates nothing: after the locals change they are stale until a `compute_*` call.
    #[must_use]
    pub fn world(&self) -> Option<&[Affine3A]> {
        (!self.world.is_empty()).then_some(self.world.as_slice())
    }

    /// Evaluates the whole hierarchy into the retained world buffer and returns it.
    ///
    /// Bones are visited in the skeleton's depth-first order, where a bone's parent is most
    /// often the bone just evaluated; the vectorised kernel then takes the parent from registers.
    pub fn compute_world(&mut self) -> &[Affine3A] {
        self.allocate_world();
        local_to_world(
            self.skeleton.parent_indices(),
            &self.locals,
            &self.root,
            &mut self.world,
        );
        &self.world
    }

    /// Evaluates the runs `[from, to)` of the hierarchy (in order) into the retained world
    /// buffer, allocating it if needed: what the staged evaluation's plan runs.
    pub(crate) fn compute_world_runs(&mut self, runs: &[(usize, usize)]) {
        self.allocate_world();
        crate::instance::evaluate_runs(
            &self.skeleton,
            &self.locals,
            &self.root,
            &mut self.world,
            runs,
        );
    }

    /// Re-evaluates the subtree under `bone` (inclusive), reading its parent's world matrix
    /// from the buffer. Call after changing locals inside that subtree only.
    pub fn compute_world_subtree(&mut self, bone: BoneId) {
        if self.world.len() != self.locals.len() {
            self.compute_world();
            return;
        }
        let end = self.skeleton.subtree_end(bone);
        local_to_world_range(
            self.skeleton.parent_indices(),
            &self.locals,
            &self.root,
            &mut self.world,
            bone.index(),
            end,
        );
    }

    /// A bone's world position in full `f64` world coordinates (anchor added back).
    ///
    /// # Panics
    /// If the world buffer was never computed.
    #[must_use]
    pub fn world_position_f64(&self, bone: BoneId) -> DVec3 {
        self.origin + Vec3::from(self.world[bone.index()].translation).as_dvec3()
    }

    /// Writes skinning matrices (`world × inverse bind`) into `out`.
    ///
    /// # Panics
    /// If the world buffer was never computed or `out` has the wrong length.
    pub fn skin_matrices(&self, out: &mut [Affine3A]) {
        assert!(!self.world.is_empty(), "compute_world first");
        skin_matrices(&self.world, self.skeleton.inverse_bind(), out);
    }
}
