#!/usr/bin/env node
// Where the fleet-wide theta bias comes from: fits simulated fleets (100 LLMs, noise-free twins by
// default: q = p exactly, so any error is the estimator's) under named variants of the priors or the
// model's parts, and prints the mean error (fit - standardised truth) by band of true theta, its
// coefficient on (theta^2 - 1) (the convex shape bench/core/coverage.js finds at 200 items), and the RMSE.
//   node bench/core/twinBias.js [items=200] [seed0=100] [reps=2] ['{"name": {"sim": {...}, "fit": {...}}, ...}']
// "sim" goes to simulateFleet (e.g. {"noise": 0.3}, {"parts": {"fallback": false}}), "fit" to fit
// (e.g. {"priors": {"sharpnessSd": 100}}). Seeds 1000 x items + seed0 + r, as coverage.js.
import * as core from '@llm-nrm/core';

const items = Number(process.argv[2] ?? 200);
const seed0 = Number(process.argv[3] ?? 100);
const reps = Number(process.argv[4] ?? 2);
const variants = JSON.parse(process.argv[5] ?? '{"default": {}}');
const models = 100;
function standardize(v) {
  const m = v.reduce((s, t) => s + t, 0) / v.length;
  const sd = Math.sqrt(v.reduce((s, t) => s + (t - m) ** 2, 0) / v.length);
  return v.map((t) => (t - m) / sd);
}
const mean = (v) => (v.reduce((s, t) => s + t, 0) / v.length).toFixed(3);
for (const [name, opts] of Object.entries(variants)) {
  const lo = [];
  const mid = [];
  const hi = [];
  const all = [];
  let secs = 0;
  for (let r = 0; r < reps; r++) {
    const f = core.simulateFleet({ models, items, seed: 1000 * items + seed0 + r, noise: 0, ...(opts.sim ?? {}) });
    const t0 = performance.now();
    const res = core.fit(f.bank, { standardErrors: false, ...(opts.fit ?? {}) });
    secs += (performance.now() - t0) / 1000;
    const truth = standardize(Array.from(f.truth.subarray(f.layout.theta, f.layout.theta + models)));
    for (let j = 0; j < models; j++) {
      const d = res.x[res.layout.theta + j] - truth[j];
      all.push([truth[j], d]);
      if (truth[j] < -1.2) lo.push(d);
      else if (truth[j] > 1.2) hi.push(d);
      else if (Math.abs(truth[j]) < 0.5) mid.push(d);
    }
  }
  // Least squares of d on (t^2 - 1), which has mean about 0 over a standardised fleet.
  let num = 0;
  let den = 0;
  for (const [t, d] of all) {
    num += (t * t - 1) * d;
    den += (t * t - 1) ** 2;
  }
  const rmse = Math.sqrt(all.reduce((s, [, d]) => s + d * d, 0) / all.length);
  console.log(
    `${name.padEnd(26)} mean error: theta < -1.2 ${mean(lo)}, |theta| < 0.5 ${mean(mid)}, theta > 1.2 ${mean(hi)}; on (theta^2 - 1) ${(num / den).toFixed(3)}; RMSE ${rmse.toFixed(3)}; s / fit ${(secs / reps).toFixed(1)}`,
  );
}
