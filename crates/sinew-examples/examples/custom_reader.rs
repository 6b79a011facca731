//! A custom `SkeletonDynamicsReader`: a home-made line format, parsed by hand, that adds IK
//! chains and a pose constraint to the sinew-humanoid rig.
//!
//! `cargo run -p sinew-examples --example custom_reader`

use glam::Vec3;
use sinew::dynamics::{
    BonePoseConstraint, ChainSolver, DynamicsError, IkChain, IkChainParams, IkLink,
    SkeletonDynamicsBuilder, SkeletonDynamicsReader, TransformInheritance,
};
use sinew::{Model, SkeletonInstance};
use sinew_humanoid::Humanoid;

/// The format: one definition per line, `#` comments.
///
/// ```text
/// chain <name> two-bone|fabrik <effector> <link>...     (links from the base down)
/// inherit <bone> <source> <weight> [axis x|y|z]          (rotation inheritance, optional twist axis)
/// ```
const RIG: &str = "
# legs: analytic two-bone, pole forward
chain leg_l two-bone foot_l thigh_l shin_l
chain leg_r two-bone foot_r thigh_r shin_r
# one arm: FABRIK
chain arm_r fabrik hand_r upper_arm_r forearm_r
# the right forearm twist follows half the hand's twist
inherit forearm_twist_r hand_r 0.5 axis x
";

struct LineReader;

/// A parse problem as the dynamics error type readers return.
fn bad(line: &str, field: &'static str, value: &str, expected: &'static str) -> DynamicsError {
    DynamicsError::InvalidParameter {
        what: "line",
        name: line.to_owned(),
        field,
        value: value.to_owned(),
        expected,
    }
}

impl SkeletonDynamicsReader<str> for LineReader {
    fn read(&self, source: &str, b: &mut SkeletonDynamicsBuilder) -> Result<(), DynamicsError> {
        for line in source.lines().map(str::trim) {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                [] => {}
                [w, ..] if w.starts_with('#') => {}
                ["chain", name, solver, effector, links @ ..] => {
                    let solver = match *solver {
                        "two-bone" => ChainSolver::TwoBone { pole: Vec3::Z },
                        "fabrik" => ChainSolver::Fabrik,
                        other => return Err(bad(line, "solver", other, "two-bone or fabrik")),
                    };
                    let effector = b.bone(effector)?;
                    let links = links
                        .iter()
                        .map(|l| b.bone(l).map(IkLink::new))
                        .collect::<Result<Vec<_>, _>>()?;
                    let params = IkChainParams {
                        solver,
                        iterations: 16,
                        tolerance: 1e-3,
                        ..IkChainParams::default()
                    };
                    b.ik(IkChain::with_params(
                        *name, effector, effector, links, params,
                    )?);
                }
                ["inherit", bone, source, weight, rest @ ..] => {
                    let weight: f32 = weight
                        .parse()
                        .map_err(|_| bad(line, "weight", weight, "a number"))?;
                    let axis = match rest {
                        [] => None,
                        ["axis", "x"] => Some(Vec3::X),
                        ["axis", "y"] => Some(Vec3::Y),
                        ["axis", "z"] => Some(Vec3::Z),
                        _ => return Err(bad(line, "axis", &rest.join(" "), "axis x|y|z")),
                    };
                    let inh = TransformInheritance::new(b.bone(source)?, weight, false, true)?;
                    b.pose(BonePoseConstraint::new(b.bone(bone)?, Some(inh), axis)?);
                }
                [other, ..] => return Err(bad(line, "keyword", other, "chain or inherit")),
            }
        }
        Ok(())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let h = Humanoid::new();
    let mut model = Model::new(h.skeleton.clone());
    let mut builder = SkeletonDynamicsBuilder::new(model.skeleton());
    builder.read(RIG, &LineReader)?;
    let dynamics = builder.attach(&mut model)?;
    println!(
        "read {} chain(s) and {} pose constraint(s)",
        dynamics.ik_chains().len(),
        dynamics.pose_constraints().len()
    );

    // A bad line is reported with the line and what was expected.
    let err = SkeletonDynamicsBuilder::new(model.skeleton())
        .read("chain x spline hand_l upper_arm_l", &LineReader)
        .unwrap_err();
    println!("bad input: {err}");

    // Use it: walk, lift the left foot onto a 15 cm step, pull the right hand in and forward.
    let mut instance = SkeletonInstance::new(&model);
    h.animate(0.25, instance.input_mut());
    instance.update_transform();
    let foot = instance.world()[h.bones.leg[0].end.index()].translation;
    let hand = Vec3::from(instance.world()[h.bones.arm[1].end.index()].translation);
    let shoulder = Vec3::from(instance.world()[h.bones.arm[1].upper.index()].translation);
    instance.set_ik_target("leg_l", Vec3::from(foot) + Vec3::new(0.0, 0.15, 0.05), 1.0)?;
    let pulled_in = shoulder + (hand - shoulder) * 0.7 + Vec3::new(0.0, 0.0, 0.1);
    instance.set_ik_target("arm_r", pulled_in, 1.0)?;
    instance.update_transform();
    for (name, r) in instance.ik_results() {
        println!(
            "  {name}: residual {:.5} m, satisfied {}",
            r.residual, r.satisfied
        );
    }
    Ok(())
}
