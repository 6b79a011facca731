//! Skinning speed: 12,354 vertices (miku_v2's count) with two influences each, positions and
//! normals — the work of ozz-animation's `SkinningJob` anchor in `../shared/anchors.md` — as
//! BDEF2 (linear), SDEF and dual quaternion. Each joint's vertices pair it with one of the next
//! three joints (about 360 joint pairs of 34 vertices); `sdef_long_runs` pairs each joint with
//! the next only (120 pairs of 103), to show SDEF's cost per joint pair.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use glam::{Affine3A, Quat, Vec3};
use sinew_skin::{Influence, Skin, SkinMode, SkinScratch};

const VERTICES: usize = 12_354;
const JOINTS: u32 = 120;

/// A small deterministic generator (no rand dependency).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 40) as f32) / ((1u64 << 24) as f32)
    }
}

fn setup(sdef: bool, spread: f32) -> (Skin, Vec<Affine3A>, Vec<Vec3>, Vec<Vec3>) {
    let mut r = Lcg(7);
    let infl: Vec<Influence> = (0..VERTICES)
        .map(|i| {
            // Neighbouring vertices share joints, as in a real mesh.
            let a = (i as u32 / 103) % JOINTS;
            let b = (a + 1 + (r.next() * spread) as u32) % JOINTS;
            let w = 0.2 + r.next() * 0.6;
            if sdef {
                let c = Vec3::new(r.next(), r.next() * 20.0, r.next());
                Influence::Sdef {
                    joints: [a, b],
                    weight: w,
                    c,
                    r0: c + Vec3::Y,
                    r1: c - Vec3::Y,
                }
            } else {
                Influence::two([a, b], w)
            }
        })
        .collect();
    let skin = Skin::new(&infl, JOINTS as usize).unwrap();
    let m = (0..JOINTS)
        .map(|j| {
            Affine3A::from_rotation_translation(
                Quat::from_euler(
                    glam::EulerRot::XYZ,
                    r.next(),
                    r.next() - 0.5,
                    j as f32 * 0.01,
                ),
                Vec3::new(r.next(), r.next(), r.next()),
            )
        })
        .collect();
    let p = (0..VERTICES)
        .map(|_| Vec3::new(r.next() * 8.0 - 4.0, r.next() * 20.0, r.next() * 2.0 - 1.0))
        .collect();
    let n = (0..VERTICES)
        .map(|_| Vec3::new(r.next() - 0.5, r.next() - 0.5, 1.0).normalize())
        .collect();
    (skin, m, p, n)
}

fn bench(c: &mut Criterion) {
    for (name, sdef, spread, mode) in [
        (
            "skin_12354_bdef2_positions_normals",
            false,
            3.0,
            SkinMode::Linear,
        ),
        (
            "skin_12354_sdef_positions_normals",
            true,
            3.0,
            SkinMode::Linear,
        ),
        (
            "skin_12354_sdef_long_runs_positions_normals",
            true,
            0.0,
            SkinMode::Linear,
        ),
        (
            "skin_12354_dual_quaternion_positions_normals",
            false,
            3.0,
            SkinMode::DualQuaternion,
        ),
    ] {
        let (skin, m, p, n) = setup(sdef, spread);
        let mut scratch = SkinScratch::new(&skin);
        let mut op = vec![Vec3::ZERO; VERTICES];
        let mut on = vec![Vec3::ZERO; VERTICES];
        c.bench_function(name, |b| {
            b.iter(|| {
                skin.deform(&mut scratch, mode, black_box(&m), &p, &n, &mut op, &mut on)
                    .unwrap();
                black_box(&op);
            });
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
