//! A custom host: an engine that keeps its own pose storage (here positions, rotations and
//! column-major 4×4 world matrices in separate arrays) implements `PoseAccess`, and sinew's
//! `IkDriver` solves the model's chains through it — no `SkeletonInstance` involved.
//!
//! `cargo run -p sinew-examples --example custom_host`

use std::sync::Arc;

use glam::{Affine3A, Mat4, Quat, Vec3};
use sinew::dynamics::IkChain;
use sinew::instance::{IkDriver, PoseAccess};
use sinew::{BoneId, Skeleton, Transform};
use sinew_humanoid::Humanoid;

/// The engine's storage: structure of arrays, world as `Mat4`, targets per chain.
struct EngineRig {
    skeleton: Arc<Skeleton>,
    positions: Vec<Vec3>,
    rotations: Vec<Quat>,
    scales: Vec<Vec3>,
    world: Vec<Mat4>,
    targets: Vec<Option<Vec3>>,
}

impl EngineRig {
    fn local(&self, i: usize) -> Affine3A {
        Affine3A::from_scale_rotation_translation(
            self.scales[i],
            self.rotations[i],
            self.positions[i],
        )
    }

    /// The engine's own hierarchy pass from `from` to the end of its subtree.
    fn update_world(&mut self, from: usize) {
        let end = self.skeleton.subtree_end(BoneId::new(from as u16));
        for i in from..end {
            let local = Mat4::from(self.local(i));
            self.world[i] = match self.skeleton.parent(BoneId::new(i as u16)) {
                Some(p) => self.world[p.index()] * local,
                None => local,
            };
        }
    }
}

impl PoseAccess for EngineRig {
    fn absolute(&self, bone: BoneId) -> Affine3A {
        Affine3A::from_mat4(self.world[bone.index()])
    }
    fn local(&self, bone: BoneId) -> Transform {
        let i = bone.index();
        Transform::from_trs(self.positions[i], self.rotations[i], self.scales[i])
    }
    fn correct(&mut self, bone: BoneId, correction: Quat) {
        let r = &mut self.rotations[bone.index()];
        *r = (*r * correction).normalize();
    }
    fn target(&self, chain_index: usize, chain: &IkChain) -> Vec3 {
        // No target: reach for the controller (the chain holds its pose).
        self.targets[chain_index]
            .unwrap_or_else(|| self.world[chain.controller().index()].w_axis.truncate())
    }
    fn enabled(&self, chain_index: usize, _chain: &IkChain) -> bool {
        self.targets[chain_index].is_some()
    }
    fn refresh(&mut self, driver: BoneId, _endpoint: BoneId) {
        self.update_world(driver.index());
    }
}

fn main() {
    let h = Humanoid::new();
    let model = h.model_with_ik();
    let dynamics = model.dynamics();
    let mut pose = vec![Transform::IDENTITY; h.skeleton.len()];
    h.animate(0.4, &mut pose);
    let mut rig = EngineRig {
        skeleton: h.skeleton.clone(),
        positions: pose.iter().map(|t| t.translation).collect(),
        rotations: pose.iter().map(|t| t.rotation).collect(),
        scales: pose.iter().map(|t| t.scale).collect(),
        world: vec![Mat4::IDENTITY; pose.len()],
        targets: vec![None; dynamics.ik_chains().len()],
    };
    rig.update_world(0);

    // Targets for the left hand and the right foot; the other two chains stay off.
    let at = |rig: &EngineRig, b: BoneId| rig.world[b.index()].w_axis.truncate();
    let hand = at(&rig, h.bones.arm[0].end);
    let foot = at(&rig, h.bones.leg[1].end);
    let arm_l = dynamics.chain_index("arm_l").expect("arm_l");
    let leg_r = dynamics.chain_index("leg_r").expect("leg_r");
    rig.targets[arm_l] = Some(hand + Vec3::new(-0.1, 0.2, 0.15));
    rig.targets[leg_r] = Some(foot + Vec3::new(0.0, 0.12, 0.0));

    let mut driver = IkDriver::new(dynamics);
    driver.solve(dynamics, &mut rig);
    for (chain, result) in dynamics.ik_chains().iter().zip(driver.results()) {
        match result {
            Some(r) => println!(
                "{}: residual {:.5} m, satisfied {}, {} iteration(s)",
                chain.name(),
                r.residual,
                r.satisfied,
                r.iterations
            ),
            None => println!("{}: off", chain.name()),
        }
    }
    let moved = at(&rig, h.bones.arm[0].end) - hand;
    println!("left hand moved by {moved:.3} in the engine's own world matrices");
}
