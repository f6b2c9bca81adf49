#!/usr/bin/env node
// One pass (loss + gradient) of the LLM-NRM objective: core's fused TypeScript kernel against the
// wasm SIMD kernel on 1 and more threads (plain node on the built dist: `npm run build` first).
//
//   node bench/kernel.js                              189 x 2,000 (seed 1): ts, wasm-1, wasm-2
//   node bench/kernel.js --items 31554 --runs 5       paper scale (34.6 M option entries)
//   options: --models J --items I --seed S --runs R --threads 1,2 --engines ts,wasm --parts all|nrm
//
// Prints per engine the median and min of R timed passes (after 2 warm-ups), ns per option entry,
// the median CPU time of a pass (all threads of the process: on a shared machine it shows how much
// of the wall time the pass really ran), the loss and its relative gap to the TS kernel, the setup
// time and kernel memory of the wasm objective, and the peak RSS.
import { performance } from 'node:perf_hooks';
import * as coreMain from '@llm-nrm/core';
import * as coreEngine from '@llm-nrm/core/engine';

const core = { ...coreMain, ...coreEngine };
import { wasmLlmNrmObjective } from '../dist/index.js';
import { log, median, opt } from './options.js';

const J = Number(opt('models', 189));
const I = Number(opt('items', 2000));
const seed = Number(opt('seed', 1));
const runs = Number(opt('runs', 7));
const threadList = String(opt('threads', '1,2')).split(',').map(Number);
const engines = String(opt('engines', 'ts,wasm')).split(',');
const partsName = String(opt('parts', 'all'));
const parts = partsName === 'nrm' ? core.NO_PARTS : core.ALL_PARTS;
const mb = (b) => (b / 2 ** 20).toFixed(0);

let t = performance.now();
const { bank } = core.simulateFleet({ models: J, items: I, seed });
const layout = core.llmNrmLayout(bank, parts);
const nC = bank.colItem.length;
let entries = 0;
for (let j = 0; j < J; j++) for (let c = 0; c < nC; c++) if (bank.observed[j * nC + c]) entries += bank.colOffsets[c + 1] - bank.colOffsets[c];
log(
  `simulated ${J} x ${I} (seed ${seed}, ${(entries / 1e6).toFixed(2)} M option entries, parts ${partsName}) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
);
const x = core.initialParameters(bank, layout);
const g = new Float64Array(x.length);

function time(name, obj) {
  for (let r = 0; r < 2; r++) obj.lossAndGrad(x, g);
  const ts = [];
  const cpu = [];
  let loss = 0;
  for (let r = 0; r < runs; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    loss = obj.lossAndGrad(x, g);
    ts.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const med = median(ts);
  return { name, med, min: Math.min(...ts), cpu: median(cpu), loss };
}

const rows = [];
if (engines.includes('ts')) rows.push(time('ts', core.llmNrmObjective(bank, layout)));
for (const threads of engines.includes('wasm') ? threadList : []) {
  t = performance.now();
  const obj = wasmLlmNrmObjective(bank, layout, {}, { threads });
  const setup = performance.now() - t;
  const r = time(`wasm-${threads}`, obj);
  r.setup = setup;
  r.memory = obj.memoryBytes;
  r.threads = obj.threads;
  rows.push(r);
  obj.dispose();
}
const ref = rows.find((r) => r.name === 'ts')?.loss;
console.log(`${J} x ${I}, ${entries} option entries, median of ${runs} passes`);
console.log('engine      median ms   min ms   ns/entry   cpu ms   loss                   rel. to ts   setup ms   kernel MiB');
for (const r of rows) {
  const rel = ref === undefined ? '' : ((r.loss - ref) / ref).toExponential(2);
  console.log(
    `${r.name.padEnd(10)} ${r.med.toFixed(1).padStart(10)} ${r.min.toFixed(1).padStart(8)} ${((r.med * 1e6) / entries).toFixed(2).padStart(10)} ${r.cpu.toFixed(1).padStart(8)}   ${r.loss.toFixed(6).padEnd(22)} ${rel.padStart(10)}   ${r.setup === undefined ? '' : r.setup.toFixed(0).padStart(8)}   ${r.memory === undefined ? '' : mb(r.memory).padStart(10)}`,
  );
}
console.log(`peak RSS ${mb(process.resourceUsage().maxRSS * 1024)} MiB`);
