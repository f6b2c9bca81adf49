#!/usr/bin/env node
// Cost of the theta standard errors (thetaStandardErrors with the item profile, as fit computes
// them) at the fit's optimum of a simulated fleet: CPU seconds (process.cpuUsage, so that other work
// on a shared machine counts less than in wall time), median of --runs, for the Fisher and the
// default 'quasi' SEs. The fit itself runs once, without SEs.
//   node bench/core/standardErrors.js [--models 189] [--items 2000] [--seed 7] [--runs 3] [--engine ts|wasm]
// --engine wasm fits on the WebAssembly kernel (2 threads; faster to the point, which differs from
// the ts fit's within the stopping rule): the SEs use its curvature (the cross blocks on the kernel) unless --ts-curvature is given.
// With --engine wasm it also prints the largest relative gap of the quasi SEs to those on core's
// TypeScript curvature (one more run).
// --save f.json / --load f.json keep the fitted point, so that before/after runs time the same SEs;
// --root /path/to/checkout times that checkout's built core (with --load; the ts engine).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { wasmEngine } from '@llm-nrm/engine-wasm';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const models = Number(opt('models', '189'));
const items = Number(opt('items', '2000'));
const seed = Number(opt('seed', '7'));
const runs = Number(opt('runs', '3'));
const root = opt('root', null);
const core = root === null ? await import('@llm-nrm/core') : await import(join(root, 'packages/core/dist/index.js'));

const f = core.simulateFleet({ models, items, seed });
const t0 = performance.now();
const w = opt('engine', 'ts') === 'wasm' && root === null ? wasmEngine({ threads: 2 }) : null;
const engine = w === null ? 'ts' : w.engine;
const load = opt('load', null);
const r = core.fit(f.bank, { standardErrors: false, engine, ...(load !== null ? { maxIterations: 1 } : {}) });
if (load !== null) r.x = Float64Array.from(JSON.parse(readFileSync(load, 'utf8')));
if (opt('save', null) !== null) writeFileSync(opt('save', null), JSON.stringify(Array.from(r.x)));
console.log(
  `${models} x ${items}, seed ${seed}: fit ${((performance.now() - t0) / 1000).toFixed(1)} s wall, ${r.passes} passes${load !== null ? `, point from ${load}` : ''}`,
);
const free = core.freeMask(r.layout);
const tsCurv = args.includes('--ts-curvature');
const curvature = w !== null && !tsCurv ? w.curvature(w.objective(r.bank, r.layout, r.priors)) : null;
const extra = curvature !== null ? { curvature } : {};
console.log(`curvature: ${curvature !== null ? 'the wasm kernel (cross blocks)' : "core's TypeScript llmNrmCurvature"}`);
let quasi;
for (const errorModel of ['fisher', 'quasi']) {
  const secs = [];
  const walls = [];
  let out;
  for (let k = 0; k < runs; k++) {
    const c0 = process.cpuUsage();
    const t1 = performance.now();
    out = core.thetaStandardErrors(r.family, r.bank, r.layout, r.x, free, r.priors, 0, { profileItems: true, errorModel, ...extra });
    walls.push((performance.now() - t1) / 1000);
    const c = process.cpuUsage(c0);
    secs.push((c.user + c.system) / 1e6);
  }
  secs.sort((a, b) => a - b);
  walls.sort((a, b) => a - b);
  const se = Array.from(out.se).sort((a, b) => a - b);
  console.log(
    `${errorModel.padEnd(6)} CPU s ${secs.map((s) => s.toFixed(2)).join(' ')} (median ${secs[Math.floor(runs / 2)].toFixed(2)}), wall median ${walls[Math.floor(runs / 2)].toFixed(2)} s; median SE ${se[Math.floor(se.length / 2)].toFixed(4)}, SE[0] ${out.se[0].toPrecision(12)}`,
  );
  quasi = out;
}
if (curvature !== null) {
  const ref = core.thetaStandardErrors(r.family, r.bank, r.layout, r.x, free, r.priors, 0, { profileItems: true, errorModel: 'quasi' });
  let worst = 0;
  for (let j = 0; j < ref.se.length; j++) worst = Math.max(worst, Math.abs(quasi.se[j] - ref.se[j]) / ref.se[j]);
  console.log(`quasi SEs against core's TypeScript curvature: largest relative gap ${worst.toExponential(2)}`);
}
w?.dispose?.();
process.exit(0);
