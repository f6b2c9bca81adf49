// Where a tiny run's ranking loses on the simulated soft fleet (issue 30): per 5 LLM folds, the held-out
// LLMs' thetas from the selected items and from random items (mean of DRAWS draws) under scorers that
// know more or less of each LLM's nuisances, against their full-bank thetas; and the full-bank
// thetas against the simulation's truth (the ceiling of any ranking the bank can give).
//   node bench/tiny-ceiling.mjs        (ITEMS default 2000, DRAWS 5, BUDGETS 10,20,41,100)
// Scorers (SCORERS, comma-separated): tiny-run (the shipped rule: theta and log sharpness fitted, bias and
// fallback under the fleet's spread), 'fleet bias+fallback' (the rule before: bias and fallback at the
// fleet's means), and with the LLM's own full-bank nuisances (an oracle no tiny
// run has): 'known all' (theta alone), 'known bias+fallback', 'known bias', 'known fallback' (sharpness
// fitted, the rest at the fleet's means), 'known sharpness' (theta alone, bias and fallback at the fleet's
// means), 'fleet all' (theta alone, every nuisance at the fleet's means).
//   node bench/tiny-ceiling.mjs naep   the same on the NAEP fixture (no truth there).
import { familyOfLayout } from '@llm-nrm/core';
import { calibratedLlmFolds, kendallTau, selectForRange } from '@llm-nrm/analysis';
import { fitFixedItems } from '../packages/analysis/dist/internal/fitting.js';
import { rowMask } from '../packages/analysis/dist/internal/masks.js';
import { neutralLlms } from '../packages/analysis/dist/internal/neutralLlms.js';
import { meanLogSharpness } from '../packages/analysis/dist/internal/meanLogSharpness.js';
import { randomPermutation } from '../packages/analysis/dist/internal/randomPermutation.js';
import { fleetNuisancePrior, thetaAlone, thetaSharp, tinyColumns } from '../packages/analysis/dist/internal/tinyRunScoring.js';
import { randomSource } from '@llm-nrm/core';
import { realShapedFleetFull } from './realShapedFleet.mjs';

const items = Number(process.env.ITEMS ?? 2000);
const draws = Number(process.env.DRAWS ?? 5);
const budgets = (process.env.BUDGETS ?? '10,20,41,100').split(',').map(Number);
const what = process.argv[2] ?? 'soft';
let bank;
let TL = null;
let truth = null;
if (what === 'naep') {
  const { bankFromRecords } = await import('@llm-nrm/core');
  const { readNaepRotations } = await import('@llm-nrm/adapters');
  const dir = new URL('../../shared/fixtures/response-matrices/mainlp-llm-psychometrics', import.meta.url).pathname;
  const records = [];
  for await (const r of readNaepRotations(dir)) records.push(r);
  bank = bankFromRecords(records).bank;
} else ({ bank, layout: TL, truth } = realShapedFleetFull({ models: 25, options: 4, hard: false, seed: 1, items }));
const J = bank.models.length;
const I = bank.items.length;
const spec = { name: 'llm-nrm', model: 'llm-nrm' };
const scorers = (process.env.SCORERS ?? 'tiny-run,fleet bias+fallback,known all,known bias+fallback,known sharpness,fleet all,known bias,known fallback').split(
  ',',
);
const full = new Float64Array(J);
const out = new Map(); // `${scorer}|${budget}|${sel}|${draw}` -> Float64Array
const slot = (k) => (out.has(k) ? out.get(k) : (out.set(k, new Float64Array(J).fill(NaN)), out.get(k)));
const drawRng = randomSource(104730);
for (const fold of calibratedLlmFolds(bank, spec, { folds: 5, seed: 1 })) {
  const { calib, trainRows, trainList, heldList, heldRows } = fold;
  const L = calib.layout;
  const fam = familyOfLayout(L);
  const own = fitFixedItems(bank, rowMask(bank, heldRows), spec, calib, undefined);
  for (const j of heldList) full[j] = own.x[L.theta + j];
  const fleet = neutralLlms(calib, trainRows);
  const u0 = meanLogSharpness(calib, trainList);
  // Nuisance mixes: start from the fleet's, copy the LLM's own where known.
  const mix = (bias, sharp) => {
    const xs = Float64Array.from(fleet);
    for (const j of heldList) {
      const idx = fam.llmIndices(L, j);
      const si = fam.sharpnessIndex(L, j);
      for (const t of idx.slice(1)) if (t === si ? sharp : bias) xs[t] = own.x[t];
    }
    return xs;
  };
  const xsAll = mix(true, true);
  const xsSharp = mix(false, true);
  const prior = fleetNuisancePrior(L, calib.x, trainList);
  // Bias and fallback held at given values (a prior of no spread): the fleet's means, or the LLM's own.
  const K = bank.kMax;
  const heldAt = (delta, rho) => ({ delta, rho, deltaVar: delta.map(() => 1e-12), rhoVar: rho.map(() => 1e-12) });
  const atFleet = heldAt(prior.delta, prior.rho);
  const ownOf = (j) => heldAt(Array.from(own.x.subarray(L.delta + j * K, L.delta + j * K + K)), Array.from(own.x.subarray(L.rho + j * K, L.rho + j * K + K)));
  const ownBias = (j) => heldAt(ownOf(j).delta, prior.rho);
  const ownFallback = (j) => heldAt(prior.delta, ownOf(j).rho);
  const ranked = selectForRange(bank, L, calib.x, Math.max(...budgets), { rows: trainList }).forms[0];
  const perms = Array.from({ length: draws }, () => randomPermutation(I, drawRng));
  for (const n of budgets) {
    const sets = [['sel', 0, Array.from(ranked.subarray(0, n))], ...perms.map((p, d) => ['rnd', d, Array.from(p.subarray(0, n))])];
    for (const [sel, d, its] of sets) {
      const cols = tinyColumns(bank, its);
      for (const j of heldList) {
        const run = {
          'tiny-run': () => thetaSharp(bank, L, fleet, j, cols, u0, 0.5, prior).theta,
          'fleet bias+fallback': () => thetaSharp(bank, L, fleet, j, cols, u0, 0.5, atFleet).theta,
          'known all': () => thetaAlone(bank, L, xsAll, j, cols, 3).theta,
          'known bias+fallback': () => thetaSharp(bank, L, fleet, j, cols, u0, 0.5, ownOf(j)).theta,
          'known sharpness': () => thetaAlone(bank, L, xsSharp, j, cols, 3).theta,
          'fleet all': () => thetaAlone(bank, L, fleet, j, cols, 3).theta,
          'known bias': () => thetaSharp(bank, L, fleet, j, cols, u0, 0.5, ownBias(j)).theta,
          'known fallback': () => thetaSharp(bank, L, fleet, j, cols, u0, 0.5, ownFallback(j)).theta,
        };
        for (const s of scorers) slot(`${s}|${n}|${sel}|${d}`)[j] = run[s]();
      }
    }
  }
  process.stderr.write(`fold ${fold.index + 1}/5\n`);
}
if (truth) {
  const truthTheta = Array.from({ length: J }, (_, j) => truth[TL.theta + j]);
  console.log(`soft: 25 x ${I}; Kendall of the full-bank held-out thetas vs the truth: ${kendallTau(full, truthTheta).toFixed(3)}`);
} else console.log(`${what}: ${J} x ${I}`);
console.log(`| scorer | ${budgets.map((n) => `@${n} sel / rnd`).join(' | ')} |`);
console.log(`|---|${budgets.map(() => '---').join('|')}|`);
for (const s of scorers) {
  const cells = budgets.map((n) => {
    const sel = kendallTau(out.get(`${s}|${n}|sel|0`), full);
    let r = 0;
    for (let d = 0; d < draws; d++) r += kendallTau(out.get(`${s}|${n}|rnd|${d}`), full) / draws;
    return `${sel.toFixed(3)} / ${r.toFixed(3)}`;
  });
  console.log(`| ${s} | ${cells.join(' | ')} |`);
}
