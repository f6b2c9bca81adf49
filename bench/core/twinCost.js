#!/usr/bin/env node
// Cost of the 'twin' SE mode (FitOptions.seMode 'twin') on one simulated fleet, in process: the fit's
// passes and seconds, the twin's, and CPU seconds of the whole call (process.cpuUsage, every thread);
// and how far a twin stopped at 0.1 or 0.3 SE lands from the one fit runs.
//   node bench/core/twinCost.js [models=100] [items=200] [seed=200100] [--engine ts|wasm] [--threads 2]
import { wasmEngine } from '@llm-nrm/engine-wasm';
import * as core from '@llm-nrm/core';
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const pos = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--')));
const [models, items, seed] = [pos[0] ?? 100, pos[1] ?? 200, pos[2] ?? 200100].map(Number);
const w = opt('engine', 'ts') === 'wasm' ? wasmEngine({ threads: Number(opt('threads', 2)) }) : null;
const engine = w === null ? 'ts' : { name: 'wasm', objective: (b, fam, p) => w.objective(b, fam.layout(b), p), curvature: (_b, _f, _p, o) => w.curvature(o) };
const f = core.simulateFleet({ models, items, seed });
const c0 = process.cpuUsage();
const t0 = performance.now();
const r = core.fit(f.bank, { seMode: 'twin', engine });
const t1 = performance.now();
const cpu = process.cpuUsage(c0);
console.log(
  `${models} x ${items} seed ${seed}, engine ${opt('engine', 'ts')}: fit ${r.passes} passes ${r.seconds.toFixed(1)} s; twin ${r.twin.passes} passes ${r.twin.seconds.toFixed(1)} s; ` +
    `the call with SEs ${((t1 - t0) / 1000).toFixed(1)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} CPU-s; twin / (fit + SEs + twin) ${((100 * r.twin.seconds * 1000) / (t1 - t0)).toFixed(1)}% of wall`,
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
