//! The demo's prop: a rifle built in code, and the `world.ik3d` config that hangs it on the
//! [`Humanoid`](crate::Humanoid)'s hand and bends both arms to its grips.
//!
//! The rifle's frame: `+Z` along the barrel (muzzle forward), `+Y` up, `+X` to its left; the
//! root sits at the butt. The humanoid faces `+Z` with its arms along `±X` (T-pose), its right
//! arm along `−X`, so the right hand's fingers point along its bone's `−X` and the left
//! hand's along `+X`.

use glam::{Quat, Vec3};
use sinew::Transform;

use sinew_props::{AnchorConfig, KindConfig, LimbConfig, Prop, PropsConfig};

/// The kind name [`humanoid_rifle_config`] lists.
pub const HUMANOID_KIND: &str = "humanoid";

/// The name the rifle is hung as.
pub const RIFLE: &str = "rifle";

/// The body mod [`humanoid_rifle_config`] names in its `mods.body` (`anim`, the
/// plugin that draws the body and hangs its props).
pub const BODY_MOD: &str = "anim";

/// A rifle-like prop (0.9 m): root at the butt, then `body`, and the empties `stock`,
/// `grip` (right hand, under the action), `support` (left hand, under the barrel) and
/// `muzzle`. Hand empties are turned so a hand reaching them wraps the rifle: the right
/// hand's `−X` (its fingers) points forward-down-inward, the left hand's `+X` forward-up.
///
/// # Panics
/// Never (the fixed tree is valid; tested).
#[must_use]
pub fn rifle() -> Prop {
    let grip_turn = Quat::from_rotation_arc(Vec3::NEG_X, Vec3::new(0.45, -0.55, 0.7).normalize());
    let support_turn = Quat::from_rotation_arc(Vec3::X, Vec3::new(-0.35, 0.25, 0.9).normalize());
    Prop::builder()
        .node("body", None, Transform::IDENTITY)
        .node(
            "stock",
            Some("body"),
            Transform::from_translation(Vec3::new(0.0, 0.0, 0.0)),
        )
        .node(
            "grip",
            Some("body"),
            Transform::from_translation_rotation(Vec3::new(0.0, -0.06, 0.2), grip_turn),
        )
        .node(
            "support",
            Some("body"),
            Transform::from_translation_rotation(Vec3::new(0.0, -0.03, 0.32), support_turn),
        )
        .node(
            "muzzle",
            Some("body"),
            Transform::from_translation(Vec3::new(0.0, 0.03, 0.9)),
        )
        .build()
        .expect("the rifle's tree is valid")
}

/// The demo's `world.ik3d` table for [`Humanoid`](crate::Humanoid) (kind [`HUMANOID_KIND`]):
/// the rifle's stock in the right shoulder pocket (on `clavicle_r`, 11 cm out, 3 cm down,
/// 8 cm forward, barrel forward and turned 4° inward), the right hand on `grip` with the
/// elbow down and out, the left hand on `support` with the elbow down and out to the left;
/// its `mods.body` is [`BODY_MOD`].
#[must_use]
pub fn humanoid_rifle_config() -> PropsConfig {
    let mut config = PropsConfig::new(BODY_MOD);
    config.kinds.insert(
        HUMANOID_KIND.to_owned(),
        KindConfig {
            anchor: Some(AnchorConfig {
                prop: RIFLE.to_owned(),
                bone: "clavicle_r".to_owned(),
                at: [-0.11, -0.03, 0.08],
                turn: [0.0, 4.0, 0.0],
                point: Some("stock".to_owned()),
            }),
            limbs: vec![
                LimbConfig {
                    bones: ["upper_arm_r".into(), "forearm_r".into(), "hand_r".into()],
                    prop: RIFLE.to_owned(),
                    target: "grip".to_owned(),
                    pole: [-1.0, -1.0, 0.0],
                },
                LimbConfig {
                    bones: ["upper_arm_l".into(), "forearm_l".into(), "hand_l".into()],
                    prop: RIFLE.to_owned(),
                    target: "support".to_owned(),
                    pole: [1.0, -1.0, 0.0],
                },
            ],
        },
    );
    config
}
