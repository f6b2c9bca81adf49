import { describe, expect, it } from 'vitest';
import type { ResponseRecord } from '@llm-nrm/core';
import type { AdaptiveRunLog } from '@llm-nrm/adapters/browser';
import { RUNNER_AGREEMENT, adaptiveRunView, runnerAgrees, stopReason } from './adaptiveRun.js';

const files = { results: 'results_2026.json', samples: 'samples_tiny_toy_2026.jsonl' };
const items = [
  { id: 'i1', key: 0, benchmark: 'odd' },
  { id: 'i3', key: 2, benchmark: 'odd' },
  { id: 'i4', key: 1, benchmark: 'even' },
  { id: 'i7', key: 1, benchmark: 'odd' },
];
const log: AdaptiveRunLog = {
  stop: 'se',
  theta: 0.41,
  se: 0.28,
  items: ['i3', 'i4', 'i1'],
  pool: 4,
  settings: { se: 0.3, minItems: 2, maxItems: 60, batch: 2 },
  rounds: [
    { answered: 0, theta: 0, se: 3, next: ['i3', 'i4'] },
    { answered: 2, theta: 0.5, se: 0.45, next: ['i1'] },
    { answered: 3, theta: 0.41, se: 0.28, next: [] },
  ],
};
const rec = (item: string, probs: number[] | null): ResponseRecord => ({
  model: 'm',
  item,
  key: items.find((it) => it.id === item)!.key,
  ...(probs ? { probs } : { choice: null }),
});
// i3 right (argmax 2 = key), i4 wrong (argmax 0, key 1), i1 without an answer; the samples file's order need not be the log's.
const records = [rec('i1', null), rec('i3', [0.1, 0.2, 0.7]), rec('i4', [0.5, 0.3, 0.2])];

describe('adaptiveRunView', () => {
  it('lists the items in the order asked with their round, benchmark and core-rule correctness; the SE after every answered step', () => {
    const v = adaptiveRunView(log, files, records, items);
    expect(v.items).toEqual([
      { order: 1, round: 1, id: 'i3', benchmark: 'odd', right: true },
      { order: 2, round: 1, id: 'i4', benchmark: 'even', right: false },
      { order: 3, round: 2, id: 'i1', benchmark: 'odd', right: null },
    ]);
    // The first step (no item answered, SE the prior's placeholder 3) is no estimate and is left out.
    expect(v.points).toEqual([
      { answered: 2, theta: 0.5, se: 0.45 },
      { answered: 3, theta: 0.41, se: 0.28 },
    ]);
    expect(v).toMatchObject({ file: 'results_2026.json', stop: 'se', theta: 0.41, se: 0.28, pool: 4 });
  });

  it('refuses samples and a results file of different runs, naming both files', () => {
    expect(() => adaptiveRunView(log, files, records.slice(1), items)).toThrow(
      /results_2026\.json: samples_tiny_toy_2026\.jsonl and results_2026\.json are not of one adaptive run: the results file lists item "i1", which the samples do not answer/,
    );
    expect(() => adaptiveRunView(log, files, [...records, rec('i7', [0.1, 0.9])], items)).toThrow(
      /the samples answer item "i7", which the results file does not list/,
    );
    expect(() => adaptiveRunView(log, files, [...records, rec('i3', [0.1, 0.2, 0.7])], items)).toThrow(/the samples answer an item twice/);
  });

  it('says why the run stopped under each rule', () => {
    const v = adaptiveRunView(log, files, records, items);
    expect(stopReason(v)).toBe('Stopped by the SE rule: SE 0.280 ≤ 0.3 after 3 items (at least 2 asked first).');
    expect(stopReason({ ...v, stop: 'max-items', se: 0.41 })).toBe('Stopped at the item cap: 3 items (max 60), SE 0.410, short of the target 0.3.');
    expect(stopReason({ ...v, stop: 'pool', se: 0.35 })).toBe('Stopped when the pool ran out: all 4 items asked, SE 0.350 (target 0.3).');
  });

  it("tells whether the page's score is the runner's own estimate (1e-4 on theta and SE)", () => {
    const v = { theta: 0.41, se: 0.28 };
    expect(runnerAgrees(v, { theta: 0.41 + 0.9 * RUNNER_AGREEMENT, se: 0.28 - 0.9 * RUNNER_AGREEMENT })).toBe(true);
    expect(runnerAgrees(v, { theta: 0.41 + 2 * RUNNER_AGREEMENT, se: 0.28 })).toBe(false);
    expect(runnerAgrees(v, { theta: 0.41, se: 0.28 + 2 * RUNNER_AGREEMENT })).toBe(false);
  });
});
