//! Named attack files: each reproduces a crash, hang or escape some version of sinew had, so
//! the corpus, the fuzz seeds and the regression tests hold them by name.

use glam::Vec3;
use sinew_mmd::pmx::{Pmx, PmxAppend, PmxBoneFlags, PmxIk, PmxIkLink};

use crate::gen;

/// Byte offset of a PMD's IK table (its count), from the section counts; `None` when the file
/// is too short.
fn pmd_ik_offset(bytes: &[u8]) -> Option<usize> {
    let u32_at = |o: usize| -> Option<usize> {
        Some(u32::from_le_bytes(bytes.get(o..o + 4)?.try_into().ok()?) as usize)
    };
    let u16_at = |o: usize| -> Option<usize> {
        Some(usize::from(u16::from_le_bytes(
            bytes.get(o..o + 2)?.try_into().ok()?,
        )))
    };
    // "Pmd", version, name (20), comment (256).
    let mut o = 3 + 4 + 20 + 256;
    o += 4 + u32_at(o)? * 38; // vertices
    o += 4 + u32_at(o)? * 2; // indices
    o += 4 + u32_at(o)? * 70; // materials
    o += 2 + u16_at(o)? * 39; // bones
    (o + 2 <= bytes.len()).then_some(o)
}

/// One PMD IK entry, located in the file.
struct PmdIkAt {
    /// Byte offset of the entry (its IK bone index; the effector follows at +2).
    offset: usize,
    /// The IK bone.
    ik: u16,
    /// Byte offsets of its link indices.
    links: Vec<usize>,
}

/// The PMD's IK entries, located.
fn pmd_iks(bytes: &[u8]) -> Option<Vec<PmdIkAt>> {
    let start = pmd_ik_offset(bytes)?;
    let count = usize::from(u16::from_le_bytes(
        bytes.get(start..start + 2)?.try_into().ok()?,
    ));
    let mut o = start + 2;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let ik = u16::from_le_bytes(bytes.get(o..o + 2)?.try_into().ok()?);
        let links = usize::from(*bytes.get(o + 4)?);
        let first = o + 4 + 1 + 2 + 4;
        out.push(PmdIkAt {
            offset: o,
            ik,
            links: (0..links).map(|k| first + 2 * k).collect(),
        });
        o = first + 2 * links;
    }
    Some(out)
}

/// One- and two-byte edits of a real PMD (miku_v2) that once overflowed the stack: an IK whose
/// effector is its own IK bone, two IKs that target each other's IK bones, and an IK whose link
/// is its own IK bone. Empty when `bytes` is not a PMD with at least two IK chains.
#[must_use]
pub fn miku_ik_patches(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let Some(iks) = pmd_iks(bytes) else {
        return Vec::new();
    };
    if iks.len() < 2 {
        return Vec::new();
    }
    let mut out = Vec::new();
    let patch = |edits: &[(usize, u16)]| {
        let mut b = bytes.to_vec();
        for &(o, v) in edits {
            b[o..o + 2].copy_from_slice(&v.to_le_bytes());
        }
        b
    };
    let (a, b, last) = (&iks[0], &iks[1], &iks[iks.len() - 1]);
    out.push((
        "attack-ik-self-target.pmd".to_owned(),
        patch(&[(last.offset + 2, last.ik)]),
    ));
    out.push((
        "attack-ik-mutual-targets.pmd".to_owned(),
        patch(&[(a.offset + 2, b.ik), (b.offset + 2, a.ik)]),
    ));
    if let Some(&l) = last.links.first() {
        out.push((
            "attack-ik-link-is-owner.pmd".to_owned(),
            patch(&[(l, last.ik)]),
        ));
    }
    out
}

/// The model the fuzz targets play hostile motions on: the file `SINEW_FUZZ_MODEL` names
/// (e.g. the shared miku_v2.pmd), else [`pmx_ik_cycle`]; read once.
#[must_use]
pub fn fuzz_model() -> &'static [u8] {
    static MODEL: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    MODEL.get_or_init(|| {
        std::env::var_os("SINEW_FUZZ_MODEL")
            .and_then(|p| std::fs::read(p).ok())
            .unwrap_or_else(|| pmx_ik_cycle().to_bytes())
    })
}

/// A small PMX whose two IK chains target each other's IK bones (a cycle through effectors),
/// with a third IK targeting itself.
#[must_use]
pub fn pmx_ik_cycle() -> Pmx {
    let mut model = gen::chain(6);
    let ik = |effector: i32, link: i32| PmxIk {
        effector,
        loop_count: 40,
        limit_angle: 1.0,
        links: vec![PmxIkLink {
            bone: link,
            limit: None,
        }],
    };
    for (bone, effector, link) in [(3, 4, 2), (4, 3, 2), (5, 5, 1)] {
        let b = &mut model.bones[bone];
        b.flags = b.flags.with(PmxBoneFlags::IK, true);
        b.ik = Some(ik(effector, link));
        b.position += Vec3::X;
    }
    model
}

/// `.gltf` documents whose buffers point at a device, outside their folder, at an absolute
/// path, through another scheme, or declare an enormous length.
#[must_use]
pub fn gltf_uri_attacks() -> Vec<(String, String)> {
    let doc = |uri: &str, len: u64| {
        format!(
            r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"uri":"{uri}","byteLength":{len}}}],"nodes":[{{"name":"a"}}],"skins":[{{"joints":[0]}}]}}"#
        )
    };
    vec![
        (
            "attack-uri-dev-zero.gltf".into(),
            doc("/dev/zero", 4_000_000_000),
        ),
        (
            "attack-uri-parent.gltf".into(),
            doc("../../../../../../etc/passwd", 16),
        ),
        (
            "attack-uri-file-scheme.gltf".into(),
            doc("file:///etc/passwd", 16),
        ),
        (
            "attack-uri-encoded-parent.gltf".into(),
            doc("%2E%2E/%2E%2E/etc/passwd", 16),
        ),
        (
            "attack-uri-huge-length.gltf".into(),
            doc("data:application/octet-stream;base64,AAAA", 1 << 40),
        ),
    ]
}

/// A `.gltf` whose `n` nodes form one chain, every node a joint of one skin (deep hierarchies
/// in the glTF path: the bind check once measured the model's size for every joint, quadratic
/// time — 43 s for 60,000 nodes).
#[must_use]
pub fn gltf_deep_chain(n: usize) -> String {
    let nodes: Vec<String> = (0..n)
        .map(|i| {
            if i + 1 < n {
                format!(
                    r#"{{"name":"n{i}","children":[{}],"translation":[0,0.01,0]}}"#,
                    i + 1
                )
            } else {
                format!(r#"{{"name":"n{i}"}}"#)
            }
        })
        .collect();
    let joints: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    format!(
        r#"{{"asset":{{"version":"2.0"}},"nodes":[{}],"skins":[{{"joints":[{}]}}],"scenes":[{{"nodes":[0]}}],"scene":0}}"#,
        nodes.join(","),
        joints.join(",")
    )
}

/// A chain of `n` bones in which every bone appends locally (from its source's world pose)
/// from its parent: reading each source's world pose walks its ancestry, so the staged
/// definitions would do `n²/2` steps per frame without
/// [`MAX_LOCAL_APPEND_WORK`](sinew_mmd::validate::MAX_LOCAL_APPEND_WORK).
#[must_use]
pub fn pmx_local_append_chain(n: usize) -> Pmx {
    let mut model = gen::chain(n);
    for (i, bone) in model.bones.iter_mut().enumerate().skip(1) {
        bone.flags = bone
            .flags
            .with(PmxBoneFlags::LOCAL_APPEND, true)
            .with(PmxBoneFlags::APPEND_ROTATE, true)
            .with(PmxBoneFlags::APPEND_TRANSLATE, true);
        bone.append = Some(PmxAppend {
            parent: i as i32 - 1,
            // Small: each world-space read compounds its parent's displacement.
            ratio: 0.01,
        });
    }
    model
}
