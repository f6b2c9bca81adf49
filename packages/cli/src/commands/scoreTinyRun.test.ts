// `llm-nrm score <package> <run>` on run folders as users get them: two tiny tasks run in one
// lm_eval call (one folder), a run logged twice, log-likelihoods that are NaN, and the Python
// scorer of the lm-eval export refusing an all-NaN run. Packages from a simulated calibration;
// runs written by the lm-eval writer into a temp folder, then damaged there.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankRecords, simulateFleet, type ResponseRecord } from '@llm-nrm/core';
import { writeLmEvalHarness } from '@llm-nrm/adapters';
import { predictPackageCurve } from '@llm-nrm/analysis';
import { repoRoot, tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../../test/runCli.js';

const tmp = tempDir('llm-nrm-cli-score-tiny-');
afterAll(() => tmp.cleanup());

const fleet = simulateFleet({ models: 24, items: 80, seed: 11 });
const heldOut = fleet.bank.models[23]!;
const labels = (k: number) => Array.from({ length: k }, (_, i) => ` ${String.fromCharCode(65 + i)}`);
const records: ResponseRecord[] = [...bankRecords(fleet.bank)].map((r) => ({
  ...r,
  prompt: `Question about ${r.item}?\nAnswer:`,
  continuations: labels(r.probs!.length),
}));
const calibration = join(tmp.dir, 'calibration.jsonl');
writeFileSync(
  calibration,
  records
    .filter((r) => r.model !== heldOut)
    .map((r) => JSON.stringify(r))
    .join('\n') + '\n',
);
const bundlePath = join(tmp.dir, 'bundle.json');
const pkgA = join(tmp.dir, 'tiny-a');
const pkgB = join(tmp.dir, 'tiny-b');
const DATE = '2026-01-01T00-00-00.000001';

const sha256 = (p: string) => spawnSync('sha256sum', [p], { encoding: 'utf8' }).stdout.split(' ')[0]!;
const itemIds = (pkg: string) =>
  readFileSync(join(pkg, 'items.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { item_id: string }).item_id);
const held = (pkg: string) => {
  const ids = new Set(itemIds(pkg));
  return records.filter((r) => r.model === heldOut && ids.has(r.item)).map((r) => ({ ...r, model: 'new-model' }));
};
/** The held-out LLM's run of a package as lm-eval writes it, bank sha256 in the results as the exported task records it. */
async function run(pkg: string, task: string, out: string): Promise<{ samples: string; results: string }> {
  const w = await writeLmEvalHarness(held(pkg), out, { tinyTask: task, date: DATE });
  const samples = w.files.find((f) => /samples_/.test(f))!;
  const results = w.files.find((f) => /results_/.test(f))!;
  const doc = JSON.parse(readFileSync(results, 'utf8'));
  doc.configs[task].metadata = { version: 1, bank_sha256: sha256(join(pkg, 'bank.json')) };
  writeFileSync(results, JSON.stringify(doc, null, 2));
  return { samples, results };
}
/** Runs Python lines after importing a package's exported scorer as `m` (json and sys imported). */
function runPython(pkg: string, lines: string[]) {
  const python = existsSync(join(repoRoot, '.venv-lmeval/bin/python')) ? join(repoRoot, '.venv-lmeval/bin/python') : 'python3';
  const head = ['import json, sys', `sys.path.insert(0, ${JSON.stringify(join(pkg, 'lm-eval'))})`, 'import nrm_lmeval as m'];
  return spawnSync(python, ['-c', [...head, ...lines].join('\n')], { encoding: 'utf8' });
}
/** The exported Python scorer of a package on (item, probabilities) pairs: theta, SE and log sharpness u. */
function pythonScore(pkg: string, pairs: unknown[]): { theta: number; se: number; u: number } {
  const r = runPython(pkg, [
    `pairs = ${JSON.stringify(pairs)}`,
    'print(json.dumps({"theta": m.agg_theta(pairs), "se": m.agg_theta_se(pairs), "u": m._score(pairs)[2]}))',
  ]);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim());
}
const scoreJson = async (...args: string[]) => {
  const r = await runCli(['score', ...args, '--json']);
  return { ...r, json: r.code === 0 ? JSON.parse(r.out) : null };
};

beforeAll(async () => {
  expect((await runCli(['fit', calibration, '-o', bundlePath, '-q'])).code).toBe(0);
  for (const [name, dir, items] of [
    ['a', pkgA, '12'],
    ['b', pkgB, '16'],
  ] as const) {
    const res = await runCli(['publish', bundlePath, '--responses', calibration, '--items', items, '--name', name, '--harness', 'lm-eval', '-o', dir, '-q']);
    expect(res.code, res.err).toBe(0);
  }
}, 120_000);

describe('llm-nrm score: a tiny run from a folder of several tasks', () => {
  it('scores each package from one output folder holding both tasks (one results file, two samples files)', async () => {
    const alone = join(tmp.dir, 'run-a');
    await run(pkgA, 'tiny_a', alone);
    const both = join(tmp.dir, 'run-ab');
    const a = await run(pkgA, 'tiny_a', both);
    const b = await run(pkgB, 'tiny_b', join(tmp.dir, 'run-b-part'));
    // One lm_eval call: one results file with both tasks' configs, both samples files beside it.
    copyFileSync(b.samples, join(both, 'new-model', b.samples.split('/').pop()!));
    const docA = JSON.parse(readFileSync(a.results, 'utf8'));
    const docB = JSON.parse(readFileSync(b.results, 'utf8'));
    for (const k of ['results', 'configs', 'versions', 'n-samples']) docA[k] = { ...docA[k], ...docB[k] };
    writeFileSync(a.results, JSON.stringify(docA, null, 2));

    const ref = await scoreJson(pkgA, alone, '-q');
    expect(ref.code, ref.err).toBe(0);
    const sa = await scoreJson(pkgA, both);
    expect(sa.code, sa.err).toBe(0);
    expect(sa.err).toContain(`left out the responses of other tasks in ${both}: tiny_b (16); scored tiny_a's`);
    expect(sa.err).toContain('bank sha256 recorded in 1 lm-eval results file(s) matches');
    expect(sa.err).not.toContain('samples_tiny_b');
    expect(sa.json.llms[0].items).toBe(12);
    expect(sa.json.llms[0].theta).toBeCloseTo(ref.json.llms[0].theta, 9);
    const sb = await scoreJson(pkgB, both, '-q');
    expect(sb.code, sb.err).toBe(0);
    expect(sb.json.llms[0].items).toBe(16);
    // The package's own task run with another bank is still refused.
    docA.configs.tiny_a.metadata.bank_sha256 = '0'.repeat(64);
    writeFileSync(a.results, JSON.stringify(docA, null, 2));
    const wrong = await runCli(['score', pkgA, both, '-q']);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('task tiny_a ran with bank sha256 000000000000..., not');
  });

  it('a run logged twice is scored with a warning naming the repeat (file and line), as convert and fit warn', async () => {
    const out = join(tmp.dir, 'run-twice');
    const { samples } = await run(pkgA, 'tiny_a', out);
    const text = readFileSync(samples, 'utf8');
    writeFileSync(samples, text + text);
    const r = await scoreJson(pkgA, out);
    expect(r.code, r.err).toBe(0);
    const line = `12 repeated (model, item, presentation) rows, kept as replicates (e.g. new-model on ${held(pkgA)[0]!.item}: 2 rows; repeated at ${samples}:13)`;
    expect(r.err).toContain(`warning: ${line}`);
    expect(r.json.warnings).toContain(line);
    const conv = await runCli(['convert', out, '-o', join(tmp.dir, 'twice.jsonl')]);
    expect(conv.err).toContain('warning: 12 repeated (model, item, presentation) rows, kept as replicates (e.g. new-model on');
  });

  it('NaN log-likelihoods: counted with the first line; a run with no finite one is refused naming the file and the cause', async () => {
    const out = join(tmp.dir, 'run-nan');
    const { samples } = await run(pkgA, 'tiny_a', out);
    const lines = readFileSync(samples, 'utf8').trim().split('\n');
    const nan = (l: string) => l.replace(/"-?\d+(\.\d+)?(e-?\d+)?","(True|False)"/g, '"nan","$3"');
    // Two samples without scores: scored, and said (with the line of the first).
    writeFileSync(samples, lines.map((l, i) => (i === 2 || i === 5 ? nan(l) : l)).join('\n') + '\n');
    const some = await scoreJson(pkgA, out);
    expect(some.code, some.err).toBe(0);
    expect(some.err).toMatch(/NaN option scores read as -Infinity \(first on line 3\); 2 samples with no finite option score emitted as missing/);
    writeFileSync(samples, lines.map(nan).join('\n') + '\n');
    const all = await runCli(['score', pkgA, out, '-q']);
    expect(all.code).toBe(1);
    expect(all.err).toContain(`${samples}: none of the 12 responses has an answer to score: its log-likelihoods are NaN (`);
    expect(all.err).toContain(`NaN option scores in ${samples}`);
    expect(all.err).not.toContain('nothing to fit');
  });

  it('the exported Python scorer refuses an all-NaN run instead of returning the prior', () => {
    const ids = itemIds(pkgA);
    const r = runPython(pkgA, [
      `ids = ${JSON.stringify(ids)}`,
      'nan = float("nan")',
      'rs = [m.process_results({"item_id": i, "gold": 0}, [[nan, False], [nan, False]]) for i in ids]',
      'try:',
      '    print(json.dumps({"theta": m.agg_theta([r["nrm_theta"] for r in rs])}))',
      'except ValueError as e:',
      '    print(json.dumps({"error": str(e)}))',
      'ok = [m.process_results({"item_id": i, "gold": 0}, [[-1.0, False], [nan, False]]) for i in ids]',
      'print(json.dumps({"theta": m.agg_theta([r["nrm_theta"] for r in ok])}))',
    ]);
    expect(r.status, r.stderr).toBe(0);
    const [refused, scored] = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(refused.error).toContain(`nothing to score in this run of ${join(pkgA, 'lm-eval', 'bank.json')}: of 12 answers, 12 have no finite log-likelihood`);
    expect(Number.isFinite(scored.theta)).toBe(true);
    expect(scored.theta).not.toBe(0);
    expect(readdirSync(join(pkgA, 'lm-eval')).sort()).toContain('nrm_lmeval.py');
  });

  it("the exported Python scorer gives llm-nrm score's theta and SE for the same run (bias and fallback under the fleet's spread)", async () => {
    const out = join(tmp.dir, 'run-parity');
    await run(pkgB, 'tiny_b', out);
    const ts = await scoreJson(pkgB, out, '-q');
    expect(ts.code, ts.err).toBe(0);
    const bank = JSON.parse(readFileSync(join(pkgB, 'lm-eval', 'bank.json'), 'utf8'));
    // The package carries the fleet's spread the scorers' priors use.
    expect(bank.scoring.fleet.rhoVar.length).toBe(bank.bundle.kMax);
    const py = pythonScore(
      pkgB,
      held(pkgB).map((r) => [r.item, r.probs]),
    );
    expect(Math.abs(py.theta - ts.json.llms[0].theta)).toBeLessThan(1e-4);
    expect(Math.abs(py.se - ts.json.llms[0].se)).toBeLessThan(1e-4);
    // The accuracy prediction too, through the run-accuracy model's local correction (a soft fleet's
    // package carries one, and this run's prediction moves by it).
    const model = bank.accuracy.overall.run;
    expect(model.local.bias).toHaveLength(bank.accuracy.grid.length);
    const l = ts.json.llms[0];
    const { local: _local, ...bare } = model;
    const without = predictPackageCurve(
      bank.accuracy.grid,
      { ...bank.accuracy.overall, run: bare },
      {
        theta: l.theta,
        se: l.se,
        logSharpness: Math.log(l.sharpness),
        tinyAccuracy: l.accuracy,
      },
    );
    expect(Math.abs(without.accuracy - l.predictedAccuracy.overall.accuracy)).toBeGreaterThan(1e-4);
    const r = runPython(pkgB, [`pairs = ${JSON.stringify(held(pkgB).map((x) => [x.item, x.probs]))}`, 'print(json.dumps(m._pred_acc(pairs)))']);
    expect(r.status, r.stderr).toBe(0);
    const [acc, low, high] = JSON.parse(r.stdout.trim()) as [number, number, number];
    expect(Math.abs(acc - l.predictedAccuracy.overall.accuracy)).toBeLessThan(1e-4);
    expect(Math.abs(low - l.predictedAccuracy.overall.low)).toBeLessThan(1e-4);
    expect(Math.abs(high - l.predictedAccuracy.overall.high)).toBeLessThan(1e-4);
  });

  it('a run of only hard answers: score and the exported Python scorer agree, both holding sharpness at 1', async () => {
    // One-hot answers (a generative task's parsed choices), as tidy records with `choice`.
    const hard = held(pkgB).map(({ probs, ...r }) => ({ ...r, choice: probs!.indexOf(Math.max(...probs!)) }));
    const file = join(tmp.dir, 'hard-run.jsonl');
    writeFileSync(file, hard.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const ts = await scoreJson(pkgB, file, '-q');
    expect(ts.code, ts.err).toBe(0);
    expect(ts.json.llms[0].sharpness).toBe(1);
    expect(ts.json.llms[0].hardAnswers).toBe(true);
    const text = await runCli(['score', pkgB, file]);
    expect(text.out).toContain('every model: only hard answers (choices or one-hot), so sharpness is held at 1');
    const py = pythonScore(
      pkgB,
      held(pkgB).map((r) => [r.item, r.probs!.map((p) => (p === Math.max(...r.probs!) ? 1 : 0))]),
    );
    expect(py.u).toBe(0);
    expect(Math.abs(py.theta - ts.json.llms[0].theta)).toBeLessThan(1e-4);
    expect(Math.abs(py.se - ts.json.llms[0].se)).toBeLessThan(1e-4);
  });

  it('lm-eval/ copied alone into a tasks folder finds its bank (no bank.json one folder up)', () => {
    const python = existsSync(join(repoRoot, '.venv-lmeval/bin/python')) ? join(repoRoot, '.venv-lmeval/bin/python') : 'python3';
    const alone = join(tmp.dir, 'tasks', 'tiny_a');
    spawnSync('mkdir', ['-p', join(tmp.dir, 'tasks')]);
    expect(spawnSync('cp', ['-r', join(pkgA, 'lm-eval'), alone]).status).toBe(0);
    expect(existsSync(join(tmp.dir, 'tasks', 'bank.json'))).toBe(false);
    const script = ['import sys', `sys.path.insert(0, ${JSON.stringify(alone)})`, 'import nrm_lmeval as m', 'bank, _ = m._bank()', 'print(bank["_path"])'].join(
      '\n',
    );
    const r = spawnSync(python, ['-c', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(join(alone, 'bank.json'));
  });

  it('an edited copy of bank.json in lm-eval/ is refused by score', async () => {
    const edited = join(tmp.dir, 'tiny-a-edited');
    expect(spawnSync('cp', ['-r', pkgA, edited]).status).toBe(0);
    const copy = join(edited, 'lm-eval', 'bank.json');
    writeFileSync(copy, readFileSync(copy, 'utf8').replace('"llm-nrm-tiny"', '"llm-nrm-tiny" '));
    const out = join(tmp.dir, 'run-edited');
    await run(pkgA, 'tiny_a', out);
    const r = await runCli(['score', edited, out, '-q']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${copy} differs from ${join(edited, 'bank.json')}`);
  });
});
