#!/usr/bin/env node
// Issue 31: precision and recall of the key audit on simulated fleets with swapped keys, through the
// CLI on files the way a user runs it: `llm-nrm simulate` a fleet (default 100 LLMs x 2,000 items of
// 2-10 options, the paper's bank), swap the keys of RATES of its items in the responses file (a
// seeded draw of items; each swapped item's `key` set to another of its options, drawn uniformly;
// the true parameters, hence the answers, unchanged), `llm-nrm fit` the swapped file as given (or
// with --ignore-key), `llm-nrm audit <bundle> <responses> --json` at each HIGH-THETA, and count the
// swapped items among the first 50 and 200 flags (precision = swapped among the first n / n;
// recall = swapped among the first n / swapped). Prints one row per rate and high theta: the mean
// over SEEDS and its range.
//   node bench/keyAudit.mjs [--models 100 --items 2000 --seeds 1,2,3 --rates 0.02,0.05,0.1
//                            --high-theta 4 --ignore-key --keep DIR]
// Build first (npm run build).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const here = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const models = opt('models', '100');
const items = opt('items', '2000');
const seeds = opt('seeds', '1,2,3').split(',');
const rates = opt('rates', '0.02,0.05,0.1').split(',').map(Number);
const highThetas = opt('high-theta', '4').split(',');
const ignoreKey = args.includes('--ignore-key');
const keep = opt('keep', null);
const work = keep ?? mkdtempSync(join(tmpdir(), 'llm-nrm-keyaudit-'));
mkdirSync(work, { recursive: true });
const AT = [50, 200];

const cli = (argv) =>
  execFileSync(process.execPath, [join(here, 'packages/cli/dist/bin.js'), ...argv, '-q'], { cwd: work, maxBuffer: 1 << 28, encoding: 'utf8' });

/** Seeded LCG in [0, 1): the bench's own draws (which items, which wrong key). */
function lcg(seed) {
  let state = (Number(seed) * 7919 + 17) % 2147483648;
  return () => ((state = (state * 1103515245 + 12345) % 2147483648), state / 2147483648);
}

const results = []; // { rate, theta, seed, p50, r50, p200, r200, swapped }
for (const seed of seeds) {
  const sim = join(work, `sim-${seed}.jsonl`);
  cli(['simulate', '--models', models, '--items', items, '--seed', seed, '-o', sim]);
  const lines = readFileSync(sim, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  const nOptions = new Map();
  for (const r of lines) nOptions.set(r.item, r.probs.length);
  const ids = [...nOptions.keys()];
  for (const rate of rates) {
    // Swap round(rate x items) keys: a partial Fisher-Yates over the item ids, then a wrong key each.
    const draw = lcg(`${seed}${Math.round(rate * 1000)}`);
    const order = ids.slice();
    const nSwap = Math.round(rate * ids.length);
    for (let i = 0; i < nSwap; i++) {
      const j = i + Math.floor(draw() * (order.length - i));
      [order[i], order[j]] = [order[j], order[i]];
    }
    const trueKey = new Map(lines.map((r) => [r.item, r.key]));
    const wrong = new Map();
    for (const id of order.slice(0, nSwap)) {
      const K = nOptions.get(id);
      wrong.set(id, (trueKey.get(id) + 1 + Math.floor(draw() * (K - 1))) % K);
    }
    const responses = join(work, `r-${seed}-${rate}.jsonl`);
    writeFileSync(responses, lines.map((r) => JSON.stringify(wrong.has(r.item) ? { ...r, key: wrong.get(r.item) } : r)).join('\n') + '\n');
    const bundle = join(work, `b-${seed}-${rate}.json`);
    cli(['fit', responses, '-o', bundle, ...(ignoreKey ? ['--ignore-key'] : [])]);
    for (const theta of highThetas) {
      const audit = JSON.parse(cli(['audit', bundle, responses, '--json', '--high-theta', theta]));
      const row = { rate, theta, seed, swapped: nSwap, flagged: audit.keys.length };
      for (const n of AT) {
        const hit = audit.keys.slice(0, n).filter((k) => wrong.has(k.id)).length;
        row[`p${n}`] = hit / n;
        row[`r${n}`] = hit / nSwap;
      }
      results.push(row);
      process.stderr.write(`seed ${seed} rate ${rate} theta ${theta}: ${JSON.stringify(row)}\n`);
    }
  }
}

const fmt = (xs) => {
  const m = xs.reduce((s, v) => s + v, 0) / xs.length;
  return `${m.toFixed(2)} (${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)})`;
};
console.log(
  `key audit: ${models} LLMs x ${items} items, seeds ${seeds.join(',')}, fit ${ignoreKey ? '--ignore-key' : 'with the swapped keys'}; mean (range) over seeds`,
);
console.log('| swapped | high theta | flagged | precision@50 | recall@50 | precision@200 | recall@200 |');
console.log('|---|---|---|---|---|---|---|');
for (const rate of rates)
  for (const theta of highThetas) {
    const rs = results.filter((r) => r.rate === rate && r.theta === theta);
    const col = (k) => fmt(rs.map((r) => r[k]));
    console.log(
      `| ${(rate * 100).toFixed(0)}% (${rs[0].swapped}) | ${theta} | ${Math.round(rs.reduce((s, r) => s + r.flagged, 0) / rs.length)} | ${col('p50')} | ${col('r50')} | ${col('p200')} | ${col('r200')} |`,
    );
  }
if (keep === null) rmSync(work, { recursive: true, force: true });
