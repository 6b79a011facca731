//! A character's frame, as a player runs it (skipped with a message without the shared
//! assets): miku_v2 dancing wavefile_v2 (sample + morphs + IK + append), staged and bone by
//! bone; the same with physics (two 1/60 s steps per 1/30 s frame, MMD's world writeback);
//! skinning its mesh; a glTF character playing its clip; and MMD's leg IK on random targets
//! through a character; a crowd of 100 dancers. Every clock wraps (a frame counter modulo the motion), so a long run
//! keeps crossing keys.
//!
//! `cargo bench -p sinew-character --bench character`

#[path = "../../sinew-mmd/tests/common/fixtures.rs"]
#[allow(dead_code)]
mod fixtures;

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use glam::{Quat, Vec3};
use sinew_character::{Character, CharacterModel, Crowd, Motion};
use sinew_mmd::{MmdModel, MmdOrder};

/// miku_v2 and the dance, `None` (said) without the assets.
fn miku() -> Option<(Arc<CharacterModel>, Motion)> {
    let pmd = sinew_testkit::asset("mmd/threejs-examples/miku/miku_v2.pmd")?;
    let vmd = sinew_testkit::asset("mmd/threejs-examples/vmds/wavefile_v2.vmd")?;
    let model = CharacterModel::load(pmd).ok()?;
    let motion = model.load_motion(vmd).ok()?;
    Some((model, motion))
}

fn mmd_frames(c: &mut Criterion) {
    let Some((model, motion)) = miku() else {
        return;
    };
    let last = (motion.duration() * 30.0).round() as u32;
    let (mmd, _) = model.mmd().unwrap();
    let bone_by_bone =
        CharacterModel::from_mmd_order(Arc::clone(mmd), MmdOrder::BoneByBone).unwrap();
    let mut g = c.benchmark_group("frame");
    for (name, m) in [
        (
            "miku_v2 + wavefile_v2 Character, sample + morphs + IK + append, advancing 1 frame",
            &model,
        ),
        (
            "miku_v2 + wavefile_v2 Character bone by bone, sample + morphs + IK + append, advancing 1 frame",
            &bone_by_bone,
        ),
    ] {
        let mut character = Character::new(m);
        character.play(&motion);
        let mut f = 0u32;
        g.bench_function(name, |b| {
            b.iter(|| {
                f = if f >= last { 0 } else { f + 1 };
                character.seek(f as f32 / 30.0).unwrap();
                black_box(character.world());
            });
        });
    }
    g.finish();

    let mut character = Character::new(&model);
    character.play(&motion);
    character.enable_physics().unwrap();
    let mut f = 0u32;
    c.bench_function(
        "mmd_frame_with_physics_miku_v2_wavefile_30fps_2x60hz",
        |b| {
            b.iter(|| {
                // The wrap back to frame 0 is a seek backwards: the bodies start again there.
                f = if f >= last { 0 } else { f + 1 };
                character.update(f as f32 / 30.0, 1.0 / 30.0).unwrap();
                black_box(character.world());
            });
        },
    );

    // Skinning the posed mesh (8,301 one-joint and 4,053 two-joint vertices, positions +
    // normals) with the dance's facial morphs of frame 1200, single-threaded.
    let mut character = Character::new(&model);
    character.play(&motion);
    character.seek(1200.0 / 30.0).unwrap();
    let mesh = &model.meshes()[0];
    let mut matrices = vec![glam::Affine3A::IDENTITY; mesh.joints.len()];
    let mut deformed = sinew_skin::Deformed::new(&mesh.mesh);
    let spans = mesh.mesh.skin.span_sizes();
    assert_eq!(
        (spans[0], spans[1], spans[2..].iter().sum::<usize>()),
        (8_301, 4_053, 0),
        "miku_v2's mesh: one-joint and two-joint vertices only"
    );
    let mut g = c.benchmark_group("skin");
    let mut scratch = sinew_skin::SkinScratch::new(&mesh.mesh.skin);
    let n = mesh.mesh.positions.len();
    let (mut positions, mut normals) = (vec![glam::Vec3::ZERO; n], vec![glam::Vec3::ZERO; n]);
    mesh.skin_matrices(character.world(), &mut matrices);
    g.bench_function(
        "miku_v2 real mesh (8,301 one-joint + 4,053 two-joint vertices), positions + normals",
        |b| {
            b.iter(|| {
                mesh.mesh
                    .skin
                    .deform(
                        &mut scratch,
                        sinew_skin::SkinMode::Linear,
                        black_box(&matrices),
                        &mesh.mesh.positions,
                        &mesh.mesh.normals,
                        &mut positions,
                        &mut normals,
                    )
                    .unwrap();
                black_box(&positions);
            });
        },
    );
    g.bench_function(
        "miku_v2 morphs (wavefile frame 1200) + skinning, Character's mesh",
        |b| {
            b.iter(|| {
                mesh.skin_matrices(black_box(character.world()), &mut matrices);
                deformed
                    .update(
                        &mesh.mesh,
                        &matrices,
                        character.morph_weights(),
                        sinew_skin::SkinMode::Linear,
                    )
                    .unwrap();
                black_box(deformed.positions());
            });
        },
    );
    g.finish();
}

fn gltf_frame(c: &mut Criterion) {
    let Some(path) = sinew_testkit::asset("gltf/Fox/Fox.glb") else {
        return;
    };
    let model = CharacterModel::load(path).unwrap();
    let clip = model.clip(2).unwrap().clone();
    let mut character = Character::new(&model);
    character.play(&clip);
    let frames = (clip.duration() * 60.0) as u32;
    let mut f = 0u32;
    c.bench_function(
        "frame/Fox.glb Character, clip 2 (run) sampled + skinned, advancing 1/60 s",
        |b| {
            b.iter(|| {
                f = (f + 1) % frames.max(1);
                character.seek(f as f32 / 60.0).unwrap();
                black_box(character.skinned_mesh(0).unwrap().positions());
            });
        },
    );
}

const TARGETS: usize = 1024;
const HIP: Vec3 = Vec3::new(1.0, 10.0, 0.0);
const IK_REST: Vec3 = Vec3::new(1.0, 2.0, 0.0);
const LEG: f32 = 8.0;

/// The PMX leg of the fixtures (thigh and shin of 4 units, knee limited to X in
/// [−3, −0.008] rad, 40 iterations, unit angle 2).
fn leg() -> Arc<CharacterModel> {
    use sinew_mmd::pmx::*;
    let mut pmx = fixtures::pmx_fixture(2.0, PmxEncoding::Utf16Le, 4);
    pmx.bones = fixtures::pmx_leg_bones(2.0);
    for v in &mut pmx.vertices {
        v.deform = PmxDeform::Bdef1 { bone: 3 };
    }
    pmx.morphs.clear();
    pmx.rigid_bodies.clear();
    pmx.joints.clear();
    pmx.soft_bodies.clear();
    pmx.display_frames.clear();
    let mmd = MmdModel::from_bytes(&pmx.to_bytes()).expect("the leg reads back");
    CharacterModel::from_mmd(Arc::new(mmd)).unwrap()
}

/// Reachable targets: a random thigh swing (up to 1 rad about a random axis) and a knee bend
/// inside the limit, as sinew-ik's `random_leg_target` draws them.
fn targets() -> Vec<Vec3> {
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    let mut unit = move || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..TARGETS)
        .map(|_| {
            let axis = loop {
                let v = Vec3::new(unit(), unit(), unit()) * 2.0 - Vec3::ONE;
                if v.length_squared() > 1e-3 && v.length_squared() <= 1.0 {
                    break v.normalize();
                }
            };
            let thigh = Quat::from_axis_angle(axis, unit());
            let knee = Quat::from_rotation_x(-0.05 - 2.45 * unit());
            HIP + thigh * (Vec3::new(0.0, -4.0, 0.0) + knee * Vec3::new(0.0, -4.0, 0.0))
        })
        .collect()
}

/// The MMD leg IK through a character (the runtime proven against babylon-mmd): the IK bone
/// moved onto random reachable targets, one frame per target (the IK starts from the animated
/// rotations every frame). The solved fraction (ankle within 1e-3 × the leg's length) is
/// printed before timing; MMD's own tolerance, and 1e-3 × the leg's length (the same solver
/// stopping once the quality criterion is met, as three.js's CCDIKSolver stops once no link
/// turns).
fn leg_ik(c: &mut Criterion) {
    let model = leg();
    let (mmd, _) = model.mmd().unwrap();
    let ik_name = mmd.bones()[4].name.clone();
    // One pose motion holding every target, one a second.
    let clip = {
        let mut builder = sinew::anim::Clip::builder("targets")
            .wrap(sinew::anim::Wrap::Clamp)
            .space(sinew::anim::ValueSpace::RelativeToRest);
        let times: Vec<f32> = (0..TARGETS).map(|k| k as f32).collect();
        let offsets: Vec<Vec3> = targets().iter().map(|t| *t - IK_REST).collect();
        builder = builder.bone(
            sinew::anim::BoneTrack::new(ik_name)
                .with_translation(sinew::anim::Track::step(times, offsets)),
        );
        Motion::from_clip(builder.build().unwrap())
    };
    let targets = targets();
    let ankle = model.bone_of_source(3).unwrap();
    for (name, tolerance) in [
        ("ccd/mmd_runtime_leg_it40_random", None),
        (
            "ccd/mmd_runtime_leg_it40_tol_1e-3L_random",
            Some(1e-3 * LEG),
        ),
    ] {
        let mut character = Character::new(&model);
        character.play(&clip);
        if let Some(t) = tolerance {
            assert!(character.instance_mut().set_ik_tolerance(Some(t)));
        }
        let mut solve = |k: usize| {
            character.seek(k as f32).unwrap();
            (Vec3::from(character.world()[ankle.index()].translation) - targets[k]).length()
        };
        let ok = (0..TARGETS).filter(|&k| solve(k) <= 1e-3 * LEG).count();
        eprintln!(
            "{name}: within 1e-3 L {:.1}%",
            100.0 * ok as f32 / TARGETS as f32
        );
        let mut k = 0;
        c.bench_function(name, |b| {
            b.iter(|| {
                k = (k + 1) % TARGETS;
                black_box(solve(k))
            });
        });
    }
}

/// The stadium, smaller: 100 miku_v2 dancers at phases 37 frames apart, without and with
/// physics, one crowd frame on a two-thread pool (`sinew crowd` times 1,000). The clock wraps
/// with the motion.
fn crowd(c: &mut Criterion) {
    let Some((model, motion)) = miku() else {
        return;
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let last = (motion.duration() * 30.0).round() as u32;
    let mut g = c.benchmark_group("crowd");
    g.sample_size(20);
    for physics in [false, true] {
        let mut crowd = Crowd::new(&model, Some(&motion), 100, 37.0 / 30.0);
        if physics {
            crowd.enable_physics().unwrap();
        }
        let mut f = 0u32;
        let name = if physics {
            "100 miku_v2 dancers with physics, 2 threads, one frame"
        } else {
            "100 miku_v2 dancers, 2 threads, one frame"
        };
        g.bench_function(name, |b| {
            b.iter(|| {
                f = if f >= last { 0 } else { f + 1 };
                pool.install(|| crowd.update(f as f32 / 30.0, 1.0 / 30.0))
                    .unwrap();
                black_box(crowd.dancers()[0].world());
            });
        });
    }
    g.finish();
}

criterion_group!(benches, mmd_frames, gltf_frame, leg_ik, crowd);
criterion_main!(benches);
