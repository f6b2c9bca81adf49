#!/usr/bin/env node
// Instruction count of one pass, free of the other processes sharing the machine: run under
//   valgrind --tool=callgrind --smc-check=all node bench/callgrind.js ENGINE PASSES [--items I]
// once with PASSES = 0 and once with PASSES = P; (Ir(P) - Ir(0)) / P is the count per pass.
// ENGINE: ts | wasm | kernel (the wasm data pass alone: blocks and reduction, no TypeScript
// around it) | curv-ts | curv-wasm (one refresh of the block Gauss-Newton preconditioner: core's
// TypeScript curvature, or the kernel's cell sums plus core's assembly of the blocks; curv-wasm64: the
// kernel's scalar f64 passes instead of its f32 lanes). All warm up with 3 passes (so the JIT tiers are in place) before the timed ones.
import * as coreMain from '@llm-nrm/core';
import * as coreEngine from '@llm-nrm/core/engine';

const core = { ...coreMain, ...coreEngine };
import { wasmLlmNrmObjective } from '../dist/index.js';
import { LlmNrmKernel } from '../dist/internal/kernelHost.js';

const [engine = 'wasm', passesArg = '0'] = process.argv.slice(2);
const i = process.argv.indexOf('--items');
const items = i >= 0 ? Number(process.argv[i + 1]) : 200;
const { bank } = core.simulateFleet({ models: 189, items, seed: 1 });
const layout = core.llmNrmLayout(bank, core.ALL_PARTS);
const x = core.initialParameters(bank, layout);
const g = new Float64Array(x.length);
function kernelOnly() {
  const k = new LlmNrmKernel(bank, layout, 'plain');
  for (let t = 0; t < layout.sumK; t++) {
    k.acf[2 * t] = x[layout.a + t];
    k.acf[2 * t + 1] = x[layout.c + t];
  }
  const [b0, b1] = k.setPass(0, layout.nModels, x[layout.w0], core.softplus(x[layout.kbar]));
  return {
    lossAndGrad() {
      for (let b = b0; b < b1; b++) k.exports.runBlock(k.header, b);
      k.reduce(b0, b1);
      return k.outScalars[0];
    },
  };
}
function curvature(which) {
  const free = core.freeMask(layout);
  const at =
    which === 'ts'
      ? core.getFamily('llm-nrm', layout.parts).curvature(bank, layout, {})
      : wasmLlmNrmObjective(bank, layout, {}, { curvaturePrecision: which === 'wasm64' ? 'f64' : 'f32' }).curvature;
  return { lossAndGrad: () => (at(x, free), 0) };
}
const obj =
  engine === 'ts'
    ? core.llmNrmObjective(bank, layout)
    : engine === 'kernel'
      ? kernelOnly()
      : engine === 'curv-ts'
        ? curvature('ts')
        : engine === 'curv-wasm' || engine === 'curv-wasm64'
          ? curvature(engine === 'curv-wasm' ? 'wasm' : 'wasm64')
          : wasmLlmNrmObjective(bank, layout);
for (let r = 0; r < 3; r++) obj.lossAndGrad(x, g);
const nC = bank.colItem.length;
const entries = 189 * bank.colOffsets[nC];
let loss = 0;
for (let r = 0; r < Number(passesArg); r++) loss = obj.lossAndGrad(x, g);
console.log(JSON.stringify({ engine, items, entries, passes: Number(passesArg), loss }));
