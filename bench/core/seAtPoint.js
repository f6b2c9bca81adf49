#!/usr/bin/env node
// The 'quasi' SEs as `fit` computes them (items profiled, engine-wasm's curvature, 2 threads) at a
// saved point of a simulated fleet, timed alone: wall and CPU seconds of the process (every thread)
// per run, the main thread's CPU alone, and a SHA-256 of the SEs (the same bits or not, between
// checkouts). The point is the fit's x as packages/engine-wasm/bench/paper.js --save writes it (raw Float64Array bytes), so that
// the SEs at paper scale can be timed without the two-minute fit, before and after a change.
//   node bench/core/seAtPoint.js --x x.bin [--models 189] [--items 31554] [--seed 1] [--runs 2] [--root /other/checkout]
// --differences: also the same SEs with the dispersion's central differences (a predictor without
// `along`, as before cmd30x) and the largest relative change of the SEs and dispersions between the two.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const root = opt('root', null);
const core = root === null ? await import('@llm-nrm/core') : await import(join(root, 'packages/core/dist/index.js'));
const { wasmEngine } = root === null ? await import('@llm-nrm/engine-wasm') : await import(join(root, 'packages/engine-wasm/dist/index.js'));
const file = opt('x', null);
if (file === null) throw new Error('--x: the point (paper.js --save x.bin)');
const { bank } = core.simulateFleet({ models: Number(opt('models', '189')), items: Number(opt('items', '31554')), seed: Number(opt('seed', '1')) });
const family = core.getFamily('llm-nrm');
const layout = family.layout(bank);
const raw = readFileSync(file);
const x = new Float64Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
if (x.length !== layout.size) throw new Error(`${file} holds ${x.length} parameters, the layout ${layout.size}`);
const w = wasmEngine({ threads: 2 });
const priors = {};
const curvature = w.curvature(w.objective(bank, layout, priors));
const free = core.freeMask(layout);
const options = { profileItems: true, errorModel: 'quasi', curvature };
// This (main) thread's CPU seconds (utime + stime of its /proc task, clock ticks of 10 ms; NaN off Linux):
// the SEs' TypeScript runs here, the kernel's passes here and on the pool's worker.
const mainCpu = () => {
  try {
    const f = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) / 100;
  } catch {
    return NaN;
  }
};
const runs = Number(opt('runs', '2'));
let out;
for (let r = 0; r < runs; r++) {
  const c0 = process.cpuUsage();
  const m0 = mainCpu();
  const t0 = performance.now();
  out = core.thetaStandardErrors(family, bank, layout, x, free, priors, 0, options);
  const c = process.cpuUsage(c0);
  const main = mainCpu() - m0;
  const sha = createHash('sha256').update(Buffer.from(out.se.buffer)).digest('hex').slice(0, 16);
  console.log(
    `SEs ${((performance.now() - t0) / 1000).toFixed(2)} s wall, ${((c.user + c.system) / 1e6).toFixed(2)} CPU s (${main.toFixed(2)} main thread); SE[0] ${out.se[0].toPrecision(14)}, SE sha256 ${sha} (${root ?? 'this checkout'})`,
  );
}
if (args.includes('--differences')) {
  const differences = {
    ...family,
    predictor: (...a) => {
      const p = family.predictor(...a);
      return { layout: p.layout, cell: p.cell, pKey: p.pKey, logits: p.logits };
    },
  };
  const t0 = performance.now();
  const d = core.thetaStandardErrors(differences, bank, layout, x, free, priors, 0, options);
  let se = 0;
  let phi = 0;
  for (let j = 0; j < d.se.length; j++) {
    se = Math.max(se, Math.abs(out.se[j] / d.se[j] - 1));
    phi = Math.max(phi, Math.abs(out.dispersion[j] / d.dispersion[j] - 1));
  }
  console.log(
    `central differences: ${((performance.now() - t0) / 1000).toFixed(2)} s wall; largest relative change, SE ${se.toExponential(2)}, dispersion ${phi.toExponential(2)}`,
  );
}
w.dispose?.();
process.exit(0);
