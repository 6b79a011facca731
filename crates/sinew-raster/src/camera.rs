//! World → clip cameras.

use glam::{Mat4, Vec3};

/// A world → clip camera: a view built from eye, target and up, and a perspective or
/// orthographic projection (depth `0` at the near plane, `1` at the far plane).
///
/// Inputs are sanitised rather than rejected: a zero or non-finite direction, an `up`
/// parallel to the view direction, a bad aspect or bad clip distances fall back to usable
/// values, so a camera is always finite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    view: Mat4,
    proj: Mat4,
    view_proj: Mat4,
    eye: Vec3,
    forward: Vec3,
    orthographic: bool,
}

/// Vertical field of view used by [`Camera::framing`], in degrees.
const FRAMING_FOV_Y_DEGREES: f32 = 30.0;
/// Margin left around the framed box by [`Camera::framing`] (fraction of the half-extent).
const FRAMING_MARGIN: f32 = 0.08;

fn finite_or(v: Vec3, fallback: Vec3) -> Vec3 {
    if v.is_finite() {
        v
    } else {
        fallback
    }
}

fn positive_or(x: f32, fallback: f32) -> f32 {
    if x.is_finite() && x > 0.0 {
        x
    } else {
        fallback
    }
}

/// A view direction and an `up` not parallel to it.
fn basis(eye: Vec3, target: Vec3, up: Vec3) -> (Vec3, Vec3) {
    let forward = (target - eye).try_normalize().unwrap_or(Vec3::NEG_Z);
    let up = up.try_normalize().unwrap_or(Vec3::Y);
    let up = if forward.cross(up).length_squared() > 1e-8 {
        up
    } else {
        // Any axis not parallel to forward.
        let alt = if forward.y.abs() < 0.9 {
            Vec3::Y
        } else {
            Vec3::Z
        };
        forward.cross(alt).cross(forward).normalize()
    };
    (forward, up)
}

/// Near and far distances that are positive, finite and ordered.
fn clip_range(near: f32, far: f32) -> (f32, f32) {
    let near = positive_or(near, 0.01).min(1e30);
    let far = if far.is_finite() && far > near * (1.0 + 1e-4) {
        far
    } else {
        near * 1000.0
    };
    (near, far)
}

impl Camera {
    fn build(eye: Vec3, target: Vec3, up: Vec3, proj: Mat4, orthographic: bool) -> Camera {
        let eye = finite_or(eye, Vec3::ZERO);
        let target = finite_or(target, eye + Vec3::NEG_Z);
        let (forward, up) = basis(eye, target, up);
        let view = Mat4::look_to_rh(eye, forward, up);
        Camera {
            view,
            proj,
            view_proj: proj * view,
            eye,
            forward,
            orthographic,
        }
    }

    /// A perspective camera at `eye` looking at `target`, `up` roughly up on screen;
    /// `fov_y_radians` is the full vertical field of view and `aspect` is width / height.
    pub fn perspective(
        eye: Vec3,
        target: Vec3,
        up: Vec3,
        fov_y_radians: f32,
        aspect: f32,
        near: f32,
        far: f32,
    ) -> Camera {
        let fov = if fov_y_radians.is_finite() && fov_y_radians > 1e-4 {
            fov_y_radians.min(std::f32::consts::PI - 1e-3)
        } else {
            FRAMING_FOV_Y_DEGREES.to_radians()
        };
        let aspect = positive_or(aspect, 1.0);
        let (near, far) = clip_range(near, far);
        let proj = Mat4::perspective_rh(fov, aspect, near, far);
        Camera::build(eye, target, up, proj, false)
    }

    /// An orthographic camera at `eye` looking at `target`; the view spans `half_height`
    /// world units above and below the centre and `half_height * aspect` to either side.
    pub fn orthographic(
        eye: Vec3,
        target: Vec3,
        up: Vec3,
        half_height: f32,
        aspect: f32,
        near: f32,
        far: f32,
    ) -> Camera {
        let half_height = positive_or(half_height, 1.0);
        let half_width = half_height * positive_or(aspect, 1.0);
        // Orthographic near may be zero or negative (planes behind the eye are fine).
        let near = if near.is_finite() { near } else { 0.0 };
        let far = if far.is_finite() && far > near {
            far
        } else {
            near + 1000.0
        };
        let proj = Mat4::orthographic_rh(
            -half_width,
            half_width,
            -half_height,
            half_height,
            near,
            far,
        );
        Camera::build(eye, target, up, proj, true)
    }

    /// A perspective camera (30° vertical field of view) that frames the axis-aligned box
    /// `[min, max]` seen from direction `dir` (unit vector from the box toward the eye),
    /// with `up`, leaving an 8 % margin: every corner of the box projects inside the image.
    pub fn framing(min: Vec3, max: Vec3, dir: Vec3, up: Vec3, aspect: f32) -> Camera {
        let (min, max) = if min.is_finite() && max.is_finite() {
            (min.min(max), min.max(max))
        } else {
            (Vec3::splat(-1.0), Vec3::ONE)
        };
        let center = (min + max) * 0.5;
        let mut half = (max - min) * 0.5;
        if half.max_element() <= 0.0 {
            half = Vec3::splat(0.5);
        }
        let aspect = positive_or(aspect, 1.0);
        let dir = dir.try_normalize().unwrap_or(Vec3::Z);
        let (forward, up) = basis(center + dir, center, up);
        let right = forward.cross(up).normalize();
        let up = right.cross(forward);

        let tan_y = (FRAMING_FOV_Y_DEGREES.to_radians() * 0.5).tan();
        let tan_x = tan_y * aspect;
        let scale = 1.0 + FRAMING_MARGIN;
        // Eye at center - forward * d. A corner at offset o from the centre sits
        // (d + o·forward) in front of the eye, (o·right, o·up) off axis; it is inside the
        // margin when |o·right| * scale <= tan_x * depth, likewise for up.
        let mut distance = 0.0f32;
        let mut nearest = f32::INFINITY;
        let mut farthest = 0.0f32;
        for i in 0..8 {
            let o = Vec3::new(
                if i & 1 == 0 { -half.x } else { half.x },
                if i & 2 == 0 { -half.y } else { half.y },
                if i & 4 == 0 { -half.z } else { half.z },
            );
            let along = o.dot(forward);
            let need_x = o.dot(right).abs() * scale / tan_x - along;
            let need_y = o.dot(up).abs() * scale / tan_y - along;
            distance = distance.max(need_x).max(need_y);
            nearest = nearest.min(along);
            farthest = farthest.max(along);
        }
        let radius = half.length();
        // Keep the whole box in front of the near plane, with room to spare.
        distance = distance.max(radius * 1.1 - nearest.min(0.0));
        let near = ((distance + nearest) * 0.5).max(radius * 1e-3);
        let far = (distance + farthest) * 2.0 + radius;
        let eye = center - forward * distance;
        Camera::perspective(
            eye,
            center,
            up,
            FRAMING_FOV_Y_DEGREES.to_radians(),
            aspect,
            near,
            far,
        )
    }

    /// Projects a world point to pixel coordinates of a `width` x `height` image (x right,
    /// y down, pixel centres at half-integers) and depth in the depth buffer's units (`0` at
    /// the near plane, `1` at the far plane). `None` for points at or behind the eye plane or
    /// non-finite results, so overlays (bones, markers) can be drawn in the same view.
    pub fn project(&self, p: Vec3, width: u32, height: u32) -> Option<Vec3> {
        if (p - self.eye).dot(self.forward) <= 0.0 {
            return None;
        }
        let clip = self.view_proj * p.extend(1.0);
        if clip.w <= 0.0 {
            return None;
        }
        let ndc = clip.truncate() / clip.w;
        let out = Vec3::new(
            (ndc.x * 0.5 + 0.5) * width as f32,
            (0.5 - ndc.y * 0.5) * height as f32,
            ndc.z,
        );
        out.is_finite().then_some(out)
    }

    /// The eye position.
    pub fn eye(&self) -> Vec3 {
        self.eye
    }

    /// Unit view direction (from the eye toward the target).
    pub fn forward(&self) -> Vec3 {
        self.forward
    }

    /// Whether the projection is orthographic.
    pub fn is_orthographic(&self) -> bool {
        self.orthographic
    }

    /// The world → view matrix.
    pub fn view(&self) -> Mat4 {
        self.view
    }

    /// The view → clip matrix.
    pub fn projection(&self) -> Mat4 {
        self.proj
    }

    /// The world → clip matrix (`projection * view`).
    pub fn view_projection(&self) -> Mat4 {
        self.view_proj
    }

    /// Unit direction from `p` toward the viewer.
    pub(crate) fn toward_viewer(&self, p: Vec3) -> Vec3 {
        if self.orthographic {
            -self.forward
        } else {
            (self.eye - p).try_normalize().unwrap_or(-self.forward)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_projects_to_centre() {
        for cam in [
            Camera::perspective(
                Vec3::new(1.0, 2.0, 5.0),
                Vec3::new(0.0, 1.0, 0.0),
                Vec3::Y,
                0.8,
                1.5,
                0.1,
                100.0,
            ),
            Camera::orthographic(
                Vec3::new(1.0, 2.0, 5.0),
                Vec3::new(0.0, 1.0, 0.0),
                Vec3::Y,
                2.0,
                1.5,
                0.1,
                100.0,
            ),
        ] {
            let p = cam.project(Vec3::new(0.0, 1.0, 0.0), 300, 200).unwrap();
            assert!(
                (p.x - 150.0).abs() < 1e-3 && (p.y - 100.0).abs() < 1e-3,
                "{p}"
            );
            assert!(p.z > 0.0 && p.z < 1.0);
            // Up in the world is up on screen (smaller y).
            let above = cam.project(Vec3::new(0.0, 1.5, 0.0), 300, 200).unwrap();
            assert!(above.y < p.y);
            // Behind the eye: none.
            assert!(cam.project(Vec3::new(2.0, 3.0, 10.0), 300, 200).is_none());
        }
    }

    #[test]
    fn degenerate_inputs_give_finite_cameras() {
        let cams = [
            Camera::perspective(
                Vec3::ZERO,
                Vec3::ZERO,
                Vec3::ZERO,
                f32::NAN,
                0.0,
                -1.0,
                -2.0,
            ),
            Camera::perspective(Vec3::ZERO, Vec3::Y, Vec3::Y, 1.0, 1.0, 0.1, 10.0),
            Camera::orthographic(Vec3::NAN, Vec3::ONE, Vec3::X, 0.0, f32::INFINITY, 5.0, 1.0),
            Camera::framing(Vec3::NAN, Vec3::ONE, Vec3::ZERO, Vec3::ZERO, f32::NAN),
            Camera::framing(Vec3::ONE, Vec3::ONE, Vec3::Y, Vec3::Y, 1.0),
        ];
        for cam in cams {
            assert!(cam.view_projection().is_finite(), "{cam:?}");
        }
    }

    #[test]
    fn framing_keeps_corners_inside() {
        let (min, max) = (Vec3::new(-0.4, 0.0, -0.2), Vec3::new(0.4, 1.7, 0.3));
        for (dir, aspect) in [
            (Vec3::Z, 1.0),
            (Vec3::new(1.0, 0.5, 1.0).normalize(), 0.5),
            (Vec3::X, 2.0),
            (Vec3::Y, 1.0),
        ] {
            let cam = Camera::framing(min, max, dir, Vec3::Y, aspect);
            let (w, h) = ((400.0 * aspect) as u32, 400);
            let (mut lo, mut hi) = (glam::Vec2::splat(f32::INFINITY), glam::Vec2::ZERO);
            for i in 0..8 {
                let c = Vec3::select(
                    glam::BVec3::new(i & 1 == 1, i & 2 == 2, i & 4 == 4),
                    max,
                    min,
                );
                let p = cam.project(c, w, h).unwrap();
                assert!(p.x >= 0.0 && p.x <= w as f32 && p.y >= 0.0 && p.y <= h as f32);
                assert!(p.z > 0.0 && p.z < 1.0);
                lo = lo.min(p.truncate());
                hi = hi.max(p.truncate());
            }
            // And it is a tight fit: the box fills most of one axis.
            let fill = ((hi.x - lo.x) / w as f32).max((hi.y - lo.y) / h as f32);
            assert!(fill > 0.8, "fill {fill} for {dir}");
        }
    }
}
