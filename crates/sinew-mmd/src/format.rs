//! The MMD file formats as plain data mirroring their layout: PMX 2.0/2.1 and PMD models, VMD
//! motions (`pmx`, `pmd`, `vmd`), their writers (`pmx_writer`, `vmd_writer`, over `writer`),
//! and the bounds-checked byte reader and Shift-JIS / UTF-16 text decoding every parser uses
//! (`reader`, `text`). Nothing here validates cross-references or converts coordinates: that
//! is [`crate::model`]'s job.

pub mod pmd;
pub mod pmx;
pub(crate) mod pmx_writer;
pub(crate) mod reader;
pub(crate) mod text;
pub mod vmd;
pub(crate) mod vmd_writer;
pub(crate) mod writer;
