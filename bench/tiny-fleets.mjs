// Tiny benchmarks on fleets of the real shapes (issue 30): Kendall tau-b of held-out LLMs' thetas from
// range-selected items vs from random items (mean over DRAWS seeded random draws per fold), against
// their full-bank thetas, at 10, 20, 41 and 100 items, for each way of scoring a tiny run.
//   node bench/tiny-fleets.mjs soft    25 LLMs x ITEMS 4-option items, soft answers, the shape of the real
//                                      MMLU fleet of issue 30 (spec in realShapedFleet.mjs: standardised thetas
//                                      with quartiles -0.13 / 0.08 / 0.56 and a tail to -2.5, sharpness 0.84-8.9
//                                      median 1.9, gate w0 -2.9 kappa 3.8, position-bias SD 0.05-0.39 per LLM;
//                                      accuracy 25-81%; the real bank has 9,995 items, this one ITEMS)
//   node bench/tiny-fleets.mjs hard    29 LLMs x ITEMS 10-option items, hard answers (an MMLU-Pro fleet)
//   node bench/tiny-fleets.mjs naep    the NAEP fixture (18 real LLMs x 297 items x 4 rotations)
// ITEMS (default 2000), DRAWS (default 5), SCORINGS (default tiny-run,theta-only,fixed-items), BUDGETS.
// Build first (npm run build).
import { benchFleet } from './benchFleet.mjs';
import { compression } from '@llm-nrm/analysis';

const what = process.argv[2] ?? 'soft';
const items = Number(process.env.ITEMS ?? 2000);
const draws = Number(process.env.DRAWS ?? 5);
const scorings = (process.env.SCORINGS ?? 'tiny-run,theta-only,fixed-items').split(',');
const budgets = (process.env.BUDGETS ?? '10,20,41,100').split(',').map(Number);
const say = (s) => process.stderr.write(`${s}\n`);

const bank = await benchFleet(what, { items });

const t0 = performance.now();
console.log(`${what}: ${bank.models.length} LLMs x ${bank.items.length} items, 5 LLM folds, random: mean of ${draws} draws per fold`);
console.log(`| scoring | ${budgets.map((b) => `@${b} selected / random`).join(' | ')} |`);
console.log(`|---|${budgets.map(() => '---').join('|')}|`);
for (const scoring of scorings) {
  const res = compression(bank, { budgets, scoring, folds: 5, seed: 1, randomDraws: draws, onProgress: say });
  console.log(`| ${scoring} | ${res.points.map((p) => `${p.kendall.toFixed(3)} / ${p.kendallRandom.toFixed(3)}`).join(' | ')} |`);
}
console.log(`(${((performance.now() - t0) / 1000).toFixed(0)} s)`);
