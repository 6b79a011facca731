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
    kind_of_bytes(&head[..n]).map_err(|e| e.in_file(path))
}

/// Which reader a file's bytes need, by their first bytes (`PMX `, `Pmd`, `glTF` or a JSON
/// object).
///
/// # Errors
/// [`CharacterError::UnknownFormat`].
pub fn kind_of_bytes(bytes: &[u8]) -> Result<ModelKind, CharacterError> {
    let head = &bytes[..bytes.len().min(64)];
    if head.starts_with(b"PMX ") || head.starts_with(b"Pmd") {
        Ok(ModelKind::Mmd)
    } else if head.starts_with(b"glTF") || head.trim_ascii_start().starts_with(b"{") {
        Ok(ModelKind::Gltf)
    } else {
        Err(CharacterError::UnknownFormat)
    }
}

/// The folder a model file's relative references (textures, motions) start from.
pub(crate) fn folder_of(path: &Path) -> PathBuf {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_first_bytes() {
        assert_eq!(kind_of_bytes(b"PMX \x00\x00").unwrap(), ModelKind::Mmd);
        assert_eq!(kind_of_bytes(b"Pmd\x00").unwrap(), ModelKind::Mmd);
        assert_eq!(kind_of_bytes(b"glTF\x02").unwrap(), ModelKind::Gltf);
        assert_eq!(kind_of_bytes(b"  \n{\"asset\"").unwrap(), ModelKind::Gltf);
        for bad in [&b""[..], b"PM", b"RIFF...."] {
            assert!(matches!(
                kind_of_bytes(bad),
                Err(CharacterError::UnknownFormat)
            ));
        }
    }
}
