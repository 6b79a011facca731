//! Buffers: embedded, GLB and external (`uri`) data loaded with their sizes checked, and the
//! JSON checks the `gltf` crate would otherwise panic on.

use crate::GltfError;
use std::path::Path;

/// Refuses what the `gltf` crate (1.4) reads without validating it first, and would panic on:
/// a mesh primitive whose `POSITION` attribute names a missing accessor (its validation indexes
/// the accessor list with it; found by the `gltf_path` fuzz target), and an animation channel
/// whose target path is not a glTF property or whose target node does not exist (its
/// `Animation` validation skips the channels' targets; found by the corpus runner on a damaged
/// `"rotation"`).
pub(super) fn check_unvalidated(json: &serde_json::Value) -> Result<(), GltfError> {
    fn items(v: &serde_json::Value) -> &[serde_json::Value] {
        v.as_array().map_or(&[][..], Vec::as_slice)
    }
    let accessors = items(&json["accessors"]).len();
    let nodes = items(&json["nodes"]).len();
    for (m, mesh) in items(&json["meshes"]).iter().enumerate() {
        for (p, primitive) in items(&mesh["primitives"]).iter().enumerate() {
            if let Some(index) = primitive["attributes"]["POSITION"].as_u64() {
                if index >= accessors as u64 {
                    return Err(GltfError::Accessor {
                        index: usize::try_from(index).unwrap_or(usize::MAX),
                        usage: "mesh POSITION",
                        reason: format!(
                            "named by mesh {m} primitive {p}; the document has {accessors} accessors"
                        ),
                    });
                }
            }
        }
    }
    for (a, animation) in items(&json["animations"]).iter().enumerate() {
        for (c, channel) in items(&animation["channels"]).iter().enumerate() {
            let target = &channel["target"];
            let bad = |reason: String| GltfError::Invalid {
                path: format!("animations[{a}].channels[{c}].target"),
                reason,
            };
            match target["path"].as_str() {
                Some("translation" | "rotation" | "scale" | "weights") => {}
                other => return Err(bad(format!("path {other:?}"))),
            }
            if let Some(node) = target["node"].as_u64() {
                if node >= nodes as u64 {
                    return Err(bad(format!("node {node} of {nodes}")));
                }
            }
        }
    }
    Ok(())
}

/// Largest buffer accepted, in bytes (1 GiB): a file cannot make the loader allocate more.
pub const MAX_BUFFER_BYTES: usize = 1 << 30;

/// Reads an external buffer: a relative URI (percent-decoded) naming a regular file inside the
/// glTF's own folder, of at least `length` bytes; only `length` bytes are read. Absolute paths,
/// other schemes, `..` and links that leave the folder, devices and pipes are refused.
pub(super) fn external_buffer(base: &Path, uri: &str, length: usize) -> Result<Vec<u8>, String> {
    let decoded = urlencoding::decode(uri)
        .map_err(|_| "URI is not valid percent-encoded UTF-8".to_owned())?;
    let relative = Path::new(decoded.as_ref());
    if decoded.contains(':') || relative.is_absolute() {
        return Err(format!(
            "URI \"{uri}\" is absolute or has a scheme; only files beside the glTF are read"
        ));
    }
    if relative.components().any(|c| {
        !matches!(
            c,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    }) {
        return Err(format!("URI \"{uri}\" leaves the glTF's folder"));
    }
    let folder = base
        .canonicalize()
        .map_err(|e| format!("folder {}: {e}", base.display()))?;
    let path = base
        .join(relative)
        .canonicalize()
        .map_err(|e| format!("\"{uri}\": {e}"))?;
    if !path.starts_with(&folder) {
        return Err(format!("URI \"{uri}\" resolves outside the glTF's folder"));
    }
    let meta = std::fs::metadata(&path).map_err(|e| format!("\"{uri}\": {e}"))?;
    if !meta.is_file() {
        return Err(format!("\"{uri}\" is not a regular file"));
    }
    if meta.len() < length as u64 {
        return Err(format!(
            "\"{uri}\" holds {} bytes, {length} declared",
            meta.len()
        ));
    }
    let mut data = Vec::with_capacity(length);
    let file = std::fs::File::open(&path).map_err(|e| format!("\"{uri}\": {e}"))?;
    std::io::Read::read_to_end(&mut std::io::Read::take(file, length as u64), &mut data)
        .map_err(|e| format!("\"{uri}\": {e}"))?;
    Ok(data)
}

/// Loads every buffer, in document order.
pub(super) fn load_buffers(
    document: &gltf::Document,
    base: Option<&Path>,
    blob: Option<Vec<u8>>,
) -> Result<Vec<Vec<u8>>, GltfError> {
    let mut blob = blob;
    let mut out = Vec::with_capacity(document.buffers().len());
    for buffer in document.buffers() {
        let index = buffer.index();
        let err = |reason: String| GltfError::Buffer { index, reason };
        if buffer.length() > MAX_BUFFER_BYTES {
            return Err(err(format!(
                "{} bytes declared; the limit is {MAX_BUFFER_BYTES}",
                buffer.length()
            )));
        }
        let data = match buffer.source() {
            gltf::buffer::Source::Uri(uri) if !uri.starts_with("data:") => match base {
                Some(base) => external_buffer(base, uri, buffer.length()).map_err(err)?,
                None => {
                    return Err(err(
                        "external file referenced while loading from memory".to_owned()
                    ))
                }
            },
            source => {
                gltf::buffer::Data::from_source_and_blob(source, None, &mut blob)
                    .map_err(|e| {
                        err(match e {
                            gltf::Error::MissingBlob => "the GLB has no BIN chunk".to_owned(),
                            other => other.to_string(),
                        })
                    })?
                    .0
            }
        };
        if data.len() < buffer.length() {
            return Err(err(format!(
                "{} bytes declared, {} available",
                buffer.length(),
                data.len()
            )));
        }
        out.push(data);
    }
    Ok(out)
}
