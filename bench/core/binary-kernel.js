#!/usr/bin/env node
// CPU time of one 1PL-4PL loss + gradient pass (plain node on the built dist; not a test).
//   node bench/core/binary-kernel.js [--root other-checkout] [--passes 30] [--models 189] [--items 2000] [--pl 1,2,3,4]
// --root: time another checkout's built core (before/after). Prints CPU ms per pass
// (process.cpuUsage: steadier than wall time on a shared machine) and the loss, which must agree
// between checkouts bit for bit.
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { coreOf } from './coreOf.js';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const root = resolve(opt('root', fileURLToPath(new URL('../..', import.meta.url))));
const passes = Number(opt('passes', '30'));
const J = Number(opt('models', '189'));
const I = Number(opt('items', '2000'));
const pls = opt('pl', '1,2,3,4').split(',').map(Number);
const core = await coreOf(root);
const { binaryObjective } = await import(pathToFileURL(join(root, 'packages/core/dist/families/binary/objective.js')).href);
const { bank } = core.simulateFleet({ models: J, items: I, seed: 1 });
const y = core.correctness(bank);
console.log(`core: ${root}; ${J} x ${I} simulated (seed 1)`);
for (const pl of pls) {
  const L = core.binaryLayout(bank, pl);
  const x = core.initialParameters(bank, L);
  for (let t = 0; t < x.length; t++) x[t] += 0.3 * Math.sin(t * 1.7);
  const obj = binaryObjective(bank, L, y);
  const g = new Float64Array(L.size);
  const loss = obj.lossAndGrad(x, g);
  const c0 = process.cpuUsage();
  for (let r = 0; r < passes; r++) obj.lossAndGrad(x, g);
  const u = process.cpuUsage(c0);
  let gsum = 0;
  for (let t = 0; t < g.length; t++) gsum += Math.abs(g[t]);
  console.log(`${pl}PL: ${((u.user + u.system) / 1000 / passes).toFixed(1)} CPU ms per pass; loss ${loss}, sum |g| ${gsum}`);
}
