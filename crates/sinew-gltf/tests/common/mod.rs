//! Shared test helpers: locating the shared assets.
#![allow(dead_code)]

use std::path::PathBuf;

pub use sinew_testkit::assets_dir;

/// `<assets>/../conformance`, if it exists.
pub fn conformance_dir() -> Option<PathBuf> {
    let dir = assets_dir()?.join("../conformance");
    if dir.is_dir() {
        Some(dir)
    } else {
        sinew_testkit::assets::missing(&format!("conformance dir {}", dir.display()));
        None
    }
}

/// Every `.gltf` / `.glb` under `<assets>/gltf`, sorted.
pub fn gltf_files() -> Vec<PathBuf> {
    let Some(dir) = assets_dir() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir.join("gltf")) else {
        sinew_testkit::assets::missing(&format!("gltf folder in {}", dir.display()));
        return out;
    };
    for sub in rd.flatten() {
        if let Ok(files) = std::fs::read_dir(sub.path()) {
            for f in files.flatten() {
                let p = f.path();
                if matches!(p.extension().and_then(|e| e.to_str()), Some("gltf" | "glb")) {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

use serde_json::{json, Value};

/// A glTF document under construction: JSON plus one binary buffer.
pub struct DocBuilder {
    /// The JSON (`asset`, `nodes`, … filled by the test).
    pub json: Value,
    /// Buffer 0.
    pub bin: Vec<u8>,
}

impl Default for DocBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl DocBuilder {
    /// An empty document with `asset.version = "2.0"`.
    pub fn new() -> Self {
        Self {
            json: json!({ "asset": { "version": "2.0" }, "accessors": [], "bufferViews": [] }),
            bin: Vec::new(),
        }
    }

    /// Appends float data as its own buffer view and accessor; returns the accessor index.
    pub fn floats(&mut self, data: &[f32], ty: &str) -> usize {
        let offset = self.bin.len();
        for x in data {
            self.bin.extend_from_slice(&x.to_le_bytes());
        }
        let comps = match ty {
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            _ => 1,
        };
        let views = self.json["bufferViews"].as_array_mut().unwrap();
        views.push(json!({ "buffer": 0, "byteOffset": offset, "byteLength": data.len() * 4 }));
        let view = views.len() - 1;
        let mut acc = json!({
            "bufferView": view, "componentType": 5126, "count": data.len() / comps, "type": ty
        });
        if ty == "SCALAR" {
            let lo = data.iter().copied().fold(f32::MAX, f32::min);
            let hi = data.iter().copied().fold(f32::MIN, f32::max);
            acc["min"] = json!([lo]);
            acc["max"] = json!([hi]);
        }
        let accs = self.json["accessors"].as_array_mut().unwrap();
        accs.push(acc);
        accs.len() - 1
    }

    /// The document as `.glb` bytes (buffer 0 = BIN chunk).
    pub fn glb(&self) -> Vec<u8> {
        let mut j = self.json.clone();
        j["buffers"] = json!([{ "byteLength": self.bin.len() }]);
        glb(&j, Some(&self.bin))
    }
}

/// Packs JSON and an optional BIN chunk into a GLB container.
pub fn glb(json: &Value, bin: Option<&[u8]>) -> Vec<u8> {
    let mut j = serde_json::to_vec(json).unwrap();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let mut b = bin.map(<[u8]>::to_vec);
    if let Some(b) = &mut b {
        while b.len() % 4 != 0 {
            b.push(0);
        }
    }
    let total = 12 + 8 + j.len() + b.as_ref().map_or(0, |b| 8 + b.len());
    let mut out = Vec::new();
    for w in [0x4654_6C67u32, 2, total as u32, j.len() as u32, 0x4E4F_534A] {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.extend_from_slice(&j);
    if let Some(b) = b {
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(&0x004E_4942u32.to_le_bytes());
        out.extend_from_slice(&b);
    }
    out
}

/// A procedural rig exercising the reader:
///
/// ```text
/// node 0 "root"   (not a joint; ancestor)  t = (0, 1, 0)
/// └ node 1 "hip"      joint of skin 0
///   └ node 2 "spine"  joint of skin 0        t = (0, 1, 0)
///     └ node 3 "spine" (duplicate name) joint of skins 0 and 1, t = (0, 1, 0)
///       └ node 4 (unnamed) joint of skin 1  t = (0, 0.5, 0)
/// node 5 "mesh"   (not a bone)
/// ```
///
/// Skin 0 has exact inverse bind matrices; skin 1 has none (identity: inconsistent). Animation
/// 0: node 1 rotation STEP, node 2 rotation CUBICSPLINE, node 3 translation LINEAR, node 5
/// translation (ignored: not a bone), node 5 weights (2 targets, LINEAR).
pub fn procedural() -> DocBuilder {
    let mut d = DocBuilder::new();
    let ibm = |y: f32| -> Vec<f32> {
        let mut m = vec![0.0; 16];
        m[0] = 1.0;
        m[5] = 1.0;
        m[10] = 1.0;
        m[15] = 1.0;
        m[13] = -y;
        m
    };
    let mut ibm0 = ibm(1.0);
    ibm0.extend(ibm(2.0));
    ibm0.extend(ibm(3.0));
    let ibm0 = d.floats(&ibm0, "MAT4");
    let t_step = d.floats(&[0.0, 1.0, 2.0], "SCALAR");
    let (s, c) = (0.5f32.sin(), 0.5f32.cos());
    let r_step = d.floats(
        &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, s, c, 0.0, 0.0, 0.0, 1.0],
        "VEC4",
    );
    let t_cubic = d.floats(&[0.0, 2.0], "SCALAR");
    // in-tangent, value, out-tangent per key
    let r_cubic = d.floats(
        &[
            0.0, 0.0, 0.0, 0.0, /**/ 0.0, 0.0, 0.0, 1.0, /**/ 0.0, 0.3, 0.0, 0.0, //
            0.0, -0.2, 0.0, 0.0, /**/ 0.0, 0.6, 0.0, 0.8, /**/ 0.0, 0.0, 0.0, 0.0,
        ],
        "VEC4",
    );
    let t_lin = d.floats(&[0.0, 1.0, 3.0], "SCALAR");
    let tr_lin = d.floats(&[0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 3.0, 0.0], "VEC3");
    let w = d.floats(&[0.0, 1.0, 1.0, 0.0, 0.5, 0.5], "SCALAR");
    d.json["nodes"] = json!([
        { "name": "root", "translation": [0.0, 1.0, 0.0], "children": [1] },
        { "name": "hip", "children": [2] },
        { "name": "spine", "translation": [0.0, 1.0, 0.0], "children": [3] },
        { "name": "spine", "translation": [0.0, 1.0, 0.0], "children": [4] },
        { "translation": [0.0, 0.5, 0.0] },
        { "name": "mesh" }
    ]);
    d.json["skins"] = json!([
        { "joints": [1, 2, 3], "inverseBindMatrices": ibm0 },
        { "joints": [3, 4] }
    ]);
    d.json["scenes"] = json!([{ "nodes": [0, 5] }]);
    d.json["scene"] = json!(0);
    d.json["animations"] = json!([{
        "name": "proc",
        "samplers": [
            { "input": t_step, "output": r_step, "interpolation": "STEP" },
            { "input": t_cubic, "output": r_cubic, "interpolation": "CUBICSPLINE" },
            { "input": t_lin, "output": tr_lin },
            { "input": t_lin, "output": tr_lin },
            { "input": t_lin, "output": w }
        ],
        "channels": [
            { "sampler": 0, "target": { "node": 1, "path": "rotation" } },
            { "sampler": 1, "target": { "node": 2, "path": "rotation" } },
            { "sampler": 2, "target": { "node": 3, "path": "translation" } },
            { "sampler": 3, "target": { "node": 5, "path": "translation" } },
            { "sampler": 4, "target": { "node": 5, "path": "weights" } }
        ]
    }]);
    d
}
