#!/usr/bin/env node
// The preconditioner's pair of block solves (an L-BFGS iteration's applyPair) at the blocks of a
// refresh of the wasm objective: on the pool's threads (blockApplyHost.ts) against core's
// TypeScript on the main thread, alternated, wall and process CPU ms per pair (median of --runs
// batches of --reps), and whether the two give the same bits.
//   node bench/blockApply.js [--items 31554] [--threads 2] [--runs 7] [--reps 10] [--gaps 0,0.2,1,10,60]
// --gaps: then, per gap, the main thread busy for that many ms before each pair (as between an
// optimiser's passes) and the share of the pair's tasks the workers ran: whether they wake late.
import { performance } from 'node:perf_hooks';
import * as coreMain from '@llm-nrm/core';
import * as coreEngine from '@llm-nrm/core/engine';

const core = { ...coreMain, ...coreEngine };
import { wasmLlmNrmObjective, wasmThreadPool } from '../dist/index.js';
import { opt, log } from './options.js';

const I = Number(opt('items', 31554));
const threads = Number(opt('threads', 2));
const runs = Number(opt('runs', 7));
const reps = Number(opt('reps', 10));
const { bank } = core.simulateFleet({ models: 189, items: I, seed: 1 });
const layout = core.llmNrmLayout(bank, core.ALL_PARTS);
const pool = threads > 1 ? wasmThreadPool(threads) : null;
const obj = wasmLlmNrmObjective(bank, layout, {}, pool !== null ? { pool } : { threads });
const x = core.initialParameters(bank, layout);
const n = layout.size;
let seed = 1;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5;
const v1 = Float64Array.from({ length: n }, rnd);
const v2 = Float64Array.from({ length: n }, rnd);
const o1 = new Float64Array(n);
const o2 = new Float64Array(n);
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
// Per round two refreshes' blocks: the first handed back to core's TypeScript, the second (the
// latest refresh, whose factors the pool's memory holds) solving on the pool.
function time(blocks) {
  for (let r = 0; r < 3; r++) blocks.applyPair(v1, o1, v2, o2);
  const w = [];
  const c = [];
  for (let r = 0; r < runs; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let k = 0; k < reps; k++) blocks.applyPair(v1, o1, v2, o2);
    w.push((performance.now() - t0) / reps);
    const d = process.cpuUsage(c0);
    c.push((d.user + d.system) / 1000 / reps);
  }
  return { wallMs: +med(w).toFixed(2), cpuMs: +med(c).toFixed(2), out: [Float64Array.from(o1), Float64Array.from(o2)] };
}
const rows = [];
let blocksN = 0;
for (let round = 0; round < 3; round++) {
  const ts = obj.curvature(x, obj.free).blocks;
  ts.setApplier(null);
  const pooled = obj.curvature(x, obj.free).blocks;
  blocksN = pooled.idx.length;
  const p = time(pooled);
  const t = time(ts);
  const same = p.out.every((a, k) => a.every((u, i) => Object.is(u, t.out[k][i])));
  rows.push({ round, poolWallMs: p.wallMs, poolCpuMs: p.cpuMs, tsWallMs: t.wallMs, tsCpuMs: t.cpuMs, sameBits: same });
}
log(`${I} items, ${blocksN} blocks, ${threads} threads`);
console.table(rows);
const gaps = opt('gaps', null);
if (gaps !== null && pool !== null) {
  const blocks = obj.curvature(x, obj.free).blocks;
  const wake = [];
  for (const gap of String(gaps).split(',').map(Number)) {
    let tasks = 0;
    let wall = 0;
    const R = gap >= 10 ? 20 : 100;
    for (let r = 0; r < R; r++) {
      const t = performance.now();
      while (performance.now() - t < gap);
      const b0 = pool.workerBlocks;
      const t0 = performance.now();
      blocks.applyPair(v1, o1, v2, o2);
      wall += performance.now() - t0;
      tasks += pool.workerBlocks - b0;
    }
    wake.push({ gapMs: gap, workerTasks: +(tasks / R).toFixed(1), wallMs: +(wall / R).toFixed(2) });
  }
  console.table(wake);
}
obj.dispose();
pool?.dispose();
