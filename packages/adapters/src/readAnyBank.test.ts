// readAnyBank streams records into the bank; the bank must be the one bankFromRecords builds from
// readAnyResponses' records, bit for bit, on real harness outputs, on damaged input under
// --skip-invalid, and where item versions force the whole read.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bankFromRecords, bankRecords, simulateFleet, type ResponseBank } from '@llm-nrm/core';
import { fixture, tempDir } from '@llm-nrm/tooling/test';
import { readAnyBank } from './readAnyBank.js';
import { readAnyResponses, type ReadAnyOptions } from './readAnyResponses.js';
import type { ExpectedRecords } from './tidy/expectedRecords.js';
import { writeResponses } from './tidy/writeResponses.js';

const tmp = tempDir('llm-nrm-read-any-bank-');
afterAll(() => tmp.cleanup());

async function both(paths: string | string[], options: ReadAnyOptions = {}) {
  const input = await readAnyResponses(paths, options);
  const whole = bankFromRecords(input.records, { sources: input.sources, skipInvalid: options.skipInvalid ?? false, checked: true });
  const streamed = await readAnyBank(paths, options);
  return { input, whole, streamed };
}

/** A bank as plain arrays, so toEqual compares every number (typed arrays by value). */
const plain = (b: ResponseBank) => JSON.parse(JSON.stringify(b, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Float32Array) : v))) as unknown;

describe('readAnyBank: the bank of readAnyResponses + bankFromRecords, without keeping the records', () => {
  it('the NAEP fixture (18 real LLMs, 4 rotations): streamed, the same bank, stats and duplicates', async () => {
    const { input, whole, streamed } = await both(fixture('response-matrices/mainlp-llm-psychometrics'));
    expect(streamed.streamed).toBe(true);
    expect(streamed.bank.models.length).toBe(18);
    expect(plain(streamed.bank)).toEqual(plain(whole.bank));
    expect(streamed.stats).toEqual(whole.stats);
    expect(streamed.duplicates).toEqual(input.duplicates);
    expect(streamed.summary.records).toBe(input.summary.records);
  });

  it('a tidy file with a damaged line and a duplicated row under skipInvalid: the same bank, skips and duplicates', async () => {
    const file = join(tmp.dir, 'damaged.jsonl');
    const rows = [
      { model: 'a', item: 'q1', key: 0, probs: [0.7, 0.3] },
      { model: 'a', item: 'q2', key: 1, probs: [0.2, 0.8] },
      { model: 'b', item: 'q1', key: 0, probs: [0.4, 0.6] },
      { model: 'b', item: 'q2', key: 1, probs: [0.1, 0.9] },
      { model: 'b', item: 'q2', key: 1, probs: [0.3, 0.7] }, // a repeat: a replicate, reported
    ];
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n{"model": "b", "item": broken\n');
    const { input, whole, streamed } = await both(file, { skipInvalid: true });
    expect(streamed.streamed).toBe(true);
    expect(plain(streamed.bank)).toEqual(plain(whole.bank));
    expect(streamed.stats).toEqual(whole.stats);
    expect(streamed.summary.skipped.length).toBe(1);
    expect(streamed.summary.skipped[0]!.line).toBe(6);
    expect(streamed.duplicates).toEqual({ count: 1, examples: [{ model: 'b', item: 'q2', rows: 2 }] });
    expect(streamed.duplicates).toEqual(input.duplicates);
  });

  it('an id naming two contents: the whole read (split ids), the same bank and conflicts as readAnyResponses', async () => {
    const file = join(tmp.dir, 'versions.jsonl');
    const rows = [
      { model: 'a', item: 'q1', key: 0, options: ['x', 'y'], probs: [0.7, 0.3] },
      { model: 'b', item: 'q1', key: 0, options: ['x', 'y'], probs: [0.6, 0.4] },
      { model: 'a', item: 'q1', key: 1, options: ['u', 'v', 'w'], probs: [0.2, 0.5, 0.3] },
      { model: 'b', item: 'q1', key: 1, options: ['u', 'v', 'w'], probs: [0.1, 0.8, 0.1] },
    ];
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const { input, whole, streamed } = await both(file);
    expect(streamed.streamed).toBe(false);
    expect(streamed.bank.items.map((i) => i.id)).toEqual(whole.bank.items.map((i) => i.id));
    expect(streamed.bank.items.length).toBe(2);
    expect(plain(streamed.bank)).toEqual(plain(whole.bank));
    expect(streamed.itemVersions).toEqual(input.itemVersions);
  });

  it('scoring against fixed items: records of other items skipped with their file and line', async () => {
    const file = join(tmp.dir, 'score.jsonl');
    writeFileSync(file, '{"model":"n","item":"q1","key":0,"probs":[0.5,0.5]}\n{"model":"n","item":"q9","key":0,"probs":[0.5,0.5]}\n');
    const got = await readAnyBank(file, { skipInvalid: true, items: [{ id: 'q1', key: 0, nOptions: 2 }] });
    expect(got.streamed).toBe(true);
    expect(got.stats.skipped).toBe(1);
    expect(got.stats.skippedReasons[0]).toMatch(/score\.jsonl:2.*not in the calibrated bank/);
    expect(got.bank.items.map((i) => i.id)).toEqual(['q1']);
  });

  it('stops at the first invalid record without skipInvalid, naming file and line', async () => {
    const file = join(tmp.dir, 'bad.jsonl');
    writeFileSync(file, '{"model":"a","item":"q1","key":0,"probs":[0.5,0.5]}\n{"model":"a","item":"q2","key":5,"probs":[0.5,0.5]}\n');
    await expect(readAnyBank(file)).rejects.toThrow(/bad\.jsonl:2.*key out of range/);
  });
});

describe('readAnyBank: progress of a long read', () => {
  it('reports the records taken, with the count a Parquet footer gives and a JSON Lines estimate', async () => {
    const fleet = simulateFleet({ models: 30, items: 400, seed: 3 });
    const records = [...bankRecords(fleet.bank)];
    const parquet = join(tmp.dir, 'progress.parquet');
    const jsonl = join(tmp.dir, 'progress.jsonl');
    await writeResponses(records, parquet, { batchSize: 1000 });
    await writeResponses(records, jsonl);
    for (const [file, exact] of [
      [parquet, true],
      [jsonl, false],
    ] as const) {
      const seen: { records: number; expected: ExpectedRecords | undefined }[] = [];
      const read = await readAnyBank(file, { onProgress: (p) => seen.push(p) });
      expect(read.bank.models.length).toBe(30);
      expect(seen.length).toBeGreaterThan(1);
      for (let i = 1; i < seen.length; i++) expect(seen[i]!.records).toBeGreaterThan(seen[i - 1]!.records);
      expect(seen.at(-1)!.records).toBe(records.length);
      const expected = seen[0]!.expected!;
      expect(expected.exact).toBe(exact);
      // Simulated lines differ in length (5.8 options on average): the estimate is near, not equal.
      if (exact) expect(expected.records).toBe(records.length);
      else expect(Math.abs(expected.records / records.length - 1)).toBeLessThan(0.1);
    }
    // A harness folder tells no count without a read: progress without a share.
    const seen: (ExpectedRecords | undefined)[] = [];
    await readAnyBank(fixture('response-matrices/mainlp-llm-psychometrics'), { onProgress: (p) => seen.push(p.expected) });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((e) => e === undefined)).toBe(true);
  });
});
