// Accuracy of a tiny run's predicted full-bank accuracy (issue 30): per LLM fold calibrate on the
// other LLMs, select BUDGET items (default 41), fit the run-accuracy model on them scored as tiny
// runs, score the held-out LLMs from one presentation per item and predict. Also a random-answer run
// per fold (softmax of uniform log-probabilities).
//   node bench/tiny-accuracy.mjs            NAEP (18 real LLMs), leave-one-LLM-out
//   node bench/tiny-accuracy.mjs soft|hard  the real-shaped simulated fleets (benchFleet.mjs), FOLDS (default 5) LLM folds, ITEMS (default 1000)
// Build first: npm run build.
import { runAccuracyStudy } from '@llm-nrm/analysis';
import { benchFleet } from './benchFleet.mjs';

const what = process.argv[2] ?? 'naep';
const budget = Number(process.env.BUDGET ?? 41);
const bank = await benchFleet(what, { items: Number(process.env.ITEMS ?? 1000) });
const folds = what === 'naep' ? bank.models.length : Number(process.env.FOLDS ?? 5);
const t0 = performance.now();
const res = runAccuracyStudy(bank, { budget, folds, onProgress: (s) => process.stderr.write(`${s}\n`) });
const pct = (v) => (100 * v).toFixed(1);
console.log(
  `${what}, ${folds === bank.models.length ? 'leave-one-LLM-out' : `${folds} LLM folds`}, ${budget} items: | LLM | observed | predicted [90%] | error |`,
);
let sum = 0;
let worst = 0;
let covered = 0;
res.predicted.forEach((p, j) => {
  const e = Math.abs(p.accuracy - res.observed[j]);
  sum += e;
  worst = Math.max(worst, e);
  if (res.observed[j] >= p.low && res.observed[j] <= p.high) covered++;
  console.log(`| ${bank.models[j]} | ${pct(res.observed[j])} | ${pct(p.accuracy)} [${pct(p.low)}, ${pct(p.high)}] | ${pct(e)} |`);
});
const J = bank.models.length;
console.log(`MAE ${pct(sum / J)} points, worst ${pct(worst)}, 90% intervals cover ${covered}/${J}`);
const rnd = res.randomRuns.map((r) => r.prediction.accuracy - r.chance);
console.log(`random-answer runs: predicted minus chance ${rnd.map((v) => pct(v)).join(', ')} points (chance ${pct(res.randomRuns[0].chance)})`);
console.log(`(${((performance.now() - t0) / 1000).toFixed(0)} s)`);
