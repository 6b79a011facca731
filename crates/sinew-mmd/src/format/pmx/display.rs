//! PMX display frames (the editor's bone and morph groups).

/// A display frame.
#[derive(Debug, Clone, PartialEq)]
pub struct PmxDisplayFrame {
    /// Name.
    pub name: String,
    /// English name.
    pub name_en: String,
    /// Special frame (`Root` and `表情`).
    pub special: bool,
    /// Items.
    pub items: Vec<PmxDisplayItem>,
}

/// A display frame item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PmxDisplayItem {
    /// A bone index.
    Bone(i32),
    /// A morph index.
    Morph(i32),
}
