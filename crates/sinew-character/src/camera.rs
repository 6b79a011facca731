//! [`CameraMotion`]: a VMD camera played the way babylon-mmd 1.3.0's `MmdCamera` plays it,
//! sampled at any time into a [`CameraState`] (the orbit MMD keys — target, rotation,
//! distance, field of view, the perspective switch — and what follows from it: the eye, its
//! axes and the view matrix).
//!
//! MMD's camera orbits a target: the eye sits `distance` along the camera's local z from the
//! target (MMD stores it negative, in front of the target, so the eye is behind it), turned by
//! `rotation` — babylon-mmd's `RotationYawPitchRoll(-y, -x, -z)`: roll about z, then pitch
//! about x, then yaw about y, each angle negated. Everything stays in MMD's left-handed space
//! and units, like a character's world matrices.
//!
//! Between keys `A` and `B` each channel (target x, y, z, rotation, distance, field of view)
//! is eased by its own Bézier curve stored with `B`, solved by babylon-mmd's bisection (15
//! halvings, to 1e-5) so the values agree to the last digits. Two keys on consecutive frames
//! are a **cut**: `A` holds until `B`'s frame, then the camera jumps — fractional times between
//! them (a 60 fps player) never blend the two shots. Before the first key the first holds,
//! after the last the last. The perspective switch steps (the key at or before the time).

use std::path::Path;
use std::sync::Arc;

use glam::{DQuat, DVec3, Mat4, Vec3};
use sinew_mmd::vmd::{decode_camera_interpolation, VmdBezier, VmdCameraInterpolation};
use sinew_mmd::Vmd;

use crate::CharacterError;

/// Frames per second of MMD's keys (VMD frame numbers are 1/30 s).
const FPS: f64 = 30.0;

/// One camera key as MMD stores it (MMD's space, radians, degrees for the field of view).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraKey {
    /// Frame number (30 fps).
    pub frame: u32,
    /// The point the camera orbits (the VMD's "position").
    pub target: Vec3,
    /// MMD's rotation: x, y, z radians as babylon-mmd applies them (see the module docs).
    pub rotation: Vec3,
    /// Signed distance from the target along the camera's z (negative: the eye is behind
    /// the target, MMD's usual).
    pub distance: f32,
    /// Vertical field of view, degrees.
    pub fov_degrees: f32,
    /// MMD's perspective switch (off: an orthographic view).
    pub perspective: bool,
    /// The curves easing the segment that ends at this key.
    pub curves: VmdCameraInterpolation,
}

/// The camera at one time: the orbit (`target`, `rotation`, `distance`, `fov`,
/// `perspective`) and the eye, axes and view matrix derived from it, all in MMD's
/// left-handed space (f64 inside, rounded once at the end).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraState {
    /// The point the camera orbits.
    pub target: Vec3,
    /// MMD's rotation (x, y, z radians; see the module docs).
    pub rotation: Vec3,
    /// Signed distance from the target (negative: the eye behind the target).
    pub distance: f32,
    /// Vertical field of view, radians.
    pub fov: f32,
    /// MMD's perspective switch (off: draw orthographically).
    pub perspective: bool,
    /// The eye, world space.
    pub position: Vec3,
    /// Unit view direction (the camera's +z), world space.
    pub forward: Vec3,
    /// Unit up axis (the camera's +y), world space.
    pub up: Vec3,
    /// World → camera (left-handed, looking down +z), column vectors: `view * p`. Its columns
    /// hold what Babylon's row-major `m[0..15]` holds, in the same order
    /// (`view.to_cols_array()` is Babylon's `getViewMatrix().m`).
    pub view: Mat4,
}

impl CameraState {
    /// The camera MMD and babylon-mmd show without camera keys: target (0, 10, 0), no
    /// rotation, distance -45, field of view 30°.
    #[must_use]
    pub fn mmd_default() -> Self {
        Self::from_orbit(
            Vec3::new(0.0, 10.0, 0.0),
            Vec3::ZERO,
            -45.0,
            30f32.to_radians(),
            true,
        )
    }

    /// The camera orbiting `target` at `distance`, turned by `rotation`, with vertical field
    /// of view `fov` (radians): eye, axes and view matrix as babylon-mmd's `MmdCamera`
    /// computes them.
    #[must_use]
    pub fn from_orbit(
        target: Vec3,
        rotation: Vec3,
        distance: f32,
        fov: f32,
        perspective: bool,
    ) -> Self {
        Orbit {
            target: target.as_dvec3(),
            rotation: rotation.as_dvec3(),
            distance: f64::from(distance),
            fov: f64::from(fov),
            perspective,
        }
        .state()
    }

    /// The camera's unit right axis (its +x), world space.
    #[must_use]
    pub fn right(&self) -> Vec3 {
        self.view.row(0).truncate()
    }
}

/// A sampled orbit in f64, as babylon-mmd holds it (JavaScript numbers).
struct Orbit {
    target: DVec3,
    rotation: DVec3,
    distance: f64,
    fov: f64,
    perspective: bool,
}

impl Orbit {
    /// The orbit's eye, axes and view matrix: `MmdCamera._getViewMatrix` step by step
    /// (Babylon's matrices are `Float32Array`s: the rotation matrix and the view matrix are
    /// rounded to f32 where Babylon stores them; vectors stay f64).
    fn state(&self) -> CameraState {
        let rotation = yaw_pitch_roll_f32(-self.rotation.y, -self.rotation.x, -self.rotation.z);
        let [_, c1, c2] = rotation;
        // TransformCoordinatesFromFloats(0, 0, distance): the third row times the distance.
        let eye = self.target + c2 * self.distance;
        let look_at = c2 + eye;
        let up = c1;
        // Matrix.LookAtLHToRef.
        let z = normalize(look_at - eye);
        let x = up.cross(z);
        let x = if x.length_squared() == 0.0 {
            DVec3::new(1.0, x.y, x.z)
        } else {
            normalize(x)
        };
        let y = normalize(z.cross(x));
        let e = DVec3::new(-x.dot(eye), -y.dot(eye), -z.dot(eye));
        let m = [
            x.x, y.x, z.x, 0.0, x.y, y.y, z.y, 0.0, x.z, y.z, z.z, 0.0, e.x, e.y, e.z, 1.0,
        ];
        CameraState {
            target: self.target.as_vec3(),
            rotation: self.rotation.as_vec3(),
            distance: self.distance as f32,
            fov: self.fov as f32,
            perspective: self.perspective,
            position: eye.as_vec3(),
            forward: z.as_vec3(),
            up: y.as_vec3(),
            view: Mat4::from_cols_array(&m.map(|v| v as f32)),
        }
    }
}

/// Babylon's `Vector3.normalize` (a zero vector stays zero).
fn normalize(v: DVec3) -> DVec3 {
    let len = v.length();
    if len == 0.0 || len == 1.0 {
        v
    } else {
        v * (1.0 / len)
    }
}

/// `Matrix.RotationYawPitchRoll(yaw, pitch, roll)` (Babylon's quaternion, its matrix rounded
/// to f32 as a `Float32Array` stores it): the three axis rows `m[0..3]`, `m[4..7]`,
/// `m[8..11]`, each the image of a unit axis (Babylon transforms row vectors: `v * M`).
fn yaw_pitch_roll_f32(yaw: f64, pitch: f64, roll: f64) -> [DVec3; 3] {
    let (sr, cr) = (roll * 0.5).sin_cos();
    let (sp, cp) = (pitch * 0.5).sin_cos();
    let (sy, cy) = (yaw * 0.5).sin_cos();
    let q = DQuat::from_xyzw(
        cy * sp * cr + sy * cp * sr,
        sy * cp * cr - cy * sp * sr,
        cy * cp * sr - sy * sp * cr,
        cy * cp * cr + sy * sp * sr,
    );
    let (xx, yy, zz) = (q.x * q.x, q.y * q.y, q.z * q.z);
    let (xy, zw, zx) = (q.x * q.y, q.z * q.w, q.z * q.x);
    let (yw, yz, xw) = (q.y * q.w, q.y * q.z, q.x * q.w);
    let f = |v: f64| f64::from(v as f32);
    [
        DVec3::new(
            f(1.0 - 2.0 * (yy + zz)),
            f(2.0 * (xy + zw)),
            f(2.0 * (zx - yw)),
        ),
        DVec3::new(
            f(2.0 * (xy - zw)),
            f(1.0 - 2.0 * (zz + xx)),
            f(2.0 * (yz + xw)),
        ),
        DVec3::new(
            f(2.0 * (zx + yw)),
            f(2.0 * (yz - xw)),
            f(1.0 - 2.0 * (yy + xx)),
        ),
    ]
}

/// babylon-mmd's `BezierInterpolate`: the curve's y at `x`, its parameter found by 15
/// bisection steps (stopping within 1e-5). Control points are the file's 0..=127 over 127.
fn bezier(curve: VmdBezier, x: f64) -> f64 {
    let x1 = f64::from(curve.p1[0]) / 127.0;
    let y1 = f64::from(curve.p1[1]) / 127.0;
    let x2 = f64::from(curve.p2[0]) / 127.0;
    let y2 = f64::from(curve.p2[1]) / 127.0;
    let mut c = 0.5;
    let mut t = c;
    let mut s = 1.0 - t;
    let (mut sst3, mut stt3, mut ttt) = (0.0, 0.0, 0.0);
    for _ in 0..15 {
        sst3 = 3.0 * s * s * t;
        stt3 = 3.0 * s * t * t;
        ttt = t * t * t;
        let ft = sst3 * x1 + stt3 * x2 + ttt - x;
        if ft.abs() < 1e-5 {
            break;
        }
        c *= 0.5;
        t += if ft < 0.0 { c } else { -c };
        s = 1.0 - t;
    }
    sst3 * y1 + stt3 * y2 + ttt
}

/// The frame (30 fps) of `time` seconds. A time within an f32 rounding step of a whole
/// frame's time is that frame exactly, so `sample(242.0 / 30.0)` lands on a cut at frame 242
/// rather than a hair before it.
#[must_use]
pub fn frame_of_time(time: f32) -> f64 {
    let frame = f64::from(time) * FPS;
    let whole = frame.round();
    if (f64::from(time) - whole / FPS).abs() <= f64::from(time.abs()) * f64::from(f32::EPSILON) {
        whole
    } else {
        frame
    }
}

/// A VMD camera track: its keys, sorted, sampled at any time like a character's motion.
/// Immutable and cheap to clone.
///
/// ```no_run
/// use sinew_character::CameraMotion;
///
/// let camera = CameraMotion::load("wavefile_camera.vmd")?;
/// let shot = camera.sample(8.0);
/// println!("eye {} looking along {}, fov {} rad", shot.position, shot.forward, shot.fov);
/// # Ok::<(), sinew_character::CharacterError>(())
/// ```
#[derive(Clone, Debug)]
pub struct CameraMotion {
    keys: Arc<[CameraKey]>,
}

impl CameraMotion {
    /// Reads a VMD file's camera keys.
    ///
    /// # Errors
    /// As [`Self::from_vmd`], naming the file; [`CharacterError::Io`] or
    /// [`CharacterError::TooLarge`] when it cannot be read.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, CharacterError> {
        let path = path.as_ref();
        let bytes = crate::read_file(path)?;
        Self::from_vmd(&bytes).map_err(|e| e.in_file(path))
    }

    /// The camera keys of VMD bytes.
    ///
    /// # Errors
    /// [`CharacterError::Vmd`] for malformed bytes; as [`Self::from_parsed`] otherwise.
    pub fn from_vmd(bytes: &[u8]) -> Result<Self, CharacterError> {
        Self::from_parsed(&Vmd::parse(bytes)?)
    }

    /// The camera keys of a parsed VMD: sorted by frame; of two keys on one frame the later
    /// in the file counts (babylon-mmd's rule).
    ///
    /// # Errors
    /// [`CharacterError::WrongKind`] when the VMD has no camera keys (a model's motion);
    /// [`CharacterError::Invalid`] for a key with a non-finite value.
    pub fn from_parsed(vmd: &Vmd) -> Result<Self, CharacterError> {
        if vmd.camera_keys.is_empty() {
            return Err(CharacterError::WrongKind(
                "the VMD has no camera keys (a model's motion, not a camera's)".into(),
            ));
        }
        let mut keys = Vec::with_capacity(vmd.camera_keys.len());
        for k in &vmd.camera_keys {
            if !(k.target.is_finite() && k.rotation.is_finite() && k.distance.is_finite()) {
                return Err(CharacterError::invalid(
                    "a camera key",
                    "finite",
                    format_args!(
                        "frame {}: target {}, rotation {}, distance {}",
                        k.frame, k.target, k.rotation, k.distance
                    ),
                ));
            }
            keys.push(CameraKey {
                frame: k.frame,
                target: k.target,
                rotation: k.rotation,
                distance: k.distance,
                fov_degrees: k.fov as f32,
                perspective: !k.orthographic,
                curves: decode_camera_interpolation(&k.interpolation),
            });
        }
        keys.sort_by_key(|k| k.frame); // stable: equal frames keep the file's order
        let mut sorted: Vec<CameraKey> = Vec::with_capacity(keys.len());
        for k in keys {
            match sorted.last_mut() {
                Some(last) if last.frame == k.frame => *last = k,
                _ => sorted.push(k),
            }
        }
        Ok(Self {
            keys: sorted.into(),
        })
    }

    /// The keys, sorted by frame, one per frame.
    #[must_use]
    pub fn keys(&self) -> &[CameraKey] {
        &self.keys
    }

    /// The last key's frame.
    #[must_use]
    pub fn end_frame(&self) -> u32 {
        self.keys.last().map_or(0, |k| k.frame)
    }

    /// Seconds from time 0 to the last key (MMD's camera starts at frame 0).
    #[must_use]
    pub fn duration(&self) -> f32 {
        (f64::from(self.end_frame()) / FPS) as f32
    }

    /// The frames the camera jumps at: each key that follows another on the frame before.
    pub fn cuts(&self) -> impl Iterator<Item = u32> + '_ {
        self.keys
            .windows(2)
            .filter(|w| w[0].frame + 1 == w[1].frame)
            .map(|w| w[1].frame)
    }

    /// The camera at `time` seconds (frames at 30 fps; see [`frame_of_time`] for times on a
    /// frame).
    #[must_use]
    pub fn sample(&self, time: f32) -> CameraState {
        self.sample_frame(frame_of_time(time))
    }

    /// The camera at a frame time (30 fps, fractions allowed: 12.5 is half-way between frames
    /// 12 and 13), clamped to the keys (a non-finite frame is the first key's).
    #[must_use]
    pub fn sample_frame(&self, frame: f64) -> CameraState {
        self.orbit(frame).state()
    }

    /// babylon-mmd's `MmdRuntimeCameraAnimation.animate`.
    fn orbit(&self, frame: f64) -> Orbit {
        let keys = &self.keys;
        let first = f64::from(keys[0].frame);
        let last = f64::from(self.end_frame());
        let t = frame.max(first).min(last);
        let upper = keys.partition_point(|k| f64::from(k.frame) <= t);
        let a = &keys[upper - 1];
        let hold = |k: &CameraKey| Orbit {
            target: k.target.as_dvec3(),
            rotation: k.rotation.as_dvec3(),
            distance: f64::from(k.distance),
            fov: f64::from(k.fov_degrees) * (std::f64::consts::PI / 180.0),
            perspective: k.perspective,
        };
        let Some(b) = keys.get(upper).filter(|b| a.frame + 1 != b.frame) else {
            return hold(a);
        };
        let g = (t - f64::from(a.frame)) / f64::from(b.frame - a.frame);
        let c = &b.curves;
        let (ta, tb) = (a.target.as_dvec3(), b.target.as_dvec3());
        let target = DVec3::new(
            ta.x + (tb.x - ta.x) * bezier(c.x, g),
            ta.y + (tb.y - ta.y) * bezier(c.y, g),
            ta.z + (tb.z - ta.z) * bezier(c.z, g),
        );
        let w = bezier(c.rotation, g);
        let rotation = a.rotation.as_dvec3() * (1.0 - w) + b.rotation.as_dvec3() * w;
        let (da, db) = (f64::from(a.distance), f64::from(b.distance));
        let distance = da + (db - da) * bezier(c.distance, g);
        let (fa, fb) = (f64::from(a.fov_degrees), f64::from(b.fov_degrees));
        let fov = (fa + (fb - fa) * bezier(c.fov, g)) * (std::f64::consts::PI / 180.0);
        Orbit {
            target,
            rotation,
            distance,
            fov,
            perspective: a.perspective,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sinew_mmd::vmd::{encode_camera_interpolation, VmdCameraKey};

    fn key(frame: u32, distance: f32, x: f32) -> VmdCameraKey {
        VmdCameraKey {
            frame,
            distance,
            target: Vec3::new(x, 10.0, 0.0),
            rotation: Vec3::new(0.0, x * 0.1, 0.0),
            interpolation: [20, 107, 20, 107].repeat(6).try_into().unwrap(),
            fov: 30,
            orthographic: false,
        }
    }

    fn camera(keys: Vec<VmdCameraKey>) -> CameraMotion {
        CameraMotion::from_parsed(&Vmd {
            camera_keys: keys,
            ..Vmd::default()
        })
        .unwrap()
    }

    #[test]
    fn default_camera_looks_along_z_from_45_units() {
        let c = CameraState::mmd_default();
        assert!((c.position - Vec3::new(0.0, 10.0, -45.0)).length() < 1e-6);
        assert!((c.forward - Vec3::Z).length() < 1e-6);
        assert!((c.up - Vec3::Y).length() < 1e-6);
        assert!((c.right() - Vec3::X).length() < 1e-6);
        let target_in_view = c.view.transform_point3(c.target);
        assert!((target_in_view - Vec3::new(0.0, 0.0, 45.0)).length() < 1e-5);
    }

    #[test]
    fn cuts_hold_then_jump_and_times_land_on_frames() {
        let c = camera(vec![
            key(0, -10.0, 0.0),
            key(10, -20.0, 1.0),
            key(11, -30.0, 2.0),
        ]);
        assert_eq!(c.cuts().collect::<Vec<_>>(), [11]);
        assert_eq!(c.sample_frame(10.0).distance, -20.0);
        assert_eq!(c.sample_frame(10.999).distance, -20.0);
        assert_eq!(c.sample_frame(11.0).distance, -30.0);
        assert_eq!(
            c.sample(11.0 / 30.0).distance,
            -30.0,
            "a frame's f32 time is the frame"
        );
        // On a key that starts a segment babylon-mmd's bisection stops at t = 2^-16, a hair
        // past the key (here 1.4e-4 units): kept, to agree with it.
        assert_eq!(c.sample_frame(f64::NAN), c.sample_frame(0.0));
        assert_eq!(c.sample_frame(-5.0), c.sample_frame(0.0));
        assert!((c.sample_frame(0.0).distance + 10.0).abs() < 2e-4);
        assert_eq!(c.sample_frame(99.0).distance, -30.0);
        assert!((c.sample_frame(5.0).distance + 15.0).abs() < 1e-4);
        assert!((c.duration() - 11.0 / 30.0).abs() < 1e-7);
    }

    #[test]
    fn later_key_on_a_frame_wins_and_file_order_does_not_matter() {
        let c = camera(vec![
            key(10, -20.0, 1.0),
            key(0, -10.0, 0.0),
            key(10, -25.0, 1.0),
        ]);
        assert_eq!(c.keys().len(), 2);
        assert_eq!(c.keys()[1].distance, -25.0);
    }

    #[test]
    fn each_channel_has_its_own_curve() {
        let mut b = key(10, -20.0, 1.0);
        let step = VmdBezier {
            p1: [0, 127],
            p2: [0, 127],
        };
        let curves = VmdCameraInterpolation {
            x: step,
            y: VmdBezier::LINEAR,
            z: VmdBezier::LINEAR,
            rotation: VmdBezier::LINEAR,
            distance: VmdBezier::LINEAR,
            fov: VmdBezier::LINEAR,
        };
        b.interpolation = encode_camera_interpolation(&curves);
        b.target = Vec3::new(1.0, 11.0, 1.0);
        let c = camera(vec![key(0, -10.0, 0.0), b]);
        let s = c.sample_frame(5.0);
        assert!(s.target.x > 0.85, "x eased early: {}", s.target.x);
        assert!((s.target.y - 10.5).abs() < 1e-3 && (s.target.z - 0.5).abs() < 1e-3);
    }

    #[test]
    fn no_camera_keys_and_non_finite_keys_are_refused() {
        let e = CameraMotion::from_parsed(&Vmd::default()).unwrap_err();
        assert!(e.to_string().contains("no camera keys"), "{e}");
        let mut k = key(0, f32::NAN, 0.0);
        k.frame = 3;
        let e = CameraMotion::from_parsed(&Vmd {
            camera_keys: vec![k],
            ..Vmd::default()
        })
        .unwrap_err();
        assert!(e.to_string().contains("frame 3"), "{e}");
    }
}
