#!/usr/bin/env node
// Fitting benchmarks for @llm-nrm/core (plain node on the built dist; not part of the test gate).
//
//   node bench/run.js kernel [--models 189 --items 2000]      one pass of each engine: fused TS vs tfjs-cpu (naive baseline)
//   node bench/run.js adam   [--models 189 --items 2000]      Adam-2500 (paper recipe) vs the default L-BFGS on one fleet
//   node bench/run.js paper  [--items 31554 --excess 0.0004]  the default fit at paper scale; time to reach the Adam level
//   node bench/run.js all                                     kernel + adam at 189 x 2000 (what `npm run bench` runs)
//
// "Adam level" at paper scale: Adam-2500 cannot be run there (about 90 minutes in PyTorch), so `adam`
// measures how far above the converged optimum Adam-2500 ends (`excess` = L_adam / L* - 1) at a size
// where it is affordable, and `paper` reports when the default fit first comes within that excess of
// its own converged loss (and within excess + 0.1%).
import { performance } from 'node:perf_hooks';
import * as coreMain from '@llm-nrm/core';
import * as coreEngine from '@llm-nrm/core/engine';

const core = { ...coreMain, ...coreEngine };

const args = process.argv.slice(2);
const mode = args[0] ?? 'all';
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
// Peak resident memory of this process so far (the kernel's high-water mark; maxRSS is in KiB).
const peakRss = () => process.resourceUsage().maxRSS * 1024;
const mb = (b) => (b / 2 ** 20).toFixed(0);
const log = (s) => process.stderr.write(`${s}\n`);

function fleet(models, items, seed = 1) {
  const t = performance.now();
  const f = core.simulateFleet({ models, items, seed });
  const nC = f.bank.colItem.length;
  const sumK = f.bank.colOffsets[nC];
  log(`simulated ${models} LLMs x ${items} items (mean ${(sumK / nC).toFixed(2)} options) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return f;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function kernel(models, items) {
  const f = fleet(models, items);
  const { objective, family } = core.modelObjective(f.bank, 'llm-nrm');
  const x = core.initialParameters(f.bank, family);
  const g = new Float64Array(x.length);
  for (let r = 0; r < 2; r++) objective.lossAndGrad(x, g); // warm-up
  const ts = [];
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    objective.lossAndGrad(x, g);
    ts.push(performance.now() - t);
  }
  const pc = core.blockPreconditioner(f.bank, family, objective);
  pc.refresh(x);
  const tr = [];
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    pc.refresh(x);
    tr.push(performance.now() - t);
  }
  const rows = [
    ['fused TypeScript kernel (loss + gradient)', median(ts)],
    ['block Gauss-Newton refresh', median(tr)],
  ];
  try {
    const { createTfjsObjective } = await import('@llm-nrm/engine-tfjs');
    const small = core.simulateFleet({ models: Math.min(models, 40), items: Math.min(items, 200), seed: 1 });
    const tf = await createTfjsObjective(small.bank, 'llm-nrm');
    const { objective: fused, family: sf } = core.modelObjective(small.bank, 'llm-nrm');
    const xs = core.initialParameters(small.bank, sf);
    const gs = new Float64Array(xs.length);
    tf.objective.lossAndGrad(xs, gs);
    const tt = [];
    const tfu = [];
    for (let r = 0; r < 3; r++) {
      let t = performance.now();
      tf.objective.lossAndGrad(xs, gs);
      tt.push(performance.now() - t);
      t = performance.now();
      fused.lossAndGrad(xs, gs);
      tfu.push(performance.now() - t);
    }
    const cellsSmall = Math.min(models, 40) * Math.min(items, 200);
    rows.push([
      `tfjs autograd (${tf.backend}) at ${Math.min(models, 40)} x ${Math.min(items, 200)}, scaled per cell`,
      (median(tt) / cellsSmall) * models * items,
    ]);
    rows.push([`fused TypeScript at ${Math.min(models, 40)} x ${Math.min(items, 200)}, scaled per cell`, (median(tfu) / cellsSmall) * models * items]);
  } catch (e) {
    rows.push([`tfjs baseline unavailable: ${e.message}`, NaN]);
  }
  console.log(`\nOne pass at ${models} x ${items} (median of 5 after warm-up; ms):`);
  for (const [name, ms] of rows) console.log(`  ${name.padEnd(72)} ${ms.toFixed(1)}`);
}

function firstReach(res, level) {
  for (let i = 0; i < res.trace.length; i++) if (res.trace[i] <= level) return { passes: res.tracePasses[i], seconds: res.traceSeconds[i], iteration: i };
  return null;
}

function adam(models, items) {
  const f = fleet(models, items);
  log('fitting with the default (L-BFGS, block Gauss-Newton preconditioner) to convergence ...');
  const d = core.fit(f.bank, { standardErrors: false, tolerance: 1e-10, maxIterations: 3000 });
  log(`default: loss ${d.loss.toFixed(2)}, ${d.iterations} iterations, ${d.passes} passes, ${d.seconds.toFixed(1)} s (${d.reason})`);
  log('fitting with Adam, lr 0.05, 2500 steps (the paper recipe) ...');
  const a = core.fit(f.bank, {
    optimizer: 'adam',
    standardErrors: false,
    onProgress: (p) => p.iteration % 250 < 10 && log(`  adam step ${p.iteration} loss ${p.loss.toFixed(1)}`),
  });
  const excess = a.loss / d.loss - 1;
  const hit = firstReach(d, a.loss * 1.001);
  const hitExact = firstReach(d, a.loss);
  console.log(`\nAdam-2500 vs default at ${models} x ${items} (loss = MAP objective, summed over cells):`);
  console.log(`  Adam-2500:            loss ${a.loss.toFixed(2)}  passes ${a.passes}  ${a.seconds.toFixed(1)} s`);
  console.log(`  default, converged:   loss ${d.loss.toFixed(2)}  passes ${d.passes}  ${d.seconds.toFixed(1)} s  (${d.reason})`);
  console.log(`  Adam's excess over the default's optimum: ${(excess * 100).toFixed(4)}%`);
  console.log(`  default first within 0.1% of Adam's loss: ${hit ? `${hit.passes} passes, ${hit.seconds.toFixed(1)} s` : 'never'}`);
  console.log(`  default first at or below Adam's loss:    ${hitExact ? `${hitExact.passes} passes, ${hitExact.seconds.toFixed(1)} s` : 'never'}`);
  console.log(`  peak RSS ${mb(peakRss())} MB`);
  return excess;
}

function paper(items, excess) {
  const f = fleet(189, items);
  const { objective, family } = core.modelObjective(f.bank, 'llm-nrm');
  const x0 = core.initialParameters(f.bank, family);
  const g0 = new Float64Array(x0.length);
  objective.lossAndGrad(x0, g0);
  const ts = [];
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    objective.lossAndGrad(x0, g0);
    ts.push(performance.now() - t);
  }
  console.log(`one pass (loss + gradient) at 189 x ${items}: ${median(ts).toFixed(0)} ms (median of 3 after warm-up)`);
  log('fitting at paper scale with the default optimizer ...');
  const d = core.fit(f.bank, {
    standardErrors: false,
    tolerance: 1e-9,
    maxIterations: 2000,
    onProgress: (p) =>
      log(`  it ${p.iteration} passes ${p.passes} loss ${p.loss.toFixed(1)} ${p.seconds.toFixed(0)} s rss ${mb(process.memoryUsage().rss)} MB`),
  });
  console.log(`\nDefault fit at 189 x ${items}:`);
  console.log(`  converged loss ${d.loss.toFixed(2)} after ${d.iterations} iterations, ${d.passes} passes, ${d.seconds.toFixed(1)} s (${d.reason})`);
  console.log(`  Adam-2500 level = optimum x (1 + ${(excess * 100).toFixed(4)}%) (excess measured by \`adam\` at 189 x 2000)`);
  for (const tol of [0.001, 0.0001, 0.00001, 0]) {
    const lv = firstReach(d, d.loss * (1 + excess + tol));
    console.log(
      `  within ${(tol * 100).toFixed(3)}% of that level: ${lv ? `iteration ${lv.iteration}, ${lv.passes} passes, ${lv.seconds.toFixed(1)} s` : 'never'}`,
    );
  }
  console.log(`  peak RSS ${mb(peakRss())} MB`);
}

const models = opt('models', 189);
const items = opt('items', mode === 'paper' ? 31554 : 2000);
if (mode === 'kernel' || mode === 'all') await kernel(models, items);
if (mode === 'adam' || mode === 'all') adam(models, items);
if (mode === 'paper') paper(items, opt('excess', 0));
