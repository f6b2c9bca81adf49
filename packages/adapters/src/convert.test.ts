// convertPaths end to end over the real fixtures, through the real readers: every harness folder
// converts, the summary counts what was read, and what a reader skipped is listed with a reason.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResponseRecord } from '@llm-nrm/core';
import { fixture, fixturesDir, tempDir } from '@llm-nrm/tooling/test';
import { writeFileSync } from 'node:fs';
import { READERS, convertPaths } from './convert.js';
import { readResponses } from './tidy/readResponses.js';
import { writeResponses } from './tidy/writeResponses.js';

async function all(gen: AsyncIterable<ResponseRecord>): Promise<ResponseRecord[]> {
  const out: ResponseRecord[] = [];
  for await (const r of gen) out.push(r);
  return out;
}

describe('convertPaths', () => {
  const tmp = tempDir('llm-nrm-convert-');
  afterAll(() => tmp.cleanup());

  it('converts the HELM runs: hard answers per model, the generation run skipped with a reason', async () => {
    const { records, summary } = convertPaths([fixture('helm/every_eval_ever')]);
    const got = await all(records);
    expect(summary.inputs).toEqual([{ path: fixture('helm/every_eval_ever'), format: 'helm' }]);
    expect(got.length).toBe(summary.records);
    expect(got.length).toBe(20);
    expect(summary.byModelBenchmark.map((r) => r.items)).toEqual([10, 10]);
    expect(summary.byModelBenchmark.every((r) => r.soft === 0 && r.hard + r.missing === r.items)).toBe(true);
    expect(summary.skipped.some((s) => s.file.includes('narrative_qa'))).toBe(true);
  });

  it('converts the NAEP rotations: soft logprobs with displayed positions, 4 per item', async () => {
    const { records, summary } = convertPaths([fixture('response-matrices/mainlp-llm-psychometrics')]);
    const got = await all(records);
    expect(summary.inputs[0]!.format).toBe('naep-rotations');
    expect(got.every((r) => r.logprobs !== undefined && r.position !== undefined)).toBe(true);
    const models = new Set(got.map((r) => r.model));
    expect(models.size).toBeGreaterThanOrEqual(18);
    const row = summary.byModelBenchmark[0]!;
    expect(row.soft).toBe(row.items * 4);
  });

  it('converts every fixture folder in one call, each through its own reader', async () => {
    // Two lm-eval files hold records broken across lines: damage, an error naming file and line...
    await expect(all(convertPaths([fixturesDir], { score: 'chars' }).records)).rejects.toThrow(
      /samples_bbh_cot_fewshot_boolean_expressions_.*\.jsonl:6: record broken across lines 6-10/,
    );
    // ...and listed, the rest converted, under skipInvalid.
    const { records, summary } = convertPaths([fixturesDir], { score: 'chars', skipInvalid: true });
    let n = 0;
    for await (const _ of records) n++;
    expect(n).toBe(summary.records);
    expect(new Set(summary.inputs.map((i) => i.format))).toEqual(new Set(['helm', 'inspect', 'lm-eval-harness', 'openai-evals', 'naep-rotations']));
    const benches = new Set(summary.byModelBenchmark.map((r) => r.benchmark));
    expect(benches.size).toBeGreaterThan(5);
    // The OpenAI-evals log holds no events: listed, not an error.
    expect(summary.skipped.some((s) => s.file.includes('oriprompt'))).toBe(true);
    expect(summary.skipped.every((s) => s.reason.length > 0)).toBe(true);
  });

  it('reads its own tidy output back (the tidy reader is a Reader too), with --model override', async () => {
    const path = join(tmp.dir, 'helm.jsonl');
    const first = convertPaths([fixture('helm/every_eval_ever')]);
    await writeResponses(first.records, path);
    const again = convertPaths([path], { model: 'renamed' });
    const got = await all(again.records);
    expect(again.summary.inputs[0]!.format).toBe('tidy');
    expect(got).toHaveLength(20);
    expect(got.every((r) => r.model === 'renamed')).toBe(true);
    expect((await all(readResponses(path))).length).toBe(20);
  });

  it('refuses a NAEP file given alone, and no paths at all', async () => {
    const file = fixture('response-matrices/mainlp-llm-psychometrics/data/output/naep-history-items.jsonl');
    await expect(all(convertPaths([file]).records)).rejects.toThrow(/pass that folder/);
    expect(() => convertPaths([])).toThrow(/no input paths/);
  });

  it('stops at a bad tidy line naming file and line, or lists it under skipInvalid', async () => {
    const path = join(tmp.dir, 'bad.jsonl');
    writeFileSync(path, ['{"model":"m","item":"b/1","key":0,"probs":[0.5,0.5]}', '{"model":"m","item":"b/2","key":3,"probs":[0.5,0.5]}'].join('\n'));
    await expect(all(convertPaths([path]).records)).rejects.toMatchObject({ code: 'INVALID_KEY', file: path, line: 2 });
    const { records, summary } = convertPaths([path], { skipInvalid: true });
    expect(await all(records)).toHaveLength(1);
    expect(summary.skipped).toEqual([{ file: path, line: 2, reason: 'key out of range: 3 (2 options)' }]);
    expect(summary.byModelBenchmark).toEqual([{ model: 'm', benchmark: 'b', items: 1, hard: 0, soft: 1, missing: 0, meanLeakage: null }]);
  });

  it('counts the distinct items of each (model, benchmark), over hundreds of items, repeats and interleaved models', async () => {
    const path = join(tmp.dir, 'tallies.jsonl');
    const lines: string[] = [];
    // Model m1 answers items 0-299 of benchmark a (item 7 three times), m2 every third of them and
    // 5 of b, the two models' rows interleaved.
    for (let i = 0; i < 300; i++) {
      for (let rep = 0; rep < (i === 7 ? 3 : 1); rep++) lines.push(JSON.stringify({ model: 'm1', item: `a/${i}`, key: 0, probs: [0.6, 0.4] }));
      if (i % 3 === 0) lines.push(JSON.stringify({ model: 'm2', item: `a/${i}`, key: 0, choice: 1 }));
      if (i < 5) lines.push(JSON.stringify({ model: 'm2', item: `b/${i}`, key: 0, choice: null, nOptions: 2 }));
    }
    writeFileSync(path, lines.join('\n') + '\n');
    const { records, summary } = convertPaths([path]);
    const got = await all(records);
    // The counts a Set of ids per (model, benchmark) gives.
    const sets = new Map<string, Set<string>>();
    for (const r of got) {
      const k = `${r.model} ${r.item.split('/')[0]}`;
      sets.set(k, (sets.get(k) ?? new Set()).add(r.item));
    }
    expect(summary.byModelBenchmark.map((r) => [r.model, r.benchmark, r.items])).toEqual([
      ['m1', 'a', 300],
      ['m2', 'a', 100],
      ['m2', 'b', 5],
    ]);
    expect(summary.byModelBenchmark.map((r) => r.items)).toEqual([...sets.values()].map((s) => s.size).sort((a, b) => b - a));
    expect(summary.byModelBenchmark.map((r) => r.hard + r.soft + r.missing)).toEqual([302, 100, 5]);
  });

  it('checks what a reader yields: a bad record stops the run or is listed under skipInvalid', async () => {
    const saved = READERS.tidy;
    async function* fake(): AsyncGenerator<ResponseRecord> {
      yield { model: 'm', item: 'x/1', key: 0, probs: [0.2, 0.8], leakage: 0.25 };
      yield { model: 'm', item: 'x/2', key: 0, probs: [0.2, Number.NaN] };
      yield { model: 'm', item: 'x/3', key: 1, choice: null, nOptions: 2, leakage: 0.75 };
    }
    READERS.tidy = async () => fake;
    try {
      const path = join(tmp.dir, 'bad.jsonl');
      await expect(all(convertPaths([path]).records)).rejects.toThrow(
        /invalid record from the tidy reader \(item "x\/2"\): invalid probability at option 1: NaN/,
      );
      const { records, summary } = convertPaths([path], { skipInvalid: true });
      expect(await all(records)).toHaveLength(2);
      expect(summary.skipped).toHaveLength(1);
      expect(summary.byModelBenchmark).toEqual([{ model: 'm', benchmark: 'x', items: 2, hard: 0, soft: 1, missing: 1, meanLeakage: 0.5 }]);
    } finally {
      READERS.tidy = saved;
    }
  });
});
