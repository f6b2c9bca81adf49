#!/usr/bin/env node
// EXPERIMENTS, not adopted (packages/core/BENCHMARKS.md "The twin's memory and targets"): two ways
// to make the 'twin' SE mode's refit cheaper, each against the fleet's default fit (twin SEs) first.
// --experiment start: the twin started from its LLM-only twin (items held at the fit's estimate),
//   against the default warm twin, the whole twin from x0 and, with --tight, a twin run to 0.001 SE.
// --experiment subset: per subset size m, the twin of the bank restricted to m random items (the
//   fit's estimate restricted, q the model's own p) fitted whole from there to 0.1 SE; its bias
//   against the full twin's, in units of the fit's final SEs.
//   node bench/core/twinExperiments.js --experiment start|subset [--items 31554] [--models 189] [--seed 1]
//     [--threads 2] [--tight true] [--sizes 2000,4000,8000] [--subset-seed 1]
import { performance } from 'node:perf_hooks';
import { wasmEngine } from '@llm-nrm/engine-wasm';
import * as core from '@llm-nrm/core';
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const experiment = opt('experiment', null);
if (experiment !== 'start' && experiment !== 'subset') {
  console.error(`--experiment start|subset, not ${JSON.stringify(experiment)}`);
  process.exit(2);
}
const w = wasmEngine({ threads: Number(opt('threads', 2)) });
const engine = w.engine;
const I = Number(opt('items', 31554));
const J = Number(opt('models', 189));
const f = core.simulateFleet({ models: J, items: I, seed: Number(opt('seed', 1)) });
let t = performance.now();
const r = core.fit(f.bank, { engine });
console.log(`full fit ${((performance.now() - t) / 1000).toFixed(1)} s; twin ${r.twin.passes} passes ${r.twin.seconds.toFixed(1)} s`);
if (experiment === 'start') startExperiment();
else subsetExperiment();
w.dispose();
process.exit(0);

function startExperiment() {
  const tb = core.twinBank(r.bank, r.layout, r.x);
  const cmp = (name, x, passes, sec) => {
    let d = 0;
    for (let j = 0; j < J; j++) d = Math.max(d, Math.abs(x[j] - r.x[j] - r.twin.bias[j]) / r.se[j]);
    console.log(`${name}: ${passes} passes ${sec.toFixed(1)} s; max |b - b_default| / final SE ${d.toFixed(3)}`);
  };
  t = performance.now();
  const s1 = core.fit(tb, { init: r.x, fixItems: true, identification: 'standardize', standardErrors: false, distanceTolerance: 0.1, engine });
  cmp('LLM-only twin', s1.x, s1.passes, (performance.now() - t) / 1000);
  t = performance.now();
  const a = core.fit(tb, { init: r.x, standardErrors: false, distanceTolerance: 0.1, engine });
  cmp('whole twin from x0', a.x, a.passes, (performance.now() - t) / 1000);
  t = performance.now();
  const b = core.fit(tb, { init: s1.x, standardErrors: false, distanceTolerance: 0.1, engine });
  cmp('whole twin from the LLM-only twin', b.x, b.passes, (performance.now() - t) / 1000);
  if (opt('tight', 'false') !== 'false') {
    t = performance.now();
    const c = core.fit(tb, { init: b.x, standardErrors: false, distanceTolerance: 0.001, engine });
    cmp('tight (0.001) twin', c.x, c.passes, (performance.now() - t) / 1000);
    for (const [n, x] of [
      ['default', null],
      ['whole x0', a.x],
      ['whole LLM-only', b.x],
      ['LLM-only', s1.x],
    ]) {
      let d = 0;
      for (let j = 0; j < J; j++) d = Math.max(d, Math.abs((x ? x[j] - r.x[j] : r.twin.bias[j]) - (c.x[j] - r.x[j])) / r.se[j]);
      console.log(`  ${n}: max gap to tight / final SE ${d.toFixed(3)}`);
    }
  }
}

function subsetExperiment() {
  const L = r.layout;
  const thetaFinalSe = r.se;
  for (const m of opt('sizes', '2000,4000,8000').split(',').map(Number)) {
    const rng = core.randomSource(Number(opt('subset-seed', 1)));
    const perm = Array.from({ length: I }, (_, i) => i);
    for (let i = I - 1; i > 0; i--) {
      const k = Math.floor(rng.uniform() * (i + 1));
      [perm[i], perm[k]] = [perm[k], perm[i]];
    }
    const keep = perm.slice(0, m).sort((a, b) => a - b);
    const sub = subsetBank(r.bank, keep);
    if (sub.kMax !== r.bank.kMax) throw new Error(`subset kMax ${sub.kMax} != ${r.bank.kMax}`);
    const Ls = r.family.layout(sub);
    const xs = new Float64Array(Ls.size);
    xs.set(r.x.subarray(0, L.a), 0);
    let o = 0;
    for (const i of keep) {
      const io = r.bank.itemOffsets[i];
      const K = r.bank.itemOffsets[i + 1] - io;
      for (let k = 0; k < K; k++) {
        xs[Ls.a + o + k] = r.x[L.a + io + k];
        xs[Ls.c + o + k] = r.x[L.c + io + k];
      }
      o += K;
    }
    xs[Ls.w0] = r.x[L.w0];
    xs[Ls.kbar] = r.x[L.kbar];
    t = performance.now();
    const tb = core.twinBank(sub, Ls, xs);
    const tw = core.fit(tb, { init: xs, standardErrors: false, distanceTolerance: 0.1, engine });
    const sec = (performance.now() - t) / 1000;
    let dmax = 0;
    let sxy = 0;
    let sxx = 0;
    let syy = 0;
    let bmax = 0;
    for (let j = 0; j < J; j++) {
      const bs = tw.x[j] - xs[j];
      const bf = r.twin.bias[j];
      dmax = Math.max(dmax, Math.abs(bs - bf) / thetaFinalSe[j]);
      bmax = Math.max(bmax, Math.abs(bf) / thetaFinalSe[j]);
      sxy += bs * bf;
      sxx += bs * bs;
      syy += bf * bf;
    }
    console.log(
      `m ${m}: ${tw.passes} passes, ${sec.toFixed(1)} s; max |b_sub - b_full| / final SE ${dmax.toFixed(3)} (max |b_full| / final SE ${bmax.toFixed(3)}); cos ${(sxy / Math.sqrt(sxx * syy)).toFixed(4)}, slope b_sub on b_full ${(sxy / syy).toFixed(3)}`,
    );
  }
}

function subsetBank(bank, keep) {
  const I0 = bank.items.length;
  const newIdx = new Int32Array(I0).fill(-1);
  const items = [];
  const itemOffsets = [0];
  const key = [];
  let kMax = 0;
  keep.forEach((i, n) => {
    newIdx[i] = n;
    items.push(bank.items[i]);
    const K = bank.itemOffsets[i + 1] - bank.itemOffsets[i];
    itemOffsets.push(itemOffsets[n] + K);
    key.push(bank.key[i]);
    kMax = Math.max(kMax, K);
  });
  const nC0 = bank.colItem.length;
  const cols = [];
  for (let c = 0; c < nC0; c++) if (newIdx[bank.colItem[c]] >= 0) cols.push(c);
  const colOffsets = [0];
  for (const c of cols) colOffsets.push(colOffsets[colOffsets.length - 1] + bank.colOffsets[c + 1] - bank.colOffsets[c]);
  const width0 = bank.colOffsets[nC0];
  const width = colOffsets[cols.length];
  const nJ = bank.models.length;
  const q = new Float32Array(nJ * width);
  const observed = new Uint8Array(nJ * cols.length);
  const hard = new Uint8Array(nJ * cols.length);
  const colPosition = bank.colPosition === null ? null : new Uint8Array(width);
  cols.forEach((c, n) => {
    const K = bank.colOffsets[c + 1] - bank.colOffsets[c];
    if (colPosition !== null) for (let k = 0; k < K; k++) colPosition[colOffsets[n] + k] = bank.colPosition[bank.colOffsets[c] + k];
    for (let j = 0; j < nJ; j++) {
      observed[j * cols.length + n] = bank.observed[j * nC0 + c];
      hard[j * cols.length + n] = bank.hard[j * nC0 + c];
      for (let k = 0; k < K; k++) q[j * width + colOffsets[n] + k] = bank.q[j * width0 + bank.colOffsets[c] + k];
    }
  });
  return {
    ...bank,
    items,
    itemOffsets: Int32Array.from(itemOffsets),
    key: Int32Array.from(key),
    kMax,
    colItem: Int32Array.from(cols, (c) => newIdx[bank.colItem[c]]),
    colOffsets: Int32Array.from(colOffsets),
    colPosition,
    q,
    observed,
    hard,
    leakage: null,
  };
}
