//! [`PropsRig`]: one body's props and limbs, solved once per frame after IK.

use std::sync::Arc;

use glam::{Quat, Vec3};
use sinew::ik::TwoBoneParams;
use sinew::math::quat_from_euler_xyz;
use sinew::{BoneId, RigState, Skeleton, Transform};

use crate::solve::{anchor, reach};
use crate::{Prop, PropsConfig, PropsError};

/// A prop slot of a body: the model may still be loading.
#[derive(Debug, Clone, PartialEq)]
pub enum PropSlot {
    /// The prop's model is still loading: the body is not bent until it is there.
    Loading,
    /// The prop, placed in the world.
    Ready(Prop),
}

/// A limb handed in by the host for this frame (an interaction's hand on a lever), solved
/// after the kind's own limbs.
#[derive(Debug, Clone, PartialEq)]
pub struct HandedLimb {
    /// Upper, lower and end bone-name suffixes.
    pub bones: [String; 3],
    /// Direction the elbow or knee points toward, in the body root's frame; not zero.
    pub pole: Vec3,
    /// The target's world transform (translation and rotation are reached; scale is unused).
    pub target_world: Transform,
}

#[derive(Debug, Clone)]
struct ResolvedAnchor {
    prop: usize,
    bone: BoneId,
    at: Vec3,
    turn: Quat,
    point: Option<usize>,
}

#[derive(Debug, Clone)]
struct ResolvedLimb {
    bones: [BoneId; 3],
    prop: usize,
    target: usize,
    pole: Vec3,
    /// `(solved bone, copy)` pairs: the copy takes the solved bone's local rotation.
    copies: Vec<(BoneId, BoneId)>,
    /// Copies whose subtrees are refreshed (none has an ancestor among the copies).
    copy_roots: Vec<BoneId>,
}

#[derive(Debug, Clone)]
struct Resolved {
    skeleton: Arc<Skeleton>,
    /// Whether the body's kind is listed in the config.
    kind_listed: bool,
    anchor: Option<ResolvedAnchor>,
    limbs: Vec<ResolvedLimb>,
}

#[derive(Debug, Clone, Copy)]
struct Written {
    bone: BoneId,
    clip: Transform,
    wrote: Transform,
}

/// One body's props and limbs (ik3d's per-row state).
///
/// Each [`Self::solve`]:
/// 1. puts back the clip's value of every bone the last solve bent, unless the clip has drawn
///    it again since (so solving twice in a frame lands the same);
/// 2. stops there for a limp body, a body with no kind listed and no handed limbs, or one
///    whose props are still [`PropSlot::Loading`] — it stands as its clip draws it;
/// 3. hangs the anchored prop, then bends the kind's limbs and then the handed ones, in order,
///    each with sinew-ik's analytic two-bone solve (never stretched, a millimetre short of
///    straight), the end bone turned to the target's world rotation;
/// 4. copies the solved bones' local rotations onto their `_N` copies.
///
/// Names resolve by suffix (the first bone or empty whose name ends with it) once the body and
/// its props are there; the result is cached until the config, the kind, the props or the
/// skeleton change.
#[derive(Debug, Clone)]
pub struct PropsRig {
    config: Arc<PropsConfig>,
    kind: Option<String>,
    props: Vec<(String, PropSlot)>,
    limp: bool,
    handed: Vec<HandedLimb>,
    params: TwoBoneParams,
    resolved: Option<Resolved>,
    written: Vec<Written>,
    short: Vec<f32>,
    bent: bool,
}

impl PropsRig {
    /// A rig for a body of `kind` (or `None`: handed limbs only) under `config`.
    ///
    /// # Errors
    /// What [`PropsConfig::check`] refuses.
    pub fn new(config: Arc<PropsConfig>, kind: Option<&str>) -> Result<Self, PropsError> {
        config.check()?;
        Ok(Self {
            config,
            kind: kind.map(str::to_owned),
            props: Vec::new(),
            limp: false,
            handed: Vec::new(),
            params: TwoBoneParams::default(),
            resolved: None,
            written: Vec::new(),
            short: Vec::new(),
            bent: false,
        })
    }

    /// The config.
    #[must_use]
    pub fn config(&self) -> &Arc<PropsConfig> {
        &self.config
    }

    /// Replaces the config, checking it first (ik3d checks the table whenever it changes).
    ///
    /// # Errors
    /// What [`PropsConfig::check`] refuses; the old config stays.
    pub fn set_config(&mut self, config: Arc<PropsConfig>) -> Result<(), PropsError> {
        config.check()?;
        self.config = config;
        self.resolved = None;
        Ok(())
    }

    /// The body's kind.
    #[must_use]
    pub fn kind(&self) -> Option<&str> {
        self.kind.as_deref()
    }

    /// Sets the body's kind (`None`: handed limbs only).
    pub fn set_kind(&mut self, kind: Option<&str>) {
        if self.kind.as_deref() != kind {
            self.kind = kind.map(str::to_owned);
            self.resolved = None;
        }
    }

    /// Hangs a prop as `name` (or marks it loading), replacing one of that name.
    pub fn hold(&mut self, name: &str, slot: PropSlot) {
        match self.props.iter_mut().find(|(n, _)| n == name) {
            Some((_, s)) => *s = slot,
            None => self.props.push((name.to_owned(), slot)),
        }
        self.resolved = None;
    }

    /// Takes a prop away; returns whether it was held.
    pub fn release(&mut self, name: &str) -> bool {
        let before = self.props.len();
        self.props.retain(|(n, _)| n != name);
        self.resolved = None;
        before != self.props.len()
    }

    /// A held prop that has loaded (read it after a solve: a muzzle where the hands hold it).
    #[must_use]
    pub fn prop(&self, name: &str) -> Option<&Prop> {
        self.props.iter().find_map(|(n, s)| match s {
            PropSlot::Ready(p) if n == name => Some(p),
            _ => None,
        })
    }

    /// A held prop, writable (the body moving it where it hangs it).
    pub fn prop_mut(&mut self, name: &str) -> Option<&mut Prop> {
        self.props.iter_mut().find_map(|(n, s)| match s {
            PropSlot::Ready(p) if n == name => Some(p),
            _ => None,
        })
    }

    /// Whether the body is limp (not bent).
    #[must_use]
    pub fn is_limp(&self) -> bool {
        self.limp
    }

    /// Marks the body limp or not.
    pub fn set_limp(&mut self, limp: bool) {
        self.limp = limp;
    }

    /// This frame's handed limbs, writable (cleared by the host when the interaction ends).
    pub fn handed_limbs_mut(&mut self) -> &mut Vec<HandedLimb> {
        &mut self.handed
    }

    /// The two-bone parameters (default: full weight, no softening, 1 mm short of straight).
    pub fn params_mut(&mut self) -> &mut TwoBoneParams {
        &mut self.params
    }

    /// For each limb of the last solve, in metres, how far its end bone ended from its
    /// target (`0` in reach): the kind's limbs first, then the handed ones. `None` when the
    /// body is not being bent (limp, no kind listed and no handed limbs, props loading, or a
    /// failed solve).
    #[must_use]
    pub fn short(&self) -> Option<&[f32]> {
        self.bent.then_some(self.short.as_slice())
    }

    /// Solves one frame on `state`, whose locals hold the clip's pose (after IK) and whose
    /// world matrices are up to date. Leaves locals and world matrices bent.
    ///
    /// # Errors
    /// [`PropsError::NoWorld`] before world matrices exist; [`PropsError::UnknownBone`],
    /// [`PropsError::PropNotHeld`], [`PropsError::UnknownTarget`] naming what does not
    /// resolve; [`PropsError::HandedLimb`] for a handed limb out of shape. On error the body
    /// stands as its clip draws it.
    pub fn solve(&mut self, state: &mut RigState) -> Result<(), PropsError> {
        self.bent = false;
        if state.world().is_none() {
            return Err(PropsError::NoWorld);
        }
        self.restore(state);
        if self.limp {
            return Ok(());
        }
        // A resolution is dropped whenever the config, the kind or a prop changes, and is only
        // made once no prop the kind names is loading, so a kept one for this skeleton stands.
        let current = self
            .resolved
            .take()
            .filter(|r| Arc::ptr_eq(&r.skeleton, state.skeleton()));
        let resolved = match current {
            Some(r) => r,
            None => {
                let kind = self.kind.as_deref().and_then(|k| self.config.kinds.get(k));
                if kind.is_none() && self.handed.is_empty() {
                    return Ok(());
                }
                if let Some(k) = kind {
                    let loading = |name: &str| {
                        self.props
                            .iter()
                            .any(|(n, s)| n == name && matches!(s, PropSlot::Loading))
                    };
                    if k.anchor.as_ref().is_some_and(|a| loading(&a.prop))
                        || k.limbs.iter().any(|l| loading(&l.prop))
                    {
                        return Ok(());
                    }
                }
                self.resolve(state.skeleton())?
            }
        };
        if !resolved.kind_listed && self.handed.is_empty() {
            self.resolved = Some(resolved);
            return Ok(());
        }
        let out = self.apply(state, &resolved);
        self.resolved = Some(resolved);
        if out.is_err() {
            self.restore(state);
        }
        out
    }

    fn restore(&mut self, state: &mut RigState) {
        if self.written.is_empty() {
            return;
        }
        let locals = state.locals_mut();
        let mut restored = false;
        for w in self.written.drain(..).rev() {
            let l = &mut locals[w.bone.index()];
            if *l == w.wrote {
                *l = w.clip;
                restored = true;
            }
        }
        if restored {
            state.compute_world();
        }
    }

    fn resolve(&self, skeleton: &Arc<Skeleton>) -> Result<Resolved, PropsError> {
        let mut out = Resolved {
            skeleton: Arc::clone(skeleton),
            kind_listed: false,
            anchor: None,
            limbs: Vec::new(),
        };
        let Some((kind_name, kind)) = self
            .kind
            .as_deref()
            .and_then(|k| self.config.kinds.get_key_value(k))
        else {
            return Ok(out);
        };
        out.kind_listed = true;
        let prop = |path: String, name: &str| {
            self.props
                .iter()
                .position(|(n, _)| n == name)
                .ok_or(PropsError::PropNotHeld {
                    path,
                    prop: name.to_owned(),
                })
        };
        if let Some(a) = &kind.anchor {
            let path = |f: &str| format!("kinds.{kind_name}.anchor.{f}");
            let p = prop(path("prop"), &a.prop)?;
            let point = a
                .point
                .as_deref()
                .and_then(|s| self.ready(p).and_then(|pr| pr.find(s)));
            let turn = Vec3::from(a.turn) * (std::f32::consts::PI / 180.0);
            out.anchor = Some(ResolvedAnchor {
                prop: p,
                bone: find_bone(skeleton, &a.bone, path("bone"))?,
                at: Vec3::from(a.at),
                turn: quat_from_euler_xyz(turn),
                point,
            });
        }
        for (i, l) in kind.limbs.iter().enumerate() {
            let path = |f: &str| format!("kinds.{kind_name}.limbs[{i}].{f}");
            let bones = resolve_bones(skeleton, &l.bones, |b| path(&format!("bones[{b}]")))?;
            let p = prop(path("prop"), &l.prop)?;
            let target = self
                .ready(p)
                .and_then(|pr| pr.find(&l.target))
                .ok_or_else(|| PropsError::UnknownTarget {
                    path: path("target"),
                    prop: l.prop.clone(),
                    target: l.target.clone(),
                })?;
            let (copies, copy_roots) = find_copies(skeleton, &bones);
            out.limbs.push(ResolvedLimb {
                bones,
                prop: p,
                target,
                pole: Vec3::from(l.pole),
                copies,
                copy_roots,
            });
        }
        Ok(out)
    }

    fn ready(&self, prop: usize) -> Option<&Prop> {
        match &self.props[prop].1 {
            PropSlot::Ready(p) => Some(p),
            PropSlot::Loading => None,
        }
    }

    fn apply(&mut self, state: &mut RigState, resolved: &Resolved) -> Result<(), PropsError> {
        let skeleton = &*resolved.skeleton;
        self.short.clear();
        if let Some(a) = &resolved.anchor {
            let bone_world = state.world().ok_or(PropsError::NoWorld)?[a.bone.index()];
            if let PropSlot::Ready(prop) = &mut self.props[a.prop].1 {
                anchor(prop, &bone_world, a.at, a.turn, a.point);
            }
        }
        let root_matrix = state.root_affine().matrix3;
        for limb in &resolved.limbs {
            let Some(prop) = self.ready(limb.prop) else {
                continue;
            };
            let target = prop.node_pose_world(limb.target);
            let pole = Vec3::from(root_matrix * glam::Vec3A::from(limb.pole));
            self.record(state, &limb.bones);
            let short = reach(state, limb.bones, target, pole, &self.params)?;
            self.short.push(short);
            self.mark_written(state, &limb.bones);
            if !limb.copies.is_empty() {
                self.copy(state, &limb.copies, &limb.copy_roots);
            }
        }
        for index in 0..self.handed.len() {
            let h = &self.handed[index];
            let bad = |problem: String| PropsError::HandedLimb { index, problem };
            if !(h.pole.is_finite() && h.pole != Vec3::ZERO) {
                return Err(bad("pole must be a finite non-zero direction".into()));
            }
            if !h.target_world.is_finite() {
                return Err(bad("target transform is not finite".into()));
            }
            let bones = resolve_bones(skeleton, &h.bones, |b| {
                format!("handed limb {index}.bones[{b}]")
            })?;
            let target = (
                h.target_world.translation,
                h.target_world.rotation.normalize(),
            );
            let pole = Vec3::from(root_matrix * glam::Vec3A::from(h.pole));
            self.record(state, &bones);
            let short =
                reach(state, bones, target, pole, &self.params).map_err(|e| bad(e.to_string()))?;
            self.short.push(short);
            self.mark_written(state, &bones);
            let (copies, roots) = find_copies(skeleton, &bones);
            if !copies.is_empty() {
                self.copy(state, &copies, &roots);
            }
        }
        self.bent = true;
        Ok(())
    }

    /// Remembers the clip's value of `bones` before they are bent (first write wins, so a
    /// bone bent by two limbs restores to the clip).
    fn record(&mut self, state: &RigState, bones: &[BoneId]) {
        for &bone in bones {
            if !self.written.iter().any(|w| w.bone == bone) {
                let clip = *state.local(bone);
                self.written.push(Written {
                    bone,
                    clip,
                    wrote: clip,
                });
            }
        }
    }

    fn mark_written(&mut self, state: &RigState, bones: &[BoneId]) {
        for &bone in bones {
            if let Some(w) = self.written.iter_mut().find(|w| w.bone == bone) {
                w.wrote = *state.local(bone);
            }
        }
    }

    fn copy(&mut self, state: &mut RigState, copies: &[(BoneId, BoneId)], roots: &[BoneId]) {
        for &(_, dst) in copies {
            self.record(state, &[dst]);
        }
        let locals = state.locals_mut();
        for &(src, dst) in copies {
            locals[dst.index()].rotation = locals[src.index()].rotation;
        }
        for &root in roots {
            state.compute_world_subtree(root);
        }
        for &(_, dst) in copies {
            self.mark_written(state, &[dst]);
        }
    }
}

/// The first bone whose name ends with `suffix`.
fn find_bone(skeleton: &Skeleton, suffix: &str, path: String) -> Result<BoneId, PropsError> {
    skeleton
        .names()
        .iter()
        .position(|n| n.ends_with(suffix))
        .and_then(BoneId::try_from_index)
        .ok_or(PropsError::UnknownBone {
            path,
            suffix: suffix.to_owned(),
        })
}

fn resolve_bones(
    skeleton: &Skeleton,
    suffixes: &[String; 3],
    path: impl Fn(usize) -> String,
) -> Result<[BoneId; 3], PropsError> {
    Ok([
        find_bone(skeleton, &suffixes[0], path(0))?,
        find_bone(skeleton, &suffixes[1], path(1))?,
        find_bone(skeleton, &suffixes[2], path(2))?,
    ])
}

/// The `_N` copies of `bones` (a bone named `X_3` is a copy of `X`) and the copies whose
/// subtrees cover the rest.
fn find_copies(skeleton: &Skeleton, bones: &[BoneId; 3]) -> (Vec<(BoneId, BoneId)>, Vec<BoneId>) {
    let mut copies = Vec::new();
    for (i, name) in skeleton.names().iter().enumerate() {
        let Some((stem, n)) = name.rsplit_once('_') else {
            continue;
        };
        if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if let Some(&src) = bones.iter().find(|b| skeleton.name(**b) == stem) {
            if let Some(dst) = BoneId::try_from_index(i) {
                copies.push((src, dst));
            }
        }
    }
    let roots = copies
        .iter()
        .map(|&(_, d)| d)
        .filter(|&d| {
            !copies
                .iter()
                .any(|&(_, o)| o != d && skeleton.is_ancestor_or_self(o, d))
        })
        .collect();
    (copies, roots)
}
