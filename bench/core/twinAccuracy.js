#!/usr/bin/env node
// How far the 'twin' SE mode's twin (stopped at 0.1 SE, FitOptions.seMode 'twin') lands from the
// twin run to 0.001 SE: per fleet the twin's passes and max_j |b_j - b_j(tight)| / SE_j, b the twin's
// bias theta_twin - theta.
//   node bench/core/twinAccuracy.js [--engine ts|wasm] [--threads 2] [--fleets 100x200x200100,189x2000x7]
import { wasmEngine } from '@llm-nrm/engine-wasm';
import * as coreMain from '@llm-nrm/core';
import * as coreEngine from '@llm-nrm/core/engine';

const core = { ...coreMain, ...coreEngine };
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const w = opt('engine', 'wasm') === 'wasm' ? wasmEngine({ threads: Number(opt('threads', 2)) }) : null;
const engine = w === null ? 'ts' : w.engine;
const fleets = opt('fleets', '100x200x200100,100x200x200103,60x41x41001,100x20x20001,100x6x6002,189x2000x7')
  .split(',')
  .map((s) => s.split('x').map(Number));
for (const [models, items, seed] of fleets) {
  const f = core.simulateFleet({ models, items, seed });
  const r = core.fit(f.bank, { seMode: 'twin', engine });
  const tight = core.fit(core.twinBank(r.bank, r.layout, r.x), { init: r.x, standardErrors: false, distanceTolerance: 0.001, engine });
  let d = 0;
  for (let j = 0; j < models; j++) d = Math.max(d, Math.abs(tight.x[j] - r.x[j] - r.twin.bias[j]) / r.se[j]);
  console.log(
    `${models} x ${items} seed ${seed}: twin ${r.twin.passes} passes; max |b - b(0.001 SE)| / SE ${d.toFixed(3)} (the tight twin: ${tight.passes} passes)`,
  );
}
w?.close?.();
process.exit(0);
