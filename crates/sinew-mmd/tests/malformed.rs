//! Malformed and truncated input: a typed error naming the section and byte
//! offset, never a panic.

mod common;

use common::fixtures::{pmx_fixture, pmx_fixtures, vmd_fixture};
use sinew_mmd::pmx::PmxEncoding;
use sinew_mmd::vmd::VmdVersion;
use sinew_mmd::{Format, ParseError, ParseErrorKind, Pmd, Pmx, Vmd};

const PMX_SECTIONS: &[&str] = &[
    "header",
    "model info",
    "vertices",
    "faces",
    "textures",
    "materials",
    "bones",
    "morphs",
    "display frames",
    "rigid bodies",
    "joints",
    "soft bodies",
];

/// Offsets to cut at: every offset for small inputs; for large ones a stride
/// (about 200 cuts, fewer for multi-megabyte files, as each cut re-parses the
/// prefix in a debug build) plus the first and last 256 bytes.
fn cut_points(len: usize) -> Vec<usize> {
    if len <= 8192 {
        return (0..len).collect();
    }
    let n = if len > 256 * 1024 { 60 } else { 200 };
    let stride = (len / n).max(1);
    let mut v: Vec<usize> = (0..256).chain((0..len).step_by(stride)).collect();
    v.extend(len.saturating_sub(256)..len);
    v.sort_unstable();
    v.dedup();
    v
}

fn assert_eof_error(e: &ParseError, len: usize, format: Format, what: &str) {
    assert_eq!(e.format, format, "{what}");
    assert!(!e.section.is_empty(), "{what}");
    match e.kind {
        ParseErrorKind::UnexpectedEof { needed, available } => {
            assert_eq!(e.offset, len, "{what}: {e}");
            assert!(needed > available, "{what}: {e}");
        }
        // A cut can also land inside a text field (odd UTF-16 length) or
        // leave a count / enum byte damaged; it must still be typed and in range.
        _ => assert!(e.offset <= len, "{what}: {e}"),
    }
}

#[test]
fn truncated_pmx_fixtures_fail_with_a_section() {
    for model in pmx_fixtures() {
        let data = model.to_bytes();
        for cut in cut_points(data.len()) {
            let e = Pmx::parse(&data[..cut]).expect_err("a truncated PMX must not parse");
            assert!(PMX_SECTIONS.contains(&e.section), "{e}");
            assert_eof_error(&e, cut, Format::Pmx, &format!("cut {cut}"));
        }
    }
}

#[test]
fn truncated_real_files_never_panic() {
    let files = common::mmd_files();
    if files.is_empty() {
        return; // said "skipping" (a failure under CI)
    }
    let count = files.len();
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        for cut in cut_points(data.len()) {
            let what = format!("{} cut at {cut}", path.display());
            let slice = &data[..cut];
            match ext {
                "pmx" => {
                    let e = Pmx::parse(slice).expect_err(&what);
                    assert_eof_error(&e, cut, Format::Pmx, &what);
                }
                "pmd" => {
                    // Cuts at extension boundaries parse; all others fail.
                    if let Err(e) = Pmd::parse(slice) {
                        assert_eof_error(&e, cut, Format::Pmd, &what);
                    }
                }
                _ => {
                    if let Err(e) = Vmd::parse(slice) {
                        assert_eof_error(&e, cut, Format::Vmd, &what);
                    }
                }
            }
        }
    }
    // Every MMD file of the shared folder: 9 PMX, 1 PMD, 5 VMD.
    assert_eq!(count, 15, "files truncated");
}

#[test]
fn truncated_vmd_fixture_fails_inside_sections() {
    for version in [VmdVersion::V2, VmdVersion::Old] {
        let data = vmd_fixture(version).to_bytes();
        let mut ok = 0;
        for cut in 0..data.len() {
            match Vmd::parse(&data[..cut]) {
                Ok(_) => ok += 1,
                Err(e) => assert_eof_error(&e, cut, Format::Vmd, &format!("cut {cut}")),
            }
        }
        // Only the header end and the five inner section boundaries parse.
        assert_eq!(ok, 6, "{version:?}");
    }
}

/// Byte offset of the bone count in a writer-built PMX: write the model with
/// the bone table and everything after it empty; the tail is then only the
/// zero counts.
fn pmx_bone_table_offset(model: &sinew_mmd::Pmx) -> usize {
    let mut m = model.clone();
    m.bones.clear();
    m.morphs.clear();
    m.display_frames.clear();
    m.rigid_bodies.clear();
    m.joints.clear();
    m.soft_bodies.clear();
    let tail_counts = if m.version > 2.0 { 6 } else { 5 };
    m.to_bytes().len() - 4 * tail_counts
}

#[test]
fn pmx_truncated_inside_bone_table() {
    let model = pmx_fixture(2.0, PmxEncoding::Utf16Le, 2);
    let data = model.to_bytes();
    let bones_at = pmx_bone_table_offset(&model);
    let cut = bones_at + 4 + 10;
    let e = Pmx::parse(&data[..cut]).unwrap_err();
    assert_eq!(e.format, Format::Pmx);
    assert_eq!(e.section, "bones");
    assert_eq!(e.offset, cut);
    assert!(
        matches!(e.kind, ParseErrorKind::UnexpectedEof { .. }),
        "{e}"
    );
    assert!(e.to_string().starts_with(&format!(
        "PMX bones: unexpected end of file at byte {cut} (needed "
    )));
}

#[test]
fn pmx_bad_magic_version_and_index_size() {
    let data = pmx_fixture(2.0, PmxEncoding::Utf16Le, 4).to_bytes();

    let mut bad = data.clone();
    bad[0] = b'Q';
    let e = Pmx::parse(&bad).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::BadMagic { expected: "PMX " });
    assert_eq!((e.section, e.offset), ("header", 0));
    assert_eq!(
        e.to_string(),
        "PMX header: bad magic (expected \"PMX \") at byte 0"
    );

    let mut bad = data.clone();
    bad[4..8].copy_from_slice(&1.5f32.to_le_bytes());
    let e = Pmx::parse(&bad).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::UnsupportedVersion { version: 1.5 });
    assert_eq!(e.offset, 4);

    let mut bad = data.clone();
    bad[11] = 3; // vertex index size
    let e = Pmx::parse(&bad).unwrap_err();
    assert_eq!(
        e.kind,
        ParseErrorKind::InvalidIndexSize {
            field: "vertex",
            size: 3
        }
    );
    assert_eq!(e.offset, 11);
    assert_eq!(
        e.to_string(),
        "PMX header: invalid vertex index size 3 at byte 11"
    );

    let mut bad = data.clone();
    bad[14] = 0; // bone index size
    let e = Pmx::parse(&bad).unwrap_err();
    assert_eq!(
        e.kind,
        ParseErrorKind::InvalidIndexSize {
            field: "bone",
            size: 0
        }
    );

    let mut bad = data.clone();
    bad[9] = 7; // encoding
    let e = Pmx::parse(&bad).unwrap_err();
    assert!(matches!(
        e.kind,
        ParseErrorKind::InvalidValue {
            field: "text encoding",
            value: 7
        }
    ));
}

#[test]
fn pmx_absurd_counts() {
    let model = pmx_fixture(2.1, PmxEncoding::Utf8, 4);
    let data = model.to_bytes();
    // The vertex count follows the four strings of model info.
    let mut info = model.clone();
    info.vertices.clear();
    info.indices.clear();
    info.textures.clear();
    info.materials.clear();
    info.bones.clear();
    info.morphs.clear();
    info.display_frames.clear();
    info.rigid_bodies.clear();
    info.joints.clear();
    info.soft_bodies.clear();
    let at = info.to_bytes().len() - 4 * 10;

    // Huge positive count: fails at the end of the data without allocating it.
    // (In a model with no vertices the rest is zero counts, too short for one vertex.)
    let mut bad = info.to_bytes();
    bad[at..at + 4].copy_from_slice(&i32::MAX.to_le_bytes());
    let e = Pmx::parse(&bad).unwrap_err();
    assert_eq!(e.section, "vertices");
    assert_eq!(e.offset, bad.len());
    assert!(matches!(e.kind, ParseErrorKind::UnexpectedEof { .. }));
    // Inside a full model it reads on into later tables and fails there, typed.
    let mut bad = data.clone();
    bad[at..at + 4].copy_from_slice(&i32::MAX.to_le_bytes());
    let e = Pmx::parse(&bad).unwrap_err();
    assert_eq!(e.section, "vertices");

    // Negative count.
    let mut bad = data.clone();
    bad[at..at + 4].copy_from_slice(&(-3i32).to_le_bytes());
    let e = Pmx::parse(&bad).unwrap_err();
    assert_eq!(e.section, "vertices");
    assert_eq!(e.offset, at);
    assert_eq!(e.kind, ParseErrorKind::InvalidCount { count: -3 });

    // Huge string length in the model name.
    let mut bad = data.clone();
    bad[17..21].copy_from_slice(&0x7FFF_FFF0i32.to_le_bytes());
    let e = Pmx::parse(&bad).unwrap_err();
    assert_eq!(e.section, "model info");
    assert!(matches!(e.kind, ParseErrorKind::UnexpectedEof { .. }));
}

#[test]
fn pmx_odd_utf16_length_is_invalid_text() {
    let data = pmx_fixture(2.0, PmxEncoding::Utf16Le, 4).to_bytes();
    let mut bad = data.clone();
    let len = i32::from_le_bytes(bad[17..21].try_into().unwrap());
    bad[17..21].copy_from_slice(&(len - 1).to_le_bytes());
    let e = Pmx::parse(&bad).unwrap_err();
    assert_eq!(e.section, "model info");
    assert_eq!(e.offset, 17);
    assert!(matches!(e.kind, ParseErrorKind::InvalidText { .. }));
}

#[test]
fn pmd_and_vmd_bad_headers() {
    let e = Pmd::parse(b"Pmx\0\0\x80\x3f").unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::BadMagic { expected: "Pmd" });
    let mut d = b"Pmd".to_vec();
    d.extend_from_slice(&2.0f32.to_le_bytes());
    let e = Pmd::parse(&d).unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::UnsupportedVersion { version: 2.0 });
    assert_eq!(e.offset, 3);
    assert!(Pmd::parse(b"").is_err());

    let e = Vmd::parse(b"Vocaloid Motion Data 0003\0\0\0\0\0").unwrap_err();
    assert!(matches!(e.kind, ParseErrorKind::BadMagic { .. }));
    assert_eq!((e.format, e.section, e.offset), (Format::Vmd, "header", 0));

    // Absurd bone key count: fails at the end of the data, allocation bounded.
    let mut d = vmd_fixture(VmdVersion::V2).to_bytes();
    d[50..54].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = Vmd::parse(&d).unwrap_err();
    assert_eq!(e.section, "bone keyframes");
    assert_eq!(e.offset, d.len());
}

#[test]
fn pmd_optional_extensions_end_cleanly() {
    let Some(data) = common::read_asset("miku_v2.pmd") else {
        return;
    };
    let full = Pmd::parse(&data).unwrap();
    let physics = 4 + 83 * full.rigid_bodies.len() + 4 + 124 * full.joints.len();
    let toon_at = data.len() - physics - 1000;
    let english = full.english.as_ref().expect("miku_v2 has English names");
    let english_len = 1
        + 20
        + 256
        + 20 * english.bone_names.len()
        + 20 * english.morph_names.len()
        + 50 * english.bone_frame_names.len();
    let english_at = toon_at - english_len;

    let base = Pmd::parse(&data[..english_at]).unwrap();
    assert_eq!(base.english, None);
    assert_eq!(base.toon_textures, None);
    assert!(base.rigid_bodies.is_empty());
    assert_eq!(base.bones, full.bones);

    let with_english = Pmd::parse(&data[..toon_at]).unwrap();
    assert_eq!(with_english.english, full.english);
    assert_eq!(with_english.toon_textures, None);

    let with_toon = Pmd::parse(&data[..toon_at + 1000]).unwrap();
    assert_eq!(with_toon.toon_textures, full.toon_textures);
    assert!(with_toon.rigid_bodies.is_empty());

    let e = Pmd::parse(&data[..toon_at + 500]).unwrap_err();
    assert_eq!(e.section, "toon textures");
    let e = Pmd::parse(&data[..data.len() - 1]).unwrap_err();
    assert_eq!(e.section, "joints");
    assert_eq!(e.offset, data.len() - 1);
}
