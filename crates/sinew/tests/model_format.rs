//! A custom model format's hooks (skeleton-dynamics-api.md, "Reader and Existing
//! SkeletonBuilder"): "A custom ModelData may override void configureSkeleton(Skeleton
//! skeleton), hooking up a Reader during Model construction. The Model construction hook of
//! format metadata runs after the SkeletonBuilder callback and may override the physics table
//! or same-named chains."

use std::sync::{Arc, Mutex};

use glam::Vec3;
use sinew::dynamics::{
    BodyMode, DynamicsError, IkChain, IkChainParams, IkLink, Physics, RigidBody, RigidBodyDesc,
    Shape, SkeletonDynamicsBuilder,
};
use sinew::skeleton::BuildModelError;
use sinew::{Model, ModelFormat, Parent, SkeletonBuilder, Transform};

/// A home-made format: an arm, a dynamics callback and a construction hook that both log
/// what they see, and switches that make either fail.
#[derive(Default)]
struct ArmFormat {
    log: Arc<Mutex<Vec<String>>>,
    callback_fails: bool,
    hook_fails: bool,
    hook_bad_bone: bool,
}

#[derive(Debug, PartialEq)]
enum FormatError {
    Build(BuildModelError),
    Hook(&'static str),
}

impl From<BuildModelError> for FormatError {
    fn from(e: BuildModelError) -> Self {
        Self::Build(e)
    }
}

fn chain(b: &SkeletonDynamicsBuilder, name: &str, iterations: u32) -> IkChain {
    let bone = |n: &str| b.bone(n).unwrap();
    IkChain::with_params(
        name,
        bone("goal"),
        bone("hand"),
        vec![IkLink::new(bone("upper")), IkLink::new(bone("lower"))],
        IkChainParams {
            iterations,
            ..IkChainParams::default()
        },
    )
    .unwrap()
}

fn body(b: &SkeletonDynamicsBuilder, name: &str, bone: &str) -> RigidBody {
    RigidBody::new(RigidBodyDesc {
        name: name.to_owned(),
        bone: Some(b.bone(bone).unwrap()),
        shape: Shape::Sphere,
        size: Vec3::splat(0.1),
        mass: 1.0,
        mode: BodyMode::Kinematic,
        ..RigidBodyDesc::default()
    })
    .unwrap()
}

impl ModelFormat for ArmFormat {
    type Error = FormatError;

    fn skeleton(&self) -> Result<SkeletonBuilder, FormatError> {
        self.log.lock().unwrap().push("skeleton".into());
        let t = |x: f32, y: f32| Transform::from_translation(Vec3::new(x, y, 0.0));
        let log = Arc::clone(&self.log);
        let fails = self.callback_fails;
        Ok(SkeletonBuilder::new()
            .bone("root", Parent::Root, Transform::IDENTITY)
            .bone("upper", "root", t(0.0, 1.0))
            .bone("lower", "upper", t(0.5, 0.0))
            .bone("hand", "lower", t(0.5, 0.0))
            .bone("goal", "root", t(0.8, 0.5))
            .dynamics(move |_, b| {
                log.lock().unwrap().push("callback".into());
                if fails {
                    return Err(DynamicsError::UnknownBone {
                        name: "from the callback".into(),
                    });
                }
                let (arm, reach) = (chain(b, "arm", 10), chain(b, "reach", 10));
                b.ik(arm).ik(reach);
                b.physics(Physics::from_tables(
                    vec![body(b, "callback-body", "upper")],
                    vec![],
                ));
                Ok(())
            }))
    }

    fn configure_skeleton(
        &self,
        model: &Model,
        b: &mut SkeletonDynamicsBuilder,
    ) -> Result<(), FormatError> {
        // What the callback mounted is there to read.
        let d = model.dynamics();
        self.log.lock().unwrap().push(format!(
            "hook sees {} chains, {} bodies",
            d.ik_chains().len(),
            d.physics().bodies().len()
        ));
        if self.hook_fails {
            return Err(FormatError::Hook("the hook refused"));
        }
        if self.hook_bad_bone {
            // A chain the builder refuses at attach: the tip is not below the links.
            let bone = |n: &str| b.bone(n).unwrap();
            let bad = IkChain::new(
                "bad",
                bone("goal"),
                bone("goal"),
                vec![IkLink::new(bone("upper"))],
            )
            .unwrap();
            b.ik(bad);
            return Ok(());
        }
        // Overrides a same-named chain and the physics table; adds a chain.
        let (arm, extra) = (chain(b, "arm", 20), chain(b, "extra", 5));
        b.ik(arm).ik(extra);
        b.physics(Physics::from_tables(
            vec![body(b, "hook-body", "lower"), body(b, "hook-hand", "hand")],
            vec![],
        ));
        Ok(())
    }
}

#[test]
fn hooks_run_in_the_specified_order_and_the_hook_overrides() {
    let format = ArmFormat::default();
    let model = Model::from_format(&format).unwrap();
    assert_eq!(
        *format.log.lock().unwrap(),
        ["skeleton", "callback", "hook sees 2 chains, 1 bodies"],
        "skeleton, then the builder callback, then the construction hook"
    );
    let d = model.dynamics();
    let names: Vec<&str> = d.ik_chains().iter().map(IkChain::name).collect();
    assert_eq!(names, ["arm", "reach", "extra"]);
    let arm = &d.ik_chains()[d.chain_index("arm").unwrap()];
    assert_eq!(arm.iterations(), 20, "the hook's same-named chain wins");
    assert_eq!(
        d.ik_chains()[d.chain_index("reach").unwrap()].iterations(),
        10
    );
    let bodies: Vec<&str> = d
        .physics()
        .bodies()
        .iter()
        .map(|b| b.desc().name.as_str())
        .collect();
    assert_eq!(
        bodies,
        ["hook-body", "hook-hand"],
        "the hook's physics table wins"
    );
    // Configuration after construction still overrides the format's defaults.
    let mut model = model;
    let mut b = SkeletonDynamicsBuilder::new(model.skeleton());
    let arm = chain(&b, "arm", 30);
    b.ik(arm);
    b.attach(&mut model).unwrap();
    let d = model.dynamics();
    assert_eq!(
        d.ik_chains()[d.chain_index("arm").unwrap()].iterations(),
        30
    );
    assert_eq!(d.ik_chains().len(), 3);
}

#[test]
fn errors_of_either_hook_propagate_and_stop_construction() {
    let format = ArmFormat {
        callback_fails: true,
        ..ArmFormat::default()
    };
    assert_eq!(
        Model::from_format(&format).unwrap_err(),
        FormatError::Build(BuildModelError::Dynamics(DynamicsError::UnknownBone {
            name: "from the callback".into()
        }))
    );
    assert_eq!(
        *format.log.lock().unwrap(),
        ["skeleton", "callback"],
        "a failed callback stops before the hook"
    );

    let format = ArmFormat {
        hook_fails: true,
        ..ArmFormat::default()
    };
    assert_eq!(
        Model::from_format(&format).unwrap_err(),
        FormatError::Hook("the hook refused")
    );

    let format = ArmFormat {
        hook_bad_bone: true,
        ..ArmFormat::default()
    };
    match Model::from_format(&format).unwrap_err() {
        FormatError::Build(BuildModelError::Dynamics(_)) => {}
        other => panic!("the hook's definitions are validated: {other:?}"),
    }

    // A skeleton the builder refuses.
    struct Empty;
    impl ModelFormat for Empty {
        type Error = BuildModelError;
        fn skeleton(&self) -> Result<SkeletonBuilder, BuildModelError> {
            Ok(SkeletonBuilder::new())
        }
    }
    assert!(matches!(
        Model::from_format(&Empty),
        Err(BuildModelError::Skeleton(sinew::SkeletonError::Empty))
    ));
}
