//! One picture of a real character: miku_v2 (12,354 vertices, 22,961 triangles, 17 materials,
//! one texture) posed at frame 1200 of wavefile_v2, skinned, framed front on at 512x512 with
//! MMD edges; criterion times `Frame::clear` + drawing every material, single-threaded.
//! Skipped with a message when the shared assets are absent.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use glam::Vec3;
use sinew_character::{Character, CharacterModel};
use sinew_raster::{Camera, DrawMaterial, Frame, Light, MeshView, Texture, Winding};
use sinew_skin::TextureSource;

fn bench(c: &mut Criterion) {
    let (Some(pmd), Some(vmd)) = (
        sinew_testkit::asset("mmd/threejs-examples/miku/miku_v2.pmd"),
        sinew_testkit::asset("mmd/threejs-examples/vmds/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let model = CharacterModel::load(&pmd).unwrap();
    let motion = model.load_motion(vmd).unwrap();
    let mut character = Character::new(&model);
    character.play(&motion);
    character.seek(1200.0 / 30.0).unwrap();
    let mesh = std::sync::Arc::clone(&model.meshes()[0].mesh);
    let d = character.skinned_mesh(0).unwrap();
    // MMD's left-handed space mirrored into the right-handed display space.
    let mirror = Vec3::new(1.0, 1.0, -1.0);
    let positions: Vec<Vec3> = d.positions().iter().map(|p| *p * mirror).collect();
    let normals: Vec<Vec3> = d.normals().iter().map(|n| *n * mirror).collect();
    let folder = pmd.parent().unwrap();
    let textures: Vec<Option<Texture>> = mesh
        .textures
        .iter()
        .map(|t| match t {
            TextureSource::File(rel) => std::fs::read(folder.join(rel))
                .ok()
                .and_then(|b| Texture::decode(&b).ok()),
            TextureSource::Embedded { .. } => None,
        })
        .collect();
    let materials: Vec<DrawMaterial<'_>> = mesh
        .materials
        .iter()
        .map(|m| DrawMaterial {
            first_index: m.first_index as usize,
            index_count: m.index_count as usize,
            diffuse: m.diffuse,
            ambient: m.ambient,
            texture: m.texture.and_then(|t| textures[t as usize].as_ref()),
            double_sided: m.double_sided,
            outline: m.edge,
        })
        .collect();
    let view = MeshView {
        positions: &positions,
        normals: &normals,
        uvs: d.uvs(),
        indices: &mesh.indices,
        front_face: Winding::Clockwise,
    };
    let (lo, hi) = sinew_skin::bounds(&positions).unwrap();
    let camera = Camera::framing(lo, hi, Vec3::Z, Vec3::Y, 1.0);
    let mut frame = Frame::new(512, 512, [250, 250, 247, 255]).unwrap();
    let light = Light::default();
    println!(
        "miku_v2: {} vertices, {} triangles, {} materials",
        positions.len(),
        mesh.indices.len() / 3,
        materials.len()
    );
    c.bench_function("raster_miku_v2_512x512_textured_edges", |b| {
        b.iter(|| {
            frame.clear([250, 250, 247, 255]);
            black_box(frame.draw(&camera, &view, &materials, &light).unwrap());
        });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
