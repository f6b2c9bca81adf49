// Speed benchmark (not a test): Table 1 (5-fold cell-level CV) for LLM-NRM on a simulated
// 189 x 2,000 fleet, on the built dist. Usage:
//   npm run build -w @llm-nrm/core -w @llm-nrm/analysis && node packages/analysis/bench/table1.mjs [runs=3] [models=llm-nrm]
// Prints per-run seconds, the median, and the table; target: under 120 s per run.
// MAX_ITER=n caps optimizer iterations per fit (default: core's own stopping rule).
import os from 'node:os';
import { simulateFleet } from '@llm-nrm/core';
import { crossValidate } from '@llm-nrm/analysis';

const runs = Number(process.argv[2] ?? 3);
const models = (process.argv[3] ?? 'llm-nrm').split(',');
const { bank } = simulateFleet({ models: 189, items: 2000, seed: 1 });
console.log(`machine: ${os.cpus()[0]?.model} x ${os.cpus().length}, node ${process.version}`);
console.log(`bank: ${bank.models.length} LLMs x ${bank.items.length} items, ${bank.colOffsets[bank.colItem.length]} entries per row`);
const times = [];
let last;
for (let r = 0; r < runs; r++) {
  const t0 = performance.now();
  const fitOptions = process.env.MAX_ITER ? { maxIterations: Number(process.env.MAX_ITER) } : {};
  last = crossValidate(bank, { models, folds: 5, seed: 1, fitOptions, onProgress: () => {} });
  const s = (performance.now() - t0) / 1000;
  times.push(s);
  console.log(`run ${r + 1}: ${s.toFixed(1)} s (fits: ${last.rows.flatMap((row) => row.folds.map((f) => f.fitSeconds.toFixed(1))).join(', ')})`);
}
times.sort((a, b) => a - b);
console.log(`median of ${runs}: ${times[Math.floor(runs / 2)].toFixed(1)} s`);
console.log('model\toption acc\toption log-loss\tcorrect acc\tcorrect log-loss\tbrier');
for (const row of last.rows) {
  console.log(
    [row.name, row.option.accuracy.mean, row.option.logLoss.mean, row.correctness.accuracy.mean, row.correctness.logLoss.mean, row.correctness.brier.mean]
      .map((v) => (typeof v === 'number' ? v.toFixed(4) : v))
      .join('\t'),
  );
}
