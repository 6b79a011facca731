//! Contact points between two bodies' shapes: closed forms for spheres and capsules (swept
//! spheres: the closest points of two segments), parry's general query for boxes.

use glam::Vec3;
use rapier3d::parry::query;
use rapier3d::prelude::SharedShape;

use crate::world::{from_r, Rigid};

/// A shape as the contact search sees it: parry's shape (built once), and for spheres and
/// capsules the swept-sphere form the closed form uses.
#[derive(Clone, Debug)]
pub(crate) struct Collider {
    /// A sphere (`half_height == 0`) or a Y capsule: the points within `radius` of the
    /// segment `±half_height` along local Y. `None` for a box.
    swept: Option<(f32, f32)>,
    shape: SharedShape,
}

/// One contact: points on each surface, the unit normal from the first shape toward the
/// second, and the signed distance (negative: penetration).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Touch {
    pub point_a: Vec3,
    pub point_b: Vec3,
    pub normal: Vec3,
    pub dist: f32,
}

/// The closest points of segments `[p1, q1]` and `[p2, q2]` (Ericson, Real-Time Collision
/// Detection §5.1.9).
fn closest_on_segments(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3) -> (Vec3, Vec3) {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (d1.length_squared(), d2.length_squared(), d2.dot(r));
    const EPS: f32 = 1e-12;
    let (s, t) = if a <= EPS && e <= EPS {
        (0.0, 0.0)
    } else if a <= EPS {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(r);
        if e <= EPS {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            let mut s = if denom > EPS {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let mut t = (b * s + f) / e;
            if t < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            }
            (s, t)
        }
    };
    (p1 + d1 * s, p2 + d2 * t)
}

impl Collider {
    /// A sphere of `radius`.
    pub fn ball(radius: f32) -> Self {
        Self {
            swept: Some((radius, 0.0)),
            shape: SharedShape::ball(radius),
        }
    }

    /// A Y capsule of `radius` around the segment `±half_height`.
    pub fn capsule(radius: f32, half_height: f32) -> Self {
        Self {
            swept: Some((radius, half_height)),
            shape: SharedShape::capsule_y(half_height, radius),
        }
    }

    /// A box with half extents `half`.
    pub fn cuboid(half: Vec3) -> Self {
        Self {
            swept: None,
            shape: SharedShape::cuboid(half.x, half.y, half.z),
        }
    }

    /// The contact between `self` at `pa` and `other` at `pb` when they are closer than
    /// `margin`.
    pub fn touch(&self, pa: &Rigid, other: &Self, pb: &Rigid, margin: f32) -> Option<Touch> {
        match (self.swept, other.swept) {
            (Some((ra, ha)), Some((rb, hb))) => {
                let axis_a = pa.r * Vec3::new(0.0, ha, 0.0);
                let axis_b = pb.r * Vec3::new(0.0, hb, 0.0);
                let (ca, cb) =
                    closest_on_segments(pa.t - axis_a, pa.t + axis_a, pb.t - axis_b, pb.t + axis_b);
                let d = cb - ca;
                let len = d.length();
                let dist = len - ra - rb;
                if dist > margin {
                    return None;
                }
                // Coincident cores: push apart along the line of centres, else up.
                let normal = if len > 1e-6 {
                    d / len
                } else {
                    (pb.t - pa.t).try_normalize().unwrap_or(Vec3::Y)
                };
                Some(Touch {
                    point_a: ca + normal * ra,
                    point_b: cb - normal * rb,
                    normal,
                    dist,
                })
            }
            _ => {
                let c = query::contact(&pa.to_r(), &*self.shape, &pb.to_r(), &*other.shape, margin)
                    .ok()??;
                Some(Touch {
                    point_a: from_r(c.point1),
                    point_b: from_r(c.point2),
                    normal: from_r(c.normal1),
                    dist: c.dist,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    fn at(t: Vec3, r: Quat) -> Rigid {
        Rigid::new(t, r)
    }

    #[test]
    fn swept_contacts_match_parry() {
        // Capsules and spheres in assorted poses: the closed form agrees with parry's GJK.
        let shapes = [
            Collider::ball(0.3),
            Collider::capsule(0.2, 0.5),
            Collider::capsule(0.4, 1.0),
        ];
        let poses = [
            at(Vec3::ZERO, Quat::IDENTITY),
            at(Vec3::new(0.5, 0.2, 0.1), Quat::from_rotation_z(1.2)),
            at(Vec3::new(-0.3, 0.8, 0.4), Quat::from_rotation_x(0.4)),
            at(
                Vec3::new(0.1, -0.5, -0.45),
                Quat::from_euler(glam::EulerRot::XYZ, 0.3, 1.1, -0.7),
            ),
        ];
        let mut compared = 0;
        for (i, a) in shapes.iter().enumerate() {
            for b in &shapes {
                for (k, pa) in poses.iter().enumerate() {
                    for pb in &poses[k + 1..] {
                        let ours = a.touch(pa, b, pb, 0.1);
                        let theirs =
                            query::contact(&pa.to_r(), &*a.shape, &pb.to_r(), &*b.shape, 0.1)
                                .unwrap();
                        assert_eq!(ours.is_some(), theirs.is_some(), "{i} {k}");
                        if let (Some(o), Some(t)) = (ours, theirs) {
                            assert!((o.dist - t.dist).abs() < 2e-3, "{o:?} {t:?}");
                            // Parallel cores have many closest pairs; the distance and the
                            // normal's alignment are what matter.
                            assert!(o.normal.dot(from_r(t.normal1)) > 0.99, "{o:?} {t:?}");
                            compared += 1;
                        }
                    }
                }
            }
        }
        assert!(compared >= 10, "{compared}");
    }

    #[test]
    fn segment_closest_points() {
        let (a, b) = closest_on_segments(
            Vec3::new(-1.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.5, 1.0, -1.0),
            Vec3::new(0.5, 1.0, 1.0),
        );
        assert!((a - Vec3::new(0.5, 0.0, 0.0)).length() < 1e-6);
        assert!((b - Vec3::new(0.5, 1.0, 0.0)).length() < 1e-6);
        // Degenerate segments are points.
        let (a, b) = closest_on_segments(Vec3::ZERO, Vec3::ZERO, Vec3::X, Vec3::X * 3.0);
        assert_eq!((a, b), (Vec3::ZERO, Vec3::X));
    }
}
