#!/usr/bin/env node
// The twin's bias scaled by a second twin (not built into fit): b1 = theta(twin of the fit) - theta,
// b2 = theta(twin of the twin) - theta(twin); per fleet lambda = b1.b1 / b1.b2 (first order: the
// error is about lambda b1), and the intervals with max(prior term, (lambda b1)^2) as the bias term,
// beside the default and the fifth session's twin max(prior term, b1^2) (seMode 'twin' is bench/core/twinRules.js's rule). Seeds 1000 x items + seed0 + r, 100 LLMs.
//   node bench/core/twinScaled.js <items> [seed0=100] [reps=5]
import * as core from '@llm-nrm/core';
const items = Number(process.argv[2]);
const seed0 = Number(process.argv[3] ?? 100);
const reps = Number(process.argv[4] ?? 5);
let n = 0,
  h0 = 0,
  h1 = 0,
  h2 = 0,
  h3 = 0;
const lams = [];
for (let r = 0; r < reps; r++) {
  const f = core.simulateFleet({ models: 100, items, seed: 1000 * items + seed0 + r });
  const res = core.fit(f.bank);
  const L = res.layout;
  const sep = core.thetaStandardErrors(res.family, res.bank, L, res.x, core.freeMask(L), res.priors, 0, { profileItems: true, errorModel: 'quasi' });
  const x1 = core.fit(core.twinBank(res.bank, L, res.x), { init: res.x, standardErrors: false, distanceTolerance: 0.1 }).x;
  const x2 = core.fit(core.twinBank(res.bank, L, x1), { init: x1, standardErrors: false, distanceTolerance: 0.1 }).x;
  let b11 = 0,
    b12 = 0;
  for (let j = 0; j < 100; j++) {
    const b1 = x1[j] - res.x[j];
    const b2 = x2[j] - x1[j];
    b11 += b1 * b1;
    b12 += b1 * b2;
  }
  const lam = Math.min(5, Math.max(1, b11 / b12));
  lams.push((b11 / b12).toFixed(2));
  const truth = core.standardized(f.truth, 100);
  for (let j = 0; j < 100; j++) {
    n++;
    const e = res.x[j] - truth[j];
    const pv = sep.priorVariance[j];
    const s2 = sep.se[j] ** 2;
    const b1 = x1[j] - res.x[j];
    const b2 = x2[j] - x1[j];
    if (Math.abs(e) <= 1.96 * sep.se[j]) h0++;
    if (Math.abs(e) <= 1.96 * Math.sqrt(s2 - pv + Math.max(pv, b1 * b1))) h1++; // the fifth session's twin, max(prior, b1^2)
    if (Math.abs(e) <= 1.96 * Math.sqrt(s2 - pv + Math.max(pv, (lam * b1) ** 2))) h2++;
    const ej = Math.abs(b2) < Math.abs(b1) && b1 * b2 > 0 ? (b1 * b1) / (b1 - b2) : b1; // per LLM geometric extrapolation
    if (Math.abs(e) <= 1.96 * Math.sqrt(s2 - pv + Math.max(pv, ej * ej))) h3++;
  }
}
console.log(
  `${items} items ${n}: default ${((100 * h0) / n).toFixed(1)}%, twin ${((100 * h1) / n).toFixed(1)}%, fleet-scaled twin ${((100 * h2) / n).toFixed(1)}%, per-LLM extrapolated ${((100 * h3) / n).toFixed(1)}%; fleet b1.b1/b1.b2 ${lams.join(' ')}`,
);
process.exit(0);
