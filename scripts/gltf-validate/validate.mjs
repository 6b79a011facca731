// Khronos glTF validator on one file: `npm install && node validate.mjs FILE.glb` prints the
// error, warning and info counts and the first messages. Exits 1 when the file has errors.
import fs from 'node:fs';
import validator from 'gltf-validator';
const bytes = new Uint8Array(fs.readFileSync(process.argv[2]));
const r = await validator.validateBytes(bytes, { maxIssues: 50 });
console.log(JSON.stringify({ errors: r.issues.numErrors, warnings: r.issues.numWarnings, infos: r.issues.numInfos, messages: r.issues.messages.slice(0, 20).map(m => `${m.severity} ${m.code} ${m.pointer}: ${m.message}`) }, null, 1));
if (r.issues.numErrors > 0) process.exit(1);
