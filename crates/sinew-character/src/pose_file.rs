//! [`PoseFile`]: a static pose and IK targets in one small JSON, for any model kind:
//!
//! ```json
//! { "bones":   { "<bone>":  { "t": [x, y, z], "r": [x, y, z, w] } },
//!   "chains":  { "<chain>": { "links": ["<upper>", "<lower>"], "effector": "<end>",
//!                             "solver": "two-bone", "pole": [x, y, z] } },
//!   "targets": { "<chain>": { "position": [x, y, z], "weight": 1.0 } } }
//! ```
//!
//! `t` is added to the bone's rest translation and `r` turns its rest rotation (`rest · r`; an
//! MMD bone's rest rotation is the identity, so `r` is its local rotation, as in a VPD pose or
//! one VMD frame); both default to nothing. A chain adds an IK chain to the model (a glTF file
//! carries none): its links from base to tip, the effector bone, the solver (`two-bone`,
//! `fabrik` or `ccd`; default `two-bone` for two links, `fabrik` otherwise) and, for two-bone
//! chains, the pole the middle joint bends toward (default: where it bends at rest). A target
//! puts chain `<chain>`'s IK goal at `position` (the character's evaluation space) with `weight`
//! in `[0, 1]` (default 1). Sections may be absent, not all. Every value is checked: a
//! malformed file is one error naming the field.

use glam::{Quat, Vec3};
use serde_json::Value;
use sinew::anim::{BoneTrack, Clip, Track, ValueSpace, Wrap};

use crate::{Character, CharacterError, Motion};

/// One bone's entry.
#[derive(Clone, Debug, PartialEq)]
pub struct PoseBone {
    /// Bone name.
    pub name: String,
    /// Translation offset from rest.
    pub translation: Vec3,
    /// Rotation after the rest rotation.
    pub rotation: Quat,
}

/// One IK target.
#[derive(Clone, Debug, PartialEq)]
pub struct PoseTarget {
    /// The chain's name.
    pub chain: String,
    /// Where it reaches, evaluation space.
    pub position: Vec3,
    /// Blend weight from the controller, `[0, 1]`.
    pub weight: f32,
}

/// Which solver a [`ChainSpec`] asks for (a pose file's `"two-bone"`, `"fabrik"` or
/// `"ccd"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SolverKind {
    /// The analytic two-bone reach (two links); bends toward the spec's pole.
    TwoBone,
    /// FABRIK.
    Fabrik,
    /// MMD-flavoured CCD.
    Ccd,
}

impl SolverKind {
    /// The names a pose file or a Python dict uses, in this order.
    pub const NAMES: [&'static str; 3] = ["two-bone", "fabrik", "ccd"];

    /// The solver a name stands for; `None` for any other name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "two-bone" => Some(Self::TwoBone),
            "fabrik" => Some(Self::Fabrik),
            "ccd" => Some(Self::Ccd),
            _ => None,
        }
    }

    /// The default for a chain of `links` links: two-bone for two, FABRIK otherwise.
    #[must_use]
    pub fn default_for(links: usize) -> Self {
        if links == 2 {
            Self::TwoBone
        } else {
            Self::Fabrik
        }
    }
}

/// An IK chain a pose file adds to a model.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainSpec {
    /// The chain's name.
    pub name: String,
    /// Link bones, base to tip.
    pub links: Vec<String>,
    /// The end bone that reaches the target (and the default target's source).
    pub effector: String,
    /// The solver.
    pub solver: SolverKind,
    /// Two-bone chains: the bend direction in the root's frame (`None`: the rest bend).
    pub pole: Option<Vec3>,
}

/// A static pose with IK chains and targets (see the module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PoseFile {
    /// Bone entries, in the order the JSON lists them.
    pub bones: Vec<PoseBone>,
    /// IK chains to add to the model, in the order the JSON lists them.
    pub chains: Vec<ChainSpec>,
    /// IK targets, in the order the JSON lists them.
    pub targets: Vec<PoseTarget>,
}

fn shape(message: String) -> CharacterError {
    CharacterError::Pose(message)
}

fn floats<const N: usize>(v: &Value, what: &str) -> Result<[f32; N], CharacterError> {
    let arr = v
        .as_array()
        .filter(|a| a.len() == N)
        .ok_or_else(|| shape(format!("{what} must be an array of {N} numbers")))?;
    let mut out = [0.0f32; N];
    for (o, x) in out.iter_mut().zip(arr) {
        let f = x
            .as_f64()
            .ok_or_else(|| shape(format!("{what} must hold numbers")))?;
        // Checked after narrowing: 1e39 is a finite f64 but an infinite f32.
        let narrowed = f as f32;
        if !narrowed.is_finite() {
            return Err(shape(format!(
                "{what} must hold finite numbers within f32's range (±3.4e38), got {x}"
            )));
        }
        *o = narrowed;
    }
    Ok(out)
}

impl PoseFile {
    /// Parses the JSON shape above.
    ///
    /// # Errors
    /// [`CharacterError::Pose`] naming the bad field (or the JSON error).
    pub fn from_json(text: &str) -> Result<Self, CharacterError> {
        let v: Value =
            serde_json::from_str(text).map_err(|e| shape(format!("invalid JSON: {e}")))?;
        Self::from_value(&v)
    }

    /// Parses an already-decoded JSON value.
    ///
    /// # Errors
    /// As [`Self::from_json`].
    pub fn from_value(v: &Value) -> Result<Self, CharacterError> {
        let section = |key: &str| match v.get(key) {
            None => Ok(None),
            Some(s) => s
                .as_object()
                .map(Some)
                .ok_or_else(|| shape(format!("\"{key}\" must be an object"))),
        };
        let (bones, chains, targets) = (section("bones")?, section("chains")?, section("targets")?);
        if bones.is_none() && chains.is_none() && targets.is_none() {
            return Err(shape(
                "a pose needs a \"bones\", \"chains\" or \"targets\" object".to_owned(),
            ));
        }
        let mut out = Self::default();
        for (name, entry) in bones.into_iter().flatten() {
            let translation = match entry.get("t") {
                Some(t) => Vec3::from(floats::<3>(t, &format!("bones.{name}.t"))?),
                None => Vec3::ZERO,
            };
            let rotation = match entry.get("r") {
                Some(r) => {
                    let q = Quat::from_array(floats::<4>(r, &format!("bones.{name}.r"))?);
                    if !(q.length_squared() >= 1e-12 && q.length_squared().is_finite()) {
                        return Err(shape(format!(
                            "bones.{name}.r is a zero or overflowing quaternion"
                        )));
                    }
                    q.normalize()
                }
                None => Quat::IDENTITY,
            };
            out.bones.push(PoseBone {
                name: name.clone(),
                translation,
                rotation,
            });
        }
        for (name, entry) in chains.into_iter().flatten() {
            let links: Vec<String> = match entry.get("links").and_then(Value::as_array) {
                Some(l) if !l.is_empty() => l
                    .iter()
                    .map(|b| {
                        b.as_str().map(str::to_owned).ok_or_else(|| {
                            shape(format!("chains.{name}.links must hold bone names"))
                        })
                    })
                    .collect::<Result<_, _>>()?,
                _ => {
                    return Err(shape(format!(
                        "chains.{name} needs \"links\": a non-empty array of bone names"
                    )))
                }
            };
            let effector = (entry.get("effector").and_then(Value::as_str))
                .ok_or_else(|| shape(format!("chains.{name} needs an \"effector\" bone name")))?
                .to_owned();
            let solver = match entry.get("solver") {
                None => SolverKind::default_for(links.len()),
                Some(v) => match v.as_str().and_then(SolverKind::from_name) {
                    Some(s) => s,
                    None => {
                        return Err(shape(format!(
                            "chains.{name}.solver must be \"two-bone\", \"fabrik\" or \"ccd\""
                        )))
                    }
                },
            };
            let pole = match entry.get("pole") {
                None => None,
                Some(p) => Some(Vec3::from(floats::<3>(p, &format!("chains.{name}.pole"))?)),
            };
            out.chains.push(ChainSpec {
                name: name.clone(),
                links,
                effector,
                solver,
                pole,
            });
        }
        for (chain, entry) in targets.into_iter().flatten() {
            let position = entry
                .get("position")
                .ok_or_else(|| shape(format!("targets.{chain} needs a \"position\"")))?;
            let position = Vec3::from(floats::<3>(position, &format!("targets.{chain}.position"))?);
            let weight = match entry.get("weight") {
                None => 1.0,
                Some(w) => {
                    let [w] = floats::<1>(
                        &Value::Array(vec![w.clone()]),
                        &format!("targets.{chain}.weight"),
                    )?;
                    if !(0.0..=1.0).contains(&w) {
                        return Err(shape(format!(
                            "targets.{chain}.weight must be within [0, 1], got {w}"
                        )));
                    }
                    w
                }
            };
            out.targets.push(PoseTarget {
                chain: chain.clone(),
                position,
                weight,
            });
        }
        Ok(out)
    }

    /// The bones as a motion: one key each, relative to rest, held forever (a character
    /// playing it stands in the pose; bones not listed stand at rest).
    ///
    /// # Errors
    /// Never for a parsed file (its values are checked); [`CharacterError::Clip`] otherwise.
    pub fn to_motion(&self) -> Result<Motion, CharacterError> {
        let mut builder = Clip::builder("pose")
            .wrap(Wrap::Clamp)
            .space(ValueSpace::RelativeToRest);
        for b in &self.bones {
            builder = builder.bone(
                BoneTrack::new(b.name.clone())
                    .with_translation(Track::constant(b.translation))
                    .with_rotation(Track::constant(b.rotation)),
            );
        }
        Ok(Motion::from_clip(builder.build()?))
    }

    /// Sets every target on `character` (persistent IK targets).
    ///
    /// # Errors
    /// [`CharacterError::Unknown`] for a chain the model lacks.
    pub fn apply_targets(&self, character: &mut Character) -> Result<(), CharacterError> {
        for t in &self.targets {
            character.set_ik_target(&t.chain, t.position, t.weight)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{PoseFile, SolverKind};

    #[test]
    fn solvers_are_named_defaulted_and_refused() {
        for (k, name) in SolverKind::NAMES.iter().enumerate() {
            let kind = SolverKind::from_name(name).unwrap();
            assert_eq!(
                kind,
                [SolverKind::TwoBone, SolverKind::Fabrik, SolverKind::Ccd][k]
            );
        }
        assert_eq!(SolverKind::from_name("cdd"), None);
        let chain = |solver: &str| {
            format!(r#"{{"chains": {{"arm": {{"links": ["a", "b"], "effector": "c"{solver}}}}}}}"#)
        };
        let read = |solver: &str| PoseFile::from_json(&chain(solver));
        assert_eq!(read("").unwrap().chains[0].solver, SolverKind::TwoBone);
        let ccd = read(r#", "solver": "ccd""#).unwrap();
        assert_eq!(ccd.chains[0].solver, SolverKind::Ccd);
        let err = read(r#", "solver": "cdd""#).unwrap_err().to_string();
        assert!(err.contains("chains.arm.solver must be"), "{err}");
    }
}
