//! Load-time checks of everything the MMD evaluation trusts, so that no file that loads can
//! crash, hang or poison an evaluation. Each defect is either refused ([`MmdError`]) or repaired
//! in a documented way and reported in [`MmdModel::warnings`](crate::MmdModel::warnings):
//!
//! | defect | outcome |
//! |---|---|
//! | parent cycle | the cycle's lowest-index bone becomes a root (warning) |
//! | non-finite bone position, or a coordinate beyond ±[`MAX_COORDINATE`] | [`MmdError::OutOfRange`] |
//! | append ratio non-finite or beyond ±[`MAX_APPEND_RATIO`] | append ignored (warning) |
//! | append cycle (a bone inheriting, through others, from itself) | the lowest-index bone's append ignored (warning) |
//! | fixed axis non-finite | fixed axis ignored (warning) |
//! | IK effector is the IK bone itself | IK ignored (warning) |
//! | IK link that is the IK bone, or not an ancestor of the effector | link dropped (warning); no link left: IK ignored |
//! | IK limit angle or link limits non-finite | IK ignored (warning) |
//! | IK chains nested through their effectors in a cycle, or deeper than [`MAX_IK_NESTING`] | the IK closing the cycle (or too deep) ignored (warning) |
//! | more than [`MAX_IK_LINKS`] links, a path longer than [`MAX_IK_PATH`] bones, or chains past [`MAX_IK_WORK`] link steps in all | IK ignored (warning) |
//! | rigid body on a missing bone | body kept unattached (warning) |
//! | two dynamic bodies driving one bone | kept; the later body's pose is written (warning) |
//! | joint naming a missing body, or one body twice | joint left out by the physics reader (warning) |
//!
//! Every check runs in time and memory linear in the model's size, with no recursion.

use crate::model::{MmdBone, MmdError, MmdJoint, MmdRigidBody};
use crate::pmx::PhysicsMode;

/// Largest absolute bone coordinate accepted (MMD units, about 80 km): past it, composing
/// transforms leaves f32's useful range.
pub const MAX_COORDINATE: f32 = 1e6;
/// Largest absolute append ratio accepted (real models use ±1, a few a little more).
pub const MAX_APPEND_RATIO: f32 = 1e3;
/// Most links one IK chain may list (real chains have 1–20).
pub const MAX_IK_LINKS: usize = 256;
/// Most bones from an IK chain's base link down to its effector (the path each iteration walks).
pub const MAX_IK_PATH: usize = 1024;
/// Most link steps (links × iterations, summed over every chain) one evaluation may take;
/// chains past it lose their IK. Real models take a few thousand.
pub const MAX_IK_WORK: u64 = 1 << 22;
/// Most ancestor steps the world-space reads of local appends may take per evaluation, summed
/// over every local append the definitions read in world space (each composes its
/// source's world pose from the source's ancestry); past it a local append is read as a
/// non-local one. Real models take a few hundred.
pub const MAX_LOCAL_APPEND_WORK: u64 = 1 << 20;
/// Deepest nesting of IK chains through their effectors (an IK whose effector is itself an IK
/// bone solves that IK first). Real models nest 0 deep.
pub const MAX_IK_NESTING: usize = sinew::dynamics::EvaluationOrder::MAX_NESTING;

/// The cycles of a functional graph (each node has at most one successor `next(i)`), in linear
/// time: for each, its lowest node and its length. Cycles of such a graph are disjoint, so
/// cutting each at its lowest node (in any order) leaves none.
fn cycles(n: usize, next: impl Fn(usize) -> Option<usize>) -> Vec<(usize, usize)> {
    // 0 = unvisited, 1 = on the current walk, 2 = done.
    let mut state = vec![0u8; n];
    let mut walk = Vec::new();
    let mut found = Vec::new();
    for start in 0..n {
        walk.clear();
        let mut i = start;
        loop {
            match state[i] {
                2 => break,
                1 => {
                    // The walk came back to `i`: the cycle is walk[pos..].
                    let pos = walk.iter().position(|&b| b == i).unwrap_or(0);
                    let lowest = walk[pos..].iter().copied().min().unwrap_or(i);
                    found.push((lowest, walk.len() - pos));
                    break;
                }
                _ => {}
            }
            state[i] = 1;
            walk.push(i);
            match next(i) {
                Some(j) => i = j,
                None => break,
            }
        }
        for &b in &walk {
            state[b] = 2;
        }
    }
    found
}

/// Breaks parent cycles in linear time: for each cycle, its lowest-index bone becomes a root.
pub(crate) fn break_parent_cycles(bones: &mut [MmdBone], warnings: &mut Vec<String>) {
    for (lowest, _) in cycles(bones.len(), |i| bones[i].parent) {
        warnings.push(format!(
            "bone {lowest} \"{}\": parent cycle; made a root",
            bones[lowest].name
        ));
        bones[lowest].parent = None;
    }
}

/// Refuses bones whose rest position cannot be evaluated.
pub(crate) fn check_positions(bones: &[MmdBone]) -> Result<(), MmdError> {
    for (i, b) in bones.iter().enumerate() {
        if !(b.position.is_finite() && b.position.abs().max_element() <= MAX_COORDINATE) {
            return Err(MmdError::OutOfRange {
                what: format!("bone {i} \"{}\" position", b.name),
                // Debug prints 1e30 as written, where Display spells out 31 digits.
                value: format!(
                    "[{:?}, {:?}, {:?}]",
                    b.position.x, b.position.y, b.position.z
                ),
                limit: format!("finite, within ±{MAX_COORDINATE:e}"),
            });
        }
    }
    Ok(())
}

/// Depth-first entry and exit numbers (iterative), for O(1) ancestor queries.
struct Tour {
    enter: Vec<u32>,
    exit: Vec<u32>,
}

impl Tour {
    fn new(bones: &[MmdBone]) -> Self {
        let n = bones.len();
        let mut first_child = vec![usize::MAX; n];
        let mut next_sibling = vec![usize::MAX; n];
        let mut roots = Vec::new();
        for i in (0..n).rev() {
            match bones[i].parent {
                Some(p) => {
                    next_sibling[i] = first_child[p];
                    first_child[p] = i;
                }
                None => roots.push(i),
            }
        }
        let mut enter = vec![0; n];
        let mut exit = vec![0; n];
        let mut clock = 0u32;
        // (bone, entered): a bone is pushed once to enter and once to exit.
        let mut stack: Vec<(usize, bool)> = roots.into_iter().map(|r| (r, false)).collect();
        while let Some((i, entered)) = stack.pop() {
            if entered {
                exit[i] = clock;
                clock += 1;
                continue;
            }
            enter[i] = clock;
            clock += 1;
            stack.push((i, true));
            let mut c = first_child[i];
            while c != usize::MAX {
                stack.push((c, false));
                c = next_sibling[c];
            }
        }
        Self { enter, exit }
    }

    /// Whether `a` is a proper ancestor of `b`.
    fn is_ancestor(&self, a: usize, b: usize) -> bool {
        a != b && self.enter[a] < self.enter[b] && self.exit[b] < self.exit[a]
    }
}

/// Each bone's depth below its root (parents must be acyclic), without recursion.
fn depths(bones: &[MmdBone]) -> Vec<usize> {
    let mut depth = vec![usize::MAX; bones.len()];
    let mut walk = Vec::new();
    for start in 0..bones.len() {
        let mut i = start;
        while depth[i] == usize::MAX {
            match bones[i].parent {
                Some(p) => {
                    walk.push(i);
                    i = p;
                }
                None => depth[i] = 0,
            }
        }
        let mut d = depth[i];
        while let Some(b) = walk.pop() {
            d += 1;
            depth[b] = d;
        }
    }
    depth
}

/// Repairs appends: out-of-range ratios, non-finite fixed axes, and inheritance cycles.
pub(crate) fn repair_appends(bones: &mut [MmdBone], warnings: &mut Vec<String>) {
    for (i, b) in bones.iter_mut().enumerate() {
        if let Some(a) = b.append {
            if !(a.ratio.is_finite() && a.ratio.abs() <= MAX_APPEND_RATIO) {
                warnings.push(format!(
                    "bone {i} \"{}\": append ratio {} is not finite or beyond ±{MAX_APPEND_RATIO}; append ignored",
                    b.name, a.ratio
                ));
                b.append = None;
            }
        }
        if b.fixed_axis.is_some_and(|a| !a.is_finite()) {
            warnings.push(format!(
                "bone {i} \"{}\": fixed axis is not finite; ignored",
                b.name
            ));
            b.fixed_axis = None;
        }
    }
    // Each bone has at most one source: the append graph is a functional graph.
    for (lowest, len) in cycles(bones.len(), |i| bones[i].append.map(|a| a.source)) {
        warnings.push(format!(
            "bone {lowest} \"{}\": append cycle (inherits from itself through {len} bones); append ignored",
            bones[lowest].name
        ));
        bones[lowest].append = None;
    }
}

fn finite_limits(l: &crate::model::MmdIkLink) -> bool {
    l.limit
        .is_none_or(|(lo, hi)| lo.is_finite() && hi.is_finite())
}

/// Repairs IK chains (see the module table).
pub(crate) fn repair_ik(bones: &mut [MmdBone], warnings: &mut Vec<String>) {
    let tour = Tour::new(bones);
    let depth = depths(bones);
    let mut work = 0u64;
    for (owner, bone) in bones.iter_mut().enumerate() {
        let name = bone.name.clone();
        let Some(ik) = bone.ik.as_mut() else {
            continue;
        };
        if ik.effector == owner {
            warnings.push(format!(
                "bone {owner} \"{name}\": IK effector is the IK bone itself; IK ignored"
            ));
            bone.ik = None;
            continue;
        }
        if !ik.limit_angle.is_finite() || !ik.links.iter().all(finite_limits) {
            warnings.push(format!(
                "bone {owner} \"{name}\": IK limit angle or link limits are not finite; IK ignored"
            ));
            bone.ik = None;
            continue;
        }
        let effector = ik.effector;
        let before = ik.links.len();
        let mut dropped = Vec::new();
        ik.links.retain(|l| {
            let keep = l.bone != owner && tour.is_ancestor(l.bone, effector);
            if !keep {
                dropped.push(l.bone);
            }
            keep
        });
        for l in dropped {
            warnings.push(format!(
                "bone {owner} \"{name}\": IK link {l} is the IK bone or not an ancestor of the effector {effector}; link dropped"
            ));
        }
        if ik.links.is_empty() && before > 0 {
            warnings.push(format!(
                "bone {owner} \"{name}\": IK has no valid link left; IK ignored"
            ));
            bone.ik = None;
            continue;
        }
        // Bounded work: links, the path the iterations walk, and the total per evaluation.
        let path = ik
            .links
            .iter()
            .map(|l| depth[effector] - depth[l.bone])
            .max()
            .unwrap_or(0);
        let steps = ik.links.len() as u64 * u64::from(ik.iterations.max(1));
        let reason = if ik.links.len() > MAX_IK_LINKS {
            Some(format!(
                "has {} links (most {MAX_IK_LINKS})",
                ik.links.len()
            ))
        } else if path > MAX_IK_PATH {
            Some(format!("has a path of {path} bones (most {MAX_IK_PATH})"))
        } else if work + steps > MAX_IK_WORK {
            Some(format!(
                "takes {steps} link steps, past {MAX_IK_WORK} for the whole model"
            ))
        } else {
            None
        };
        match reason {
            Some(r) => {
                warnings.push(format!("bone {owner} \"{name}\": IK {r}; IK ignored"));
                bone.ik = None;
            }
            None => work += steps,
        }
    }
    // Nesting: solving `owner` evaluates its effector with IK, which solves the effector's
    // own IK first, and so on (recursively, in the runtime). Follow owner → effector while the
    // effector has IK: a walk that comes back loses the IK of the cycle's lowest-index bone; a
    // bone whose nesting would exceed MAX_IK_NESTING loses its IK.
    // depth[i]: chains solved when bone i's IK is (itself included), once known.
    let n = bones.len();
    let mut depth: Vec<Option<usize>> = vec![None; n];
    let mut on_walk = vec![false; n];
    let mut walk = Vec::new();
    for start in 0..n {
        // A walk meets at most one cycle (each bone has one effector), so this retries once.
        while bones[start].ik.is_some() && depth[start].is_none() {
            walk.clear();
            let mut i = start;
            let base = loop {
                let Some(ik) = bones[i].ik.as_ref() else {
                    break Some(0);
                };
                if let Some(d) = depth[i] {
                    break Some(d);
                }
                if on_walk[i] {
                    let pos = walk.iter().position(|&b| b == i).unwrap_or(0);
                    let lowest = walk[pos..].iter().copied().min().unwrap_or(i);
                    warnings.push(format!(
                        "bone {lowest} \"{}\": IK chains reach each other's IK bones through their effectors in a cycle; IK ignored",
                        bones[lowest].name
                    ));
                    bones[lowest].ik = None;
                    break None;
                }
                on_walk[i] = true;
                walk.push(i);
                i = ik.effector;
            };
            for &b in &walk {
                on_walk[b] = false;
            }
            let Some(mut d) = base else { continue };
            while let Some(b) = walk.pop() {
                d += 1;
                if d > MAX_IK_NESTING {
                    warnings.push(format!(
                        "bone {b} \"{}\": IK nests more than {MAX_IK_NESTING} chains deep through its effectors; IK ignored",
                        bones[b].name
                    ));
                    bones[b].ik = None;
                    d = 0;
                }
                depth[b] = Some(d);
            }
        }
    }
}

/// A rigid body's bone: the file's index when it names a bone, `None` (with a warning when
/// the file named one that does not exist) otherwise.
pub(crate) fn body_bone(
    body: usize,
    name: &str,
    raw: i64,
    bones: usize,
    warnings: &mut Vec<String>,
) -> Option<usize> {
    let bone = usize::try_from(raw).ok().filter(|&b| b < bones);
    if bone.is_none() && raw >= 0 {
        warnings.push(format!(
            "rigid body {body} \"{name}\": bone {raw} is missing; the body is not attached to a bone"
        ));
    }
    bone
}

/// Warns about bodies and joints whose references the physics reader must repair.
pub(crate) fn check_physics(
    bones: &[MmdBone],
    bodies: &[MmdRigidBody],
    joints: &[MmdJoint],
    warnings: &mut Vec<String>,
) {
    let mut driver: Vec<Option<usize>> = vec![None; bones.len()];
    for (k, b) in bodies.iter().enumerate() {
        if let (Some(bone), false) = (b.bone, b.mode == PhysicsMode::FollowBone) {
            if let Some(first) = driver[bone].replace(k) {
                warnings.push(format!(
                    "rigid bodies {first} and {k} both drive bone {bone} \"{}\"; the later one's pose is written",
                    bones[bone].name
                ));
            }
        }
    }
    let n = bodies.len() as i64;
    for (k, j) in joints.iter().enumerate() {
        if !(0..n).contains(&j.body_a) || !(0..n).contains(&j.body_b) || j.body_a == j.body_b {
            warnings.push(format!(
                "joint {k} \"{}\": bodies {} and {} are missing or the same; the joint is left out",
                j.name, j.body_a, j.body_b
            ));
        }
    }
}
