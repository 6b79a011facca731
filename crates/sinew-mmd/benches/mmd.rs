//! MMD parsing on the shared assets (skipped with a message when they are absent):
//! miku_v2.pmd and wavefile_v2.vmd, MB/s. (A character's frame:
//! `sinew-character/benches/character.rs`.)

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use sinew_mmd::{Pmd, Vmd};

fn bench(c: &mut Criterion) {
    let Some(dir) = sinew_testkit::assets_dir() else {
        return;
    };
    let Ok(pmd) = std::fs::read(dir.join("mmd/threejs-examples/miku/miku_v2.pmd")) else {
        return;
    };
    let Ok(vmd) = std::fs::read(dir.join("mmd/threejs-examples/vmds/wavefile_v2.vmd")) else {
        return;
    };
    let mut g = c.benchmark_group("parse");
    g.throughput(Throughput::Bytes(pmd.len() as u64));
    g.bench_function("miku_v2.pmd", |b| {
        b.iter(|| black_box(Pmd::parse(black_box(&pmd)).unwrap()))
    });
    g.throughput(Throughput::Bytes(vmd.len() as u64));
    g.bench_function("wavefile_v2.vmd", |b| {
        b.iter(|| black_box(Vmd::parse(black_box(&vmd)).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
