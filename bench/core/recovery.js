#!/usr/bin/env node
// Parameter recovery: simulate a fleet from known LLM-NRM parameters, fit, and compare.
//   node bench/recovery.js [--models 189 --items 2000 --seed 1]
// Prints Spearman(theta, truth), Pearson of fitted a_ik with the truth (both centred per item),
// and the same for c, sharpness, positional bias and fallback.
import * as core from '@llm-nrm/core';

const args = process.argv.slice(2);
const opt = (n, d) => (args.includes(`--${n}`) ? Number(args[args.indexOf(`--${n}`) + 1]) : d);
const models = opt('models', 189);
const items = opt('items', 2000);
const seed = opt('seed', 1);

function ranks(xs) {
  const idx = xs.map((_, i) => i).sort((a, b) => xs[a] - xs[b]);
  const r = new Array(xs.length);
  for (let i = 0; i < idx.length;) {
    let j = i;
    while (j + 1 < idx.length && xs[idx[j + 1]] === xs[idx[i]]) j++;
    for (let k = i; k <= j; k++) r[idx[k]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return r;
}
function pearson(a, b) {
  const n = a.length;
  const ma = a.reduce((s, v) => s + v, 0) / n;
  const mb = b.reduce((s, v) => s + v, 0) / n;
  let sab = 0,
    saa = 0,
    sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) ** 2;
    sbb += (b[i] - mb) ** 2;
  }
  return sab / Math.sqrt(saa * sbb);
}
const spearman = (a, b) => pearson(ranks(a), ranks(b));
function centredBlocks(x, off, offsets, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const o = offsets(i);
    const k = offsets(i + 1) - o;
    let m = 0;
    for (let t = 0; t < k; t++) m += x[off + o + t] / k;
    for (let t = 0; t < k; t++) out.push(x[off + o + t] - m);
  }
  return out;
}

const f = core.simulateFleet({ models, items, seed });
const t = Date.now();
const r = core.fit(f.bank, { standardErrors: true });
const L = r.layout;
const T = f.truth;
const J = models;
const theta = Array.from(r.x.subarray(0, J));
const thetaTrue = Array.from(T.subarray(0, J));
const io = (i) => f.bank.itemOffsets[i];
const a = centredBlocks(r.x, L.a, io, items);
const aTrue = centredBlocks(T, L.a, io, items);
const c = centredBlocks(r.x, L.c, io, items);
const cTrue = centredBlocks(T, L.c, io, items);
const s = theta.map((_, j) => core.softplus(r.x[L.sbar + j]));
const sTrue = theta.map((_, j) => core.softplus(T[L.sbar + j]));
const km = () => L.kMax;
const d = centredBlocks(r.x, L.delta, (j) => j * km(), J);
const dTrue = centredBlocks(T, L.delta, (j) => j * km(), J);
const rho = centredBlocks(r.x, L.rho, (j) => j * km(), J);
const rhoTrue = centredBlocks(T, L.rho, (j) => j * km(), J);
let se = 0;
for (let j = 0; j < J; j++) se += r.se[j] / J;
let cover = 0;
for (let j = 0; j < J; j++) if (Math.abs(theta[j] - thetaTrue[j]) <= 1.96 * r.se[j]) cover++;
// The scale of theta is set by the N(0,1) prior, the truth's by its own draw: align linearly first.
{
  const mt = thetaTrue.reduce((p, v) => p + v, 0) / J;
  const mf = theta.reduce((p, v) => p + v, 0) / J;
  let sxy = 0,
    sxx = 0;
  for (let j = 0; j < J; j++) {
    sxy += (theta[j] - mf) * (thetaTrue[j] - mt);
    sxx += (theta[j] - mf) ** 2;
  }
  const slope = sxy / sxx;
  var aligned = 0;
  for (let j = 0; j < J; j++) {
    const pred = mt + slope * (theta[j] - mf);
    if (Math.abs(pred - thetaTrue[j]) <= 1.96 * r.se[j] * slope) aligned++;
  }
  var alignSlope = slope;
}
console.log(
  `Recovery at ${models} LLMs x ${items} items (seed ${seed}); fit ${r.seconds.toFixed(1)} s, ${r.iterations} iterations, ${r.passes} passes, ${r.reason}; with SEs ${((Date.now() - t) / 1000).toFixed(1)} s`,
);
console.log(`  Spearman(theta, truth)           ${spearman(theta, thetaTrue).toFixed(4)}   (target >= 0.98)`);
console.log(`  Pearson(a_ik, truth), centred    ${pearson(a, aTrue).toFixed(4)}   (target >= 0.9)`);
console.log(`  Pearson(c_ik, truth), centred    ${pearson(c, cTrue).toFixed(4)}`);
console.log(`  Spearman(sharpness, truth)       ${spearman(s, sTrue).toFixed(4)}`);
console.log(`  Pearson(position bias, truth)    ${pearson(d, dTrue).toFixed(4)}`);
console.log(`  Pearson(fallback rho, truth)     ${pearson(rho, rhoTrue).toFixed(4)}`);
console.log(
  `  mean SE(theta) ${se.toFixed(4)}; 95% intervals covering the true theta: ${cover}/${J} raw, ${aligned}/${J} after a linear alignment (slope ${alignSlope.toFixed(3)})`,
);
console.log(
  `  w0 ${r.x[L.w0].toFixed(3)} (true ${T[L.w0].toFixed(3)}), kappa ${core.softplus(r.x[L.kbar]).toFixed(3)} (true ${core.softplus(T[L.kbar]).toFixed(3)})`,
);
