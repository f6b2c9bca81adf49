// Accuracy of a tiny run's predicted full-bank accuracy (issue 30), leave-one-LLM-out on the NAEP
// fixture: per LLM calibrate on the other 17, select BUDGET items (default 41), fit the run-accuracy
// model on the 17 scored as tiny runs, score the held-out LLM from one presentation per item and
// predict. Also a random-answer run per fold (softmax of uniform log-probabilities).
//   node bench/tiny-accuracy.mjs            (build first: npm run build)
import { bankFromRecords } from '@llm-nrm/core';
import { readNaepRotations } from '@llm-nrm/adapters';
import { runAccuracyStudy } from '@llm-nrm/analysis';

const budget = Number(process.env.BUDGET ?? 41);
const dir = new URL('../../shared/fixtures/response-matrices/mainlp-llm-psychometrics', import.meta.url).pathname;
const records = [];
for await (const r of readNaepRotations(dir)) records.push(r);
const { bank } = bankFromRecords(records);
const t0 = performance.now();
const res = runAccuracyStudy(bank, { budget, onProgress: (s) => process.stderr.write(`${s}\n`) });
const pct = (v) => (100 * v).toFixed(1);
console.log(`NAEP, leave-one-LLM-out, ${budget} items: | LLM | observed | predicted [90%] | error |`);
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
