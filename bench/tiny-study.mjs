// Tiny-benchmark study (issue 10): Kendall tau of tiny-run thetas vs full-bank thetas and the MAE of
// the predicted full-bank accuracy, over 5 LLM folds.
//   node bench/tiny-study.mjs sim [models] [items]   simulated fleet (default 189 x 2000)
//   node bench/tiny-study.mjs naep                     NAEP fixture (18 LLMs x 297 items x 4 rotations)
//   node bench/tiny-study.mjs soft|hard [items]        the real-shaped fleets of bench/tiny-fleets.mjs (default 2000 items)
// Default: the exported-files study. Per fold the calibration is written as a bundle and a tidy file, and
// the built CLI publishes the tiny package (`llm-nrm publish`; `--item-list` for random items); the
// held-out LLMs' answers to its items (one presentation each, with the package's prompts) go through the
// lm-eval writer, and `llm-nrm score <package> <lm-eval output> --json` reads them back and scores them,
// exactly as a user would. 2PL: its own bundle and range selection, scored by `llm-nrm score <bundle>`.
// Build first (npm run build). IN_MEMORY=1 runs the in-memory ablations instead (selectionStudy;
// METHODS=... narrows them). BUDGETS=10,20,41,100. FOLDS=0,2 runs only those folds and DUMP=file.json writes
// their per-LLM results; `tiny-study.mjs merge a.json b.json ...` prints the table of several such runs.
import { execFile } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bankFromRecords, bankRecords, fit, simulateFleet, toBundle, withObserved } from '@llm-nrm/core';
import { STUDY_METHODS, accuracyCurve, accuracyAt, calibratedLlmFolds, heldOutThetas, kendallTau, selectForRange, selectionStudy } from '@llm-nrm/analysis';
import { benchFleet, naepRecords } from './benchFleet.mjs';
import { packageItems, scoreThroughLmEval } from './packageRun.mjs';

const run = promisify(execFile);
const [what = 'sim', m = '189', n = '2000'] = process.argv.slice(2);
if (what === 'merge') {
  const parts = process.argv.slice(3).map((f) => JSON.parse(readFileSync(f, 'utf8')));
  const p0 = parts[0];
  const pick = (key) => Float64Array.from(p0[key], (_, j) => parts.map((p) => p[key][j]).find((v) => v !== null && Number.isFinite(v)) ?? NaN);
  const merged = Object.fromEntries(
    Object.keys(p0.est).map((k) => [
      k,
      Object.fromEntries(
        ['t', 'a', 'low', 'high'].map((f) => [
          f,
          Float64Array.from(p0.est[k][f], (_, j) => parts.map((p) => p.est[k][f][j]).find((v) => v !== null && Number.isFinite(v)) ?? NaN),
        ]),
      ),
    ]),
  );
  printTable(
    `${p0.label}, scored from exported-then-read-back files: ${p0.J} LLMs, ${p0.I} items, ${parts.length} runs of 5 LLM folds (${parts.map((p) => p.seconds).join(' + ')} s)`,
    p0.budgets,
    new Map(Object.entries(merged)),
    pick('full'),
    pick('fullAcc'),
  );
  process.exit(0);
}
const budgets = (process.env.BUDGETS ?? '10,20,41,100').split(',').map(Number);
// Random baselines: the mean over DRAWS seeded draws per fold (default 5), the same items `compression` draws.
const DRAWS = Number(process.env.DRAWS ?? 5);
const say = (s) => process.stderr.write(`${s}\n`);
let bank;
let records;
if (what === 'naep') {
  records = await naepRecords();
  bank = bankFromRecords(records).bank;
} else if (what === 'soft' || what === 'hard') {
  bank = await benchFleet(what, { items: Number(process.argv[3] ?? 2000) });
  records = [...bankRecords(bank)];
} else {
  bank = simulateFleet({ models: Number(m), items: Number(n), seed: 1 }).bank;
  records = [...bankRecords(bank)];
}
// ENGINE=wasm: the calibrations and reference fits on engine-wasm (about 2x faster here; same optimum to f32 rounding).
let fitOptions = {};
if (process.env.ENGINE === 'wasm') {
  const w = await import('@llm-nrm/engine-wasm');
  await w.loadWasmKernel();
  const we = w.wasmEngine({ threads: 1 });
  fitOptions = { engine: { name: 'wasm', objective: (b, fam, pr) => we.objective(b, fam.layout(b), pr) } };
}
const label = what === 'naep' ? 'NAEP fixture' : what === 'soft' || what === 'hard' ? `${what} fleet` : `simulated ${m} x ${n}`;
const t0 = performance.now();
const secs = () => ((performance.now() - t0) / 1000).toFixed(1);

if (process.env.IN_MEMORY) {
  const methods = process.env.METHODS ? process.env.METHODS.split(',') : STUDY_METHODS;
  const res = selectionStudy(bank, { budgets, folds: 5, seed: 1, methods, fitOptions, onProgress: say });
  console.log(`${label} (in memory): ${bank.models.length} LLMs, ${bank.items.length} items, 5 LLM folds (${secs()} s)`);
  console.log(
    `| method | ${budgets.map((b) => `Kendall @${b}`).join(' | ')} | ${budgets.map((b) => `acc MAE @${b}`).join(' | ')} | 90% coverage @${budgets.join('/')} |`,
  );
  console.log(`|---|${budgets.map(() => '---').join('|')}|${budgets.map(() => '---').join('|')}|---|`);
  for (const method of methods) {
    const rows = res.rows.filter((r) => r.method === method);
    const cov = rows.map((r) => (Number.isFinite(r.coverage) ? `${(100 * r.coverage).toFixed(0)}%` : '-')).join('/');
    console.log(
      `| ${method} | ${rows.map((r) => r.kendall.toFixed(3)).join(' | ')} | ${rows.map((r) => (100 * r.accuracyMae).toFixed(2)).join(' | ')} | ${cov} |`,
    );
  }
  process.exit(0);
}

const bin = new URL('../packages/cli/dist/bin.js', import.meta.url).pathname;
// One presentation per (model, item), the content-order one: what `publish` scores the calibrated LLMs on.
const cli = async (...args) => {
  const c0 = performance.now();
  try {
    const prof = process.env.CLI_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.CLI_PROF] : [];
    const out = (await run(process.execPath, [...prof, bin, ...args], { maxBuffer: 1 << 28 })).stdout;
    if (process.env.TIMING) say(`  llm-nrm ${args[0]}: ${((performance.now() - c0) / 1000).toFixed(1)} s wall`);
    return out;
  } catch (e) {
    throw new Error(`llm-nrm ${args.join(' ')} failed: ${e.stderr ?? e.message}`, { cause: e });
  }
};
// Lines joined into 8,192-record chunks: one write (and one Buffer) per chunk, not per record (a
// write per record cost 20 CPU-s of the 85 the study's own process spent on a 302,000-record fold).
const writeJsonl = async (file, rows) => {
  const s = createWriteStream(file);
  const done = new Promise((resolve, reject) => {
    s.on('error', reject);
    s.on('finish', resolve);
  });
  for (let i = 0; i < rows.length; i += 8192) {
    const chunk = rows
      .slice(i, i + 8192)
      .map((r) => `${JSON.stringify(r)}\n`)
      .join('');
    if (!s.write(chunk)) await new Promise((r) => s.once('drain', r));
  }
  s.end();
  await done;
};
const hasPrompts = records.some((r) => typeof r.prompt === 'string' && Array.isArray(r.continuations));
const hasQuestions = records.some((r) => (typeof r.prompt === 'string' && r.prompt !== '') || Array.isArray(r.contexts));
const J = bank.models.length;
const I = bank.items.length;
const nC = bank.colItem.length;
const width = bank.colOffsets[nC];
const fullAcc = Float64Array.from({ length: J }, (_, j) => {
  let right = 0;
  let cnt = 0;
  for (let c = 0; c < nC; c++) {
    if (!bank.observed[j * nC + c]) continue;
    const o = j * width + bank.colOffsets[c];
    const K = bank.colOffsets[c + 1] - bank.colOffsets[c];
    let best = 0;
    for (let k = 1; k < K; k++) if (bank.q[o + k] > bank.q[o + best]) best = k;
    cnt++;
    if (best === bank.key[bank.colItem[c]]) right++;
  }
  return right / cnt;
});
const RANDOMS = Array.from({ length: DRAWS }, (_, d) => `random#${d}`);
const METHODS = ['shipping', ...RANDOMS, '2pl', 'accuracy'];
const est = new Map(
  METHODS.flatMap((me) =>
    budgets.map((b) => [
      `${me}@${b}`,
      { t: new Float64Array(J).fill(NaN), a: new Float64Array(J).fill(NaN), low: new Float64Array(J).fill(NaN), high: new Float64Array(J).fill(NaN) },
    ]),
  ),
);
const full = new Float64Array(J).fill(NaN);
const work = mkdtempSync(join(tmpdir(), 'llm-nrm-tiny-study-'));
const llm = { name: 'llm-nrm', model: 'llm-nrm' };
const bundleOf = (fit, trainIds) => {
  const b = toBundle(fit, { version: 'bench' });
  return { ...b, llms: b.llms.filter((l) => trainIds.has(l.id)) };
};
try {
  const only = process.env.FOLDS ? new Set(process.env.FOLDS.split(',').map(Number)) : undefined;
  for (const fold of calibratedLlmFolds(bank, llm, {
    folds: 5,
    seed: 1,
    fitOptions,
    onProgress: say,
    label: 'study fold',
    randomDraws: DRAWS,
    ...(only ? { only } : {}),
  })) {
    const f = fold.index;
    const dir = join(work, `fold${f}`);
    const trainIds = new Set(fold.trainList.map((j) => bank.models[j]));
    const heldIds = new Set(fold.heldList.map((j) => bank.models[j]));
    const ref = heldOutThetas(bank, fold, llm, undefined, fitOptions);
    for (const j of fold.heldList) full[j] = ref[j];
    mkdirSync(dir, { recursive: true });
    const bundleFile = join(dir, 'bundle.json');
    writeFileSync(bundleFile, JSON.stringify(bundleOf(fold.calib, trainIds)));
    const calibFile = join(dir, 'calibration.jsonl');
    await writeJsonl(
      calibFile,
      records.filter((r) => trainIds.has(r.model)),
    );
    const held = records.filter((r) => heldIds.has(r.model));
    say(`study fold ${f + 1}/5: calibrating 2PL`);
    const c2 = fit(withObserved(bank, maskRows(fold.trainRows)), { model: '2pl', standardErrors: false, ...fitOptions });
    const bundle2 = join(dir, 'bundle-2pl.json');
    writeFileSync(bundle2, JSON.stringify(bundleOf(c2, trainIds)));
    const curve2 = accuracyCurve(
      fold.trainList.map((j) => c2.x[c2.layout.theta + j]),
      fold.trainList.map((j) => fullAcc[j]),
    );
    for (const b of budgets) {
      const size = Math.min(b, I);
      // Score the held-out LLMs' lm-eval samples of a package (or plain bundle) back through the CLI.
      const scoreBack = (target, ids, task, items) => scoreThroughLmEval(cli, target, held, ids, task, items, join(dir, `run-${task}-${size}`));
      const viaPackage = async (method, extra) => {
        const pkg = join(dir, `pkg-${method}-${size}`);
        say(`study fold ${f + 1}/5: ${size} items, ${method}: publish, lm-eval samples, score back`);
        await cli(
          'publish',
          bundleFile,
          '--responses',
          calibFile,
          '--items',
          String(size),
          '--harness',
          'lm-eval',
          '--name',
          `${method}${size}`,
          ...(hasPrompts ? [] : ['--render-prompt']),
          // Simulated fleets have no question text: placeholder prompts, which the simulated answers ignore.
          ...(hasQuestions ? [] : ['--allow-placeholder-prompts']),
          ...extra,
          '-o',
          pkg,
          '-q',
          '--force',
        );
        const { items, task } = packageItems(pkg);
        return scoreBack(pkg, new Set(items.keys()), task, items);
      };
      const put = (method, llms, acc) => {
        const slot = est.get(`${method}@${b}`);
        for (const l of llms) {
          const j = bank.models.indexOf(l.id);
          slot.t[j] = method === 'accuracy' ? l.accuracy : l.theta;
          const p = acc(l);
          slot.a[j] = p.accuracy;
          slot.low[j] = p.low ?? NaN;
          slot.high[j] = p.high ?? NaN;
        }
      };
      const shipped = await viaPackage('shipping', []);
      put('shipping', shipped, (l) => l.predictedAccuracy.overall);
      put('accuracy', shipped, (l) => ({ accuracy: l.accuracy }));
      for (let d = 0; d < DRAWS; d++) {
        const listFile = join(dir, `random-${size}-${d}.txt`);
        writeFileSync(listFile, Array.from(fold.perms[d].subarray(0, size), (i) => bank.items[i].id).join('\n'));
        put(`random#${d}`, await viaPackage(`random${d}_`, ['--item-list', listFile]), (l) => l.predictedAccuracy.overall);
      }
      say(`study fold ${f + 1}/5: ${size} items, 2pl: own selection, lm-eval samples, score back`);
      const sel2 = selectForRange(bank, c2.layout, c2.x, size, { rows: fold.trainList }).ids[0];
      put('2pl', await scoreBack(bundle2, new Set(sel2), `tiny_2pl${size}`, null), (l) => ({ accuracy: accuracyAt(curve2, l.theta) }));
    }
    rmSync(dir, { recursive: true, force: true });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

function maskRows(rows) {
  const mk = new Uint8Array(bank.observed.length);
  for (let j = 0; j < J; j++) if (rows[j]) for (let c = 0; c < nC; c++) mk[j * nC + c] = bank.observed[j * nC + c];
  return mk;
}

if (process.env.DUMP) {
  const arr = (v) => Array.from(v, (x) => (Number.isFinite(x) ? x : null));
  writeFileSync(
    process.env.DUMP,
    JSON.stringify({
      label,
      J,
      I,
      budgets,
      seconds: secs(),
      full: arr(full),
      fullAcc: arr(fullAcc),
      est: Object.fromEntries([...est].map(([k, v]) => [k, Object.fromEntries(Object.entries(v).map(([f, a]) => [f, arr(a)]))])),
    }),
  );
}
printTable(`${label}, scored from exported-then-read-back files: ${J} LLMs, ${I} items, 5 LLM folds (${secs()} s)`, budgets, est, full, fullAcc);

function printTable(title, budgets, est, full, fullAcc) {
  console.log(title);
  console.log(
    `| method | ${budgets.map((b) => `Kendall @${b}`).join(' | ')} | ${budgets.map((b) => `acc MAE @${b}`).join(' | ')} | 90% coverage @${budgets.join('/')} |`,
  );
  console.log(`|---|${budgets.map(() => '---').join('|')}|${budgets.map(() => '---').join('|')}|---|`);
  const draws = [...est.keys()].filter((k) => k.startsWith('random#') && k.endsWith(`@${budgets[0]}`)).length;
  const rows = [
    ['shipping', ['shipping']],
    [`random (mean of ${draws})`, Array.from({ length: draws }, (_, d) => `random#${d}`)],
    ['2pl', ['2pl']],
    ['accuracy', ['accuracy']],
  ];
  for (const [name, members] of rows) {
    const cells = budgets.map((b) => {
      const parts = members.map((method) => cell(est.get(`${method}@${b}`)));
      const mean = (f) => parts.reduce((s, p) => s + p[f], 0) / parts.length;
      const cov = parts.every((p) => Number.isFinite(p.cov)) ? `${mean('cov').toFixed(0)}%` : '-';
      return { k: mean('k'), mae: mean('mae'), cov };
    });
    console.log(
      `| ${name} | ${cells.map((c) => c.k.toFixed(3)).join(' | ')} | ${cells.map((c) => c.mae.toFixed(2)).join(' | ')} | ${cells.map((c) => c.cov).join('/')} |`,
    );
  }

  function cell(s) {
    let err = 0;
    let cnt = 0;
    let cov = 0;
    let ncov = 0;
    for (let j = 0; j < full.length; j++) {
      if (!Number.isFinite(s.a[j]) || !Number.isFinite(fullAcc[j])) continue;
      err += Math.abs(s.a[j] - fullAcc[j]);
      cnt++;
      if (Number.isFinite(s.low[j])) {
        ncov++;
        if (fullAcc[j] >= s.low[j] && fullAcc[j] <= s.high[j]) cov++;
      }
    }
    return { k: kendallTau(s.t, full), mae: (100 * err) / cnt, cov: ncov ? (100 * cov) / ncov : NaN };
  }
}
