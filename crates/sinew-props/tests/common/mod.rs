#![allow(dead_code)]
//! Shared fixtures.

use std::sync::Arc;

use glam::{Quat, Vec3};
use sinew::{Parent, RigState, Skeleton, SkeletonBuilder, Transform};
use sinew_props::{Prop, PropsConfig};

pub fn t(x: f32, y: f32, z: f32) -> Transform {
    Transform::from_translation(Vec3::new(x, y, z))
}

/// A Mixamo-like body: `mixamorig:` names, a right arm along −X, and (with `copies`) a second
/// skeleton copy whose names end with `_1`.
pub fn body(copies: bool) -> Arc<Skeleton> {
    let mut b = SkeletonBuilder::new()
        .bone("mixamorig:Hips", Parent::Root, t(0.0, 1.0, 0.0))
        .bone("mixamorig:Spine", "mixamorig:Hips", t(0.0, 0.3, 0.0))
        .bone(
            "mixamorig:RightShoulder",
            "mixamorig:Spine",
            t(-0.05, 0.1, 0.0),
        )
        .bone(
            "mixamorig:RightArm",
            "mixamorig:RightShoulder",
            t(-0.15, 0.0, 0.0),
        )
        .bone(
            "mixamorig:RightForeArm",
            "mixamorig:RightArm",
            t(-0.3, 0.0, 0.0),
        )
        .bone(
            "mixamorig:RightHand",
            "mixamorig:RightForeArm",
            t(-0.25, 0.0, 0.0),
        )
        .bone(
            "mixamorig:RightHandIndex1",
            "mixamorig:RightHand",
            t(-0.08, 0.0, 0.0),
        );
    if copies {
        b = b
            .bone("mixamorig:Hips_1", Parent::Root, t(0.0, 1.0, 0.0))
            .bone("mixamorig:Spine_1", "mixamorig:Hips_1", t(0.0, 0.3, 0.0))
            .bone(
                "mixamorig:RightShoulder_1",
                "mixamorig:Spine_1",
                t(-0.05, 0.1, 0.0),
            )
            .bone(
                "mixamorig:RightArm_1",
                "mixamorig:RightShoulder_1",
                t(-0.15, 0.0, 0.0),
            )
            .bone(
                "mixamorig:RightForeArm_1",
                "mixamorig:RightArm_1",
                t(-0.3, 0.0, 0.0),
            )
            .bone(
                "mixamorig:RightHand_1",
                "mixamorig:RightForeArm_1",
                t(-0.25, 0.0, 0.0),
            );
    }
    b.build().expect("test body")
}

pub fn state(skeleton: &Arc<Skeleton>) -> RigState {
    let mut s = RigState::new(Arc::clone(skeleton));
    s.compute_world();
    s
}

/// A bar with `handle` and `tip` empties.
pub fn bar() -> Prop {
    Prop::builder()
        .node("bar", None, Transform::IDENTITY)
        .node("bar/handle", Some("bar"), t(0.0, 0.0, 0.2))
        .node(
            "bar/tip",
            Some("bar"),
            Transform::from_translation_rotation(
                Vec3::new(0.0, 0.1, 0.6),
                Quat::from_rotation_x(0.3),
            ),
        )
        .build()
        .expect("bar")
}

pub const CONFIG: &str = r#"{
  "mods": { "body": "anim", "limbs": "interact" },
  "kinds": {
    "xbot": {
      "anchor": { "prop": "bar", "bone": "RightShoulder", "at": [-0.1, -0.05, 0.1], "turn": [0, 10, 0], "point": "handle" },
      "limbs": [
        { "bones": ["RightArm", "RightForeArm", "RightHand"], "prop": "bar", "target": "tip", "pole": [-1, -1, 0] }
      ]
    }
  }
}"#;

pub fn config() -> Arc<PropsConfig> {
    Arc::new(PropsConfig::from_json(CONFIG).expect("config"))
}
