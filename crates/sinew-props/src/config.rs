//! The `world.ik3d` table: how each kind of body holds its props.
//!
//! ```json
//! { "kinds": { "xbot": {
//!     "anchor": { "prop": "rifle", "bone": "RightShoulder", "at": [0.133, 0.167, 0.087],
//!                 "turn": [-87.2, -36.2, 29.5], "point": "stock" },
//!     "limbs": [ { "bones": ["RightArm", "RightForeArm", "RightHand"], "prop": "rifle",
//!                  "target": "grip", "pole": [-1, -1, 0] } ] } } }
//! ```
//!
//! [`PropsConfig::from_json`] parses and checks in one step and names the kind and the field
//! of the first entry out of shape (`kinds.xbot.limbs[1].pole: must be a non-zero
//! direction`). The types also derive serde's traits, so a host may deserialize them with
//! any serde format and then call [`PropsConfig::check`]. The `mods` key (the host's wiring,
//! `{ body, limbs? }`) is required with its `body` in every table, read or built in code
//! (`mods.body: is required`; [`PropsConfig::new`] starts a table with one); it is checked for
//! shape and carried, not read.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::PropsError;

/// The whole table: kind name → how that kind holds its props.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PropsConfig {
    /// Kinds by name, as the body mod names them.
    #[serde(default)]
    pub kinds: BTreeMap<String, KindConfig>,
    /// The host's plugin wiring (`{ body, limbs? }`); carried, not read. Required, with its
    /// `body` ([`Self::check`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mods: Option<Value>,
}

/// How one kind holds its props.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KindConfig {
    /// Where the kind's prop hangs; `None` leaves every prop where the body hung it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<AnchorConfig>,
    /// Limbs reaching points on held props, solved in this order.
    #[serde(default)]
    pub limbs: Vec<LimbConfig>,
}

/// Where a prop hangs: its `point` empty at the frame of the first bone ending with `bone`,
/// that frame's scale taken off, moved by `at` metres and turned by `turn` degrees (XYZ
/// Euler) in that frame, about the point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnchorConfig {
    /// The name the prop is hung as.
    pub prop: String,
    /// Bone-name suffix; the first bone whose name ends with it.
    pub bone: String,
    /// Offset in the bone's frame, metres. Default zero.
    #[serde(default)]
    pub at: [f32; 3],
    /// XYZ Euler turn in the bone's frame, degrees. Default zero.
    #[serde(default)]
    pub turn: [f32; 3],
    /// Suffix of the prop's empty that lands on the frame; `None` (or no such empty): the
    /// prop's root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<String>,
}

/// A limb that reaches an empty of a held prop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimbConfig {
    /// Upper, lower and end bone-name suffixes (arm, forearm, hand or thigh, shin, foot).
    pub bones: [String; 3],
    /// The name the prop is hung as.
    pub prop: String,
    /// Suffix of the prop's empty the end bone reaches.
    pub target: String,
    /// Direction the elbow or knee points toward, in the body root's frame; not zero.
    pub pole: [f32; 3],
}

impl PropsConfig {
    /// A table with no kinds whose `mods.body` names `body`, the plugin that hands ik3d its
    /// bodies.
    #[must_use]
    pub fn new(body: &str) -> Self {
        Self {
            kinds: BTreeMap::new(),
            mods: Some(serde_json::json!({ "body": body })),
        }
    }

    /// Parses a `world.ik3d` table from JSON and checks it.
    ///
    /// # Errors
    /// [`PropsError::Json`] for text that is not JSON; [`PropsError::Config`] naming the kind
    /// and field of the first entry out of shape, or `mods.body` when the table names no body
    /// mod.
    pub fn from_json(text: &str) -> Result<Self, PropsError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| PropsError::Json(e.to_string()))?;
        Self::from_value(&value)
    }

    /// Reads and checks a table already parsed into a [`serde_json::Value`].
    ///
    /// # Errors
    /// As [`Self::from_json`].
    pub fn from_value(value: &Value) -> Result<Self, PropsError> {
        let root = value
            .as_object()
            .ok_or_else(|| PropsError::config("", "ik3d".into(), "must be an object"))?;
        let mut config = Self::default();
        for (key, v) in root {
            match key.as_str() {
                "kinds" => {
                    let kinds = v.as_object().ok_or_else(|| {
                        PropsError::config("", "kinds".into(), "must be an object")
                    })?;
                    for (kind, entry) in kinds {
                        config.kinds.insert(kind.clone(), read_kind(kind, entry)?);
                    }
                }
                "mods" => config.mods = Some(v.clone()),
                other => {
                    return Err(PropsError::config(
                        "",
                        other.to_owned(),
                        "unknown field (expected kinds, mods)",
                    ))
                }
            }
        }
        config.check()?;
        Ok(config)
    }

    /// Checks every entry (for a table built in code or read through serde).
    ///
    /// # Errors
    /// [`PropsError::Config`] naming the kind and the field of the first entry out of shape:
    /// a blank name or suffix, a non-finite `at`/`turn`, a zero or non-finite `pole`; a `mods`
    /// out of shape (not an object, no `body`, a blank or non-string `body` or `limbs`,
    /// another key); after the kinds, a table without `mods` as `mods.body: is required`
    /// (ik3d-props-and-limbs.md: "body is required").
    pub fn check(&self) -> Result<(), PropsError> {
        if let Some(mods) = &self.mods {
            check_mods(mods)?;
        }
        for (kind, k) in &self.kinds {
            if kind.trim().is_empty() {
                return Err(PropsError::config(
                    kind,
                    "kinds".into(),
                    "kind names must not be blank",
                ));
            }
            if let Some(a) = &k.anchor {
                let p = |f: &str| format!("kinds.{kind}.anchor.{f}");
                name(kind, p("prop"), &a.prop)?;
                name(kind, p("bone"), &a.bone)?;
                if let Some(point) = &a.point {
                    name(kind, p("point"), point)?;
                }
                finite(kind, p("at"), a.at)?;
                finite(kind, p("turn"), a.turn)?;
            }
            for (i, l) in k.limbs.iter().enumerate() {
                let p = |f: &str| format!("kinds.{kind}.limbs[{i}].{f}");
                for (b, bone) in l.bones.iter().enumerate() {
                    name(kind, p(&format!("bones[{b}]")), bone)?;
                }
                name(kind, p("prop"), &l.prop)?;
                name(kind, p("target"), &l.target)?;
                finite(kind, p("pole"), l.pole)?;
                if l.pole == [0.0; 3] {
                    return Err(PropsError::config(
                        kind,
                        p("pole"),
                        "must be a non-zero direction",
                    ));
                }
            }
        }
        if self.mods.is_none() {
            return Err(PropsError::config("", "mods.body".into(), "is required"));
        }
        Ok(())
    }
}

/// `mods`: `{ body, limbs? }`, each the name of a plugin.
fn check_mods(mods: &Value) -> Result<(), PropsError> {
    let obj = object("", "mods", mods, &["body", "limbs"])?;
    string("", "mods", obj, "body")?;
    if obj.contains_key("limbs") {
        string("", "mods", obj, "limbs")?;
    }
    Ok(())
}

fn name(kind: &str, path: String, s: &str) -> Result<(), PropsError> {
    if s.trim().is_empty() {
        Err(PropsError::config(kind, path, "must be a non-blank name"))
    } else {
        Ok(())
    }
}

fn finite(kind: &str, path: String, v: [f32; 3]) -> Result<(), PropsError> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(PropsError::config(
            kind,
            path,
            "must be three finite numbers",
        ))
    }
}

fn read_kind(kind: &str, v: &Value) -> Result<KindConfig, PropsError> {
    let obj = v
        .as_object()
        .ok_or_else(|| PropsError::config(kind, format!("kinds.{kind}"), "must be an object"))?;
    let mut out = KindConfig::default();
    for (key, v) in obj {
        let path = format!("kinds.{kind}.{key}");
        match key.as_str() {
            "anchor" => {
                out.anchor = if v.is_null() {
                    None
                } else {
                    Some(read_anchor(kind, &path, v)?)
                }
            }
            "limbs" => {
                if !v.is_null() {
                    let arr = v.as_array().ok_or_else(|| {
                        PropsError::config(kind, path.clone(), "must be an array")
                    })?;
                    for (i, l) in arr.iter().enumerate() {
                        out.limbs.push(read_limb(kind, &format!("{path}[{i}]"), l)?);
                    }
                }
            }
            _ => {
                return Err(PropsError::config(
                    kind,
                    path,
                    "unknown field (expected anchor, limbs)",
                ))
            }
        }
    }
    Ok(out)
}

type Obj = serde_json::Map<String, Value>;

fn object<'a>(
    kind: &str,
    path: &str,
    v: &'a Value,
    fields: &[&str],
) -> Result<&'a Obj, PropsError> {
    let obj = v
        .as_object()
        .ok_or_else(|| PropsError::config(kind, path.to_owned(), "must be an object"))?;
    if let Some(k) = obj.keys().find(|k| !fields.contains(&k.as_str())) {
        return Err(PropsError::config(
            kind,
            format!("{path}.{k}"),
            format!("unknown field (expected {})", fields.join(", ")),
        ));
    }
    Ok(obj)
}

fn string(kind: &str, path: &str, obj: &Obj, field: &str) -> Result<String, PropsError> {
    match obj.get(field) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
        Some(Value::String(_)) => Err(PropsError::config(
            kind,
            format!("{path}.{field}"),
            "must be a non-blank name",
        )),
        Some(_) => Err(PropsError::config(
            kind,
            format!("{path}.{field}"),
            "must be a string",
        )),
        None => Err(PropsError::config(
            kind,
            format!("{path}.{field}"),
            "is required",
        )),
    }
}

fn vec3(
    kind: &str,
    path: &str,
    obj: &Obj,
    field: &str,
    default: Option<[f32; 3]>,
) -> Result<[f32; 3], PropsError> {
    let p = format!("{path}.{field}");
    let Some(v) = obj.get(field) else {
        return default.ok_or_else(|| PropsError::config(kind, p, "is required"));
    };
    let arr = v
        .as_array()
        .filter(|a| a.len() == 3)
        .ok_or_else(|| PropsError::config(kind, p.clone(), "must be an array of three numbers"))?;
    let mut out = [0.0f32; 3];
    for (o, x) in out.iter_mut().zip(arr) {
        let f = x.as_f64().ok_or_else(|| {
            PropsError::config(kind, p.clone(), "must be an array of three numbers")
        })?;
        *o = f as f32;
        if !o.is_finite() {
            return Err(PropsError::config(kind, p, "must be three finite numbers"));
        }
    }
    Ok(out)
}

fn read_anchor(kind: &str, path: &str, v: &Value) -> Result<AnchorConfig, PropsError> {
    let obj = object(kind, path, v, &["prop", "bone", "at", "turn", "point"])?;
    let point = match obj.get("point") {
        None | Some(Value::Null) => None,
        Some(_) => Some(string(kind, path, obj, "point")?),
    };
    Ok(AnchorConfig {
        prop: string(kind, path, obj, "prop")?,
        bone: string(kind, path, obj, "bone")?,
        at: vec3(kind, path, obj, "at", Some([0.0; 3]))?,
        turn: vec3(kind, path, obj, "turn", Some([0.0; 3]))?,
        point,
    })
}

fn read_limb(kind: &str, path: &str, v: &Value) -> Result<LimbConfig, PropsError> {
    let obj = object(kind, path, v, &["bones", "prop", "target", "pole"])?;
    let bp = format!("{path}.bones");
    let arr = match obj.get("bones") {
        None => return Err(PropsError::config(kind, bp, "is required")),
        Some(b) => b.as_array().filter(|a| a.len() == 3).ok_or_else(|| {
            PropsError::config(kind, bp.clone(), "must be an array of three bone suffixes")
        })?,
    };
    let mut bones: [String; 3] = Default::default();
    for (i, (b, v)) in bones.iter_mut().zip(arr).enumerate() {
        *b = match v {
            Value::String(s) if !s.trim().is_empty() => s.clone(),
            _ => {
                return Err(PropsError::config(
                    kind,
                    format!("{bp}[{i}]"),
                    "must be a non-blank bone suffix",
                ))
            }
        };
    }
    let pole = vec3(kind, path, obj, "pole", None)?;
    if pole == [0.0; 3] {
        return Err(PropsError::config(
            kind,
            format!("{path}.pole"),
            "must be a non-zero direction",
        ));
    }
    Ok(LimbConfig {
        bones,
        prop: string(kind, path, obj, "prop")?,
        target: string(kind, path, obj, "target")?,
        pole,
    })
}
