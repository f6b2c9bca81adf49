// `llm-nrm publish` and scoring a tiny run back: a package exported from a simulated calibration,
// Inspect and OpenAI-evals files compiled and their readers fed logs shaped as those tasks write,
// and the bad inputs a user meets. The same packages run for real through lm_eval 0.4.13 in
// publish.e2e.test.ts (`npm run test:e2e`).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankRecords, itemContentSha256, parseBundle, simulateFleet, type ResponseRecord } from '@llm-nrm/core';
import { writeLmEvalHarness } from '@llm-nrm/adapters';
import { SELECTION_FLAGS, adaptiveStep, fitRunAccuracy, predictRunAccuracy } from '@llm-nrm/analysis';
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
  // --include-flagged: the items as selected before flags kept items out (the benchmark shares below are exact).
  const res = await runCli([
    'publish',
    bundlePath,
    '--responses',
    calibration,
    '--items',
    String(N),
    '--per-benchmark',
    '--include-flagged',
    '--name',
    'toy',
    '-o',
    pkg,
    '-q',
  ]);
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
      'lm-eval/bank.json',
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
    // lm-eval/ runs copied alone: its bank.json is the package's, byte for byte.
    expect(readFileSync(join(pkg, 'lm-eval/bank.json'), 'utf8')).toBe(readFileSync(join(pkg, 'bank.json'), 'utf8'));
    // Paths relative to the package: nothing of the publisher's machine in the README or the bank.
    const readme = readFileSync(join(pkg, 'README.md'), 'utf8');
    expect(readme).toContain('--tasks tiny_toy --include_path lm-eval --log_samples --output_path out/');
    expect(readme).toContain('llm-nrm score . out/');
    expect(readme).toContain('inspect eval inspect/tiny_toy.py');
    expect(readme).toContain('--registry_path openai-evals');
    expect(readme).not.toContain('rendered from question and options');
    expect(readme).not.toContain('Placeholder prompts');
    for (const text of [readme, readFileSync(join(pkg, 'bank.json'), 'utf8')]) expect(text).not.toContain(tmp.dir);
    expect(bank.provenance.bundle.path).toBe('bundle.json');
    expect(bank.provenance.responses.path).toBe('calibration.jsonl');
    expect(bank.provenance.command).toContain('llm-nrm publish bundle.json --responses calibration.jsonl');
    expect(readFileSync(join(pkg, 'inspect/tiny_toy.py'), 'utf8')).toContain('inspect eval inspect/tiny_toy.py');
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
    // Rendering needs a question: these items have none (nor option texts), so the prompts would be placeholders.
    const placeholder = await runCli(['publish', bundlePath, '--responses', bare, '--items', '10', '--render-prompt', '--forms', '2', '-o', out]);
    expect(placeholder.code).toBe(1);
    expect(placeholder.err).toMatch(
      /20 of the 20 selected items have no question text to render a prompt from \(sim\/\d+ \(no question text, no option texts\)/,
    );
    expect(placeholder.err).toContain('--allow-placeholder-prompts');
    expect(existsSync(out)).toBe(false);
    const ok = await runCli([
      'publish',
      bundlePath,
      '--responses',
      bare,
      '--items',
      '10',
      '--render-prompt',
      '--allow-placeholder-prompts',
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
    // Said in the README's first lines, and never as prompts "rendered from question and options".
    expect(readme.split('\n').slice(0, 4).join('\n')).toContain('**Placeholder prompts: 10 of 10 items have no question text');
    expect(readme).not.toContain('rendered from question and options');
    expect(readJson(join(out, 'A', 'bank.json')).placeholderPrompts).toBe(10);
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
    const again = await runCli([
      'publish',
      bundlePath,
      '--responses',
      bare,
      '--items',
      '10',
      '--render-prompt',
      '--allow-placeholder-prompts',
      '-o',
      join(out, 'A'),
    ]);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/refused -o .*A: it exists \(written by llm-nrm publish\); pass --force to replace it/);
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

  it('predicts accuracy by the run-accuracy model fitted on the calibrated LLMs scored as tiny runs of the package (in sample, the default)', async () => {
    const inSample = pkg;
    const bank = readJson(join(inSample, 'bank.json'));
    const m = bank.accuracy.overall.run;
    expect(bank.accuracy.overall.estimator).toBeUndefined();
    expect(m.llms).toBe(29);
    expect(m.curveWeight).toBeGreaterThanOrEqual(0);
    // The calibrated LLMs' answers to the package's items, scored as a run of it, and their full-bank accuracy.
    const ids = new Set(items().map((it: { item_id: string }) => it.item_id));
    const calib = records.filter((r) => r.model !== heldOut);
    const scored = await scoreJson(
      inSample,
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
    const theta = new Map(parseBundle(readFileSync(bundlePath, 'utf8')).llms.map((l) => [l.id, l.theta]));
    const rows = scored.json.llms.map((l: { id: string; theta: number; sharpness: number; accuracy: number }) => ({
      fullTheta: theta.get(l.id)!,
      theta: l.theta,
      logSharpness: Math.log(l.sharpness),
      tinyAccuracy: l.accuracy,
      fullAccuracy: full.get(l.id)![0] / full.get(l.id)![1],
    }));
    const refit = fitRunAccuracy(rows, { chanceTiny: m.chanceTiny, chanceFull: m.chanceFull, items: m.items });
    expect(Math.abs(refit.shift - m.shift)).toBeLessThan(1e-9);
    expect(Math.abs(refit.curveWeight - m.curveWeight)).toBeLessThan(1e-9);
    // And a run's prediction is the model's at its own scores.
    for (const l of scored.json.llms.slice(0, 3)) {
      const want = predictRunAccuracy(m, F, { theta: l.theta, logSharpness: Math.log(l.sharpness), tinyAccuracy: l.accuracy });
      expect(Math.abs(l.predictedAccuracy.overall.accuracy - want.accuracy)).toBeLessThan(1e-12);
      expect(Math.abs(l.predictedAccuracy.overall.high - want.high)).toBeLessThan(1e-12);
      expect(Math.abs(l.predictedAccuracy.overall.low - want.low)).toBeLessThan(1e-12);
    }
  });

  it('reads the responses twice without keeping them, and standard input (kept whole: it cannot be read twice) to the same package', () => {
    const dir = join(tmp.dir, 'tiny-stdin');
    const bin = join(repoRoot, 'packages/cli/dist/bin.js');
    const args = ['publish', bundlePath, '--responses', '-', '--items', String(N), '--per-benchmark', '--include-flagged', '--name', 'toy', '-o', dir, '-q'];
    const res = spawnSync(process.execPath, [bin, ...args], { input: readFileSync(calibration), encoding: 'utf8' });
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    expect(readFileSync(join(dir, 'items.jsonl'), 'utf8')).toBe(readFileSync(join(pkg, 'items.jsonl'), 'utf8'));
    const { provenance: _piped, ...fromStdin } = readJson(join(dir, 'bank.json'));
    const { provenance: _read, ...fromFile } = readJson(join(pkg, 'bank.json'));
    expect(fromStdin).toEqual(fromFile);
    expect(fromFile.accuracy.overall.run.llms).toBe(29);
  });

  it('scores the calibrated LLMs as tiny runs on worker threads (--workers) to the package of one thread; refuses a bad --workers', async () => {
    const args = ['--responses', calibration, '--items', String(N), '--per-benchmark', '--include-flagged', '--name', 'toy', '-q'];
    const one = join(tmp.dir, 'tiny-one-thread');
    const three = join(tmp.dir, 'tiny-three-workers');
    expect((await runCli(['publish', bundlePath, ...args, '--workers', '1', '-o', one])).code).toBe(0);
    expect((await runCli(['publish', bundlePath, ...args, '--workers', '3', '-o', three])).code).toBe(0);
    const { provenance: _one, ...a } = readJson(join(one, 'bank.json'));
    const { provenance: _three, ...b } = readJson(join(three, 'bank.json'));
    const { provenance: _pkg, ...c } = readJson(join(pkg, 'bank.json'));
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(a.accuracy.overall.run.llms).toBe(29);
    const bad = await runCli(['publish', bundlePath, ...args, '--workers', '0', '-o', join(tmp.dir, 'tiny-bad-workers')]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('invalid --workers value: 0 (a positive integer)');
    expect(existsSync(join(tmp.dir, 'tiny-bad-workers'))).toBe(false);
  });

  it('leaves the items report flags out of selection by default and lists them in the README', async () => {
    const dir = join(tmp.dir, 'tiny-unflagged');
    const res = await runCli(['publish', bundlePath, '--responses', calibration, '--items', String(N), '--name', 'toy', '-o', dir, '-q']);
    expect(res.code).toBe(0);
    const bank = readJson(join(dir, 'bank.json'));
    const left: { id: string; flags: string[] }[] = bank.leftOut ?? [];
    const report = JSON.parse((await runCli(['report', bundlePath, '--json'])).out);
    const suspect = (report.flagged as { id: string; flags: string[] }[])
      .filter((q) => q.flags.some((f) => (SELECTION_FLAGS as readonly string[]).includes(f)))
      .map((q) => q.id);
    expect(left.map((l) => l.id).sort()).toEqual([...suspect].sort());
    const ids = new Set(bank.bundle.items.map((it: { id: string }) => it.id));
    for (const l of left) expect(ids.has(l.id)).toBe(false);
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    if (left.length > 0) {
      expect(readme).toMatch(/Left out of selection: \d+ item\(s\)/);
      for (const l of left) expect(readme).toContain(`\`${l.id}\`: ${l.flags.join(', ')}`);
    }
  });

  it('--adaptive exports the whole pool (every prompted item, flagged ones left out), the settings in bank.json and nrm_adaptive.py', async () => {
    const dir = join(tmp.dir, 'adaptive-toy');
    const res = await runCli([
      'publish',
      bundlePath,
      '--responses',
      calibration,
      '--adaptive',
      '--se',
      '0.25',
      '--randomesque',
      '2',
      '--name',
      'toy',
      '-o',
      dir,
    ]);
    expect(res.code, res.err).toBe(0);
    expect(res.out).toContain(`python ${join(dir, 'lm-eval', 'nrm_adaptive.py')} --model <model>`);
    const bank = readJson(join(dir, 'bank.json'));
    expect(bank.adaptive).toEqual({ batch: 4, se: 0.25, minItems: 10, maxItems: 60, randomesque: 2, seed: 1, balance: true });
    // No run-accuracy model: an adaptive run's accuracy is on items aimed at its level, so the
    // prediction is the accuracy curve at theta with theta's SE.
    expect(bank.accuracy.overall.run).toBeUndefined();
    expect(bank.accuracy.overall.accuracy.length).toBe(bank.accuracy.grid.length);
    for (const c of Object.values(bank.accuracy.benchmarks) as { run?: unknown }[]) expect(c.run).toBeUndefined();
    const report = JSON.parse((await runCli(['report', bundlePath, '--json'])).out);
    const suspect = new Set(
      (report.flagged as { id: string; flags: string[] }[])
        .filter((q) => q.flags.some((f) => (SELECTION_FLAGS as readonly string[]).includes(f)))
        .map((q) => q.id),
    );
    // The pool: every calibrated item but the flagged ones, in bundle order, each with its recorded prompt.
    const calibrated = parseBundle(readFileSync(bundlePath, 'utf8'), bundlePath).items.map((it) => it.id);
    const pool = calibrated.filter((id) => !suspect.has(id));
    expect(bank.bundle.items.map((it: { id: string }) => it.id)).toEqual(pool);
    expect((bank.leftOut ?? []).map((l: { id: string }) => l.id).sort()).toEqual([...suspect].sort());
    const rows = readFileSync(join(dir, 'items.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r: { item_id: string }) => r.item_id)).toEqual(pool);
    for (const r of rows) expect(r.prompt).toBe(`Question about ${r.item_id}?\nAnswer:`);
    const py = readFileSync(join(dir, 'lm-eval', 'nrm_adaptive.py'), 'utf8');
    expect(py).toMatch(/^def run\(lm, output_path, model_name, se=None, max_items=None, batch=None/m);
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain(
      'python lm-eval/nrm_adaptive.py --model hf --model_args pretrained=<model> --output_path out/',
    );
    // A tiny package has no adaptive runner and no adaptive block.
    expect(existsSync(join(pkg, 'lm-eval', 'nrm_adaptive.py'))).toBe(false);
    expect(readJson(join(pkg, 'bank.json')).adaptive).toBeUndefined();
  });

  it("--adaptive: the package's Python selection replays the held-out LLM's answers to the TypeScript engine's items and estimates (1e-6)", () => {
    // The package --adaptive wrote above (randomesque 2: the random path too); a short run keeps the pure-Python scoring quick.
    const dir = join(tmp.dir, 'adaptive-toy');
    expect(existsSync(join(dir, 'bank.json')), 'the adaptive package the test above publishes').toBe(true);
    const bank = readJson(join(dir, 'bank.json'));
    const answersFile = write(
      'adaptive-held.jsonl',
      held.map((r) => ({ item_id: r.item, probs: r.probs })),
    );
    const python = existsSync(join(repoRoot, '.venv-lmeval/bin/python')) ? join(repoRoot, '.venv-lmeval/bin/python') : 'python3';
    const r = spawnSync(python, [join(dir, 'lm-eval', 'nrm_adaptive.py'), '--replay', answersFile, '--max-items', '12'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const py = JSON.parse(r.stdout);
    const answers: ResponseRecord[] = [];
    const byItem = new Map(held.map((h) => [h.item, h]));
    for (let n = 0; ; n++) {
      const st = adaptiveStep(bank.bundle, answers, { ...bank.adaptive, maxItems: 12 });
      const p = py.steps[n];
      expect(p.next).toEqual(st.next);
      expect(p.stop).toBe(st.stop);
      expect(Math.abs(p.theta - st.theta)).toBeLessThan(1e-6);
      expect(Math.abs(p.se - st.se)).toBeLessThan(1e-6);
      if (st.stop !== null) break;
      for (const id of st.next) answers.push(byItem.get(id)!);
    }
    expect(py.items).toHaveLength(12);
    expect(py.stop).toBe('max-items');
  });

  it('--adaptive settings: refused without --adaptive, with --forms, or out of range; nothing written', async () => {
    const cases: [string[], RegExp][] = [
      [['--se', '0.3'], /--se sets the adaptive runner: add --adaptive/],
      [['--adaptive', '--forms', '2'], /--adaptive publishes one pool: leave out --forms/],
      [['--adaptive', '--se', '0'], /invalid --se: 0/],
      [['--adaptive', '--batch', '1.5'], /invalid --batch: 1.5/],
      [['--adaptive', '--min-items', '20', '--max-items', '10'], /--min-items 20 exceeds --max-items 10/],
      [['--adaptive', '--seed', '-1'], /invalid --seed: -1/],
    ];
    for (const [args, message] of cases) {
      const dir = join(tmp.dir, 'adaptive-refused');
      const res = await runCli(['publish', bundlePath, '--responses', calibration, ...args, '-o', dir, '-q']);
      expect(res.code, args.join(' ')).not.toBe(0);
      expect(res.err).toMatch(message);
      expect(existsSync(dir)).toBe(false);
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
});

describe('a package from the winogrande fixture (multiple-input) round-trips', () => {
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

  it('exports the items in their multiple-input form: per-option contexts, one continuation, a multiple-input lm-eval task', () => {
    expect(wino.rows).toHaveLength(41);
    const bank = readJson(join(wino.pkg, 'bank.json'));
    expect(bank.renderedPrompts).toBe(0);
    const calibrated = new Map(wino.all.filter((r) => r.model === 'llama').map((r) => [r.item, r]));
    for (const row of wino.rows) {
      const r = calibrated.get(row.item_id)!;
      expect(row.prompt).toBe('');
      expect(row.contexts).toEqual(r.contexts);
      expect(row.continuations).toEqual(r.continuations);
      expect(row.content_sha256).toBe(itemContentSha256(r.contexts!, r.continuations!));
    }
    // The bundle's items carry the same content hash (fit computed it from the records' contexts).
    const full = parseBundle(readFileSync(wino.bundle, 'utf8'));
    const sha = new Map(full.items.map((it) => [it.id, it.contentSha256]));
    for (const row of wino.rows) expect(sha.get(row.item_id)).toBe(row.content_sha256);
    const yaml = readFileSync(join(wino.pkg, 'lm-eval/tiny_wino.yaml'), 'utf8');
    expect(yaml).toMatch(/^doc_to_text: gold$/m);
    expect(yaml).toMatch(/^doc_to_choice: contexts$/m);
    expect(yaml).toMatch(/^doc_to_target: continuation$/m);
    expect(readFileSync(join(wino.pkg, 'README.md'), 'utf8')).toMatch(/multiple-input/);
  });

  it('refuses Inspect and OpenAI evals for multiple-input items (they show one prompt), unless --render-prompt', async () => {
    for (const h of ['inspect', 'openai-evals']) {
      const r = await runCli(['publish', wino.bundle, '--responses', wino.calib, '--items', '10', '--harness', h, '-o', join(tmp.dir, `wino-${h}`), '-q']);
      expect(r.code).not.toBe(0);
      expect(r.err).toMatch(new RegExp(`--harness ${h}: the items are multiple-input .*--harness lm-eval, or --render-prompt`));
      expect(existsSync(join(tmp.dir, `wino-${h}`))).toBe(false);
    }
    const rendered = join(tmp.dir, 'wino-rendered');
    const r = await runCli(['publish', wino.bundle, '--responses', wino.calib, '--items', '10', '--render-prompt', '-o', rendered, '-q']);
    expect(r.code, r.err).toBe(0);
    expect(readJson(join(rendered, 'bank.json')).renderedPrompts).toBe(10);
    expect(readJson(join(rendered, 'bank.json')).placeholderPrompts).toBeUndefined();
    expect(existsSync(join(rendered, 'inspect/tiny_wino_rendered.py'))).toBe(true);
    // The question is the sentence with its blank (the contexts' shared prefix, then the continuation), never a placeholder.
    const first = JSON.parse(readFileSync(join(rendered, 'items.jsonl'), 'utf8').split('\n')[0]!);
    expect(first.prompt).not.toMatch(/^Question /);
    expect(first.prompt).toMatch(/_.*\nA\. .*\nB\. .*\nAnswer:$/s);
  });

  it('the held-out model through the lm-eval writer, scored back: the theta of its tidy records', async () => {
    const byId = new Map(wino.rows.map((it) => [it.item_id, it]));
    // The held-out model's own records already carry the contexts the package asks for.
    const mistral = wino.all.filter((r) => r.model === 'mistral' && byId.has(r.item));
    expect(mistral).toHaveLength(41);
    for (const r of mistral) expect(r.contexts).toEqual(byId.get(r.item)!.contexts);
    const run = join(tmp.dir, 'wino-run');
    await writeLmEvalHarness(mistral, run, { tinyTask: 'tiny_wino', date: '2026-01-01T00-00-00.000001' });
    const back = await scoreJson(wino.pkg, run);
    expect(back.code, back.err).toBe(0);
    const direct = await scoreJson(wino.pkg, write('wino-held.jsonl', mistral));
    expect(direct.code, direct.err).toBe(0);
    expect(back.json.llms[0].id).toBe('mistral');
    expect(back.json.llms[0].items).toBe(41);
    expect(Math.abs(back.json.llms[0].theta - direct.json.llms[0].theta)).toBeLessThan(1e-6);
    // An edited context is another item: the run is refused, not scored as the calibrated one.
    const edited = mistral.map((r, i) => (i === 0 ? { ...r, contexts: r.contexts!.map((c) => `${c} `) } : r));
    const bad = await scoreJson(wino.pkg, write('wino-edited.jsonl', edited));
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/answered on another prompt, contexts or continuations/);
    // ...and the package's numbers come from the calibration bundle: the tiny bank holds its item parameters.
    const full = parseBundle(readFileSync(wino.bundle, 'utf8'));
    const it0 = readJson(join(wino.pkg, 'bank.json')).bundle.items[0];
    expect(full.items.find((x) => x.id === it0.id)!.a).toEqual(it0.a);
  });
});

describe('llm-nrm publish on a key-free bundle', () => {
  it('refuses with NO_KEY naming the items (the harness files would carry anchors as gold answers) and writes nothing', async () => {
    const free = write(
      'calibration-key-free.jsonl',
      records.filter((r) => r.model !== heldOut).map(({ key: _key, ...r }) => r),
    );
    const freeBundle = join(tmp.dir, 'bundle-key-free.json');
    expect((await runCli(['fit', free, '-o', freeBundle, '-q'])).code).toBe(0);
    const out = join(tmp.dir, 'tiny-key-free');
    const res = await runCli(['publish', freeBundle, '--responses', free, '--items', '10', '-o', out, '-q']);
    expect(res.code).toBe(1);
    expect(res.err).toContain(
      `${freeBundle}: a tiny package (each harness's gold answer, the accuracy prediction) needs a key, but the bank has no key for 120 of 120 items (first "sim/0", "sim/1", "sim/2", "sim/3", "sim/4")`,
    );
    expect(res.err).toContain('llm-nrm audit');
    expect(existsSync(out)).toBe(false);
  });
});
