// Timing: babylon-mmd 1.3.0 MmdWasmRuntime (SPR = single-thread, physics, release wasm build)
// with its integrated Bullet physics (MmdWasmPhysics), headless in Node (NullEngine).
//
//   (in a copy of ../../../shared/oracle with `npm ci` run, this file copied beside it; see README.md)
//   SHARED=/path/to/shared node --import ./register-hook.mjs babylon_wasm_physics.mjs \
//        [--model M.pmd] [--vmd A.vmd] [--frames 2809] [--reps 3] [--ref bullet_miku_v2_dance.json]
//
// Per frame (Immediate evaluation): runtime.beforePhysics() -> wasm: VMD animation (MmdWasmAnimation),
// append/IK solvers, Bullet step with time_step = 1/30 s (fixed sub-step 1/60 s -> 2 sub-steps,
// maxSubSteps 10), runtime.afterPhysics() -> wasm: bones written back from the bodies + after-physics
// solvers. Gravity (0, -98, 0). Same setup as babylon_physics_oracle.mjs (JS runtime) otherwise:
// VMD physics toggles forced ON, bodies initialised from the animated pose at frame 0.
//
// The physics delta time normally comes from PhysicsClock (engine.getDeltaTime() / 1000, seconds,
// 1/60 if 0); NullEngine's delta time is meaningless, so the clock is replaced by a constant 1/30 s.
// Animation time is set explicitly (runtime._currentFrameTime = f, beforePhysics(0)).

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { NullEngine } from '@babylonjs/core/Engines/nullEngine.js';
import { Scene } from '@babylonjs/core/scene.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { LoadAssetContainerAsync } from '@babylonjs/core/Loading/sceneLoader.js';
import { Logger } from '@babylonjs/core/Misc/logger.js';
import { VmdLoader } from 'babylon-mmd/esm/Loader/vmdLoader.js';
import { RegisterPmxLoader } from 'babylon-mmd/esm/Loader/pmxLoader.pure.js';
import { RegisterPmdLoader } from 'babylon-mmd/esm/Loader/pmdLoader.pure.js';
import { MmdWasmRuntime, MmdWasmRuntimeAnimationEvaluationType } from 'babylon-mmd/esm/Runtime/Optimized/mmdWasmRuntime.js';
import { MmdWasmPhysics } from 'babylon-mmd/esm/Runtime/Optimized/Physics/mmdWasmPhysics.js';
import { MmdWasmAnimation } from 'babylon-mmd/esm/Runtime/Optimized/Animation/mmdWasmAnimation.js';
import { RegisterMmdWasmRuntimeModelAnimation } from 'babylon-mmd/esm/Runtime/Optimized/Animation/mmdWasmRuntimeModelAnimation.pure.js';

Logger.LogLevels = Logger.ErrorLogLevel;
RegisterPmxLoader();
RegisterPmdLoader();
RegisterMmdWasmRuntimeModelAnimation();
const require = createRequire(import.meta.url);

// The shared folder (assets, conformance): $SHARED, default ../shared beside the current folder.
const SHARED = process.env.SHARED ?? path.resolve('../shared');
const A = {
  model: `${SHARED}/assets/mmd/threejs-examples/miku/miku_v2.pmd`,
  vmd: `${SHARED}/assets/mmd/threejs-examples/vmds/wavefile_v2.vmd`,
  ref: `${SHARED}/conformance/physics/bullet_miku_v2_dance.json`,
  frames: 2809, reps: 3, probe: '右髪６',
};
for (let i = 2; i < process.argv.length; i += 2) {
  const k = process.argv[i].replace(/^--/, ''), v = process.argv[i + 1];
  if (!(k in A)) throw new Error('unknown arg ' + process.argv[i]);
  A[k] = typeof A[k] === 'number' ? Number(v) : v;
}

const readBytes = (f) => new Uint8Array(fs.readFileSync(f));

async function loadSprInstance() {
  // GetMmdWasmInstance() would fetch() the .wasm by file:// URL (rejected by Node): init from bytes.
  const dir = path.dirname(require.resolve('babylon-mmd/package.json')) + '/esm/Runtime/Optimized/wasm/spr';
  const bindgen = await import(`${dir}/index.js`);
  bindgen.initSync({ module: fs.readFileSync(`${dir}/index_bg.wasm`) });
  const { GetMmdWasmInstance } = await import('babylon-mmd/esm/Runtime/Optimized/mmdWasmInstance.js');
  const { MmdWasmInstanceTypeSPR } = await import('babylon-mmd/esm/Runtime/Optimized/InstanceType/singlePhysicsRelease.js');
  return GetMmdWasmInstance(new MmdWasmInstanceTypeSPR(), 1); // single-threaded build; threadCount unused
}

const wasmInstance = await loadSprInstance();
const vmdLoader = new VmdLoader();
vmdLoader.loggingEnabled = false;
const mmdAnim = await vmdLoader.loadFromBufferAsync('motion', readBytes(A.vmd).buffer);
let toggledOff = 0;
for (const t of [...mmdAnim.boneTracks, ...mmdAnim.movableBoneTracks]) {
  for (let i = 0; i < t.physicsToggles.length; i++) if (t.physicsToggles[i] === 0) toggledOff++;
  t.physicsToggles.fill(1); // MMD's reading (babylon-mmd parses wavefile's (20,20) bytes as "off")
}
const modelBytes = readBytes(A.model);

// mode: 'physics'  = MmdWasmPhysics, buildPhysics: true
//       'nobuild'  = MmdWasmPhysics, buildPhysics: false (physics world exists but is empty)
//       'nophys'   = no physics object at all (MmdWasmRuntime(wasm, scene, null))
async function setup(mode, opts = {}) {
  const engine = new NullEngine();
  const scene = new Scene(engine);
  const runtime = new MmdWasmRuntime(wasmInstance, scene, mode === 'nophys' ? null : new MmdWasmPhysics(scene));
  runtime.evaluationType = MmdWasmRuntimeAnimationEvaluationType.Immediate;
  runtime.autoPhysicsInitialization = false; // we initialise explicitly
  const frameDtS = 1 / 30;
  runtime._physicsClock = { getDeltaTime: () => frameDtS }; // seconds, as PhysicsClock returns
  if (runtime.physics) {
    runtime.physics.setGravity(new Vector3(0, -98, 0));
    runtime.physics.fixedTimeStep = 1 / 60;
    runtime.physics.maxSubSteps = opts.maxSubSteps ?? 10;
  }
  const container = await LoadAssetContainerAsync(modelBytes, scene, {
    pluginExtension: path.extname(A.model).toLowerCase(),
    pluginOptions: { mmdmodel: { materialBuilder: null, loggingEnabled: false } },
  });
  container.addAllToScene();
  const model = runtime.createMmdModel(container.meshes[0], {
    buildPhysics: mode === 'physics', materialProxyConstructor: null,
  });
  const wasmAnim = new MmdWasmAnimation(mmdAnim, wasmInstance, scene);
  model.setRuntimeAnimation(model.createRuntimeAnimation(wasmAnim));

  const step = (f) => {
    runtime._currentFrameTime = f;
    runtime._animationPaused = false;
    runtime.beforePhysics(0); // animation time set above; physics dt from the stubbed clock
    runtime.afterPhysics();
  };
  // as on a seek: evaluate frame 0, mark bodies for (re)initialisation from the animated pose
  // (wasm side, done inside the next beforePhysics), evaluate frame 0 again.
  const init = () => {
    step(0);
    runtime._getPhysicsInitializeSet().add(model);
    step(0);
  };
  const dispose = () => { scene.dispose(); engine.dispose(); };
  return { runtime, model, step, init, dispose };
}

function probeBone(model, name) {
  const b = model.runtimeBones.find((x) => x.name === name);
  if (!b) throw new Error('no bone ' + name);
  return b;
}

// ---- sanity pass (untimed): record every bone at frames 0,10,...; compare with/without physics and
// with the JS-runtime Bullet reference (babylon_physics_oracle.mjs output), if present.
async function trajectory(mode) {
  const s = await setup(mode);
  const v = new Vector3();
  const rec = new Map();
  const grab = (f) => rec.set(f, s.model.runtimeBones.map((b) => { b.getWorldTranslationToRef(v); return [v.x, v.y, v.z]; }));
  s.init();
  grab(0);
  for (let f = 1; f <= A.frames; f++) { s.step(f); if (f % 10 === 0) grab(f); }
  const names = s.model.runtimeBones.map((b) => b.name);
  const info = {
    rigidBodies: s.model.rigidBodyStates.length,
    worlds: s.runtime.physics?.nextWorldId,
  };
  s.dispose();
  return { rec, names, info };
}
const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[s.length >> 1] : NaN; };
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const fmt = (p) => `(${p.map((x) => x.toFixed(3)).join(', ')})`;

console.log(`model ${path.basename(A.model)}, motion ${path.basename(A.vmd)}, frames 1..${A.frames}; ` +
  `VMD physics toggles forced on (${toggledOff} keys had been parsed as off)`);
const P = await trajectory('physics');
const N = await trajectory('nobuild');
const pi = P.names.indexOf(A.probe);
console.log(`rigid bodies in model: ${P.info.rigidBodies} (with physics), ${N.info.rigidBodies} (buildPhysics false)`);
console.log(`sanity: world position of ${A.probe} (wasm runtime)`);
console.log('  frame   with WASM Bullet              without physics               |diff|');
for (const f of [0, 10, 30, 100, 300, 1000, 2000, 2800]) {
  if (!P.rec.has(f)) continue;
  const a = P.rec.get(f)[pi], b = N.rec.get(f)[pi];
  console.log(`  ${String(f).padStart(5)}   ${fmt(a).padEnd(28)}  ${fmt(b).padEnd(28)}  ${dist(a, b).toFixed(3)}`);
}
{
  const d = [...P.rec.keys()].filter((f) => f > 0).map((f) => dist(P.rec.get(f)[pi], N.rec.get(f)[pi]));
  console.log(`  ${A.probe} physics vs no-physics over frames 10..: median ${median(d).toFixed(3)}, max ${Math.max(...d).toFixed(3)}`);
}
if (A.ref && fs.existsSync(A.ref)) {
  const ref = JSON.parse(fs.readFileSync(A.ref, 'utf8'));
  const refFrames = new Map(ref.modes.full.map((x) => [x.frame, x.bones]));
  const rIdx = new Map(ref.modes.full[0].bones.map((b, i) => [b.name, i]));
  // bones Bullet moves: reference differs from the no-physics pose by > 0.05 somewhere
  const moved = [];
  P.names.forEach((n, i) => {
    const ri = rIdx.get(n);
    if (ri === undefined) return;
    let m = 0;
    for (const [f, bones] of refFrames) if (N.rec.has(f)) m = Math.max(m, dist(bones[ri].world_t_mmd, N.rec.get(f)[i]));
    if (m > 0.05) moved.push(i);
  });
  const dp = [], dn = [], probeP = [], probeN = [];
  for (const [f, bones] of refFrames) {
    if (f === 0 || !P.rec.has(f)) continue;
    for (const i of moved) {
      const r = bones[rIdx.get(P.names[i])].world_t_mmd;
      const a = dist(P.rec.get(f)[i], r), b = dist(N.rec.get(f)[i], r);
      dp.push(a); dn.push(b);
      if (i === pi) { probeP.push(a); probeN.push(b); }
    }
  }
  console.log(`vs JS-runtime Bullet reference ${path.basename(A.ref)} (${refFrames.size} frames, ${moved.length} bones moved by physics):`);
  console.log(`  all moved bones: WASM+Bullet median ${median(dp).toFixed(3)} p90 ${pct(dp, 0.9).toFixed(3)} max ${Math.max(...dp).toFixed(3)}` +
    ` | no physics median ${median(dn).toFixed(3)} p90 ${pct(dn, 0.9).toFixed(3)} | ratio ${(median(dp) / median(dn)).toFixed(3)}`);
  if (probeP.length) console.log(`  ${A.probe}: WASM+Bullet median ${median(probeP).toFixed(3)} max ${Math.max(...probeP).toFixed(3)}` +
    ` | no physics median ${median(probeN).toFixed(3)} max ${Math.max(...probeN).toFixed(3)}`);
}

// ---- timing
async function time(label, mode, opts) {
  const s = await setup(mode, opts);
  const out = [];
  for (let rep = 0; rep < A.reps; rep++) {
    s.init(); // re-initialise physics (bodies to the animated pose at frame 0), untimed
    const t0 = process.hrtime.bigint();
    for (let f = 1; f <= A.frames; f++) s.step(f);
    const t1 = process.hrtime.bigint();
    const us = Number(t1 - t0) / 1000 / A.frames;
    out.push(us);
    console.log(`${label}: rep ${rep + 1}: ${us.toFixed(1)} us/frame over ${A.frames} frames`);
  }
  s.dispose();
  return out;
}
await time('WASM runtime (SPR) + WASM Bullet, 2 x 1/60 s substeps', 'physics');
await time('WASM runtime (SPR), buildPhysics: false (MmdWasmPhysics attached, empty world)', 'nobuild');
await time('WASM runtime (SPR), no physics object (physics = null)', 'nophys');
if (process.env.SUBSTEP_CHECK) await time('WASM runtime (SPR) + WASM Bullet, maxSubSteps 1 (check: 1 substep/frame)', 'physics', { maxSubSteps: 1 });
