//! Conformance: our parse of every MMD asset matches the two third-party
//! summaries in `shared/conformance` (mmd-parser's `parse_summary.json` and
//! babylon-mmd's `babylon_parse_summary.json`). Where they differ we follow
//! babylon-mmd; the two known differences are checked explicitly:
//! PMD morphs (mmd-parser counts the "base" morph, babylon drops it) and the
//! VMD light / self-shadow / property sections (mmd-parser does not read them).

mod common;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

use serde_json::Value;
use sinew_mmd::pmx::{PmxBoneTail, PmxMorphOffsets};
use sinew_mmd::{Pmd, Pmx, Vmd};

fn load_summary(name: &str) -> Option<Vec<Value>> {
    let path = common::conformance_dir()?.join(name);
    let Ok(text) = std::fs::read_to_string(&path) else {
        sinew_testkit::assets::missing(&format!("{}", path.display()));
        return None;
    };
    let v: Value = serde_json::from_str(&text).expect("summary is JSON");
    Some(v["results"].as_array().expect("results array").clone())
}

fn asset_paths() -> HashMap<String, PathBuf> {
    common::mmd_files()
        .into_iter()
        .filter_map(|p| Some((p.file_name()?.to_str()?.to_string(), p.clone())))
        .collect()
}

fn num(v: &Value) -> f64 {
    v.as_f64()
        .unwrap_or_else(|| panic!("expected a number, got {v}"))
}

fn count(v: &Value, key: &str) -> usize {
    num(&v["counts"][key]) as usize
}

fn vec_eq(json: &Value, ours: &[f32], what: &str) {
    let arr = json
        .as_array()
        .unwrap_or_else(|| panic!("{what}: not an array"));
    assert_eq!(arr.len(), ours.len(), "{what}: length");
    for (j, o) in arr.iter().zip(ours) {
        // serde_json may parse a float one ulp off; the f32 it rounds to is exact.
        assert_eq!(num(j) as f32, *o, "{what}: {json} vs {ours:?}");
    }
}

fn f_eq(json: &Value, ours: f32, what: &str) {
    assert_eq!(num(json) as f32, ours, "{what}");
}

/// A PMD `u16` that mmd-parser may have read as signed.
fn u16_eq(json: &Value, ours: u16, what: &str) {
    let j = num(json) as i64;
    assert!(
        j == i64::from(ours) || j == i64::from(ours as i16),
        "{what}: json {j} vs ours {ours}"
    );
}

#[test]
fn mmd_parser_summary_matches() {
    let Some(results) = load_summary("parse_summary.json") else {
        return;
    };
    let paths = asset_paths();
    let mut checked = 0;
    for r in &results {
        let file = r["file"].as_str().unwrap();
        let Some(path) = paths.get(file) else {
            sinew_testkit::assets::missing(file);
            continue;
        };
        let data = std::fs::read(path).unwrap();
        match r["format"].as_str().unwrap() {
            "pmx" => check_pmx_mmd_parser(file, r, &Pmx::parse(&data).unwrap()),
            "pmd" => check_pmd_mmd_parser(file, r, &Pmd::parse(&data).unwrap()),
            "vmd" => check_vmd_mmd_parser(file, r, &Vmd::parse(&data).unwrap()),
            f => panic!("{file}: unknown format {f}"),
        }
        checked += 1;
    }
    eprintln!("checked {checked} files against mmd-parser");
    // Every file the summary lists (15: the shared PMX, PMD and VMD files) was compared.
    assert_eq!(checked, results.len(), "files compared");
    assert_eq!(checked, 15, "files in the summary");
}

fn check_pmx_mmd_parser(file: &str, r: &Value, m: &Pmx) {
    assert_eq!(num(&r["version"]), f64::from(m.version), "{file}");
    assert_eq!(
        num(&r["encoding"]) as u8,
        m.globals.encoding as u8,
        "{file}"
    );
    assert_eq!(
        num(&r["additionalUvNum"]) as u8,
        m.globals.additional_uv_count,
        "{file}"
    );
    assert_eq!(r["modelName"], m.name.as_str(), "{file}");
    assert_eq!(r["englishModelName"], m.name_en.as_str(), "{file}");
    assert_eq!(r["comment"], m.comment.as_str(), "{file}");
    assert_eq!(count(r, "vertices"), m.vertices.len(), "{file}");
    assert_eq!(count(r, "faces"), m.indices.len() / 3, "{file}");
    assert_eq!(count(r, "textures"), m.textures.len(), "{file}");
    assert_eq!(count(r, "materials"), m.materials.len(), "{file}");
    assert_eq!(count(r, "bones"), m.bones.len(), "{file}");
    let iks = m.bones.iter().filter(|b| b.ik.is_some()).count();
    assert_eq!(count(r, "iks"), iks, "{file}");
    assert_eq!(count(r, "morphs"), m.morphs.len(), "{file}");
    assert_eq!(count(r, "frames"), m.display_frames.len(), "{file}");
    assert_eq!(count(r, "rigidBodies"), m.rigid_bodies.len(), "{file}");
    assert_eq!(count(r, "joints"), m.joints.len(), "{file}");

    let flag_bits: [(&str, u16); 13] = [
        ("connection", 0x0001),
        ("rotatable", 0x0002),
        ("movable", 0x0004),
        ("visible", 0x0008),
        ("operable", 0x0010),
        ("ik", 0x0020),
        ("localAppend", 0x0080),
        ("appendRotate", 0x0100),
        ("appendTranslate", 0x0200),
        ("fixedAxis", 0x0400),
        ("localAxis", 0x0800),
        ("afterPhysics", 0x1000),
        ("externalParent", 0x2000),
    ];
    for (key, bit) in flag_bits {
        let n = m.bones.iter().filter(|b| b.flags.0 & bit != 0).count();
        assert_eq!(num(&r["boneFlagCounts"][key]) as usize, n, "{file} {key}");
    }
    let appends = m.bones.iter().filter(|b| b.append.is_some()).count();
    assert_eq!(num(&r["appendBones"]) as usize, appends, "{file}");
    let mut types: BTreeMap<String, usize> = BTreeMap::new();
    for mo in &m.morphs {
        *types.entry(mo.offsets.type_id().to_string()).or_default() += 1;
    }
    let json_types: BTreeMap<String, usize> = r["morphTypeCounts"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), num(v) as usize))
        .collect();
    assert_eq!(json_types, types, "{file} morph types");

    for (jb, b) in r["bones"].as_array().unwrap().iter().zip(&m.bones) {
        let what = format!("{file} bone {}", b.name);
        assert_eq!(jb["name"], b.name.as_str(), "{what}");
        assert_eq!(num(&jb["parent"]) as i32, b.parent, "{what}");
        vec_eq(&jb["position"], &b.position.to_array(), &what);
        assert_eq!(num(&jb["flag"]) as u16, b.flags.0, "{what}");
        assert_eq!(num(&jb["transformationClass"]) as i32, b.layer, "{what}");
        match (&jb.get("grant"), &b.append) {
            (Some(g), Some(a)) => {
                assert_eq!(num(&g["parentIndex"]) as i32, a.parent, "{what}");
                f_eq(&g["ratio"], a.ratio, &what);
                assert_eq!(g["isLocal"], b.flags.local_append(), "{what}");
                assert_eq!(g["affectRotation"], b.flags.append_rotate(), "{what}");
                assert_eq!(g["affectPosition"], b.flags.append_translate(), "{what}");
            }
            (None, None) => {}
            (g, a) => panic!("{what}: grant {g:?} vs append {a:?}"),
        }
        match (&jb.get("ik"), &b.ik) {
            (Some(j), Some(ik)) => {
                assert_eq!(num(&j["effector"]) as i32, ik.effector, "{what}");
                assert_eq!(num(&j["iteration"]) as i32, ik.loop_count, "{what}");
                f_eq(&j["maxAngle"], ik.limit_angle, &what);
                let links = j["links"].as_array().unwrap();
                assert_eq!(links.len(), ik.links.len(), "{what}");
                for (jl, l) in links.iter().zip(&ik.links) {
                    assert_eq!(num(&jl["index"]) as i32, l.bone, "{what}");
                }
            }
            (None, None) => {}
            (j, i) => panic!("{what}: ik {j:?} vs {i:?}"),
        }
        // The tail is an offset or a bone exactly as the connection flag says.
        assert_eq!(
            matches!(b.tail, PmxBoneTail::Bone(_)),
            b.flags.tail_is_bone(),
            "{what}"
        );
    }
    assert_eq!(r["bones"].as_array().unwrap().len(), m.bones.len());

    let jrb = r["rigidBodies"].as_array().unwrap();
    assert_eq!(jrb.len(), m.rigid_bodies.len(), "{file}");
    for (j, b) in jrb.iter().zip(&m.rigid_bodies) {
        let what = format!("{file} rigid body {}", b.name);
        assert_eq!(j["name"], b.name.as_str(), "{what}");
        assert_eq!(num(&j["boneIndex"]) as i32, b.bone, "{what}");
        assert_eq!(num(&j["groupIndex"]) as u8, b.group, "{what}");
        assert_eq!(num(&j["groupTarget"]) as u16, b.collision_mask, "{what}");
        assert_eq!(num(&j["shapeType"]) as u8, b.shape.to_u8(), "{what}");
        vec_eq(
            &Value::from(vec![
                j["width"].clone(),
                j["height"].clone(),
                j["depth"].clone(),
            ]),
            &b.size.to_array(),
            &what,
        );
        vec_eq(&j["position"], &b.position.to_array(), &what);
        vec_eq(&j["rotation"], &b.rotation.to_array(), &what);
        f_eq(&j["weight"], b.mass, &what);
        f_eq(&j["positionDamping"], b.linear_damping, &what);
        f_eq(&j["rotationDamping"], b.angular_damping, &what);
        f_eq(&j["restitution"], b.restitution, &what);
        f_eq(&j["friction"], b.friction, &what);
        assert_eq!(num(&j["type"]) as u8, b.mode.to_u8(), "{what}");
    }
    let jj = r["joints"].as_array().unwrap();
    assert_eq!(jj.len(), m.joints.len(), "{file}");
    for (j, x) in jj.iter().zip(&m.joints) {
        let what = format!("{file} joint {}", x.name);
        assert_eq!(j["name"], x.name.as_str(), "{what}");
        assert_eq!(num(&j["rigidBodyIndex1"]) as i32, x.body_a, "{what}");
        assert_eq!(num(&j["rigidBodyIndex2"]) as i32, x.body_b, "{what}");
        check_joint_vectors(
            j,
            [
                x.position,
                x.rotation,
                x.linear_lower,
                x.linear_upper,
                x.angular_lower,
                x.angular_upper,
                x.spring_linear,
                x.spring_angular,
            ],
            &what,
        );
    }
}

fn check_joint_vectors(j: &Value, v: [glam::Vec3; 8], what: &str) {
    let keys = [
        "position",
        "rotation",
        "translationLimitation1",
        "translationLimitation2",
        "rotationLimitation1",
        "rotationLimitation2",
        "springPosition",
        "springRotation",
    ];
    for (k, x) in keys.iter().zip(v) {
        vec_eq(&j[*k], &x.to_array(), &format!("{what} {k}"));
    }
}

fn check_pmd_mmd_parser(file: &str, r: &Value, m: &Pmd) {
    assert_eq!(num(&r["version"]), f64::from(m.version), "{file}");
    assert_eq!(r["modelName"], m.name.as_str(), "{file}");
    let en = m.english.as_ref().map(|e| e.name.as_str());
    assert_eq!(r["englishModelName"].as_str(), en, "{file}");
    assert_eq!(r["comment"], m.comment.as_str(), "{file}");
    assert_eq!(count(r, "vertices"), m.vertices.len(), "{file}");
    assert_eq!(count(r, "faces"), m.indices.len() / 3, "{file}");
    assert_eq!(count(r, "materials"), m.materials.len(), "{file}");
    assert_eq!(count(r, "bones"), m.bones.len(), "{file}");
    assert_eq!(count(r, "iks"), m.iks.len(), "{file}");
    // mmd-parser keeps the "base" morph, as we do.
    assert_eq!(count(r, "morphs"), m.morphs.len(), "{file}");
    assert_eq!(count(r, "rigidBodies"), m.rigid_bodies.len(), "{file}");
    assert_eq!(count(r, "joints"), m.joints.len(), "{file}");
    let mut types: BTreeMap<String, usize> = BTreeMap::new();
    for mo in &m.morphs {
        *types.entry(mo.kind.to_string()).or_default() += 1;
    }
    let json_types: BTreeMap<String, usize> = r["morphTypeCounts"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), num(v) as usize))
        .collect();
    assert_eq!(json_types, types, "{file} morph kinds");

    let jb = r["bones"].as_array().unwrap();
    assert_eq!(jb.len(), m.bones.len());
    for (j, b) in jb.iter().zip(&m.bones) {
        let what = format!("{file} bone {}", b.name);
        assert_eq!(j["name"], b.name.as_str(), "{what}");
        u16_eq(&j["parent"], b.parent, &what);
        vec_eq(&j["position"], &b.position.to_array(), &what);
        assert_eq!(num(&j["type"]) as u8, b.kind, "{what}");
        u16_eq(&j["ikIndex"], b.ik_parent, &what);
        u16_eq(&j["tailIndex"], b.tail, &what);
    }
    let ji = r["iks"].as_array().unwrap();
    assert_eq!(ji.len(), m.iks.len());
    for (j, ik) in ji.iter().zip(&m.iks) {
        let what = format!("{file} ik {}", ik.ik_bone);
        u16_eq(&j["target"], ik.ik_bone, &what);
        u16_eq(&j["effector"], ik.effector, &what);
        assert_eq!(num(&j["linkCount"]) as usize, ik.links.len(), "{what}");
        assert_eq!(num(&j["iteration"]) as u16, ik.iterations, "{what}");
        f_eq(&j["maxAngle"], ik.limit_angle, &what);
        for (jl, l) in j["links"].as_array().unwrap().iter().zip(&ik.links) {
            u16_eq(&jl["index"], *l, &what);
        }
    }
    let jrb = r["rigidBodies"].as_array().unwrap();
    for (j, b) in jrb.iter().zip(&m.rigid_bodies) {
        let what = format!("{file} rigid body {}", b.name);
        assert_eq!(j["name"], b.name.as_str(), "{what}");
        u16_eq(&j["boneIndex"], b.bone, &what);
        assert_eq!(num(&j["groupIndex"]) as u8, b.group, "{what}");
        assert_eq!(num(&j["groupTarget"]) as u16, b.collision_mask, "{what}");
        assert_eq!(num(&j["shapeType"]) as u8, b.shape.to_u8(), "{what}");
        f_eq(&j["width"], b.size.x, &what);
        f_eq(&j["height"], b.size.y, &what);
        f_eq(&j["depth"], b.size.z, &what);
        vec_eq(&j["position"], &b.position.to_array(), &what);
        vec_eq(&j["rotation"], &b.rotation.to_array(), &what);
        f_eq(&j["weight"], b.mass, &what);
        f_eq(&j["positionDamping"], b.linear_damping, &what);
        f_eq(&j["rotationDamping"], b.angular_damping, &what);
        f_eq(&j["restitution"], b.restitution, &what);
        f_eq(&j["friction"], b.friction, &what);
        assert_eq!(num(&j["type"]) as u8, b.mode.to_u8(), "{what}");
    }
    let jj = r["joints"].as_array().unwrap();
    for (j, x) in jj.iter().zip(&m.joints) {
        let what = format!("{file} joint {}", x.name);
        assert_eq!(j["name"], x.name.as_str(), "{what}");
        assert_eq!(num(&j["rigidBodyIndex1"]) as u32, x.body_a, "{what}");
        assert_eq!(num(&j["rigidBodyIndex2"]) as u32, x.body_b, "{what}");
        check_joint_vectors(
            j,
            [
                x.position,
                x.rotation,
                x.linear_lower,
                x.linear_upper,
                x.angular_lower,
                x.angular_upper,
                x.spring_linear,
                x.spring_angular,
            ],
            &what,
        );
    }
}

fn check_vmd_mmd_parser(file: &str, r: &Value, m: &Vmd) {
    assert_eq!(r["magic"], "Vocaloid Motion Data 0002", "{file}");
    assert_eq!(m.version, sinew_mmd::vmd::VmdVersion::V2, "{file}");
    assert_eq!(r["name"], m.model_name.as_str(), "{file}");
    assert_eq!(count(r, "boneKeyframes"), m.bone_keys.len(), "{file}");
    assert_eq!(count(r, "morphKeyframes"), m.morph_keys.len(), "{file}");
    assert_eq!(count(r, "cameraKeyframes"), m.camera_keys.len(), "{file}");
    let bones: HashSet<&str> = m.bone_keys.iter().map(|k| k.bone_name.as_str()).collect();
    let morphs: HashSet<&str> = m.morph_keys.iter().map(|k| k.morph_name.as_str()).collect();
    assert_eq!(count(r, "distinctBones"), bones.len(), "{file}");
    assert_eq!(count(r, "distinctMorphs"), morphs.len(), "{file}");
    let max_frame = m
        .bone_keys
        .iter()
        .map(|k| k.frame)
        .chain(m.morph_keys.iter().map(|k| k.frame))
        .chain(m.camera_keys.iter().map(|k| k.frame))
        .max()
        .unwrap_or(0);
    assert_eq!(num(&r["maxFrame"]) as u32, max_frame, "{file}");
    for (j, k) in r["firstBoneKeys"]
        .as_array()
        .unwrap()
        .iter()
        .zip(&m.bone_keys)
    {
        let what = format!("{file} key {} @{}", k.bone_name, k.frame);
        assert_eq!(j["boneName"], k.bone_name.as_str(), "{what}");
        assert_eq!(num(&j["frameNum"]) as u32, k.frame, "{what}");
        vec_eq(&j["position"], &k.translation.to_array(), &what);
        vec_eq(&j["rotation"], &k.rotation.to_array(), &what);
        let interp: Vec<u8> = j["interpolation"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| num(v) as u8)
            .collect();
        assert_eq!(interp.as_slice(), k.interpolation.as_slice(), "{what}");
    }
}

#[test]
fn babylon_summary_matches() {
    let Some(results) = load_summary("babylon_parse_summary.json") else {
        return;
    };
    let paths = asset_paths();
    let mut checked = 0;
    for r in &results {
        let file = r["file"].as_str().unwrap();
        let Some(path) = paths.get(file) else {
            sinew_testkit::assets::missing(file);
            continue;
        };
        let data = std::fs::read(path).unwrap();
        match r["format"].as_str().unwrap() {
            "pmx" => {
                let m = Pmx::parse(&data).unwrap();
                assert_eq!(r["modelName"], m.name.as_str(), "{file}");
                assert_eq!(r["comment"], m.comment.as_str(), "{file}");
                let ours = [
                    ("vertices", m.vertices.len()),
                    ("faces", m.indices.len() / 3),
                    ("textures", m.textures.len()),
                    ("materials", m.materials.len()),
                    ("bones", m.bones.len()),
                    ("iks", m.bones.iter().filter(|b| b.ik.is_some()).count()),
                    (
                        "appendBones",
                        m.bones.iter().filter(|b| b.append.is_some()).count(),
                    ),
                    ("morphs", m.morphs.len()),
                    ("frames", m.display_frames.len()),
                    ("rigidBodies", m.rigid_bodies.len()),
                    ("joints", m.joints.len()),
                    ("softBodies", m.soft_bodies.len()),
                ];
                for (k, n) in ours {
                    assert_eq!(count(r, k), n, "{file} {k}");
                }
                // Sanity on what babylon derives from morph offsets.
                for mo in &m.morphs {
                    if let PmxMorphOffsets::Uv { channel, .. } = mo.offsets {
                        assert!(channel <= 4);
                    }
                }
            }
            "pmd" => {
                let m = Pmd::parse(&data).unwrap();
                assert_eq!(r["modelName"], m.name.as_str(), "{file}");
                assert_eq!(r["comment"], m.comment.as_str(), "{file}");
                let ik_bones: HashSet<u16> = m
                    .iks
                    .iter()
                    .map(|ik| ik.ik_bone)
                    .filter(|&b| usize::from(b) < m.bones.len())
                    .collect();
                let ours = [
                    ("vertices", m.vertices.len()),
                    ("faces", m.indices.len() / 3),
                    ("textures", babylon_pmd_texture_count(&m)),
                    ("materials", m.materials.len()),
                    ("bones", m.bones.len()),
                    ("iks", ik_bones.len()),
                    // PMD type 5 (rotation-influenced) bones become append bones.
                    (
                        "appendBones",
                        m.bones.iter().filter(|b| b.kind == 5).count(),
                    ),
                    // babylon drops the "base" morph; we keep it (mmd-parser too).
                    ("morphs", m.morphs.len().saturating_sub(1)),
                    ("frames", m.morph_display.len() + m.bone_frame_names.len()),
                    ("rigidBodies", m.rigid_bodies.len()),
                    ("joints", m.joints.len()),
                    ("softBodies", 0),
                ];
                for (k, n) in ours {
                    assert_eq!(count(r, k), n, "{file} {k}");
                }
                assert_eq!(m.morphs.first().map(|mo| mo.kind), Some(0), "{file} base");
            }
            "vmd" => {
                let m = Vmd::parse(&data).unwrap();
                let ours = [
                    ("boneKeyframes", m.bone_keys.len()),
                    ("morphKeyframes", m.morph_keys.len()),
                    ("cameraKeyframes", m.camera_keys.len()),
                    ("lightKeyframes", m.light_keys.len()),
                    ("selfShadowKeyframes", m.self_shadow_keys.len()),
                    ("propertyKeyframes", m.property_keys.len()),
                ];
                for (k, n) in ours {
                    assert_eq!(count(r, k), n, "{file} {k}");
                }
            }
            f => panic!("{file}: unknown format {f}"),
        }
        checked += 1;
    }
    eprintln!("checked {checked} files against babylon-mmd");
    // Every file the summary lists (15: the shared PMX, PMD and VMD files) was compared.
    assert_eq!(checked, results.len(), "files compared");
    assert_eq!(checked, 15, "files in the summary");
}

/// babylon-mmd turns a PMD's toon list plus every distinct material texture
/// (the `diffuse*sphere` halves, compared by normalised path) into one list.
fn babylon_pmd_texture_count(m: &Pmd) -> usize {
    fn normalize(p: &str) -> String {
        let mut out: Vec<&str> = Vec::new();
        let p = p.replace('\\', "/");
        for part in p.split('/') {
            match part {
                "." => {}
                ".." => {
                    out.pop();
                }
                x => out.push(x),
            }
        }
        out.join("/").to_lowercase()
    }
    let toons = m.toon_textures.clone().unwrap_or_default();
    let mut seen: HashSet<String> = toons.iter().map(|t| normalize(t)).collect();
    let mut n = toons.len();
    for mat in &m.materials {
        let (d, s) = mat.texture.split_once('*').unwrap_or((&mat.texture, ""));
        for t in [d, s] {
            if !t.is_empty() && seen.insert(normalize(t)) {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn known_differences_between_the_oracles() {
    let (Some(mp), Some(bb)) = (
        load_summary("parse_summary.json"),
        load_summary("babylon_parse_summary.json"),
    ) else {
        return;
    };
    let find = |rs: &[Value], f: &str| rs.iter().find(|r| r["file"] == f).cloned();
    if let (Some(a), Some(b)) = (find(&mp, "miku_v2.pmd"), find(&bb, "miku_v2.pmd")) {
        assert_eq!(count(&a, "morphs"), count(&b, "morphs") + 1);
    }
    if let Some(b) = find(&bb, "physics_toggle_test_yyb10th.vmd") {
        assert_eq!(count(&b, "propertyKeyframes"), 1);
        if let Some(data) = common::read_asset("physics_toggle_test_yyb10th.vmd") {
            let v = Vmd::parse(&data).unwrap();
            let names: Vec<&str> = v.property_keys[0]
                .ik_states
                .iter()
                .map(|s| s.bone_name.as_str())
                .collect();
            assert_eq!(
                names,
                ["右足ＩＫ", "右つま先ＩＫ", "左足ＩＫ", "左つま先ＩＫ"]
            );
        }
    }
}
