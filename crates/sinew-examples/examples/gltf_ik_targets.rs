//! glTF: load CesiumMan, mount a FABRIK arm and a two-bone leg with `SkeletonDynamicsBuilder`,
//! play its walk, give each chain targets on a `SkeletonInstance`, and print residuals.
//!
//! `cargo run -p sinew-examples --example gltf_ik_targets` (needs the shared assets).

use glam::Vec3;
use sinew::anim::{sample, ClipBinding, SampleCache, Untracked};
use sinew::dynamics::{ChainSolver, IkChain, IkChainParams, IkLink, SkeletonDynamicsBuilder};
use sinew::{BoneId, SkeletonInstance};
use sinew_gltf::GltfModel;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(path) = sinew_examples::asset("gltf/CesiumMan/CesiumMan.glb") else {
        return Ok(());
    };
    let gltf = GltfModel::load(path)?;
    let mut model = gltf.model().clone();
    println!(
        "CesiumMan: {} bones, {} clip(s), size {:.2}",
        model.skeleton().len(),
        gltf.clips().len(),
        gltf.model_size()
    );

    // Left arm (shoulder → elbow → wrist): FABRIK. Left leg (hip → knee → ankle): two-bone,
    // with its pole (where the knee points) taken from the rest pose.
    let mut builder = SkeletonDynamicsBuilder::new(model.skeleton());
    let arm = [
        builder.bone("Skeleton_arm_joint_L__4_")?,
        builder.bone("Skeleton_arm_joint_L__3_")?,
        builder.bone("Skeleton_arm_joint_L__2_")?,
    ];
    let leg = [
        builder.bone("leg_joint_L_1")?,
        builder.bone("leg_joint_L_2")?,
        builder.bone("leg_joint_L_3")?,
    ];
    let rest = model.skeleton().rest_world();
    let at = |b: BoneId| Vec3::from(rest[b.index()].translation);
    let pole = (at(leg[1]) - (at(leg[0]) + at(leg[2])) * 0.5).normalize();
    let fabrik = IkChainParams {
        iterations: 32,
        tolerance: 1e-4,
        ..IkChainParams::default()
    };
    let two_bone = IkChainParams {
        solver: ChainSolver::TwoBone { pole },
        ..IkChainParams::default()
    };
    for (name, [upper, lower, end], params) in [("arm_l", arm, fabrik), ("leg_l", leg, two_bone)] {
        let links = vec![IkLink::new(upper), IkLink::new(lower)];
        builder.ik(IkChain::with_params(name, end, end, links, params)?);
    }
    builder.attach(&mut model)?;

    // Animate: sample the walk at 0.5 s into the instance's input pose.
    let clip = &gltf.clips()[0];
    let binding = ClipBinding::new(clip, model.skeleton());
    let mut cache = SampleCache::for_binding(&binding);
    let mut instance = SkeletonInstance::new(&model);
    sample(
        clip,
        &binding,
        &mut cache,
        0.5,
        Untracked::Rest,
        instance.input_mut(),
    );
    instance.update_transform();

    for (name, [upper, lower, end]) in [("arm_l", arm), ("leg_l", leg)] {
        let world = instance.world();
        let p = |b: BoneId| Vec3::from(world[b.index()].translation);
        let (base, tip) = (p(upper), p(end));
        let reach = (p(lower) - base).length() + (tip - p(lower)).length();
        println!("{name}: reach {reach:.3} m, animated end at {tip:.3}");
        // Targets: pulled in, a few cm away, and out of reach (the limb points at it).
        let toward = (tip - base).normalize();
        for (what, target) in [
            ("pulled in", base + (tip - base) * 0.7),
            ("nearby", tip + Vec3::new(0.05, 0.05, 0.0)),
            ("out of reach", base + toward * reach * 1.5),
        ] {
            instance.set_ik_target(name, target, 1.0)?;
            instance.update_transform();
            let r = instance.ik_result(name).expect("chain solved");
            println!(
                "  {what:>12}: residual {:.5} m, satisfied {}, {} iteration(s)",
                r.residual, r.satisfied, r.iterations
            );
        }
        instance.clear_ik_target(name);
    }
    Ok(())
}
