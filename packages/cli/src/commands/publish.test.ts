// `llm-nrm publish` and scoring a tiny run back: a package exported from a simulated calibration,
// run for real through lm_eval 0.4.13 (`--model dummy`) when the venv `.ci/run` builds is there
// (skipped only outside CI when it is not), Inspect and OpenAI-evals files compiled and their
// readers fed logs shaped as those tasks write, and the bad inputs a user meets.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankRecords, itemContentSha256, parseBundle, simulateFleet, type ResponseRecord } from '@llm-nrm/core';
import { writeLmEvalHarness } from '@llm-nrm/adapters';
import { fitTinyAccuracyEstimator, predictTinyAccuracy } from '@llm-nrm/analysis';
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
const held = records.filter((r) => r.model === heldOut);
const bundlePath = join(tmp.dir, 'bundle.json');
const pkg = join(tmp.dir, 'tiny-toy');
const N = 20;

beforeAll(async () => {
  expect((await runCli(['fit', calibration, '-o', bundlePath, '-q'])).code).toBe(0);
  const res = await runCli(['publish', bundlePath, '--responses', calibration, '--items', String(N), '--per-benchmark', '--name', 'toy', '-o', pkg, '-q']);
  expect(res.err).toBe('');
  expect(res.code).toBe(0);
}, 60_000);

const writeList = (name: string, lines: string[]) => {
  const p = join(tmp.dir, name);
  writeFileSync(p, lines.join('\n'));
  return p;
};
const readJson = (p: string) => JSON.parse(readFileSync(p, 'utf8'));
const argmax = (p: number[]) => p.indexOf(Math.max(...p));
const items = () =>
  readFileSync(join(pkg, 'items.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const heldTiny = () => {
  const ids = new Set(items().map((it: { item_id: string }) => it.item_id));
  return held.filter((r) => ids.has(r.item));
};
const scoreJson = async (...args: string[]) => {
  const r = await runCli(['score', ...args, '--json', '-q']);
  return { ...r, json: r.code === 0 ? JSON.parse(r.out) : null };
};

describe('llm-nrm publish', () => {
  it('writes the package: bank.json (restricted, validated bundle; items sha256; curves), items.jsonl, each harness, README', () => {
    for (const f of [
      'README.md',
      'bank.json',
      'items.jsonl',
      'lm-eval/tiny_toy.yaml',
      'lm-eval/nrm_lmeval.py',
      'lm-eval/items.jsonl',
      'inspect/tiny_toy.py',
      'inspect/items.jsonl',
      'openai-evals/evals/tiny-toy.yaml',
      'openai-evals/data/tiny-toy/samples.jsonl',
      'openai-evals/data/tiny-toy/manifest.json',
    ]) {
      expect(existsSync(join(pkg, f)), f).toBe(true);
    }
    expect(readdirSync(tmp.dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    const bank = readJson(join(pkg, 'bank.json'));
    const b = parseBundle(JSON.stringify(bank.bundle));
    expect(b.items).toHaveLength(N);
    expect(b.llms).toHaveLength(29);
    const its = items();
    expect(its.map((it: { item_id: string }) => it.item_id).sort()).toEqual(b.items.map((it) => it.id).sort());
    // Benchmark shares kept: 60 odd and 60 even items in the bank.
    expect(its.filter((it: { benchmark: string }) => it.benchmark === 'odd')).toHaveLength(N / 2);
    for (const it of its) {
      expect(Object.keys(it)).toEqual(['item_id', 'benchmark', 'prompt', 'continuations', 'gold', 'options', 'source', 'content_sha256']);
      expect(it.content_sha256).toBe(itemContentSha256(it.prompt, it.continuations));
      expect(it.prompt).toBe(`Question about ${it.item_id}?\nAnswer:`);
    }
    const sha = (p: string) => spawnSync('sha256sum', [p], { encoding: 'utf8' }).stdout.split(' ')[0];
    expect(bank.itemsSha256).toBe(sha(join(pkg, 'items.jsonl')));
    expect(readFileSync(join(pkg, 'lm-eval/items.jsonl'), 'utf8')).toBe(readFileSync(join(pkg, 'items.jsonl'), 'utf8'));
    expect(bank.accuracy.grid.length).toBe(bank.accuracy.overall.accuracy.length);
    expect(Object.keys(bank.accuracy.benchmarks).sort()).toEqual(['even', 'odd']);
    const yaml = readFileSync(join(pkg, 'lm-eval/tiny_toy.yaml'), 'utf8');
    for (const line of [
      'custom_dataset: !function nrm_lmeval.load_items',
      'test_split: test',
      'output_type: multiple_choice',
      'doc_to_text: prompt',
      'doc_to_choice: continuations',
      'doc_to_target: gold',
      'target_delimiter: ""',
      `  bank_sha256: ${sha(join(pkg, 'bank.json'))}`,
    ]) {
      expect(yaml).toContain(line);
    }
    expect(yaml).toContain('#   dataset_path: json');
    const py = readFileSync(join(pkg, 'lm-eval/nrm_lmeval.py'), 'utf8');
    expect(py).not.toMatch(/^\s*(import|from)\s+numpy/m);
    const readme = readFileSync(join(pkg, 'README.md'), 'utf8');
    expect(readme).toContain(`--tasks tiny_toy --include_path ${join(pkg, 'lm-eval')}`);
    expect(readme).toContain(`llm-nrm score ${pkg}`);
    expect(readme).not.toContain('rendered from question and options');
  });

  it('refuses items without a recorded prompt, counting them, unless --render-prompt (then flagged)', async () => {
    const bare = write(
      'bare.jsonl',
      records.filter((r) => r.model !== heldOut).map(({ prompt: _p, continuations: _c, ...r }) => r),
    );
    const out = join(tmp.dir, 'bare-pkg');
    const refused = await runCli(['publish', bundlePath, '--responses', bare, '--items', '10', '-o', out]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('120 of 120 items have no recorded prompt and continuations');
    expect(refused.err).toContain('--render-prompt');
    expect(existsSync(out)).toBe(false);
    const ok = await runCli([
      'publish',
      bundlePath,
      '--responses',
      bare,
      '--items',
      '10',
      '--render-prompt',
      '--forms',
      '2',
      '--harness',
      'lm-eval',
      '-o',
      out,
      '-q',
    ]);
    expect(ok.code).toBe(0);
    const readme = readFileSync(join(out, 'A', 'README.md'), 'utf8');
    expect(readme).toContain('10 of 10 prompts are rendered from question and options');
    const a = readFileSync(join(out, 'A', 'items.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).item_id);
    const bIds = readFileSync(join(out, 'B', 'items.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).item_id);
    expect(a.filter((id: string) => bIds.includes(id))).toEqual([]);
    expect(existsSync(join(out, 'A', 'inspect'))).toBe(false);
    // An existing folder is not overwritten without --force.
    const again = await runCli(['publish', bundlePath, '--responses', bare, '--items', '10', '--render-prompt', '-o', join(out, 'A')]);
    expect(again.code).toBe(1);
    expect(again.err).toContain('exists; choose another folder or pass --force');
    // A harness without an exporter is refused before anything is written.
    const h = await runCli(['publish', bundlePath, '--responses', calibration, '--harness', 'lm-eval,helm', '-o', join(tmp.dir, 'never')]);
    expect(h.code).not.toBe(0);
    expect(h.err).toContain('unknown --harness "helm" (known: lm-eval, inspect, openai-evals)');
    expect(existsSync(join(tmp.dir, 'never'))).toBe(false);
  });

  it('scores a tiny run written as lm-eval samples back: the same theta as the tidy records, matched by item_id', async () => {
    const run = join(tmp.dir, 'lmeval-run');
    await writeLmEvalHarness(
      heldTiny().map((r) => ({ ...r, model: 'new-model' })),
      run,
      { tinyTask: 'tiny_toy', date: '2026-01-01T00-00-00.000001' },
    );
    const viaHarness = await scoreJson(pkg, run);
    expect(viaHarness.code).toBe(0);
    const direct = await scoreJson(
      pkg,
      write(
        'held-tiny.jsonl',
        heldTiny().map((r) => ({ ...r, model: 'new-model' })),
      ),
    );
    const [h, d] = [viaHarness.json.llms[0], direct.json.llms[0]];
    expect(h.items).toBe(N);
    expect(h.nuisance).toBe('sharpness');
    expect(Math.abs(h.theta - d.theta)).toBeLessThan(1e-6);
    expect(Math.abs(h.se - d.se)).toBeLessThan(1e-6);
    expect(h.rankInterval[0]).toBeLessThanOrEqual(h.rank);
    expect(h.rankInterval[1]).toBeGreaterThanOrEqual(h.rank);
    expect(Object.keys(h.predictedAccuracy).sort()).toEqual(['even', 'odd', 'overall']);
    const pa = h.predictedAccuracy.overall;
    expect(pa.low).toBeLessThanOrEqual(pa.accuracy);
    expect(pa.high).toBeGreaterThanOrEqual(pa.accuracy);
  });

  it('--item-list publishes the listed items, and names the line of an unknown one', async () => {
    const ids = ['sim/3', 'sim/10', 'sim/57', 'sim/99'];
    const out = join(tmp.dir, 'listed');
    const ok = await runCli([
      'publish',
      bundlePath,
      '--responses',
      calibration,
      '--item-list',
      writeList('list.txt', ['# chosen by hand', ...ids, '']),
      '--harness',
      'lm-eval',
      '-o',
      out,
      '-q',
    ]);
    expect(ok.err).toBe('');
    expect(
      readFileSync(join(out, 'items.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).item_id)
        .sort(),
    ).toEqual([...ids].sort());
    const bad = await runCli([
      'publish',
      bundlePath,
      '--responses',
      calibration,
      '--item-list',
      writeList('bad.txt', ['sim/3', 'sim/nope']),
      '-o',
      join(tmp.dir, 'never2'),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/bad\.txt:2: item "sim\/nope" is not in the bundle/);
    expect(existsSync(join(tmp.dir, 'never2'))).toBe(false);
  });

  it('predicts accuracy by the estimator fitted on the calibrated LLMs scored as tiny runs of the package', async () => {
    const bank = readJson(join(pkg, 'bank.json'));
    const est = bank.accuracy.overall.estimator;
    expect(est.coef).toHaveLength(4);
    expect(est.llms).toBe(29);
    // The calibrated LLMs' answers to the package's items, scored as a run of it, and their full-bank accuracy.
    const ids = new Set(items().map((it: { item_id: string }) => it.item_id));
    const calib = records.filter((r) => r.model !== heldOut);
    const scored = await scoreJson(
      pkg,
      write(
        'calib-tiny.jsonl',
        calib.filter((r) => ids.has(r.item)),
      ),
    );
    expect(scored.code).toBe(0);
    const right = (r: ResponseRecord) => (argmax(r.probs!) === r.key ? 1 : 0);
    const full = new Map<string, [number, number]>();
    for (const r of calib) full.set(r.model, [(full.get(r.model)?.[0] ?? 0) + right(r), (full.get(r.model)?.[1] ?? 0) + 1]);
    const F = { grid: bank.accuracy.grid, accuracy: bank.accuracy.overall.accuracy };
    const rows = scored.json.llms.map((l: { id: string; theta: number; sharpness: number; accuracy: number }) => ({
      theta: l.theta,
      logSharpness: Math.log(l.sharpness),
      tinyAccuracy: l.accuracy,
      fullAccuracy: full.get(l.id)![0] / full.get(l.id)![1],
    }));
    const refit = fitTinyAccuracyEstimator(F, rows);
    for (let t = 0; t < 4; t++) expect(Math.abs(refit.coef[t]! - est.coef[t])).toBeLessThan(1e-6);
    // And a run's prediction is that linear form at its own scores.
    for (const l of scored.json.llms.slice(0, 3)) {
      const want = predictTinyAccuracy(F, est, { theta: l.theta, logSharpness: Math.log(l.sharpness), tinyAccuracy: l.accuracy });
      expect(Math.abs(l.predictedAccuracy.overall.accuracy - want.accuracy)).toBeLessThan(1e-12);
      expect(Math.abs(l.predictedAccuracy.overall.high - l.predictedAccuracy.overall.low - (want.high - want.low))).toBeLessThan(1e-12);
    }
  });

  it('bad input: an edited items.jsonl, the output of another task, answers to half of the items', async () => {
    const run = join(tmp.dir, 'lmeval-run');
    // Edited items: the package is refused before anything is scored.
    const edited = join(tmp.dir, 'tiny-edited');
    expect((await runCli(['publish', bundlePath, '--responses', calibration, '--items', String(N), '--name', 'toy', '-o', edited, '-q'])).code).toBe(0);
    const f = join(edited, 'items.jsonl');
    writeFileSync(f, readFileSync(f, 'utf8').replace('Question about', 'Question regarding'));
    const e = await runCli(['score', edited, run]);
    expect(e.code).toBe(1);
    expect(e.err).toContain(`${f} was edited after publishing`);
    // Another task's output: nothing matches, and it says so.
    const other = join(tmp.dir, 'other-run');
    await writeLmEvalHarness(
      held.slice(0, 5).map((r) => ({ ...r, benchmark: 'hellaswag' })),
      other,
      { date: '2026-01-01T00-00-00.000001' },
    );
    const o = await runCli(['score', pkg, other]);
    expect(o.code).toBe(1);
    expect(o.err).toMatch(/none of the 5 responses in .* is to an item of .*tiny-toy \(tasks in the responses: hellaswag; the package's task is tiny_toy\)/);
    // Half the items: scored, with the SE larger and a warning that says why.
    const half = join(tmp.dir, 'half-run');
    await writeLmEvalHarness(
      heldTiny()
        .slice(0, N / 2)
        .map((r) => ({ ...r, model: 'new-model' })),
      half,
      { tinyTask: 'tiny_toy', date: '2026-01-01T00-00-00.000001' },
    );
    const hr = await runCli(['score', pkg, half, '--json']);
    expect(hr.code).toBe(0);
    expect(hr.err).toContain(`warning: new-model: answered ${N / 2} of the ${N} items`);
    const full = (await scoreJson(pkg, run)).json.llms[0];
    const partial = JSON.parse(hr.out).llms[0];
    expect(partial.items).toBe(N / 2);
    expect(partial.se).toBeGreaterThan(full.se);
    // A run with another package's bank sha256 in its results is refused.
    const results = readdirSync(join(run, 'new-model')).find((n) => n.startsWith('results_'))!;
    const rp = join(run, 'new-model', results);
    const doc = readJson(rp);
    doc.configs.tiny_toy.metadata = { bank_sha256: '0'.repeat(64) };
    const wrong = join(tmp.dir, 'wrong-sha-run');
    spawnSync('cp', ['-r', run, wrong]);
    writeFileSync(join(wrong, 'new-model', results), JSON.stringify(doc));
    const w = await runCli(['score', pkg, wrong]);
    expect(w.code).toBe(1);
    expect(w.err).toContain('ran with bank sha256 000000000000..., not');
  });

  it('Inspect and OpenAI-evals files compile, and logs shaped like theirs score back through item_id and the manifest', async () => {
    const python = existsSync(join(repoRoot, '.venv-lmeval/bin/python')) ? join(repoRoot, '.venv-lmeval/bin/python') : 'python3';
    for (const f of ['inspect/tiny_toy.py', 'lm-eval/nrm_lmeval.py']) {
      const r = spawnSync(python, ['-m', 'py_compile', join(pkg, f)], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    }
    const py = readFileSync(join(pkg, 'inspect/tiny_toy.py'), 'utf8');
    for (const s of [
      'json_dataset(os.path.join(HERE, "items.jsonl"))',
      'multiple_choice()',
      'scorer=choice()',
      'GenerateConfig(logprobs=True, top_logprobs=20)',
    ])
      expect(py).toContain(s);
    expect(py).not.toMatch(/shuffle\s*=\s*True|shuffle_choices\(|\.shuffle\(/);
    const tinyHeld = new Map(heldTiny().map((r) => [r.item, r]));
    // Inspect: a legacy JSON log as `inspect eval` writes it for this task (logprobs of the answer letter).
    const rows = readFileSync(join(pkg, 'inspect/items.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const samples = rows.map((row) => {
      const r = tinyHeld.get(row.metadata.item_id)!;
      const L = row.choices.map((_: string, k: number) => String.fromCharCode(65 + k));
      const pick = L[argmax(r.probs!)];
      return {
        id: row.id,
        epoch: 1,
        input: row.input,
        choices: row.choices,
        target: row.target,
        messages: [
          {
            role: 'user',
            content: `Answer the following multiple choice question.\n\n${row.input}\n\n${row.choices.map((c: string, k: number) => `${L[k]}) ${c}`).join('\n')}`,
          },
        ],
        output: {
          model: 'm',
          completion: `ANSWER: ${pick}`,
          choices: [
            {
              message: { role: 'assistant', content: `ANSWER: ${pick}` },
              logprobs: {
                content: [
                  { token: 'ANSWER', logprob: 0, top_logprobs: [] },
                  { token: ':', logprob: 0, top_logprobs: [] },
                  {
                    token: ` ${pick}`,
                    logprob: Math.log(Math.max(...r.probs!)),
                    top_logprobs: r.probs!.map((p, k) => ({ token: ` ${L[k]}`, logprob: Math.log(p) })),
                  },
                ],
              },
            },
          ],
        },
        scores: { choice: { value: pick === row.target ? 'C' : 'I', answer: pick } },
        metadata: row.metadata,
      };
    });
    const ilog = join(tmp.dir, 'inspect-log.json');
    writeFileSync(
      ilog,
      JSON.stringify({ version: 2, status: 'success', eval: { task: 'tiny_toy', model: 'openai/new-model', scorers: [{ name: 'choice' }] }, samples }),
    );
    const ins = await scoreJson(pkg, ilog);
    expect(ins.code).toBe(0);
    expect(ins.json.llms[0].items).toBe(N);
    // The option distribution came through: the same theta as the tidy records (top-20 covers every option here).
    const direct = (await scoreJson(pkg, write('held-tiny2.jsonl', heldTiny()))).json.llms[0];
    expect(Math.abs(ins.json.llms[0].theta - direct.theta)).toBeLessThan(1e-4);
    // OpenAI evals: a record log of the Match eval; samples are named by line index only.
    const oai = readFileSync(join(pkg, 'openai-evals/data/tiny-toy/samples.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const manifest = readJson(join(pkg, 'openai-evals/data/tiny-toy/manifest.json')).items as string[];
    const run = 'R1';
    const lines: object[] = [
      {
        spec: {
          completion_fns: ['new-model'],
          eval_name: 'tiny-toy.test.v1',
          base_eval: 'tiny-toy',
          split: 'test',
          run_config: { eval_spec: { cls: 'evals.elsuite.basic.match:Match' } },
          run_id: run,
        },
      },
    ];
    let ev = 0;
    oai.forEach((s, idx) => {
      const r = tinyHeld.get(manifest[idx]!)!;
      const pick = String.fromCharCode(65 + argmax(r.probs!));
      lines.push({ run_id: run, event_id: ev++, sample_id: `tiny-toy.test.${idx}`, type: 'sampling', data: { prompt: s.input, sampled: pick } });
      lines.push({
        run_id: run,
        event_id: ev++,
        sample_id: `tiny-toy.test.${idx}`,
        type: 'match',
        data: { correct: pick === s.ideal, expected: s.ideal, picked: pick, sampled: pick },
      });
    });
    lines.push({ final_report: { accuracy: 0.5 } });
    const olog = write('oai-log.jsonl', lines);
    const o = await scoreJson(pkg, olog);
    expect(o.code).toBe(0);
    expect(o.json.llms[0].items).toBe(N);
    expect(o.json.llms[0].cells).toBe(N);
  });

  // The real harness: lm_eval 0.4.13 in the venv `.ci/run` builds (CI always has it; elsewhere the test is skipped without it).
  const lmEval = join(repoRoot, '.venv-lmeval/bin/lm_eval');
  const haveLmEval = existsSync(lmEval);
  it.skipIf(!haveLmEval && !process.env.CI)(
    'lm_eval --model dummy runs the task; its nrm_theta equals llm-nrm score of the same samples (1e-4)',
    async () => {
      expect(haveLmEval, `${lmEval} is missing: .ci/run installs lm_eval 0.4.13 into .venv-lmeval before the tests`).toBe(true);
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
      const out = join(tmp.dir, 'lm-eval-out');
      const r = spawnSync(lmEval, ['--model', 'dummy', '--tasks', 'tiny_toy', '--include_path', join(pkg, 'lm-eval'), '--log_samples', '--output_path', out], {
        encoding: 'utf8',
        env: { ...process.env, PYTHONPATH: shim, HF_DATASETS_OFFLINE: '1', HF_HUB_OFFLINE: '1', TOKENIZERS_PARALLELISM: 'false' },
        timeout: 540_000,
      });
      expect(r.status, r.stderr.slice(-3000)).toBe(0);
      expect(r.stdout).toMatch(/nrm_theta/);
      const find = (dir: string, re: RegExp): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? find(join(dir, e.name), re) : re.test(e.name) ? [join(dir, e.name)] : []));
      const [results] = find(out, /^results_.*\.json$/);
      const res = readJson(results!).results.tiny_toy;
      expect(readJson(results!).configs.tiny_toy.metadata.bank_sha256).toBe(
        spawnSync('sha256sum', [join(pkg, 'bank.json')], { encoding: 'utf8' }).stdout.split(' ')[0],
      );
      const scored = await scoreJson(pkg, out);
      expect(scored.code).toBe(0);
      const l = scored.json.llms[0];
      expect(l.items).toBe(N);
      expect(Math.abs(res['nrm_theta,none'] - l.theta)).toBeLessThan(1e-4);
      expect(Math.abs(res['nrm_theta_se,none'] - l.se)).toBeLessThan(1e-4);
      expect(Math.abs(res['nrm_pred_acc,none'] - l.predictedAccuracy.overall.accuracy)).toBeLessThan(1e-4);
      expect(Math.abs(res['acc,none'] - l.accuracy)).toBeLessThan(1e-9);
    },
    600_000,
  );
});

describe('a package from the winogrande fixture round-trips', () => {
  it('export, the held-out model through the lm-eval writer, score back: the theta of its tidy records', async () => {
    const { fixture } = await import('@llm-nrm/tooling/test');
    const { readLmEvalHarness } = await import('@llm-nrm/adapters');
    const all: ResponseRecord[] = [];
    for await (const r of readLmEvalHarness(fixture('lm-eval-harness/lm-eval-pr1567-slurmevals'))) all.push(r);
    const calib = write(
      'wino-calib.jsonl',
      all.filter((r) => r.model !== 'mistral'),
    );
    const wb = join(tmp.dir, 'wino-bundle.json');
    expect((await runCli(['fit', calib, '-o', wb, '-q'])).code).toBe(0);
    const wpkg = join(tmp.dir, 'tiny-wino');
    // write_out logs keep no single prompt per item: a rendered one, flagged.
    const pub = await runCli([
      'publish',
      wb,
      '--responses',
      calib,
      '--items',
      '41',
      '--render-prompt',
      '--name',
      'wino',
      '--harness',
      'lm-eval',
      '-o',
      wpkg,
      '-q',
    ]);
    expect(pub.code).toBe(0);
    const rows = readFileSync(join(wpkg, 'items.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(41);
    const byId = new Map(rows.map((it) => [it.item_id, it]));
    // The held-out model's answers to the package, as the tiny task would log them (its prompt and continuations).
    const mistral = all
      .filter((r) => r.model === 'mistral' && byId.has(r.item))
      .map((r) => ({ ...r, prompt: byId.get(r.item)!.prompt, continuations: byId.get(r.item)!.continuations }));
    expect(mistral).toHaveLength(41);
    const run = join(tmp.dir, 'wino-run');
    await writeLmEvalHarness(mistral, run, { tinyTask: 'tiny_wino', date: '2026-01-01T00-00-00.000001' });
    const back = await scoreJson(wpkg, run);
    expect(back.code).toBe(0);
    const direct = await scoreJson(wpkg, write('wino-held.jsonl', mistral));
    expect(back.json.llms[0].id).toBe('mistral');
    expect(back.json.llms[0].items).toBe(41);
    expect(Math.abs(back.json.llms[0].theta - direct.json.llms[0].theta)).toBeLessThan(1e-6);
    // ...and the package's numbers come from the calibration bundle: the tiny bank holds its item parameters.
    const full = parseBundle(readFileSync(wb, 'utf8'));
    const tinyBank = readJson(join(wpkg, 'bank.json'));
    const it0 = tinyBank.bundle.items[0];
    expect(full.items.find((x) => x.id === it0.id)!.a).toEqual(it0.a);
  }, 120_000);
});
