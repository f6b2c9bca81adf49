#!/usr/bin/env node
// The default fit at paper scale (189 x 31,554, the paper's option mix; simulateFleet, seed 1):
// core's `fit` (L-BFGS, SE stopping rule, standard errors) on the wasm engine with its curvature,
// the bank built in memory (a JSONL file of that size is 1.2 GB). Run under /usr/bin/time -v for
// the peak RSS of the whole process. Prints the time per phase: the passes (loss + gradient), the
// curvature refreshes, the rest of the optimiser (L-BFGS's own vector work, the preconditioner's
// block solves) and the standard errors (by default seMode 'twin': the twin's refit included, and
// printed apart: its passes, seconds and CPU), wall and main-thread CPU.
//   /usr/bin/time -v node bench/paper.js [--items 31554] [--seed 1] [--threads 2] [--se false]
//     [--se-mode twin|quasi] [--curvature-precision f32|f64] [--trace out.json] [--save x.bin] [--save-twin twin.json]
//     [--pass-stats true] [--threaded-vectors false]
// --pass-stats: also the fit's passes on average (wall ms, process CPU ms, the tasks the pool's
// workers ran of each pass), and the same for 30 passes back to back at the fit's end point after it,
// in this process at the same load: whether a pass inside the fit costs more than a pass alone.
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as core from '@llm-nrm/core';
import { wasmEngine, wasmThreadPool } from '../dist/index.js';
import { opt, log } from './options.js';

const I = Number(opt('items', 31554));
const J = Number(opt('models', 189));
const threads = Number(opt('threads', 2));
const se = opt('se', 'true') !== 'false';
let t = performance.now();
const { bank } = core.simulateFleet({ models: J, items: I, seed: Number(opt('seed', 1)) });
log(`simulated ${J} x ${I} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
// The preconditioner's cell work: 'f32' lanes (the default) or the scalar 'f64' passes.
const passStats = opt('pass-stats', 'false') !== 'false';
// With --pass-stats a pool of the bench's own, so that its workers' task count is readable.
const pool = passStats && threads > 1 ? wasmThreadPool(threads) : null;
// L-BFGS's vector sweeps in part on a worker thread (WasmEngineOptions.threadedVectors, the
// default); --threaded-vectors false: all on the main thread.
const threadedVectors = opt('threaded-vectors', 'true') !== 'false';
const w = wasmEngine({
  ...(pool !== null ? { pool } : { threads }),
  ...(threadedVectors ? {} : { threadedVectors: false }),
  ...(opt('curvature-precision', null) !== null ? { curvaturePrecision: opt('curvature-precision') } : {}),
});
const perPass = { n: 0, wall: 0, cpu: 0, tasks: 0 };
let lastObjective = null;
// Timers around the engine's passes and refreshes (the objective is patched in place: the engine
// recognises its own objectives for their curvature).
const phase = { passMs: 0, passes: 0, refreshMs: 0, refreshes: 0 };
// The phases when the twin's refit began (null: no twin yet).
let twinStart = null;
// Whether the SEs began (their curvature was called).
let seStarted = false;
const engine = {
  name: 'wasm',
  objective: (b, f, p) => {
    const o = w.objective(b, f.layout(b), p);
    const inner = o.lossAndGrad.bind(o);
    lastObjective = inner;
    // seMode 'twin' (the default) retargets the fit's objective after the SEs and runs its L-BFGS
    // on it: the first retarget (the engine's predicted targets, or a whole twin q) ends the
    // optimiser's phases (fitPhase stops following the clock) and starts the twin's.
    for (const name of ['retarget', 'predictTargets']) {
      const original = o[name];
      if (original === undefined) continue;
      o[name] = (...a) => {
        if (twinStart === null) twinStart = { cpu: process.cpuUsage(), ...phase };
        return original.apply(o, a);
      };
    }
    o.lossAndGrad = (x, g, scope) => {
      const tasks0 = pool?.workerBlocks ?? 0;
      const c0 = passStats ? process.cpuUsage() : null;
      const t0 = performance.now();
      try {
        return inner(x, g, scope);
      } finally {
        const ms = performance.now() - t0;
        phase.passMs += ms;
        phase.passes++;
        if (c0 !== null) {
          const c = process.cpuUsage(c0);
          perPass.n++;
          perPass.wall += ms;
          perPass.cpu += (c.user + c.system) / 1000;
          perPass.tasks += (pool?.workerBlocks ?? 0) - tasks0;
        }
      }
    };
    return o;
  },
  curvature: (_b, _f, _p, o) => {
    const at = w.curvature(o);
    return (x, free, opts) => {
      // The SEs' curvature (cross blocks) comes after the optimiser: it ends fitPhase's updates
      // (the twin's clock reads after it) and is not a refresh.
      if (opts?.cross === true) {
        seStarted = true;
        return at(x, free, opts);
      }
      const t0 = performance.now();
      const r = at(x, free, opts);
      phase.refreshMs += performance.now() - t0;
      phase.refreshes++;
      return r;
    };
  },
  // L-BFGS's vector sweeps where the engine runs them (by default in part on its worker).
  ...(w.engine.vectors !== undefined ? { vectors: w.engine.vectors } : {}),
};
const extra = {};
// --se-mode quasi: the SEs without the twin (FitOptions.seMode; the default is core's, 'twin').
if (opt('se-mode', null) !== null) extra.seMode = opt('se-mode');
t = performance.now();
const cpu0 = process.cpuUsage();
let fitPhase = { cpu: { user: 0, system: 0 }, ...phase };
const r = core.fit(bank, {
  engine,
  standardErrors: se,
  ...extra,
  onProgress: (p) => {
    log(`  iteration ${p.iteration}, ${p.passes} passes, loss ${p.loss.toFixed(2)}, ${p.seconds.toFixed(0)} s`);
  },
  // The optimiser's clock: its last reading (the optimiser's end, before the SEs) snapshots the phases.
  now: () => {
    const v = performance.now();
    if (twinStart === null && !seStarted) fitPhase = { cpu: process.cpuUsage(cpu0), ...phase };
    return v;
  },
});
const total = (performance.now() - t) / 1000;
const cpu = process.cpuUsage(cpu0);
const rss = process.resourceUsage().maxRSS / 1024;
const s = (ms) => Math.round(ms) / 1000;
console.log(
  JSON.stringify({
    models: J,
    items: I,
    threads,
    curvaturePrecision: opt('curvature-precision', 'f32'),
    loss: r.loss,
    passes: r.passes,
    iterations: r.iterations,
    refreshes: fitPhase.refreshes,
    reason: r.reason,
    converged: r.converged,
    distance: r.distance,
    optimizerSeconds: r.seconds,
    passSeconds: s(fitPhase.passMs),
    refreshSeconds: s(fitPhase.refreshMs),
    otherOptimizerSeconds: s(r.seconds * 1000 - fitPhase.passMs - fitPhase.refreshMs),
    fitSeconds: total,
    // The SEs, the twin included (seMode 'twin').
    seSeconds: total - r.seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    optimizerCpuSeconds: (fitPhase.cpu.user + fitPhase.cpu.system) / 1e6,
    standardErrors: se,
    seMode: r.seMode ?? null,
    // The twin (seMode 'twin'): core's passes and seconds; the passes and the process CPU timed here.
    ...(r.twin
      ? {
          twinPasses: r.twin.passes,
          twinSeconds: r.twin.seconds,
          twinPassesTimed: twinStart !== null ? phase.passes - twinStart.passes : null,
          twinPassSeconds: twinStart !== null ? s(phase.passMs - twinStart.passMs) : null,
          twinCpuSeconds:
            twinStart !== null
              ? (() => {
                  const c = process.cpuUsage(twinStart.cpu);
                  return (c.user + c.system) / 1e6;
                })()
              : null,
        }
      : {}),
    peakRssMiB: Math.round(rss),
  }),
);
if (passStats && lastObjective !== null) {
  const g = new Float64Array(r.x.length);
  const alone = { n: 0, wall: 0, cpu: 0, tasks: 0 };
  for (let k = 0; k < 30; k++) {
    const tasks0 = pool?.workerBlocks ?? 0;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    lastObjective(r.x, g);
    alone.wall += performance.now() - t0;
    const c = process.cpuUsage(c0);
    alone.cpu += (c.user + c.system) / 1000;
    alone.tasks += (pool?.workerBlocks ?? 0) - tasks0;
    alone.n++;
  }
  const mean = (q) => ({ passes: q.n, wallMs: +(q.wall / q.n).toFixed(1), cpuMs: +(q.cpu / q.n).toFixed(1), workerTasks: +(q.tasks / q.n).toFixed(1) });
  console.log(JSON.stringify({ passInFit: mean(perPass), passAlone: mean(alone) }));
}
if (opt('trace', null)) writeFileSync(opt('trace'), JSON.stringify({ trace: r.trace, passes: r.tracePasses, seconds: r.traceSeconds }));
if (opt('save-twin', null) && r.twin)
  writeFileSync(opt('save-twin'), JSON.stringify({ bias: Array.from(r.twin.bias), se: Array.from(r.se), theta: Array.from(r.x.subarray(0, J)) }));
if (opt('save', null)) writeFileSync(opt('save'), Buffer.from(r.x.buffer));
w.dispose();
pool?.dispose();
