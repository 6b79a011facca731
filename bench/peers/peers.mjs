// The npm peers on sinew's benchmark workloads, headless in Node; `run` (beside this file) calls
// it between sinew's own criterion benches and prints the ratios. One JSON object per line:
// { workload, peer, us: [per-rep µs], median, unit, quality?, conditions }.
//
//   node --import ./register-hook.mjs peers.mjs --shared DIR --cases ik_cases.json \
//        [--workloads mmd-js,mmd-wasm,mmd-wasm-physics,ccd-leg,ccd10] [--reps 5] [--frames 2800]
//
// Workloads (the same work as the criterion bench named in each row):
// - mmd-js: babylon-mmd 1.3.0 `MmdRuntime` (JS), miku_v2 + wavefile_v2, physics off, every frame
//   0..frames in order: `model.beforePhysics(f); model.afterPhysics()` (animation, IK, append,
//   morphs). sinew: `frame/miku_v2 + wavefile_v2, sample + IK + append (full), advancing 1 frame`.
// - mmd-wasm: the same on babylon-mmd's `MmdWasmRuntime`, single-thread release build (sr), no
//   physics object, immediate evaluation.
// - mmd-wasm-physics: `MmdWasmRuntime` single-thread physics release build (spr) with its Bullet,
//   2 × 1/60 s steps per 1/30 s frame, gravity −98 (the setup of babylon_wasm_physics.mjs).
//   sinew: `mmd_frame_with_physics_miku_v2_wavefile_30fps_2x60hz`.
// - ccd-leg / ccd10: three.js r171 `CCDIKSolver` on the chains and targets of sinew-ik's
//   `peer_cases` example (the criterion fixtures): per target, links reset to the rest pose,
//   world matrices refreshed, one `update()`; quality = fraction ending within `within`.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const A = {
  shared: process.env.SHARED ?? path.resolve('../shared'),
  cases: 'ik_cases.json',
  workloads: 'mmd-js,mmd-wasm,mmd-wasm-physics,ccd-leg,ccd10',
  reps: 5,
  frames: 2800,
};
for (let i = 2; i < process.argv.length; i += 2) {
  const k = process.argv[i].replace(/^--/, ''), v = process.argv[i + 1];
  if (!(k in A) || v === undefined) throw new Error('unknown or incomplete arg ' + process.argv[i]);
  A[k] = typeof A[k] === 'number' ? Number(v) : v;
}
const MODEL = `${A.shared}/assets/mmd/threejs-examples/miku/miku_v2.pmd`;
const MOTION = `${A.shared}/assets/mmd/threejs-examples/vmds/wavefile_v2.vmd`;
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
const emit = (o) => console.log(JSON.stringify({ ...o, median: median(o.us) }));
const readBytes = (f) => new Uint8Array(fs.readFileSync(f));
const now = () => process.hrtime.bigint();
const usSince = (t0, n) => Number(now() - t0) / 1000 / n;

// ---- babylon-mmd
async function babylon() {
  const { NullEngine } = await import('@babylonjs/core/Engines/nullEngine.js');
  const { Scene } = await import('@babylonjs/core/scene.js');
  const { Vector3 } = await import('@babylonjs/core/Maths/math.vector.js');
  const { LoadAssetContainerAsync } = await import('@babylonjs/core/Loading/sceneLoader.js');
  const { Logger } = await import('@babylonjs/core/Misc/logger.js');
  const { VmdLoader } = await import('babylon-mmd/esm/Loader/vmdLoader.js');
  const { RegisterPmxLoader } = await import('babylon-mmd/esm/Loader/pmxLoader.pure.js');
  const { RegisterPmdLoader } = await import('babylon-mmd/esm/Loader/pmdLoader.pure.js');
  Logger.LogLevels = Logger.ErrorLogLevel;
  RegisterPmxLoader();
  RegisterPmdLoader();
  const vmdLoader = new VmdLoader();
  vmdLoader.loggingEnabled = false;
  const motion = await vmdLoader.loadFromBufferAsync('motion', readBytes(MOTION).buffer);
  const load = async (scene) => {
    const c = await LoadAssetContainerAsync(readBytes(MODEL), scene, {
      pluginExtension: '.pmd',
      pluginOptions: { mmdmodel: { materialBuilder: null, loggingEnabled: false } },
    });
    c.addAllToScene();
    return c.meshes[0];
  };
  return { NullEngine, Scene, Vector3, motion, load };
}

async function mmdJs(B) {
  const { MmdRuntime } = await import('babylon-mmd/esm/Runtime/mmdRuntime.js');
  const { RegisterMmdRuntimeModelAnimation } = await import('babylon-mmd/esm/Runtime/Animation/mmdRuntimeModelAnimation.pure.js');
  RegisterMmdRuntimeModelAnimation();
  const engine = new B.NullEngine();
  const scene = new B.Scene(engine);
  const runtime = new MmdRuntime(scene, null);
  const model = runtime.createMmdModel(await B.load(scene), { buildPhysics: false });
  model.setRuntimeAnimation(model.createRuntimeAnimation(B.motion));
  const us = [];
  for (let rep = 0; rep < A.reps; rep++) {
    const t0 = now();
    for (let f = 0; f < A.frames; f++) { model.beforePhysics(f); model.afterPhysics(); }
    us.push(usSince(t0, A.frames));
  }
  scene.dispose(); engine.dispose();
  emit({ workload: 'mmd-frame', peer: 'babylon-mmd 1.3.0 JS runtime', us, unit: 'µs/frame',
    conditions: `miku_v2 + wavefile_v2, frames 0..${A.frames} in order, physics off` });
}

async function wasmInstance(kind) {
  const require = createRequire(import.meta.url);
  const dir = path.dirname(require.resolve('babylon-mmd/package.json')) + `/esm/Runtime/Optimized/wasm/${kind}`;
  // GetMmdWasmInstance() would fetch() the .wasm by file:// URL (Node rejects it): init from bytes.
  const bindgen = await import(`${dir}/index.js`);
  bindgen.initSync({ module: fs.readFileSync(`${dir}/index_bg.wasm`) });
  const { GetMmdWasmInstance } = await import('babylon-mmd/esm/Runtime/Optimized/mmdWasmInstance.js');
  const type = kind === 'spr'
    ? new (await import('babylon-mmd/esm/Runtime/Optimized/InstanceType/singlePhysicsRelease.js')).MmdWasmInstanceTypeSPR()
    : new (await import('babylon-mmd/esm/Runtime/Optimized/InstanceType/singleRelease.js')).MmdWasmInstanceTypeSR();
  return GetMmdWasmInstance(type, 1);
}

async function mmdWasm(B, physics) {
  const { MmdWasmRuntime, MmdWasmRuntimeAnimationEvaluationType } = await import('babylon-mmd/esm/Runtime/Optimized/mmdWasmRuntime.js');
  const { MmdWasmPhysics } = await import('babylon-mmd/esm/Runtime/Optimized/Physics/mmdWasmPhysics.js');
  const { MmdWasmAnimation } = await import('babylon-mmd/esm/Runtime/Optimized/Animation/mmdWasmAnimation.js');
  const { RegisterMmdWasmRuntimeModelAnimation } = await import('babylon-mmd/esm/Runtime/Optimized/Animation/mmdWasmRuntimeModelAnimation.pure.js');
  RegisterMmdWasmRuntimeModelAnimation();
  const wasm = await wasmInstance(physics ? 'spr' : 'sr');
  if (physics) {
    // MMD reads wavefile's physics toggles as "on" (babylon-mmd parses them as "off").
    for (const t of [...B.motion.boneTracks, ...B.motion.movableBoneTracks]) t.physicsToggles.fill(1);
  }
  const engine = new B.NullEngine();
  const scene = new B.Scene(engine);
  const runtime = new MmdWasmRuntime(wasm, scene, physics ? new MmdWasmPhysics(scene) : null);
  runtime.evaluationType = MmdWasmRuntimeAnimationEvaluationType.Immediate;
  runtime.autoPhysicsInitialization = false;
  runtime._physicsClock = { getDeltaTime: () => 1 / 30 };
  if (physics) {
    runtime.physics.setGravity(new B.Vector3(0, -98, 0));
    runtime.physics.fixedTimeStep = 1 / 60;
    runtime.physics.maxSubSteps = 10;
  }
  const model = runtime.createMmdModel(await B.load(scene), { buildPhysics: physics, materialProxyConstructor: null });
  model.setRuntimeAnimation(model.createRuntimeAnimation(new MmdWasmAnimation(B.motion, wasm, scene)));
  const step = (f) => {
    runtime._currentFrameTime = f;
    runtime._animationPaused = false;
    runtime.beforePhysics(0);
    runtime.afterPhysics();
  };
  const us = [];
  for (let rep = 0; rep < A.reps; rep++) {
    step(0);
    if (physics) { runtime._getPhysicsInitializeSet().add(model); step(0); }
    const t0 = now();
    for (let f = 1; f <= A.frames; f++) step(f);
    us.push(usSince(t0, A.frames));
  }
  scene.dispose(); engine.dispose();
  emit(physics
    ? { workload: 'mmd-frame-physics', peer: 'babylon-mmd 1.3.0 WASM runtime (spr) + its Bullet', us, unit: 'µs/frame',
      conditions: `miku_v2 + wavefile_v2, frames 1..${A.frames} in order, 2 × 1/60 s steps per 1/30 s frame, g −98` }
    : { workload: 'mmd-frame', peer: 'babylon-mmd 1.3.0 WASM runtime (sr)', us, unit: 'µs/frame',
      conditions: `miku_v2 + wavefile_v2, frames 1..${A.frames} in order, physics off` });
}

// ---- three.js CCDIKSolver
async function ccd(name) {
  const THREE = await import('three');
  const { CCDIKSolver } = await import('three/examples/jsm/animation/CCDIKSolver.js');
  const all = JSON.parse(fs.readFileSync(A.cases, 'utf8')).cases;
  const c = all.find((x) => x.name === name);
  if (!c) throw new Error(`no case ${name} in ${A.cases}`);
  // Bones: root (origin) → links (root first) → effector; the target hangs off the root.
  const root = new THREE.Bone();
  const bones = [root];
  let parent = root, parentPos = [0, 0, 0];
  for (const p of [...c.links.map((l) => l.position), c.effector]) {
    const b = new THREE.Bone();
    b.position.set(p[0] - parentPos[0], p[1] - parentPos[1], p[2] - parentPos[2]);
    parent.add(b);
    bones.push(b);
    parent = b; parentPos = p;
  }
  const target = new THREE.Bone();
  root.add(target);
  bones.push(target);
  const mesh = new THREE.SkinnedMesh(new THREE.BufferGeometry(), new THREE.MeshBasicMaterial());
  mesh.add(root);
  mesh.bind(new THREE.Skeleton(bones));
  const links = c.links.map((l, i) => {
    const link = { index: i + 1 };
    if (l.limit) {
      link.rotationMin = new THREE.Vector3(...l.limit.min);
      link.rotationMax = new THREE.Vector3(...l.limit.max);
    }
    return link;
  }).reverse(); // three lists links from the effector up
  const ik = { target: bones.length - 1, effector: c.links.length + 1, links, iteration: c.iterations, maxAngle: c.unit_angle };
  const solver = new CCDIKSolver(mesh, [ik]);
  const effector = bones[ik.effector];
  const e = new THREE.Vector3();
  const solve = (t) => {
    for (let i = 1; i <= c.links.length; i++) bones[i].quaternion.set(0, 0, 0, 1);
    target.position.set(t[0], t[1], t[2]);
    mesh.updateMatrixWorld(true);
    solver.update();
  };
  let ok = 0;
  for (const t of c.targets) {
    solve(t);
    e.setFromMatrixPosition(effector.matrixWorld);
    if (Math.hypot(e.x - t[0], e.y - t[1], e.z - t[2]) <= c.within) ok++;
  }
  const us = [];
  const passes = Math.max(1, Math.round(20000 / c.targets.length));
  for (let rep = 0; rep < A.reps; rep++) {
    const t0 = now();
    for (let p = 0; p < passes; p++) for (const t of c.targets) solve(t);
    us.push(usSince(t0, passes * c.targets.length));
  }
  emit({ workload: name, peer: `three.js r${THREE.REVISION} CCDIKSolver`, us, unit: 'µs/solve',
    quality: ok / c.targets.length,
    conditions: `${c.links.length} links, ${c.iterations} iterations, unit angle ${c.unit_angle}, ` +
      `${c.targets.length} targets, pose reset per solve; solved = within ${c.within}` });
}

const want = A.workloads.split(',');
const B = want.some((w) => w.startsWith('mmd')) ? await babylon() : null;
for (const w of want) {
  if (w === 'mmd-js') await mmdJs(B);
  else if (w === 'mmd-wasm') await mmdWasm(B, false);
  else if (w === 'mmd-wasm-physics') await mmdWasm(B, true);
  else if (w === 'ccd-leg' || w === 'ccd10') await ccd(w);
  else throw new Error('unknown workload ' + w);
}
