// sinew against its npm peers on the same machine, in one invocation, interleaved: each round
// runs sinew's criterion benches for the workloads, then the peers (peers.mjs) on the same
// work; the table gives medians over the rounds and the ratio peer ÷ sinew per round (its
// median), so a machine that drifts between minutes moves both sides of a ratio alike.
//
// Called by `bench/peers/run` (which installs the peers and exports the IK cases):
//   node --import ./register-hook.mjs harness.mjs --repo DIR --shared DIR --cases FILE
//        [--rounds 3] [--quick] [--markdown FILE]

import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

import { criterionResults } from '../criterion.mjs';

const A = { repo: '', shared: '', cases: '', rounds: 3, quick: false, markdown: '' };
for (let i = 2; i < process.argv.length; i++) {
  const k = process.argv[i].replace(/^--/, '');
  if (!(k in A)) throw new Error('unknown arg ' + process.argv[i]);
  if (typeof A[k] === 'boolean') A[k] = true;
  else { const v = process.argv[++i]; A[k] = typeof A[k] === 'number' ? Number(v) : v; }
}
const criterionDir = path.join(process.env.CARGO_TARGET_DIR ?? path.join(A.repo, 'target'), 'criterion');

// sinew's side: criterion benches (crate, bench target, filter, full id) per workload.
// A workload may have several sinew rows (`label`): the MMD frame through one `Character` in
// stages (what sinew runs for miku_v2 and every model without a `StagedGap`) and bone by bone in
// MMD's evaluation order (what it runs for a model with gaps).
const SINEW = [
  { workload: 'mmd-frame', label: 'Character, staged', crate: 'sinew-character', bench: 'character', filter: 'advancing 1 frame',
    id: 'frame/miku_v2 + wavefile_v2 Character, sample + morphs + IK + append, advancing 1 frame', unit: 'µs/frame' },
  { workload: 'mmd-frame', label: 'Character, bone by bone', crate: 'sinew-character', bench: 'character', filter: 'advancing 1 frame',
    id: 'frame/miku_v2 + wavefile_v2 Character bone by bone, sample + morphs + IK + append, advancing 1 frame', unit: 'µs/frame' },
  { workload: 'mmd-frame-physics', crate: 'sinew-character', bench: 'character', filter: 'mmd_frame_with_physics',
    id: 'mmd_frame_with_physics_miku_v2_wavefile_30fps_2x60hz', unit: 'µs/frame' },
  // The CCD cases one chain at a time (`solve_ccd`), and all 1,024 chains pushed into one
  // `CcdBatch` and solved in SIMD lanes (the same bits per chain); a batch row's time is the
  // criterion median of the whole batch ÷ `per`.
  { workload: 'ccd-leg', label: 'one chain', crate: 'sinew-ik', bench: 'ik', filter: 'ccd/mmd_leg',
    id: 'ccd/mmd_leg_2_links_knee_limit_it40_random', quality: 'ccd/mmd_leg', unit: 'µs/solve' },
  { workload: 'ccd-leg', label: 'CcdBatch of 1,024', crate: 'sinew-ik', bench: 'ik', filter: 'ccd/mmd_leg',
    id: 'ccd/mmd_leg_batch_of_1024_it40_random', quality: 'ccd/mmd_leg_batch', per: 1024, unit: 'µs/solve' },
  { workload: 'ccd10', label: 'one chain', crate: 'sinew-ik', bench: 'ik', filter: 'ccd/10_links',
    id: 'ccd/10_links_it10_random', quality: 'ccd/10_links', unit: 'µs/solve' },
  { workload: 'ccd10', label: 'CcdBatch of 1,024', crate: 'sinew-ik', bench: 'ik', filter: 'ccd/10_links',
    id: 'ccd/10_links_batch_of_1024_it10_random', quality: 'ccd/10_links_batch', per: 1024, unit: 'µs/solve' },
];
const timing = A.quick ? ['--warm-up-time', '1', '--measurement-time', '2'] : ['--warm-up-time', '2', '--measurement-time', '5'];

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
  if (r.status !== 0) {
    process.stderr.write(r.stdout ?? '');
    process.stderr.write(r.stderr ?? '');
    throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status}`);
  }
  return r;
}

/** Criterion's median (ns) of the bench whose full id is `id`. */
function criterionMedian(id) {
  const row = criterionResults(criterionDir).find((r) => r.id === id);
  if (!row) throw new Error(`no criterion result for "${id}" under ${criterionDir}`);
  return row.ns;
}

/** The quality line the ik bench prints before timing a case ("ccd/mmd_leg: within 1e-3 L 83.1%"). */
function ikQuality(stderr, key) {
  if (!key) return undefined;
  const m = stderr.split('\n').find((l) => l.startsWith(key + ':'));
  const pct = m && m.match(/([0-9.]+)%/);
  return pct ? Number(pct[1]) / 100 : undefined;
}

function sinewRound() {
  const out = [];
  const groups = new Map();
  for (const s of SINEW) {
    const key = `${s.crate}/${s.bench}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(s);
  }
  for (const [, list] of groups) {
    const { crate, bench } = list[0];
    const filter = [...new Set(list.map((s) => s.filter.replace(/[+()]/g, '.')))].join('|');
    const r = run('cargo', ['bench', '-q', '-p', crate, '--bench', bench, '--', ...timing, filter],
      { cwd: A.repo, env: { ...process.env, SINEW_ASSETS: path.join(A.shared, 'assets') } });
    for (const s of list) {
      out.push({ workload: s.workload, label: s.label ?? '', us: criterionMedian(s.id) / 1000 / (s.per ?? 1), quality: ikQuality(r.stderr, s.quality) });
    }
  }
  return out;
}

function peersRound() {
  const r = run('node', ['--import', './register-hook.mjs', 'peers.mjs',
    '--shared', A.shared, '--cases', A.cases, '--reps', A.quick ? '3' : '5'], { cwd: process.cwd() });
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l));
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
const rows = new Map(); // key workload|peer -> { sinew: [], peer: [], ratios: [] ... }
for (let round = 1; round <= A.rounds; round++) {
  process.stderr.write(`round ${round}/${A.rounds}: sinew (criterion) …\n`);
  const s = sinewRound();
  process.stderr.write(`round ${round}/${A.rounds}: peers …\n`);
  const p = peersRound();
  for (const q of p) {
    for (const mine of s.filter((x) => x.workload === q.workload)) {
      const key = `${q.workload}|${mine.label}|${q.peer}`;
      const workload = mine.label ? `${q.workload} (${mine.label})` : q.workload;
      if (!rows.has(key)) rows.set(key, { workload, peer: q.peer, unit: q.unit, conditions: q.conditions, sinew: [], them: [], ratio: [], sq: [], pq: [] });
      const row = rows.get(key);
      row.sinew.push(mine.us);
      row.them.push(q.median);
      row.ratio.push(q.median / mine.us);
      if (mine.quality !== undefined) row.sq.push(mine.quality);
      if (q.quality !== undefined) row.pq.push(q.quality);
    }
  }
}

const cpu = (() => {
  try {
    const info = fs.readFileSync('/proc/cpuinfo', 'utf8');
    return (info.match(/model name\s*:\s*(.*)/) || [])[1] ?? 'unknown CPU';
  } catch { return 'unknown CPU'; }
})();
const pct = (q) => (q === undefined ? '' : ` (${(100 * q).toFixed(1)} % solved)`);
const f = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const lines = [
  `Peers side by side — ${new Date().toISOString().slice(0, 10)}, ${cpu}, ${A.rounds} rounds` +
    ` (sinew: criterion medians; peers: medians of ${A.quick ? 3 : 5} passes), ratio = peer ÷ sinew (median of the rounds' ratios)`,
  '',
  '| workload | peer | sinew | peer time | ratio | conditions |',
  '|---|---|---|---|---|---|',
];
for (const r of rows.values()) {
  const sq = r.sq.length ? median(r.sq) : undefined;
  const pq = r.pq.length ? median(r.pq) : undefined;
  lines.push(`| ${r.workload} | ${r.peer} | ${f(median(r.sinew))} ${r.unit}${pct(sq)} | ${f(median(r.them))} ${r.unit}${pct(pq)} | **${median(r.ratio).toFixed(1)}×** | ${r.conditions} |`);
}
const text = lines.join('\n');
console.log(text);
if (A.markdown) fs.writeFileSync(A.markdown, text + '\n');
