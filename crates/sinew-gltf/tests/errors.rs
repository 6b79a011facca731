//! Bad input gives typed errors, never panics.

mod common;

use serde_json::json;
use sinew_gltf::{GltfError, GltfModel};

fn err(bytes: &[u8]) -> GltfError {
    GltfModel::from_slice(bytes).expect_err("must fail")
}

#[test]
fn truncated_glb_is_a_parse_error() {
    let full = common::procedural().glb();
    for cut in [8, 20, full.len() / 2, full.len() - 4] {
        assert!(
            matches!(err(&full[..cut]), GltfError::Parse(_)),
            "cut at {cut}"
        );
    }
    assert!(matches!(err(b"{ not json"), GltfError::Parse(_)));
    if let Some(dir) = common::assets_dir() {
        let bytes = std::fs::read(dir.join("gltf/CesiumMan/CesiumMan.glb")).unwrap();
        assert!(matches!(
            err(&bytes[..bytes.len() - 1000]),
            GltfError::Parse(_)
        ));
    }
}

#[test]
fn missing_buffers_are_buffer_errors() {
    let d = common::procedural();
    // GLB whose buffer 0 has no BIN chunk.
    let mut j = d.json.clone();
    j["buffers"] = json!([{ "byteLength": d.bin.len() }]);
    let no_bin = common::glb(&j, None);
    assert!(matches!(err(&no_bin), GltfError::Buffer { index: 0, .. }));
    // External .bin referenced from memory.
    j["buffers"] = json!([{ "byteLength": d.bin.len(), "uri": "rig.bin" }]);
    let text = serde_json::to_vec(&j).unwrap();
    assert!(matches!(err(&text), GltfError::Buffer { index: 0, .. }));
    // From a file: missing, then present next to it.
    let dir = std::env::temp_dir().join(format!("sinew-gltf-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("rig.gltf");
    std::fs::write(&path, &text).unwrap();
    let e = GltfModel::load(&path).expect_err("missing rig.bin");
    assert!(matches!(e, GltfError::Buffer { index: 0, .. }), "{e}");
    std::fs::write(dir.join("rig.bin"), &d.bin).unwrap();
    let m = GltfModel::load(&path).expect("external .bin next to the .gltf");
    assert_eq!(m.skeleton().len(), 5);
    // A .bin shorter than declared.
    std::fs::write(dir.join("rig.bin"), &d.bin[..16]).unwrap();
    let e = GltfModel::load(&path).expect_err("short rig.bin");
    assert!(matches!(e, GltfError::Buffer { index: 0, .. }), "{e}");
    std::fs::remove_dir_all(&dir).ok();
    // A file that does not exist.
    assert!(matches!(
        GltfModel::load(dir.join("nope.glb")),
        Err(GltfError::Io { .. })
    ));
}

#[test]
fn bad_accessors_are_accessor_errors() {
    // Inverse bind matrices typed VEC3.
    let mut d = common::procedural();
    let ibm = d.json["skins"][0]["inverseBindMatrices"].as_u64().unwrap() as usize;
    d.json["accessors"][ibm]["type"] = json!("VEC3");
    d.json["accessors"][ibm]["count"] = json!(12);
    assert!(matches!(
        err(&d.glb()),
        GltfError::Accessor {
            usage: "inverse bind matrices",
            ..
        }
    ));
    // Too few inverse bind matrices for the joints.
    let mut d = common::procedural();
    d.json["accessors"][ibm]["count"] = json!(2);
    assert!(matches!(err(&d.glb()), GltfError::Accessor { .. }));
    // An accessor reaching past its buffer view.
    let mut d = common::procedural();
    let out = d.json["animations"][0]["samplers"][2]["output"]
        .as_u64()
        .unwrap() as usize;
    d.json["accessors"][out]["count"] = json!(1000);
    assert!(matches!(
        err(&d.glb()),
        GltfError::Accessor {
            usage: "animation output",
            ..
        }
    ));
    // A rotation output with unsigned 32-bit components (the gltf crate would panic).
    let mut d = common::procedural();
    let out = d.json["animations"][0]["samplers"][0]["output"]
        .as_u64()
        .unwrap() as usize;
    d.json["accessors"][out]["componentType"] = json!(5125);
    d.json["accessors"][out]["normalized"] = json!(true);
    assert!(matches!(
        err(&d.glb()),
        GltfError::Accessor { .. } | GltfError::Parse(_)
    ));
    // Output count not matching the keys.
    let mut d = common::procedural();
    let out = d.json["animations"][0]["samplers"][2]["output"]
        .as_u64()
        .unwrap() as usize;
    d.json["accessors"][out]["count"] = json!(2);
    assert!(matches!(err(&d.glb()), GltfError::Accessor { .. }));
    // A buffer view index out of range is caught by document validation.
    let mut d = common::procedural();
    d.json["accessors"][0]["bufferView"] = json!(99);
    assert!(matches!(err(&d.glb()), GltfError::Parse(_)));
}

#[test]
fn structural_problems_are_typed() {
    let mut d = common::procedural();
    d.json.as_object_mut().unwrap().remove("skins");
    assert!(matches!(err(&d.glb()), GltfError::NoSkin));
    // Node 4 is a child of nodes 3 and 5.
    let mut d = common::procedural();
    d.json["nodes"][5]["children"] = json!([4]);
    assert!(matches!(
        err(&d.glb()),
        GltfError::MultipleParents { node: 4, .. }
    ));
    // Decreasing key times.
    let mut d = common::procedural();
    let input = d.json["animations"][0]["samplers"][0]["input"]
        .as_u64()
        .unwrap() as usize;
    let times: Vec<f32> = vec![0.0, 2.0, 1.0];
    let off = d.bin.len();
    for t in &times {
        d.bin.extend_from_slice(&t.to_le_bytes());
    }
    d.json["bufferViews"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "buffer": 0, "byteOffset": off, "byteLength": 12 }));
    let view = d.json["bufferViews"].as_array().unwrap().len() - 1;
    d.json["accessors"][input]["bufferView"] = json!(view);
    d.json["accessors"][input]["max"] = json!([2.0]);
    assert!(matches!(
        err(&d.glb()),
        GltfError::Clip { animation: 0, .. }
    ));
    // Clip index out of range.
    let m = GltfModel::from_slice(&common::procedural().glb()).unwrap();
    assert!(matches!(
        m.joint_worlds(5, 0.0),
        Err(GltfError::NoSuchClip { index: 5, count: 1 })
    ));
}
