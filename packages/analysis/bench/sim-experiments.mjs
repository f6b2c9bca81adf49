// Information split and compression curve on the simulated 189 x 2,000 fleet (not a test).
//   node packages/analysis/bench/sim-experiments.mjs [maxIterations]
// SCORING=fixed-items|theta-only picks the compression scoring (default fixed-items);
// ONLY=compression skips the information part.
import { fit, simulateFleet } from '@llm-nrm/core';
import { compression, informationSummary, itemInformation, informativeDistractors } from '@llm-nrm/analysis';

const maxIterations = process.argv[2] ? Number(process.argv[2]) : undefined;
const fitOptions = maxIterations ? { maxIterations } : {};
const { bank, truth, layout } = simulateFleet({ models: 189, items: 2000, seed: 1 });
const fmt = (rows) =>
  rows
    .map(
      (r) =>
        `${r.benchmark}\titems ${r.items}\ttotal ${r.total.toFixed(4)}\tbinary ${r.binary.toFixed(4)}\twrong ${r.wrong.toFixed(4)}\t+${(100 * r.gain).toFixed(1)}%\tmedian item +${(100 * r.medianItemGain).toFixed(1)}%`,
    )
    .join('\n');
const only = process.env.ONLY;
if (only !== 'compression') {
  console.log('Information split, true parameters, N(0,1) prior (41-node Gauss-Hermite):');
  console.log(fmt(informationSummary(bank, itemInformation(bank, layout, truth))));
  let t0 = performance.now();
  const full = fit(bank, { standardErrors: false, ...fitOptions });
  console.log(`\nfull fit: ${((performance.now() - t0) / 1000).toFixed(1)} s, ${full.iterations} iterations, ${full.reason}`);
  console.log('Information split, fitted parameters, N(0,1) prior:');
  console.log(fmt(informationSummary(bank, itemInformation(full.bank, full.layout, full.x))));
  console.log('Information split, fitted parameters, fitted abilities:');
  console.log(fmt(informationSummary(bank, itemInformation(full.bank, full.layout, full.x, { abilities: 'fitted' }))));
  const inf = informativeDistractors(full.bank, full.layout, full.x);
  console.log(`items with an informative distractor: ${inf.filter((d) => d.length > 0).length} / ${inf.length}`);
}
const scoring = process.env.SCORING ?? 'fixed-items';
const t0c = performance.now();
const comp = compression(bank, {
  budgets: [10, 20, 41, 100, 200, 500],
  folds: 5,
  seed: 1,
  scoring,
  fitOptions,
  onProgress: (m) => process.stderr.write(`${m}\r`),
});
console.log(
  `\ncompression, ${scoring} scoring (${((performance.now() - t0c) / 1000).toFixed(1)} s): items, Kendall (informative), Kendall (random), per-fold mean`,
);
for (const p of comp.points) console.log(`${p.budget}\t${p.kendall.toFixed(4)}\t${p.kendallRandom.toFixed(4)}\t${p.kendallFoldMean.toFixed(4)}`);
