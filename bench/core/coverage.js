#!/usr/bin/env node
// Coverage of the 95% intervals theta_hat +- 1.96 SE of the default fit on simulated fleets, at
// several bank sizes. The fit standardises the fleet's thetas (identification 'standardize'), so each
// fitted theta is compared with the true thetas standardised over the same LLMs. Prints the default
// ('quasi') SEs' coverage and, for comparison, that of the Fisher SEs (one multinomial draw per cell).
// --budget also fits each fleet's noise-free twin (same seed and truth, noise 0) and splits the error:
// noise (fit - twin) against the SE's dispersion part, bias (twin - truth) against its prior part.
// "degenerate gate" counts the fleets whose fit ended in the family's degenerate basin (LLM-NRM: the
// gate shut, w0 < -8, or the fallback dominating no cell: the conditions of `family.restart`), and
// gives the coverage of the other fleets; the gate line gives each fleet's w0, kappa and coverage.
//   node bench/core/coverage.js [--models 100] [--reps 10] [--items 6,20,41,200] [--hard 0] [--noise 0.3] [--seed0 0] [--budget] [--gate-sd 2] [--sharpness-sd 0.5] [--item-sd 10] [--llm-sd 2] [--se quasi|twin]
import * as core from '@llm-nrm/core';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const models = Number(opt('models', '100'));
const reps = Number(opt('reps', '10'));
const sizes = opt('items', '6,20,41,200').split(',').map(Number);
const hard = Number(opt('hard', '0'));
const noise = Number(opt('noise', '0.3'));
const seed0 = Number(opt('seed0', '0'));
const model = opt('model', 'llm-nrm');
const budget = args.includes('--budget');
// --gate-sd: the gate globals' prior SD (Priors.gateSd; 1e9 is the fit before that prior, to within 1e-18 of a precision).
const priors = {
  ...(args.includes('--gate-sd') ? { gateSd: Number(opt('gate-sd', '')) } : {}),
  ...(args.includes('--sharpness-sd') ? { sharpnessSd: Number(opt('sharpness-sd', '')) } : {}),
  ...(args.includes('--item-sd') ? { itemSd: Number(opt('item-sd', '')) } : {}),
  ...(args.includes('--llm-sd') ? { llmSd: Number(opt('llm-sd', '')) } : {}),
};
// --se twin: the 'twin' SE mode (FitOptions.seMode, fit/twinBias.ts); --twin is the same.
const seMode = args.includes('--twin') ? 'twin' : opt('se', 'quasi');

function standardize(v) {
  const m = v.reduce((s, t) => s + t, 0) / v.length;
  const sd = Math.sqrt(v.reduce((s, t) => s + (t - m) ** 2, 0) / v.length);
  return v.map((t) => (t - m) / sd);
}
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};

console.log(
  `coverage of theta +- 1.96 SE: ${models} LLMs, ${reps} fleets per size (seeds 1000 x items + ${seed0}..), model ${model}, hard ${hard}, noise ${noise}, priors ${JSON.stringify(priors)}, SE mode ${seMode}`,
);
console.log(
  'items  intervals  coverage  (binomial 95% band)  per-fleet range  median SE  RMSE   Fisher: coverage  median SE  median phi  prior share  infinite  s/fit  degenerate gate: fleets, coverage of the others',
);
for (const items of sizes) {
  let hit = 0;
  let hitF = 0;
  let n = 0;
  let inf = 0;
  const ses = [];
  const sesF = [];
  const phis = [];
  const shares = [];
  const perFleet = [];
  const zNoise = [];
  const zBias = [];
  let sq = 0;
  let secs = 0;
  let degenerate = 0;
  const gates = [];
  let hitSane = 0;
  let nSane = 0;
  for (let r = 0; r < reps; r++) {
    const f = core.simulateFleet({ models, items, seed: 1000 * items + seed0 + r, hard, noise });
    const t0 = performance.now();
    const res = core.fit(f.bank, { model, priors, seMode });
    secs += (performance.now() - t0) / 1000;
    const extra = core.thetaStandardErrors(res.family, res.bank, res.layout, res.x, core.freeMask(res.layout), res.priors, 0, {
      profileItems: true,
      errorModel: 'quasi',
      // The prior term as the mode computed it (the twin's max(prior, 2 b^2) comes on top).
      ...(seMode === 'twin' ? { spread: 'measured' } : {}),
    });
    const truth = standardize(Array.from(f.truth.subarray(f.layout.theta, f.layout.theta + models)));
    const twin = budget
      ? core.fit(core.simulateFleet({ models, items, seed: 1000 * items + seed0 + r, hard, noise: 0 }).bank, { model, priors, standardErrors: false })
      : null;
    if (twin) {
      for (let j = 0; j < models; j++) {
        const vb = extra.priorVariance[j];
        const vn = res.se[j] ** 2 - vb;
        if (!(vb > 0 && vn > 0)) continue;
        zNoise.push(Math.abs(res.x[res.layout.theta + j] - twin.x[twin.layout.theta + j]) / Math.sqrt(vn));
        zBias.push(Math.abs(twin.x[twin.layout.theta + j] - truth[j]) / Math.sqrt(vb));
      }
    }
    let fleetHit = 0;
    for (let j = 0; j < models; j++) {
      const se = res.se[j];
      const seF = 1 / Math.sqrt(extra.information[j]);
      const d = res.x[res.layout.theta + j] - truth[j];
      sq += d * d;
      n++;
      if (!Number.isFinite(se)) {
        inf++;
        hit++; // an infinite interval covers
        hitF++;
        fleetHit++;
        continue;
      }
      ses.push(se);
      sesF.push(seF);
      phis.push(extra.dispersion[j]);
      shares.push(extra.priorVariance[j] / (se * se));
      if (Math.abs(d) <= 1.96 * se) {
        hit++;
        fleetHit++;
      }
      if (Math.abs(d) <= 1.96 * seF) hitF++;
    }
    perFleet.push(fleetHit / models);
    if (res.layout.kind === 'llm-nrm' && res.parts.fallback) gates.push([res.x[res.layout.w0], core.softplus(res.x[res.layout.kbar]), fleetHit / models]);
    if (res.family.restart(res.layout, res.x, core.freeMask(res.layout), res.bank) !== null) degenerate++;
    else {
      hitSane += fleetHit;
      nSane += models;
    }
  }
  const p = hit / n;
  const band = 1.96 * Math.sqrt((0.95 * 0.05) / n);
  const pct = (v) => `${(100 * v).toFixed(1)}%`;
  console.log(
    `${String(items).padStart(5)}  ${String(n).padStart(9)}  ${pct(p).padStart(8)}  (${(100 * (0.95 - band)).toFixed(1)}-${(100 * (0.95 + band)).toFixed(1)}%)` +
      `  ${pct(Math.min(...perFleet))}-${pct(Math.max(...perFleet))}  ${median(ses).toFixed(3).padStart(9)}  ${Math.sqrt(sq / n).toFixed(3)}` +
      `  ${pct(hitF / n).padStart(16)}  ${median(sesF).toFixed(3).padStart(9)}  ${median(phis).toFixed(4).padStart(10)}  ${median(shares).toFixed(2).padStart(11)}  ${String(inf).padStart(8)}  ${(secs / reps).toFixed(2)}` +
      `  ${String(degenerate).padStart(5)}, ${nSane > 0 ? pct(hitSane / nSane) : '-'}`,
  );
  if (gates.length > 0) {
    console.log(
      `       gate per fleet (w0, kappa: coverage): ${gates.map(([w, k, c]) => `(${w.toFixed(2)}, ${k.toFixed(2)}: ${pct(c)})`).join(' ')}; the truth (-1.00, 1.50)`,
    );
  }
  if (budget) {
    const within = (z) => pct(z.filter((v) => v <= 1.96).length / z.length);
    console.log(
      `       budget: noise part covered ${within(zNoise)}, median |e| / sd ${median(zNoise).toFixed(2)}; bias part covered ${within(zBias)}, median ${median(zBias).toFixed(2)} (a normal: 95.0%, 0.67)`,
    );
  }
}
