#!/usr/bin/env node
// EXPERIMENT, not adopted (packages/core/BENCHMARKS.md "The twin's memory and targets"): the twin
// started from its LLM-only twin (items held at the fit's estimate), against the default warm twin,
// the whole twin from x0 and, with --tight, a twin run to 0.001 SE.
//   node bench/core/twinStart.js [--items 31554] [--models 189] [--seed 1] [--threads 2] [--tight true]
import { performance } from 'node:perf_hooks';
import { wasmEngine } from '@llm-nrm/engine-wasm';
import * as core from '@llm-nrm/core';
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const w = wasmEngine({ threads: Number(opt('threads', 2)) });
const engine = w.engine;
const I = Number(opt('items', 31554));
const J = Number(opt('models', 189));
const f = core.simulateFleet({ models: J, items: I, seed: Number(opt('seed', 1)) });
let t = performance.now();
const r = core.fit(f.bank, { engine });
console.log(`full fit ${((performance.now() - t) / 1000).toFixed(1)} s; twin ${r.twin.passes} passes ${r.twin.seconds.toFixed(1)} s`);
const tb = core.twinBank(r.bank, r.layout, r.x);
const cmp = (name, x, passes, sec) => {
  let d = 0,
    dp = 0;
  for (let j = 0; j < J; j++) d = Math.max(d, Math.abs(x[j] - r.x[j] - r.twin.bias[j]) / r.se[j]);
  console.log(`${name}: ${passes} passes ${sec.toFixed(1)} s; max |b - b_default| / final SE ${d.toFixed(3)}`);
};
t = performance.now();
const s1 = core.fit(tb, { init: r.x, fixItems: true, identification: 'standardize', standardErrors: false, distanceTolerance: 0.1, engine });
cmp('LLM-only twin', s1.x, s1.passes, (performance.now() - t) / 1000);
t = performance.now();
const a = core.fit(tb, { init: r.x, standardErrors: false, distanceTolerance: 0.1, engine });
cmp('whole twin from x0', a.x, a.passes, (performance.now() - t) / 1000);
t = performance.now();
const b = core.fit(tb, { init: s1.x, standardErrors: false, distanceTolerance: 0.1, engine });
cmp('whole twin from the LLM-only twin', b.x, b.passes, (performance.now() - t) / 1000);
if (opt('tight', 'false') !== 'false') {
  t = performance.now();
  const c = core.fit(tb, { init: b.x, standardErrors: false, distanceTolerance: 0.001, engine });
  cmp('tight (0.001) twin', c.x, c.passes, (performance.now() - t) / 1000);
  for (const [n, x] of [
    ['default', null],
    ['whole x0', a.x],
    ['whole LLM-only', b.x],
    ['LLM-only', s1.x],
  ]) {
    let d = 0;
    for (let j = 0; j < J; j++) d = Math.max(d, Math.abs((x ? x[j] - r.x[j] : r.twin.bias[j]) - (c.x[j] - r.x[j])) / r.se[j]);
    console.log(`  ${n}: max gap to tight / final SE ${d.toFixed(3)}`);
  }
}
w.dispose?.();
process.exit(0);
