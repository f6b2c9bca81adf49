#!/usr/bin/env node
// The default fit at paper scale (189 x 31,554, the paper's option mix; simulateFleet, seed 1):
// core's `fit` (L-BFGS, SE stopping rule, standard errors) on the wasm engine with its curvature,
// the bank built in memory (a JSONL file of that size is 1.2 GB). Run under /usr/bin/time -v for
// the peak RSS of the whole process.
//   /usr/bin/time -v node bench/paper.js [--items 31554] [--seed 1] [--threads 2] [--se false]
import { performance } from 'node:perf_hooks';
import * as core from '@llm-nrm/core';
import { wasmEngine } from '../dist/index.js';
import { opt, log } from './options.js';

const I = Number(opt('items', 31554));
const J = Number(opt('models', 189));
const threads = Number(opt('threads', 2));
const se = opt('se', 'true') !== 'false';
let t = performance.now();
const { bank } = core.simulateFleet({ models: J, items: I, seed: Number(opt('seed', 1)) });
log(`simulated ${J} x ${I} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
const w = wasmEngine({ threads });
const engine = { name: 'wasm', objective: (b, f, p) => w.objective(b, f.layout(b), p), curvature: (_b, _f, _p, o) => w.curvature(o) };
t = performance.now();
const cpu0 = process.cpuUsage();
const r = core.fit(bank, {
  engine,
  standardErrors: se,
  onProgress: (p) => log(`  iteration ${p.iteration}, ${p.passes} passes, loss ${p.loss.toFixed(2)}, ${p.seconds.toFixed(0)} s`),
});
const total = (performance.now() - t) / 1000;
const cpu = process.cpuUsage(cpu0);
const rss = process.resourceUsage().maxRSS / 1024;
console.log(
  JSON.stringify({
    models: J,
    items: I,
    threads,
    loss: r.loss,
    passes: r.passes,
    iterations: r.iterations,
    reason: r.reason,
    converged: r.converged,
    distance: r.distance,
    optimizerSeconds: r.seconds,
    fitSeconds: total,
    seSeconds: total - r.seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    standardErrors: se,
    peakRssMiB: Math.round(rss),
  }),
);
w.dispose();
