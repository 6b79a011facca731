use std::hint::black_box;
use std::time::Instant;
use sinew_character::{Character, CharacterModel};

fn med(mut f: impl FnMut(), n: usize) -> f64 {
    for _ in 0..n/4 { f(); }
    let mut v = Vec::new();
    for _ in 0..9 { let t = Instant::now(); for _ in 0..n { f(); } v.push(t.elapsed().as_secs_f64() * 1e9 / n as f64); }
    v.sort_by(f64::total_cmp); v[4]
}

fn main() {
    let dir = sinew_examples::assets_dir().unwrap();
    let model = CharacterModel::load(dir.join("mmd/threejs-examples/miku/miku_v2.pmd")).unwrap();
    let motion = model.load_motion(dir.join("mmd/threejs-examples/vmds/wavefile_v2.vmd")).unwrap();
    let last = (motion.duration() * 30.0).round() as u32;
    let mut c = Character::new(&model); c.play(&motion);
    let mut f = 0u32;
    let mmd = med(|| { f = if f >= last { 0 } else { f + 1 }; c.seek(f as f32 / 30.0).unwrap(); black_box(c.world()); }, 2000);
    let mut c = Character::new(&model); c.play(&motion); c.enable_physics().unwrap();
    let mut f = 0u32;
    let phys = med(|| { c.update(f as f32 / 30.0, 1.0/30.0).unwrap(); f = if f >= last { 0 } else { f + 1 }; }, 400);
    let fox = CharacterModel::load(dir.join("gltf/Fox/Fox.glb")).unwrap();
    let clip = fox.clip(2).unwrap().clone();
    let mut c = Character::new(&fox); c.play(&clip);
    let n = (clip.duration() * 60.0) as u32; let mut k = 0u32;
    let gltf = med(|| { k = (k + 1) % n; c.seek(k as f32 / 60.0).unwrap(); black_box(c.world()); }, 20000);
    println!("new mmd_frame_ns {mmd:.0} mmd_physics_ns {phys:.0} gltf_fox_ns {gltf:.0}");
}
