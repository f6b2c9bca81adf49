#!/usr/bin/env node
// Where a pass's main-thread time goes outside the kernel's blocks (one thread, CPU ms, median of
// --runs after 3 warm-ups): the blocks alone, the reduction of their partials, the gate
// difficulties and their backward pass (core's difficulty.ts), core's finish (priors, free mask),
// and the standardisation's copy of x (a fresh array per pass before, one reused buffer now).
//   node bench/passParts.js [--items 2000] [--runs 15]        (--items 31554: paper scale)
import { performance } from 'node:perf_hooks';
import * as coreMain from '@llm-nrm/core';
import * as coreEngine from '@llm-nrm/core/engine';

const core = { ...coreMain, ...coreEngine };
import { wasmLlmNrmObjective } from '../dist/index.js';
import { LlmNrmKernel } from '../dist/internal/kernelHost.js';
import { opt } from './options.js';

const I = Number(opt('items', 2000));
const R = Number(opt('runs', 15));
const { bank } = core.simulateFleet({ models: 189, items: I, seed: 1 });
const layout = core.llmNrmLayout(bank, core.ALL_PARTS);
const x = core.initialParameters(bank, layout);
const g = new Float64Array(x.length);
const med = (a) => [...a].sort((p, q) => p - q)[a.length >> 1];
const rows = [];
function time(name, f) {
  for (let r = 0; r < 3; r++) f();
  const c = [];
  const w = [];
  for (let r = 0; r < R; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    f();
    w.push(performance.now() - t0);
    const d = process.cpuUsage(c0);
    c.push((d.user + d.system) / 1000);
  }
  rows.push({ part: name, cpuMs: +med(c).toFixed(3), wallMs: +med(w).toFixed(3) });
}
const obj = wasmLlmNrmObjective(bank, layout);
time('pass (wasm objective, 1 thread)', () => obj.lossAndGrad(x, g));
const k = new LlmNrmKernel(bank, layout, 'plain');
for (let t = 0; t < layout.sumK; t++) {
  k.acf[2 * t] = x[layout.a + t];
  k.acf[2 * t + 1] = x[layout.c + t];
}
const [b0, b1] = k.setPass(0, layout.nModels, x[layout.w0], core.softplus(x[layout.kbar]));
time('blocks', () => {
  for (let b = b0; b < b1; b++) k.exports.runBlock(k.header, b);
});
time('reduction (one thread)', () => k.reduce(b0, b1));
const b = new Float64Array(layout.nItems);
const aux = new Float64Array(3 * layout.nItems);
const wts = new Float64Array(layout.sumK);
time('gate difficulties', () => core.computeDifficulties(bank, x, layout.a, layout.c, b, aux, wts));
const gb = new Float64Array(layout.nItems).fill(0.1);
time('difficulties backward', () => core.difficultyBackward(bank, x, layout.a, gb, aux, wts, g, layout.c));
const free = core.freeMask(layout);
const prec = core.priorPrecisions({});
time('finishLlmNrmPass', () => core.finishLlmNrmPass(layout, x, g, free, prec, 0, {}));
time('standardised copy, fresh (before)', () => core.standardized(x, layout.nModels));
const st = core.standardizeTheta({ layout, free, lossAndGrad: () => 0 });
time('standardizeTheta, reused buffer', () => st.lossAndGrad(x, g));
console.table(rows);
console.log(JSON.stringify({ items: I, parameters: x.length, sumK: layout.sumK, blocks: k.blocks, rows }));
