//! End-to-end tests of the public API: coverage, depth, culling, blending, textures, edges,
//! clipping and hostile input.

use glam::{Vec2, Vec3, Vec4};
use proptest::prelude::*;
use sinew_raster::{
    Camera, DrawMaterial, DrawStats, Frame, Light, MeshView, RasterError, Texture, Winding,
};

const W: u32 = 64;
const H: u32 = 48;
const BG: [u8; 4] = [0, 0, 0, 255];

/// An orthographic camera where one world unit is one pixel: world `(x, y)` is pixel
/// `(x + W/2, H/2 - y)`; larger world z is nearer.
fn pixel_camera() -> Camera {
    Camera::orthographic(
        Vec3::new(0.0, 0.0, 10.0),
        Vec3::ZERO,
        Vec3::Y,
        H as f32 / 2.0,
        W as f32 / H as f32,
        0.1,
        100.0,
    )
}

/// World point for pixel coordinates (y down) at world depth `z`.
fn px(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x - W as f32 / 2.0, H as f32 / 2.0 - y, z)
}

/// Full-brightness light: ambient 1, so a white material is exactly its diffuse colour.
fn flat_light() -> Light {
    Light {
        direction: Vec3::NEG_Z,
        color: Vec3::ZERO,
        ambient: Vec3::ONE,
    }
}

fn solid(first: usize, count: usize, rgba: Vec4) -> DrawMaterial<'static> {
    DrawMaterial {
        diffuse: rgba,
        ..DrawMaterial::new(first, count)
    }
}

fn draw(
    frame: &mut Frame,
    positions: &[Vec3],
    indices: &[u32],
    front: Winding,
    materials: &[DrawMaterial],
) -> DrawStats {
    let mesh = MeshView {
        front_face: front,
        ..MeshView::new(positions, indices)
    };
    frame
        .draw(&pixel_camera(), &mesh, materials, &flat_light())
        .unwrap()
}

fn pixel(frame: &Frame, x: u32, y: u32) -> [u8; 4] {
    let i = (y * frame.width() + x) as usize * 4;
    frame.rgba()[i..i + 4].try_into().unwrap()
}

fn covered(frame: &Frame) -> usize {
    frame.rgba().chunks(4).filter(|p| p[..3] != BG[..3]).count()
}

#[test]
fn single_triangle_covers_its_area() {
    let tris = [
        [(3.2, 4.7), (50.1, 9.3), (20.5, 40.2)],
        [(10.0, 10.0), (40.0, 10.0), (10.0, 40.0)],
        [(0.0, 0.0), (64.0, 0.0), (0.0, 48.0)],
        [(30.3, 2.0), (31.7, 45.9), (33.1, 20.0)],
    ];
    for t in tris {
        let mut frame = Frame::new(W, H, BG).unwrap();
        let p = t.map(|(x, y)| px(x, y, 0.0));
        let stats = draw(
            &mut frame,
            &p,
            &[0, 2, 1, 0, 1, 2],
            Winding::CounterClockwise,
            &[solid(0, 6, Vec4::ONE)],
        );
        // One of the two windings is culled.
        assert_eq!((stats.triangles_drawn, stats.triangles_culled), (1, 1));
        let (a, b, c) = (Vec2::from(t[0]), Vec2::from(t[1]), Vec2::from(t[2]));
        let area = 0.5 * (b - a).perp_dot(c - a).abs();
        let perimeter = (b - a).length() + (c - b).length() + (a - c).length();
        let n = covered(&frame) as f32;
        assert!((n - area).abs() <= perimeter, "{n} pixels for area {area}");
        assert_eq!(pixel(&frame, W - 1, H - 1), BG);
    }
}

#[test]
fn shared_edges_are_covered_exactly_once() {
    // A fan of triangles around an off-grid centre and a strip with pixel-centre vertices:
    // drawn at 50 % opacity, any pixel covered twice would be brighter.
    let centre = px(31.37, 22.91, 0.0);
    let mut positions = vec![centre];
    let k = 13;
    for i in 0..k {
        let a = i as f32 / k as f32 * std::f32::consts::TAU;
        positions.push(centre + Vec3::new(a.cos() * 20.3, a.sin() * 19.7, 0.0));
    }
    let mut indices = vec![];
    for i in 0..k {
        indices.extend([0, 1 + i, 1 + (i + 1) % k]);
    }
    let base = positions.len() as u32;
    positions.extend([
        px(0.5, 0.5, 0.0),
        px(63.5, 0.5, 0.0),
        px(0.5, 3.5, 0.0),
        px(63.5, 3.5, 0.0),
    ]);
    indices.extend([base, base + 2, base + 1, base + 1, base + 2, base + 3]);
    let mut frame = Frame::new(W, H, BG).unwrap();
    let n = indices.len();
    let stats = draw(
        &mut frame,
        &positions,
        &indices,
        Winding::CounterClockwise,
        &[solid(0, n, Vec4::new(1.0, 1.0, 1.0, 0.5)), {
            // The same triangles again at zero opacity: nothing changes.
            solid(0, n, Vec4::new(1.0, 1.0, 1.0, 0.0))
        }],
    );
    assert_eq!(stats.triangles_drawn, k as usize + 2);
    let mut once = 0;
    for p in frame.rgba().chunks(4) {
        match p[0] {
            0 => {}
            128 => once += 1,
            v => panic!("pixel value {v}: blended more than once"),
        }
    }
    // The fan is a closed disc: its pixel count is close to its area.
    let strip = 63 * 3;
    let disc = once - strip;
    let area = 0.5 * k as f32 * 20.3 * 19.7 * (std::f32::consts::TAU / k as f32).sin();
    assert!((disc as f32 - area).abs() < 2.0 * std::f32::consts::PI * 20.0);
}

#[test]
fn nearer_triangle_wins_in_either_order() {
    let quad = |z: f32| {
        [
            px(10.0, 10.0, z),
            px(10.0, 30.0, z),
            px(40.0, 30.0, z),
            px(40.0, 10.0, z),
        ]
    };
    let mut positions = quad(2.0).to_vec(); // near
    positions.extend(quad(-3.0)); // far
    let indices = [0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7];
    let red = Vec4::new(1.0, 0.0, 0.0, 1.0);
    let blue = Vec4::new(0.0, 0.0, 1.0, 1.0);
    for order in [[0, 6], [6, 0]] {
        let mut frame = Frame::new(W, H, BG).unwrap();
        let mats: Vec<_> = order
            .iter()
            .map(|&first| solid(first, 6, if first == 0 { red } else { blue }))
            .collect();
        draw(
            &mut frame,
            &positions,
            &indices,
            Winding::CounterClockwise,
            &mats,
        );
        assert_eq!(pixel(&frame, 20, 20), [255, 0, 0, 255]);
        let d = frame.depth()[(20 * W + 20) as usize];
        assert!(d > 0.0 && d < 1.0);
    }
}

#[test]
fn culling_follows_front_face_and_double_sided() {
    // (10,10) → (10,30) → (30,10) runs counter-clockwise on screen (y down).
    let p = [
        px(10.0, 10.0, 0.0),
        px(10.0, 30.0, 0.0),
        px(30.0, 10.0, 0.0),
    ];
    let ccw = [0u32, 1, 2];
    let cw = [0u32, 2, 1];
    for (indices, front, visible) in [
        (ccw, Winding::CounterClockwise, true),
        (ccw, Winding::Clockwise, false),
        (cw, Winding::Clockwise, true),
        (cw, Winding::CounterClockwise, false),
    ] {
        let mut frame = Frame::new(W, H, BG).unwrap();
        let stats = draw(&mut frame, &p, &indices, front, &[solid(0, 3, Vec4::ONE)]);
        assert_eq!(stats.triangles_drawn == 1, visible, "{indices:?} {front:?}");
        assert_eq!(covered(&frame) > 0, visible);

        let mut frame = Frame::new(W, H, BG).unwrap();
        let two_sided = DrawMaterial {
            double_sided: true,
            ..solid(0, 3, Vec4::ONE)
        };
        let stats = draw(&mut frame, &p, &indices, front, &[two_sided]);
        assert_eq!(stats.triangles_drawn, 1);
    }
}

#[test]
fn double_sided_back_faces_flip_their_normals() {
    // A quad whose normals point away from the camera, lit from the camera side.
    let positions = [
        px(10.0, 10.0, 0.0),
        px(10.0, 30.0, 0.0),
        px(40.0, 30.0, 0.0),
        px(40.0, 10.0, 0.0),
    ];
    let normals = [Vec3::NEG_Z; 4];
    // Clockwise on screen: a back face for a counter-clockwise mesh.
    let indices = [0, 2, 1, 0, 3, 2];
    let light = Light {
        direction: Vec3::NEG_Z,
        color: Vec3::ONE,
        ambient: Vec3::ZERO,
    };
    let mesh = MeshView {
        positions: &positions,
        normals: &normals,
        uvs: &[],
        indices: &indices,
        front_face: Winding::CounterClockwise,
    };
    let mut frame = Frame::new(W, H, BG).unwrap();
    let m = DrawMaterial {
        double_sided: true,
        ..DrawMaterial::new(0, 6)
    };
    frame.draw(&pixel_camera(), &mesh, &[m], &light).unwrap();
    assert_eq!(pixel(&frame, 20, 20), [255, 255, 255, 255]);
}

#[test]
fn transparent_fragments_blend_without_writing_depth() {
    let quad = |z: f32| {
        [
            px(10.0, 10.0, z),
            px(10.0, 30.0, z),
            px(40.0, 30.0, z),
            px(40.0, 10.0, z),
        ]
    };
    let mut positions = quad(2.0).to_vec();
    positions.extend(quad(-3.0));
    let indices = [0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7];
    let mut frame = Frame::new(W, H, [0, 0, 0, 0]).unwrap();
    // Near and 40 % opaque first, then far and opaque: the far one still lands.
    draw(
        &mut frame,
        &positions,
        &indices,
        Winding::CounterClockwise,
        &[
            solid(0, 6, Vec4::new(1.0, 0.0, 0.0, 0.4)),
            solid(6, 6, Vec4::new(0.0, 0.0, 1.0, 1.0)),
        ],
    );
    assert_eq!(pixel(&frame, 20, 20), [0, 0, 255, 255]);
    // Alone, the transparent quad blends over a transparent background with straight alpha.
    let mut frame = Frame::new(W, H, [0, 0, 0, 0]).unwrap();
    draw(
        &mut frame,
        &positions,
        &indices,
        Winding::CounterClockwise,
        &[solid(0, 6, Vec4::new(1.0, 0.0, 0.0, 0.4))],
    );
    assert_eq!(pixel(&frame, 20, 20), [255, 0, 0, 102]);
    assert!(frame.depth().iter().all(|&d| d == 1.0));
}

fn encode(format: image::ImageFormat, rgba: &[u8], w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbaImage::from_raw(w, h, rgba.to_vec()).unwrap();
    let mut out = std::io::Cursor::new(Vec::new());
    match format {
        image::ImageFormat::Jpeg => image::DynamicImage::ImageRgba8(img)
            .into_rgb8()
            .write_to(&mut out, format)
            .unwrap(),
        _ => img.write_to(&mut out, format).unwrap(),
    }
    out.into_inner()
}

const CHECKER: [u8; 16] = [
    255, 0, 0, 255, /**/ 0, 255, 0, 255, /**/ 0, 0, 255, 255, /**/ 255, 255, 255,
    255,
];

#[test]
fn png_texture_maps_onto_a_quad() {
    let tex = Texture::decode(&encode(image::ImageFormat::Png, &CHECKER, 2, 2)).unwrap();
    assert_eq!((tex.width(), tex.height()), (2, 2));
    // Repeat wrap.
    assert_eq!(
        tex.sample(Vec2::new(0.25, 0.25)),
        Vec4::new(1.0, 0.0, 0.0, 1.0)
    );
    assert_eq!(
        tex.sample(Vec2::new(2.25, -0.75)),
        Vec4::new(1.0, 0.0, 0.0, 1.0)
    );
    assert_eq!(tex.sample(Vec2::new(-0.25, 1.75)), Vec4::ONE);

    // The quad spans (7.5..55.5, 3.5..43.5) with uv (0,0) at its top-left corner, so the
    // texel centres (u, v = 1/4, 3/4) fall on pixel centres 19 and 43 across, 13 and 33 down.
    let positions = [
        px(7.5, 3.5, 0.0),
        px(7.5, 43.5, 0.0),
        px(55.5, 43.5, 0.0),
        px(55.5, 3.5, 0.0),
    ];
    let uvs = [
        Vec2::new(0.0, 0.0),
        Vec2::new(0.0, 1.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(1.0, 0.0),
    ];
    let indices = [0, 1, 2, 0, 2, 3];
    let mesh = MeshView {
        positions: &positions,
        normals: &[],
        uvs: &uvs,
        indices: &indices,
        front_face: Winding::CounterClockwise,
    };
    let material = DrawMaterial {
        texture: Some(&tex),
        ..DrawMaterial::new(0, 6)
    };
    let mut frame = Frame::new(W, H, BG).unwrap();
    let stats = frame
        .draw(&pixel_camera(), &mesh, &[material], &flat_light())
        .unwrap();
    assert_eq!(stats.triangles_drawn, 2);
    assert_eq!(pixel(&frame, 19, 13), [255, 0, 0, 255]);
    assert_eq!(pixel(&frame, 43, 13), [0, 255, 0, 255]);
    assert_eq!(pixel(&frame, 19, 33), [0, 0, 255, 255]);
    assert_eq!(pixel(&frame, 43, 33), [255, 255, 255, 255]);
    // Between texel centres, bilinear: halfway from red to green.
    let mid = pixel(&frame, 31, 13);
    assert!(
        (127..=128).contains(&mid[0]) && (127..=128).contains(&mid[1]),
        "{mid:?}"
    );
    assert_eq!((mid[2], mid[3]), (0, 255));

    // Without uvs the texture is ignored.
    let mut frame = Frame::new(W, H, BG).unwrap();
    let mesh = MeshView { uvs: &[], ..mesh };
    frame
        .draw(&pixel_camera(), &mesh, &[material], &flat_light())
        .unwrap();
    assert_eq!(pixel(&frame, 19, 13), [255, 255, 255, 255]);
}

#[test]
fn every_format_decodes_including_tga_without_magic() {
    for format in [
        image::ImageFormat::Png,
        image::ImageFormat::Bmp,
        image::ImageFormat::Tga,
    ] {
        let tex = Texture::decode(&encode(format, &CHECKER, 2, 2)).unwrap();
        assert_eq!(tex.rgba(), &CHECKER[..], "{format:?}");
    }
    // JPEG is lossy: an 8x8 flat colour survives closely.
    let flat: Vec<u8> = [200u8, 100, 50, 255].repeat(64);
    let tex = Texture::decode(&encode(image::ImageFormat::Jpeg, &flat, 8, 8)).unwrap();
    assert_eq!((tex.width(), tex.height()), (8, 8));
    let t = tex.sample(Vec2::splat(0.5)) * 255.0;
    assert!(
        (t - Vec4::new(200.0, 100.0, 50.0, 255.0))
            .abs()
            .max_element()
            < 6.0,
        "{t}"
    );
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn png_header(width: u32, height: u32) -> Vec<u8> {
    let mut ihdr = b"IHDR".to_vec();
    ihdr.extend(width.to_be_bytes());
    ihdr.extend(height.to_be_bytes());
    ihdr.extend([8, 6, 0, 0, 0]); // 8-bit RGBA, no interlace
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    out.extend(13u32.to_be_bytes());
    out.extend(&ihdr);
    out.extend(crc32(&ihdr).to_be_bytes());
    // An IDAT that never arrives.
    out.extend(0u32.to_be_bytes());
    out.extend(b"IDAT");
    out.extend(crc32(b"IDAT").to_be_bytes());
    out
}

#[test]
fn decode_rejects_garbage_and_oversized_headers() {
    for garbage in [
        &b""[..],
        b"not an image at all, just words",
        &[0xff; 7],
        &[0u8; 64],
    ] {
        assert!(
            matches!(Texture::decode(garbage), Err(RasterError::Decode(_))),
            "{garbage:?}"
        );
    }
    // Headers that claim huge images: rejected before any pixel is allocated.
    let mut bmp = encode(image::ImageFormat::Bmp, &CHECKER, 2, 2);
    bmp[18..22].copy_from_slice(&100_000i32.to_le_bytes());
    bmp[22..26].copy_from_slice(&100_000i32.to_le_bytes());
    let mut tga = encode(image::ImageFormat::Tga, &CHECKER, 2, 2);
    tga[12..14].copy_from_slice(&60_000u16.to_le_bytes());
    tga[14..16].copy_from_slice(&60_000u16.to_le_bytes());
    // 8193 x 1: over the side limit though tiny in area.
    for bytes in [png_header(100_000, 100_000), png_header(8193, 1), bmp, tga] {
        let err = Texture::decode(&bytes).unwrap_err();
        assert!(matches!(err, RasterError::Decode(_)), "{err}");
    }
    // The valid header of the same shape decodes once the size is sane.
    assert!(Texture::decode(&png_header(2, 2)).is_err()); // no pixel data
}

#[test]
fn frame_size_limits() {
    for (w, h) in [(0, 10), (10, 0), (100_000, 10), (10, 100_000), (8193, 1)] {
        assert!(matches!(
            Frame::new(w, h, BG),
            Err(RasterError::FrameSize { .. })
        ));
    }
    let f = Frame::new(1, 8192, BG).unwrap();
    assert_eq!(
        (f.width(), f.height(), f.rgba().len(), f.depth().len()),
        (1, 8192, 8192 * 4, 8192)
    );
}

#[test]
fn hostile_geometry_is_skipped_and_counted() {
    let good = [
        px(10.0, 10.0, 0.0),
        px(10.0, 30.0, 0.0),
        px(30.0, 10.0, 0.0),
    ];
    let mut positions = good.to_vec();
    positions.extend([
        Vec3::NAN,
        Vec3::new(f32::INFINITY, 0.0, 0.0),
        Vec3::new(0.0, f32::NEG_INFINITY, 0.0),
        Vec3::splat(1e30),
        Vec3::splat(f32::MAX),
    ]);
    let indices = [
        0,
        1,
        2, // good
        0,
        1,
        3, // NaN
        0,
        4,
        2, // +inf
        5,
        1,
        2, // -inf
        0,
        6,
        2, // 1e30
        7,
        1,
        2, // f32::MAX
        0,
        1,
        99, // out of range
        u32::MAX,
        0,
        1, // out of range
        0,
        0,
        0, // degenerate: culled, not skipped
    ];
    let mut frame = Frame::new(W, H, BG).unwrap();
    let materials = [
        solid(0, indices.len(), Vec4::ONE),
        // Ranges past the end, partial triangles, overflowing counts: clamped.
        solid(indices.len() - 2, usize::MAX, Vec4::ONE),
        solid(usize::MAX, usize::MAX, Vec4::ONE),
        solid(1, 4, Vec4::ONE),
    ];
    let stats = draw(
        &mut frame,
        &positions,
        &indices,
        Winding::CounterClockwise,
        &materials,
    );
    assert_eq!(
        stats,
        DrawStats {
            // (0, 1, 2) and, from the last material, (1, 2, 0) (hidden by the depth test).
            triangles_drawn: 2,
            triangles_culled: 1, // (0, 0, 0)
            triangles_skipped: 7,
        }
    );
    assert!(frame.depth().iter().all(|d| d.is_finite()));

    // Attribute slices of the wrong length are the one caller error.
    let normals = [Vec3::Z; 2];
    let mesh = MeshView {
        normals: &normals,
        ..MeshView::new(&positions, &indices)
    };
    let err = frame
        .draw(&pixel_camera(), &mesh, &materials, &flat_light())
        .unwrap_err();
    assert!(matches!(
        err,
        RasterError::AttributeLength {
            attribute: "normals",
            ..
        }
    ));
}

#[test]
fn triangles_through_the_near_plane_are_clipped() {
    // Eye 1 above a ground plane, looking level: the horizon is the middle row.
    let camera = Camera::perspective(
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(0.0, 1.0, -1.0),
        Vec3::Y,
        1.2,
        1.0,
        0.1,
        1000.0,
    );
    // A huge ground triangle reaching behind the eye.
    let positions = [
        Vec3::new(-100.0, 0.0, 20.0),
        Vec3::new(100.0, 0.0, 20.0),
        Vec3::new(0.0, 0.0, -300.0),
    ];
    let indices = [0, 1, 2];
    let mut frame = Frame::new(64, 64, BG).unwrap();
    let mesh = MeshView::new(&positions, &indices);
    let stats = frame
        .draw(&camera, &mesh, &[DrawMaterial::new(0, 3)], &flat_light())
        .unwrap();
    assert_eq!(stats.triangles_drawn, 1);
    for y in 0..64 {
        for x in 0..64 {
            let lit = pixel(&frame, x, y) != BG;
            // Above the horizon: empty. Well below it: all ground (the far tip is at z=-300,
            // so near the horizon the triangle narrows).
            if y < 32 {
                assert!(!lit, "sky pixel {x},{y}");
            }
            if y >= 40 {
                assert!(lit, "ground pixel {x},{y}");
            }
        }
    }
    assert!(frame.depth().iter().all(|d| (0.0..=1.0).contains(d)));
}

#[test]
fn project_and_framing() {
    let target = Vec3::new(0.3, 1.1, -0.2);
    let cam = Camera::perspective(
        Vec3::new(2.0, 1.5, 4.0),
        target,
        Vec3::Y,
        0.7,
        640.0 / 480.0,
        0.05,
        50.0,
    );
    let p = cam.project(target, 640, 480).unwrap();
    assert!(
        (p.x - 320.0).abs() < 1e-2 && (p.y - 240.0).abs() < 1e-2,
        "{p}"
    );
    assert!(cam
        .project(cam.eye() + (cam.eye() - target), 640, 480)
        .is_none());
    assert_eq!(cam.eye(), Vec3::new(2.0, 1.5, 4.0));

    let (min, max) = (Vec3::new(-8.0, 0.0, -3.0), Vec3::new(8.0, 21.0, 2.5));
    for dir in [Vec3::Z, Vec3::NEG_Z, Vec3::new(-1.0, 0.3, 0.6).normalize()] {
        let cam = Camera::framing(min, max, dir, Vec3::Y, 1.0);
        for i in 0..8u32 {
            let c = Vec3::new(
                if i & 1 == 0 { min.x } else { max.x },
                if i & 2 == 0 { min.y } else { max.y },
                if i & 4 == 0 { min.z } else { max.z },
            );
            let p = cam.project(c, 512, 512).unwrap();
            assert!(
                (0.0..=512.0).contains(&p.x) && (0.0..=512.0).contains(&p.y),
                "{c} → {p}"
            );
            assert!(p.z > 0.0 && p.z < 1.0);
        }
        let centre = cam.project((min + max) * 0.5, 512, 512).unwrap();
        assert!((centre.x - 256.0).abs() < 0.01 && (centre.y - 256.0).abs() < 0.01);
    }
}

/// A unit UV sphere, counter-clockwise from outside.
fn sphere(stacks: u32, slices: u32) -> (Vec<Vec3>, Vec<Vec3>, Vec<u32>) {
    let (mut p, mut idx) = (vec![], vec![]);
    for i in 0..=stacks {
        let theta = i as f32 / stacks as f32 * std::f32::consts::PI;
        for j in 0..=slices {
            let phi = j as f32 / slices as f32 * std::f32::consts::TAU;
            p.push(Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                -theta.sin() * phi.sin(),
            ));
        }
    }
    let row = slices + 1;
    for i in 0..stacks {
        for j in 0..slices {
            let (a, b) = (i * row + j, i * row + j + 1);
            idx.extend([a, a + row, b, b, a + row, b + row]);
        }
    }
    (p.clone(), p, idx)
}

#[test]
fn sphere_is_lit_and_gets_an_edge() {
    let (positions, normals, indices) = sphere(24, 48);
    let camera = Camera::framing(-Vec3::ONE, Vec3::ONE, Vec3::Z, Vec3::Y, 1.0);
    let mesh = MeshView {
        positions: &positions,
        normals: &normals,
        uvs: &[],
        indices: &indices,
        front_face: Winding::CounterClockwise,
    };
    let plain = DrawMaterial::new(0, indices.len());
    let mut frame = Frame::new(128, 128, BG).unwrap();
    let stats = frame
        .draw(&camera, &mesh, &[plain], &Light::default())
        .unwrap();
    let total = indices.len() / 3;
    // Under half is drawn: back faces are culled, and so are the zero-area pole triangles
    // and the slivers at the silhouette that cover no pixel centre.
    assert!(
        stats.triangles_drawn > total / 4 && stats.triangles_drawn < total / 2,
        "{stats:?}"
    );
    assert_eq!(stats.triangles_drawn + stats.triangles_culled, total);
    // The default light comes from the upper left: that side is brighter.
    let brightness = |f: &Frame, x, y| pixel(f, x, y)[0];
    assert!(brightness(&frame, 45, 45) > brightness(&frame, 83, 83));
    let plain_coverage = covered(&frame);

    let edged = DrawMaterial {
        outline: Some((Vec4::new(0.0, 1.0, 0.0, 1.0), 2.0)),
        ..plain
    };
    frame.clear(BG);
    frame
        .draw(&camera, &mesh, &[edged], &Light::default())
        .unwrap();
    let green = frame
        .rgba()
        .chunks(4)
        .filter(|p| p == &[0, 255, 0, 255])
        .count();
    // A ring about 2 pixels wide around the silhouette (radius ~48 px).
    let ring = covered(&frame) - plain_coverage;
    assert!(
        green >= ring && ring > 400 && ring < 1200,
        "green {green}, ring {ring}"
    );
    // The centre is still the lit surface.
    assert_ne!(pixel(&frame, 64, 64), [0, 255, 0, 255]);

    // Without normals there is no edge.
    frame.clear(BG);
    let flat_mesh = MeshView {
        normals: &[],
        ..mesh
    };
    frame
        .draw(&camera, &flat_mesh, &[edged], &Light::default())
        .unwrap();
    assert_eq!(covered(&frame), plain_coverage);
}

#[test]
fn png_round_trip() {
    let mut frame = Frame::new(5, 3, [10, 20, 30, 40]).unwrap();
    frame.clear([1, 2, 3, 255]);
    let dir = std::env::temp_dir().join(format!("sinew-raster-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("frame.png");
    frame.write_png(&path).unwrap();
    let back = Texture::decode(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!((back.width(), back.height()), (5, 3));
    assert_eq!(back.rgba(), frame.rgba());
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(matches!(
        frame.write_png(&dir.join("missing").join("x.png")),
        Err(RasterError::Io(_))
    ));
}

fn coord() -> impl Strategy<Value = f32> {
    prop_oneof![
        6 => -40.0f32..40.0,
        1 => -1e6f32..1e6,
        1 => prop::sample::select(vec![
            0.0,
            1e30,
            -1e30,
            1e18,
            f32::MAX,
            f32::MIN,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MIN_POSITIVE,
        ]),
    ]
}

fn point() -> impl Strategy<Value = Vec3> {
    (coord(), coord(), coord()).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_triangles_never_panic(
        points in prop::collection::vec(point(), 3..12),
        normals in prop::collection::vec(point(), 12),
        raw in prop::collection::vec(0u32..14, 0..30),
        perspective in any::<bool>(),
        double_sided in any::<bool>(),
        alpha in 0.0f32..1.0,
    ) {
        // Repeated points give degenerate triangles; indices up to 13 run off the end.
        let eye = Vec3::new(3.0, 2.0, 30.0);
        let camera = if perspective {
            Camera::perspective(eye, Vec3::ZERO, Vec3::Y, 1.0, 1.3, 0.5, 200.0)
        } else {
            Camera::orthographic(eye, Vec3::ZERO, Vec3::Y, 25.0, 1.3, 0.5, 200.0)
        };
        let normals = &normals[..points.len()];
        let uvs: Vec<Vec2> = points.iter().map(|p| p.truncate()).collect();
        let tex = Texture::from_rgba(1, 1, vec![200, 100, 50, 255]).unwrap();
        let mesh = MeshView {
            positions: &points,
            normals,
            uvs: &uvs,
            indices: &raw,
            front_face: Winding::Clockwise,
        };
        let material = DrawMaterial {
            diffuse: Vec4::new(1.0, 1.0, 1.0, alpha),
            texture: Some(&tex),
            double_sided,
            outline: Some((Vec4::ONE, 1.5)),
            ..DrawMaterial::new(0, raw.len())
        };
        let mut frame = Frame::new(40, 30, BG).unwrap();
        let stats = frame.draw(&camera, &mesh, &[material], &Light::default()).unwrap();
        prop_assert_eq!(
            stats.triangles_drawn + stats.triangles_culled + stats.triangles_skipped,
            raw.len() / 3
        );
        prop_assert!(frame.depth().iter().all(|d| d.is_finite() && (0.0..=1.0).contains(d)));
    }
}

#[test]
fn textures_round_trip_through_png() {
    let t = sinew_raster::Texture::from_rgba(2, 1, vec![255, 0, 0, 255, 0, 0, 255, 128]).unwrap();
    let back = sinew_raster::Texture::decode(&t.encode_png().unwrap()).unwrap();
    assert_eq!(back.rgba(), t.rgba());
}
