import { readFileSync } from 'node:fs';
import * as core from '@llm-nrm/core';
import { wasmEngine } from './dist/index.js';
const { bank } = core.simulateFleet({ models: 189, items: 2000, seed: 6, noise: 1, hard: 0.2, missing: 0.1 });
const w = wasmEngine({ threads: 2 });
const engine = { name: 'wasm', objective: (b, f, p) => w.objective(b, f.layout(b), p), curvature: (_b, _f, _p, o) => w.curvature(o) };
const x6 = Float64Array.from(JSON.parse(readFileSync('/tmp/wc/x6.json', 'utf8')));
const L = core.llmNrmLayout(core.getFamily('llm-nrm').prepare(bank), core.ALL_PARTS);
const ts = core.llmNrmObjective(bank, L, {});
const lf = (x) => ts.lossAndGrad(x, new Float64Array(x.length));
const variants = [
  ['kbar +0.4', (x) => { x[L.kbar] += 0.4; }],
];
for (const [name, f] of variants) {
  const x = Float64Array.from(x6); f(x);
  const r = core.fit(bank, { engine, standardErrors: false, init: x });
  console.error(name, lf(r.x).toFixed(2), r.passes, r.reason, 'theta115', r.x[L.theta + 115].toFixed(3), 'kbar', r.x[L.kbar].toFixed(3), 'w0', r.x[L.w0].toFixed(3), 'delta115', Array.from(r.x.slice(L.delta + 1150, L.delta + 1154), (v) => v.toFixed(2)).join(' '), 'orig delta', Array.from(x6.slice(L.delta + 1150, L.delta + 1154), (v) => v.toFixed(2)).join(' '));
}
w.dispose();
