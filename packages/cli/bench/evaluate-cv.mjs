// Speed benchmark (not a test) of `llm-nrm evaluate --cv 5` with all seven models, per model and
// per fold, on the built dist. Usage (build first: npm run build):
//   node packages/cli/bench/evaluate-cv.mjs [--file f.jsonl] [--runs 3] [--models llm-nrm,...] [--root DIR] [--wall N] [--digits 4]
//   node packages/cli/bench/evaluate-cv.mjs --fold 1[,2,...] --models 3pl,4pl [--runs 3] [--root DIR] [--binary-pass phased|simd]
// --file: a tidy responses file (default: `llm-nrm simulate -o /tmp/llm-nrm-cv-bench.jsonl --seed 7`,
//   189 x 2,000, written when missing). --root: a checkout whose built dist to time (e.g. another
//   worktree, for before/after); default this one.
// What it prints:
// - per model and fold, the CPU seconds (process.cpuUsage: user + system) of one-thread CV
//   (analysis' crossValidate, the engine as `--engine auto` picks it), median over --runs. CPU time
//   is what stays meaningful on a machine shared with other work, where wall time is not;
// - the wall time those fits would take on 2 idle cores under evaluate's worker schedule (dearest
//   family first, each worker taking the next task when free), from the median CPU per fold;
// - with --wall N (this checkout only): N timed runs of the real command `evaluate --cv 5 --json`
//   (2 worker threads), wall clock, and a check that its table equals the one-thread table;
// - the held-out metrics (they must not change with speed work).
// --digits: decimals of the held-out table (default 4).
// --fold f: only fold f (1-based) of each model, --runs times: its CPU seconds, passes, iterations,
//   loss, the stop (criterion and estimated distance in SE), the engine that ran, and the fold's
//   held-out figures; then exit. A list (--fold 1,2,3,4,5): those folds, then the means of their figures.
// --binary-pass phased|simd: the wasm engine's pass for every binary family (this checkout's
//   loader only; default per family, ModelFamily.fastKernel: simd for 3PL and 4PL, phased, the
//   TypeScript kernel's bits, for 1PL and 2PL; `--binary-pass phased` gives core's bits for all).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const here = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const root = resolve(opt('root', here));
const runs = Number(opt('runs', '3'));
const wallRuns = Number(opt('wall', '0'));
const models = opt('models', 'llm-nrm,nrm,nrm-hard,1pl,2pl,3pl,4pl').split(',');
const file = opt('file', '/tmp/llm-nrm-cv-bench.jsonl');
const bin = join(here, 'packages/cli/dist/bin.js');
if (!existsSync(file)) execFileSync(process.execPath, [bin, 'simulate', '-o', file, '--seed', '7', '-q']);

const imp = (p) => import(pathToFileURL(join(root, p)).href);
const { crossValidate, crossValidateFold, crossValidationPlan } = await imp('packages/analysis/dist/index.js');
const { fit: coreFit } = await imp('packages/core/dist/index.js');
const { loadBank } = await imp('packages/adapters/dist/index.js');
const { loadEngine } = await imp('packages/cli/dist/engines.js');
const { bank } = await loadBank(file);
const binaryPass = opt('binary-pass', undefined);
const engine = await loadEngine('auto', binaryPass ? { binaryPass } : {});
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
console.log(
  `machine: ${os.cpus()[0]?.model} x ${os.cpus().length}, node ${process.version}, load average ${os
    .loadavg()
    .map((v) => v.toFixed(1))
    .join(' ')}`,
);
console.log(`code: ${root}; bank: ${bank.models.length} LLMs x ${bank.items.length} items (${file})`);

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const oneFold = opt('fold', undefined);
if (oneFold !== undefined) {
  const d = Number(opt('digits', '6'));
  const show = (v) => v.map((x) => x.toFixed(d)).join(' / ');
  for (const m of models) {
    const plan = crossValidationPlan(bank, { models: [m], folds: 5, seed: 1 });
    const sums = [0, 0, 0, 0, 0];
    const folds = oneFold.split(',').map((v) => Number(v) - 1);
    let cpuAll = 0;
    for (const f of folds) {
      const cpus = [];
      let info = null;
      for (let r = 0; r < runs; r++) {
        const c0 = cpu();
        const metrics = crossValidateFold(
          bank,
          plan.folds,
          { spec: plan.specs[0], fold: f },
          {
            fitOptions: { engine },
            fit: (b, o) => {
              const res = coreFit(b, o);
              info = {
                passes: res.passes,
                iterations: res.iterations,
                loss: res.loss,
                engine: res.engine,
                optimizer: res.optimizer,
                reason: res.reason,
                distance: res.distance,
              };
              return res;
            },
          },
        );
        cpus.push(cpu() - c0);
        console.log(
          `  ${m} fold ${f + 1} run ${r + 1}: ${cpus[r].toFixed(2)} CPU-s, ${info.passes} passes, ${info.iterations} iterations, loss ${info.loss.toFixed(4)}, stop ${info.reason} at ${info.distance.toFixed(3)} SE, engine ${info.engine}, load ${os.loadavg()[0].toFixed(1)}`,
        );
        if (r === runs - 1) {
          const v = [metrics.optionAccuracy, metrics.optionLogLoss, metrics.correctAccuracy, metrics.correctLogLoss, metrics.correctBrier];
          v.forEach((x, t) => (sums[t] += x / folds.length));
          console.log(`  ${m} fold ${f + 1} held out: ${show(v)}`);
        }
      }
      cpuAll += median(cpus);
      console.log(`${m} fold ${f + 1}: median ${median(cpus).toFixed(2)} CPU-s over ${runs} runs`);
    }
    if (folds.length > 1) console.log(`${m} folds ${oneFold}: ${cpuAll.toFixed(1)} CPU-s (medians added); mean held out ${show(sums)}`);
  }
  process.exit(0);
}

/** cpu[run][model][fold] */
const perRun = [];
let table;
for (let r = 0; r < runs; r++) {
  const byModel = [];
  const rows = [];
  for (const m of models) {
    const marks = [];
    const res = crossValidate(bank, {
      models: [m],
      folds: 5,
      seed: 1,
      fitOptions: { engine },
      // Each fold announces itself first (`cv <model>: fold f/k`): CPU time between announcements.
      onProgress: (msg) => {
        if (/: fold \d+\/\d+$/.test(msg)) marks.push(cpu());
      },
    });
    marks.push(cpu());
    byModel.push(marks.slice(1).map((t, f) => t - marks[f]));
    rows.push(res.rows[0]);
    const f = byModel[byModel.length - 1];
    console.log(
      `  run ${r + 1} ${m}: CPU ${f.reduce((a, b) => a + b, 0).toFixed(1)} s (${f.map((v) => v.toFixed(1)).join(' ')}), wall ${res.rows[0].seconds.toFixed(1)} s, load ${os.loadavg()[0].toFixed(1)}`,
    );
  }
  perRun.push(byModel);
  table = rows;
  console.log(
    `run ${r + 1}: CPU ${byModel.map((f, i) => `${models[i]} ${f.reduce((a, b) => a + b, 0).toFixed(1)}`).join(', ')} (load ${os.loadavg()[0].toFixed(1)})`,
  );
}
const foldCpu = models.map((_, i) => Array.from({ length: 5 }, (_, f) => median(perRun.map((run) => run[i][f]))));
console.log(`\nCPU seconds per model (median over ${runs} runs of each fold), and its folds:`);
let total = 0;
models.forEach((m, i) => {
  const s = foldCpu[i].reduce((a, b) => a + b, 0);
  total += s;
  console.log(`  ${m.padEnd(8)} ${s.toFixed(1).padStart(6)}   ${foldCpu[i].map((v) => v.toFixed(1)).join(' ')}`);
});
console.log(`  ${'all'.padEnd(8)} ${total.toFixed(1).padStart(6)}`);
// evaluate's schedule (packages/cli/src/commands/evaluateWorkers.ts: COST, dearest first).
const COST = { '4pl': 6, '3pl': 5, 'llm-nrm': 4, 'nrm-hard': 2 };
const tasks = models.flatMap((m, i) => foldCpu[i].map((s, f) => ({ m, s, i: i * 5 + f })));
tasks.sort((a, b) => (COST[b.m] ?? 1) - (COST[a.m] ?? 1) || a.i - b.i);
const free = [0, 0];
for (const t of tasks) {
  const w = free[0] <= free[1] ? 0 : 1;
  free[w] += t.s;
}
console.log(
  `fits on 2 idle cores under evaluate's schedule: ${Math.max(...free).toFixed(1)} s (workers busy ${free.map((v) => v.toFixed(1)).join(' / ')} s), plus loading the file`,
);

console.log('\nmodel\toption acc\toption log-loss\tcorrect acc\tcorrect log-loss\tbrier');
for (const row of table) {
  console.log(
    [row.name, row.option.accuracy.mean, row.option.logLoss.mean, row.correctness.accuracy.mean, row.correctness.logLoss.mean, row.correctness.brier.mean]
      .map((v) => (typeof v === 'number' ? v.toFixed(Number(opt('digits', '4'))) : v))
      .join('\t'),
  );
}

if (wallRuns > 0) {
  const strip = (rows) => JSON.stringify(rows.map((r) => ({ ...r, seconds: 0, folds: r.folds.map((f) => ({ ...f, fitSeconds: 0 })) })));
  const walls = [];
  for (let r = 0; r < wallRuns; r++) {
    const t0 = performance.now();
    const out = execFileSync(process.execPath, [bin, 'evaluate', file, '--cv', '5', '--models', models.join(','), '--json', '-q'], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    walls.push((performance.now() - t0) / 1000);
    const same = strip(JSON.parse(out).cv.rows) === strip(table);
    console.log(
      `evaluate --cv 5 (2 workers) run ${r + 1}: ${walls[r].toFixed(1)} s wall, load ${os.loadavg()[0].toFixed(1)}; table ${same ? 'identical to' : 'DIFFERS from'} the one-thread one`,
    );
  }
  console.log(`median wall of ${wallRuns}: ${median(walls).toFixed(1)} s`);
}
