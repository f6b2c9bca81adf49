#!/usr/bin/env node
// The SEs' prior-bias and noise terms over the joint system (every LLM, item and the globals), against
// the per-LLM profile of `fit`'s 'quasi' SE, on simulated fleets (BENCHMARKS.md, "What was tried").
// A dense Gauss-Newton matrix by central differences of the gradient with self-targets
// (q = phi_j Q p(x): the GN product is the Hessian of the loss whose residual is zero at x), the
// priors' curvature added (llmPrior; items 1 / itemSd^2), the standardisation's two directions (mean
// and scale of theta) pinned by a penalty, and, with w = A^-1 e_theta_j,
//   SE_j^2 = w^T H_phi w + sum_g rho_g w^T S_g w   (rho_g as 'quasi': mean of z^2 + shrink over the fleet;
//   --rho eb: (mean z^2 - mean s (1 - s)) / mean (1 - s)^2).
// Slow by design (dense, O(n^3), n = the parameter count): minutes at 6 items, about 17 at 200.
//   node bench/core/jointSe.js [--items 6] [--reps 2] [--seed0 0] [--rhoRows 100] [--rho moment|eb]
import * as core from '@llm-nrm/core';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const models = Number(opt('models', '100'));
const items = Number(opt('items', '6'));
const reps = Number(opt('reps', '2'));
const seed0 = Number(opt('seed0', '0'));
const rhoMode = opt('rho', 'moment');

function standardize(v) {
  const m = v.reduce((s, t) => s + t, 0) / v.length;
  const sd = Math.sqrt(v.reduce((s, t) => s + (t - m) ** 2, 0) / v.length);
  return v.map((t) => (t - m) / sd);
}

function chol(A, n) {
  const L = Float64Array.from(A);
  for (let j = 0; j < n; j++) {
    let d = L[j * n + j];
    for (let k = 0; k < j; k++) d -= L[j * n + k] ** 2;
    if (!(d > 0)) throw new Error(`not PD at ${j}: ${d}`);
    d = Math.sqrt(d);
    L[j * n + j] = d;
    for (let i = j + 1; i < n; i++) {
      let s = L[i * n + j];
      const ri = i * n;
      const rj = j * n;
      for (let k = 0; k < j; k++) s -= L[ri + k] * L[rj + k];
      L[i * n + j] = s / d;
    }
  }
  return L;
}
function solve(L, n, b) {
  const y = Float64Array.from(b);
  for (let i = 0; i < n; i++) {
    let s = y[i];
    for (let k = 0; k < i; k++) s -= L[i * n + k] * y[k];
    y[i] = s / L[i * n + i];
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i];
    for (let k = i + 1; k < n; k++) s -= L[k * n + i] * y[k];
    y[i] = s / L[i * n + i];
  }
  return y;
}

function denseGN(res, rowScale) {
  const { bank, layout, x, family } = res;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC];
  const pr = family.predictor(bank, layout, x);
  const q = new Float32Array(bank.q.length);
  const p = new Float64Array(bank.kMax);
  const J = layout.nModels;
  for (let j = 0; j < J; j++)
    for (let c = 0; c < nC; c++) {
      if (!bank.observed[j * nC + c]) continue;
      const co = bank.colOffsets[c];
      const K = bank.colOffsets[c + 1] - co;
      let Q = 0;
      for (let k = 0; k < K; k++) Q += bank.q[j * width + co + k];
      pr.cell(j, c, p);
      for (let k = 0; k < K; k++) q[j * width + co + k] = rowScale[j] * Q * p[k];
    }
  const b2 = { ...bank, q };
  const flat = { itemSd: 1e12, llmSd: 1e12, sharpnessSd: 1e12 };
  const { objective } = core.modelObjective(b2, res.model, res.parts, flat);
  const n = layout.size;
  const H = new Float64Array(n * n);
  const gp = new Float64Array(n);
  const gm = new Float64Array(n);
  const xp = Float64Array.from(x);
  const h = 1e-5;
  for (let t = 0; t < n; t++) {
    xp[t] = x[t] + h;
    objective.lossAndGrad(xp, gp, { thetaPrior: false, itemPrior: false });
    xp[t] = x[t] - h;
    objective.lossAndGrad(xp, gm, { thetaPrior: false, itemPrior: false });
    xp[t] = x[t];
    for (let r = 0; r < n; r++) H[r * n + t] = (gp[r] - gm[r]) / (2 * h);
  }
  // symmetrise
  for (let r = 0; r < n; r++)
    for (let c = r + 1; c < n; c++) {
      const v = 0.5 * (H[r * n + c] + H[c * n + r]);
      H[r * n + c] = v;
      H[c * n + r] = v;
    }
  return H;
}

const tot = { hitQ: 0, hitJ: 0, hitJn: 0, n: 0 };
for (let r = 0; r < reps; r++) {
  const seed = 1000 * items + seed0 + r;
  const f = core.simulateFleet({ models, items, seed });
  const res = core.fit(f.bank);
  const { layout, x, family, bank } = res;
  const J = layout.nModels;
  const n = layout.size;
  const quasi = core.thetaStandardErrors(family, bank, layout, x, core.freeMask(layout), res.priors, 0, { profileItems: true, errorModel: 'quasi' });
  const ones = new Float64Array(J).fill(1);
  const t0 = performance.now();
  const H = denseGN(res, ones);
  const Hphi = denseGN(res, quasi.dispersion);
  // Priors: S diagonal with group.
  const S = new Float64Array(n);
  const grp = new Uint8Array(n);
  const zz = new Float64Array(n);
  for (let j = 0; j < J; j++) {
    const idx = family.llmIndices(layout, j);
    const lp = family.llmPrior(layout, x, res.priors, j);
    idx.forEach((t, a) => {
      S[t] = lp.precision[a];
      grp[t] = lp.group[a];
      zz[t] = lp.z[a];
    });
  }
  for (let t = layout.a; t < layout.a + layout.sumK; t++) S[t] = 0.01;
  for (let t = layout.c; t < layout.c + layout.sumK; t++) S[t] = 0.01;
  const A = Float64Array.from(H);
  for (let t = 0; t < n; t++) A[t * n + t] += S[t];
  // gauge penalty along mean and scale of theta
  let mx = 0;
  for (let t = 0; t < n; t++) mx = Math.max(mx, A[t * n + t]);
  const mu = 1e4 * mx;
  const th = x.subarray(0, J);
  let nn = 0;
  for (let j = 0; j < J; j++) nn += th[j] ** 2;
  for (let a = 0; a < J; a++) for (let b = 0; b < J; b++) A[a * n + b] += mu * (1 / J + (th[a] * th[b]) / nn);
  // globals have no prior: tiny ridge
  A[layout.w0 * n + layout.w0] += 1e-8;
  A[layout.kbar * n + layout.kbar] += 1e-8;
  const L = chol(A, n);
  // posterior variances for rho (diag of A^-1) on grouped coords
  const moment = new Map();
  const W = [];
  for (let j = 0; j < J; j++) {
    const e = new Float64Array(n);
    e[j] = 1;
    W.push(solve(L, n, e));
  }
  // diag of A^-1 for grouped coords: expensive; do for LLM params
  for (let j = 0; j < Math.min(J, Number(opt('rhoRows', '100'))); j++) {
    const idx = family.llmIndices(layout, j);
    for (const t of idx) {
      const g = grp[t];
      if (!g) continue;
      const e = new Float64Array(n);
      e[t] = 1;
      const v = solve(L, n, e)[t];
      const s = S[t] * v;
      if (1 - s < 0.01) continue;
      const m = moment.get(g) ?? { a: 0, b: 0, c: 0, n: 0 };
      m.a += zz[t] ** 2 + s;
      m.b += zz[t] ** 2 - s * (1 - s);
      m.c += (1 - s) ** 2;
      m.n += 1;
      moment.set(g, m);
    }
  }
  const rho = new Map();
  for (const [g, m] of moment) rho.set(g, rhoMode === 'eb' ? Math.max(0, m.b / m.c) : m.a / m.n);
  const truth = standardize(Array.from(f.truth.subarray(0, J)));
  let hitQ = 0;
  let hitJ = 0;
  let hitJn = 0;
  const seJ = [];
  for (let j = 0; j < J; j++) {
    const w = W[j];
    // projected: the solution already lies in the constrained space
    let noise = 0;
    for (let a = 0; a < n; a++) {
      if (w[a] === 0) continue;
      let acc = 0;
      const ra = a * n;
      for (let b = 0; b < n; b++) acc += Hphi[ra + b] * w[b];
      noise += w[a] * acc;
    }
    let prior = 0;
    for (let t = 0; t < n; t++) {
      const g = grp[t];
      if (g) prior += (rho.get(g) ?? 1) * S[t] * w[t] * w[t];
      else if (t >= J) prior += S[t] * w[t] * w[t] * (S[t] * x[t] * x[t]); // items: plug-in bias
    }
    const se = Math.sqrt(Math.max(0, noise) + prior);
    seJ.push(se);
    const d = x[j] - truth[j];
    if (Math.abs(d) <= 1.96 * quasi.se[j]) hitQ++;
    if (Math.abs(d) <= 1.96 * se) hitJ++;
    if (Math.abs(d) <= 1.96 * Math.sqrt(Math.max(0, noise))) hitJn++;
  }
  const med = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
  console.log(
    `seed ${seed}: n ${n}, ${((performance.now() - t0) / 1000).toFixed(1)} s; rho ${[...rho].map(([g, v]) => `${g}:${v.toFixed(3)}`).join(' ')}; quasi ${hitQ}/${J} (median ${med(Array.from(quasi.se)).toFixed(3)}), joint ${hitJ}/${J} (median ${med(seJ).toFixed(3)}), joint noise-only ${hitJn}`,
  );
  tot.hitQ += hitQ;
  tot.hitJ += hitJ;
  tot.hitJn += hitJn;
  tot.n += J;
}
console.log(
  `total: quasi ${((100 * tot.hitQ) / tot.n).toFixed(1)}%, joint ${((100 * tot.hitJ) / tot.n).toFixed(1)}%, joint noise ${((100 * tot.hitJn) / tot.n).toFixed(1)}%`,
);
