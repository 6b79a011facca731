//! Accessors checked before the `gltf` reader touches them (count, type, bounds against the
//! buffer view).

use crate::GltfError;
use gltf::accessor::{DataType, Dimensions};

pub(super) fn unreadable(acc: &gltf::Accessor, usage: &'static str) -> GltfError {
    GltfError::Accessor {
        index: acc.index(),
        usage,
        reason: "data cannot be read".to_owned(),
    }
}

/// Checks an accessor before a `gltf` reader touches it: type, component type, count, and
/// that every element lies inside its buffer view and buffer.
pub(crate) fn check_accessor(
    acc: &gltf::Accessor,
    buffers: &[Vec<u8>],
    usage: &'static str,
    dims: &[Dimensions],
    types: &[DataType],
) -> Result<(), GltfError> {
    check_accessor_with(acc, buffers, usage, dims, types, true)
}

/// As [`check_accessor`]; `normalized_ints: false` accepts plain integer components (vertex
/// joint indices, triangle indices).
pub(crate) fn check_accessor_with(
    acc: &gltf::Accessor,
    buffers: &[Vec<u8>],
    usage: &'static str,
    dims: &[Dimensions],
    types: &[DataType],
    normalized_ints: bool,
) -> Result<(), GltfError> {
    let err = |reason: String| GltfError::Accessor {
        index: acc.index(),
        usage,
        reason,
    };
    if !dims.contains(&acc.dimensions()) {
        return Err(err(format!(
            "type {:?}, expected one of {dims:?}",
            acc.dimensions()
        )));
    }
    if !types.contains(&acc.data_type()) {
        return Err(err(format!(
            "component type {:?}, expected one of {types:?}",
            acc.data_type()
        )));
    }
    if normalized_ints && acc.data_type() != DataType::F32 && !acc.normalized() {
        return Err(err("integer components must be normalized".to_owned()));
    }
    if acc.count() == 0 {
        return Err(err("count is 0".to_owned()));
    }
    if acc.sparse().is_some() {
        return Err(err("sparse accessors are not supported".to_owned()));
    }
    let Some(view) = acc.view() else {
        return Err(err("no buffer view".to_owned()));
    };
    let size = acc.size();
    let stride = view.stride().unwrap_or(size);
    if stride < size {
        return Err(err(format!(
            "byte stride {stride} below element size {size}"
        )));
    }
    let need = acc.offset() as u128 + stride as u128 * (acc.count() as u128 - 1) + size as u128;
    if need > view.length() as u128 {
        return Err(err(format!(
            "needs {need} bytes of buffer view {} which has {}",
            view.index(),
            view.length()
        )));
    }
    let buffer_len = buffers.get(view.buffer().index()).map_or(0, Vec::len);
    if view.offset() as u128 + view.length() as u128 > buffer_len as u128 {
        return Err(err(format!(
            "buffer view {} ends past buffer {} ({} bytes)",
            view.index(),
            view.buffer().index(),
            buffer_len
        )));
    }
    Ok(())
}
