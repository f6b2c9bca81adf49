#!/usr/bin/env node
// EXPERIMENT, not adopted (packages/core/BENCHMARKS.md "The twin's memory and targets"): the 'twin'
// SE mode's refit as one Newton step solved by preconditioned conjugate gradients, against the default (L-BFGS from the fit's end). The twin moves from the fit's point
// x0 only by its bias, so its problem is nearly quadratic: solve H d = -g(x0) with H's products by
// differences of gradients (forward: 1 pass each; central: 2), preconditioned by the twin's own
// blocks at x0, no line search. Per CG iteration: passes so far and max_j |theta_j - theta_j(tight)|
// / SE_j against the twin run to 0.001 SE (the fit's final SEs), beside the default twin's passes
// and gap; and at the end the true gradient's preconditioned size against CG's residual.
//   node bench/core/twinCg.js [--models 189] [--items 2000] [--seed 7] [--threads 2] [--iters 120]
//     [--diff forward|central] [--h 1e-3] [--every 5]
import { wasmEngine } from '@llm-nrm/engine-wasm';
import * as core from '@llm-nrm/core';
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const J = Number(opt('models', 189));
const I = Number(opt('items', 2000));
const iters = Number(opt('iters', 120));
const central = opt('diff', 'forward') === 'central';
const h = Number(opt('h', 1e-3));
const every = Number(opt('every', 5));
const w = wasmEngine({ threads: Number(opt('threads', 2)) });
const engine = w.engine;
const f = core.simulateFleet({ models: J, items: I, seed: Number(opt('seed', 7)) });
const r = core.fit(f.bank, { engine });
const tb = core.twinBank(r.bank, r.layout, r.x);
const tight = core.fit(tb, { init: r.x, standardErrors: false, distanceTolerance: 0.001, engine });
const gapOf = (theta) => {
  let d = 0;
  for (let j = 0; j < J; j++) d = Math.max(d, Math.abs(theta[j] - tight.x[j]) / r.se[j]);
  return d;
};
const defaultTheta = Float64Array.from({ length: J }, (_, j) => r.x[j] + r.twin.bias[j]);
console.log(
  `${J} x ${I}: fit ${r.passes} passes; default twin ${r.twin.passes} passes, gap ${gapOf(defaultTheta).toFixed(3)}; tight twin ${tight.passes} passes`,
);

// The fit's objective on the twin bank: the engine's, theta standardised (fit's 'standardize').
const o0 = engine.objective(tb, r.family, r.priors);
const obj = core.standardizeTheta(o0);
const n = r.x.length;
const free = obj.free;
const x0 = Float64Array.from(r.x);
const pc = core.blockPreconditioner(tb, r.family, o0, r.priors, { engine });
pc.refresh(x0);
let passes = 1; // the blocks' refresh is not a pass; g0 is
const g0 = new Float64Array(n);
obj.lossAndGrad(x0, g0);
const xt = new Float64Array(n);
const gt = new Float64Array(n);
const gm = new Float64Array(n);
const hvp = (p, out) => {
  let m = 0;
  for (let t = 0; t < n; t++) if (free[t]) m = Math.max(m, Math.abs(p[t]));
  const eps = h / m;
  for (let t = 0; t < n; t++) xt[t] = x0[t] + (free[t] ? eps * p[t] : 0);
  obj.lossAndGrad(xt, gt);
  passes++;
  if (central) {
    for (let t = 0; t < n; t++) xt[t] = x0[t] - (free[t] ? eps * p[t] : 0);
    obj.lossAndGrad(xt, gm);
    passes++;
    for (let t = 0; t < n; t++) out[t] = free[t] ? (gt[t] - gm[t]) / (2 * eps) : 0;
  } else for (let t = 0; t < n; t++) out[t] = free[t] ? (gt[t] - g0[t]) / eps : 0;
};
const dot = (a, b) => {
  let s = 0;
  for (let t = 0; t < n; t++) s += a[t] * b[t];
  return s;
};
const res = Float64Array.from(g0, (g, t) => (free[t] ? -g : 0));
const z = new Float64Array(n);
pc.apply(res, z);
for (let t = 0; t < n; t++) if (!free[t]) z[t] = 0;
const p = Float64Array.from(z);
const hp = new Float64Array(n);
const d = new Float64Array(n);
let rz = dot(res, z);
const rz0 = rz;
const thetaAt = () =>
  core.standardized(
    Float64Array.from(x0, (v, t) => v + d[t]),
    J,
  );
for (let k = 1; k <= iters; k++) {
  hvp(p, hp);
  const php = dot(p, hp);
  if (!(php > 0)) {
    console.log(`iteration ${k}: p'Hp = ${php}, stopped`);
    break;
  }
  const alpha = rz / php;
  for (let t = 0; t < n; t++) {
    d[t] += alpha * p[t];
    res[t] -= alpha * hp[t];
  }
  pc.apply(res, z);
  for (let t = 0; t < n; t++) if (!free[t]) z[t] = 0;
  const rzNew = dot(res, z);
  const beta = rzNew / rz;
  rz = rzNew;
  for (let t = 0; t < n; t++) p[t] = z[t] + beta * p[t];
  if (k % every === 0 || k === iters)
    console.log(`CG ${k}: ${passes} passes; gap ${gapOf(thetaAt()).toFixed(3)}; r'P^-1 r / r0'P^-1 r0 ${(rz / rz0).toExponential(2)}`);
}
// The true gradient at the CG point, preconditioned, against CG's own residual (the nonlinearity).
const xe = Float64Array.from(x0, (v, t) => v + d[t]);
const ge = new Float64Array(n);
obj.lossAndGrad(xe, ge);
for (let t = 0; t < n; t++) ge[t] = free[t] ? -ge[t] : 0;
const ze = new Float64Array(n);
pc.apply(ge, ze);
console.log(`at the end: true g'P^-1 g / r0'P^-1 r0 ${(dot(ge, ze) / rz0).toExponential(2)} (CG's residual ${(rz / rz0).toExponential(2)})`);
w.dispose();
process.exit(0);
