#!/usr/bin/env node
// CPU time of one 1PL-4PL preconditioner refresh (the block curvature L-BFGS refreshes every 10
// iterations; plain node on the built dist; not a test).
//   node bench/core/binary-curvature.js [--refreshes 20] [--rounds 5] [--models 189] [--items 2000] [--pl 1,2,3,4]
// Times, round robin in one process (so machine load falls on both alike), the row loop
// (binaryCurvature without cells) and the item-major sums the family uses (itemBlocks.ts), on a
// simulated fleet with a fifth of its cells held out (a CV fold's training cells). Prints CPU ms
// per refresh (process.cpuUsage, median over rounds) and how many block entries differ between
// the two (0: the same bits).
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { coreOf } from './coreOf.js';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const refreshes = Number(opt('refreshes', '20'));
const rounds = Number(opt('rounds', '5'));
const J = Number(opt('models', '189'));
const I = Number(opt('items', '2000'));
const pls = opt('pl', '1,2,3,4').split(',').map(Number);
const dist = (p) => import(pathToFileURL(join(root, 'packages/core/dist', p)).href);
const core = await coreOf(root);
const { binaryCurvature } = await dist('model/binary/curvature.js');
const { binaryCells } = await dist('model/binary/kernel.js');
const { binaryFreeMask } = await dist('model/binary/layout.js');
const { bank: full } = core.simulateFleet({ models: J, items: I, seed: 1 });
const mask = new Uint8Array(J * full.colItem.length).map((_, t) => ((t * 7919) % 5 === 2 ? 0 : 1));
const bank = core.withObserved(full, mask);
const y = core.correctness(bank);
const median = (v) => [...v].sort((a, b) => a - b)[(v.length - 1) >> 1];
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
console.log(`${J} x ${I} simulated (seed 1), a fifth of the cells held out; ${refreshes} refreshes per round, ${rounds} rounds`);
for (const pl of pls) {
  const L = core.binaryLayout(bank, pl);
  const x = core.initialParameters(bank, L);
  for (let t = 0; t < x.length; t++) x[t] += 0.3 * Math.sin(t * 1.7);
  const free = binaryFreeMask(L);
  const cells = binaryCells(bank, L, y);
  const byRow = () => binaryCurvature(bank, L, x, free, {}, y);
  const byItem = () => binaryCurvature(bank, L, x, free, {}, y, {}, cells);
  const a = byRow();
  const b = byItem();
  let differ = 0;
  for (let k = 0; k < a.blocks.chol.length; k++) a.blocks.chol[k].forEach((v, t) => (differ += Object.is(v, b.blocks.chol[k][t]) ? 0 : 1));
  const times = { row: [], item: [] };
  for (let r = 0; r < rounds; r++)
    for (const [name, f] of [
      ['row', byRow],
      ['item', byItem],
    ]) {
      const c0 = cpu();
      for (let k = 0; k < refreshes; k++) f();
      times[name].push((cpu() - c0) / refreshes);
    }
  const row = median(times.row);
  const item = median(times.item);
  console.log(
    `${pl}PL: row loop ${row.toFixed(1)} CPU ms, item-major ${item.toFixed(1)} CPU ms per refresh (x${(row / item).toFixed(2)}); block entries differing: ${differ}`,
  );
}
