import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bankRecords, simulateFleet, type ResponseRecord } from '@llm-nrm/core';
import { recordDistribution } from '@llm-nrm/core/engine';
import { expectArraysClose, tempDir } from '@llm-nrm/tooling/test';
import { newReport } from '../reader.js';
import { readLmEvalHarness } from './readLmEvalHarness.js';
import { writeLmEvalHarness } from './writeLmEvalHarness.js';

const tmp = tempDir('llm-nrm-lmeval-write-');
afterAll(() => tmp.cleanup());

async function read(path: string): Promise<ResponseRecord[]> {
  const out: ResponseRecord[] = [];
  const report = newReport();
  for await (const r of readLmEvalHarness(path, { report })) out.push(r);
  expect(report.skipped).toEqual([]);
  return out;
}

describe('writeLmEvalHarness', () => {
  it('round-trips a simulated fleet (soft, hard and missing) through the reader, probabilities to 1e-6', async () => {
    const fleet = simulateFleet({ models: 4, items: 60, seed: 7, hard: 0.2, missing: 0.1 });
    const records = [...bankRecords(fleet.bank)];
    records.push({ model: 'm/with:odd|name', item: 'extra/1', benchmark: 'extra', key: 0, choice: null, nOptions: 3 });
    const out = join(tmp.dir, 'fleet');
    const res = await writeLmEvalHarness(records, out, { date: new Date(Date.UTC(2024, 11, 23, 14, 36, 36, 300)) });
    expect(res.records).toBe(records.length);
    expect(res.files.some((f) => f.endsWith('m__with__odd__name/samples_extra_2024-12-23T14-36-36.300000.jsonl'))).toBe(true);
    // No temporary files left behind.
    for (const d of readdirSync(out)) expect(readdirSync(join(out, d)).filter((n) => n.startsWith('.'))).toEqual([]);
    // Every leaf a string, like real v0.4.3+ files.
    const first = JSON.parse(readFileSync(res.files[0]!, 'utf8').split('\n')[0]!);
    const leaf = first.filtered_resps ? first.filtered_resps[0] : first.filtered_resps;
    expect(leaf.every((x: unknown) => typeof x === 'string')).toBe(true);

    const back = await read(out);
    expect(back.length).toBe(records.length);
    const byKey = new Map(back.map((r) => [`${r.model}\u0000${r.item}`, r]));
    for (const r of records) {
      const b = byKey.get(`${r.model}\u0000${res.itemIds.get(r.item)}`);
      expect(b, `${r.model} ${r.item}`).toBeDefined();
      expect(b!.key).toBe(r.key);
      const k = r.probs?.length ?? r.nOptions!;
      const want = recordDistribution(r, k);
      const got = recordDistribution(b!, k);
      if (want === null) expect(got).toBeNull();
      else expectArraysClose(got!.probs, want.probs, { atol: 1e-6, rtol: 0 });
    }
  });

  it('keeps option texts and reports positions it cannot represent', async () => {
    const recs: ResponseRecord[] = [
      { model: 'a', item: 'q/0', benchmark: 'q', key: 1, options: ['red', 'blue', 'green'], probs: [0.2, 0.7, 0.1], position: [1, 2, 0] },
      { model: 'a', item: 'q/5', benchmark: 'q', key: 0, options: ['x', 'y'], logprobs: [-Infinity, 0] },
    ];
    const out = join(tmp.dir, 'texts');
    const res = await writeLmEvalHarness(recs, out, { date: '2025-01-01T00-00-00.000001' });
    expect(res.notes[0]).toMatch(/1 records had a display order/);
    const back = await read(out);
    expect(back.map((r) => [r.item, r.options, r.key])).toEqual([
      ['q/0', ['red', 'blue', 'green'], 1],
      ['q/5', ['x', 'y'], 0],
    ]);
    expect(back[1]!.logprobs![0]).toBe(-Infinity);
    const results = JSON.parse(readFileSync(join(out, 'a', 'results_2025-01-01T00-00-00.000001.json'), 'utf8'));
    expect(results.model_name).toBe('a');
    expect(results['n-samples'].q).toEqual({ original: 2, effective: 2 });
  });

  it('writes a multiple-input tiny item as lm-eval requests it, and reads its contexts back', async () => {
    const rec: ResponseRecord = {
      model: 'a',
      item: 'wino/7',
      benchmark: 'winogrande',
      key: 1,
      options: ['Sarah ran.', 'Maria ran.'],
      logprobs: [-4.5, -3.25],
      contexts: ['Few-shot.\n\nSarah', 'Few-shot.\n\nMaria'],
      continuations: [' ran.', ' ran.'],
    };
    const out = join(tmp.dir, 'multi');
    const res = await writeLmEvalHarness([rec], out, { tinyTask: 'tiny_wino', date: '2025-01-01T00-00-00.000001' });
    const sample = JSON.parse(readFileSync(res.files[0]!, 'utf8').split('\n')[0]!);
    // (context_i, continuation) pairs and the shared continuation as the target, as lm_eval 0.4.13 logs a multiple-input task.
    expect(sample.arguments).toEqual({
      gen_args_0: { arg_0: 'Few-shot.\n\nSarah', arg_1: ' ran.' },
      gen_args_1: { arg_0: 'Few-shot.\n\nMaria', arg_1: ' ran.' },
    });
    expect(sample.target).toBe(' ran.');
    const [back] = await read(out);
    expect(back!.item).toBe('wino/7');
    expect(back!.key).toBe(1);
    expect(back!.contexts).toEqual(rec.contexts);
    expect(back!.continuations).toEqual(rec.continuations);
    expect(back!.prompt).toBeUndefined();
    expectArraysClose(recordDistribution(back!, 2)!.probs, recordDistribution(rec, 2)!.probs, { atol: 1e-9, rtol: 0 });
  });
});
