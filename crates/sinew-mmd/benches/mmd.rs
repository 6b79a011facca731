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
    // Bone by bone in MMD's order (the definitions carry it as an `EvaluationOrder`); an
    // `MmdInstance` evaluates miku_v2 in stages otherwise, the "through SkeletonInstance" row.
    inst.set_bone_by_bone(true);
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
    // The same frames through the generic `SkeletonInstance` over the definitions the MMD
    // reader mounts for MMD runtimes (`MmdSkeletonInstance`): the animated input copied in,
    // then constraints → hierarchy → IK (paths, lockstep pairs) → late constraints.
    let mut generic =
        sinew_mmd::MmdSkeletonInstance::new(Arc::clone(&model), EvalOptions::default()).unwrap();
    g.bench_function(
        "miku_v2 + wavefile_v2 through SkeletonInstance, sample + IK + append, advancing 1 frame",
        |b| {
            b.iter(|| {
                frame = (frame + 1.0) % 2800.0;
                player.apply(frame, &mut inst);
                generic.evaluate(&inst);
                black_box(generic.world());
            });
        },
    );
    g.finish();

    // Skinning the posed mesh: 12,354 vertices, all BDEF2, positions + normals (the work of
    // ozz-animation's SkinningJob anchor), single-threaded.
    player.apply(1200.0, &mut inst);
    inst.evaluate(EvalOptions::default());
    let mesh = Arc::clone(model.mesh());
    let mut matrices = vec![glam::Affine3A::IDENTITY; model.bones().len()];
    inst.skin_matrices(&mut matrices);
    let mut scratch = sinew_skin::SkinScratch::new(&mesh.skin);
    let mut positions = vec![Vec3::ZERO; mesh.positions.len()];
    let mut normals = vec![Vec3::ZERO; mesh.positions.len()];
    let mut g = c.benchmark_group("skin");
    for (name, mode) in [
        (
            "miku_v2 12354 vertices BDEF2 positions + normals",
            sinew_skin::SkinMode::Linear,
        ),
        (
            "miku_v2 12354 vertices dual quaternion positions + normals",
            sinew_skin::SkinMode::DualQuaternion,
        ),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                mesh.skin
                    .deform(
                        &mut scratch,
                        mode,
                        black_box(&matrices),
                        &mesh.positions,
                        &mesh.normals,
                        &mut positions,
                        &mut normals,
                    )
                    .unwrap();
                black_box(&positions);
            });
        });
    }
    let mut deformed = sinew_skin::Deformed::new(&mesh);
    g.bench_function(
        "miku_v2 morphs (wavefile frame 1200) + BDEF2 skinning",
        |b| {
            b.iter(|| {
                deformed
                    .update(
                        &mesh,
                        black_box(&matrices),
                        inst.effective_morph_weights(),
                        sinew_skin::SkinMode::Linear,
                    )
                    .unwrap();
                black_box(deformed.positions());
            });
        },
    );
    g.finish();
    println!(
        "miku_v2 skin spans (1, 2, 3-4, more, SDEF, DQ joints): {:?}",
        mesh.skin.span_sizes()
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
