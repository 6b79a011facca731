use glam::{Quat, Vec3};
use sinew_ik::*;
fn main() {
    let joints = [ChainJoint::at(Vec3::ZERO), ChainJoint::at(Vec3::X)];
    let h = Hinge::new(Vec3::Z, Vec3::X, -3.1409364, 0.0).unwrap();
    let mut c = [Quat::IDENTITY; 1];
    let r = solve_fabrik(
        &joints,
        &[FabrikLink::with_joint(IkJoint::Hinge(h))],
        Vec3::new(-9.165122, 0.0, 0.0),
        &FabrikParams::default(),
        &mut FabrikScratch::new(),
        &mut c,
    )
    .unwrap();
    println!("{r:?} {:?} {}", c[0], c[0] * Vec3::X);
}
