//! Animation clips, sampling and blending (being written).
