// Golden-file tests of readHelm over every HELM fixture run folder, plus synthetic runs for the paths
// no real fixture has (separate_* methods, pre-v0.5 top_logprobs, perturbations, trials, display-only
// folders). Goldens live in packages/adapters/test/golden/helm/; regenerate them with
// `GENERATE_GOLDEN=1 npx vitest run packages/adapters/src/helm` after checking the change is wanted.
// On a mismatch the actual output is written beside the golden as `<name>-changed.jsonl`.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { bankFromRecords, type ResponseRecord } from '@llm-nrm/core';
import { expectArraysClose, fixture, tempDir } from '@llm-nrm/tooling/test';
import { compareGolden, goldenText } from '../../test/goldenJsonl.js';
import { newReport, type ReadOptions, type ReadReport } from '../reader.js';
import { helmBenchmark, helmJointChoice, readHelm } from './readHelm.js';

const helmRoot = fixture('helm', 'every_eval_ever');
const runs = readdirSync(helmRoot, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
const tmp = tempDir('llm-nrm-helm-');
afterAll(() => tmp.cleanup());

async function collect(path: string, options: ReadOptions = {}): Promise<{ records: ResponseRecord[]; report: ReadReport }> {
  const report = newReport();
  const records: ResponseRecord[] = [];
  for await (const r of readHelm(path, { ...options, report })) records.push(r);
  return { records, report };
}

function writeJson(dir: string, name: string, value: unknown, gzip = false): void {
  mkdirSync(dir, { recursive: true });
  const text = JSON.stringify(value);
  writeFileSync(join(dir, gzip ? `${name}.gz` : name), gzip ? gzipSync(text) : text);
}

const safeName = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_');

describe('readHelm on the real fixtures (golden)', () => {
  it('finds the three fixture runs', () => {
    expect(runs).toHaveLength(3);
  });
  for (const run of runs) {
    it(`matches the golden output: ${run}`, async () => {
      const { records, report } = await collect(join(helmRoot, run));
      expect(compareGolden('helm', safeName(run), goldenText(records, report))).toBeNull();
    });
  }

  it('reads MMLU gpt2 as 10 hard answers, all " D" -> option 3', async () => {
    const run = runs.find((r) => r.startsWith('mmlu'))!;
    const { records, report } = await collect(join(helmRoot, run));
    expect(records).toHaveLength(10);
    expect(records.every((r) => r.choice === 3 && r.model === 'openai/gpt2')).toBe(true);
    expect(records[0]).toMatchObject({ item: 'mmlu:subject=philosophy/id147', benchmark: 'mmlu:subject=philosophy', key: 2 });
    expect(report.notes.join()).toMatch(/no top_logprobs/);
    // The records build a bank: 1 model x 10 items, all hard.
    const { stats } = bankFromRecords(records);
    expect(stats.hard).toBe(10);
  });

  it('skips the NarrativeQA generation run with the reason and the file', async () => {
    const run = runs.find((r) => r.startsWith('narrative_qa'))!;
    const { records, report } = await collect(join(helmRoot, run));
    expect(records).toHaveLength(0);
    expect(report.skipped).toEqual([{ file: join(helmRoot, run, 'run_spec.json'), reason: 'not a multiple-choice run (method generation)' }]);
  });

  it('reads a folder of run folders: 20 records, one skip', async () => {
    const { records, report } = await collect(fixture('helm'));
    expect(records).toHaveLength(20);
    expect(report.records).toBe(20);
    expect(report.skipped).toHaveLength(1);
  });

  it('accepts a path to scenario_state.json', async () => {
    const run = runs.find((r) => r.startsWith('commonsense'))!;
    const a = await collect(join(helmRoot, run, 'scenario_state.json'));
    const b = await collect(join(helmRoot, run));
    expect(a.records).toEqual(b.records);
  });
});

describe('readHelm on gzip input and broken batches', () => {
  it('reads gzipped run files exactly like the plain ones', async () => {
    for (const run of runs) {
      const dir = join(tmp.dir, 'gz', safeName(run));
      for (const f of ['run_spec.json', 'scenario_state.json']) {
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, `${f}.gz`), gzipSync(readFileSync(join(helmRoot, run, f))));
      }
      const plain = await collect(join(helmRoot, run));
      const gz = await collect(dir);
      expect(gz.records).toEqual(plain.records);
      expect(gz.report.skipped.map((s) => s.reason)).toEqual(plain.report.skipped.map((s) => s.reason));
    }
  });

  it('keeps the good run when a run in the batch is broken or not MCQ', async () => {
    const batch = join(tmp.dir, 'batch');
    const good = runs.find((r) => r.startsWith('mmlu'))!;
    const bad = runs.find((r) => r.startsWith('narrative_qa'))!;
    for (const run of [good, bad]) {
      mkdirSync(join(batch, run), { recursive: true });
      for (const f of ['run_spec.json', 'scenario_state.json']) writeFileSync(join(batch, run, f), readFileSync(join(helmRoot, run, f)));
    }
    mkdirSync(join(batch, 'zz_broken'), { recursive: true });
    writeFileSync(join(batch, 'zz_broken', 'scenario_state.json'), '{"adapter_spec": {"method": "multiple_choice_joint"},\n"request_states": [oops');
    const { records, report } = await collect(batch);
    expect(records).toHaveLength(10);
    expect(report.skipped).toHaveLength(2);
    expect(report.skipped[0]).toEqual({ file: join(batch, bad, 'run_spec.json'), reason: 'not a multiple-choice run (method generation)' });
    expect(report.skipped[1]).toMatchObject({ file: join(batch, 'zz_broken', 'scenario_state.json'), line: 2 });
    expect(report.skipped[1]!.reason).toMatch(/^invalid JSON/);
  });

  it('throws FORMAT naming the file when a single broken run is read directly', async () => {
    await expect(collect(join(tmp.dir, 'batch', 'zz_broken'))).rejects.toThrow(/zz_broken\/scenario_state\.json:2: invalid JSON/);
  });

  it('throws IO for a path that does not exist', async () => {
    await expect(collect(join(tmp.dir, 'nope'))).rejects.toMatchObject({ code: 'IO' });
  });
});

// Synthetic runs built from the documented schema (spec part 1.2-1.4).
function instance(id: string, options: string[], key: number, perturbation?: string) {
  return {
    input: { text: `question ${id}` },
    references: options.map((text, i) => ({ output: { text }, tags: i === key ? ['correct'] : [] })),
    split: 'test',
    id,
    ...(perturbation ? { perturbation: { name: perturbation, robustness: true, fairness: false, computed_on: 'perturbed' } } : {}),
  };
}

function runSpec(method: string) {
  return {
    name: `toy:subject=x,method=${method},model=acme_m1`,
    adapter_spec: { method, reference_prefix: 'A. ', model: 'acme/m1', model_deployment: 'acme/m1-dep' },
  };
}

describe('readHelm on synthetic runs', () => {
  it('joint with pre-v0.5 top_logprobs: soft with leakage; failures and unmapped answers missing; trials and perturbations apart', async () => {
    const dir = join(tmp.dir, 'joint-top');
    const opts = ['red', 'green', 'blue'];
    const mapping = { A: 'red', B: 'green', C: 'blue' };
    const state = (inst: object, text: string, top: Record<string, number> | undefined, trial = 0, success = true) => ({
      instance: inst,
      train_trial_index: trial,
      output_mapping: mapping,
      request: { model: 'acme/m1', prompt: '...' },
      result: { success, completions: [{ text, logprob: -0.5, tokens: [{ text, logprob: -0.5, ...(top ? { top_logprobs: top } : {}) }] }] },
      num_train_instances: 0,
      prompt_truncated: false,
    });
    writeJson(dir, 'run_spec.json', runSpec('multiple_choice_joint'));
    writeJson(dir, 'scenario_state.json', {
      adapter_spec: runSpec('multiple_choice_joint').adapter_spec,
      request_states: [
        state(instance('id1', opts, 1), ' B', { ' B': Math.log(0.6), B: Math.log(0.1), ' A': Math.log(0.2), ' the': Math.log(0.05) }),
        state(instance('id1', opts, 1), ' A', undefined, 1),
        state(instance('id1', opts, 1, 'typos'), ' C', {}),
        state(instance('id2', opts, 0), ' Z', {}),
        state(instance('id3', opts, 2), '', undefined, 0, false),
        state(instance('id4', opts, 0), 'blue', {}),
      ],
    });
    const { records, report } = await collect(dir);
    expect(records.map((r) => r.item)).toEqual([
      'toy:subject=x/id1',
      'toy:subject=x/id1',
      'toy:subject=x/id1/typos',
      'toy:subject=x/id2',
      'toy:subject=x/id3',
      'toy:subject=x/id4',
    ]);
    expect(records[0]!.model).toBe('acme/m1');
    // " B" and "B" merge: B = 0.7, A = 0.2, C unreported = 0; leakage = 1 - 0.9.
    expectArraysClose(records[0]!.probs!, [0.2 / 0.9, 0.7 / 0.9, 0]);
    expectArraysClose([records[0]!.leakage!], [0.1]);
    expect(records.slice(1).map((r) => r.choice)).toEqual([0, 2, null, null, 2]);
    const notes = report.notes.join('\n');
    expect(notes).toMatch(/1 responses from train trials > 0 kept as replicate records/);
    expect(notes).toMatch(/perturbed instances kept as separate items <benchmark>\/<id>\/<perturbation> \(typos\)/);
    // Trial replicates become separate bank columns of one item; missing answers observe nothing.
    const { bank, stats } = bankFromRecords(records, { dropEmpty: true });
    expect(bank.items.map((i) => i.id)).toEqual(['toy:subject=x/id1', 'toy:subject=x/id1/typos', 'toy:subject=x/id4']);
    expect(Array.from(bank.colItem)).toEqual([0, 0, 1, 2]);
    expect(stats).toMatchObject({ soft: 1, hard: 3, missingAnswers: 2 });
  });

  it('separate_original: softmax of summed continuation logprobs; incomplete groups skipped', async () => {
    const dir = join(tmp.dir, 'separate');
    const opts = ['yes', 'no', 'maybe'];
    // Conditioning tokens (2) are excluded; with num_conditioning_tokens > 0 a leading empty token is skipped too.
    const req = (inst: object, k: number, lps: number[]) => ({
      instance: inst,
      reference_index: k,
      request_mode: 'original',
      train_trial_index: 0,
      request: { model: 'acme/m1' },
      result: {
        success: true,
        completions: [
          {
            text: '',
            logprob: 0,
            tokens: [{ text: 'Q', logprob: -9 }, { text: ':', logprob: -9 }, { text: '', logprob: -7 }, ...lps.map((logprob) => ({ text: 't', logprob }))],
          },
        ],
      },
      num_conditioning_tokens: 2,
    });
    const a = instance('id1', opts, 0);
    const b = instance('id2', opts, 1);
    writeJson(dir, 'run_spec.json', runSpec('multiple_choice_separate_original'));
    writeJson(dir, 'scenario_state.json', {
      adapter_spec: runSpec('multiple_choice_separate_original').adapter_spec,
      request_states: [req(a, 0, [-1, -0.5]), req(a, 1, [-2]), req(a, 2, [-0.5, -0.5, -0.5]), req(b, 0, [-1]), req(b, 2, [-1])],
    });
    const { records, report } = await collect(dir);
    expect(records).toHaveLength(1);
    const s = [-1.5, -2, -1.5];
    const z = s.reduce((acc, v) => acc + Math.exp(v), 0);
    expectArraysClose(
      records[0]!.probs!,
      s.map((v) => Math.exp(v) / z),
    );
    expect(report.skipped).toEqual([{ file: join(dir, 'scenario_state.json'), reason: 'instance id2 trial 0: 2 of 3 option requests' }]);
    // Per-character scoring divides each option's score by its text length.
    const chars = await collect(dir, { score: 'chars' });
    const sc = [-1.5 / 3, -2 / 2, -1.5 / 5];
    const zc = sc.reduce((acc, v) => acc + Math.exp(v), 0);
    expectArraysClose(
      chars.records[0]!.probs!,
      sc.map((v) => Math.exp(v) / zc),
    );
  });

  it('separate_calibrated: original minus calibration logprob', async () => {
    const dir = join(tmp.dir, 'calibrated');
    const inst = instance('id9', ['up', 'down'], 1);
    const req = (k: number, mode: string, lp: number) => ({
      instance: inst,
      reference_index: k,
      request_mode: mode,
      train_trial_index: 0,
      request: {},
      result: { success: true, completions: [{ text: '', logprob: lp, tokens: [{ text: 'x', logprob: lp }] }] },
      num_conditioning_tokens: 0,
    });
    writeJson(
      dir,
      'scenario_state.json',
      {
        adapter_spec: runSpec('multiple_choice_separate_calibrated').adapter_spec,
        request_states: [req(0, 'original', -1), req(0, 'calibration', -3), req(1, 'original', -2), req(1, 'calibration', -2.5)],
      },
      true,
    );
    const { records } = await collect(dir);
    // Scores 2 and 0.5; no run_spec.json, so the benchmark falls back to the folder name.
    expectArraysClose(records[0]!.probs!, [Math.exp(2) / (Math.exp(2) + Math.exp(0.5)), Math.exp(0.5) / (Math.exp(2) + Math.exp(0.5))]);
    expect(records[0]!.item).toBe('calibrated/id9');
  });

  it('falls back to display_predictions + instances without scenario_state', async () => {
    const dir = join(tmp.dir, 'display-only');
    writeJson(dir, 'run_spec.json', runSpec('multiple_choice_joint'));
    writeJson(dir, 'instances.json', [instance('id1', ['a', 'b', 'c', 'd'], 2), instance('id2', ['a', 'b', 'c', 'd'], 0)]);
    writeJson(dir, 'display_predictions.json', [
      { instance_id: 'id1', train_trial_index: 0, predicted_text: ' C', mapped_output: 'c', stats: {} },
      { instance_id: 'id2', train_trial_index: 0, predicted_text: ' D', stats: {} },
      { instance_id: 'id3', train_trial_index: 0, predicted_text: ' A', stats: {} },
    ]);
    const { records, report } = await collect(dir);
    expect(records.map((r) => [r.item, r.key, r.choice])).toEqual([
      ['toy:subject=x/id1', 2, 2],
      ['toy:subject=x/id2', 0, 3],
    ]);
    expect(report.skipped[0]!.reason).toBe('prediction for instance id3: not in instances.json');
    expect(report.notes[0]).toMatch(/hard answers from display_predictions.json \+ instances.json/);
  });

  it('reports a run folder without scenario_state or display files', async () => {
    const dir = join(tmp.dir, 'spec-only');
    writeJson(dir, 'run_spec.json', runSpec('multiple_choice_joint'));
    const { records, report } = await collect(dir);
    expect(records).toHaveLength(0);
    expect(report.skipped[0]!.reason).toBe('no scenario_state.json, and no display_predictions.json + instances.json to fall back on');
  });
});

describe('helm helpers', () => {
  it('helmBenchmark drops method/model/augmentation arguments', () => {
    expect(helmBenchmark('mmlu:subject=philosophy,method=multiple_choice_joint,model=openai_gpt2')).toBe('mmlu:subject=philosophy');
    expect(helmBenchmark('narrative_qa:model=openai_gpt2')).toBe('narrative_qa');
    expect(helmBenchmark('plain')).toBe('plain');
  });
  it('helmJointChoice maps letters by position (duplicate texts), mapped text, then exact text', () => {
    const labels = ['A', 'B', 'C'];
    expect(helmJointChoice(' B', labels, ['x', 'x', 'y'], { A: 'x', B: 'x', C: 'y' })).toBe(1);
    expect(helmJointChoice('(C).', labels, ['x', 'z', 'y'])).toBe(2);
    expect(helmJointChoice(' z', labels, ['x', 'z', 'y'])).toBe(1);
    expect(helmJointChoice(' E', labels, ['x', 'z', 'y'])).toBeNull();
  });
});

describe('golden helper', () => {
  it('writes <name>-changed.jsonl beside the golden on a mismatch and removes it on a match', () => {
    const root = join(tmp.dir, 'golden-root');
    mkdirSync(join(root, 'helm'), { recursive: true });
    writeFileSync(join(root, 'helm', 'x.jsonl'), 'old\n');
    const saved = process.env.GENERATE_GOLDEN;
    delete process.env.GENERATE_GOLDEN;
    try {
      expect(compareGolden('helm', 'x', 'new\n', root)).toMatch(/x-changed\.jsonl/);
      expect(readFileSync(join(root, 'helm', 'x-changed.jsonl'), 'utf8')).toBe('new\n');
      expect(compareGolden('helm', 'x', 'old\n', root)).toBeNull();
      expect(readdirSync(join(root, 'helm'))).toEqual(['x.jsonl']);
      expect(compareGolden('helm', 'missing', 'a\n', root)).toMatch(/no golden file .*GENERATE_GOLDEN=1/);
    } finally {
      if (saved !== undefined) process.env.GENERATE_GOLDEN = saved;
    }
  });
});
