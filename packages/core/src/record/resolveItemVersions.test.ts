import { describe, expect, it } from 'vitest';
import { bankFromRecords } from '../data/bank.js';
import type { ResponseRecord } from '../model/types.js';
import { duplicateRows } from './duplicateRows.js';
import { resolveItemVersions } from './resolveItemVersions.js';

const rec = (model: string, r: Partial<ResponseRecord>): ResponseRecord => ({ model, item: 'mmlu_pro/7', key: 0, ...r });

describe('resolveItemVersions', () => {
  it('splits an id whose option texts differ into content-tagged ids; the bank then keeps them apart', () => {
    const rows = [
      rec('a', { options: ['Sarah', 'Maria'], probs: [0.7, 0.3] }),
      rec('b', { options: ['Sarah', 'Maria'], probs: [0.4, 0.6] }),
      rec('c', { options: ['the cat', 'the dog'], probs: [0.2, 0.8] }),
      rec('c', { item: 'other/1', probs: [0.5, 0.5] }),
    ];
    const { records, conflicts, index } = resolveItemVersions(rows);
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]!.versions.map((v) => [v.models, v.firstOption])).toEqual([
      [2, 'Sarah'],
      [1, 'the cat'],
    ]);
    const ids = records.map((r) => r.item);
    expect(ids[0]).toMatch(/^mmlu_pro\/7#[0-9a-z]{6}$/);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
    expect(ids[3]).toBe('other/1');
    expect(index).toEqual([0, 1, 2, 3]);
    expect(bankFromRecords(records).bank.items).toHaveLength(3);
    // The same content always gets the same id, whatever the order of the rows.
    expect(resolveItemVersions([rows[2]!, rows[1]!, rows[0]!]).records.map((r) => r.item)).toEqual([ids[2], ids[1], ids[0]]);
  });

  it('MMLU-Pro revisions (1 vs 4 options, other keys): reported per item; majority keeps the most-answered version', () => {
    const rows = [
      rec('a', { choice: 2, nOptions: 4, key: 2 }),
      rec('b', { choice: 1, nOptions: 4, key: 2 }),
      rec('c', { choice: 0, nOptions: 4, key: 1 }),
      rec('d', { choice: 0, nOptions: 10, key: 2 }),
    ];
    const split = resolveItemVersions(rows);
    expect(split.conflicts[0]!.versions.map((v) => [v.nOptions, v.key, v.models])).toEqual([
      [4, 2, 2],
      [10, 2, 1],
      [4, 1, 1],
    ]);
    expect(new Set(split.records.map((r) => r.item)).size).toBe(3);
    const major = resolveItemVersions(rows, 'majority');
    expect(major.records.map((r) => [r.model, r.item])).toEqual([
      ['a', 'mmlu_pro/7'],
      ['b', 'mmlu_pro/7'],
    ]);
    expect(major.dropped).toBe(2);
    expect(major.conflicts[0]!.versions.map((v) => v.kept)).toEqual([true, false, false]);
  });

  it('records without texts join the texted version with their count and key; clean data is untouched', () => {
    const rows = [rec('a', { options: ['x', 'y'], probs: [0.5, 0.5] }), rec('b', { choice: 1, nOptions: 2 }), rec('c', { choice: null })];
    const res = resolveItemVersions(rows);
    expect(res.conflicts).toEqual([]);
    expect(res.records).toStrictEqual(rows);
  });

  it('clean data in one pass: every record kept in order; one late record of another content still splits its id', () => {
    const rows: ResponseRecord[] = [];
    for (let m = 0; m < 20; m++)
      for (let i = 0; i < 30; i++) rows.push(rec(`m${m}`, { item: `b/${i}`, key: i % 3, options: ['x', 'y', String(i)], probs: [0.2, 0.3, 0.5] }));
    const clean = resolveItemVersions(rows);
    expect(clean.conflicts).toEqual([]);
    expect(clean.records).toStrictEqual(rows);
    expect(clean.index).toEqual(rows.map((_, t) => t));
    // The 599th record of b/29 names another key: found though every earlier record agreed.
    const late = [...rows.slice(0, -1), rec('m19', { item: 'b/29', key: 0, options: ['x', 'y', '29'], probs: [0.2, 0.3, 0.5] })];
    const res = resolveItemVersions(late);
    expect(res.conflicts.map((c) => [c.item, c.versions.map((v) => [v.key, v.models])])).toEqual([
      [
        'b/29',
        [
          [2, 19],
          [0, 1],
        ],
      ],
    ]);
  });

  it('duplicateRows counts repeated (model, item, presentation) rows', () => {
    const a = rec('a', { probs: [0.5, 0.5] });
    expect(duplicateRows([a, a, a, rec('a', { probs: [0.5, 0.5], position: [1, 0] })])).toEqual({
      count: 2,
      examples: [{ model: 'a', item: 'mmlu_pro/7', rows: 3 }],
    });
  });

  it('duplicateRows lists its examples in the order their rows first appeared, per model', () => {
    const r = (model: string, item: string) => rec(model, { item, probs: [0.5, 0.5] });
    const rows = [r('a', 'x'), r('a', 'y'), r('b', 'x'), r('a', 'y'), r('b', 'x'), r('a', 'x'), r('a', 'y')];
    expect(duplicateRows(rows)).toEqual({
      count: 4,
      examples: [
        { model: 'a', item: 'x', rows: 2 },
        { model: 'a', item: 'y', rows: 3 },
        { model: 'b', item: 'x', rows: 2 },
      ],
    });
  });

  it('the same id and options but another doc_hash is another item', () => {
    const src = (docHash: string) => ({ harness: 'lm-eval', task: 'mmlu', docId: '7', docHash });
    const rows = [
      rec('a', { options: ['x', 'y'], probs: [0.5, 0.5], source: src('aaa') }),
      rec('b', { options: ['x', 'y'], probs: [0.6, 0.4], source: src('aaa') }),
      rec('c', { options: ['x', 'y'], probs: [0.1, 0.9], source: src('bbb') }),
    ];
    const res = resolveItemVersions(rows);
    expect(res.conflicts).toHaveLength(1);
    expect(new Set(res.records.map((r) => r.item)).size).toBe(2);
    expect(res.records[0]!.item).toBe(res.records[1]!.item);
  });
});
