// `llm-nrm publish` run for real: the packages publish.test.ts builds (a simulated calibration, the
// winogrande fixture as a multiple-input task) run through lm_eval 0.4.13 (`--model dummy`, about
// 100 s on the 2-core machine), whose nrm_theta must equal `llm-nrm score` of the same samples.
// Two packages' lm-eval/ folders, copied alone into one tasks folder, run in ONE lm_eval call, and
// each package is scored from that one output folder.
// Needs the venv `.ci/run` builds (.venv-lmeval); `npm run test:e2e`.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankRecords, simulateFleet, type ResponseRecord } from '@llm-nrm/core';
import { repoRoot, tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../../test/runCli.js';

const tmp = tempDir('llm-nrm-cli-publish-');
afterAll(() => tmp.cleanup());

const fleet = simulateFleet({ models: 30, items: 120, seed: 4 });
const heldOut = fleet.bank.models[29]!;
const labels = (k: number) => Array.from({ length: k }, (_, i) => ` ${String.fromCharCode(65 + i)}`);
const records: ResponseRecord[] = [...bankRecords(fleet.bank)].map((r) => ({
  ...r,
  benchmark: Number(r.item.replace(/\D/g, '')) % 2 ? 'odd' : 'even',
  prompt: `Question about ${r.item}?\nAnswer:`,
  continuations: labels(r.probs!.length),
}));
const write = (name: string, rs: object[]) => {
  const p = join(tmp.dir, name);
  writeFileSync(p, rs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return p;
};
const calibration = write(
  'calibration.jsonl',
  records.filter((r) => r.model !== heldOut),
);
const bundlePath = join(tmp.dir, 'bundle.json');
const pkg = join(tmp.dir, 'tiny-toy');
const N = 20;

beforeAll(async () => {
  expect((await runCli(['fit', calibration, '-o', bundlePath, '-q'])).code).toBe(0);
  const res = await runCli(['publish', bundlePath, '--responses', calibration, '--items', String(N), '--per-benchmark', '--name', 'toy', '-o', pkg, '-q']);
  expect(res.err).toBe('');
  expect(res.code).toBe(0);
}, 60_000);

const readJson = (p: string) => JSON.parse(readFileSync(p, 'utf8'));
const scoreJson = async (...args: string[]) => {
  const r = await runCli(['score', ...args, '--json', '-q']);
  return { ...r, json: r.code === 0 ? JSON.parse(r.out) : null };
};

// The real harness: lm_eval 0.4.13 in the venv `.ci/run` builds (.venv-lmeval); without it these tests fail, naming it.
const lmEval = join(repoRoot, '.venv-lmeval/bin/lm_eval');
const findFiles = (dir: string, re: RegExp): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? findFiles(join(dir, e.name), re) : re.test(e.name) ? [join(dir, e.name)] : []));

/** `lm_eval --model dummy` on a package's task: its output folder and its results entry for the task. */
function runLmEval(pkgDir: string, task: string, out: string): { results: Record<string, number>; config: Record<string, unknown> } {
  const doc = runLmEvalTasks(join(pkgDir, 'lm-eval'), [task], out);
  expect(doc.configs[task].metadata.bank_sha256).toBe(sha256(join(pkgDir, 'bank.json')));
  return { results: doc.results[task], config: doc.configs[task] };
}

const sha256 = (p: string) => spawnSync('sha256sum', [p], { encoding: 'utf8' }).stdout.split(' ')[0];

/** One `lm_eval --model dummy` call on several tasks found under `includePath`: its results file. */
function runLmEvalTasks(includePath: string, tasks: string[], out: string) {
  expect(existsSync(lmEval), `${lmEval} is missing: .ci/run installs lm_eval 0.4.13 into .venv-lmeval before the tests`).toBe(true);
  const shim = join(tmp.dir, 'shim');
  spawnSync('mkdir', ['-p', shim]);
  // lm-eval's table printer imports pytablewriter, which the local package index lacks: a minimal stand-in.
  writeFileSync(
    join(shim, 'pytablewriter.py'),
    [
      'class _Writer:',
      '    def __init__(self, *a, **k):',
      '        self.headers, self.value_matrix = [], []',
      '    def dumps(self):',
      '        rows = [self.headers] + [[str(v) for v in r] for r in self.value_matrix]',
      '        return "\\n".join("|" + "|".join(str(c) for c in r) + "|" for r in rows)',
      'MarkdownTableWriter = LatexTableWriter = _Writer',
      '',
    ].join('\n'),
  );
  const r = spawnSync(lmEval, ['--model', 'dummy', '--tasks', tasks.join(','), '--include_path', includePath, '--log_samples', '--output_path', out], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: shim, HF_DATASETS_OFFLINE: '1', HF_HUB_OFFLINE: '1', TOKENIZERS_PARALLELISM: 'false' },
    timeout: 540_000,
  });
  expect(r.status, r.stderr.slice(-3000)).toBe(0);
  expect(r.stdout).toMatch(/nrm_theta/);
  const results = findFiles(out, /^results_.*\.json$/);
  expect(results).toHaveLength(1);
  return readJson(results[0]!) as {
    results: Record<string, Record<string, number>>;
    configs: Record<string, Record<string, unknown> & { metadata: { bank_sha256: string } }>;
  };
}

describe('llm-nrm publish through the real lm_eval', () => {
  it('lm_eval --model dummy runs the task; its nrm_theta equals llm-nrm score of the same samples (1e-4)', async () => {
    const out = join(tmp.dir, 'lm-eval-out');
    const { results: res } = runLmEval(pkg, 'tiny_toy', out);
    const scored = await scoreJson(pkg, out);
    expect(scored.code).toBe(0);
    const l = scored.json.llms[0];
    expect(l.items).toBe(N);
    expect(Math.abs(res['nrm_theta,none']! - l.theta)).toBeLessThan(1e-4);
    expect(Math.abs(res['nrm_theta_se,none']! - l.se)).toBeLessThan(1e-4);
    expect(Math.abs(res['nrm_pred_acc,none']! - l.predictedAccuracy.overall.accuracy)).toBeLessThan(1e-4);
    expect(Math.abs(res['nrm_pred_acc_low,none']! - l.predictedAccuracy.overall.low)).toBeLessThan(1e-4);
    expect(Math.abs(res['nrm_pred_acc_high,none']! - l.predictedAccuracy.overall.high)).toBeLessThan(1e-4);
    expect(Math.abs(res['acc,none']! - l.accuracy)).toBeLessThan(1e-9);
  }, 600_000);
});

describe('the winogrande package (multiple-input) through the real lm_eval', () => {
  // The fixture's three write_out logs; the reader keeps each option's context (sentence up to the filled blank) and the shared continuation.
  const wino: { all: ResponseRecord[]; calib: string; bundle: string; pkg: string; rows: TinyRow[] } = { all: [], calib: '', bundle: '', pkg: '', rows: [] };
  interface TinyRow {
    item_id: string;
    prompt: string;
    contexts?: string[];
    continuations: string[];
    gold: number;
    content_sha256: string;
  }
  beforeAll(async () => {
    const { fixture } = await import('@llm-nrm/tooling/test');
    const { readLmEvalHarness } = await import('@llm-nrm/adapters');
    for await (const r of readLmEvalHarness(fixture('lm-eval-harness/lm-eval-pr1567-slurmevals'))) wino.all.push(r);
    wino.calib = write(
      'wino-calib.jsonl',
      wino.all.filter((r) => r.model !== 'mistral'),
    );
    wino.bundle = join(tmp.dir, 'wino-bundle.json');
    expect((await runCli(['fit', wino.calib, '-o', wino.bundle, '-q'])).code).toBe(0);
    wino.pkg = join(tmp.dir, 'tiny-wino');
    const pub = await runCli([
      'publish',
      wino.bundle,
      '--responses',
      wino.calib,
      '--items',
      '41',
      '--name',
      'wino',
      '--harness',
      'lm-eval',
      '-o',
      wino.pkg,
      '-q',
    ]);
    expect(pub.err).toBe('');
    expect(pub.code).toBe(0);
    wino.rows = readFileSync(join(wino.pkg, 'items.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  }, 120_000);

  it('lm_eval --model dummy runs it as a multiple-input task: the requests are the contexts, nrm_theta equals llm-nrm score (1e-4)', async () => {
    const out = join(tmp.dir, 'wino-lm-eval-out');
    const { results: res, config } = runLmEval(wino.pkg, 'tiny_wino', out);
    expect(config.doc_to_text).toBe('gold');
    const [samples] = findFiles(out, /^samples_tiny_wino_.*\.jsonl$/);
    const byId = new Map(wino.rows.map((it) => [it.item_id, it]));
    const lines = readFileSync(samples!, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(41);
    for (const smp of lines) {
      const row = byId.get(smp.doc.item_id)!;
      const args = Object.values(smp.arguments as Record<string, { arg_0: string; arg_1: string }>);
      // Exactly the calibration's requests: (context_k, shared continuation) per option.
      expect(args.map((a) => a.arg_0)).toEqual(row.contexts);
      expect(args.map((a) => a.arg_1)).toEqual(row.continuations);
    }
    const scored = await scoreJson(wino.pkg, out);
    expect(scored.code, scored.err).toBe(0);
    const l = scored.json.llms[0];
    expect(l.items).toBe(41);
    expect(Math.abs(res['nrm_theta,none']! - l.theta)).toBeLessThan(1e-4);
    expect(Math.abs(res['nrm_theta_se,none']! - l.se)).toBeLessThan(1e-4);
    expect(Math.abs(res['nrm_pred_acc,none']! - l.predictedAccuracy.overall.accuracy)).toBeLessThan(1e-4);
    expect(Math.abs(res['nrm_pred_acc_low,none']! - l.predictedAccuracy.overall.low)).toBeLessThan(1e-4);
    expect(Math.abs(res['nrm_pred_acc_high,none']! - l.predictedAccuracy.overall.high)).toBeLessThan(1e-4);
    expect(Math.abs(res['acc,none']! - l.accuracy)).toBeLessThan(1e-9);
  }, 600_000);
});

describe('two packages in ONE lm_eval call, each scored from the one output folder', () => {
  it('lm-eval/ copied alone into a tasks folder runs; llm-nrm score <package> out/ reads only its own task (nrm_theta equal, 1e-4)', async () => {
    // The winogrande package is published by the describe above (its beforeAll has run: vitest runs files' describes in order).
    const wino = join(tmp.dir, 'tiny-wino');
    expect(existsSync(join(wino, 'lm-eval')), 'the winogrande package').toBe(true);
    const tasks = join(tmp.dir, 'tasks');
    // Only lm-eval/ of each package, nothing beside it: the task folders must be self-contained.
    spawnSync('mkdir', ['-p', tasks]);
    expect(spawnSync('cp', ['-r', join(pkg, 'lm-eval'), join(tasks, 'tiny_toy')]).status).toBe(0);
    expect(spawnSync('cp', ['-r', join(wino, 'lm-eval'), join(tasks, 'tiny_wino')]).status).toBe(0);
    const out = join(tmp.dir, 'two-tasks-out');
    const doc = runLmEvalTasks(tasks, ['tiny_toy', 'tiny_wino'], out);
    expect(findFiles(out, /^samples_tiny_(toy|wino)_.*\.jsonl$/)).toHaveLength(2);
    for (const [dir, task, n] of [
      [pkg, 'tiny_toy', N],
      [wino, 'tiny_wino', 41],
    ] as const) {
      expect(doc.configs[task]!.metadata.bank_sha256).toBe(sha256(join(dir, 'bank.json')));
      const r = await runCli(['score', dir, out, '--json']);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toContain(`left out the responses of other tasks in ${out}: ${task === 'tiny_toy' ? 'tiny_wino (41)' : `tiny_toy (${N})`}`);
      const l = JSON.parse(r.out).llms[0];
      expect(l.items).toBe(n);
      const res = doc.results[task]!;
      expect(Math.abs(res['nrm_theta,none']! - l.theta)).toBeLessThan(1e-4);
      expect(Math.abs(res['nrm_theta_se,none']! - l.se)).toBeLessThan(1e-4);
      expect(Math.abs(res['nrm_pred_acc,none']! - l.predictedAccuracy.overall.accuracy)).toBeLessThan(1e-4);
    }
  }, 600_000);
});
