#!/usr/bin/env node
// Cost of the theta standard errors (thetaStandardErrors with the item profile, as fit computes
// them) at the fit's optimum of a simulated fleet: CPU seconds (process.cpuUsage, so that other work
// on a shared machine counts less than in wall time), median of --runs, for the Fisher and the
// default 'quasi' SEs. The fit itself runs once, without SEs.
//   node bench/standardErrors.js [--models 189] [--items 2000] [--seed 7] [--runs 3]
import * as core from '@llm-nrm/core';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const models = Number(opt('models', '189'));
const items = Number(opt('items', '2000'));
const seed = Number(opt('seed', '7'));
const runs = Number(opt('runs', '3'));

const f = core.simulateFleet({ models, items, seed });
const t0 = performance.now();
const r = core.fit(f.bank, { standardErrors: false });
console.log(`${models} x ${items}, seed ${seed}: fit ${((performance.now() - t0) / 1000).toFixed(1)} s wall, ${r.passes} passes`);
const free = core.freeMask(r.layout);
for (const errorModel of ['fisher', 'quasi']) {
  const secs = [];
  let out;
  for (let k = 0; k < runs; k++) {
    const c0 = process.cpuUsage();
    out = core.thetaStandardErrors(r.family, r.bank, r.layout, r.x, free, r.priors, 0, { profileItems: true, errorModel });
    const c = process.cpuUsage(c0);
    secs.push((c.user + c.system) / 1e6);
  }
  secs.sort((a, b) => a - b);
  const se = Array.from(out.se).sort((a, b) => a - b);
  console.log(
    `${errorModel.padEnd(6)} CPU s ${secs.map((s) => s.toFixed(2)).join(' ')} (median ${secs[Math.floor(runs / 2)].toFixed(2)}); median SE ${se[Math.floor(se.length / 2)].toFixed(4)}, SE[0] ${out.se[0].toPrecision(12)}`,
  );
}
