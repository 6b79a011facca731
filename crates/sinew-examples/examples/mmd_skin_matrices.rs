//! MMD: load a PMD model and a VMD motion, play one frame through `MmdInstance` (MMD's own
//! bone-by-bone evaluation, IK and append included), copy the result into a sinew `RigState`
//! as local transforms, and read the skinning matrices a renderer would upload.
//!
//! `cargo run -p sinew-examples --example mmd_skin_matrices` (needs the shared assets).

use std::sync::Arc;

use glam::{Affine3A, Vec3};
use sinew::RigState;
use sinew_mmd::{EvalOptions, MmdInstance, MmdModel, MmdMotion, MotionPlayer, Vmd};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (Some(pmd), Some(vmd)) = (
        sinew_examples::asset("mmd/threejs-examples/miku/miku_v2.pmd"),
        sinew_examples::asset("mmd/threejs-examples/vmds/wavefile_v2.vmd"),
    ) else {
        return Ok(());
    };
    // Parse: the model's skeleton becomes a sinew Skeleton; the motion becomes a sinew Clip.
    let model = Arc::new(MmdModel::from_bytes(&std::fs::read(pmd)?)?);
    let motion = MmdMotion::from_vmd(&Vmd::parse(&std::fs::read(vmd)?)?, Some(&model))?;
    println!(
        "model \"{}\": {} bones; motion: {} bone tracks",
        model.name(),
        model.skeleton().len(),
        motion.clip.bone_tracks().len()
    );

    // Play frame 120 (30 fps): sample the motion into the instance, then evaluate like MMD.
    let mut player = MotionPlayer::new(Arc::new(motion), &model);
    let mut instance = MmdInstance::new(Arc::clone(&model));
    let frame = 120.0;
    player.apply(frame, &mut instance);
    instance.evaluate(EvalOptions::default());

    // Hand the pose to sinew: locals in skeleton order, then world and skin matrices.
    let mut state = RigState::new(Arc::clone(model.skeleton()));
    instance.write_locals(state.locals_mut());
    let world = state.compute_world().to_vec();
    let mut skin = vec![Affine3A::IDENTITY; model.skeleton().len()];
    state.skin_matrices(&mut skin);

    // The sinew hierarchy reproduces MMD's world matrices (MMD keeps them in file order).
    let worst = (0..model.bones().len())
        .filter_map(|i| model.skeleton().from_source_index(i).map(|id| (i, id)))
        .map(|(i, id)| {
            (Vec3::from(world[id.index()].translation)
                - Vec3::from(instance.world()[i].translation))
            .length()
        })
        .fold(0.0f32, f32::max);
    println!("frame {frame}: sinew world vs MMD world, largest position gap {worst:.2e}");
    for name in ["センター", "頭", "左手首", "右足首"] {
        if let Some(id) = model.skeleton().find(name) {
            let p = Vec3::from(world[id.index()].translation);
            let s = Vec3::from(skin[id.index()].translation);
            println!(
                "  {name}: world ({:.2}, {:.2}, {:.2}), skin translation ({:.2}, {:.2}, {:.2})",
                p.x, p.y, p.z, s.x, s.y, s.z
            );
        }
    }
    Ok(())
}
