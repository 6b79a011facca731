//! MMD benchmarks on the shared assets (skipped with a message when they are absent):
//! parsing miku_v2.pmd and wavefile_v2.vmd (MB/s), and one frame of miku_v2 with IK and
//! append through the MMD runtime (a static leg-IK pose, every bone evaluated).

use std::sync::Arc;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use glam::{Quat, Vec3};
use sinew_mmd::{EvalOptions, MmdInstance, MmdModel, MmdMotion, MotionPlayer, Pmd, Vmd};

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

    let model = Arc::new(MmdModel::from_bytes(&pmd).unwrap());
    let mut inst = MmdInstance::new(Arc::clone(&model));
    let l = model.bone_index("左足ＩＫ").unwrap();
    let r = model.bone_index("右足ＩＫ").unwrap();
    inst.translations_mut()[l] = Vec3::new(0.0, 2.0, 0.0);
    inst.translations_mut()[r] = Vec3::new(0.0, 1.0, -1.0);
    inst.rotations_mut()[model.bone_index("上半身").unwrap()] = Quat::from_rotation_y(0.3);
    let mut g = c.benchmark_group("frame");
    g.bench_function("miku_v2 static leg-IK pose, IK + append (full)", |b| {
        b.iter(|| {
            inst.evaluate(EvalOptions::default());
            black_box(inst.world());
        });
    });
    g.bench_function("miku_v2 static pose, FK only", |b| {
        b.iter(|| {
            inst.evaluate(EvalOptions {
                append: false,
                ik: false,
            });
            black_box(inst.world());
        });
    });
    let motion = Arc::new(MmdMotion::from_vmd(&Vmd::parse(&vmd).unwrap(), Some(&model)).unwrap());
    let mut player = MotionPlayer::new(motion, &model);
    let mut frame = 0.0f32;
    g.bench_function(
        "miku_v2 + wavefile_v2, sample + IK + append (full), advancing 1 frame",
        |b| {
            b.iter(|| {
                frame = (frame + 1.0) % 2800.0;
                player.apply(frame, &mut inst);
                inst.evaluate(EvalOptions::default());
                black_box(inst.world());
            });
        },
    );
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
