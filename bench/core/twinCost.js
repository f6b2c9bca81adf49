#!/usr/bin/env node
// Cost of the twin's bias check (FitOptions.twinBias) on one simulated fleet: the fit's passes and
// the twin's, and how far a twin stopped at 0.1 or 0.3 SE lands from the one fit runs.
//   node bench/core/twinCost.js [models=100] [items=200] [seed=200100]
import * as core from '@llm-nrm/core';
const [models, items, seed] = [process.argv[2] ?? 100, process.argv[3] ?? 200, process.argv[4] ?? 200100].map(Number);
const f = core.simulateFleet({ models, items, seed });
const t0 = performance.now();
const r = core.fit(f.bank, { twinBias: true });
const t1 = performance.now();
console.log(
  `fit ${r.passes} passes ${r.seconds.toFixed(1)} s; twin ${r.twin.passes} passes ${r.twin.seconds.toFixed(1)} s; total wall ${((t1 - t0) / 1000).toFixed(1)} s`,
);
for (const tol of [0.1, 0.3]) {
  const tw = core.fit(core.twinBank(r.bank, r.layout, r.x), { init: r.x, standardErrors: false, distanceTolerance: tol });
  let d = 0;
  for (let j = 0; j < models; j++) d = Math.max(d, Math.abs(tw.x[j] - r.x[j] - r.twin.bias[j]) / r.se[j]);
  console.log(`twin at distanceTolerance ${tol}: ${tw.passes} passes, max |bias difference| / SE ${d.toFixed(3)}`);
}
process.exit(0);
