#!/usr/bin/env node
// Ways to use the fit's noise-free twin (fit/twinBias.ts) in the 95% intervals, on simulated fleets
// of 100 LLMs (seeds 1000 x items + seed0 + r, as coverage.js): the default 'quasi' SE; + b^2;
// theta - b with the SE; theta - b with + b^2; max(prior term, b^2) (FitOptions.twinBias); b^2 in
// place of the prior term. b = theta_twin - theta, the twin stopped at 0.1 SE; prior term = the SE's
// priorVariance. Prints the coverage of each and the RMSE of theta and of theta - b.
//   node bench/core/twinVariants.js <items> [seed0=100] [reps=5]
import * as core from '@llm-nrm/core';
const items = Number(process.argv[2]);
const seed0 = Number(process.argv[3] ?? 100);
const reps = Number(process.argv[4] ?? 5);
const std = (v) => {
  const m = v.reduce((a, b) => a + b) / v.length;
  const s = Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / v.length);
  return v.map((t) => (t - m) / s);
};
let n = 0,
  hA = 0,
  hB = 0,
  hC = 0,
  hD = 0,
  hE = 0,
  hF = 0,
  sq0 = 0,
  sqB = 0;
for (let r = 0; r < reps; r++) {
  const f = core.simulateFleet({ models: 100, items, seed: 1000 * items + seed0 + r });
  const res = core.fit(f.bank, { twinBias: false });
  // Twin of the fit: q = p at the fitted point, same observed cells.
  const pred = core.predictor(res.bank, res.layout, res.x);
  const b = res.bank;
  const nC = b.colItem.length;
  const width = b.colOffsets[nC];
  const q = new Float32Array(b.q.length);
  const p = new Float64Array(b.kMax);
  for (let j = 0; j < 100; j++)
    for (let c = 0; c < nC; c++)
      if (b.observed[j * nC + c]) {
        pred.cell(j, c, p);
        const K = b.colOffsets[c + 1] - b.colOffsets[c];
        for (let k = 0; k < K; k++) q[j * width + b.colOffsets[c] + k] = p[k];
      }
  const twin = core.fit({ ...b, q }, { init: res.x, standardErrors: false, distanceTolerance: 0.1 });
  const L = res.layout;
  const sep = core.thetaStandardErrors(res.family, res.bank, L, res.x, core.freeMask(L), res.priors, 0, { profileItems: true, errorModel: 'quasi' });
  const truth = std(Array.from(f.truth.subarray(0, 100)));
  let hit = 0;
  for (let j = 0; j < 100; j++) {
    const bias = twin.x[j] - res.x[j];
    const e = res.x[j] - truth[j];
    const se = res.se[j];
    n++;
    if (Math.abs(e) <= 1.96 * se) {
      hA++;
      hit++;
    }
    if (Math.abs(e) <= 1.96 * Math.sqrt(se * se + bias * bias)) hB++;
    if (Math.abs(e - bias) <= 1.96 * se) hC++;
    if (Math.abs(e - bias) <= 1.96 * Math.sqrt(se * se + bias * bias)) hD++;
    const pv = sep.priorVariance[j];
    if (Math.abs(e) <= 1.96 * Math.sqrt(se * se - pv + Math.max(pv, bias * bias))) hE++;
    if (Math.abs(e) <= 1.96 * Math.sqrt(Math.max(0, se * se - pv) + bias * bias)) hF++;
    sq0 += e * e;
    sqB += (e - bias) ** 2;
  }
  console.log(`seed ${1000 * items + seed0 + r}: default ${hit}%, twin loss ${twin.loss.toFixed(2)} iters ${twin.iterations}`);
}
console.log(
  `${items} items, ${n} intervals: default ${((100 * hA) / n).toFixed(1)}%, +bias^2 ${((100 * hB) / n).toFixed(1)}%, corrected ${((100 * hC) / n).toFixed(1)}%, corrected +bias^2 ${((100 * hD) / n).toFixed(1)}%, max(prior, bias^2) ${((100 * hE) / n).toFixed(1)}%, bias^2 for prior ${((100 * hF) / n).toFixed(1)}%; RMSE ${Math.sqrt(sq0 / n).toFixed(3)} -> corrected ${Math.sqrt(sqB / n).toFixed(3)}`,
);
process.exit(0);
