// The simulated fleets of real shapes (issue 30), shared by bench/tiny-fleets.mjs and its `shape` mode.
import { predictor, randomSource, simulateFleet, softplusInv } from '@llm-nrm/core';

/**
 * A simulated fleet with the per-LLM shapes of a real one: the generator's items, then each LLM's
 * theta, sharpness and position bias redrawn and the gate set, and every answer drawn again.
 */
export function realShapedFleetFull({ models, options, hard, seed, items }) {
  const f = simulateFleet({ models, items, seed, optionWeights: { [options]: 1 }, hard: hard ? 1 : 0 });
  const { bank, layout: L, truth: x } = f;
  const rng = randomSource(seed + 31);
  const K = bank.kMax;
  if (hard) {
    for (let j = 0; j < models; j++) {
      x[L.theta + j] = rng.normal();
      const s = j === 3 ? 11.5 : Math.exp(Math.log(1.9) + 0.6 * rng.normal());
      x[L.sbar + j] = softplusInv(s);
      const sd = 0.05 + 0.34 * rng.uniform();
      let m = 0;
      for (let k = 0; k < K; k++) m += x[L.delta + j * K + k] = sd * rng.normal();
      for (let k = 0; k < K; k++) x[L.delta + j * K + k] -= m / K;
    }
  } else softShape(x, L, K, models, rng);
  // An active gate (real soft fleet: w0 -2.9, kappa 3.8).
  x[L.w0] = -2.9;
  x[L.kbar] = softplusInv(3.8);
  const pred = predictor(bank, L, x);
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC];
  const p = new Float64Array(K);
  bank.q.fill(0);
  for (let j = 0; j < models; j++) {
    for (let c = 0; c < nC; c++) {
      pred.cell(j, c, p);
      const Kc = bank.colOffsets[c + 1] - bank.colOffsets[c];
      const o = j * width + bank.colOffsets[c];
      if (hard) {
        let u = rng.uniform();
        let pick = Kc - 1;
        for (let k = 0; k < Kc; k++)
          if ((u -= p[k]) < 0) {
            pick = k;
            break;
          }
        bank.q[o + pick] = 1;
        continue;
      }
      let mx = -Infinity;
      for (let k = 0; k < Kc; k++) mx = Math.max(mx, (p[k] = Math.log(Math.max(p[k], 1e-300)) + 0.3 * rng.normal()));
      let sum = 0;
      for (let k = 0; k < Kc; k++) sum += p[k] = Math.exp(p[k] - mx);
      for (let k = 0; k < Kc; k++) bank.q[o + k] = p[k] / sum;
    }
  }
  return f;
}

/**
 * The soft fleet's per-LLM truth, from the real 25-LLM MMLU fleet of issue 30 as our fit of it
 * describes it (every figure on the fitted scale, which is standardised: mean 0, SD 1):
 * - theta: the 25 ranks of a piecewise-linear quantile function through (rank 0, -2.5), (1, -2.03),
 *   (6, -0.13), (12, 0.08), (18, 0.56), (24, 1.56): quartiles -0.13 / 0.08 / 0.56 (ranks 6, 12,
 *   18), a tail to -2.5, mean 0 and SD 1 (the two free knots, ranks 1 and 24, solve for those);
 * - sharpness: log-normal, median 1.9, the 24 normal quantiles (t + 0.5) / 24 at log-SD 0.4
 *   (0.84 to 4.3), and one sharp chat model at 8.9: 0.84 to 8.9, median 1.9;
 * - position bias: SD over the 4 positions exactly 0.05 to 0.39, evenly spaced over the LLMs;
 * - the gate (set by the caller): w0 -2.9, kappa 3.8.
 * Ranks are dealt to LLMs by seeded permutations, independently for each quantity. Items, fallback
 * and the answers' noise are the generator's (simulateFleet: SD 0.3 on the log-probabilities).
 */
function softShape(x, L, K, models, rng) {
  const knots = [
    [0, -2.5],
    [1, -2.03],
    [6, -0.13],
    [12, 0.08],
    [18, 0.56],
    [24, 1.56],
  ];
  const at = (r) => {
    const t = (r / (models - 1)) * 24;
    let k = 1;
    while (k < knots.length - 1 && knots[k][0] < t) k++;
    const [r0, v0] = knots[k - 1];
    const [r1, v1] = knots[k];
    return v0 + ((v1 - v0) * (t - r0)) / (r1 - r0);
  };
  const deal = () => {
    const p = Array.from({ length: models }, (_, j) => j);
    for (let j = models - 1; j > 0; j--) {
      const k = rng.int(j + 1);
      [p[j], p[k]] = [p[k], p[j]];
    }
    return p;
  };
  const thetaRank = deal();
  const sharpRank = deal();
  const biasRank = deal();
  for (let j = 0; j < models; j++) {
    x[L.theta + j] = at(thetaRank[j]);
    const r = sharpRank[j];
    x[L.sbar + j] = softplusInv(r === models - 1 ? 8.9 : 1.9 * Math.exp(0.4 * normalQuantile((r + 0.5) / (models - 1))));
    const sd = 0.05 + (0.34 * biasRank[j]) / (models - 1);
    const d = Array.from({ length: K }, () => rng.normal());
    const m = d.reduce((a, v) => a + v, 0) / K;
    const s = Math.sqrt(d.reduce((a, v) => a + (v - m) ** 2, 0) / K);
    for (let k = 0; k < K; k++) x[L.delta + j * K + k] = (sd * (d[k] - m)) / s;
  }
}

/** The standard normal quantile (Acklam's rational approximation, |error| < 1.2e-9). */
function normalQuantile(p) {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771591, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - lo) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/** The bank of `realShapedFleetFull`. */
export const realShapedFleet = (o) => realShapedFleetFull(o).bank;
