#!/usr/bin/env node
// Basin check (issue 9): on simulated 189 x 2,000 fleets, the default fit (preconditioned L-BFGS,
// SE stopping rule) against the paper's recipe (Adam, 2,500 steps, lr 0.05) run by our own `fit`,
// both on the wasm engine. Prints per fleet both final losses (evaluated again by core's f64
// TypeScript kernel) and, where they differ, which parameters differ most: theta in units of the
// default fit's SE, the gate globals, and the item and per-LLM parameter groups.
//   node bench/basin.js [--seeds 1,2,3] [--noise 0.3] [--hard 0] [--missing 0] [--steps 2500] [--models 189 --items 2000] [--out results.json]
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import * as coreMain from '@llm-nrm/core';
import * as coreEngine from '@llm-nrm/core/engine';

const core = { ...coreMain, ...coreEngine };
import { wasmEngine } from '../dist/index.js';
import { opt, log } from './options.js';

const seeds = String(opt('seeds', '1,2,3')).split(',').map(Number);
const noise = Number(opt('noise', 0.3));
const hard = Number(opt('hard', 0));
const missing = Number(opt('missing', 0));
const steps = Number(opt('steps', 2500));
const J = Number(opt('models', 189));
const I = Number(opt('items', 2000));
const out = opt('out', null);

const w = wasmEngine({ threads: 2 });
const engine = w.engine;

function groups(L, xa, xb) {
  const d = (lo, n) => {
    let m = 0;
    let at = -1;
    for (let t = 0; t < n; t++) {
      const v = Math.abs(xa[lo + t] - xb[lo + t]);
      if (v > m) {
        m = v;
        at = t;
      }
    }
    return { max: m, at };
  };
  return {
    sbar: d(L.sbar, L.nModels),
    delta: d(L.delta, L.nModels * L.kMax),
    rho: d(L.rho, L.nModels * L.kMax),
    a: d(L.a, L.sumK),
    c: d(L.c, L.sumK),
    w0: { a: xa[L.w0], b: xb[L.w0] },
    kbar: { a: xa[L.kbar], b: xb[L.kbar] },
  };
}

const results = [];
for (const seed of seeds) {
  const { bank } = core.simulateFleet({ models: J, items: I, seed, noise, hard, missing });
  let t = performance.now();
  const def = core.fit(bank, { engine });
  const tDef = (performance.now() - t) / 1000;
  t = performance.now();
  const adam = core.fit(bank, { engine, optimizer: 'adam', steps, standardErrors: false });
  const tAdam = (performance.now() - t) / 1000;
  const L = def.layout;
  // Both losses again on the f64 TypeScript kernel (the wasm loss is f32-rounded per cell).
  const ts = core.llmNrmObjective(def.bank, L, {});
  const lossOf = (x) => ts.lossAndGrad(x, new Float64Array(x.length));
  const lDef = lossOf(def.x);
  const lAdam = lossOf(adam.x);
  let thetaSe = 0;
  let thetaAt = -1;
  for (let j = 0; j < J; j++) {
    const v = Math.abs(def.x[L.theta + j] - adam.x[L.theta + j]) / def.se[j];
    if (v > thetaSe) {
      thetaSe = v;
      thetaAt = j;
    }
  }
  const r = {
    seed,
    noise,
    hard,
    missing,
    default: { loss: lDef, passes: def.passes, reason: def.reason, seconds: tDef },
    adam: { loss: lAdam, steps, seconds: tAdam },
    gap: lDef - lAdam,
    thetaMaxSe: thetaSe,
    thetaAt,
    groups: groups(L, def.x, adam.x),
  };
  results.push(r);
  log(
    `seed ${seed} noise ${noise} hard ${hard} missing ${missing}: default ${lDef.toFixed(2)} (${def.passes} passes, ${def.reason}, ${tDef.toFixed(1)} s), adam-${steps} ${lAdam.toFixed(2)} (${tAdam.toFixed(1)} s), default - adam ${(lDef - lAdam).toFixed(2)}; max theta gap ${thetaSe.toFixed(2)} SE; w0 ${r.groups.w0.a.toFixed(3)} vs ${r.groups.w0.b.toFixed(3)}, kbar ${r.groups.kbar.a.toFixed(3)} vs ${r.groups.kbar.b.toFixed(3)}`,
  );
  if (out) writeFileSync(out, JSON.stringify(results, null, 1));
}
console.log(
  JSON.stringify(
    results.map((r) => ({
      seed: r.seed,
      noise: r.noise,
      hard: r.hard,
      missing: r.missing,
      default: r.default.loss,
      adam: r.adam.loss,
      gap: r.gap,
      thetaMaxSe: r.thetaMaxSe,
    })),
    null,
    1,
  ),
);
w.dispose();
