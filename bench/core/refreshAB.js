#!/usr/bin/env node
// One curvature refresh of the wasm objective at paper scale (189 x 31,554, seed 1, the start point
// with the gate open), two checkouts in one process, alternated refresh by refresh so that both see
// the same load on a shared machine: median and min of the wall time and of the process CPU (all
// threads) per refresh, after a warm-up. Both checkouts built.
//   node bench/core/refreshAB.js /path/to/A /path/to/B [threads = 2] [runs = 10]
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { coreOf } from './coreOf.js';
const [ra, rb, threadsArg, runsArg] = process.argv.slice(2);
const threads = Number(threadsArg ?? 2),
  runs = Number(runsArg ?? 10);
async function setup(root) {
  const core = await coreOf(root);
  const wasm = await import(join(root, 'packages/engine-wasm/dist/index.js'));
  const { bank } = core.simulateFleet({ models: 189, items: 31554, seed: 1 });
  const layout = core.llmNrmLayout(bank, core.ALL_PARTS);
  const x = core.initialParameters(bank, layout);
  x[layout.w0] = -1;
  const free = core.freeMask(layout);
  const pool = threads > 1 ? wasm.wasmThreadPool(threads) : undefined;
  const o = wasm.wasmLlmNrmObjective(bank, layout, {}, pool ? { pool } : {});
  if (pool) for (const until = Date.now() + 5000; pool.workerBlocks === 0 && Date.now() < until;) o.curvature(x, free);
  o.curvature(x, free);
  return () => o.curvature(x, free);
}
const A = await setup(ra),
  B = await setup(rb);
const res = { A: { w: [], c: [] }, B: { w: [], c: [] } };
for (let r = 0; r < runs; r++)
  for (const [k, f] of r % 2
    ? [
        ['B', B],
        ['A', A],
      ]
    : [
        ['A', A],
        ['B', B],
      ]) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    f();
    const w = performance.now() - t0;
    const u = process.cpuUsage(c0);
    res[k].w.push(w);
    res[k].c.push((u.user + u.system) / 1000);
  }
const med = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
for (const k of ['A', 'B'])
  console.log(
    k,
    k === 'A' ? ra : rb,
    `threads ${threads}: wall median ${med(res[k].w).toFixed(1)} min ${Math.min(...res[k].w).toFixed(1)} ms, CPU median ${med(res[k].c).toFixed(1)} min ${Math.min(...res[k].c).toFixed(1)} ms`,
  );
process.exit(0);
