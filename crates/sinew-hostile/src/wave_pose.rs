//! A deterministic pose for generated models ([`wave_pose`]): what the property tests that
//! compare evaluations feed every model.

use glam::{Quat, Vec3};
use sinew_mmd::MmdInstance;

/// Turns and moves every bone of `inst` by a wave over the bone index at `phase`: bone `i`
/// turns by `0.6 · sin(1.3 a)` rad about an axis that wanders with `a = phase + 0.7 i`, and
/// moves by `(0.05 sin a, 0.1 cos a, 0)` — off every fixed axis, different per bone and phase.
pub fn wave_pose(inst: &mut MmdInstance, phase: f32) {
    for i in 0..inst.bone_count() {
        let a = phase + i as f32 * 0.7;
        let axis = Vec3::new(a.sin(), a.cos(), (a * 0.5).sin()).normalize_or(Vec3::Y);
        inst.rotations_mut()[i] = Quat::from_axis_angle(axis, 0.6 * (a * 1.3).sin());
        inst.translations_mut()[i] = Vec3::new(0.05 * a.sin(), 0.1 * a.cos(), 0.0);
    }
}
