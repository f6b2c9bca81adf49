#!/usr/bin/env node
// sameBits.js for the threaded refresh: the wasm objective's preconditioner blocks on a pool of 2
// (the path where the items pass overlaps core's assembly of the item blocks) and one apply of
// them, at several points with the gate open and three refreshes each, against another
// checkout's, entry by entry with Object.is. Both checkouts built (`npm run build`).
//   node bench/core/sameBitsThreaded.js --root /path/to/other/checkout
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { coreOf } from './coreOf.js';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const here = join(dirname(fileURLToPath(import.meta.url)), '../..');
const other = opt('root', null);
if (other === null) throw new Error('give --root /path/to/other/checkout');

async function run(root, models, items) {
  const core = await coreOf(root);
  const wasm = await import(join(root, 'packages/engine-wasm/dist/index.js'));
  const out = [];
  const pool = wasm.wasmThreadPool(2);
  for (const seed of [1, 7]) {
    const { bank } = core.simulateFleet({ models, items, seed });
    const layout = core.llmNrmLayout(bank, core.ALL_PARTS);
    const free = core.freeMask(layout);
    const obj = wasm.wasmLlmNrmObjective(bank, layout, {}, { pool });
    for (const w0 of [-1, 0.5, -3]) {
      const x = core.initialParameters(bank, layout);
      x[layout.w0] = w0;
      for (let t = 0; t < layout.sumK; t++) {
        x[layout.a + t] += 0.3 * Math.sin(t);
        x[layout.c + t] += 0.5 * Math.cos(3 * t);
      }
      for (let r = 0; r < 3; r++) {
        const at = obj.curvature(x, free);
        out.push(...at.blocks.chol.map((c) => Float64Array.from(c)));
        const v = Float64Array.from({ length: layout.size }, (_, t) => Math.sin(t));
        const o = new Float64Array(layout.size);
        at.blocks.apply(v, o);
        out.push(o);
      }
    }
    obj.dispose();
  }
  const workerBlocks = pool.workerBlocks;
  pool.dispose();
  return { out, workerBlocks };
}

let n = 0;
let diff = 0;
const workers = [];
for (const [models, items] of [
  [60, 300],
  [189, 4000],
]) {
  const a = await run(here, models, items);
  const b = await run(other, models, items);
  workers.push(a.workerBlocks, b.workerBlocks);
  for (let k = 0; k < a.out.length; k++) for (let t = 0; t < a.out[k].length; t++, n++) if (!Object.is(a.out[k][t], b.out[k][t])) diff++;
}
console.log(
  `threaded refresh (pool of 2; 60 x 300 and 189 x 4,000): ${n} entries (blocks and an apply, 6 points x 3 refreshes), ${diff} with other bits than ${other}'s; blocks the workers ran: ${workers.join(', ')}`,
);
process.exit(diff === 0 ? 0 : 1);
