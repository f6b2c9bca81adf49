// Speed and recovery benchmark (not a test) of `llm-nrm extend` on the built dist (npm run build first):
//   node packages/cli/bench/extend.mjs [--models 189] [--items 2000] [--new 100] [--runs 3] [--dir /tmp/llm-nrm-extend-bench]
// Simulates models x (items + new) with `llm-nrm simulate` (seed 7), fits the bundle of the first
// `items` items and a full refit of all, then times the whole `llm-nrm extend` command on the new
// items through the CLI (wall clock, median of --runs) and prints the new items' recovery against
// the full refit (Pearson r of difficulty, of the key's slope a_g - mean a, of every a).
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const J = Number(opt('models', 189));
const I = Number(opt('items', 2000));
const M = Number(opt('new', 100));
const runs = Number(opt('runs', 3));
const dir = opt('dir', '/tmp/llm-nrm-extend-bench');
mkdirSync(dir, { recursive: true });
const bin = fileURLToPath(new URL('../bin/llm-nrm.js', import.meta.url));
const cli = (a) => execFileSync(process.execPath, [bin, ...a], { encoding: 'utf8', maxBuffer: 1 << 30 });
const timed = (label, a) => {
  const t = Date.now();
  const out = cli(a);
  const s = (Date.now() - t) / 1000;
  console.log(`${label}: ${s.toFixed(2)} s`);
  return { out, s };
};

const all = join(dir, 'all.jsonl');
timed('simulate', ['simulate', '--models', String(J), '--items', String(I + M), '--seed', '7', '-o', all, '-q']);
// Streamed line by line: at paper size (--items 31554) the file is over 1 GB, past a string's limit.
const eachLine = async (each) => {
  for await (const line of createInterface({ input: createReadStream(all), crlfDelay: Infinity })) if (line !== '') each(line);
};
const ids = new Set();
await eachLine((l) => ids.add(JSON.parse(l).item));
const newIds = new Set([...ids].slice(I));
const oldPath = join(dir, 'old.jsonl');
const newPath = join(dir, 'new.jsonl');
const oldOut = createWriteStream(oldPath);
const newOut = createWriteStream(newPath);
await eachLine((l) => (newIds.has(JSON.parse(l).item) ? newOut : oldOut).write(l + '\n'));
await Promise.all([oldOut, newOut].map((w) => new Promise((resolve) => w.end(resolve))));
const bundlePath = join(dir, 'bundle.json');
const fullPath = join(dir, 'full.json');
timed(`fit ${J} x ${I} (the bundle)`, ['fit', oldPath, '-o', bundlePath, '-q']);
timed(`fit ${J} x ${I + M} (full refit)`, ['fit', all, '-o', fullPath, '-q']);
const times = [];
let summary;
for (let r = 0; r < runs; r++) {
  const { out, s } = timed(`extend ${M} new items, run ${r + 1}`, ['extend', bundlePath, newPath, '-o', join(dir, 'extended.json'), '--json', '-q']);
  times.push(s);
  summary = JSON.parse(out);
}
times.sort((a, b) => a - b);
const extended = JSON.parse(readFileSync(join(dir, 'extended.json'), 'utf8'));
const full = new Map(JSON.parse(readFileSync(fullPath, 'utf8')).items.map((it) => [it.id, it]));
const added = extended.items.slice(I);
const refit = added.map((it) => full.get(it.id));
const pearson = (x, y) => {
  const n = x.length;
  const mx = x.reduce((s, v) => s + v, 0) / n;
  const my = y.reduce((s, v) => s + v, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
};
const keySlope = (it) => it.a[it.key] - it.a.reduce((s, v) => s + v, 0) / it.nOptions;
console.log(
  JSON.stringify(
    {
      size: `${J} x (${I} + ${M})`,
      extendMedianSeconds: times[Math.floor(times.length / 2)],
      extendRuns: times,
      fit: summary.fit,
      flagged: summary.flagged.length,
      flags: summary.flags,
      recovery: {
        difficulty: pearson(
          added.map((it) => it.difficulty),
          refit.map((it) => it.difficulty),
        ),
        keySlope: pearson(added.map(keySlope), refit.map(keySlope)),
        a: pearson(
          added.flatMap((it) => it.a),
          refit.flatMap((it) => it.a),
        ),
        maxDifficultyGap: Math.max(...added.map((it, i) => Math.abs(it.difficulty - refit[i].difficulty))),
      },
    },
    null,
    2,
  ),
);
