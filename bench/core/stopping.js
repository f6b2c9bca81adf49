#!/usr/bin/env node
// The default stop (Newton decrement below 0.01 SE) against a reference fit run to relative
// tolerance 1e-13: passes, seconds, and the largest gap of every theta and every a_ik in units of
// its own SE (theta: the fit's profiled SE; a_ik: sqrt of the item block's inverse GN diagonal).
//   node bench/stopping.js [--models 189] [--items 2000] [--seed 1] [--distance 0.01]
import * as core from '@llm-nrm/core';

const args = process.argv.slice(2);
const opt = (name, dflt) => Number(args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const J = opt('models', 189);
const I = opt('items', 2000);
const seed = opt('seed', 1);
const f = core.simulateFleet({ models: J, items: I, seed });
let t = performance.now();
const def = core.fit(f.bank, { distanceTolerance: opt('distance', 0.01) });
const defSec = (performance.now() - t) / 1000;
t = performance.now();
const se0 = performance.now();
core.thetaStandardErrors(def.family, def.bank, def.layout, def.x, core.modelObjective(f.bank, 'llm-nrm').objective.free, {}, 0, { profileItems: true });
const seSec = (performance.now() - se0) / 1000;
t = performance.now();
const ref = core.fit(f.bank, { distanceTolerance: 0, tolerance: 1e-13, maxIterations: 5000, standardErrors: false });
const refSec = (performance.now() - t) / 1000;
const L = def.layout;
let worstTheta = 0;
for (let j = 0; j < J; j++) worstTheta = Math.max(worstTheta, Math.abs(def.x[j] - ref.x[j]) / def.se[j]);
// a_ik SEs from the item blocks' GN inverse at the reference point (centred a: compare centred values).
const curv = def.family.curvature(ref.bank, L, {})(ref.x, new Uint8Array(L.size).fill(1), { cross: true });
let worstA = 0;
for (let i = 0; i < I; i++) {
  const io = f.bank.itemOffsets[i];
  const K = f.bank.itemOffsets[i + 1] - io;
  const H = curv.itemGN[i];
  const n = 2 * K;
  let md = 0;
  let mr = 0;
  for (let k = 0; k < K; k++) {
    md += def.x[L.a + io + k] / K;
    mr += ref.x[L.a + io + k] / K;
  }
  // Inverse diagonal by Cholesky-free Gauss-Jordan on the small block.
  const A = Array.from({ length: n }, (_, r) => Array.from({ length: n }, (_, c) => H[r * n + c]));
  const inv = Array.from({ length: n }, (_, r) => Array.from({ length: n }, (_, c) => (r === c ? 1 : 0)));
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(A[r][c]) > Math.abs(A[p][c])) p = r;
    [A[c], A[p]] = [A[p], A[c]];
    [inv[c], inv[p]] = [inv[p], inv[c]];
    const d = A[c][c];
    for (let k = 0; k < n; k++) {
      A[c][k] /= d;
      inv[c][k] /= d;
    }
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const m = A[r][c];
      for (let k = 0; k < n; k++) {
        A[r][k] -= m * A[c][k];
        inv[r][k] -= m * inv[c][k];
      }
    }
  }
  for (let k = 0; k < K; k++) {
    const se = Math.sqrt(inv[k][k]);
    worstA = Math.max(worstA, Math.abs(def.x[L.a + io + k] - md - (ref.x[L.a + io + k] - mr)) / se);
  }
}
console.log(`${J} x ${I}, seed ${seed}`);
console.log(
  `default:   loss ${def.loss.toFixed(2)}, ${def.iterations} iterations, ${def.passes} passes, ${defSec.toFixed(1)} s (SEs ${seSec.toFixed(1)} s of it), stop ${def.reason}, distance ${def.distance.toPrecision(2)} SE`,
);
console.log(`reference: loss ${ref.loss.toFixed(2)}, ${ref.iterations} iterations, ${ref.passes} passes, ${refSec.toFixed(1)} s, stop ${ref.reason}`);
console.log(`largest |theta - theta_ref| / SE: ${worstTheta.toFixed(4)}; largest |a - a_ref| / SE(a): ${worstA.toFixed(4)}`);
