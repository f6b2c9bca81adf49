#!/usr/bin/env node
// One refresh of the block Gauss-Newton preconditioner (the cell sums and the factorised blocks):
// core's TypeScript llmNrmCurvature against the wasm kernel's curvature on 1 and more threads
// (plain node on the built dist: `npm run build` first).
//
//   node bench/curvature.js                           189 x 2,000 (seed 1): ts, wasm-1, wasm-2
//   node bench/curvature.js --items 31554 --runs 3    paper scale
//   options: --models J --items I --seed S --runs R --threads 1,2 --engines ts,wasm,wasm64
// wasm: the refresh's default f32 lanes (assembly/curvature4.ts); wasm64: its scalar f64 passes
// (curvaturePrecision 'f64', assembly/curvature.ts), what every refresh ran before the lanes.
//
// Prints per engine the median and min wall time of R refreshes (after 1 warm-up) at the start
// point, the median CPU time of the process over a refresh (on a shared machine: how much of the
// wall time it really ran), and the largest gap of the wasm blocks to the TypeScript ones.
import { performance } from 'node:perf_hooks';
import * as coreMain from '@llm-nrm/core';
import * as coreEngine from '@llm-nrm/core/engine';

const core = { ...coreMain, ...coreEngine };
import { wasmLlmNrmObjective, wasmThreadPool } from '../dist/index.js';
import { log, median, opt } from './options.js';

const J = Number(opt('models', 189));
const I = Number(opt('items', 2000));
const seed = Number(opt('seed', 1));
const runs = Number(opt('runs', 5));
const threadList = String(opt('threads', '1,2')).split(',').map(Number);
const engines = String(opt('engines', 'ts,wasm64,wasm')).split(',');

const { bank } = core.simulateFleet({ models: J, items: I, seed });
const layout = core.llmNrmLayout(bank, core.ALL_PARTS);
const x = core.initialParameters(bank, layout);
// A point off the start (the gate open somewhere), as a fit's refreshes see it.
x[layout.w0] = -1;
const free = core.freeMask(layout);
log(`simulated ${J} x ${I} (seed ${seed})`);

function time(name, at) {
  let c = at(x, free);
  const ts = [];
  const cpu = [];
  for (let r = 0; r < runs; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    c = at(x, free);
    ts.push(performance.now() - t0);
    const u = process.cpuUsage(c0);
    cpu.push((u.user + u.system) / 1000);
  }
  return { name, med: median(ts), min: Math.min(...ts), cpu: median(cpu), c };
}

function gap(a, b) {
  let worst = 0;
  for (let k = 0; k < a.blocks.chol.length; k++) {
    const x1 = a.blocks.chol[k];
    const x2 = b.blocks.chol[k];
    let m = 0;
    for (const v of x1) m = Math.max(m, Math.abs(v));
    for (let t = 0; t < x1.length; t++) worst = Math.max(worst, Math.abs(x1[t] - x2[t]) / (m + 1e-300));
  }
  return worst;
}

const rows = [];
if (engines.includes('ts')) rows.push(time('ts', core.getFamily('llm-nrm', layout.parts).curvature(bank, layout, {})));
for (const [name, curvaturePrecision] of [
  ['wasm64', 'f64'],
  ['wasm', 'f32'],
]) {
  if (!engines.includes(name)) continue;
  for (const threads of threadList) {
    const pool = threads > 1 ? wasmThreadPool(threads) : undefined;
    const o = wasmLlmNrmObjective(bank, layout, {}, { curvaturePrecision, ...(pool ? { pool } : {}) });
    // Let the workers start (they receive the kernel asynchronously).
    if (pool) for (const until = Date.now() + 5000; pool.workerBlocks === 0 && Date.now() < until;) o.curvature(x, free);
    rows.push(time(`${name}-${threads}`, (xx, ff) => o.curvature(xx, ff)));
    o.dispose();
    pool?.dispose();
  }
}
const ref = rows.find((r) => r.name === 'ts');
for (const r of rows) {
  const g = ref && r !== ref ? `  max block gap ${gap(ref.c, r.c).toExponential(1)}` : '';
  console.log(
    `${r.name.padEnd(8)} median ${r.med.toFixed(1).padStart(7)} ms  min ${r.min.toFixed(1).padStart(7)} ms  cpu ${r.cpu.toFixed(0).padStart(6)} ms${g}`,
  );
}
