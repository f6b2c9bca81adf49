#!/usr/bin/env node
// An L-BFGS fit with core's default recipe (standardised theta, block Gauss-Newton preconditioner
// refreshed every 10 iterations, tolerance 1e-9) on the TypeScript kernel and on the wasm kernel;
// core's `fit` cannot take an engine yet, so this calls `minimizeLbfgs` directly as `fit` does.
//   node bench/fit.js [--models 189 --items 2000 --seed 1 --threads 1 --maxit 1000]
// Prints iterations, passes, seconds and the final loss of each, both losses evaluated by the f64
// TypeScript kernel, and the largest ability difference.
import { performance } from 'node:perf_hooks';
import * as coreMain from '@llm-nrm/core';
import * as coreEngine from '@llm-nrm/core/engine';

const core = { ...coreMain, ...coreEngine };
import { wasmLlmNrmObjective } from '../dist/index.js';
import { num } from './options.js';

const J = num('models', 189);
const I = num('items', 2000);
const threads = num('threads', 1);
const maxit = num('maxit', 1000);
const { bank } = core.simulateFleet({ models: J, items: I, seed: num('seed', 1) });
const layout = core.llmNrmLayout(bank, core.ALL_PARTS);

function fitWith(name, inner) {
  const pc = core.blockPreconditioner(bank, inner);
  const t = performance.now();
  const res = core.minimizeLbfgs(core.standardizeTheta(inner), core.initialParameters(bank, layout), {
    preconditioner: { apply: pc.apply, refresh: (x) => pc.refresh(core.standardized(x, J)) },
    refreshEvery: 10,
    maxIterations: maxit,
    tolerance: 1e-9,
  });
  const seconds = (performance.now() - t) / 1000;
  process.stderr.write(`${name}: ${res.iterations} iterations, ${res.passes} passes, ${seconds.toFixed(1)} s, loss ${res.loss} (${res.reason})\n`);
  return { ...res, seconds };
}

const ts = fitWith('ts', core.llmNrmObjective(bank, layout));
const wasmObj = wasmLlmNrmObjective(bank, layout, {}, { threads });
const wa = fitWith(`wasm-${wasmObj.threads}`, wasmObj);
wasmObj.dispose();
const ref = core.standardizeTheta(core.llmNrmObjective(bank, layout));
const g = new Float64Array(layout.size);
const lTs = ref.lossAndGrad(ts.x, g);
const lWa = ref.lossAndGrad(wa.x, g);
const a = core.standardized(ts.x, J);
const b = core.standardized(wa.x, J);
let dth = 0;
for (let j = 0; j < J; j++) dth = Math.max(dth, Math.abs(a[j] - b[j]));
console.log(`${J} x ${I}: L-BFGS + block GN, tolerance 1e-9`);
console.log('engine    iterations  passes  seconds  final loss (own kernel)   loss by the f64 kernel   reason');
for (const [name, r, l] of [
  ['ts', ts, lTs],
  [`wasm-${threads}`, wa, lWa],
]) {
  console.log(
    `${name.padEnd(9)} ${String(r.iterations).padStart(10)} ${String(r.passes).padStart(7)} ${r.seconds.toFixed(1).padStart(8)}  ${r.loss.toFixed(4).padEnd(24)}  ${l.toFixed(4).padEnd(23)}  ${r.reason}`,
  );
}
console.log(
  `wasm optimum vs ts optimum (both by the f64 kernel): ${((lWa - lTs) / lTs).toExponential(2)} relative; max |theta difference| ${dth.toExponential(2)}`,
);
