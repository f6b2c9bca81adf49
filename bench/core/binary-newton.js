#!/usr/bin/env node
// 1PL-4PL fits of one `evaluate --cv 5` fold: damped Newton on the arrowhead Hessian (fit/newton.ts
// with families/binary/newton.ts; fit's default for 3PL, run here for every binary model as fit
// runs it) against block-preconditioned L-BFGS (`newton: false`), and optionally a reference L-BFGS
// run far past its usual stop. Plain node on the built dist; not a test.
//   node bench/core/binary-newton.js [--file f.jsonl] [--models 1pl,2pl,3pl,4pl] [--fold 1] [--reference]
// --file: a tidy responses file (default /tmp/llm-nrm-cv-bench.jsonl, `llm-nrm simulate --seed 7`,
// 189 x 2,000). The fold's training cells (seed 1, 5 folds) are fitted with CV's options
// (tolerance 1e-7, no standard errors). Prints per fit: iterations, passes, CPU s
// (process.cpuUsage), final loss, the stop, and the largest differences of theta and of the item
// parameters from the Newton fit.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fit, getFamily, correctness, withObserved } from '@llm-nrm/core';
import { minimizeNewton } from '../../packages/core/dist/fit/newton.js';
import { binaryNewton } from '../../packages/core/dist/families/binary/newton.js';
import { standardizeTheta } from '../../packages/core/dist/fit/identification.js';
import { cellFolds, foldMask } from '@llm-nrm/analysis';
import { loadBank } from '@llm-nrm/adapters';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const file = opt('file', '/tmp/llm-nrm-cv-bench.jsonl');
const models = opt('models', '1pl,2pl,3pl,4pl').split(',');
const fold = Number(opt('fold', '1'));
const reference = args.includes('--reference');
if (!existsSync(file)) execFileSync(process.execPath, ['packages/cli/dist/bin.js', 'simulate', '-o', file, '--seed', '7', '-q']);
const { bank } = await loadBank(file);
const train = withObserved(bank, foldMask(cellFolds(bank, 5, 1), fold - 1, 'train'));
const J = bank.models.length;
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const maxDiff = (a, b, from, to) => {
  let m = 0;
  for (let t = from; t < to; t++) m = Math.max(m, Math.abs(a[t] - b[t]));
  return m;
};
/** fit's Newton path (fit.ts) for any binary model: the same objective, start and stop. */
function newtonFit(model) {
  const family = getFamily(model);
  const L = family.layout(train);
  const standardize = family.fleetIdentification === 'standardize';
  const inner = family.objective(train, L, {});
  const obj = standardize ? standardizeTheta(inner) : inner;
  const m = binaryNewton(train, L, correctness(train), {}, { standardize, thetaPrecision: standardize ? 0 : 1 });
  const r = minimizeNewton(obj, family.start(train, L), m, { distanceTolerance: 0.01, maxIterations: 200 });
  if (standardize) {
    let mu = 0;
    let v = 0;
    for (let j = 0; j < J; j++) mu += r.x[j] / J;
    for (let j = 0; j < J; j++) v += (r.x[j] - mu) ** 2 / J;
    for (let j = 0; j < J; j++) r.x[j] = (r.x[j] - mu) / Math.sqrt(v);
  }
  return r;
}
console.log(`bank ${J} x ${bank.items.length} (${file}), fold ${fold}/5 training cells`);
for (const model of models) {
  const runs = [
    ['newton', null],
    ['lbfgs', { newton: false }],
    ...(reference ? [['reference', { newton: false, tolerance: 0, distanceTolerance: 1e-4, maxIterations: 20000 }]] : []),
  ];
  let base = null;
  for (const [name, o] of runs) {
    const c0 = cpu();
    const r = o === null ? newtonFit(model) : fit(train, { model, tolerance: 1e-7, standardErrors: false, ...o });
    const c = cpu() - c0;
    base ??= r;
    console.log(
      `${model} ${name.padEnd(9)} it ${String(r.iterations).padStart(4)} passes ${String(r.passes).padStart(5)} CPU ${c.toFixed(2).padStart(6)} s loss ${r.loss.toFixed(4)} (${r.reason}, distance ${r.distance.toExponential(2)}); max |d theta| ${maxDiff(r.x, base.x, 0, J).toExponential(2)}, max |d item| ${maxDiff(r.x, base.x, J, r.x.length).toExponential(2)}`,
    );
  }
}
