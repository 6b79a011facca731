// Every criterion bench of the workspace, one bench target after the other, as the markdown
// table of BENCHMARKS.md's "Current figures": bench file, criterion id, median (and per
// element where the bench sets a throughput).
//
//   node bench/current.mjs [--quick] > /tmp/current.md      (≈ 15 minutes; --quick ≈ 6)
//
// Reads criterion's own results (`target/criterion/**/new/{benchmark,estimates}.json`) written
// during each target's run, so the figures are exactly what criterion reported.

import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

import { criterionResults } from './criterion.mjs';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const quick = process.argv.includes('--quick');
const timing = quick
  ? ['--warm-up-time', '0.5', '--measurement-time', '1']
  : ['--warm-up-time', '1', '--measurement-time', '3'];
const criterionDir = path.join(process.env.CARGO_TARGET_DIR ?? path.join(repo, 'target'), 'criterion');

/** `[crate, bench target]` of every `[[bench]]` in the workspace's crates. */
function targets() {
  const out = [];
  const crates = path.join(repo, 'crates');
  for (const c of fs.readdirSync(crates).sort()) {
    const manifest = path.join(crates, c, 'Cargo.toml');
    if (!fs.existsSync(manifest)) continue;
    const text = fs.readFileSync(manifest, 'utf8');
    const name = (text.match(/^name\s*=\s*"([^"]+)"/m) || [])[1];
    for (const m of text.matchAll(/\[\[bench\]\]\s*\nname\s*=\s*"([^"]+)"/g)) out.push([name, m[1]]);
  }
  return out;
}

/** Criterion results written after `since` (ms). */
function resultsSince(since) {
  return criterionResults(criterionDir)
    .filter((r) => r.mtimeMs >= since)
    .sort((a, b) => a.id.localeCompare(b.id));
}

function time(ns) {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(1)} ns`;
}

const lines = ['| bench file | workload | median |', '|---|---|---|'];
for (const [crate, bench] of targets()) {
  process.stderr.write(`${crate} / ${bench} …\n`);
  const since = Date.now();
  const r = spawnSync('cargo', ['bench', '-q', '-p', crate, '--bench', bench, '--', ...timing], {
    cwd: repo,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`cargo bench -p ${crate} --bench ${bench} exited with ${r.status}`);
  for (const row of resultsSince(since)) {
    const n = row.throughput?.Elements ?? row.throughput?.Bytes;
    const per = row.throughput?.Elements
      ? ` (${(row.ns / n).toFixed(2)} ns/element)`
      : row.throughput?.Bytes
        ? ` (${(n / row.ns).toFixed(2)} GB/s)`
        : '';
    lines.push(`| ${bench} | ${row.id} | ${time(row.ns)}${per} |`);
  }
}
process.stdout.write(lines.join('\n') + '\n');
