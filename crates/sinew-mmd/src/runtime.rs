//! MMD's own frame evaluation, bone by bone, as babylon-mmd 1.3.0 (after saba) does it.
//!
//! One frame ([`MmdInstance::evaluate`]):
//!
//! 1. every world matrix is reset to identity, IK and append state cleared;
//! 2. bones are visited in [`MmdModel::eval_order`] (deform layer, then file order; bones
//!    flagged "after physics" last). Each visit: animated rotation (a fixed-axis bone keeps
//!    only the rotation's angle about its axis) and translation → append (inherit) → IK
//!    rotation → `world = parent_world × local` (reading the parent's matrix *as it is then*: a
//!    child listed before its parent sees an identity parent, as in MMD) → if the bone owns an
//!    enabled IK, the IK is solved there and then;
//! 3. the IK is MMD's CCD: per iteration each link turns about the axis between
//!    (link → effector) and (link → IK bone) by at most `limit_angle × (link index + 1)`; a
//!    link with angle limits uses the single limited axis (knees) for the first half of the
//!    iterations, Euler limits in the order YXZ / ZYX / XZY chosen by which axis stays within
//!    ±90°, reflected back into range during the first half and clamped after; the chain
//!    below the link is re-evaluated after every step.
//!
//! How sinew computes the same thing faster (results equal up to f32 rounding; 76 frames of
//! the wavefile dance stay within 2.4e-4 units of babylon-mmd in every mode):
//! - on a chain whose bones hang from one another (every MMD leg, hair and skirt chain), the
//!   path base link → effector is kept as rotation + position. A sweep goes from the
//!   effector toward the base, so each link still to come is an ancestor of the ones turned
//!   and keeps its pose: only the effector is carried through the sweep (turned with the
//!   link; a free link's whole shortest arc simply puts it on the line to the IK bone at its
//!   own distance), and the path is re-evaluated from the local rotations once per iteration
//!   (so rounding does not accumulate);
//! - a link free about one axis (knees) is limited from the half-angle identities
//!   (`axis_limit.rs`) rather than `atan2` + `sin_cos`;
//! - an iteration that leaves every IK rotation bit-identical ends its phase;
//! - two chains of one shape touching disjoint bones (legs, hair strands) are solved in
//!   lockstep, bit-identically ([`MmdInstance::set_lockstep`], `runtime/lockstep.rs`).
//!
//! What the evaluation derives from the model alone (orders, children, IK paths, link data,
//! lockstep partners) is an [`MmdPlan`] computed once per model and shared by its instances
//! (`runtime/plan.rs`); an instance holds only per-character buffers ([`MmdInstance::heap_bytes`]:
//! 30.6 KB for miku_v2, was ≈ 75 KB with a private copy of the plan and scratch sized to the
//! bone count).
//!
//! Rule sources: babylon-mmd `ikSolver.ts`, `mmdRuntimeBone.ts`, `appendTransformSolver.ts`
//! (MIT), which document their own debt to saba's `MMDIkSolver.cpp`.

use std::sync::Arc;

use glam::{Affine3A, Mat3, Mat3A, Quat, Vec3, Vec3A};

use crate::axis_limit::AxisLimit;
use crate::model::{MmdIk, MmdIkLink, MmdModel};

mod lockstep;
mod plan;

pub use plan::MmdPlan;

/// What one evaluation applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalOptions {
    /// Apply append (grant) bones.
    pub append: bool,
    /// Solve IK.
    pub ik: bool,
}

impl EvalOptions {
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SolveAxis {
    None,
    Fixed,
    X,
    Y,
    Z,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EulerOrder {
    Yxz,
    Zyx,
    Xzy,
}

/// Per-link solver data derived once from the limits.
#[derive(Clone, Copy, Debug, PartialEq)]
struct LinkInfo {
    axis: SolveAxis,
    order: EulerOrder,
    /// `cos` of this link's step cap (`|limit_angle| × (index + 1)`), or `-2` when the cap
    /// is at least π and never binds.
    cap_cos: f32,
    /// `(sin, cos)` of half the cap: the step quaternion when the cap binds.
    cap_half: (f32, f32),
    /// Per axis X, Y, Z: limited to `[0, 0]` (that Euler angle is always 0).
    zero: [bool; 3],
    /// One free axis whose Euler angle is an `atan2` of two matrix entries in this order,
    /// with its range in `[−π, π]`: limited without trigonometry (see [`AxisLimit`]).
    single: Option<SingleAxis>,
}

/// The free axis of a one-axis limit and the matrix entries `(a, b)` of its angle
/// `atan2(a, b)`: column, row of each.
#[derive(Clone, Copy, Debug, PartialEq)]
struct SingleAxis {
    axis: usize,
    a: (usize, usize),
    b: (usize, usize),
    limit: AxisLimit,
}

impl SingleAxis {
    fn new(order: EulerOrder, zero: [bool; 3], min: Vec3, max: Vec3) -> Option<Self> {
        let axis = match zero {
            [false, true, true] => 0,
            [true, false, true] => 1,
            [true, true, false] => 2,
            _ => return None,
        };
        // The decomposition's `atan2` arguments (columns x, y, z = 0, 1, 2); the middle
        // angle of each order is an `asin` and keeps the general path.
        let (a, b) = match (order, axis) {
            (EulerOrder::Yxz, 1) => ((2, 0), (2, 2)),
            (EulerOrder::Yxz, 2) => ((0, 1), (1, 1)),
            (EulerOrder::Zyx, 0) => ((1, 2), (2, 2)),
            (EulerOrder::Zyx, 2) => ((0, 1), (0, 0)),
            (EulerOrder::Xzy, 0) => ((1, 2), (1, 1)),
            (EulerOrder::Xzy, 1) => ((2, 0), (0, 0)),
            _ => return None,
        };
        Some(Self {
            axis,
            a,
            b,
            limit: AxisLimit::new(min[axis], max[axis])?,
        })
    }

    /// A step's `turned` IK rotation limited: `(IK rotation, local rotation)`, where the
    /// local rotation (IK rotation × the animated one, `animated`) keeps only its free angle,
    /// limited.
    #[inline(always)]
    fn apply(&self, turned: Quat, animated: Quat, reflect: bool) -> (Quat, Quat) {
        let local = self.limited(turned * animated, reflect);
        (local * animated.inverse(), local)
    }

    /// The limited rotation of `q` (its free angle limited, the others zero).
    fn limited(&self, q: Quat, reflect: bool) -> Quat {
        let m = Mat3::from_quat(q);
        let entry = |(c, r): (usize, usize)| m.col(c)[r];
        let (cos, sin) = self.limit.limit(entry(self.a), entry(self.b), reflect);
        let v = Vec3::AXES[self.axis] * sin;
        Quat::from_xyzw(v.x, v.y, v.z, cos)
    }
}

fn link_info(link: &MmdIkLink, unit_angle: f32, index: usize) -> LinkInfo {
    // A negative limit in a file would turn links backwards; its magnitude is meant.
    let cap = unit_angle.abs() * (index as f32 + 1.0);
    let cap_cos = if cap < std::f32::consts::PI {
        cap.cos()
    } else {
        -2.0
    };
    let cap_half = (cap * 0.5).sin_cos();
    let Some((min, max)) = link.limit else {
        return LinkInfo {
            axis: SolveAxis::None,
            order: EulerOrder::Xzy,
            cap_cos,
            cap_half,
            zero: [false; 3],
            single: None,
        };
    };
    let half_pi = std::f32::consts::FRAC_PI_2;
    let order = if -half_pi < min.x && max.x < half_pi {
        EulerOrder::Yxz
    } else if -half_pi < min.y && max.y < half_pi {
        EulerOrder::Zyx
    } else {
        EulerOrder::Xzy
    };
    let zero = |a: f32, b: f32| a == 0.0 && b == 0.0;
    let (x, y, z) = (zero(min.x, max.x), zero(min.y, max.y), zero(min.z, max.z));
    let axis = if x && y && z {
        SolveAxis::Fixed
    } else if y && z {
        SolveAxis::X
    } else if x && z {
        SolveAxis::Y
    } else if x && y {
        SolveAxis::Z
    } else {
        SolveAxis::None
    };
    LinkInfo {
        axis,
        order,
        cap_cos,
        cap_half,
        zero: [x, y, z],
        single: SingleAxis::new(order, [x, y, z], min, max),
    }
}

/// babylon-mmd's `limitAngle`: below `min`, reflected about it when `use_axis` and the
/// reflection does not pass `max`, else `min`; above `max` likewise.
pub(crate) fn limit_angle(angle: f32, min: f32, max: f32, use_axis: bool) -> f32 {
    if angle < min {
        let diff = 2.0 * min - angle;
        if diff <= max && use_axis {
            diff
        } else {
            min
        }
    } else if angle > max {
        let diff = 2.0 * max - angle;
        if diff >= min && use_axis {
            diff
        } else {
            max
        }
    } else {
        angle
    }
}

/// What a CCD step needs of the directions from a link to the effector (`a`) and to the IK
/// bone (`b`): `axis = â × b̂` (|axis| = sin θ), `dot = â · b̂` (clamped to [−1, 1]) and
/// `ratio = |a| / |b|`, all from one square root and one division (`1 / (|a|·|b|)`) rather
/// than a normalisation of each: square roots and divisions are what a chain of steps waits
/// on. `None` when either vector is zero (or the product leaves the float range): the link
/// does not turn, as babylon-mmd's zero axis.
#[derive(Clone, Copy, Debug)]
struct Directions {
    axis: Vec3A,
    dot: f32,
    ratio: f32,
}

impl Directions {
    #[inline(always)]
    fn new(a: Vec3A, b: Vec3A) -> Option<Self> {
        let (aa, bb) = (a.length_squared(), b.length_squared());
        let r = (aa * bb).sqrt().recip();
        (r.is_finite() && r > 0.0).then(|| Self {
            axis: a.cross(b) * r,
            dot: (a.dot(b) * r).clamp(-1.0, 1.0),
            ratio: aa * r,
        })
    }
}

/// Rotation + position of a bone (local or world).
type Pose = (Quat, Vec3A);

/// `parent ∘ local` for rotation + position poses.
#[inline(always)]
fn compose((pr, pp): Pose, (lr, lp): Pose) -> Pose {
    (pr * lr, pp + pr * lp)
}

/// The effector (relative to nothing: a position) after the link at `link` (world pose before
/// the step, hanging from `parent`) takes the local rotation `local`. `arc` is
/// `Some((link − IK bone, |link → effector| / |link → IK bone|))` for a free link's whole
/// shortest arc, which puts the effector on the line to the IK bone at its own distance.
#[inline(always)]
fn carried_effector(
    (rotation, position): Pose,
    parent: Quat,
    local: Quat,
    effector: Vec3A,
    arc: Option<(Vec3A, f32)>,
) -> Vec3A {
    match arc {
        Some((from_ik, ratio)) => position - from_ik * ratio,
        None => {
            let offset = rotation.conjugate() * (effector - position);
            position + (parent * local) * offset
        }
    }
}

/// The iteration after `it` (in a loop whose first `half` iterations use the limited axis),
/// or `None` when the loop ends: an iteration that left every IK rotation bit-identical
/// (`unchanged`) will do so again until the phase changes, so the rest of the phase is
/// skipped without changing the result.
#[inline(always)]
fn next_iteration(it: u32, half: u32, unchanged: bool) -> Option<u32> {
    match (unchanged, it < half) {
        (true, true) => Some(half),
        (true, false) => None,
        (false, _) => Some(it + 1),
    }
}

/// A link's CCD step: `min(cap, θ)` about the axis, θ the angle between the unit directions
/// (link → effector, link → IK bone) whose cross product is `axis` and dot product `dot`;
/// `local_axis` is `axis` in the link's parent frame. With `on_axis` (a limited link in the
/// first half) the turn is about the link's single limited axis, signed as `local_axis`.
///
/// Its half-angle sine and cosine come from the precomputed cap, or from sin θ = |axis| and
/// cos θ by the half-angle identities, each where it is well conditioned. A free turn within
/// the cap and under 90° is `(local_axis / (2·cos θ/2), cos θ/2)`: `|local_axis| = sin θ`, so
/// the axis needs no normalising.
#[inline(always)]
fn step_rotation(info: &LinkInfo, on_axis: bool, axis: Vec3A, local_axis: Vec3A, dot: f32) -> Quat {
    let signed = |unit: Vec3A, component: f32| if component >= 0.0 { unit } else { -unit };
    let fixed = match info.axis {
        SolveAxis::X if on_axis => Some(signed(Vec3A::X, local_axis.x)),
        SolveAxis::Y if on_axis => Some(signed(Vec3A::Y, local_axis.y)),
        SolveAxis::Z if on_axis => Some(signed(Vec3A::Z, local_axis.z)),
        _ => None,
    };
    let (v, cos) = if dot < info.cap_cos {
        let (sin, cos) = info.cap_half;
        (fixed.unwrap_or_else(|| local_axis.normalize()) * sin, cos)
    } else if dot >= 0.0 {
        let cos = ((1.0 + dot) * 0.5).sqrt();
        match fixed {
            Some(unit) => (unit * (axis.length() / (2.0 * cos)), cos),
            None => (local_axis / (2.0 * cos), cos),
        }
    } else {
        let sin = ((1.0 - dot) * 0.5).sqrt();
        let unit = fixed.unwrap_or_else(|| local_axis.normalize());
        (unit * sin, axis.length() / (2.0 * sin))
    };
    Quat::from_xyzw(v.x, v.y, v.z, cos)
}

/// One character evaluated the MMD way. Holds the animated input (per file bone: translation
/// offset from rest and rotation), IK toggles, and the world matrices in file order.
#[derive(Clone, Debug)]
pub struct MmdInstance {
    model: Arc<MmdModel>,
    /// What the evaluation derives from the model alone (shared by its instances).
    plan: Arc<MmdPlan>,
    /// Animated translation offset from the rest position, per file bone (VMD/VPD "t").
    translation: Vec<Vec3>,
    /// Animated local rotation, per file bone (VMD/VPD "r").
    rotation: Vec<Quat>,
    ik_enabled: Vec<bool>,
    /// Physics is on: chains whose links are all simulated are not solved.
    physics_active: bool,
    world: Vec<Affine3A>,
    ik_rotation: Vec<Quat>,
    chain_rotation: Vec<Quat>,
    chain_position: Vec<Vec3>,
    append_rotation: Vec<Quat>,
    append_position: Vec<Vec3>,
    has_append_rotation: Vec<bool>,
    has_append_position: Vec<bool>,
    stack: Vec<usize>,
    ik_snapshot: Vec<Quat>,
    /// The IK path as rotation + position during the iterations (see `solve_ik`).
    path: PathPose,
    /// Whether pairs are solved in lockstep (see [`Self::set_lockstep`]).
    lockstep: bool,
    /// Per bone: its IK was solved with its partner's earlier in this evaluation.
    solved_early: Vec<bool>,
    /// Lockstep path poses (entry-major, lanes interleaved).
    lane_local: Vec<Pose>,
    lane_world: Vec<Pose>,
    options: EvalOptions,
    /// Morph weights as set, and after group expansion (one per model morph).
    morph_weights: Vec<f32>,
    morph_effective: Vec<f32>,
    /// Per bone: the bone morphs' translation offset and rotation (identity / zero when none).
    morph_translation: Vec<Vec3>,
    morph_rotation: Vec<Quat>,
    /// IK solves in progress (an IK whose effector has IK solves that one inside its own). The
    /// loader already refuses nesting deeper than [`crate::validate::MAX_IK_NESTING`]; this
    /// keeps the recursion bounded by construction.
    ik_nesting: usize,
}

/// An IK path (base link … effector) as local and world rotation + position, parent first,
/// hanging from `base_parent`. During the CCD iterations only these positions and rotations
/// are read, and composing quaternions costs about half of composing matrices; the bones'
/// world matrices are rebuilt from the final IK rotations afterwards.
#[derive(Clone, Debug, Default)]
struct PathPose {
    active: bool,
    /// The first entry whose world pose is stale (`usize::MAX`: none): a link's step
    /// changes its own local rotation; its descendants are brought up to date once per
    /// iteration, before the next sweep reads them.
    stale: usize,
    base_parent: Pose,
    local: Vec<Pose>,
    world: Vec<Pose>,
}

impl PathPose {
    /// Recomposes the world rotation and position of path entries `from..`.
    fn refresh(&mut self, from: usize) {
        for k in from..self.local.len() {
            let (pr, pp) = if k == 0 {
                self.base_parent
            } else {
                self.world[k - 1]
            };
            self.world[k] = compose((pr, pp), self.local[k]);
        }
    }
}

impl MmdInstance {
    /// A new instance in rest pose, all IK enabled.
    #[must_use]
    pub fn new(model: Arc<MmdModel>) -> Self {
        let n = model.bones.len();
        let plan = Arc::clone(model.plan());
        let (path, links) = (plan.max_path, plan.max_links);
        Self {
            translation: vec![Vec3::ZERO; n],
            rotation: vec![Quat::IDENTITY; n],
            ik_enabled: vec![true; n],
            physics_active: false,
            world: vec![Affine3A::IDENTITY; n],
            ik_rotation: vec![Quat::IDENTITY; n],
            chain_rotation: vec![Quat::IDENTITY; n],
            chain_position: vec![Vec3::ZERO; n],
            append_rotation: vec![Quat::IDENTITY; n],
            append_position: vec![Vec3::ZERO; n],
            has_append_rotation: vec![false; n],
            has_append_position: vec![false; n],
            stack: Vec::with_capacity(n),
            ik_snapshot: Vec::with_capacity(links),
            lockstep: true,
            solved_early: vec![false; n],
            lane_local: Vec::with_capacity(lockstep::LANES * path),
            lane_world: Vec::with_capacity(lockstep::LANES * path),
            path: PathPose {
                local: Vec::with_capacity(path),
                world: Vec::with_capacity(path),
                ..PathPose::default()
            },
            options: EvalOptions::default(),
            morph_weights: vec![0.0; model.morphs.len()],
            morph_effective: vec![0.0; model.morphs.len()],
            morph_translation: vec![Vec3::ZERO; n],
            morph_rotation: vec![Quat::IDENTITY; n],
            ik_nesting: 0,
            plan,
            model,
        }
    }

    /// Bytes this instance holds on the heap: its per-character buffers, not the model or
    /// the plan it shares with every other instance ([`MmdPlan::heap_bytes`]).
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        fn bytes<T>(v: &Vec<T>) -> usize {
            v.capacity() * std::mem::size_of::<T>()
        }
        bytes(&self.translation)
            + bytes(&self.rotation)
            + bytes(&self.ik_enabled)
            + bytes(&self.world)
            + bytes(&self.ik_rotation)
            + bytes(&self.chain_rotation)
            + bytes(&self.chain_position)
            + bytes(&self.append_rotation)
            + bytes(&self.append_position)
            + bytes(&self.has_append_rotation)
            + bytes(&self.has_append_position)
            + bytes(&self.stack)
            + bytes(&self.ik_snapshot)
            + bytes(&self.path.local)
            + bytes(&self.path.world)
            + bytes(&self.solved_early)
            + bytes(&self.lane_local)
            + bytes(&self.lane_world)
            + bytes(&self.morph_weights)
            + bytes(&self.morph_effective)
            + bytes(&self.morph_translation)
            + bytes(&self.morph_rotation)
            + std::mem::size_of::<Self>()
    }

    /// The evaluation plan this instance shares with every instance of its model.
    #[must_use]
    pub fn plan(&self) -> &Arc<MmdPlan> {
        &self.plan
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
        let s = &self.model.skeleton;
        assert_eq!(world.len(), s.len());
        for i in 0..self.world.len() {
            if let Some(id) = s.from_source_index(i) {
                self.world[i] = world[id.index()];
            }
        }
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

    /// Whether the IK owned by bone `i` is solved this evaluation.
    fn ik_active(&self, i: usize) -> bool {
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
    /// comparison).
    pub fn set_lockstep(&mut self, on: bool) {
        self.lockstep = on;
    }

    /// Evaluates every bone (before- and after-physics passes back to back, physics off).
    pub fn evaluate(&mut self, options: EvalOptions) {
        self.evaluate_before_physics(options);
        self.evaluate_after_physics();
    }

    /// Resets and evaluates the bones that are not "after physics".
    pub fn evaluate_before_physics(&mut self, options: EvalOptions) {
        self.options = options;
        self.world.fill(Affine3A::IDENTITY);
        self.ik_rotation.fill(Quat::IDENTITY);
        self.chain_rotation.fill(Quat::IDENTITY);
        self.chain_position.fill(Vec3::ZERO);
        self.append_rotation.fill(Quat::IDENTITY);
        self.append_position.fill(Vec3::ZERO);
        self.solved_early.fill(false);
        let plan = Arc::clone(&self.plan);
        let order = &plan.before_physics;
        for &i in order.iter() {
            self.update_world(i, true);
        }
    }

    /// Evaluates the bones flagged "after physics" (call after physics wrote the others).
    pub fn evaluate_after_physics(&mut self) {
        let plan = Arc::clone(&self.plan);
        let order = &plan.after_physics;
        for &i in order.iter() {
            self.update_world(i, true);
        }
    }

    /// Writes the evaluated pose into sinew local transforms (skeleton order):
    /// `local = parent_world⁻¹ × world`.
    ///
    /// # Panics
    /// If `locals` is not the skeleton's length.
    pub fn write_locals(&self, locals: &mut [sinew::Transform]) {
        let s = &self.model.skeleton;
        assert_eq!(locals.len(), s.len());
        for (i, b) in self.model.bones.iter().enumerate() {
            let local = match b.parent {
                Some(p) => self.world[p].inverse() * self.world[i],
                None => self.world[i],
            };
            if let (Some(id), Some(t)) = (
                s.from_source_index(i),
                sinew::Transform::try_from_affine(&local),
            ) {
                locals[id.index()] = t;
            }
        }
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

    /// The animated translation offset of bone `i` with its bone morphs.
    fn animated_translation(&self, i: usize) -> Vec3 {
        self.translation[i] + self.morph_translation[i]
    }

    fn animated_rotation(&self, i: usize) -> Quat {
        self.morph_rotation[i] * self.fixed_axis_rotation(i)
    }

    fn fixed_axis_rotation(&self, i: usize) -> Quat {
        let q = self.rotation[i];
        match self.model.bones[i].fixed_axis {
            None => q,
            Some(axis) if axis == Vec3::ZERO => Quat::IDENTITY,
            Some(axis) => {
                let (anim_axis, angle) = axis_angle(q);
                let angle = if anim_axis.dot(axis) < 0.0 {
                    -angle
                } else {
                    angle
                };
                Quat::from_axis_angle(axis, angle)
            }
        }
    }

    fn update_world(&mut self, i: usize, compute_ik: bool) {
        let mut rotation = self.animated_rotation(i);
        let mut position = self.animated_translation(i);
        let (append, has_ik) = {
            let bone = &self.model.bones[i];
            (bone.append, bone.ik.is_some())
        };
        if self.options.append {
            if let Some(a) = append {
                let src = a.source;
                if a.rotation {
                    let mut q = if a.local {
                        Quat::from_mat3a(&orthonormal(&self.world[src].matrix3))
                    } else if self.has_append_rotation[src] {
                        self.append_rotation[src]
                    } else {
                        self.animated_rotation(src)
                    };
                    if self.plan.is_chain[src] && !a.local {
                        q = self.ik_rotation[src] * q;
                    }
                    if a.ratio != 1.0 {
                        q = Quat::IDENTITY.slerp(q, a.ratio);
                    }
                    rotation *= q;
                    self.append_rotation[i] = rotation;
                    self.has_append_rotation[i] = true;
                }
                if a.translation {
                    let mut p = if a.local {
                        let src_pos = Vec3A::from(self.model.bones[src].position);
                        Vec3::from(self.world[src].translation - self.world[src].matrix3 * src_pos)
                    } else if self.has_append_position[src] {
                        self.append_position[src]
                    } else {
                        self.animated_translation(src)
                    };
                    if a.ratio != 1.0 {
                        p *= a.ratio;
                    }
                    position += p;
                    self.append_position[i] = position;
                    self.has_append_position[i] = true;
                }
            }
        }
        if self.plan.is_chain[i] {
            self.chain_rotation[i] = rotation;
            self.chain_position[i] = position;
            rotation = self.ik_rotation[i] * rotation;
        }
        self.set_world(i, rotation, position);
        if compute_ik && self.options.ik && has_ik && self.ik_active(i) {
            if self.solved_early[i] {
                self.solved_early[i] = false;
            } else if let Some(partner) =
                self.plan.partner[i].filter(|&p| self.lockstep && self.ik_active(p))
            {
                // The partner comes next in the evaluation order and reads nothing this
                // chain writes: evaluate it now and solve both.
                self.update_world(partner, false);
                self.solved_early[partner] = true;
                self.solve_lockstep([i, partner]);
            } else {
                self.solve_ik(i);
            }
        }
    }

    fn set_world(&mut self, i: usize, rotation: Quat, position: Vec3) {
        let bone = &self.model.bones[i];
        let local = Affine3A::from_rotation_translation(rotation, bone.rest_offset + position);
        self.world[i] = match bone.parent {
            Some(p) => self.world[p] * local,
            None => local,
        };
    }

    fn update_ik_chain_world(&mut self, b: usize) {
        let rotation = self.ik_rotation[b] * self.chain_rotation[b];
        self.set_world(b, rotation, self.chain_position[b]);
        self.stack.clear();
        self.stack.extend(self.plan.children[b].iter().copied());
        while let Some(c) = self.stack.pop() {
            self.update_world(c, false);
            let n = self.plan.children[c].len();
            for k in 0..n {
                let cc = self.plan.children[c][k];
                self.stack.push(cc);
            }
        }
    }

    fn position(&self, i: usize) -> Vec3 {
        self.world[i].translation.into()
    }

    fn solve_ik(&mut self, owner: usize) {
        let model = Arc::clone(&self.model);
        let Some(ik) = &model.bones[owner].ik else {
            return;
        };
        if self.ik_nesting >= crate::validate::MAX_IK_NESTING {
            return;
        }
        self.ik_nesting += 1;
        let begun = self.begin_ik(owner, ik);
        self.ik_nesting -= 1;
        let Some((ik_position, mut target)) = begun else {
            return;
        };
        self.begin_path(owner);
        let plan = Arc::clone(&self.plan);
        let infos = &plan.link_info;
        let infos = &infos[owner];
        let half = ik.iterations >> 1;
        let mut it = 0;
        while it < ik.iterations {
            if self.path.stale != usize::MAX {
                // The effector as the new local rotations place it (the turned one carried
                // through the sweep is the same up to rounding, which is not let accumulate).
                let from = self.path.stale;
                self.path.refresh(from);
                self.path.stale = usize::MAX;
                target = Vec3::from(self.path.world[self.path.world.len() - 1].1);
            }
            self.ik_snapshot.clear();
            self.ik_snapshot
                .extend(ik.links.iter().map(|l| self.ik_rotation[l.bone]));
            for (ci, link) in ik.links.iter().enumerate() {
                let info = &infos[ci];
                if info.axis != SolveAxis::Fixed {
                    self.solve_link(
                        owner,
                        &ik.links,
                        ik.effector,
                        ci,
                        link,
                        info,
                        ik_position,
                        &mut target,
                        it < half,
                    );
                }
            }
            if ik_position.distance_squared(target) < 1e-8 {
                break;
            }
            let unchanged = ik
                .links
                .iter()
                .zip(&self.ik_snapshot)
                .all(|(l, q)| self.ik_rotation[l.bone] == *q);
            match next_iteration(it, half, unchanged) {
                Some(next) => it = next,
                None => break,
            }
        }
        self.path.active = false;
        if !self.plan.ik_path[owner].is_empty() {
            // During the iterations only the path to the effector was kept up to date; bring
            // the rest of the base link's subtree to the final state (what updating it after
            // every step, as babylon-mmd does, leaves behind).
            let base = ik.links[ik.links.len() - 1].bone;
            self.update_ik_chain_world(base);
        }
    }

    /// Before the iterations: resets the links' IK rotations and evaluates the chain without
    /// IK. Returns the IK bone's and the effector's positions, or `None` when the effector
    /// already stands at the IK bone (nothing to solve).
    fn begin_ik(&mut self, owner: usize, ik: &MmdIk) -> Option<(Vec3, Vec3)> {
        for l in &ik.links {
            self.ik_rotation[l.bone] = Quat::IDENTITY;
        }
        let ik_position = self.position(owner);
        self.update_world(ik.effector, true);
        let target = self.position(ik.effector);
        if ik_position.distance_squared(target) < 1e-8 {
            return None;
        }
        for l in ik.links.iter().rev() {
            self.update_world(l.bone, false);
        }
        self.update_world(ik.effector, false);
        let target = self.position(ik.effector);
        if ik_position.distance_squared(target) < 1e-8 {
            return None;
        }
        Some((ik_position, target))
    }

    /// Path entry `p`'s local pose as the iterations start (its current IK rotation).
    fn path_local(&self, p: usize) -> Pose {
        let bone = &self.model.bones[p];
        if self.plan.is_chain[p] {
            (
                self.ik_rotation[p] * self.chain_rotation[p],
                Vec3A::from(bone.rest_offset + self.chain_position[p]),
            )
        } else {
            (
                self.animated_rotation(p),
                Vec3A::from(bone.rest_offset + self.animated_translation(p)),
            )
        }
    }

    /// The world pose `owner`'s IK path hangs from (its first bone's parent; scale taken off).
    fn path_base(&self, owner: usize) -> Pose {
        match self.model.bones[self.plan.ik_path[owner][0]].parent {
            Some(p) => {
                let m = &self.world[p];
                (Quat::from_mat3a(&orthonormal(&m.matrix3)), m.translation)
            }
            None => (Quat::IDENTITY, Vec3A::ZERO),
        }
    }

    /// Loads `owner`'s IK path into [`PathPose`] when every bone on it is plain (no append:
    /// its local transform changes only through its own IK rotation).
    fn begin_path(&mut self, owner: usize) {
        let path = &self.plan.ik_path[owner];
        self.path.active = !path.is_empty() && self.plan.path_plain[owner];
        self.path.stale = usize::MAX;
        if !self.path.active {
            return;
        }
        self.path.base_parent = self.path_base(owner);
        self.path.local.clear();
        self.path.world.clear();
        for k in 0..self.plan.ik_path[owner].len() {
            let local = self.path_local(self.plan.ik_path[owner][k]);
            self.path.local.push(local);
            self.path.world.push(local);
        }
        self.path.refresh(0);
    }

    #[allow(clippy::too_many_arguments)]
    fn solve_link(
        &mut self,
        owner: usize,
        links: &[MmdIkLink],
        effector: usize,
        ci: usize,
        link: &MmdIkLink,
        info: &LinkInfo,
        ik_position: Vec3,
        target: &mut Vec3,
        use_axis: bool,
    ) {
        let b = link.bone;
        let k = self.plan.link_in_path[owner].get(ci).copied().unwrap_or(0);
        let chain_position = if self.path.active {
            self.path.world[k].1
        } else {
            self.world[b].translation
        };
        let from_ik = chain_position - Vec3A::from(ik_position);
        let Some(link_step) = Directions::new(chain_position - Vec3A::from(*target), from_ik)
        else {
            return;
        };
        let axis = link_step.axis;
        if axis.length_squared() < 1e-8 {
            return;
        }
        // The parent's world rotation on a plain path, and the axis in the link's parent frame.
        let path_parent = self.path.active.then(|| {
            if k == 0 {
                self.path.base_parent.0
            } else {
                self.path.world[k - 1].0
            }
        });
        let local_axis = match path_parent {
            Some(parent) => parent.conjugate() * axis,
            None => match self.model.bones[b].parent {
                Some(p) => self.world[p].matrix3.transpose() * axis,
                None => axis,
            },
        };
        let dot = link_step.dot;
        let step = step_rotation(
            info,
            link.limit.is_some() && use_axis,
            axis,
            local_axis,
            dot,
        );
        self.ik_rotation[b] = step * self.ik_rotation[b];
        let mut limited_local = None;
        if let (Some(single), Some(_)) = (&info.single, link.limit) {
            let (ik_rotation, local) =
                single.apply(self.ik_rotation[b], self.chain_rotation[b], use_axis);
            self.ik_rotation[b] = ik_rotation;
            limited_local = Some(local);
        } else if let Some((min, max)) = link.limit {
            let q = self.ik_rotation[b] * self.chain_rotation[b];
            let m = Mat3::from_quat(q);
            let threshold = 88.0f32.to_radians();
            let clamp88 = |a: f32| a.clamp(-threshold, threshold);
            // Decompose in the link's Euler order (the middle angle kept within ±88°), limit
            // every angle, rebuild in the same order. An axis limited to [0, 0] contributes
            // the identity whatever its angle, so it is not decomposed.
            let [fx, fy, fz] = info.zero.map(|z| !z);
            // Only the free axes are decomposed (same formulas, same results).
            fn angle_if(free: bool, angle: impl FnOnce() -> f32) -> f32 {
                if free {
                    angle()
                } else {
                    0.0
                }
            }
            let asin88 = |v: f32| clamp88((-v).clamp(-1.0, 1.0).asin());
            let (rx, ry, rz) = match info.order {
                EulerOrder::Yxz => (
                    angle_if(fx, || asin88(m.z_axis.y)),
                    angle_if(fy, || m.z_axis.x.atan2(m.z_axis.z)),
                    angle_if(fz, || m.x_axis.y.atan2(m.y_axis.y)),
                ),
                EulerOrder::Zyx => (
                    angle_if(fx, || m.y_axis.z.atan2(m.z_axis.z)),
                    angle_if(fy, || asin88(m.x_axis.z)),
                    angle_if(fz, || m.x_axis.y.atan2(m.x_axis.x)),
                ),
                EulerOrder::Xzy => (
                    angle_if(fx, || m.y_axis.z.atan2(m.y_axis.y)),
                    angle_if(fy, || m.z_axis.x.atan2(m.x_axis.x)),
                    angle_if(fz, || asin88(m.y_axis.x)),
                ),
            };
            let turn = |free: bool, a: f32, lo: f32, hi: f32, f: fn(f32) -> Quat| {
                if free {
                    f(limit_angle(a, lo, hi, use_axis))
                } else {
                    Quat::IDENTITY
                }
            };
            let (qx, qy, qz) = (
                turn(fx, rx, min.x, max.x, Quat::from_rotation_x),
                turn(fy, ry, min.y, max.y, Quat::from_rotation_y),
                turn(fz, rz, min.z, max.z, Quat::from_rotation_z),
            );
            let rebuilt = match info.order {
                EulerOrder::Yxz => qy * qx * qz,
                EulerOrder::Zyx => qz * qy * qx,
                EulerOrder::Xzy => qx * qz * qy,
            };
            self.ik_rotation[b] = rebuilt * self.chain_rotation[b].inverse();
        }
        if let Some(parent) = path_parent {
            // Within an iteration the sweep goes from the effector toward the base, so the
            // links still to come are this one's ancestors and keep their poses: only the
            // effector is needed, turned with this link from where it stands.
            let local =
                limited_local.unwrap_or_else(|| self.ik_rotation[b] * self.chain_rotation[b]);
            self.path.local[k].0 = local;
            self.path.stale = self.path.stale.min(k);
            let arc =
                (link.limit.is_none() && dot >= info.cap_cos).then_some((from_ik, link_step.ratio));
            let effector = Vec3A::from(*target);
            *target = Vec3::from(carried_effector(
                self.path.world[k],
                parent,
                local,
                effector,
                arc,
            ));
            return;
        }
        if self.plan.ik_path[owner].is_empty() {
            // Links not on one parent path (malformed file): babylon-mmd's full refresh.
            for k in (0..=ci).rev() {
                self.update_ik_chain_world(links[k].bone);
            }
            self.update_world(effector, false);
        } else {
            // A path with append bones: only the bones between this link and the effector
            // feed the next step (the path ends at the effector, so this refreshes it too).
            let rotation = self.ik_rotation[b] * self.chain_rotation[b];
            self.set_world(b, rotation, self.chain_position[b]);
            for k in self.plan.link_in_path[owner][ci] + 1..self.plan.ik_path[owner].len() {
                self.update_world(self.plan.ik_path[owner][k], false);
            }
        }
        *target = self.position(effector);
    }
}

/// Axis and angle of a unit quaternion (babylon's QuaternionToAxisAngle: angle in [0, 2π)).
/// The angle is `2·atan2(|v|, w)` rather than `2·acos(w)`: the same value, but accurate in f32
/// for small angles (babylon-mmd computes in f64).
fn axis_angle(q: Quat) -> (Vec3, f32) {
    let q = q.normalize();
    let s = Vec3::new(q.x, q.y, q.z).length();
    let angle = 2.0 * s.atan2(q.w);
    if s < 1e-6 {
        (Vec3::X, angle)
    } else {
        (Vec3::new(q.x, q.y, q.z) / s, angle)
    }
}

/// The rotation part of a matrix with any scale removed.
fn orthonormal(m: &Mat3A) -> Mat3A {
    Mat3A::from_cols(
        m.x_axis.normalize_or_zero(),
        m.y_axis.normalize_or_zero(),
        m.z_axis.normalize_or_zero(),
    )
}

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
