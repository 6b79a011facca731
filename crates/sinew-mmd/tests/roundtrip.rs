//! Writers: parse → write → parse gives equal structs, for the writer-built
//! fixtures and for every real PMX / VMD asset.

mod common;

use common::fixtures::{pmx_fixtures, vmd_fixture};
use sinew_mmd::vmd::VmdVersion;
use sinew_mmd::{Pmx, Vmd};

#[test]
fn pmx_fixtures_roundtrip() {
    for model in pmx_fixtures() {
        let bytes = model.to_bytes();
        let parsed = Pmx::parse(&bytes)
            .unwrap_or_else(|e| panic!("{:?} {:?}: {e}", model.version, model.globals));
        assert_eq!(parsed, model, "{:?} {:?}", model.version, model.globals);
        assert_eq!(parsed.to_bytes(), bytes);
    }
}

#[test]
fn pmx_vertex_indices_are_unsigned_for_small_sizes() {
    for model in pmx_fixtures() {
        let parsed = Pmx::parse(&model.to_bytes()).unwrap();
        let expected = match model.globals.vertex_index_size {
            1 => 200,
            2 => 40_000,
            _ => 3_000_000,
        };
        assert_eq!(parsed.indices[5], expected);
        // Other indices are signed: -1 survives every size.
        assert_eq!(parsed.materials[0].sphere_texture, -1);
        assert_eq!(parsed.bones[0].parent, -1);
    }
}

#[test]
fn pmx_bone_flags_drive_the_optional_data() {
    let model = &pmx_fixtures()[0];
    let b = &model.bones;
    assert!(b[3].flags.tail_is_bone() && b[3].flags.fixed_axis());
    assert!(b[4].flags.local_append() && b[4].flags.local_axes());
    assert!(b[4].flags.append_rotate() && b[4].flags.append_translate());
    assert!(b[5].flags.ik() && b[5].flags.after_physics() && b[5].flags.external_parent());
    // Writing derives the announcing flags from the data.
    let mut m = model.clone();
    m.bones[3].fixed_axis = None;
    m.bones[5].ik = None;
    let parsed = Pmx::parse(&m.to_bytes()).unwrap();
    assert!(!parsed.bones[3].flags.fixed_axis());
    assert!(!parsed.bones[5].flags.ik());
    assert_eq!(parsed.bones[5].ik, None);
}

#[test]
fn vmd_fixtures_roundtrip() {
    for version in [VmdVersion::V2, VmdVersion::Old] {
        let motion = vmd_fixture(version);
        let bytes = motion.to_bytes();
        let parsed = Vmd::parse(&bytes).unwrap();
        assert_eq!(parsed, motion);
        assert_eq!(parsed.to_bytes(), bytes);
    }
}

#[test]
fn vmd_may_end_after_any_complete_section() {
    let full = vmd_fixture(VmdVersion::V2);
    let mut cuts = Vec::new();
    let mut m = full.clone();
    // Remove sections from the back; each shorter file is a prefix of the full one
    // minus the zero counts of the removed sections.
    for _ in 0..6 {
        cuts.push(m.clone());
        if !m.property_keys.is_empty() {
            m.property_keys.clear();
        } else if !m.self_shadow_keys.is_empty() {
            m.self_shadow_keys.clear();
        } else if !m.light_keys.is_empty() {
            m.light_keys.clear();
        } else if !m.camera_keys.is_empty() {
            m.camera_keys.clear();
        } else if !m.morph_keys.is_empty() {
            m.morph_keys.clear();
        } else {
            m.bone_keys.clear();
        }
    }
    let full_bytes = full.to_bytes();
    for (removed, expected) in cuts.iter().enumerate() {
        let len = expected.to_bytes().len() - 4 * removed;
        let parsed = Vmd::parse(&full_bytes[..len]).unwrap();
        assert_eq!(&parsed, expected, "{removed} sections removed");
    }
    // Header only.
    let header = &full_bytes[..50];
    assert_eq!(Vmd::parse(header).unwrap().bone_keys.len(), 0);
}

#[test]
fn real_pmx_and_vmd_roundtrip() {
    let files = common::mmd_files();
    if files.is_empty() {
        return; // said "skipping" (a failure under CI)
    }
    let mut compared = 0;
    for path in files {
        let data = std::fs::read(&path).unwrap();
        match path.extension().and_then(|e| e.to_str()) {
            Some("pmx") => {
                let m = Pmx::parse(&data).unwrap();
                let bytes = m.to_bytes();
                assert_eq!(Pmx::parse(&bytes).unwrap(), m, "{}", path.display());
                assert_eq!(bytes.len(), data.len(), "{}", path.display());
                compared += 1;
            }
            Some("vmd") => {
                let m = Vmd::parse(&data).unwrap();
                assert_eq!(Vmd::parse(&m.to_bytes()).unwrap(), m, "{}", path.display());
                compared += 1;
            }
            _ => {}
        }
    }
    // The shared folder's 9 PMX and 5 VMD files.
    assert_eq!(compared, 14, "PMX and VMD files round-tripped");
}
