// Criterion's own results under a target directory: every `…/new/{benchmark,estimates}.json`
// pair, shared by `current.mjs` (the current-figures table) and `peers/harness.mjs`.

import fs from 'node:fs';
import path from 'node:path';

/** `{ id, ns (median), throughput, mtimeMs }` of every result under `criterionDir`. */
export function criterionResults(criterionDir) {
  const rows = [];
  if (!fs.existsSync(criterionDir)) return rows;
  const stack = [criterionDir];
  while (stack.length) {
    const d = stack.pop();
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.name === 'estimates.json' && path.basename(d) === 'new') {
        const b = JSON.parse(fs.readFileSync(path.join(d, 'benchmark.json'), 'utf8'));
        const est = JSON.parse(fs.readFileSync(p, 'utf8'));
        rows.push({ id: b.full_id, ns: est.median.point_estimate, throughput: b.throughput, mtimeMs: fs.statSync(p).mtimeMs });
      }
    }
  }
  return rows;
}
