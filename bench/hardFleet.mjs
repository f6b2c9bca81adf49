#!/usr/bin/env node
// Issue 31: the default LLM-NRM fit on an all-hard fleet shaped like MMLU-Pro (29 LLMs x 12,000
// items, 10 options, every answer a parsed choice, 10% unparsable: `choice: null`), through the
// CLI on files: wall seconds and convergence of `fit`, the largest sharpness, theta's Spearman with
// the simulated truth, and 5-fold held-out option log-loss against nrm-hard (`evaluate --cv`).
//   node bench/hardFleet.mjs [--models 29 --items 12000 --seed 1 --unparsable 0.1 --folds 5 --no-cv --keep DIR]
//   node bench/hardFleet.mjs --seeds 1,2,3,4,5,6 --no-cv   several fleets, then the median of each figure
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const here = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const models = opt('models', '29');
const items = opt('items', '12000');
const seeds = opt('seeds', opt('seed', '1')).split(',');
const unparsable = Number(opt('unparsable', '0.1'));
const folds = opt('folds', '5');
const keep = opt('keep', null);
const root = keep ?? mkdtempSync(join(tmpdir(), 'llm-nrm-hardfleet-'));

function ranks(xs) {
  const idx = xs.map((_, i) => i).sort((a, b) => xs[a] - xs[b]);
  const r = new Array(xs.length);
  for (let i = 0; i < idx.length;) {
    let j = i;
    while (j + 1 < idx.length && xs[idx[j + 1]] === xs[idx[i]]) j++;
    for (let k = i; k <= j; k++) r[idx[k]] = (i + j) / 2;
    i = j + 1;
  }
  return r;
}
function pearson(a, b) {
  const n = a.length;
  const ma = a.reduce((s, v) => s + v, 0) / n;
  const mb = b.reduce((s, v) => s + v, 0) / n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) ** 2;
    sbb += (b[i] - mb) ** 2;
  }
  return sab / Math.sqrt(saa * sbb);
}

function runSeed(seed) {
  const work = seeds.length > 1 ? join(root, `seed-${seed}`) : root;
  mkdirSync(work, { recursive: true });
  const cli = (argv) =>
    execFileSync(process.execPath, [join(here, 'packages/cli/dist/bin.js'), ...argv, '-q'], { cwd: work, maxBuffer: 1 << 28, encoding: 'utf8' });
  const sim = join(work, 'sim.jsonl');
  const truthFile = join(work, 'truth.json');
  cli(['simulate', '--models', models, '--items', items, '--options', '10', '--hard', '1', '--seed', seed, '-o', sim, '--truth', truthFile]);
  // Unparsable answers, as a harness reports them: the record kept, its choice null (seeded LCG).
  let state = Number(seed) * 7 + 1;
  const draw = () => ((state = (state * 1103515245 + 12345) % 2147483648), state / 2147483648);
  const responses = join(work, 'r.jsonl');
  const lines = readFileSync(sim, 'utf8').trimEnd().split('\n');
  writeFileSync(responses, lines.map((l) => (draw() < unparsable ? JSON.stringify({ ...JSON.parse(l), choice: null }) : l)).join('\n') + '\n');
  const truth = new Map(JSON.parse(readFileSync(truthFile, 'utf8')).llms.map((l) => [l.id, l.theta]));

  const rows = [];
  for (const model of ['llm-nrm', 'nrm-hard']) {
    const bundle = join(work, `${model}.json`);
    const t0 = performance.now();
    let ok = true;
    try {
      cli(['fit', responses, '--skip-invalid', '--model', model, '-o', bundle, '--allow-unconverged']);
    } catch {
      ok = false;
    }
    const seconds = (performance.now() - t0) / 1000;
    if (!ok) {
      rows.push({ model, seconds, failed: true });
      continue;
    }
    const b = JSON.parse(readFileSync(bundle, 'utf8'));
    const th = b.llms.map((l) => l.theta);
    const tr = b.llms.map((l) => truth.get(l.id));
    rows.push({
      model,
      seconds: Number(seconds.toFixed(1)),
      converged: b.fit.converged,
      reason: b.fit.reason,
      distance: b.fit.distance,
      iterations: b.fit.iterations,
      maxSharpness: Math.max(...b.llms.map((l) => l.sharpness)),
      spearman: Number(pearson(ranks(th), ranks(tr)).toFixed(4)),
      warnings: (b.warnings ?? []).map((w) => w.code),
    });
  }
  let cv = null;
  if (!args.includes('--no-cv')) {
    const out = JSON.parse(cli(['evaluate', responses, '--cv', folds, '--models', 'llm-nrm,nrm-hard', '--seed', seed, '--json']));
    cv = out.cv.rows.map((r) => ({ model: r.name, optionLogLoss: r.option.logLoss, optionAccuracy: r.option.accuracy, seconds: r.seconds }));
    cv.unconverged = out.unconverged ?? [];
  }
  return { models: Number(models), items: Number(items), seed: Number(seed), unparsable, fits: rows, cv };
}

const median = (xs) => {
  const v = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return v.length === 0 ? NaN : v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};
const results = seeds.map(runSeed);
for (const r of results) console.log(JSON.stringify(r, null, 2));
if (results.length > 1) {
  for (const model of ['llm-nrm', 'nrm-hard']) {
    const fits = results.map((r) => r.fits.find((f) => f.model === model));
    const of = (k) => fits.map((f) => (f?.failed ? NaN : f?.[k]));
    console.log(
      `${model} over seeds ${seeds.join(',')}: Spearman median ${median(of('spearman')).toFixed(4)} (${of('spearman').join(' / ')}), ` +
        `seconds median ${median(of('seconds')).toFixed(1)}, converged ${of('converged').filter((c) => c === true).length} of ${fits.length}, ` +
        `largest sharpness ${Math.max(...of('maxSharpness').filter(Number.isFinite)).toFixed(2)}`,
    );
  }
}
if (keep === null) rmSync(root, { recursive: true, force: true });
