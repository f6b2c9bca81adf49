// Prototype (issue 30) of an empirical-Bayes tiny-run scorer, measured by bench/tiny-ceiling.mjs: theta, log
// sharpness, position bias and fallback of one LLM by MAP with N(fleet mean, fleet variance) priors on each
// bias and fallback coordinate (the calibrated training LLMs'), by coordinate golden-section sweeps.
import { softplus, softplusInv } from '@llm-nrm/core';
import { llmCrossEntropy, minimiseThetaSharpness } from '@llm-nrm/core/engine';
import { gridGoldenMinimum } from '../packages/core/dist/internal/gridGoldenMinimum.js';
export function fleetPrior(calib, trainList, floorVar = 1e-4) {
  const L = calib.layout,
    K = L.kMax ?? (L.delta !== undefined ? (L.rho - L.delta) / L.nModels : 0);
  const stat = (off) => {
    const mean = new Float64Array(K),
      v = new Float64Array(K);
    for (const j of trainList) for (let k = 0; k < K; k++) mean[k] += calib.x[off + j * K + k] / trainList.length;
    for (const j of trainList) for (let k = 0; k < K; k++) v[k] += (calib.x[off + j * K + k] - mean[k]) ** 2 / Math.max(1, trainList.length - 1);
    return { mean, v: v.map((a) => Math.max(a, floorVar)) };
  };
  const us = trainList.map((j) => Math.log(softplus(calib.x[L.sbar + j])));
  const um = us.reduce((a, b) => a + b, 0) / us.length;
  const uv = us.reduce((a, b) => a + (b - um) ** 2, 0) / Math.max(1, us.length - 1);
  return { K, delta: stat(L.delta), rho: stat(L.rho), u0: um, usd: Math.sqrt(uv) };
}
export function ebScore(bank, L, xs, j, cols, pr, { sweeps = 3, usd = 0.5, thetaSd = 3, fitRho = true, fitDelta = true } = {}) {
  const K = pr.K;
  const keep = xs.slice();
  const d = Array.from(pr.delta.mean),
    r = Array.from(pr.rho.mean);
  const set = () => {
    for (let k = 0; k < K; k++) {
      xs[L.delta + j * K + k] = d[k];
      xs[L.rho + j * K + k] = r[k];
    }
  };
  set();
  const data = llmCrossEntropy(bank, L, xs, j, cols);
  let theta = 0,
    u = pr.u0;
  const nuisPrior = () => {
    let s = 0;
    for (let k = 0; k < K; k++) s += (d[k] - pr.delta.mean[k]) ** 2 / (2 * pr.delta.v[k]) + (r[k] - pr.rho.mean[k]) ** 2 / (2 * pr.rho.v[k]);
    return s;
  };
  const f = (t, uu) => {
    xs[L.theta + j] = t;
    xs[L.sbar + j] = softplusInv(Math.exp(uu));
    set();
    return data((t * t) / (2 * thetaSd * thetaSd) + (uu - pr.u0) ** 2 / (2 * usd * usd) + nuisPrior());
  };
  let res;
  for (let s = 0; s < sweeps; s++) {
    res = minimiseThetaSharpness((t, uu) => f(t, uu));
    theta = res.theta;
    u = res.u;
    const vecs = [];
    if (fitDelta) vecs.push([d, pr.delta]);
    if (fitRho) vecs.push([r, pr.rho]);
    for (const [vec, st] of vecs)
      for (let k = 0; k < K - 1; k++) {
        const base = vec.slice();
        const g = (t) => {
          vec[k] = base[k] + t;
          vec[K - 1] = base[K - 1] - t;
          return f(theta, u);
        };
        const w = 3 * Math.sqrt(st.v[k]);
        const t = gridGoldenMinimum(g, -w, w, w / 6, 1e-4);
        g(t);
      }
  }
  res = minimiseThetaSharpness((t, uu) => f(t, uu));
  for (let i = 0; i < keep.length; i++) xs[i] = keep[i];
  return res;
}
