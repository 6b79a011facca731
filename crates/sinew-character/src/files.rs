//! Model files: bounded reads and which reader a file needs.

use std::path::{Path, PathBuf};

use crate::{CharacterError, ModelKind};

/// The most bytes a model or motion file may have.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// The metadata of `path` when it is a regular file (a device such as `/dev/zero` never ends;
/// a directory is no model).
pub(crate) fn regular_file(path: &Path) -> Result<std::fs::Metadata, CharacterError> {
    let meta = std::fs::metadata(path).map_err(|e| CharacterError::Io(e).in_file(path))?;
    if !meta.is_file() {
        return Err(CharacterError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ))
        .in_file(path));
    }
    Ok(meta)
}

/// Reads a whole file, bounded by [`MAX_FILE_BYTES`].
///
/// # Errors
/// [`CharacterError::Io`] or [`CharacterError::TooLarge`], naming the file.
pub fn read_file(path: &Path) -> Result<Vec<u8>, CharacterError> {
    let meta = regular_file(path)?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(CharacterError::TooLarge {
            size: meta.len(),
            limit: MAX_FILE_BYTES,
        }
        .in_file(path));
    }
    std::fs::read(path).map_err(|e| CharacterError::Io(e).in_file(path))
}

/// Which reader a file needs: by extension, then by its first bytes.
///
/// # Errors
/// [`CharacterError::UnknownFormat`] (or a read error), naming the file.
pub fn kind_of(path: &Path) -> Result<ModelKind, CharacterError> {
    let ext = (path.extension().and_then(|e| e.to_str())).map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("pmx" | "pmd") => return Ok(ModelKind::Mmd),
        Some("glb" | "gltf") => return Ok(ModelKind::Gltf),
        _ => {}
    }
    regular_file(path)?;
    let mut head = [0u8; 64];
    let n = {
        use std::io::Read;
        let mut f = std::fs::File::open(path).map_err(|e| CharacterError::Io(e).in_file(path))?;
        f.read(&mut head)
            .map_err(|e| CharacterError::Io(e).in_file(path))?
    };
    let bytes = &head[..n];
    if bytes.starts_with(b"PMX ") || bytes.starts_with(b"Pmd") {
        Ok(ModelKind::Mmd)
    } else if bytes.starts_with(b"glTF") || bytes.trim_ascii_start().starts_with(b"{") {
        Ok(ModelKind::Gltf)
    } else {
        Err(CharacterError::UnknownFormat.in_file(path))
    }
}

/// The folder a model file's relative references (textures, motions) start from.
pub(crate) fn folder_of(path: &Path) -> PathBuf {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}
