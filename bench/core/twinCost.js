#!/usr/bin/env node
// Cost of the 'twin' SE mode (FitOptions.seMode 'twin') on one simulated fleet, in process: the fit's
// passes and seconds, the twin's, and CPU seconds of the whole call (process.cpuUsage, every thread);
// and how far the twin of a whole fit of the twin bank (the mode's way before the twincheap branch),
// stopped at 0.1 or 0.3 SE, lands from the one fit runs.
//   node bench/core/twinCost.js [models=100] [items=200] [seed=200100] [--engine ts|wasm] [--threads 2] [--runs 1] [--no-check]
import { wasmEngine } from '@llm-nrm/engine-wasm';
import * as coreMain from '@llm-nrm/core';
import * as coreEngine from '@llm-nrm/core/engine';

const core = { ...coreMain, ...coreEngine };
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const pos = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--')));
const [models, items, seed] = [pos[0] ?? 100, pos[1] ?? 200, pos[2] ?? 200100].map(Number);
const w = opt('engine', 'ts') === 'wasm' ? wasmEngine({ threads: Number(opt('threads', 2)) }) : null;
const engine = w === null ? 'ts' : w.engine;
const f = core.simulateFleet({ models, items, seed });
// --runs N: N calls of each mode, alternated (quasi first in odd runs), medians; the twin's CPU is
// the twin call's less the quasi call's (the same fit, SEs and all but the twin's refit).
const runs = Number(opt('runs', 1));
const cpuOf = (mode) => {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = core.fit(f.bank, { seMode: mode, engine });
  const wall = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  return { r, wall, cpu: (c.user + c.system) / 1e6 };
};
const got = { quasi: [], twin: [] };
for (let k = 0; k < runs; k++) for (const mode of k % 2 === 0 ? ['quasi', 'twin'] : ['twin', 'quasi']) got[mode].push(cpuOf(mode));
const med = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const r = got.twin[0].r;
const cpuT = med(got.twin.map((g) => g.cpu));
const cpuQ = med(got.quasi.map((g) => g.cpu));
console.log(
  `${models} x ${items} seed ${seed}, engine ${opt('engine', 'ts')}: fit ${r.passes} passes ${r.seconds.toFixed(1)} s; twin ${r.twin.passes} passes ${med(got.twin.map((g) => g.r.twin.seconds)).toFixed(2)} s (median of ${runs}); ` +
    `the call with SEs ${med(got.twin.map((g) => g.wall)).toFixed(1)} s wall, ${cpuT.toFixed(2)} CPU-s ('quasi': ${cpuQ.toFixed(2)}); the twin ${(cpuT - cpuQ).toFixed(2)} CPU-s, ${((100 * (cpuT - cpuQ)) / cpuT).toFixed(1)}% of the call's CPU`,
);
if (!args.includes('--no-check')) {
  for (const tol of [0.1, 0.3]) {
    const tw = core.fit(core.twinBank(r.bank, r.layout, r.x), { init: r.x, standardErrors: false, distanceTolerance: tol, engine });
    let d = 0;
    for (let j = 0; j < models; j++) d = Math.max(d, Math.abs(tw.x[j] - r.x[j] - r.twin.bias[j]) / r.se[j]);
    console.log(`twin at distanceTolerance ${tol}: ${tw.passes} passes, max |bias difference| / SE ${d.toFixed(3)}`);
  }
}
w?.close?.();
process.exit(0);
