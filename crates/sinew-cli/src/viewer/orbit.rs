//! The viewer's camera: an orthographic view that orbits the model's centre (mouse drag) and
//! zooms (wheel), framing a sphere around the model.

use glam::Vec3;

use crate::render::View;

/// Radians of turn per pixel dragged.
const TURN_PER_PIXEL: f32 = 0.008;
/// Steepest look up or down (radians, just under 90°).
const MAX_PITCH: f32 = 1.5;
/// Zoom range (1: the whole model).
const ZOOM: (f32, f32) = (0.25, 12.0);

/// Orbit angles and zoom around a fixed centre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Orbit {
    /// Turn about the vertical axis.
    pub yaw: f32,
    /// Elevation (positive: looking down).
    pub pitch: f32,
    /// Magnification (1: the framing sphere fills the window's shorter side).
    pub zoom: f32,
    /// The framed sphere's centre (model space).
    pub center: Vec3,
    /// The framed sphere's radius.
    pub radius: f32,
}

impl Orbit {
    /// A front view of the sphere at `center` with `radius`.
    pub fn new(center: Vec3, radius: f32) -> Self {
        Self {
            yaw: 0.0,
            pitch: 0.1,
            zoom: 1.0,
            center,
            radius: if radius.is_finite() && radius > 0.0 {
                radius
            } else {
                1.0
            },
        }
    }

    /// Turns by a mouse drag of `(dx, dy)` pixels (right: the model turns right; down: the
    /// camera rises).
    pub fn drag(&mut self, dx: f32, dy: f32) {
        if dx.is_finite() && dy.is_finite() {
            self.yaw = (self.yaw - dx * TURN_PER_PIXEL).rem_euclid(std::f32::consts::TAU);
            self.pitch = (self.pitch + dy * TURN_PER_PIXEL).clamp(-MAX_PITCH, MAX_PITCH);
        }
    }

    /// Zooms by `steps` wheel notches (positive: closer), 10 % a notch.
    pub fn wheel(&mut self, steps: f32) {
        if steps.is_finite() {
            self.zoom = (self.zoom * 1.1f32.powf(steps)).clamp(ZOOM.0, ZOOM.1);
        }
    }

    /// The view to draw.
    pub fn view(&self) -> View {
        View::Orbit {
            yaw: self.yaw,
            pitch: self.pitch,
        }
    }

    /// The radius shown (the sphere shrunk by the zoom).
    pub fn shown_radius(&self) -> f32 {
        self.radius / self.zoom
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drags_turn_and_wheel_zooms_within_bounds() {
        let mut o = Orbit::new(Vec3::new(0.0, 10.0, 0.0), 12.0);
        assert_eq!(o.shown_radius(), 12.0);
        o.drag(100.0, 0.0);
        assert!((o.yaw - (std::f32::consts::TAU - 0.8)).abs() < 1e-5);
        o.drag(0.0, 1e6);
        assert_eq!(o.pitch, MAX_PITCH);
        o.wheel(1.0);
        assert!((o.shown_radius() - 12.0 / 1.1).abs() < 1e-4);
        o.wheel(1000.0);
        assert_eq!(o.zoom, ZOOM.1);
        o.wheel(f32::NAN);
        o.drag(f32::INFINITY, 0.0);
        assert!(o.yaw.is_finite() && o.zoom.is_finite());
        // The view looks at the model from the orbit's side.
        let View::Orbit { yaw, pitch } = o.view() else {
            panic!("an orbit view")
        };
        assert_eq!((yaw, pitch), (o.yaw, o.pitch));
    }
}
