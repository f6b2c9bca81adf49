#!/usr/bin/env node
// The default fit (core's `fit`, SEs included) on a threaded wasm engine with its L-BFGS vector
// sweeps threaded (the default) and on the calling thread (`threadedVectors: false`), alternated run
// by run on one simulated fleet: the same passes and loss (checked), and the time of each. For the
// sizes between the vector pool's threshold (MIN_SHARED_LENGTH parameters) and paper scale.
//   node bench/vectors.js [--items 4000] [--models 189] [--seed 11] [--runs 3] [--threads 2]
import { performance } from 'node:perf_hooks';
import * as core from '@llm-nrm/core';
import { disposeWasmThreads, wasmEngine } from '../dist/index.js';
import { log, median, num } from './options.js';

const items = num('items', 4000);
const models = num('models', 189);
const runs = num('runs', 3);
const threads = num('threads', 2);
const { bank } = core.simulateFleet({ models, items, seed: num('seed', 11) });
const seconds = { threaded: [], serial: [] };
const seen = { threaded: null, serial: null };
for (let r = 0; r < runs; r++)
  for (const mode of ['threaded', 'serial']) {
    const w = wasmEngine({ threads, ...(mode === 'serial' ? { threadedVectors: false } : {}) });
    const t = performance.now();
    const f = core.fit(bank, { engine: w.engine });
    seconds[mode].push((performance.now() - t) / 1000);
    const got = { parameters: f.layout.size, passes: f.passes, loss: f.loss };
    if (seen[mode] !== null && (seen[mode].passes !== got.passes || seen[mode].loss !== got.loss)) throw new Error(`${mode}: run ${r} differs from run 0`);
    seen[mode] = got;
    log(`${mode} run ${r}: ${seconds[mode].at(-1).toFixed(2)} s, ${got.passes} passes, loss ${got.loss}`);
    w.dispose();
  }
disposeWasmThreads();
if (seen.threaded.loss !== seen.serial.loss || seen.threaded.passes !== seen.serial.passes) throw new Error('threaded and serial vectors gave different fits');
console.log(
  JSON.stringify({
    models,
    items,
    threads,
    ...seen.threaded,
    threadedSeconds: seconds.threaded,
    serialSeconds: seconds.serial,
    threadedMedian: median(seconds.threaded),
    serialMedian: median(seconds.serial),
  }),
);
