#!/usr/bin/env node
// The tfjs engine's loss and gradient against the wasm engine's at 189 x 2,000 (issue 9: equal
// within 1e-5 relative). Plain node on the built dist (`npm run build` first); not a test.
//
//   node packages/cli/bench/tfjs-vs-wasm.js [--models 189] [--items 2000] [--seed 1]
//        [--families llm-nrm,nrm,2pl] [--chunk-slots 2000000] [--threads 1]
//
// The bank is `simulateFleet` (seed 1 by default). For each family both engines' objectives are
// evaluated at two points, the family's start and that start perturbed by 0.3 sin(1.7 t) (a point
// off any optimum, where every gradient coordinate is far from 0); the core float64 ('ts') kernel is
// evaluated as well, as the common reference. Prints per point the three losses, the relative
// difference |tfjs - wasm| / |wasm| (and each engine's against ts), the largest gradient gap as a
// fraction of max |g|, and the CPU seconds of one pass on each engine (process.cpuUsage; the
// tfjs pass is chunked over LLM rows, `chunkSlots` option slots at a time).
import * as core from '@llm-nrm/core';
import { wasmEngine, disposeWasmThreads, loadWasmKernel } from '@llm-nrm/engine-wasm';
import { tfjsEngine } from '@llm-nrm/engine-tfjs';

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};
const J = Number(opt('models', 189));
const I = Number(opt('items', 2000));
const seed = Number(opt('seed', 1));
const families = String(opt('families', 'llm-nrm,nrm,2pl')).split(',');
const chunkSlots = Number(opt('chunk-slots', 2_000_000));
const threads = Number(opt('threads', 1));
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

const { bank } = core.simulateFleet({ models: J, items: I, seed });
await loadWasmKernel();
const wasm = wasmEngine({ threads });
const tfjs = await tfjsEngine({ chunkSlots });
console.log(`${J} x ${I} simulated (seed ${seed}); tfjs backend ${tfjs.backend} (${tfjs.detail}); wasm ${threads} thread(s)`);
let worst = 0;
for (const model of families) {
  const family = core.getFamily(model);
  const fitBank = family.prepare(bank);
  const layout = family.layout(fitBank);
  const objectives = {
    ts: family.objective(fitBank, layout, {}),
    // engine-wasm's objective takes the layout (binary layouts: core's TypeScript kernel, see its README).
    wasm: wasm.objective(fitBank, layout, {}),
    tfjs: tfjs.objective(fitBank, family, {}),
  };
  const x0 = family.start(fitBank, layout);
  const x1 = Float64Array.from(x0, (v, t) => (objectives.ts.free[t] ? v + 0.3 * Math.sin(1.7 * t) : v));
  for (const [point, x] of [
    ['start', x0],
    ['perturbed', x1],
  ]) {
    const out = {};
    for (const [name, obj] of Object.entries(objectives)) {
      const g = new Float64Array(layout.size);
      const c0 = cpu();
      const loss = obj.lossAndGrad(x, g);
      out[name] = { loss, g, cpu: cpu() - c0 };
    }
    const rel = (a, b) => Math.abs(out[a].loss - out[b].loss) / Math.abs(out[b].loss);
    const gap = (a, b) => {
      let m = 0;
      let s = 0;
      for (let t = 0; t < layout.size; t++) {
        m = Math.max(m, Math.abs(out[a].g[t] - out[b].g[t]));
        s = Math.max(s, Math.abs(out[b].g[t]));
      }
      return m / s;
    };
    worst = Math.max(worst, rel('tfjs', 'wasm'));
    console.log(
      `${model} ${point}: loss tfjs ${out.tfjs.loss.toFixed(4)}, wasm ${out.wasm.loss.toFixed(4)}, ts ${out.ts.loss.toFixed(4)}; ` +
        `|tfjs - wasm| / |wasm| ${rel('tfjs', 'wasm').toExponential(2)} (tfjs-ts ${rel('tfjs', 'ts').toExponential(2)}, wasm-ts ${rel('wasm', 'ts').toExponential(2)}); ` +
        `max |g gap| / max |g| tfjs-wasm ${gap('tfjs', 'wasm').toExponential(2)}; CPU s per pass tfjs ${out.tfjs.cpu.toFixed(2)}, wasm ${out.wasm.cpu.toFixed(3)}, ts ${out.ts.cpu.toFixed(3)}`,
    );
  }
}
console.log(`largest |tfjs - wasm| / |wasm|: ${worst.toExponential(2)} (target 1e-5: ${worst <= 1e-5 ? 'met' : 'NOT met'})`);
tfjs.dispose();
await disposeWasmThreads();
