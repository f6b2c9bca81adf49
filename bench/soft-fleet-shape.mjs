// The simulated soft fleet's shape (issue 30) from its truth and from a full LLM-NRM fit of it, to check
// against the real 25-LLM MMLU fleet's description: node bench/soft-fleet-shape.mjs (ITEMS default 2000).
import { fit, toBundle, softplus } from '@llm-nrm/core';
import { realShapedFleetFull } from './realShapedFleet.mjs';
const items = Number(process.env.ITEMS ?? 2000);
const { bank, layout: L, truth: x } = realShapedFleetFull({ models: 25, options: 4, hard: false, seed: 1, items });
const q = (a, p) => {
  const s = [...a].sort((u, v) => u - v);
  const h = (s.length - 1) * p;
  const lo = Math.floor(h);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (h - lo);
};
const f3 = (a) => `${q(a, 0).toFixed(2)} | ${q(a, 0.25).toFixed(2)} / ${q(a, 0.5).toFixed(2)} / ${q(a, 0.75).toFixed(2)} | ${q(a, 1).toFixed(2)}`;
const J = bank.models.length,
  K = bank.kMax,
  nC = bank.colItem.length,
  W = bank.colOffsets[nC];
const th = Array.from({ length: J }, (_, j) => x[L.theta + j]);
const m = th.reduce((s, v) => s + v, 0) / J,
  sd = Math.sqrt(th.reduce((s, v) => s + (v - m) ** 2, 0) / J);
const sdOf = (a) => {
  const mm = a.reduce((s, v) => s + v, 0) / a.length;
  return Math.sqrt(a.reduce((s, v) => s + (v - mm) ** 2, 0) / a.length);
};
const acc = Array.from({ length: J }, (_, j) => {
  let r = 0;
  for (let c = 0; c < nC; c++) {
    const o = j * W + bank.colOffsets[c];
    let b = 0;
    for (let k = 1; k < 4; k++) if (bank.q[o + k] > bank.q[o + b]) b = k;
    if (b === bank.key[bank.colItem[c]]) r++;
  }
  return r / nC;
});
console.log(`truth theta min|q1/med/q3|max: ${f3(th)}; standardised: ${f3(th.map((v) => (v - m) / sd))}`);
console.log(`truth sharpness: ${f3(th.map((_, j) => softplus(x[L.sbar + j])))}`);
console.log(`truth bias SD: ${f3(th.map((_, j) => sdOf(Array.from(x.subarray(L.delta + j * K, L.delta + j * K + K)))))}`);
console.log(`truth w0 ${x[L.w0].toFixed(2)} kappa ${softplus(x[L.kbar]).toFixed(2)}`);
console.log(`accuracy: ${f3(acc)}`);
const t0 = performance.now();
const res = fit(bank, { model: 'llm-nrm', standardErrors: false });
const b = toBundle(res, { version: 'x' });
console.log(`fit ${((performance.now() - t0) / 1000).toFixed(0)} s, converged ${res.converged}, iterations ${res.iterations}`);
console.log(`fit theta: ${f3(b.llms.map((l) => l.theta))}`);
console.log(`fit sharpness: ${f3(b.llms.map((l) => l.sharpness))}`);
console.log(`fit bias SD: ${f3(b.llms.map((l) => sdOf(l.positionBias)))}`);
console.log(`fit w0 ${b.globals.w0.toFixed(2)} kappa ${b.globals.kappa.toFixed(2)}`);
const ta = b.llms.map((l) => l.theta);
let conc = 0,
  n = 0;
for (let i = 0; i < J; i++)
  for (let k = i + 1; k < J; k++) {
    n++;
    conc += Math.sign((ta[i] - ta[k]) * (th[i] - th[k]));
  }
console.log(`Kendall fit vs truth ${(conc / n).toFixed(3)}`);
