// node trim.mjs IN.json OUT.json: keep per frame each bone's world_t_mmd (1e-5), world_q_mmd (1e-6)
import fs from 'node:fs';
const [inp, out] = process.argv.slice(2);
const d = JSON.parse(fs.readFileSync(inp, 'utf8'));
const r = (x, s) => Math.round(x * s) / s;
d.modes.full = d.modes.full.map((f) => ({
  frame: f.frame,
  bones: f.bones.map((b) => ({
    name: b.name,
    world_t_mmd: b.world_t_mmd.map((x) => r(x, 1e5)),
    world_q_mmd: b.world_q_mmd.map((x) => r(x, 1e6)),
  })),
}));
fs.writeFileSync(out, JSON.stringify(d) + '\n');
