//! Frame::clear + draw of a lit 12,000-triangle UV sphere framed at 512x512.

use criterion::{criterion_group, criterion_main, Criterion};
use glam::{Vec2, Vec3, Vec4};
use sinew_raster::{Camera, DrawMaterial, Frame, Light, MeshView, Winding};

/// A unit UV sphere: `slices * 2 * (stacks - 1)` triangles, counter-clockwise from outside.
fn sphere(stacks: u32, slices: u32) -> (Vec<Vec3>, Vec<Vec3>, Vec<Vec2>, Vec<u32>) {
    let (mut p, mut n, mut uv, mut idx) = (vec![], vec![], vec![], vec![]);
    for i in 0..=stacks {
        let v = i as f32 / stacks as f32;
        let theta = v * std::f32::consts::PI;
        for j in 0..=slices {
            let u = j as f32 / slices as f32;
            let phi = u * std::f32::consts::TAU;
            let d = Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                -theta.sin() * phi.sin(),
            );
            p.push(d);
            n.push(d);
            uv.push(Vec2::new(u, v));
        }
    }
    let row = slices + 1;
    for i in 0..stacks {
        for j in 0..slices {
            let (a, b) = (i * row + j, i * row + j + 1);
            let (c, d) = (a + row, b + row);
            if i != 0 {
                idx.extend([a, c, b]);
            }
            if i != stacks - 1 {
                idx.extend([b, c, d]);
            }
        }
    }
    (p, n, uv, idx)
}

fn bench(c: &mut Criterion) {
    let (positions, normals, uvs, indices) = sphere(61, 100);
    assert_eq!(indices.len() / 3, 12_000);
    let mesh = MeshView {
        positions: &positions,
        normals: &normals,
        uvs: &uvs,
        indices: &indices,
        front_face: Winding::CounterClockwise,
    };
    let camera = Camera::framing(-Vec3::ONE, Vec3::ONE, Vec3::Z, Vec3::Y, 1.0);
    let material = DrawMaterial {
        diffuse: Vec4::new(0.9, 0.7, 0.6, 1.0),
        ambient: Vec3::splat(0.1),
        ..DrawMaterial::new(0, indices.len())
    };
    let light = Light::default();
    let mut frame = Frame::new(512, 512, [40, 40, 48, 255]).unwrap();
    let stats = frame.draw(&camera, &mesh, &[material], &light).unwrap();
    assert!(stats.triangles_drawn > 3_000, "{stats:?}");
    c.bench_function("sphere_12k_512x512", |b| {
        b.iter(|| {
            frame.clear([40, 40, 48, 255]);
            frame.draw(&camera, &mesh, &[material], &light).unwrap()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
