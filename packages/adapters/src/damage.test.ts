// The damage rule, on damaged copies of the real fixtures made here in a temp folder: damage stops
// the conversion naming file, line and reason; under skipInvalid the rest is read and the loss is
// listed; nothing usable is always an error.
import { copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResponseRecord } from '@llm-nrm/core';
import { fixture, tempDir } from '@llm-nrm/tooling/test';
import { convertPaths } from './convert.js';
import { issueKind } from './reader.js';

const tmp = tempDir('llm-nrm-damage-');
afterAll(() => tmp.cleanup());

async function all(gen: AsyncIterable<ResponseRecord>): Promise<ResponseRecord[]> {
  const out: ResponseRecord[] = [];
  for await (const r of gen) out.push(r);
  return out;
}

const GPT4O = fixture('lm-eval-harness/kt-lm-evaluation-harness/output/gpt-4o/samples_winogrande_2024-12-23T14-29-31.806745.jsonl');
const HELM = fixture('helm/every_eval_ever');
const MMLU_RUN = 'mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2';
const HELLASWAG_RUN = 'commonsense-dataset=hellaswag,method=multiple_choice_joint,model=eleutherai_pythia-1b-v0';

describe('damage is an error unless skipInvalid, and never silent', () => {
  it('a cut samples_*.jsonl.gz: stops naming the file; with skipInvalid converts the rest and lists the loss', async () => {
    const full = await all(convertPaths([GPT4O]).records);
    const dir = join(tmp.dir, 'cut-gz');
    mkdirSync(dir);
    const gz = gzipSync(readFileSync(GPT4O));
    const cut = join(dir, `${basename(GPT4O)}.gz`);
    writeFileSync(cut, gz.subarray(0, Math.floor(gz.length / 2)));
    await expect(all(convertPaths([cut]).records)).rejects.toMatchObject({ code: 'FORMAT', file: cut });
    const { records, summary } = convertPaths([dir], { skipInvalid: true });
    const got = await all(records);
    expect(got.length).toBeGreaterThan(0);
    expect(got.length).toBeLessThan(full.length);
    expect(summary.skipped.filter((s) => s.file === cut && issueKind(s) === 'damage')).toHaveLength(1);
  });

  it('a cut HELM scenario_state.json in a folder of runs: stops naming it; skipInvalid keeps the other run', async () => {
    const dir = join(tmp.dir, 'helm');
    for (const run of [MMLU_RUN, HELLASWAG_RUN]) cpSync(join(HELM, run), join(dir, run), { recursive: true });
    const state = join(dir, MMLU_RUN, 'scenario_state.json');
    const text = readFileSync(state, 'utf8');
    writeFileSync(state, text.slice(0, Math.floor(text.length / 2)));
    await expect(all(convertPaths([dir]).records)).rejects.toThrow(/scenario_state\.json(:\d+)?: .*--skip-invalid/);
    const { records, summary } = convertPaths([dir], { skipInvalid: true });
    expect(await all(records)).toHaveLength(10);
    expect(summary.skipped.some((s) => s.file.includes(MMLU_RUN) && issueKind(s) === 'damage')).toBe(true);
  });

  it('a corrupt .eval among good ones: stops naming it; skipInvalid reads the good one', async () => {
    const dir = join(tmp.dir, 'inspect');
    mkdirSync(dir);
    const good = fixture('inspect/inspect_ai-tests/mmlu-summary-choices.eval');
    copyFileSync(good, join(dir, 'good.eval'));
    const bytes = readFileSync(fixture('inspect/inspect_ai-tests/mmlu-no-summary-choices.eval'));
    writeFileSync(join(dir, 'bad.eval'), bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    await expect(all(convertPaths([dir]).records)).rejects.toMatchObject({ file: join(dir, 'bad.eval') });
    const { records, summary } = convertPaths([dir], { skipInvalid: true });
    expect((await all(records)).length).toBeGreaterThan(0);
    expect(summary.skipped.map((s) => s.file)).toContain(join(dir, 'bad.eval'));
  });

  it('--filter naming no filter of the file is an error, not an empty success', async () => {
    await expect(all(convertPaths([GPT4O], { filter: 'no-such-filter' }).records)).rejects.toThrow(/no samples with filter 'no-such-filter'/);
  });

  it('nothing usable is an error even under skipInvalid (a generation-only HELM run)', async () => {
    const run = join(HELM, 'narrative_qa-model=openai_gpt2');
    for (const skipInvalid of [false, true]) {
      await expect(all(convertPaths([run], { skipInvalid }).records)).rejects.toMatchObject({ code: 'EMPTY' });
    }
    await expect(all(convertPaths([run]).records)).rejects.toThrow(/no usable multiple-choice response .*not a multiple-choice run/);
  });

  it('two timestamped runs of one model and task: the latest is kept and said so; replicates keep reads both', async () => {
    const dir = join(tmp.dir, 'reruns', 'gpt-4o');
    mkdirSync(dir, { recursive: true });
    const later = join(dir, 'samples_winogrande_2025-01-02T10-00-00.000000.jsonl');
    copyFileSync(GPT4O, join(dir, basename(GPT4O)));
    copyFileSync(GPT4O, later);
    const one = await all(convertPaths([GPT4O]).records);
    const latest = convertPaths([dir]);
    expect(await all(latest.records)).toHaveLength(one.length);
    expect(latest.summary.notes.some((n) => n.includes('2 timestamped runs; kept the latest') && n.includes(later))).toBe(true);
    expect(await all(convertPaths([dir], { replicates: 'keep' }).records)).toHaveLength(2 * one.length);
  });
});
