import { describe, expect, it } from 'vitest';
import { bankFromRecords, correctness, hardenBank } from './bank.js';
import { recordContentSha256 } from './itemContent.js';
import { parseResponseRecord } from '../record/parseResponseRecord.js';
import { LlmNrmError } from '../errors.js';
import type { ResponseRecord } from '../model/types.js';

const rec = (model: string, item: string, r: Partial<ResponseRecord>): ResponseRecord => ({ model, item, key: 0, ...r });

describe('bankFromRecords', () => {
  it('builds ragged columns, normalises probabilities and softmaxes logprobs', () => {
    const { bank, stats } = bankFromRecords([
      rec('m1', 'i1', { probs: [2, 1, 1] }),
      rec('m1', 'i2', { logprobs: [0, Math.log(3)], key: 1 }),
      rec('m2', 'i1', { choice: 2 }),
      rec('m2', 'i2', { choice: null, nOptions: 2, key: 1 }),
    ]);
    expect(bank.models).toEqual(['m1', 'm2']);
    expect(Array.from(bank.itemOffsets)).toEqual([0, 3, 5]);
    expect(bank.kMax).toBe(3);
    expect(Array.from(bank.q.subarray(0, 5))).toEqual([0.5, 0.25, 0.25, 0.25, 0.75]);
    expect(Array.from(bank.q.subarray(5, 8))).toEqual([0, 0, 1]);
    expect(Array.from(bank.observed)).toEqual([1, 1, 1, 0]);
    expect(stats).toMatchObject({ soft: 2, hard: 1, missingAnswers: 1, cells: 3 });
    expect(Array.from(correctness(bank))).toEqual([1, 1, 0, 255]);
    expect(Array.from(hardenBank(bank).q.subarray(0, 5))).toEqual([1, 0, 0, 0, 1]);
  });

  it('keeps rotations apart as columns that share item parameters', () => {
    const { bank } = bankFromRecords([
      rec('m', 'i', { probs: [0.7, 0.2, 0.1] }),
      rec('m', 'i', { probs: [0.6, 0.3, 0.1], position: [1, 2, 0] }),
      rec('m', 'i', { probs: [0.5, 0.3, 0.2], position: [1, 2, 0] }),
    ]);
    expect(bank.items.length).toBe(1);
    expect(Array.from(bank.colItem)).toEqual([0, 0, 0]);
    expect(Array.from(bank.colPosition!)).toEqual([0, 1, 2, 1, 2, 0, 1, 2, 0]);
  });

  it.each([
    [{ probs: [0.5, -0.1, 0.6] }, 'INVALID_PROBS', 'invalid probability at option 1: -0.1'],
    [{ probs: [0, 0, 0] }, 'INVALID_PROBS', 'sum to 0'],
    [{ probs: [NaN, 1, 0] }, 'INVALID_PROBS', 'option 0'],
    [{ probs: [1, 0, 0], key: 3 }, 'INVALID_KEY', 'key out of range: 3'],
    [{ probs: [1] }, 'INVALID_OPTIONS', 'invalid option count: 1'],
    [{ logprobs: [-Infinity, -Infinity] }, 'INVALID_PROBS', 'every logprob is -Infinity'],
    [{ probs: [1, 0], choice: 1 }, 'INVALID_RECORD', 'exactly one'],
  ])('rejects %j with a located message', (bad, code, text) => {
    const records = [rec('m', 'ok', { probs: [1, 0] }), rec('m', 'bad', bad as Partial<ResponseRecord>)];
    try {
      bankFromRecords(records, { file: 'responses.jsonl' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(LlmNrmError);
      expect((e as LlmNrmError).code).toBe(code);
      expect((e as LlmNrmError).message).toContain('responses.jsonl:2');
      expect((e as LlmNrmError).message).toContain(text);
    }
  });

  it('counts and skips invalid records when asked, losing nothing silently', () => {
    const { bank, stats } = bankFromRecords([rec('m', 'a', { probs: [1, 0] }), rec('m', 'b', { probs: [-1, 2] }), rec('m', 'c', { probs: [0.2, 0.8] })], {
      skipInvalid: true,
    });
    expect(bank.items.map((i) => i.id)).toEqual(['a', 'c']);
    expect(stats.skipped).toBe(1);
    expect(stats.skippedReasons[0]).toContain('line 2');
  });

  it('names a model with no observed cell, or drops it under dropEmpty', () => {
    const records = [rec('m1', 'a', { probs: [1, 0] }), rec('m2', 'a', { choice: null, nOptions: 2 })];
    expect(() => bankFromRecords(records)).toThrow(/model "m2" has no observed cell/);
    const { bank, stats } = bankFromRecords(records, { dropEmpty: true });
    expect(bank.models).toEqual(['m1']);
    expect(stats.droppedModels).toEqual(['m2']);
  });
});

describe('bankFromRecords does not depend on the order of the rows', () => {
  it('gives the same bank, and the same fit to 1e-9, for shuffled rows', async () => {
    const { simulateFleet, bankRecords } = await import('../simulate/simulate.js');
    const { fit } = await import('../fit/fit.js');
    const { randomSource, shuffleInPlace } = await import('../simulate/random.js');
    const fleet = simulateFleet({ models: 8, items: 30, seed: 11 });
    // Each record says where it came from differently (its own file), as real merged inputs do.
    const rows = [...bankRecords(fleet.bank)].map((r, t) => ({ ...r, source: { harness: 'sim', docId: `row-${t % 7}` } }));
    const a = bankFromRecords(rows).bank;
    const b = bankFromRecords(shuffleInPlace(rows.slice(), randomSource(5))).bank;
    expect(b).toStrictEqual(a);
    expect(a.models).toEqual([...a.models].sort());
    expect(a.items.map((it) => it.id).slice(0, 3)).toEqual(['sim/0', 'sim/1', 'sim/2']);
    const fa = fit(a, { maxIterations: 60 });
    const fb = fit(b, { maxIterations: 60 });
    for (let t = 0; t < fa.x.length; t++) expect(Math.abs(fa.x[t]! - fb.x[t]!)).toBeLessThanOrEqual(1e-9);
  });

  it('sorts ids with numbers by value, locale-free, equal ids in input order', async () => {
    const { naturalOrder } = await import('./bank.js');
    const sorted = (ids: string[]) => naturalOrder(ids).map((i) => ids[i]);
    expect(sorted(['mmlu/10', 'mmlu/02', 'a', 'mmlu/1b', 'B', 'mmlu/2'])).toEqual(['B', 'a', 'mmlu/1b', 'mmlu/2', 'mmlu/02', 'mmlu/10']);
    expect(sorted(['mmlu/10', 'mmlu/2', 'arc/1'])).toEqual(['arc/1', 'mmlu/2', 'mmlu/10']);
    expect(naturalOrder(['b', 'a/2', 'b', 'a/02', 'a/2'])).toEqual([1, 4, 3, 0, 2]);
  });
});

describe('bankFromRecords on records a reader already checked (checked: true)', () => {
  // Replicates in and out of content order, a rotation, a missing answer, items with texts (one
  // edited: the bank keeps the least content hash, whichever record comes first).
  const texts = { prompt: 'Q?', continuations: [' a', ' b', ' c'] };
  const records = [
    rec('m1', 'i', { probs: [0.7, 0.2, 0.1], ...texts }),
    rec('m1', 'i', { probs: [0.6, 0.3, 0.1], ...texts }),
    rec('m1', 'i', { probs: [0.5, 0.3, 0.2], position: [1, 2, 0], ...texts }),
    rec('m1', 'i', { probs: [0.4, 0.3, 0.3], position: [1, 2, 0], ...texts }),
    rec('m2', 'i', { probs: [0.2, 0.2, 0.6], ...texts }),
    rec('m2', 'j', { logprobs: [0, -1], key: 1, prompt: 'P', continuations: [' x', ' y'] }),
    rec('m1', 'j', { choice: 0, key: 1, prompt: 'P', continuations: [' x', ' z'] }),
    rec('m3', 'j', { choice: null, nOptions: 2, key: 1 }),
    rec('m3', 'i', { choice: 2 }),
    rec('m2', 'i', { probs: [0.1, 0.1, 0.8] }),
  ].map((r) => parseResponseRecord(r));

  it('builds the same bank as checking them again, replicates and content hashes included', () => {
    const a = bankFromRecords(records);
    const b = bankFromRecords(records, { checked: true });
    expect(b).toEqual(a);
    expect(Array.from(a.bank.colItem)).toEqual([0, 0, 0, 0, 1]);
    const least = [recordContentSha256(records[5]!)!, recordContentSha256(records[6]!)!].sort()[0];
    expect(a.bank.items[1]!.contentSha256).toBe(least);
    // The same items whatever the order of the rows (the hash cache keys on the texts, not the order;
    // replicates, in order of appearance, do depend on it).
    expect(bankFromRecords([...records].reverse(), { checked: true }).bank.items).toEqual(a.bank.items);
  });

  it('still refuses what only the bank can see, naming the line', () => {
    const bad = [...records, parseResponseRecord(rec('m4', 'i', { probs: [0.5, 0.5], key: 0 }))];
    expect(() => bankFromRecords(bad, { checked: true, file: 'r.jsonl' })).toThrow(/r\.jsonl:11.*has 2 options here but 3 elsewhere/);
  });
});
