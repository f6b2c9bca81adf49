#!/usr/bin/env node
// How much of the default fit's remaining loss gap is in the items given the LLMs (issue 9): the
// default L-BFGS path (wasm engine, 189 x 2,000 simulated, seed 1) stopped after k iterations, then
// the items alone solved with the LLMs and gate globals held (core's itemSweep: block-coordinate
// Newton with per-item line searches on the kernel's per-item losses, `--refreshes` re-linearisations
// x 2 rounds). Prints, per k, the gap to the default's final loss and the part the item solve removes.
//   node bench/item-gap.js [--items 2000] [--seed 1] [--at 10,20,40,80] [--refreshes 4]
import * as core from '@llm-nrm/core';
import { wasmEngine } from '../dist/index.js';
import { opt, log } from './options.js';

const I = Number(opt('items', 2000));
const J = Number(opt('models', 189));
const at = String(opt('at', '10,20,40,80')).split(',').map(Number);
const refreshes = Number(opt('refreshes', 4));
const { bank } = core.simulateFleet({ models: J, items: I, seed: Number(opt('seed', 1)) });
const w = wasmEngine({ threads: 2 });
const engine = w.engine;
const final = core.fit(bank, { engine, standardErrors: false });
log(`default: loss ${final.loss.toFixed(4)} after ${final.iterations} iterations, ${final.passes} passes`);
const layout = final.layout;
const inner = w.objective(bank, layout, {});
const obj = core.standardizeTheta(inner);
const pc = core.blockPreconditioner(bank, { layout, free: inner.free, lossAndGrad: inner.lossAndGrad }, {});
const rows = [];
for (const k of at) {
  const r = core.fit(bank, { engine, standardErrors: false, maxIterations: k });
  // fit returns standardised thetas: the standardised objective's t equals them.
  const x = Float64Array.from(r.x);
  const sweep = core.itemSweep(obj, layout, bank.itemOffsets, pc.apply, { rounds: 2, lossNoise: inner.lossNoise });
  const g = new Float64Array(layout.size);
  const f0 = sweep.wrap.lossAndGrad(x, g);
  let f = f0;
  let passes = 1;
  for (let q = 0; q < refreshes; q++) {
    pc.refresh(core.standardized(x, J));
    const s = sweep.step(x, g, f, Infinity);
    f = s.loss;
    passes += s.passes + 1;
  }
  const row = { iteration: k, gap: f0 - final.loss, itemsRemove: f0 - f, share: (f0 - f) / (f0 - final.loss), passes };
  rows.push(row);
  log(
    `iteration ${k}: gap ${row.gap.toFixed(3)} nats, the item solve removes ${row.itemsRemove.toFixed(3)} (${(100 * row.share).toFixed(1)}%) in ${passes} passes`,
  );
}
console.log(JSON.stringify(rows));
w.dispose();
