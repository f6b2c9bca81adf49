#!/usr/bin/env node
// Speed-only changes to the curvature refresh and the standard errors must keep their bits: this
// compares this checkout's preconditioner blocks (core's TypeScript curvature and the wasm kernel's,
// at several points with the gate open) and its quasi SEs (wasm and TypeScript curvature) with
// another checkout's, entry by entry with Object.is. Both checkouts built (`npm run build`).
//   node bench/core/sameBits.js --root /path/to/other/checkout [--models 60] [--items 300]
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { coreOf } from './coreOf.js';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const here = join(dirname(fileURLToPath(import.meta.url)), '../..');
const other = opt('root', null);
if (other === null) throw new Error('give --root /path/to/other/checkout');
const models = Number(opt('models', '60'));
const items = Number(opt('items', '300'));
const load = async (root) => ({
  core: await coreOf(root),
  wasm: await import(join(root, 'packages/engine-wasm/dist/index.js')),
});
const A = await load(here);
const B = await load(other);

// One fitted point (this checkout's fit) for the SEs of both.
const fitted = (() => {
  const { bank } = A.core.simulateFleet({ models, items, seed: 7 });
  return Float64Array.from(A.core.fit(bank, { standardErrors: false }).x);
})();

function run(m) {
  const out = [];
  for (const seed of [1, 7]) {
    const { bank } = m.core.simulateFleet({ models, items, seed });
    const layout = m.core.llmNrmLayout(bank, m.core.ALL_PARTS);
    const free = m.core.freeMask(layout);
    for (const w0 of [-1, 0.5, -3]) {
      const x = m.core.initialParameters(bank, layout);
      x[layout.w0] = w0;
      for (let t = 0; t < layout.sumK; t++) {
        x[layout.a + t] += 0.3 * Math.sin(t);
        x[layout.c + t] += 0.5 * Math.cos(3 * t);
      }
      out.push(...m.core.getFamily('llm-nrm', layout.parts).curvature(bank, layout, {})(x, free).blocks.chol);
      const obj = m.wasm.wasmLlmNrmObjective(bank, layout, {}, { threads: 1 });
      out.push(...obj.curvature(x, free).blocks.chol);
      obj.dispose();
    }
  }
  const f = m.core.simulateFleet({ models, items, seed: 7 });
  const r = m.core.fit(f.bank, { standardErrors: false, maxIterations: 1 });
  const free = m.core.freeMask(r.layout);
  const w = m.wasm.wasmEngine({ threads: 2 });
  const curvature = w.curvature(w.objective(r.bank, r.layout, r.priors));
  for (const extra of [{ curvature }, {}]) {
    const se = m.core.thetaStandardErrors(r.family, r.bank, r.layout, fitted, free, r.priors, 0, { profileItems: true, errorModel: 'quasi', ...extra });
    out.push(se.se, se.dispersion, se.information, se.priorVariance);
  }
  w.dispose?.();
  return out;
}
const a = run(A);
const b = run(B);
let n = 0;
let diff = 0;
for (let k = 0; k < a.length; k++) for (let t = 0; t < a[k].length; t++, n++) if (!Object.is(a[k][t], b[k][t])) diff++;
console.log(`${models} x ${items}: ${n} entries (blocks at 6 points, ts and wasm; quasi SEs, wasm and ts curvature), ${diff} with other bits than ${other}'s`);
process.exit(diff === 0 ? 0 : 1);
