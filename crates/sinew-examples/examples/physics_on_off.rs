//! Physics: the humanoid with a physics table (`model_with_ik_and_physics`: the ponytail as
//! dynamic capsules under a kinematic head). One second of the walk with and without the
//! `Ragdoll`, then where the ponytail's tip ends up in each case.
//!
//! `cargo run -p sinew-examples --example physics_on_off`

use glam::Vec3;
use sinew::SkeletonInstance;
use sinew_humanoid::Humanoid;
use sinew_physics::{PhysicsError, PhysicsOptions, Ragdoll};

const DT: f32 = 1.0 / 60.0;

fn main() -> Result<(), PhysicsError> {
    let h = Humanoid::new();
    let model = h.model_with_ik_and_physics();
    let tip = *h.bones.ponytail.last().expect("ponytail");

    let run = |physics: bool| -> Result<Vec3, PhysicsError> {
        let mut instance = SkeletonInstance::new(&model);
        let mut ragdoll = if physics {
            Some(Ragdoll::new(&model, PhysicsOptions::default())?)
        } else {
            None
        };
        for frame in 1..=60 {
            let t = frame as f32 * DT;
            h.animate(t, instance.input_mut());
            match ragdoll.as_mut() {
                // Constraints → hierarchy → IK; drive the kinematic bodies, step, write the
                // ponytail back; rebuild the hierarchy (IK corrections kept).
                Some(r) => {
                    let writeback = r.options().writeback;
                    instance.evaluate_before_physics(writeback);
                    r.step(instance.state_mut(), t, DT)?;
                    instance.evaluate_after_physics(writeback);
                }
                None => instance.update_transform(),
            }
        }
        if let Some(r) = &ragdoll {
            println!(
                "ragdoll: {} bodies, {} joints",
                r.body_count(),
                r.joint_count()
            );
        }
        Ok(instance.world()[tip.index()].translation.into())
    };

    let off = run(false)?;
    let on = run(true)?;
    println!("ponytail tip after 1 s, animation only: {off:.3}");
    println!("ponytail tip after 1 s, with physics:   {on:.3}");
    println!(
        "physics moved it {:.3} m (it lags and swings as the body walks forward)",
        (on - off).length()
    );
    Ok(())
}
