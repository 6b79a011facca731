//! Procedural test rigs (being written).
