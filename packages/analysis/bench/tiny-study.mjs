// Tiny-benchmark study (issue 10): Kendall tau of tiny-run thetas vs full-bank thetas and the MAE of
// the predicted full-bank accuracy, over 5 LLM folds, for every selection x scoring method.
//   node packages/analysis/bench/tiny-study.mjs sim [models] [items]   simulated fleet (default 189 x 2000)
//   node packages/analysis/bench/tiny-study.mjs naep                     NAEP fixture (18 LLMs x 297 items x 4 rotations)
// METHODS=range+fleet,random+fleet limits the methods; BUDGETS=10,20,41,100.
import { bankFromRecords, simulateFleet } from '@llm-nrm/core';
import { STUDY_METHODS, selectionStudy } from '@llm-nrm/analysis';

const [what = 'sim', m = '189', n = '2000'] = process.argv.slice(2);
let bank;
if (what === 'naep') {
  const { readNaepRotations } = await import('@llm-nrm/adapters');
  const dir = new URL('../../../../shared/fixtures/response-matrices/mainlp-llm-psychometrics', import.meta.url).pathname;
  const recs = [];
  for await (const r of readNaepRotations(dir)) recs.push(r);
  bank = bankFromRecords(recs).bank;
} else bank = simulateFleet({ models: Number(m), items: Number(n), seed: 1 }).bank;
const methods = process.env.METHODS ? process.env.METHODS.split(',') : STUDY_METHODS;
const budgets = (process.env.BUDGETS ?? '10,20,41,100').split(',').map(Number);
const t0 = performance.now();
const res = selectionStudy(bank, { budgets, folds: 5, seed: 1, methods, onProgress: (s) => process.stderr.write(`${s}\n`) });
const secs = ((performance.now() - t0) / 1000).toFixed(1);
console.log(`${what === 'naep' ? 'NAEP fixture' : `simulated ${m} x ${n}`}: ${bank.models.length} LLMs, ${bank.items.length} items, 5 LLM folds (${secs} s)`);
console.log(`| method | ${budgets.map((b) => `Kendall @${b}`).join(' | ')} | ${budgets.map((b) => `acc MAE @${b}`).join(' | ')} |`);
console.log(`|---|${budgets.map(() => '---').join('|')}|${budgets.map(() => '---').join('|')}|`);
for (const method of methods) {
  const rows = res.rows.filter((r) => r.method === method);
  console.log(`| ${method} | ${rows.map((r) => r.kendall.toFixed(3)).join(' | ')} | ${rows.map((r) => (100 * r.accuracyMae).toFixed(2)).join(' | ')} |`);
}
