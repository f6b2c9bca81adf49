// Rank intervals from differences (issue 30): over R replicate response sets of one seeded truth shaped
// like the real soft fleet (25 LLMs, 4 options, bunched thetas with a low tail, sharpness 1-9 and one
// near 11, active gate w0 -2.9 / kappa 3.8), refit each (default seMode, as `fit` reports) and print
//  - the scale's own uncertainty: SD over replicates of the stretch of each fit's standardised thetas
//    against their mean, and how much an affine alignment removes from each LLM's spread;
//  - per LLM: the reported SE against the replicate SD and the bias against the truth (standardised);
//  - coverage of the true ranks by the old rule (95%) and the new one (RANK_LEVEL, 90%), with widths;
//  - coverage of pairwise differences d_ij +- z sqrt(se_i^2 + se_j^2) around the replicate mean.
// `llm-nrm simulate` has no options for these shapes, so the fleet is core's simulateFleet redrawn, as
// in bench/tiny-fleets.mjs. R (default 10), ITEMS (default 400). Build first (npm run build).
import { fit, predictor, randomSource, simulateFleet, softplusInv } from '@llm-nrm/core';
import { RANK_LEVEL, rankIntervals } from '@llm-nrm/analysis';

const items = Number(process.env.ITEMS ?? 400);
const R = Number(process.env.R ?? 10);
const J = 25;

function truthOf(seed) {
  const { bank, layout: L, truth: x } = simulateFleet({ models: J, items, seed, optionWeights: { 4: 1 } });
  const rng = randomSource(seed + 31);
  const K = bank.kMax;
  for (let j = 0; j < J; j++) {
    x[L.theta + j] = j < 3 ? [-2.5, -1.6, -1.0][j] : 0.15 + 0.5 * rng.normal();
    x[L.sbar + j] = softplusInv(j === 3 ? 11.5 : Math.exp(Math.log(1.9) + 0.6 * rng.normal()));
    const sd = 0.05 + 0.34 * rng.uniform();
    let m = 0;
    for (let k = 0; k < K; k++) m += x[L.delta + j * K + k] = sd * rng.normal();
    for (let k = 0; k < K; k++) x[L.delta + j * K + k] -= m / K;
  }
  x[L.w0] = -2.9;
  x[L.kbar] = softplusInv(3.8);
  return { bank, L, x };
}

/** Soft answers of the truth with logit noise 0.3 (the generator's), seeded. */
function answers({ bank, L, x }, seed) {
  const rng = randomSource(seed);
  const pred = predictor(bank, L, x);
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC];
  const p = new Float64Array(bank.kMax);
  const q = new Float32Array(bank.q.length);
  for (let j = 0; j < J; j++)
    for (let c = 0; c < nC; c++) {
      pred.cell(j, c, p);
      const K = bank.colOffsets[c + 1] - bank.colOffsets[c];
      const o = j * width + bank.colOffsets[c];
      let sum = 0;
      for (let k = 0; k < K; k++) sum += p[k] = p[k] * Math.exp(0.3 * rng.normal());
      for (let k = 0; k < K; k++) q[o + k] = p[k] / sum;
    }
  return { ...bank, q };
}

const mean = (a) => a.reduce((s, v) => s + v, 0) / a.length;
const sdOf = (a) => {
  const m = mean(a);
  return Math.sqrt(a.reduce((s, v) => s + (v - m) ** 2, 0) / (a.length - 1));
};
const T = truthOf(1);
const truth = Array.from(T.x.subarray(0, J));
const trueRank = truth.map((t) => 1 + truth.filter((u) => u > t).length);
const fits = [];
const t0 = performance.now();
for (let r = 0; r < R; r++) {
  const f = fit(answers(T, 100 + r));
  fits.push({ theta: Array.from(f.x.subarray(0, J)), se: Array.from(f.se) });
  process.stderr.write(`replicate ${r + 1}/${R}\n`);
}
const m = Array.from({ length: J }, (_, j) => mean(fits.map((f) => f.theta[j])));
const mm = mean(m);
const aligned = fits.map((f) => {
  const mt = mean(f.theta);
  let sxy = 0;
  let sxx = 0;
  for (let j = 0; j < J; j++) {
    sxy += (m[j] - mm) * (f.theta[j] - mt);
    sxx += (m[j] - mm) ** 2;
  }
  const b = sxy / sxx;
  return { b, resid: f.theta.map((v, j) => v - mt - b * (m[j] - mm)) };
});
const mu = mean(truth);
const sdT = Math.sqrt(truth.reduce((s, v) => s + (v - mu) ** 2, 0) / J);
console.log(`soft fleet: ${J} LLMs x ${items} items, ${R} replicate fits (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
console.log(`scale: SD of the stretch over replicates ${sdOf(aligned.map((a) => a.b)).toFixed(4)}`);
console.log('| LLM | true z | mean theta | bias | rms SE | replicate SD | SD after affine alignment |');
console.log('|---|---|---|---|---|---|---|');
const ord = Array.from({ length: J }, (_, j) => j).sort((a, b) => m[a] - m[b]);
for (const j of ord) {
  const z = (truth[j] - mu) / sdT;
  console.log(
    `| ${j} | ${z.toFixed(2)} | ${m[j].toFixed(3)} | ${(m[j] - z).toFixed(3)} | ${Math.sqrt(mean(fits.map((f) => f.se[j] ** 2))).toFixed(4)} | ${sdOf(fits.map((f) => f.theta[j])).toFixed(4)} | ${sdOf(aligned.map((a) => a.resid[j])).toFixed(4)} |`,
  );
}
for (const [name, level] of [
  ['old (95%)', 0.95],
  [`new (RANK_LEVEL ${RANK_LEVEL})`, RANK_LEVEL],
]) {
  let cov = 0;
  let width = 0;
  let covEnds = 0;
  let widthEnds = 0;
  const ends = [ord[0], ord[1], ord[J - 2], ord[J - 1]];
  for (const f of fits) {
    const ri = rankIntervals(f.theta, f.se, { level, seed: 1 });
    for (let j = 0; j < J; j++) {
      const ok = ri.lo[j] <= trueRank[j] && trueRank[j] <= ri.hi[j];
      cov += ok;
      width += ri.hi[j] - ri.lo[j] + 1;
      if (ends.includes(j)) {
        covEnds += ok;
        widthEnds += ri.hi[j] - ri.lo[j] + 1;
      }
    }
  }
  console.log(
    `rank intervals ${name}: true rank covered ${(cov / (R * J)).toFixed(3)}, mean width ${(width / (R * J)).toFixed(2)} ranks; 2 top + 2 bottom: ${(covEnds / (4 * R)).toFixed(3)}, width ${(widthEnds / (4 * R)).toFixed(2)}`,
  );
}
const z = 1.6449;
let covered = 0;
let pairs = 0;
for (let i = 0; i < J; i++)
  for (let j = i + 1; j < J; j++) {
    const d = m[i] - m[j];
    for (const f of fits) {
      pairs++;
      if (Math.abs(f.theta[i] - f.theta[j] - d) <= z * Math.hypot(f.se[i], f.se[j])) covered++;
    }
  }
console.log(`pairwise differences +- 1.645 sqrt(se_i^2 + se_j^2) around the replicate mean: ${(covered / pairs).toFixed(3)} of ${pairs}`);
