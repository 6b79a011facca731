//! A host that runs the frame's stages itself, with its own physics in place of sinew's: the
//! humanoid walks (the host's sampling), sinew evaluates constraints, hierarchy and IK, the
//! host's Verlet rope swings the ponytail and writes its world matrices, sinew finishes the
//! frame, and the host reads skin matrices into its own buffer.
//!
//! ```text
//!  host: animate(t) ──► input_mut()                 sample + blend (the host's own clips)
//!  sinew: evaluate_before_physics(World)            constraints → hierarchy → IK
//!  host: rope.step(state_mut().allocate_world())    physics, writing world matrices
//!  sinew: evaluate_after_physics(World)             bones ordered after physics
//!  host: state().skin_matrices(&mut skin)           skin matrices for the renderer
//! ```
//!
//! `cargo run -p sinew-examples --example host_physics`

use glam::{Affine3A, Quat, Vec3A};
use sinew::{BoneId, SkeletonInstance, Writeback};
use sinew_humanoid::Humanoid;

const DT: f32 = 1.0 / 60.0;
const GRAVITY: Vec3A = Vec3A::new(0.0, -9.81, 0.0);

/// The host's physics: a Verlet rope through the ponytail's joints, its first joint pinned to
/// the animated head.
struct Rope {
    bones: Vec<BoneId>,
    /// Per joint: position now and one step ago (world).
    now: Vec<Vec3A>,
    before: Vec<Vec3A>,
    /// Per segment: its rest length.
    lengths: Vec<f32>,
    /// Per joint: the world matrix sinew left (scratch, reused every step).
    animated: Vec<Affine3A>,
    started: bool,
}

impl Rope {
    fn new(bones: &[BoneId], rest_world: &[Affine3A]) -> Self {
        let at: Vec<Vec3A> = bones
            .iter()
            .map(|b| rest_world[b.index()].translation)
            .collect();
        let lengths = at.windows(2).map(|w| w[0].distance(w[1])).collect();
        Self {
            bones: bones.to_vec(),
            before: at.clone(),
            now: at,
            lengths,
            animated: Vec::with_capacity(bones.len()),
            started: false,
        }
    }

    /// One step over the world matrices sinew left: pin the first joint to its animated
    /// place, integrate the others, keep every segment's length, then write each bone's world
    /// matrix turned from its animated direction to the simulated one.
    fn step(&mut self, world: &mut [Affine3A], dt: f32) {
        self.animated.clear();
        self.animated
            .extend(self.bones.iter().map(|b| world[b.index()]));
        let animated = &self.animated;
        if !self.started {
            for (p, w) in self.now.iter_mut().zip(animated) {
                *p = w.translation;
            }
            self.before.clone_from(&self.now);
            self.started = true;
        }
        for i in 1..self.now.len() {
            let velocity = (self.now[i] - self.before[i]) * 0.98;
            self.before[i] = self.now[i];
            self.now[i] += velocity + GRAVITY * dt * dt;
        }
        self.now[0] = animated[0].translation;
        for _ in 0..8 {
            for (s, &length) in self.lengths.iter().enumerate() {
                let (a, b) = (self.now[s], self.now[s + 1]);
                let d = b - a;
                let l = d.length().max(1e-6);
                self.now[s + 1] = a + d * (length / l);
            }
        }
        for (s, bone) in self.bones.iter().enumerate() {
            let mut w = animated[s];
            if let Some(next) = animated.get(s + 1) {
                let from = (next.translation - animated[s].translation).normalize_or_zero();
                let to = (self.now[s + 1] - self.now[s]).normalize_or_zero();
                let turn = Quat::from_rotation_arc(from.into(), to.into());
                w.matrix3 = glam::Mat3A::from_quat(turn) * w.matrix3;
            }
            w.translation = self.now[s];
            world[bone.index()] = w;
        }
    }
}

fn main() {
    let h = Humanoid::new();
    let model = h.model_with_ik();
    let tip = *h.bones.ponytail.last().expect("ponytail");
    let mut rope = Rope::new(&h.bones.ponytail, h.skeleton.rest_world());
    let mut with_rope = SkeletonInstance::new(&model);
    let mut animated = SkeletonInstance::new(&model);
    let mut skin = vec![Affine3A::IDENTITY; h.skeleton.len()];
    for frame in 1..=90 {
        let t = frame as f32 * DT;
        h.animate(t, with_rope.input_mut());
        with_rope.evaluate_before_physics(Writeback::World);
        rope.step(with_rope.state_mut().allocate_world(), DT);
        with_rope.evaluate_after_physics(Writeback::World);
        with_rope.state().skin_matrices(&mut skin);

        h.animate(t, animated.input_mut());
        animated.update_transform();
    }
    let swung = with_rope.world()[tip.index()].translation;
    let still = animated.world()[tip.index()].translation;
    let stretch = (rope.now.windows(2).zip(&rope.lengths))
        .map(|(w, l)| (w[0].distance(w[1]) - l).abs())
        .fold(0.0f32, f32::max);
    println!("ponytail tip after 1.5 s, animation only: {still:.3}");
    println!("ponytail tip after 1.5 s, the host's rope: {swung:.3}");
    println!(
        "the rope moved it {:.3} m; its segments kept their length within {stretch:.1e} m",
        swung.distance(still)
    );
    println!(
        "skin matrix of the tip: translation {:.3}",
        skin[tip.index()].translation
    );
}
