//! Anchor + two limbs per body per frame on `sinew_testkit::Humanoid` holding the demo rifle.
//!
//! `cargo bench -p sinew-props -- --warm-up-time 1 --measurement-time 3`
//!
//! Each iteration first puts the clip's pose back (locals and world matrices, two memcpys —
//! what the clip stage does anyway), so the solve sees a fresh clip pose as in a tick loop.
//! `props/reset_only` times that copy alone; subtract it from `props/anchor_two_limbs`.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use sinew::RigState;
use sinew_props::{demo, PropSlot, PropsRig};
use sinew_testkit::Humanoid;

fn bench(c: &mut Criterion) {
    let h = Humanoid::new();
    let mut state = RigState::new(h.skeleton.clone());
    h.animate(0.3, state.locals_mut());
    state.compute_world();
    let clip_locals = state.locals().to_vec();
    let clip_world = state.world().unwrap().to_vec();
    let mut rig = PropsRig::new(
        Arc::new(demo::humanoid_rifle_config()),
        Some(demo::HUMANOID_KIND),
    )
    .unwrap();
    rig.hold(demo::RIFLE, PropSlot::Ready(demo::rifle()));
    rig.solve(&mut state).unwrap();
    assert_eq!(rig.short().unwrap(), &[0.0, 0.0]);

    c.bench_function("props/reset_only", |b| {
        b.iter(|| {
            state.locals_mut().copy_from_slice(&clip_locals);
            state.allocate_world().copy_from_slice(&clip_world);
            black_box(&mut state);
        });
    });
    c.bench_function("props/anchor_two_limbs", |b| {
        b.iter(|| {
            state.locals_mut().copy_from_slice(&clip_locals);
            state.allocate_world().copy_from_slice(&clip_world);
            rig.solve(black_box(&mut state)).unwrap();
            black_box(rig.short());
        });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
