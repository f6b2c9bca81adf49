// Tiny benchmarks on fleets of the real shapes (issue 30): Kendall tau-b of held-out LLMs' thetas from
// range-selected items vs from random items (mean over DRAWS seeded random draws per fold), against
// their full-bank thetas, at 10, 20, 41 and 100 items, for each way of scoring a tiny run.
//   node bench/tiny-fleets.mjs soft    25 LLMs x ITEMS 4-option items, soft answers, the shape of a real
//                                      MMLU fleet (bunched thetas with a low tail, sharpness 1-9, active gate,
//                                      position-bias SD 0.05-0.39 per LLM)
//   node bench/tiny-fleets.mjs hard    29 LLMs x ITEMS 10-option items, hard answers (an MMLU-Pro fleet)
//   node bench/tiny-fleets.mjs naep    the NAEP fixture (18 real LLMs x 297 items x 4 rotations)
// ITEMS (default 2000), DRAWS (default 5), SCORINGS (default tiny-run,theta-only,fixed-items), BUDGETS.
// Build first (npm run build).
import { bankFromRecords, predictor, randomSource, simulateFleet, softplusInv } from '@llm-nrm/core';
import { compression } from '@llm-nrm/analysis';

const what = process.argv[2] ?? 'soft';
const items = Number(process.env.ITEMS ?? 2000);
const draws = Number(process.env.DRAWS ?? 5);
const scorings = (process.env.SCORINGS ?? 'tiny-run,theta-only,fixed-items').split(',');
const budgets = (process.env.BUDGETS ?? '10,20,41,100').split(',').map(Number);
const say = (s) => process.stderr.write(`${s}\n`);

/**
 * A simulated fleet with the per-LLM shapes of a real one: the generator's items, then each LLM's
 * theta, sharpness and position bias redrawn and the gate set, and every answer drawn again.
 */
function realShapedFleet({ models, options, hard, seed }) {
  const f = simulateFleet({ models, items, seed, optionWeights: { [options]: 1 }, hard: hard ? 1 : 0 });
  const { bank, layout: L, truth: x } = f;
  const rng = randomSource(seed + 31);
  const K = bank.kMax;
  for (let j = 0; j < models; j++) {
    // Thetas bunched (real soft fleet: quartiles -0.13 / 0.08 / 0.56) with a low tail to -2.5.
    x[L.theta + j] = hard ? rng.normal() : j < 3 ? [-2.5, -1.6, -1.0][j] : 0.15 + 0.5 * rng.normal();
    // Sharpness log-normal, median 1.9, 0.84 to 8.9 (one near 11).
    const s = j === 3 ? 11.5 : Math.exp(Math.log(1.9) + 0.6 * rng.normal());
    x[L.sbar + j] = softplusInv(s);
    // Position bias of SD 0.05 to 0.39 per LLM.
    const sd = 0.05 + 0.34 * rng.uniform();
    let m = 0;
    for (let k = 0; k < K; k++) m += x[L.delta + j * K + k] = sd * rng.normal();
    for (let k = 0; k < K; k++) x[L.delta + j * K + k] -= m / K;
  }
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
  return bank;
}

let bank;
if (what === 'naep') {
  const { readNaepRotations } = await import('@llm-nrm/adapters');
  const dir = new URL('../../shared/fixtures/response-matrices/mainlp-llm-psychometrics', import.meta.url).pathname;
  const records = [];
  for await (const r of readNaepRotations(dir)) records.push(r);
  bank = bankFromRecords(records).bank;
} else if (what === 'soft') bank = realShapedFleet({ models: 25, options: 4, hard: false, seed: 1 });
else if (what === 'hard') bank = realShapedFleet({ models: 29, options: 10, hard: true, seed: 1 });
else throw new Error(`unknown fleet ${what}: soft, hard or naep`);

const t0 = performance.now();
console.log(`${what}: ${bank.models.length} LLMs x ${bank.items.length} items, 5 LLM folds, random: mean of ${draws} draws per fold`);
console.log(`| scoring | ${budgets.map((b) => `@${b} selected / random`).join(' | ')} |`);
console.log(`|---|${budgets.map(() => '---').join('|')}|`);
for (const scoring of scorings) {
  const res = compression(bank, { budgets, scoring, folds: 5, seed: 1, randomDraws: draws, onProgress: say });
  console.log(`| ${scoring} | ${res.points.map((p) => `${p.kendall.toFixed(3)} / ${p.kendallRandom.toFixed(3)}`).join(' | ')} |`);
}
console.log(`(${((performance.now() - t0) / 1000).toFixed(0)} s)`);
