#!/usr/bin/env node
// CPU per curvature refresh (the wasm kernel's cell sums on one thread, core's block assembly and
// factorisation, and the first apply that packs the blocks) at 189 x 2,000, seed 7, the start point
// with the gate open (w0 = -1): median and min of 30 after 10 warm-ups. One checkout per process;
// alternate two (--root) for a before/after on a shared machine.
//   node bench/core/refreshCpu.js [/path/to/checkout]   (default: this one)
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { coreOf } from './coreOf.js';
const root = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '../..');
const core = await coreOf(root);
const wasm = await import(join(root, 'packages/engine-wasm/dist/index.js'));
const f = core.simulateFleet({ models: 189, items: 2000, seed: 7 });
const layout = core.llmNrmLayout(f.bank, core.ALL_PARTS);
const x = core.initialParameters(f.bank, layout);
x[layout.w0] = -1;
const free = core.freeMask(layout);
const obj = wasm.wasmLlmNrmObjective(f.bank, layout, {}, { threads: 1 });
const v = new Float64Array(layout.size).fill(1),
  out = new Float64Array(layout.size);
for (let r = 0; r < 10; r++) obj.curvature(x, free).blocks.apply(v, out);
const ts = [];
for (let r = 0; r < 30; r++) {
  const c0 = process.cpuUsage();
  obj.curvature(x, free).blocks.apply(v, out);
  const u = process.cpuUsage(c0);
  ts.push((u.user + u.system) / 1000);
}
ts.sort((a, b) => a - b);
console.log(root.padEnd(16), 'refresh + first apply CPU-ms median', ts[15].toFixed(1), 'min', ts[0].toFixed(1));
process.exit(0);
