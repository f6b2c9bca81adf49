#!/usr/bin/env node
// Coverage of the 95% intervals theta_hat +- 1.96 SE of the default fit on simulated fleets, at
// several bank sizes. The fit standardises the fleet's thetas (identification 'standardize'), so each
// fitted theta is compared with the true thetas standardised over the same LLMs.
//   node bench/coverage.js [--models 100] [--reps 10] [--items 6,20,41,200] [--hard 0] [--noise 0.3]
import * as core from '../dist/index.js';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const models = Number(opt('models', '100'));
const reps = Number(opt('reps', '10'));
const sizes = opt('items', '6,20,41,200').split(',').map(Number);
const hard = Number(opt('hard', '0'));
const noise = Number(opt('noise', '0.3'));
const model = opt('model', 'llm-nrm');

function standardize(v) {
  const m = v.reduce((s, t) => s + t, 0) / v.length;
  const sd = Math.sqrt(v.reduce((s, t) => s + (t - m) ** 2, 0) / v.length);
  return v.map((t) => (t - m) / sd);
}

console.log(`coverage of theta +- 1.96 SE: ${models} LLMs, ${reps} fleets per size, model ${model}, hard ${hard}, noise ${noise}`);
console.log('items  intervals  coverage  (binomial 95% band)  median SE  RMSE  infinite SEs  seconds/fit');
for (const items of sizes) {
  let hit = 0;
  let n = 0;
  let inf = 0;
  const ses = [];
  let sq = 0;
  let secs = 0;
  for (let r = 0; r < reps; r++) {
    const f = core.simulateFleet({ models, items, seed: 1000 * items + r, hard, noise });
    const t0 = performance.now();
    const res = core.fit(f.bank, { model });
    secs += (performance.now() - t0) / 1000;
    const truth = standardize(Array.from(f.truth.subarray(f.layout.theta, f.layout.theta + models)));
    for (let j = 0; j < models; j++) {
      const se = res.se[j];
      const d = res.x[res.layout.theta + j] - truth[j];
      sq += d * d;
      n++;
      if (!Number.isFinite(se)) {
        inf++;
        hit++; // an infinite interval covers
        continue;
      }
      ses.push(se);
      if (Math.abs(d) <= 1.96 * se) hit++;
    }
  }
  const p = hit / n;
  const band = 1.96 * Math.sqrt((0.95 * 0.05) / n);
  ses.sort((a, b) => a - b);
  console.log(
    `${String(items).padStart(5)}  ${String(n).padStart(9)}  ${(100 * p).toFixed(1).padStart(7)}%  (${(100 * (0.95 - band)).toFixed(1)}-${(100 * (0.95 + band)).toFixed(1)}%)` +
      `  ${ses[Math.floor(ses.length / 2)].toFixed(3).padStart(9)}  ${Math.sqrt(sq / n).toFixed(3)}  ${String(inf).padStart(12)}  ${(secs / reps).toFixed(2)}`,
  );
}
