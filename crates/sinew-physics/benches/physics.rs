//! Physics per frame for a miku_v2-like rig (45 bodies, 27 joints: hair and skirt chains of
//! dynamic capsules hanging from kinematic bodies), instances per second with rayon, and — when
//! the shared assets are present — the real miku_v2.pmd (45 bodies, 27 joints) dancing
//! wavefile_v2.vmd at 60 Hz (the MMD poses are evaluated before timing; each timed frame is
//! drive + step + writeback + the instance's hierarchy update), and the whole MMD frame with
//! physics as a player runs it (`mmd_frame_with_physics…`: the dance in order, animation + IK +
//! append + 2 × 1/60 s steps per 1/30 s frame + after-physics bones — babylon-mmd's workload).

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rayon::prelude::*;
use sinew::dynamics::{
    BodyMode, Joint, JointDesc, Physics, RigidBody, RigidBodyDesc, Shape, SkeletonDynamicsBuilder,
};
use sinew::glam::{Quat, Vec3};
use sinew::{BoneId, Model, Parent, SkeletonBuilder, SkeletonInstance, Transform};
use sinew_physics::{PhysicsOptions, Ragdoll};

const DT: f32 = 1.0 / 60.0;

/// 18 kinematic bodies (root, torso, head, arms …) + 9 chains of 3 dynamic capsules = 45
/// bodies; each chain has 3 joints = 27 joints.
fn rig() -> Model {
    let mut sb = SkeletonBuilder::new();
    sb.push("root", Parent::Root, Transform::IDENTITY);
    let mut bodies = Vec::new();
    let mut joints = Vec::new();
    let mut next = 1u16;
    // 18 kinematic anchors in a ring at head/hip height.
    for k in 0..18 {
        let a = k as f32 / 18.0 * std::f32::consts::TAU;
        let p = Vec3::new(
            0.15 * a.cos(),
            if k % 2 == 0 { 1.5 } else { 0.9 },
            0.15 * a.sin(),
        );
        sb.push(format!("k{k}"), "root", Transform::from_translation(p));
        bodies.push(RigidBodyDesc {
            name: format!("k{k}"),
            bone: Some(BoneId::new(next)),
            shape: Shape::Sphere,
            size: Vec3::splat(0.05),
            position: p,
            collision_group: 0,
            non_collision_mask: 0b10,
            mode: BodyMode::Kinematic,
            ..RigidBodyDesc::default()
        });
        next += 1;
    }
    // 9 chains of 3 capsules hanging from anchors 0, 2, …, 16.
    for c in 0..9usize {
        let anchor = c * 2;
        let base: Vec3 = bodies[anchor].position;
        let mut parent_name = format!("k{anchor}");
        let mut parent_body = anchor;
        for s in 0..3 {
            let top = base + Vec3::new(0.0, -0.1 * s as f32, -0.02);
            let name = format!("c{c}_{s}");
            let local = if s == 0 {
                Vec3::new(0.0, 0.0, -0.02)
            } else {
                Vec3::new(0.0, -0.1, 0.0)
            };
            sb.push(
                name.clone(),
                parent_name.as_str(),
                Transform::from_translation(local),
            );
            bodies.push(RigidBodyDesc {
                name: name.clone(),
                bone: Some(BoneId::new(next)),
                shape: Shape::Capsule,
                size: Vec3::new(0.015, 0.06, 0.0),
                position: top + Vec3::new(0.0, -0.05, 0.0),
                collision_group: 1,
                non_collision_mask: 0b10,
                mass: 0.1,
                linear_damping: 0.5,
                angular_damping: 0.5,
                mode: BodyMode::Dynamic,
                ..RigidBodyDesc::default()
            });
            joints.push(JointDesc {
                name: format!("j{c}_{s}"),
                body_a: parent_body,
                body_b: bodies.len() - 1,
                position: top,
                rotation_min: Vec3::new(-0.5, -0.1, -0.3),
                rotation_max: Vec3::new(0.5, 0.1, 0.3),
                ..JointDesc::default()
            });
            parent_body = bodies.len() - 1;
            parent_name = name;
            next += 1;
        }
    }
    assert_eq!((bodies.len(), joints.len()), (45, 27));
    let skel: Arc<sinew::Skeleton> = sb.build().unwrap();
    let physics = Physics::from_tables(
        bodies
            .into_iter()
            .map(|b| RigidBody::new(b).unwrap())
            .collect(),
        joints.into_iter().map(|j| Joint::new(j).unwrap()).collect(),
    );
    let mut m = Model::new(skel.clone());
    SkeletonDynamicsBuilder::new(&skel)
        .physics(physics)
        .attach(&mut m)
        .unwrap();
    m
}

fn frame(inst: &mut SkeletonInstance, r: &mut Ragdoll, t: f32) {
    inst.input_mut()[0].rotation = Quat::from_rotation_y(0.8 * (2.0 * t).sin());
    inst.input_mut()[0].translation = Vec3::new(0.3 * t.sin(), 0.0, 0.0);
    let writeback = r.options().writeback;
    inst.evaluate_before_physics(writeback);
    r.step(inst.state_mut(), t, DT).unwrap();
    inst.evaluate_after_physics(writeback);
}

/// miku_v2's definitions (its physics table among them) and 600 frames (10 s at 60 Hz) of
/// its animated world matrices (the dance, IK and append evaluated), as MMD steps physics.
fn miku() -> Option<(Model, Vec<Vec<glam::Affine3A>>)> {
    use sinew::anim::{sample, ClipBinding, SampleCache, Untracked};
    use sinew_mmd::{MmdModel, MmdMotion, MmdOrder, Vmd};
    let pmd = sinew_testkit::asset("mmd/threejs-examples/miku/miku_v2.pmd")?;
    let vmd = sinew_testkit::asset("mmd/threejs-examples/vmds/wavefile_v2.vmd")?;
    let mmd = MmdModel::from_bytes(&std::fs::read(pmd).ok()?).ok()?;
    let vmd = Vmd::parse(&std::fs::read(vmd).ok()?).ok()?;
    let motion = MmdMotion::from_vmd(&vmd, Some(&mmd)).ok()?;
    let definitions = mmd.definitions(MmdOrder::Staged).ok()?;
    let model = definitions.model().clone();
    let binding = ClipBinding::new(&motion.clip, model.skeleton());
    let mut cache = SampleCache::for_binding(&binding);
    let mut inst = SkeletonInstance::new(&model);
    let frames = (0..600)
        .map(|f| {
            let t = f as f32 / 60.0;
            sample(
                &motion.clip,
                &binding,
                &mut cache,
                t,
                Untracked::Rest,
                inst.input_mut(),
            );
            inst.update_transform();
            inst.world().to_vec()
        })
        .collect();
    Some((model, frames))
}

fn bench(c: &mut Criterion) {
    if let Some((m, frames)) = miku() {
        let physics = m.dynamics().physics();
        assert_eq!((physics.bodies().len(), physics.joints().len()), (45, 27));
        let options = PhysicsOptions {
            teleport_distance: 20.0,
            ..PhysicsOptions::default()
        };
        let mut r = Ragdoll::new(&m, options).unwrap();
        r.set_gravity(Vec3::new(0.0, -98.0, 0.0));
        let mut world = frames[0].clone();
        let mut f = 0usize;
        c.bench_function(
            "physics_frame_miku_v2_wavefile_45_bodies_27_joints_60hz",
            |b| {
                b.iter(|| {
                    // The clock wraps with the frames (a seek back to 0 re-seeds the bodies).
                    let k = f % frames.len();
                    world.copy_from_slice(&frames[k]);
                    let frame = sinew_physics::PhysicsFrame {
                        time: k as f32 * DT,
                        dt: DT,
                        root: glam::Affine3A::IDENTITY,
                        origin: glam::DVec3::ZERO,
                    };
                    r.step_world(&mut world, &frame).unwrap();
                    f += 1;
                });
            },
        );
    }

    let m = rig();
    let mut inst = SkeletonInstance::new(&m);
    let mut r = Ragdoll::new(&m, PhysicsOptions::default()).unwrap();
    // The rig's motion is 2π-periodic: the clock wraps there (an f32 time that only grows
    // stops moving; the wrap is a seek back, which re-seeds the bodies once a period).
    let mut clock = sinew_testkit::BenchClock::new(DT, std::f32::consts::TAU);
    for _ in 0..60 {
        frame(&mut inst, &mut r, clock.tick());
    }
    c.bench_function("physics_frame_45_bodies_27_joints_60hz", |b| {
        b.iter(|| {
            frame(&mut inst, &mut r, clock.tick());
        });
    });

    let n = 64;
    let mut crowd: Vec<(SkeletonInstance, Ragdoll, f32)> = (0..n)
        .map(|i| {
            (
                SkeletonInstance::new(&m),
                Ragdoll::new(&m, PhysicsOptions::default()).unwrap(),
                i as f32 * 0.1,
            )
        })
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut g = c.benchmark_group("crowd_2_threads");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("instance_frames", |b| {
        b.iter(|| {
            pool.install(|| {
                crowd.par_iter_mut().for_each(|(inst, r, t)| {
                    frame(inst, r, *t);
                    *t = (*t + DT) % std::f32::consts::TAU;
                });
            });
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
