#!/usr/bin/env node
// CPU time of one application of the block preconditioner (core's internal Blocks.apply: a solve
// with every block's Cholesky factor) on the block sizes of the default fit of `llm-nrm simulate
// --seed 7` (189 x 2,000: 612 item blocks of 20 x 20, 940 of 8 x 8, 189 LLM blocks of 22 x 22...),
// random SPD blocks (seeded), a third with a step cap. Median of --runs batches of --reps applies.
//   node bench/core/blocksApply.js [--runs 5] [--reps 100] [--pair] [--scale 1] [--root /path/to/other/checkout]
// --pair: the two applies of an L-BFGS iteration (the gradient's and the two-loop's vector) as one
// Blocks.applyPair sweep instead of two apply calls; the figure is then per pair. --scale S: S times
// the item blocks (S = 15.8: about paper scale's 31,554 items, whose triangles are 20 MB, far outside the caches).
// Under `valgrind --tool=callgrind node bench/core/blocksApply.js --runs 3` (and --runs 0 for the
// setup alone) the instruction counts compare checkouts on a shared machine.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const root = opt('root', join(here, '../..'));
const runs = Number(opt('runs', '5'));
const pair = args.includes('--pair');
const reps = Number(opt('reps', '100'));
const { Blocks } = await import(join(root, 'packages/core/dist/internal/blocks.js'));
const SIZES = { 2: 1, 4: 129, 6: 101, 8: 940, 10: 218, 20: 612, 22: 189 };
let seed = 1;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const specs = [];
const scale = Number(opt('scale', '1'));
for (const [p, c] of Object.entries(SIZES)) for (let i = 0; i < (Number(p) === 22 || Number(p) === 2 ? c : Math.round(c * scale)); i++) specs.push(Number(p));
for (let i = specs.length - 1; i > 0; i--) {
  const j = Math.floor(rnd() * (i + 1));
  [specs[i], specs[j]] = [specs[j], specs[i]];
}
const n = specs.reduce((a, b) => a + b, 0);
const perm = Array.from({ length: n }, (_, i) => i);
for (let i = n - 1; i > 0; i--) {
  const j = Math.floor(rnd() * (i + 1));
  [perm[i], perm[j]] = [perm[j], perm[i]];
}
const blocks = new Blocks(n);
const free = new Uint8Array(n).fill(1);
let at = 0;
for (const P of specs) {
  const idx = perm.slice(at, at + P);
  at += P;
  const A = Float64Array.from({ length: P * P }, () => rnd() - 0.5);
  const H = new Float64Array(P * P);
  for (let i = 0; i < P; i++)
    for (let j = 0; j < P; j++) {
      let s = 0;
      for (let k = 0; k < P; k++) s += A[i * P + k] * A[j * P + k];
      H[i * P + j] = s + (i === j ? P : 0);
    }
  blocks.add(idx, H, free, 0, rnd() < 0.3 ? 0.5 : Infinity);
}
const v = Float64Array.from({ length: n }, () => rnd() - 0.5);
const v2 = Float64Array.from({ length: n }, () => rnd() - 0.5);
const out = new Float64Array(n);
const out2 = new Float64Array(n);
const ms = [];
for (let r = 0; r < runs; r++) {
  const c = process.cpuUsage();
  if (pair) for (let i = 0; i < reps; i++) blocks.applyPair(v, out, v2, out2);
  else
    for (let i = 0; i < reps; i++) {
      blocks.apply(v, out);
      blocks.apply(v2, out2);
    }
  const cu = process.cpuUsage(c);
  ms.push((cu.user + cu.system) / 1000 / reps);
}
let check = 0;
for (let t = 0; t < n; t++) check += out[t] * (t + 1) + out2[t] * (n - t);
const median = [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)];
console.log(
  `${specs.length} blocks, ${n} parameters: CPU ms per ${pair ? 'applyPair' : 'two applies'} ${ms.map((x) => x.toFixed(3)).join(' ')}; median ${median?.toFixed(3) ?? '-'} (check ${check.toPrecision(15)}; ${root})`,
);
