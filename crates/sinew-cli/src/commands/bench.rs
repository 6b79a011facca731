//! `sinew bench`: the library's standard workloads timed with [`Instant`] — the median of
//! repeated batches, each batch long enough to swamp the clock — printed as a table or as JSON.
//! A quick mode (`--quick`) shortens every batch for a smoke run (~3 s instead of ~20 s).

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use glam::{Affine3A, Quat, Vec3};
use rayon::prelude::*;
use serde_json::json;
use sinew::anim::{
    blend, blend_soa, sample, sample_soa, BlendLayer, BlendParams, ClipBinding, SampleCache,
    Untracked,
};
use sinew::ik::{
    apply_corrections, solve_aim, solve_ccd, solve_fabrik, solve_two_bone, CcdBatch, CcdScratch,
    FabrikParams, FabrikScratch, TwoBoneParams,
};
use sinew::pose::{local_to_world, local_to_world_soa, SoaPose};
use sinew::{SkeletonInstance, Transform};
use sinew_humanoid::Humanoid;
use sinew_physics::{PhysicsOptions, Ragdoll};
use sinew_testkit::ik as ik_cases;

use crate::error::CliError;

/// Arguments of `sinew bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Print machine-readable JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Short batches (a smoke run, ~3 s).
    #[arg(long)]
    pub quick: bool,
}

/// One measured workload.
#[derive(Clone, Debug)]
struct Row {
    name: &'static str,
    /// Nanoseconds per unit (median batch).
    ns: Option<f64>,
    /// What one unit is.
    unit: &'static str,
    /// Extra figure (throughput) or the reason it was skipped.
    note: String,
}

struct Timer {
    batch: Duration,
    batches: usize,
}

impl Timer {
    /// Median nanoseconds per call of `f`.
    fn measure(&self, mut f: impl FnMut()) -> f64 {
        // Calibrate: double the iteration count until one batch takes `batch / 4`.
        let mut iters = 1u64;
        loop {
            let t = Instant::now();
            for _ in 0..iters {
                f();
            }
            let e = t.elapsed();
            if e >= self.batch / 4 || iters >= 1 << 30 {
                let per = e.as_secs_f64() / iters as f64;
                iters = ((self.batch.as_secs_f64() / per.max(1e-12)) as u64).max(1);
                break;
            }
            iters *= 2;
        }
        let mut samples: Vec<f64> = (0..self.batches)
            .map(|_| {
                let t = Instant::now();
                for _ in 0..iters {
                    f();
                }
                t.elapsed().as_secs_f64() * 1e9 / iters as f64
            })
            .collect();
        samples.sort_by(f64::total_cmp);
        samples[samples.len() / 2]
    }
}

fn internal(e: impl std::fmt::Display) -> CliError {
    CliError::Internal(e.to_string())
}

/// Runs the command.
pub fn run(args: &BenchArgs) -> Result<(), CliError> {
    let timer = if args.quick {
        Timer {
            batch: Duration::from_millis(12),
            batches: 5,
        }
    } else {
        Timer {
            batch: Duration::from_millis(100),
            batches: 11,
        }
    };
    let mut rows = Vec::new();
    let h = Humanoid::new();
    let n = h.skeleton.len();

    // Local-to-world, 64 joints.
    let mut locals = vec![Transform::IDENTITY; n];
    h.animate(0.4, &mut locals);
    let mut world = vec![Affine3A::IDENTITY; n];
    let ns = timer.measure(|| {
        local_to_world(
            h.skeleton.parent_indices(),
            black_box(&locals),
            &Affine3A::IDENTITY,
            &mut world,
        );
        black_box(&world);
    });
    rows.push(Row {
        name: "local-to-world, 64 joints",
        ns: Some(ns / n as f64),
        unit: "joint",
        note: format!("{:.0} ns per pose", ns),
    });

    // Clip sampling + blend: two 5-key clips sampled and blended 30/70.
    let (clip_a, clip_b) = (h.walk_clip(5, 0.0), h.walk_clip(5, 0.5));
    let (bind_a, bind_b) = (
        ClipBinding::new(&clip_a, &h.skeleton),
        ClipBinding::new(&clip_b, &h.skeleton),
    );
    let (mut cache_a, mut cache_b) = (
        SampleCache::for_binding(&bind_a),
        SampleCache::for_binding(&bind_b),
    );
    let (mut pa, mut pb, mut out) = (
        h.skeleton.rest_pose().to_vec(),
        h.skeleton.rest_pose().to_vec(),
        vec![Transform::IDENTITY; n],
    );
    let params = BlendParams::default();
    // Clocks wrap at the clip's end, as a looping player (and ozz) does: an f32 time that only
    // grows stops moving.
    let mut clock = sinew_testkit::BenchClock::new(1.0 / 60.0, clip_a.duration());
    let ns = timer.measure(|| {
        let t = clock.tick();
        sample(&clip_a, &bind_a, &mut cache_a, t, Untracked::Keep, &mut pa);
        sample(&clip_b, &bind_b, &mut cache_b, t, Untracked::Keep, &mut pb);
        blend(
            h.skeleton.rest_pose(),
            &[BlendLayer::new(&pa, 0.3), BlendLayer::new(&pb, 0.7)],
            &[],
            &params,
            &mut out,
        );
        black_box(&out);
    });
    rows.push(Row {
        name: "2 clips sampled + blended, 64 joints",
        ns: Some(ns / n as f64),
        unit: "joint",
        note: "5 linear TRS keys, 60 fps playback".into(),
    });

    // The whole animation pipeline in structure-of-arrays form: 2 × sample + blend + l2w.
    let rest = SoaPose::from_transforms(h.skeleton.rest_pose());
    let (mut sa, mut sb, mut so) = (rest.clone(), rest.clone(), rest.clone());
    let mut world = vec![Affine3A::IDENTITY; n];
    let ns = timer.measure(|| {
        let t = clock.tick();
        sample_soa(&clip_a, &bind_a, &mut cache_a, t, Untracked::Keep, &mut sa);
        sample_soa(&clip_b, &bind_b, &mut cache_b, t, Untracked::Keep, &mut sb);
        blend_soa(
            &rest,
            &[BlendLayer::new_soa(&sa, 0.3), BlendLayer::new_soa(&sb, 0.7)],
            &[],
            &params,
            &mut so,
        );
        local_to_world_soa(
            h.skeleton.parent_indices(),
            &so,
            &Affine3A::IDENTITY,
            &mut world,
        );
        black_box(&world);
    });
    rows.push(Row {
        name: "SoA pipeline (2 × sample + blend + l2w)",
        ns: Some(ns / n as f64),
        unit: "joint",
        note: "64 joints, 5 keys, SoaPose".into(),
    });

    // IK: the criterion benches' own cases (`sinew_testkit::ik`), so the figures agree.
    let arm = ik_cases::arm();
    let targets = ik_cases::two_bone_targets();
    let tb = TwoBoneParams::default();
    let mut k = 0;
    let ns = timer.measure(|| {
        k = (k + 1) % targets.len();
        let _ = black_box(solve_two_bone(&arm, targets[k], None, -Vec3::Z, &tb));
    });
    rows.push(Row {
        name: "two-bone IK",
        ns: Some(ns),
        unit: "solve",
        note: "random reachable targets (criterion two_bone/random_reachable_targets)".into(),
    });

    let joints = ik_cases::straight_chain(10, 1.0);
    let [(_, links, targets), _] = ik_cases::fabrik10_cases();
    let fp = FabrikParams::new(64, 1e-2, std::f32::consts::PI).map_err(internal)?;
    let mut scratch = FabrikScratch::with_capacity(10);
    let mut corrections = [Quat::IDENTITY; 10];
    let mut k = 0;
    let ns = timer.measure(|| {
        k = (k + 1) % targets.len();
        let _ = black_box(solve_fabrik(
            &joints,
            &links,
            targets[k],
            &fp,
            &mut scratch,
            &mut corrections,
        ));
    });
    rows.push(Row {
        name: "FABRIK, 10 bones",
        ns: Some(ns),
        unit: "solve",
        note: "45° rotors, random reachable targets, ≤64 iterations (criterion fabrik/10_bones_rotor45_…)".into(),
    });

    let (start, links, targets) = ik_cases::caliko_fabrik10_case();
    let fp = FabrikParams::new(20, 1.0, std::f32::consts::PI).map_err(internal)?;
    let (mut chain, mut next) = (start.clone(), start);
    let mut k = 0;
    let ns = timer.measure(|| {
        k = (k + 1) % targets.len();
        let _ = black_box(solve_fabrik(
            &chain,
            &links,
            targets[k],
            &fp,
            &mut scratch,
            &mut corrections,
        ));
        let _ = apply_corrections(&chain, &corrections, &mut next);
        std::mem::swap(&mut chain, &mut next);
    });
    rows.push(Row {
        name: "FABRIK, 10 bones, Caliko's protocol",
        ns: Some(ns),
        unit: "solve",
        note: "warm start, free base, default tolerance (criterion fabrik/…_caliko_protocol_default_tol)".into(),
    });

    let (head, ap, targets) = ik_cases::aim_case();
    let mut k = 0;
    let ns = timer.measure(|| {
        k = (k + 1) % targets.len();
        let _ = black_box(solve_aim(&head, targets[k], Vec3::Y, &ap));
    });
    rows.push(Row {
        name: "aim (head, offset, pole)",
        ns: Some(ns),
        unit: "solve",
        note: "criterion aim/head_joint_offset_pole".into(),
    });

    let (leg, effector, cp, targets) = ik_cases::ccd_leg_case();
    let mut ccd_scratch = CcdScratch::new();
    let mut k = 0;
    let ns = timer.measure(|| {
        k = (k + 1) % targets.len();
        let _ = black_box(solve_ccd(
            &leg,
            effector,
            targets[k],
            &cp,
            &mut ccd_scratch,
            &mut corrections[..2],
        ));
    });
    rows.push(Row {
        name: "CCD, MMD leg",
        ns: Some(ns),
        unit: "solve",
        note: "knee limit, 40 iterations (criterion ccd/mmd_leg_…)".into(),
    });

    let limits = [leg[0].limit, leg[1].limit];
    let mut batch = CcdBatch::new(&limits, cp);
    let ns = timer.measure(|| {
        batch.clear();
        for &t in &targets {
            let _ = batch.push(&leg, effector, t);
        }
        batch.solve();
        black_box(batch.result(0));
    });
    rows.push(Row {
        name: "CCD, MMD leg, 1,024 in a CcdBatch",
        ns: Some(ns / targets.len() as f64),
        unit: "solve",
        note: "SIMD lanes, same bits per chain (criterion ccd/mmd_leg_batch_of_1024_… ÷ 1,024)"
            .into(),
    });

    // MMD frame.
    rows.extend(mmd_frame(&timer)?);

    // Physics frame.
    let hp = Humanoid::with_extra_joints(48);
    let model = hp.model_with_ik_and_physics();
    let mut inst = SkeletonInstance::new(&model);
    let mut ragdoll = Ragdoll::new(&model, PhysicsOptions::default()).map_err(internal)?;
    let bodies = ragdoll.body_count();
    let dt = 1.0 / 60.0;
    let mut frame = 0u32;
    let mut failed = None;
    let ns = timer.measure(|| {
        // Frames counted as integers (wrapping after a minute), the time derived from them.
        let time = frame as f32 * dt;
        hp.animate(time, inst.input_mut());
        let writeback = ragdoll.options().writeback;
        inst.evaluate_before_physics(writeback);
        match ragdoll.step(inst.state_mut(), time, dt) {
            Ok(_) => inst.evaluate_after_physics(writeback),
            Err(e) => failed = Some(e.to_string()),
        }
        frame = (frame + 1) % 3600;
    });
    if let Some(e) = failed {
        return Err(CliError::Internal(format!("physics bench: {e}")));
    }
    rows.push(Row {
        name: "physics frame, 112-joint humanoid",
        ns: Some(ns),
        unit: "frame",
        note: format!("{bodies} bodies, dt 1/60 s, animate + step + write-back"),
    });

    // Instance update_transform.
    let model = h.model_with_ik();
    let mut inst = SkeletonInstance::new(&model);
    inst.update_transform();
    let w = inst.world();
    let base = [
        Vec3::from(w[h.bones.arm[0].upper.index()].translation),
        Vec3::from(w[h.bones.arm[1].upper.index()].translation),
        Vec3::from(w[h.bones.leg[0].end.index()].translation),
        Vec3::from(w[h.bones.leg[1].end.index()].translation),
    ];
    let set = move |inst: &mut SkeletonInstance, t: f32| {
        let targets = [
            (
                "arm_l",
                base[0] + Vec3::new(0.3, -0.2 + 0.05 * t.sin(), 0.15),
            ),
            (
                "arm_r",
                base[1] + Vec3::new(-0.3, -0.2 + 0.05 * t.cos(), 0.15),
            ),
            (
                "leg_l",
                base[2] + Vec3::new(0.0, 0.1 + 0.05 * t.sin(), 0.05),
            ),
            ("leg_r", base[3] + Vec3::new(0.0, 0.05, -0.05 * t.cos())),
        ];
        for (chain, p) in targets {
            let _ = inst.set_ik_target(chain, p, 1.0);
        }
    };
    let mut clock = sinew_testkit::BenchClock::new(0.016, std::f32::consts::TAU);
    let ns = timer.measure(|| {
        let t = clock.tick();
        set(&mut inst, t);
        inst.update_transform();
        black_box(inst.world());
    });
    rows.push(Row {
        name: "instance update_transform, 64 joints",
        ns: Some(ns),
        unit: "update",
        note: "4 chains (2 two-bone, 2 FABRIK)".into(),
    });

    // Crowd.
    let mut crowd: Vec<SkeletonInstance> =
        (0..1000).map(|_| SkeletonInstance::new(&model)).collect();
    let ns = timer.measure(|| {
        let t = clock.tick();
        crowd.par_iter_mut().enumerate().for_each(|(i, inst)| {
            set(inst, t + i as f32);
            inst.update_transform();
        });
    });
    rows.push(Row {
        name: "crowd, 1,000 instances (rayon)",
        ns: Some(ns / 1000.0),
        unit: "instance",
        note: format!(
            "{:.0} instance-updates/s on {} threads",
            1e9 / (ns / 1000.0),
            rayon::current_num_threads()
        ),
    });

    if args.json {
        let v: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| json!({"name": r.name, "ns_per_unit": r.ns, "unit": r.unit, "note": r.note}))
            .collect();
        let doc = json!({"tool": format!("sinew {} bench", env!("CARGO_PKG_VERSION")),
                         "quick": args.quick, "statistic": "median of batches",
                         "results": v});
        println!("{}", serde_json::to_string_pretty(&doc).map_err(internal)?);
    } else {
        println!("{:<40} {:>12}  {:<9} note", "workload", "median", "per");
        for r in &rows {
            let figure = r.ns.map_or_else(|| "skipped".to_owned(), format_ns);
            println!("{:<40} {:>12}  {:<9} {}", r.name, figure, r.unit, r.note);
        }
    }
    Ok(())
}

fn format_ns(ns: f64) -> String {
    if ns < 1_000.0 {
        format!("{ns:.2} ns")
    } else if ns < 1_000_000.0 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{:.2} ms", ns / 1e6)
    }
}

/// miku_v2 dancing wavefile_v2 with IK and append, one frame per call, bone by bone
/// and staged, as a `Character` runs it (skipped without the shared assets).
fn mmd_frame(timer: &Timer) -> Result<Vec<Row>, CliError> {
    let dir = sinew_testkit::assets_path();
    let model_path = dir.join("mmd/threejs-examples/miku/miku_v2.pmd");
    let motion_path = dir.join("mmd/threejs-examples/vmds/wavefile_v2.vmd");
    if !(model_path.is_file() && motion_path.is_file()) {
        return Ok(vec![Row {
            name: "MMD frame",
            ns: None,
            unit: "frame",
            note: format!(
                "skipped: miku_v2.pmd / wavefile_v2.vmd not under {} (set SINEW_ASSETS)",
                dir.display()
            ),
        }]);
    }
    let mmd = crate::source::load_model(&model_path)?;
    let (mmd_model, _) = mmd
        .mmd()
        .ok_or_else(|| internal("miku_v2 is an MMD model"))?;
    let bone_by_bone = sinew_character::CharacterModel::from_mmd_order(
        Arc::clone(mmd_model),
        sinew_mmd::MmdOrder::BoneByBone,
    )
    .map_err(internal)?;
    let motion = mmd
        .load_motion(&motion_path)
        .map_err(|e| crate::source::character_error(e, &motion_path))?;
    let last = (motion.duration() * 30.0).max(1.0);
    let mut time_of = {
        let mut frame = 0.0f32;
        move || {
            frame = (frame + 1.0) % last;
            frame / 30.0
        }
    };
    let mut measure = |model: &Arc<sinew_character::CharacterModel>| -> Result<f64, CliError> {
        let mut c = sinew_character::Character::new(model);
        c.play(&motion);
        let mut failed = None;
        let ns = timer.measure(|| {
            if let Err(e) = c.seek(time_of()) {
                failed = Some(e);
            }
            black_box(c.world());
        });
        match failed {
            Some(e) => Err(internal(e)),
            None => Ok(ns),
        }
    };
    let ns = measure(&bone_by_bone)?;
    let staged_ns = measure(&mmd)?;
    let model = mmd_model;
    Ok(vec![
        Row {
            name: "MMD frame, bone by bone",
            ns: Some(ns),
            unit: "frame",
            note: format!(
                "miku_v2 + wavefile, {} bones, motion + IK + append + morphs (a Character over the bone-by-bone definitions: MMD's evaluation order)",
                model.bones().len()
            ),
        },
        Row {
            name: "MMD frame, Character",
            ns: Some(staged_ns),
            unit: "frame",
            note: "the same, staged (what a Character of miku_v2 runs)".into(),
        },
    ])
}
