//! Static poses in the oracle's JSON shape (the same meaning as a VPD pose or one VMD frame):
//! `{"bones": {"<name>": {"t": [x, y, z], "r": [x, y, z, w]}}}` — `t` is added to the bone's
//! rest translation, `r` is its local rotation. MMD coordinates.

use glam::{Quat, Vec3};
use serde_json::Value;
use thiserror::Error;

use crate::MmdInstance;

/// A pose error: the JSON is not of the expected shape.
#[derive(Debug, Error)]
pub enum PoseError {
    /// Not valid JSON.
    #[error("invalid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A field has the wrong shape.
    #[error("{0}")]
    Shape(String),
}

/// One bone's entry.
#[derive(Clone, Debug, PartialEq)]
pub struct PoseBone {
    /// Bone name.
    pub name: String,
    /// Translation offset from rest.
    pub translation: Vec3,
    /// Local rotation.
    pub rotation: Quat,
}

/// A static pose.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StaticPose {
    /// Entries in the order the JSON lists them.
    pub bones: Vec<PoseBone>,
}

fn floats<const N: usize>(v: &Value, what: &str) -> Result<[f32; N], PoseError> {
    let arr = v
        .as_array()
        .filter(|a| a.len() == N)
        .ok_or_else(|| PoseError::Shape(format!("{what} must be an array of {N} numbers")))?;
    let mut out = [0.0f32; N];
    for (o, x) in out.iter_mut().zip(arr) {
        let f = x
            .as_f64()
            .ok_or_else(|| PoseError::Shape(format!("{what} must hold numbers")))?;
        // Checked after narrowing: 1e39 is a finite f64 but an infinite f32.
        let narrowed = f as f32;
        if !narrowed.is_finite() {
            return Err(PoseError::Shape(format!(
                "{what} must hold finite numbers within f32's range (±3.4e38), got {f}"
            )));
        }
        *o = narrowed;
    }
    Ok(out)
}

impl StaticPose {
    /// Parses the JSON shape above (a `pose` object nested in an oracle output is accepted too).
    ///
    /// # Errors
    /// [`PoseError`] naming the bad field.
    pub fn from_json(text: &str) -> Result<Self, PoseError> {
        Self::from_value(&serde_json::from_str(text)?)
    }

    /// Parses an already-decoded JSON value.
    ///
    /// # Errors
    /// [`PoseError`] naming the bad field.
    pub fn from_value(v: &Value) -> Result<Self, PoseError> {
        let bones = v
            .get("bones")
            .and_then(Value::as_object)
            .ok_or_else(|| PoseError::Shape("a pose needs a \"bones\" object".into()))?;
        let mut out = Vec::with_capacity(bones.len());
        for (name, entry) in bones {
            let translation = match entry.get("t") {
                Some(t) => Vec3::from(floats::<3>(t, &format!("bones.{name}.t"))?),
                None => Vec3::ZERO,
            };
            let rotation = match entry.get("r") {
                Some(r) => {
                    let q = Quat::from_array(floats::<4>(r, &format!("bones.{name}.r"))?);
                    if q.length_squared() < 1e-12 {
                        return Err(PoseError::Shape(format!(
                            "bones.{name}.r is a zero quaternion"
                        )));
                    }
                    q.normalize()
                }
                None => Quat::IDENTITY,
            };
            out.push(PoseBone {
                name: name.clone(),
                translation,
                rotation,
            });
        }
        Ok(Self { bones: out })
    }

    /// Writes the pose into an instance's animated input (after resetting it to rest).
    /// Returns the names that match no bone.
    pub fn apply(&self, instance: &mut MmdInstance) -> Vec<String> {
        instance.reset_pose();
        let mut unknown = Vec::new();
        for b in &self.bones {
            match instance.model().bone_index(&b.name) {
                Some(i) => {
                    instance.translations_mut()[i] = b.translation;
                    instance.rotations_mut()[i] = b.rotation;
                }
                None => unknown.push(b.name.clone()),
            }
        }
        unknown
    }
}
