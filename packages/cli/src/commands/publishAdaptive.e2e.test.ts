// `llm-nrm publish --adaptive` run for real: the package's lm-eval/nrm_adaptive.py in the real
// lm_eval 0.4.13 (the venv `.ci/run` builds, .venv-lmeval), answered by a small LM subclass that
// reads a simulated LLM's option probabilities, then by `--model dummy` through its command line;
// `llm-nrm score` of each output must give the runner's theta (1e-4). And the Python selection must
// be the TypeScript engine's (analysis' adaptiveStep) step for step on the same recorded answers.
// About 2-3 minutes on the 2-core machine (the Python scoring of each step dominates). `npm run test:e2e`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankRecords, simulateFleet, type CalibrationBundle, type ResponseRecord } from '@llm-nrm/core';
import { adaptiveStep, type AdaptiveOptions } from '@llm-nrm/analysis';
import { repoRoot, tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../../test/runCli.js';

const tmp = tempDir('llm-nrm-cli-adaptive-');
afterAll(() => tmp.cleanup());

const python = join(repoRoot, '.venv-lmeval/bin/python');
const fleet = simulateFleet({ models: 30, items: 120, seed: 4 });
const labels = (k: number) => Array.from({ length: k }, (_, i) => ` ${String.fromCharCode(65 + i)}`);
// Two benchmarks (content balancing has something to balance), each item's prompt recorded.
const records: ResponseRecord[] = [...bankRecords(fleet.bank)].map((r) => ({
  ...r,
  benchmark: Number(r.item.replace(/\D/g, '')) % 2 ? 'odd' : 'even',
  prompt: `Question about ${r.item}?\nAnswer:`,
  continuations: labels(r.probs!.length),
}));
// The held-out LLM: the fleet's median by accuracy (a mid-range model, whose SE the pool can bring under 0.3).
const accuracyOf = (m: string) => {
  const rs = records.filter((r) => r.model === m);
  return rs.filter((r) => r.probs!.indexOf(Math.max(...r.probs!)) === r.key).length / rs.length;
};
const byAccuracy = [...fleet.bank.models].sort((a, b) => accuracyOf(a) - accuracyOf(b) || a.localeCompare(b));
const heldOut = byAccuracy[Math.floor(byAccuracy.length / 2)]!;
const held = records.filter((r) => r.model === heldOut);
const write = (name: string, lines: object[]) => {
  const p = join(tmp.dir, name);
  writeFileSync(p, lines.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return p;
};
const calibration = write(
  'calibration.jsonl',
  records.filter((r) => r.model !== heldOut),
);
// The held-out LLM's recorded answers, as the Python side reads them (item id, option probabilities).
const recorded = write(
  'held-out.jsonl',
  held.map((r) => ({ item_id: r.item, probs: r.probs })),
);
const bundlePath = join(tmp.dir, 'bundle.json');
const pkg = join(tmp.dir, 'adaptive-toy');
const POOL = 120;

const findFiles = (dir: string, re: RegExp): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? findFiles(join(dir, e.name), re) : re.test(e.name) ? [join(dir, e.name)] : []));
const readJson = (p: string) => JSON.parse(readFileSync(p, 'utf8'));

/** The venv's python on `args` (asynchronously: a minute-long child must not block the test worker); its stdout. */
async function py(args: string[]): Promise<string> {
  expect(existsSync(python), `${python} is missing: .ci/run installs lm_eval 0.4.13 into .venv-lmeval before the tests`).toBe(true);
  const shim = join(tmp.dir, 'shim');
  spawnSync('mkdir', ['-p', shim]);
  // lm-eval's table printer imports pytablewriter, which the local package index lacks: a minimal stand-in (as publish.e2e does).
  writeFileSync(join(shim, 'pytablewriter.py'), 'class _W:\n    pass\nMarkdownTableWriter = LatexTableWriter = _W\n');
  const child = spawn(python, args, {
    env: { ...process.env, PYTHONPATH: shim, HF_DATASETS_OFFLINE: '1', HF_HUB_OFFLINE: '1', TOKENIZERS_PARALLELISM: 'false' },
    timeout: 540_000,
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code, err.slice(-3000)).toBe(0);
  return out;
}

const scoreJson = async (...args: string[]) => {
  const r = await runCli(['score', ...args, '--json', '-q']);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out).llms[0];
};

beforeAll(async () => {
  expect((await runCli(['fit', calibration, '-o', bundlePath, '-q'])).code).toBe(0);
  // --include-flagged: the whole simulated pool (the simulation's report flags many items).
  const res = await runCli([
    'publish',
    bundlePath,
    '--responses',
    calibration,
    '--adaptive',
    '--include-flagged',
    '--name',
    'toy',
    '--harness',
    'lm-eval,inspect',
    '-o',
    pkg,
    '-q',
  ]);
  expect(res.err).toBe('');
  expect(res.code).toBe(0);
}, 120_000);

describe('publish --adaptive: nrm_adaptive.py in the real lm_eval 0.4.13', () => {
  it('run(lm, ...) with an LM answering from the simulated LLM stops by its SE rule before the pool runs out; llm-nrm score agrees (1e-4)', async () => {
    const out = join(tmp.dir, 'sim-out');
    const script = [
      'import json, math, sys',
      `sys.path.insert(0, ${JSON.stringify(join(pkg, 'lm-eval'))})`,
      'import nrm_adaptive, nrm_lmeval',
      'from lm_eval.api.model import LM',
      'from lm_eval.tasks import TaskManager',
      `recorded = {}`,
      `for line in open(${JSON.stringify(recorded)}):`,
      '    r = json.loads(line)',
      '    recorded[r["item_id"]] = r["probs"]',
      '# The LM sees only (context, continuation) strings: a table from the package items to the simulated probabilities.',
      'table = {}',
      'for doc in nrm_lmeval._docs():',
      '    for k, args in enumerate(nrm_adaptive.requests(doc)):',
      '        table[args] = recorded[doc["item_id"]][k]',
      'class SimLM(LM):',
      '    def __init__(self):',
      '        super().__init__()',
      '        self.calls = []',
      '    def loglikelihood(self, requests, disable_tqdm=False):',
      '        self.calls.append(len(requests))',
      '        return [(math.log(max(table[r.arguments], 1e-300)), False) for r in requests]',
      '    def loglikelihood_rolling(self, requests, disable_tqdm=False):',
      '        raise NotImplementedError',
      '    def generate_until(self, requests, disable_tqdm=False):',
      '        raise NotImplementedError',
      'lm = SimLM()',
      `res = nrm_adaptive.run(lm, ${JSON.stringify(out)}, "sim-held-out")`,
      '# The requests lm_eval itself builds from the exported task YAML, for every item of the pool.',
      `task = TaskManager(include_path=${JSON.stringify(join(pkg, 'lm-eval'))}).load_task_or_group(["tiny_toy"])["tiny_toy"]`,
      'task.build_all_requests(rank=0, world_size=1)',
      'built = {}',
      'for inst in task.instances:',
      '    built.setdefault(inst.doc["item_id"], []).append((inst.idx, list(inst.arguments)))',
      'ours = {d["item_id"]: [list(a) for a in nrm_adaptive.requests(d)] for d in nrm_lmeval._docs()}',
      'same = all([a for _, a in sorted(built[i])] == ours[i] for i in ours) and len(built) == len(ours)',
      'print(json.dumps({"res": res, "calls": lm.calls, "same_requests": same}))',
    ].join('\n');
    const { res, calls, same_requests } = JSON.parse((await py(['-c', script])).trim().split('\n').pop()!);
    // Exactly the exported task's requests.
    expect(same_requests).toBe(true);
    expect(res.stop).toBe('se');
    expect(res.se).toBeLessThanOrEqual(0.3);
    expect(res.items.length).toBeGreaterThanOrEqual(10);
    expect(res.items.length).toBeLessThan(POOL);
    expect(new Set(res.items).size).toBe(res.items.length);
    // One batched call a round (rounds of 4 items), one request per option of the round's items.
    const bank = readJson(join(pkg, 'bank.json'));
    const options = new Map<string, number>(bank.bundle.items.map((it: { id: string; nOptions: number }) => [it.id, it.nOptions]));
    const rounds = Array.from({ length: Math.ceil(res.items.length / 4) }, (_, r) => res.items.slice(4 * r, 4 * r + 4) as string[]);
    expect(calls).toEqual(rounds.map((ids) => ids.reduce((s, id) => s + options.get(id)!, 0)));
    const [samples] = findFiles(out, /^samples_tiny_toy_.*\.jsonl$/);
    const [results] = findFiles(out, /^results_.*\.json$/);
    expect(readFileSync(samples!, 'utf8').trim().split('\n')).toHaveLength(res.items.length);
    const doc = readJson(results!);
    expect(doc.nrm_adaptive.items).toEqual(res.items);
    const r = doc.results.tiny_toy;
    expect(r['nrm_theta,none']).toBe(res.theta);
    const l = await scoreJson(pkg, out);
    expect(l.id).toBe('sim-held-out');
    expect(l.items).toBe(res.items.length);
    expect(Math.abs(l.theta - res.theta)).toBeLessThan(1e-4);
    expect(Math.abs(l.se - res.se)).toBeLessThan(1e-4);
    expect(Math.abs(l.predictedAccuracy.overall.accuracy - r['nrm_pred_acc,none'])).toBeLessThan(1e-4);
    expect(Math.abs(l.predictedAccuracy.overall.low - r['nrm_pred_acc_low,none'])).toBeLessThan(1e-4);
    expect(Math.abs(l.predictedAccuracy.overall.high - r['nrm_pred_acc_high,none'])).toBeLessThan(1e-4);
    expect(Math.abs(l.accuracy - r['acc,none'])).toBeLessThan(1e-9);
  }, 600_000);

  it('python nrm_adaptive.py --model dummy loads the model through the registry; llm-nrm score agrees (1e-4)', async () => {
    const out = join(tmp.dir, 'dummy-out');
    const stdout = await py([join(pkg, 'lm-eval', 'nrm_adaptive.py'), '--model', 'dummy', '--max-items', '16', '--batch', '8', '--output_path', out]);
    expect(stdout).toMatch(/from 16 items, stopped by max-items/);
    const [results] = findFiles(out, /^results_.*\.json$/);
    const doc = readJson(results!);
    expect(doc.model_name).toBe('dummy');
    expect(doc.configs.tiny_toy.metadata.bank_sha256).toBe(spawnSync('sha256sum', [join(pkg, 'bank.json')], { encoding: 'utf8' }).stdout.split(' ')[0]);
    const r = doc.results.tiny_toy;
    expect(r['nrm_items,none']).toBe(16);
    const l = await scoreJson(pkg, out);
    expect(l.items).toBe(16);
    expect(Math.abs(l.theta - r['nrm_theta,none'])).toBeLessThan(1e-4);
    expect(Math.abs(l.se - r['nrm_theta_se,none'])).toBeLessThan(1e-4);
    expect(Math.abs(l.predictedAccuracy.overall.accuracy - r['nrm_pred_acc,none'])).toBeLessThan(1e-4);
  }, 600_000);
});

/** The TypeScript engine's run on the recorded answers: every step's state (analysis' adaptiveStep, stateless). */
function tsReplay(bundle: CalibrationBundle, options: AdaptiveOptions) {
  const answers: ResponseRecord[] = [];
  const byItem = new Map(held.map((r) => [r.item, r]));
  const steps = [];
  for (;;) {
    const st = adaptiveStep(bundle, answers, options);
    steps.push(st);
    if (st.stop !== null) return steps;
    for (const id of st.next) answers.push({ model: heldOut, item: id, probs: byItem.get(id)!.probs! });
  }
}

describe('the Python selection is the TypeScript engine', () => {
  const cases: [string, string[], AdaptiveOptions][] = [
    ['the package defaults', [], {}],
    [
      'randomesque 3, seed 7, rounds of 5, two benchmarks balanced, SE 0.35',
      ['--randomesque', '3', '--seed', '7', '--batch', '5', '--se', '0.35'],
      { randomesque: 3, seed: 7, batch: 5, se: 0.35 },
    ],
  ];
  for (const [name, args, opts] of cases) {
    it(`replays the recorded answers to the same items and estimates (1e-6): ${name}`, async () => {
      const bank = readJson(join(pkg, 'bank.json'));
      const ts = tsReplay(bank.bundle as CalibrationBundle, { ...bank.adaptive, ...opts });
      const pyRun = JSON.parse(await py([join(pkg, 'lm-eval', 'nrm_adaptive.py'), '--replay', recorded, ...args]));
      expect(pyRun.steps).toHaveLength(ts.length);
      ts.forEach((s, n) => {
        const p = pyRun.steps[n];
        expect(p.answered).toBe(s.answered);
        expect(p.next).toEqual(s.next);
        expect(p.stop).toBe(s.stop);
        expect(Math.abs(p.theta - s.theta)).toBeLessThan(1e-6);
        expect(Math.abs(p.se - s.se)).toBeLessThan(1e-6);
        expect(Math.abs(p.sharpness - s.sharpness)).toBeLessThan(1e-6);
      });
      // Randomesque draws do change the items (the random path was taken, and taken alike).
      if ((opts.randomesque ?? 1) > 1)
        expect(ts.flatMap((s) => s.next)).not.toEqual(tsReplay(bank.bundle as CalibrationBundle, bank.adaptive).flatMap((s) => s.next));
      // Both benchmarks asked, and the run long enough to have made choices.
      expect(new Set(ts.flatMap((s) => s.next).map((id) => (Number(id.replace(/\D/g, '')) % 2 ? 'odd' : 'even'))).size).toBe(2);
      expect(ts.length).toBeGreaterThan(3);
    }, 600_000);
  }
});

// Inspect cannot be installed here: a stand-in inspect_ai with the names the runner imports (their
// signatures as in inspect_ai's source, src/inspect_ai/_eval/task/sample_source.py, 0.3.250 on), and
// samples completed as Inspect logs them (ANSWER: <letter>, the letter's top logprobs), out of order.
const STUB: Record<string, string> = {
  '__init__.py': [
    'class SampleSource:',
    '    def initial_samples(self):',
    '        return []',
    '    async def next_samples(self):',
    '        return None',
    '    async def sample_complete(self, sample):',
    '        return None',
    'class Task:',
    '    def __init__(self, dataset=None, solver=None, scorer=None, config=None, metadata=None):',
    '        self.dataset, self.solver, self.scorer, self.config, self.metadata = dataset, solver, scorer, config, metadata',
    'def task(f):',
    '    return f',
    '',
  ].join('\n'),
  'dataset.py': 'class Sample:\n    def __init__(self, **kw):\n        self.__dict__.update(kw)\n',
  'model.py': 'class GenerateConfig:\n    def __init__(self, **kw):\n        self.__dict__.update(kw)\n',
  'scorer.py': 'def choice():\n    return "choice"\n',
  'solver.py': 'def multiple_choice(**kw):\n    return "multiple_choice"\n',
};

describe('the Inspect runner (a SampleSource task) asks what the TypeScript engine asks', () => {
  it("rounds returned by sample_complete, answers read from the answer letter's top logprobs: the same items and estimates (1e-6)", async () => {
    const stub = join(tmp.dir, 'inspect-stub', 'inspect_ai');
    spawnSync('mkdir', ['-p', stub]);
    for (const [f, text] of Object.entries(STUB)) writeFileSync(join(stub, f), text);
    const runner = join(pkg, 'inspect', 'tiny_toy_adaptive.py');
    expect(existsSync(runner)).toBe(true);
    const script = [
      'import asyncio, importlib.util, json, math, sys',
      `sys.path.insert(0, ${JSON.stringify(join(tmp.dir, 'inspect-stub'))})`,
      `spec = importlib.util.spec_from_file_location("runner", ${JSON.stringify(runner)})`,
      'mod = importlib.util.module_from_spec(spec)',
      'spec.loader.exec_module(mod)',
      'recorded = {}',
      `for line in open(${JSON.stringify(recorded)}):`,
      '    r = json.loads(line)',
      '    recorded[r["item_id"]] = r["probs"]',
      'class O:',
      '    def __init__(self, **kw):',
      '        self.__dict__.update(kw)',
      'def logged(s):',
      '    p = recorded[s.metadata["item_id"]]',
      '    best = max(range(len(p)), key=lambda k: p[k])',
      '    top = [O(token=" " + chr(65 + k), logprob=math.log(p[k])) for k in range(len(p))]',
      '    content = [O(token="ANSWER", logprob=0.0, top_logprobs=[]), O(token=":", logprob=0.0, top_logprobs=[]),',
      '               O(token=" " + chr(65 + best), logprob=math.log(p[best]), top_logprobs=top)]',
      '    return O(id=s.id, epoch=1, choices=s.choices, metadata=s.metadata, error=None, scores={"choice": O(answer=chr(65 + best))},',
      '             output=O(choices=[O(logprobs=O(content=content))], completion="ANSWER: " + chr(65 + best)))',
      't = mod.tiny_toy_adaptive(randomesque="3", seed=7, batch=5)',
      'src = t.dataset',
      'assert t.config.logprobs and t.config.top_logprobs == 20',
      'queue = list(src.initial_samples())',
      'async def drive():',
      '    while queue:',
      '        done = queue[:]',
      '        queue.clear()',
      '        for s in reversed(done):',
      '            more = await src.sample_complete(logged(s))',
      '            if more:',
      '                queue.extend(more)',
      '    return await src.next_samples()',
      'end = asyncio.run(drive())',
      'print(json.dumps({"end": end, "steps": src.steps, "adaptive": t.metadata["adaptive"]}))',
    ].join('\n');
    const run = JSON.parse((await py(['-c', script])).trim().split('\n').pop()!);
    expect(run.end).toBeNull();
    expect(run.adaptive).toMatchObject({ randomesque: 3, seed: 7, batch: 5, se: 0.3 });
    const bank = readJson(join(pkg, 'bank.json'));
    const ts = tsReplay(bank.bundle as CalibrationBundle, { ...bank.adaptive, randomesque: 3, seed: 7, batch: 5 });
    expect(run.steps).toHaveLength(ts.length);
    ts.forEach((s, n) => {
      const p = run.steps[n];
      expect(p.next).toEqual(s.next);
      expect(p.stop).toBe(s.stop);
      expect(Math.abs(p.theta - s.theta)).toBeLessThan(1e-6);
      expect(Math.abs(p.se - s.se)).toBeLessThan(1e-6);
    });
    // Several rounds, each chosen after the last sample of the one before completed.
    expect(ts.length).toBeGreaterThan(3);
  }, 600_000);
});

describe('an adaptive package of multiple-input items (the winogrande fixture)', () => {
  it("asks lm_eval's own requests of the exported task (per-option contexts, one continuation); llm-nrm score agrees with a --model dummy run (1e-4)", async () => {
    const { fixture } = await import('@llm-nrm/tooling/test');
    const { readLmEvalHarness } = await import('@llm-nrm/adapters');
    const all: ResponseRecord[] = [];
    for await (const r of readLmEvalHarness(fixture('lm-eval-harness/lm-eval-pr1567-slurmevals'))) all.push(r);
    const calib = write(
      'wino-calib.jsonl',
      all.filter((r) => r.model !== 'mistral'),
    );
    const bundle = join(tmp.dir, 'wino-bundle.json');
    expect((await runCli(['fit', calib, '-o', bundle, '-q'])).code).toBe(0);
    const dir = join(tmp.dir, 'adaptive-wino');
    const pub = await runCli(['publish', bundle, '--responses', calib, '--adaptive', '--name', 'wino', '--harness', 'lm-eval', '-o', dir, '-q']);
    expect(pub.code, pub.err).toBe(0);
    const lmEvalDir = join(dir, 'lm-eval');
    const script = [
      'import json, sys',
      `sys.path.insert(0, ${JSON.stringify(lmEvalDir)})`,
      'import nrm_adaptive, nrm_lmeval',
      'from lm_eval.tasks import TaskManager',
      `task = TaskManager(include_path=${JSON.stringify(lmEvalDir)}).load_task_or_group(["tiny_wino"])["tiny_wino"]`,
      'task.build_all_requests(rank=0, world_size=1)',
      'built = {}',
      'for inst in task.instances:',
      '    built.setdefault(inst.doc["item_id"], []).append((inst.idx, list(inst.arguments)))',
      'docs = nrm_lmeval._docs()',
      'ours = {d["item_id"]: [list(a) for a in nrm_adaptive.requests(d)] for d in docs}',
      'print(json.dumps({"multiple_input": all(d.get("contexts") is not None for d in docs), "items": len(ours),',
      '                  "same": len(built) == len(ours) and all([a for _, a in sorted(built[i])] == ours[i] for i in ours)}))',
    ].join('\n');
    const check = JSON.parse((await py(['-c', script])).trim().split('\n').pop()!);
    expect(check.multiple_input).toBe(true);
    expect(check.items).toBeGreaterThan(100);
    expect(check.same).toBe(true);
    const out = join(tmp.dir, 'wino-dummy-out');
    const stdout = await py([join(lmEvalDir, 'nrm_adaptive.py'), '--model', 'dummy', '--max-items', '12', '--output_path', out]);
    expect(stdout).toMatch(/from 12 items, stopped by max-items/);
    const [results] = findFiles(out, /^results_.*\.json$/);
    const r = readJson(results!).results.tiny_wino;
    const l = await scoreJson(dir, out);
    expect(l.items).toBe(12);
    expect(Math.abs(l.theta - r['nrm_theta,none'])).toBeLessThan(1e-4);
    expect(Math.abs(l.se - r['nrm_theta_se,none'])).toBeLessThan(1e-4);
  }, 600_000);
});
