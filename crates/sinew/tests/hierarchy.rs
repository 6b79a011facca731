//! Property tests of the skeleton order and the hierarchy job.

use std::collections::HashMap;
use std::sync::Arc;

use glam::{Affine3A, DAffine3, DQuat, DVec3, Quat, Vec3};
use proptest::prelude::*;
use sinew::pose::local_to_world;
use sinew::{Parent, RigState, RootPlacement, Skeleton, SkeletonBuilder, Transform};
use sinew_humanoid::Humanoid;

/// A random tree: `parents[i] < i` or root, with random rest transforms (scale included).
fn tree() -> impl Strategy<Value = (Vec<Option<usize>>, Vec<Transform>)> {
    (1usize..40).prop_flat_map(|n| {
        let parents = (0..n)
            .map(|i| {
                if i == 0 {
                    Just(None).boxed()
                } else {
                    prop_oneof![1 => Just(None), 6 => (0..i).prop_map(Some)].boxed()
                }
            })
            .collect::<Vec<_>>();
        let rests = proptest::collection::vec(transform(), n);
        (parents, rests)
    })
}

fn transform() -> impl Strategy<Value = Transform> {
    (
        proptest::array::uniform3(-2.0f32..2.0),
        proptest::array::uniform3(-3.2f32..3.2),
        proptest::array::uniform3(0.5f32..1.5),
    )
        .prop_map(|(t, r, s)| {
            Transform::from_trs(
                Vec3::from(t),
                Quat::from_euler(glam::EulerRot::XYZ, r[0], r[1], r[2]),
                Vec3::from(s),
            )
        })
}

fn build(parents: &[Option<usize>], rests: &[Transform], perm: &[usize]) -> Arc<Skeleton> {
    let mut b = SkeletonBuilder::new();
    for &i in perm {
        let parent = parents[i].map_or(Parent::Root, |p| Parent::Name(format!("b{p}")));
        b.push(format!("b{i}"), parent, rests[i]);
    }
    b.build().unwrap()
}

proptest! {
    #[test]
    fn order_is_parent_first_for_any_permutation(
        (parents, rests) in tree(),
        seed in any::<u64>(),
    ) {
        let n = parents.len();
        let mut perm: Vec<usize> = (0..n).collect();
        // Fisher-Yates with a tiny LCG so the permutation depends on the seed.
        let mut s = seed | 1;
        for i in (1..n).rev() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            perm.swap(i, (s >> 33) as usize % (i + 1));
        }
        let a = build(&parents, &rests, &(0..n).collect::<Vec<_>>());
        let b = build(&parents, &rests, &perm);
        for s in [&a, &b] {
            for bone in s.bones() {
                if let Some(p) = s.parent(bone) {
                    prop_assert!(p.index() < bone.index());
                    prop_assert!(s.is_ancestor_or_self(p, bone));
                }
                // Source mapping round-trips.
                prop_assert_eq!(s.from_source_index(s.source_index(bone)), Some(bone));
                // Subtree range holds exactly the descendants.
                for other in s.bones() {
                    let mut x = Some(other);
                    let mut desc = false;
                    while let Some(y) = x {
                        if y == bone { desc = true; break; }
                        x = s.parent(y);
                    }
                    prop_assert_eq!(desc, s.is_ancestor_or_self(bone, other));
                }
            }
        }
        // Same hierarchy by name, same rest world transforms by name.
        let world_by_name = |s: &Skeleton| -> HashMap<String, Affine3A> {
            s.bones().map(|b| (s.name(b).to_owned(), s.rest_world()[b.index()])).collect()
        };
        let (wa, wb) = (world_by_name(&a), world_by_name(&b));
        for (name, m) in &wa {
            prop_assert!(m.abs_diff_eq(wb[name], 1e-4));
            let pa = a.parent(a.find(name).unwrap()).map(|p| a.name(p).to_owned());
            let pb = b.parent(b.find(name).unwrap()).map(|p| b.name(p).to_owned());
            prop_assert_eq!(pa, pb);
        }
    }

    #[test]
    fn world_is_parent_world_times_local((parents, rests) in tree(), locals in proptest::collection::vec(transform(), 40)) {
        let s = build(&parents, &rests, &(0..parents.len()).collect::<Vec<_>>());
        let mut state = RigState::new(s.clone());
        state.locals_mut().copy_from_slice(&locals[..s.len()]);
        state.set_placement(RootPlacement { translation: DVec3::new(1.0, 2.0, 3.0), rotation: Quat::from_rotation_y(0.3), scale: Vec3::splat(1.5) });
        let root = state.root_affine();
        let world = state.compute_world().to_vec();
        for bone in s.bones() {
            let expected = match s.parent(bone) {
                Some(p) => world[p.index()] * locals[bone.index()].to_affine(),
                None => root * locals[bone.index()].to_affine(),
            };
            prop_assert!(world[bone.index()].abs_diff_eq(expected, 1e-3));
        }
    }

    #[test]
    fn subtree_update_equals_full_update((parents, rests) in tree(), new_local in transform(), pick in any::<proptest::sample::Index>()) {
        let s = build(&parents, &rests, &(0..parents.len()).collect::<Vec<_>>());
        let mut state = RigState::new(s.clone());
        state.compute_world();
        let bone = s.bones().nth(pick.index(s.len())).unwrap();
        state.set_local(bone, new_local);
        state.compute_world_subtree(bone);
        let partial = state.world().unwrap().to_vec();
        let full = state.compute_world().to_vec();
        prop_assert_eq!(partial, full);
    }
}

#[test]
fn floating_origin_matches_f64_reference_far_from_origin() {
    let h = Humanoid::new();
    let mut state = RigState::new(h.skeleton.clone());
    h.animate(0.3, state.locals_mut());
    let far = DVec3::new(1.0e6 + 0.123_456_7, 250.25, -1.0e6 + 0.765_432_1);
    let rotation = Quat::from_rotation_y(0.7);
    state.set_placement(RootPlacement {
        translation: far,
        rotation,
        scale: Vec3::ONE,
    });
    state.set_origin(DVec3::new(1.0e6, 250.0, -1.0e6));
    state.compute_world();
    // f64 reference: the same hierarchy in double precision.
    let s = &h.skeleton;
    let root = DAffine3::from_rotation_translation(
        DQuat::from_array(rotation.to_array().map(f64::from)),
        far,
    );
    let mut world64: Vec<DAffine3> = Vec::with_capacity(s.len());
    for b in s.bones() {
        let l = state.local(b);
        let local = DAffine3::from_scale_rotation_translation(
            l.scale.as_dvec3(),
            DQuat::from_array(l.rotation.to_array().map(f64::from)).normalize(),
            l.translation.as_dvec3(),
        );
        let w = match s.parent(b) {
            Some(p) => world64[p.index()] * local,
            None => root * local,
        };
        world64.push(w);
    }
    let mut worst = 0.0f64;
    for b in s.bones() {
        let ours = state.world_position_f64(b);
        worst = worst.max((ours - world64[b.index()].translation).length());
    }
    assert!(worst < 1e-5, "worst error {worst} m");
    // Without the anchor, f32 cannot hold these positions to better than ~6 cm.
    let mut naive = state.clone();
    naive.set_origin(DVec3::ZERO);
    naive.compute_world();
    let naive_worst = s
        .bones()
        .map(|b| (naive.world_position_f64(b) - world64[b.index()].translation).length())
        .fold(0.0, f64::max);
    assert!(
        naive_worst > 1e-3,
        "naive f32 unexpectedly precise: {naive_worst}"
    );
}

#[test]
fn skin_matrices_are_identity_at_rest() {
    let h = Humanoid::with_extra_joints(100);
    let mut state = RigState::new(h.skeleton.clone());
    state.compute_world();
    let mut skin = vec![Affine3A::IDENTITY; h.skeleton.len()];
    state.skin_matrices(&mut skin);
    for m in &skin {
        assert!(m.abs_diff_eq(Affine3A::IDENTITY, 1e-5));
    }
}

#[test]
fn shear_survives_the_hierarchy() {
    // A non-uniformly scaled, rotated parent shears its child: TRS cannot represent the child's
    // world transform, the affine world buffer does.
    let s = SkeletonBuilder::new()
        .bone(
            "p",
            Parent::Root,
            Transform::from_trs(Vec3::ZERO, Quat::IDENTITY, Vec3::new(2.0, 1.0, 1.0)),
        )
        .bone(
            "c",
            "p",
            Transform::from_rotation(Quat::from_rotation_z(0.7)),
        )
        .bone("g", "c", Transform::from_translation(Vec3::X))
        .build()
        .unwrap();
    let mut state = RigState::new(s.clone());
    let world = state.compute_world().to_vec();
    let direct = s.rest(s.find("p").unwrap()).to_affine()
        * s.rest(s.find("c").unwrap()).to_affine()
        * s.rest(s.find("g").unwrap()).to_affine();
    assert!(world[2].abs_diff_eq(direct, 1e-6));
    let c = world[1].matrix3;
    assert!(c.x_axis.dot(c.y_axis).abs() > 0.1, "child frame is sheared");
    let mut out = vec![Affine3A::IDENTITY; 3];
    local_to_world(
        s.parent_indices(),
        state.locals(),
        &Affine3A::IDENTITY,
        &mut out,
    );
    assert_eq!(out, world);
}

/// rig-descriptor.md, `get_world_transforms(rig)` (sinew's `RigState::allocate_world`):
/// "Idempotently allocates the retained output used by compute_world_transforms(). It does not
/// compute any transforms itself." The state is posed (turned locals, a placement off the
/// origin) so that evaluating would give matrices unlike identity: a fresh buffer holds only
/// identity matrices; a second call returns the same buffer with what the caller wrote in it
/// (sentinels) untouched, not reallocated, reset or evaluated.
#[test]
fn allocation_is_idempotent() {
    let h = Humanoid::new();
    let mut state = RigState::new(h.skeleton.clone());
    for l in state.locals_mut() {
        l.rotation = Quat::from_rotation_z(0.3) * l.rotation;
    }
    state.set_placement(RootPlacement::from_translation(DVec3::new(3.0, 0.0, -2.0)));
    assert!(state.world().is_none());
    let first = state.allocate_world();
    assert_eq!(first.len(), h.skeleton.len());
    assert!(
        first.iter().all(|m| *m == Affine3A::IDENTITY),
        "a new buffer holds identity matrices, nothing evaluated"
    );
    let p1 = first.as_ptr();
    let sentinel = |i: usize| Affine3A::from_translation(Vec3::new(i as f32, -7.0, 0.5));
    for (i, m) in first.iter_mut().enumerate() {
        *m = sentinel(i);
    }
    let second = state.allocate_world();
    assert_eq!(p1, second.as_ptr(), "the same buffer");
    assert!(
        second.iter().enumerate().all(|(i, m)| *m == sentinel(i)),
        "allocating again leaves the buffer as the caller wrote it"
    );
    assert!(state
        .world()
        .unwrap()
        .iter()
        .enumerate()
        .all(|(i, m)| *m == sentinel(i)));
    // Only `compute_world` evaluates into it.
    let expected = {
        let mut fresh = state.clone();
        fresh.compute_world().to_vec()
    };
    assert!(expected.iter().enumerate().all(|(i, m)| *m != sentinel(i)));
    assert_eq!(state.compute_world(), expected.as_slice());
    assert_eq!(p1, state.world().unwrap().as_ptr());
}

/// rig-descriptor.md, `get_world_transforms`: "It does not compute any transforms itself."
/// Reading the retained output is not evaluating it: after the locals, the placement and the
/// origin change, `world()`, `allocate_world()` and an instance's `world()` still give the last
/// evaluation's matrices (stale) until `compute_world` / `update_transform` runs. A reader or
/// allocator that evaluated would give the new pose.
#[test]
fn reading_world_transforms_evaluates_nothing() {
    let h = Humanoid::new();
    let mut state = RigState::new(h.skeleton.clone());
    let evaluated = state.compute_world().to_vec();
    for l in state.locals_mut() {
        l.rotation = Quat::from_rotation_x(0.4) * l.rotation;
    }
    state.set_placement(RootPlacement::from_translation(DVec3::new(0.0, 2.0, 0.0)));
    state.set_origin(DVec3::new(1.0, 0.0, 0.0));
    let now = state.clone().compute_world().to_vec();
    assert!(now.iter().zip(&evaluated).all(|(a, b)| a != b));
    assert_eq!(state.world().unwrap(), evaluated.as_slice());
    assert_eq!(&*state.allocate_world(), evaluated.as_slice());
    assert_eq!(state.world().unwrap(), evaluated.as_slice());
    assert_eq!(state.compute_world(), now.as_slice());

    let model = h.model_with_ik();
    let mut inst = sinew::SkeletonInstance::new(&model);
    inst.update_transform();
    let before = inst.world().to_vec();
    inst.input_mut()[h.bones.spine[0].index()].rotation = Quat::from_rotation_y(0.5);
    assert!(inst.is_dirty());
    assert_eq!(inst.world(), before.as_slice(), "reading does not evaluate");
    assert_eq!(inst.state().world().unwrap(), before.as_slice());
    assert!(inst.is_dirty());
    inst.update_transform();
    assert_ne!(inst.world(), before.as_slice());
}
