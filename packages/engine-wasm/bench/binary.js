#!/usr/bin/env node
// One pass (loss + gradient) of the binary objectives 1PL-4PL at a CV fold's size: core's TypeScript
// cell pass (ts) against the wasm binary kernel (assembly/binary.ts): its phased pass (wasm: the
// engine's default, core's bits) and its f64x2 pass with its own exp and log (wasm-simd, opt-in: not
// core's bits). Plain node on the built dist
// (`npm run build` first).
//
//   node packages/engine-wasm/bench/binary.js [--models 189] [--items 2000] [--seed 7] [--runs 15] [--families 1,2,3,4] [--kernels ts,wasm,wasm-simd]
//
// The bank is a simulated fleet with a fifth of its cells held out (the training cells of one fold
// of `evaluate --cv 5`). The kernels are timed round robin (one pass of each per run, after 3
// warm-ups), so a shared machine's load falls on all alike. Prints per family and kernel the median
// wall ms and CPU ms of --runs passes, the median over runs of the CPU ratio to the first kernel (ts),
// and whether loss and gradient are core's bits (gradient entries that differ, largest relative gap).
import { performance } from 'node:perf_hooks';
import * as coreMain from '@llm-nrm/core';
import * as coreEngine from '@llm-nrm/core/engine';

const core = { ...coreMain, ...coreEngine };
import { wasmBinaryKernel } from '../dist/internal/binaryKernel.js';
import { log, median, num, opt } from './options.js';

const J = num('models', 189);
const I = num('items', 2000);
const seed = num('seed', 7);
const runs = num('runs', 15);
const families = String(opt('families', '1,2,3,4')).split(',').map(Number);
const kernels = String(opt('kernels', 'ts,wasm,wasm-simd')).split(',');

const { bank: full } = core.simulateFleet({ models: J, items: I, seed });
const mask = new Uint8Array(J * full.colItem.length).map((_, t) => ((t * 7919) % 5 === 2 ? 0 : 1));
const bank = core.withObserved(full, mask);
const y = core.correctness(bank);
let cells = 0;
for (const v of y) if (v !== 255) cells++;
log(`binary pass at ${J} x ${I} (seed ${seed}), a fifth held out: ${cells.toLocaleString('en')} observed cells; ${runs} timed passes per kernel`);
const factories = {
  ts: undefined,
  wasm: (c) => wasmBinaryKernel(c),
  'wasm-simd': (c) => wasmBinaryKernel(c, { pass: 'simd' }),
};

/** One timed pass: wall ms, CPU ms, loss. */
function once(obj, x, g) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const loss = obj.lossAndGrad(x, g);
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1000, loss };
}

const rows = [];
for (const pl of families) {
  const layout = core.binaryLayout(bank, pl);
  const x = core.initialParameters(bank, layout);
  for (let t = 0; t < x.length; t++) x[t] += 0.3 * Math.sin(1.7 * t);
  const objs = kernels.map((name) => {
    const kernel = factories[name];
    return { name, obj: core.binaryObjective(bank, layout, y, {}, kernel ? { kernel } : {}), g: new Float64Array(layout.size), walls: [], cpus: [], loss: 0 };
  });
  for (const o of objs) for (let r = 0; r < 3; r++) o.obj.lossAndGrad(x, o.g);
  // Round robin: each run times every kernel once, so the load of a shared machine falls on all of
  // them alike; the speed-up is the median over runs of each run's CPU ratio to ts.
  const ratios = objs.map(() => []);
  for (let r = 0; r < runs; r++) {
    const t = objs.map((o) => once(o.obj, x, o.g));
    t.forEach((v, k) => {
      objs[k].walls.push(v.wall);
      objs[k].cpus.push(v.cpu);
      objs[k].loss = v.loss;
      ratios[k].push(t[0].cpu / v.cpu);
    });
  }
  const ref = objs[0];
  objs.forEach((o, k) => {
    let differ = 0;
    let rel = 0;
    for (let t = 0; t < o.g.length; t++) {
      if (Object.is(o.g[t], ref.g[t])) continue;
      differ++;
      rel = Math.max(rel, Math.abs(o.g[t] - ref.g[t]) / Math.max(Math.abs(ref.g[t]), 1e-300));
    }
    const row = {
      family: `${pl}PL`,
      kernel: o.name,
      wallMs: +median(o.walls).toFixed(2),
      cpuMs: +median(o.cpus).toFixed(2),
      speedup: +median(ratios[k]).toFixed(2),
      sameLoss: Object.is(o.loss, ref.loss),
      gradDiffer: differ,
      maxRelDiff: rel,
    };
    rows.push(row);
    log(
      `${row.family} ${o.name.padEnd(11)} ${row.wallMs.toFixed(2).padStart(7)} ms wall, ${row.cpuMs.toFixed(2).padStart(7)} ms CPU (x${row.speedup.toFixed(2)} vs ${ref.name}); ` +
        `loss ${row.sameLoss ? 'same bits' : `differs (${((o.loss - ref.loss) / ref.loss).toExponential(2)} rel)`}, gradient ${differ} of ${o.g.length} entries differ (max rel ${rel.toExponential(1)})`,
    );
  });
}
process.stdout.write(`${JSON.stringify({ models: J, items: I, seed, cells, runs, rows }, null, 2)}\n`);
