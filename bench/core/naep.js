#!/usr/bin/env node
// Real data: LLM-NRM vs soft NRM on the NAEP fixture (18 LLMs, 297 items x 4 rotations), from
// ../shared/fixtures/response-matrices/mainlp-llm-psychometrics. Prints the training losses, whether
// the loss ever rose, and the positional biases LLM-NRM finds.
//   node bench/core/naep.js [--optimizer lbfgs|adam] [--priors '{"sharpnessSd": 1}']
import { fileURLToPath } from 'node:url';
import * as coreMain from '@llm-nrm/core';
import * as coreEngine from '@llm-nrm/core/engine';

const core = { ...coreMain, ...coreEngine };
import { newReport, readNaepRotations } from '@llm-nrm/adapters';

const dir = fileURLToPath(new URL('../../../shared/fixtures/response-matrices/mainlp-llm-psychometrics', import.meta.url));
const args = process.argv.slice(2);
const optimizer = args.includes('--optimizer') ? args[args.indexOf('--optimizer') + 1] : 'lbfgs';
// --priors: the fits' Priors (JSON), e.g. a candidate change of the model's priors against the default.
const priors = args.includes('--priors') ? JSON.parse(args[args.indexOf('--priors') + 1]) : {};
const report = newReport();
const records = [];
for await (const r of readNaepRotations(dir, { report })) records.push(r);
const { bank, stats } = core.bankFromRecords(records);
console.log(
  `NAEP: ${bank.models.length} LLMs x ${bank.items.length} items, ${bank.colItem.length} presentations, ${stats.cells} cells (skipped ${report.skipped.length})`,
);
const rows = [];
const fits = {};
for (const [name, model, parts] of [
  ['LLM-NRM', 'llm-nrm', {}],
  ['LLM-NRM w/o fallback', 'llm-nrm', { fallback: false }],
  ['soft NRM', 'nrm', {}],
]) {
  const r = core.fit(bank, { model, parts, optimizer, priors, standardErrors: false });
  let rises = 0;
  let worst = 0;
  for (let i = 1; i < r.trace.length; i++) {
    const d = r.trace[i] - r.trace[i - 1];
    if (d > 1e-9 * Math.abs(r.trace[i - 1])) {
      rises++;
      worst = Math.max(worst, d);
    }
  }
  fits[name] = r;
  rows.push([name, r.loss.toFixed(2), r.iterations, r.passes, r.seconds.toFixed(1), r.converged, r.reason, rises, worst.toFixed(3)]);
}
console.log('\nmodel                  loss        iters passes seconds converged reason      rises max-rise');
for (const r of rows)
  console.log(
    `${r[0].padEnd(22)} ${String(r[1]).padStart(10)} ${String(r[2]).padStart(6)} ${String(r[3]).padStart(6)} ${String(r[4]).padStart(7)} ${String(r[5]).padStart(9)} ${String(r[6]).padEnd(11)} ${String(r[7]).padStart(5)} ${r[8]}`,
  );
const full = fits['LLM-NRM'];
const nrm = fits['soft NRM'];
console.log(
  `\nLLM-NRM training loss ${full.loss < nrm.loss ? 'is lower' : 'is NOT lower'} than soft NRM's: ${full.loss.toFixed(2)} vs ${nrm.loss.toFixed(2)} (${(((nrm.loss - full.loss) / nrm.loss) * 100).toFixed(2)}% lower)`,
);
const L = full.layout;
const b = core.toBundle(full, { version: 'bench' });
// SEs of theta by seMode 'quasi' (measured dispersion phi plus the priors' bias) and the Fisher
// ones (one multinomial draw per cell).
const seq = core.thetaStandardErrors(full.family, full.bank, L, full.x, core.freeMask(L), full.priors, 0, { profileItems: true, errorModel: 'quasi' });
// And as fit reports them (the default seMode 'twin'): the prior term with the sharpness spread by the
// unbiased moment (spread 'measured') and the bias term max(prior term, 2 twin bias^2), the twin
// refitted from the estimate on the model's own predictions (fit/twinBias.ts) from the fit's end,
// stopped at 0.1 SE. The same fit again, with its SEs.
const J = full.bank.models.length;
const def = core.fit(bank, { optimizer, priors });
let same = def.loss === full.loss;
for (let t = 0; t < full.x.length; t++) same &&= def.x[t] === full.x[t];
// The twin as a whole fit of the twin bank (the mode before the twincheap branch), for comparison.
const twinFit = core.fit(core.twinBank(full.bank, L, full.x), { priors, optimizer, init: full.x, standardErrors: false, distanceTolerance: 0.1 });
const seMeasured = core.thetaStandardErrors(full.family, full.bank, L, full.x, core.freeMask(L), full.priors, 0, {
  profileItems: true,
  errorModel: 'quasi',
  spread: 'measured',
});
const seWhole = core.twinBiasSe(seMeasured.se, seMeasured.priorVariance, full.x.subarray(0, J), twinFit.x.subarray(0, J), core.TWIN_BIAS_SCALE);
console.log(`
fleet spreads (prior variances; sharpness, position, fallback): posterior moment ${Array.from(seq.spread.slice(1), (v) => v.toFixed(2)).join(' / ')}, --se twin ${Array.from(seMeasured.spread.slice(1), (v) => v.toFixed(2)).join(' / ')}`);
const seOf = new Map(full.bank.models.map((m, j) => [m, j]));
console.log(
  `\nPositional bias delta_j (logits, sum to zero) over displayed positions A B C D, sharpness s_j, theta_j, SE(theta_j) by --se quasi (as fit reports it: the default --se twin, its twin's bias; the twin's as a whole fit of the twin bank; Fisher SE, dispersion phi_j); the fit with SEs ${same ? 'has the same x and loss' : 'DIFFERS from the one without'} (seMode ${def.seMode}):`,
);
for (const l of [...b.llms].sort((p, q) => q.theta - p.theta)) {
  const j = seOf.get(l.id);
  const se = `se ${seq.se[j].toFixed(3)} (twin ${def.se[j].toFixed(3)}, bias ${def.twin.bias[j].toFixed(3)}; whole ${seWhole[j].toFixed(3)}, ${(twinFit.x[j] - full.x[j]).toFixed(3)}; Fisher ${(1 / Math.sqrt(seq.information[j])).toFixed(3)}, phi ${seq.dispersion[j].toFixed(3)})`;
  console.log(
    `  ${l.id.padEnd(14)} theta ${l.theta.toFixed(2).padStart(6)}  ${se}  s ${l.sharpness.toFixed(2)}  delta ${l.positionBias
      .slice(0, 4)
      .map((v) => v.toFixed(2).padStart(6))
      .join(' ')}  fallback ${l.fallback
      .slice(0, 4)
      .map((v) => v.toFixed(2).padStart(6))
      .join(' ')}`,
  );
}
console.log(
  `twin from the fit's end: ${def.twin.passes} passes, ${def.twin.seconds.toFixed(1)} s; as a whole fit of the twin bank: ${twinFit.passes} passes, ${twinFit.seconds.toFixed(1)} s`,
);
console.log(`globals: w0 ${b.globals.w0.toFixed(3)}, kappa ${b.globals.kappa.toFixed(3)}; layout kMax ${L.kMax}`);
