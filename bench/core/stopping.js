#!/usr/bin/env node
// The default stop (Newton decrement below 0.01 SE) against a reference fit run to relative
// tolerance 1e-13: passes, seconds, and the largest gap of every theta and every a_ik in units of
// its own SE (theta: the fit's profiled SE; a_ik: sqrt of the item block's inverse GN diagonal),
// against a fresh reference and against the default's point continued to that tolerance.
//   node bench/core/stopping.js [--models 189] [--items 2000] [--seed 1] [--distance 0.01] [--engine ts|wasm] [--threads 1]
// --engine wasm: the default fit on the WebAssembly kernel (what `llm-nrm fit` runs on large
// banks, f32 loss, curvature on the kernel); the reference is always core's f64 TypeScript kernel.
import * as core from '@llm-nrm/core';
import { wasmEngine } from '@llm-nrm/engine-wasm';

const args = process.argv.slice(2);
const opt = (name, dflt) => Number(args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const J = opt('models', 189);
const I = opt('items', 2000);
const seed = opt('seed', 1);
const engineName = args.includes('--engine') ? args[args.indexOf('--engine') + 1] : 'ts';
const f = core.simulateFleet({ models: J, items: I, seed });
const w = engineName === 'wasm' ? wasmEngine({ threads: opt('threads', 1) }) : null;
const engine = w === null ? 'ts' : w.engine;
let t = performance.now();
const cpu0 = process.cpuUsage();
const def = core.fit(f.bank, { distanceTolerance: opt('distance', 0.01), engine, standardErrors: false });
const cpu1 = process.cpuUsage(cpu0);
const defSec = (performance.now() - t) / 1000;
// The SEs at the default fit's point (core's TypeScript curvature whatever the engine).
Object.assign(def, { se: core.fit(f.bank, { init: def.x, maxIterations: 0, distanceTolerance: 0 }).se });
const se0 = performance.now();
core.thetaStandardErrors(def.family, def.bank, def.layout, def.x, core.modelObjective(f.bank, 'llm-nrm').objective.free, {}, 0, { profileItems: true });
const seSec = (performance.now() - se0) / 1000;
// Two references, both on core's f64 kernel to relative tolerance 1e-13: a fresh fit from the same
// start (what the issue names), and the default's own point run on to that tolerance. Where weak gate
// items have several basins the fresh one can end in another basin than the default; the continued
// one measures how far the default stopped from the optimum it was approaching.
const refs = [];
for (const [name, init] of [
  ['fresh', undefined],
  ['continued', def.x],
]) {
  t = performance.now();
  const ref = core.fit(f.bank, { ...(init ? { init } : {}), distanceTolerance: 0, tolerance: 1e-13, maxIterations: 5000, standardErrors: false });
  refs.push({ name, ref, sec: (performance.now() - t) / 1000, ...gaps(ref) });
}
function gaps(ref) {
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
  // Both losses by the f64 kernel (the wasm kernel's own loss is f32-rounded).
  const f64 = core.modelObjective(f.bank, 'llm-nrm').objective;
  const gbuf = new Float64Array(L.size);
  return { worstTheta, worstA, lossGap: f64.lossAndGrad(def.x, gbuf) - f64.lossAndGrad(ref.x, gbuf) };
}
console.log(`${J} x ${I}, seed ${seed}, engine ${engineName}`);
console.log(
  `default:   loss ${def.loss.toFixed(2)}, ${def.iterations} iterations, ${def.passes} passes, ${defSec.toFixed(1)} s (CPU ${((cpu1.user + cpu1.system) / 1e6).toFixed(1)} s; SEs after it ${seSec.toFixed(1)} s), stop ${def.reason}, distance ${def.distance.toPrecision(2)} SE`,
);
for (const r of refs) {
  console.log(
    `reference (${r.name}): loss ${r.ref.loss.toFixed(2)}, ${r.ref.iterations} iterations, ${r.ref.passes} passes, ${r.sec.toFixed(1)} s, stop ${r.ref.reason}`,
  );
  console.log(
    `  f64 loss of the default above it: ${r.lossGap.toPrecision(3)} nats; largest |theta - theta_ref| / SE: ${r.worstTheta.toFixed(4)}; largest |a - a_ref| / SE(a): ${r.worstA.toFixed(4)}`,
  );
}
w?.dispose();
