// The adaptive test replayed on held-out LLMs (issue 29; analysis' adaptiveStudy): Kendall tau-b of
// adaptive runs, the static tiny benchmark of the same length and random items (mean of DRAWS draws)
// against the held-out LLMs' full-bank thetas, theta RMSE, 95% coverage, and the SE-stopped runs.
//   node bench/adaptive.mjs naep    the NAEP fixture (18 real LLMs x 297 items x 4 rotations)
//   node bench/adaptive.mjs soft    25 LLMs x ITEMS 4-option items of the real MMLU fleet's shape (realShapedFleet.mjs)
//   node bench/adaptive.mjs hard    29 LLMs x ITEMS 10-option items, hard answers (an MMLU-Pro fleet)
//   node bench/adaptive.mjs sim     MODELS (default 100) x ITEMS LLMs of core's simulator (the default fleet of `llm-nrm simulate`)
// ITEMS (default 1000), DRAWS (default 5), BUDGETS (default 10,20,41), BATCH (default 4), SE (0.3), MAX (60),
// SEED (default 1: the LLM folds, the random draws and the randomesque choice).
// Build first (npm run build).
import { adaptiveStudy } from '@llm-nrm/analysis';
import { benchFleet } from './benchFleet.mjs';

const what = process.argv[2] ?? 'naep';
const items = Number(process.env.ITEMS ?? 1000);
const draws = Number(process.env.DRAWS ?? 5);
const budgets = (process.env.BUDGETS ?? '10,20,41').split(',').map(Number);
const batch = Number(process.env.BATCH ?? 4);
const se = Number(process.env.SE ?? 0.3);
const maxItems = Number(process.env.MAX ?? 60);
const seed = Number(process.env.SEED ?? 1);
const say = process.env.QUIET ? () => {} : (s) => process.stderr.write(`${s}\n`);

const bank = await benchFleet(what, { items, models: Number(process.env.MODELS ?? 100) });

const t0 = performance.now();
const res = adaptiveStudy(bank, { budgets, folds: 5, seed, batch, se, maxItems, randomDraws: draws, onProgress: say });
console.log(`${what}: ${bank.models.length} LLMs x ${bank.items.length} items, 5 LLM folds (seed ${seed}), batch ${batch}, random: mean of ${draws} draws`);
console.log('| items | adaptive Kendall | static tiny | random | RMSE adaptive / static / random | coverage95 |');
console.log('|---|---|---|---|---|---|');
for (const p of res.points) {
  console.log(
    `| ${p.budget} | ${p.kendall.toFixed(3)} | ${p.kendallStatic.toFixed(3)} | ${p.kendallRandom.toFixed(3)} | ${p.thetaRmse.toFixed(3)} / ${p.thetaRmseStatic.toFixed(3)} / ${p.thetaRmseRandom.toFixed(3)} | ${(100 * p.coverage95).toFixed(1)}% |`,
  );
}
const s = res.seStop;
console.log(
  `SE stop at ${s.se} (min ${s.minItems}, max ${s.maxItems}): mean ${s.meanItems.toFixed(1)} items (${s.items[0]}-${s.items[1]}), ${(100 * s.stoppedBySe).toFixed(0)}% by SE, Kendall ${s.kendall.toFixed(3)}, RMSE ${s.thetaRmse.toFixed(3)}, coverage95 ${(100 * s.coverage95).toFixed(1)}%`,
);
console.log(`(${((performance.now() - t0) / 1000).toFixed(0)} s)`);
