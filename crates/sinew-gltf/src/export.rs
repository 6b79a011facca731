//! Export: baked frames → a new glTF animation in a `.glb`.
//!
//! The writer **copies the original document**: its JSON (as read, unknown extensions and
//! extras included) and all its buffers, merged into the single GLB `BIN` buffer (buffer views
//! are re-pointed, so meshes, skins, images stored in buffers and the original animations keep
//! working). It then appends one buffer view with the baked data, one time accessor and one
//! translation / rotation / scale output accessor per bone, and a new animation named
//! [`BAKED_ANIMATION_NAME`] with `LINEAR` samplers targeting every bone's node. Images
//! referenced by relative URI stay relative URIs (the `.glb` must sit next to them).

use glam::{Affine3A, Quat};
use serde_json::{json, Value};
use sinew::Transform;

use crate::{GltfError, GltfModel};

/// Name of the animation [`bake_glb`] appends (after the document's own animations, so its
/// index in the re-imported model is the original animation count).
pub const BAKED_ANIMATION_NAME: &str = "sinew_baked";

const GLB_MAGIC: u32 = 0x4654_6C67;
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;
const FLOAT: u32 = 5126;

fn export_err(reason: impl Into<String>) -> GltfError {
    GltfError::Export {
        reason: reason.into(),
    }
}

/// Bakes `frames` (local transforms in skeleton bone order, one `Vec` per frame, frame `k` at
/// time `k / fps` seconds) into a new animation of `model`'s document and returns the whole
/// file as `.glb` bytes. Rotations are written normalised, on the shortest path from the
/// previous frame.
///
/// # Errors
/// [`GltfError::Export`] when `fps` is not finite and positive, there are no frames, a frame
/// does not have one transform per bone, or a transform is not finite.
pub fn bake_glb(
    model: &GltfModel,
    fps: f32,
    frames: &[Vec<Transform>],
) -> Result<Vec<u8>, GltfError> {
    let bones = model.skeleton().len();
    if !(fps.is_finite() && fps > 0.0) {
        return Err(export_err(format!("fps {fps} is not finite and positive")));
    }
    if frames.is_empty() {
        return Err(export_err("no frames"));
    }
    for (k, f) in frames.iter().enumerate() {
        if f.len() != bones {
            return Err(export_err(format!(
                "frame {k} has {} transforms, the skeleton {bones} bones",
                f.len()
            )));
        }
        if let Some(b) = f.iter().position(|t| !t.is_finite()) {
            return Err(export_err(format!(
                "frame {k}: bone {b} has a non-finite transform"
            )));
        }
    }
    let mut doc = model.json().clone();
    let mut bin = merge_buffers(&mut doc, model.buffers())?;
    // Baked data: times, then per bone translation, rotation, scale.
    let n = frames.len();
    let start = bin.len();
    let mut accessors: Vec<Value> = Vec::new();
    let view_index = array(&mut doc, "bufferViews").len();
    let first_accessor = array(&mut doc, "accessors").len();
    let mut push_accessor =
        |bin: &mut Vec<u8>, data: &[f32], ty: &str, minmax: Option<(f32, f32)>| {
            let offset = bin.len() - start;
            for x in data {
                bin.extend_from_slice(&x.to_le_bytes());
            }
            let count = match ty {
                "VEC3" => data.len() / 3,
                "VEC4" => data.len() / 4,
                _ => data.len(),
            };
            let mut a = json!({
                "bufferView": view_index,
                "byteOffset": offset,
                "componentType": FLOAT,
                "count": count,
                "type": ty,
            });
            if let Some((lo, hi)) = minmax {
                a["min"] = json!([lo]);
                a["max"] = json!([hi]);
            }
            accessors.push(a);
            first_accessor + accessors.len() - 1
        };
    let times: Vec<f32> = (0..n).map(|k| k as f32 / fps).collect();
    let input = push_accessor(&mut bin, &times, "SCALAR", Some((0.0, times[n - 1])));
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    for b in 0..bones {
        let node = model.bone_to_node[b];
        let mut t = Vec::with_capacity(3 * n);
        let mut r = Vec::with_capacity(4 * n);
        let mut s = Vec::with_capacity(3 * n);
        let mut prev = Quat::IDENTITY;
        for (k, f) in frames.iter().enumerate() {
            let x = &f[b];
            t.extend_from_slice(&x.translation.to_array());
            let mut q = x.rotation.normalize();
            if k > 0 && q.dot(prev) < 0.0 {
                q = -q;
            }
            prev = q;
            r.extend_from_slice(&q.to_array());
            s.extend_from_slice(&x.scale.to_array());
        }
        for (data, ty, path) in [
            (&t, "VEC3", "translation"),
            (&r, "VEC4", "rotation"),
            (&s, "VEC3", "scale"),
        ] {
            let output = push_accessor(&mut bin, data, ty, None);
            channels.push(json!({
                "sampler": samplers.len(),
                "target": { "node": node, "path": path },
            }));
            samplers.push(json!({
                "input": input,
                "output": output,
                "interpolation": "LINEAR",
            }));
        }
    }
    let length = bin.len() - start;
    array(&mut doc, "bufferViews").push(json!({
        "buffer": 0,
        "byteOffset": start,
        "byteLength": length,
    }));
    array(&mut doc, "accessors").extend(accessors);
    array(&mut doc, "animations").push(json!({
        "name": BAKED_ANIMATION_NAME,
        "samplers": samplers,
        "channels": channels,
    }));
    doc["buffers"] = json!([{ "byteLength": bin.len() }]);
    write_glb(&doc, bin)
}

/// Bakes world matrices (one per bone, relative to the scene root, skeleton bone order) by
/// converting them to local transforms (`parent_world⁻¹ × world`, decomposed; shear is lost)
/// and calling [`bake_glb`].
///
/// # Errors
/// As [`bake_glb`], and [`GltfError::Export`] for a singular world matrix.
pub fn bake_glb_from_world(
    model: &GltfModel,
    fps: f32,
    frames: &[Vec<Affine3A>],
) -> Result<Vec<u8>, GltfError> {
    let s = model.skeleton();
    let mut locals = Vec::with_capacity(frames.len());
    for (k, f) in frames.iter().enumerate() {
        if f.len() != s.len() {
            return Err(export_err(format!(
                "frame {k} has {} matrices, the skeleton {} bones",
                f.len(),
                s.len()
            )));
        }
        let mut out = Vec::with_capacity(f.len());
        for b in s.bones() {
            let w = f[b.index()];
            let local = match s.parent(b) {
                Some(p) => f[p.index()].inverse() * w,
                None => w,
            };
            out.push(
                Transform::try_from_affine(&local).ok_or_else(|| {
                    export_err(format!("frame {k}: bone {b} has a singular matrix"))
                })?,
            );
        }
        locals.push(out);
    }
    bake_glb(model, fps, &locals)
}

/// The named top-level array of the document (created when missing).
fn array<'a>(doc: &'a mut Value, key: &str) -> &'a mut Vec<Value> {
    if !doc[key].is_array() {
        doc[key] = json!([]);
    }
    doc[key].as_array_mut().expect("just made an array")
}

/// Concatenates every buffer (4-byte aligned) into one and re-points the buffer views.
fn merge_buffers(doc: &mut Value, buffers: &[Vec<u8>]) -> Result<Vec<u8>, GltfError> {
    let mut bin = Vec::new();
    let mut base = Vec::with_capacity(buffers.len());
    for b in buffers {
        base.push(bin.len());
        bin.extend_from_slice(b);
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
    }
    for view in array(doc, "bufferViews") {
        let buffer = view["buffer"]
            .as_u64()
            .and_then(|b| base.get(b as usize).copied())
            .ok_or_else(|| export_err("buffer view with an invalid buffer"))?;
        let offset = view["byteOffset"].as_u64().unwrap_or(0) as usize;
        view["buffer"] = json!(0);
        view["byteOffset"] = json!(buffer + offset);
    }
    Ok(bin)
}

/// A GLB container of glTF document `doc` and its one binary buffer `bin`: header, JSON chunk
/// padded with spaces, BIN chunk padded with zeros (what every sinew `.glb` is written with).
///
/// # Errors
/// [`GltfError`] when the document does not serialise or the file would exceed 4 GiB.
pub fn write_glb(doc: &Value, mut bin: Vec<u8>) -> Result<Vec<u8>, GltfError> {
    let mut json = serde_json::to_vec(doc).map_err(|e| export_err(e.to_string()))?;
    while json.len() % 4 != 0 {
        json.push(b' ');
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let total32 = u32::try_from(total).map_err(|_| export_err("file exceeds 4 GiB"))?;
    let mut out = Vec::with_capacity(total);
    for w in [GLB_MAGIC, 2, total32, json.len() as u32, CHUNK_JSON] {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.extend_from_slice(&json);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
    out.extend_from_slice(&bin);
    Ok(out)
}
