import { describe, expect, it } from 'vitest';
import { bankFromRecords } from './bank.js';
import type { ResponseRecord } from '../model/types.js';
import { checkDesign } from './checkDesign.js';

const r = (model: string, item: string, probs: number[]): ResponseRecord => ({ model, item, key: 0, probs });

describe('checkDesign', () => {
  it('two LLMs that share no items: no ranking (the HELM case)', () => {
    const { bank } = bankFromRecords([r('gpt2', 'mmlu/1', [0.2, 0.8]), r('gpt2', 'mmlu/2', [0.9, 0.1]), r('pythia', 'hs/1', [0.7, 0.3])]);
    const d = checkDesign(bank);
    expect(d.groups).toHaveLength(2);
    expect(Array.from(d.comparable)).toEqual([0, 0]);
    expect(d.warnings.map((w) => w.code)).toContain('NO_SHARED_ITEMS');
  });

  it('an LLM connected to no other: the others are ranked, it is not', () => {
    const { bank } = bankFromRecords([
      r('a', 'q/1', [0.8, 0.2]),
      r('a', 'q/2', [0.3, 0.7]),
      r('b', 'q/1', [0.4, 0.6]),
      r('b', 'q/2', [0.6, 0.4]),
      r('c', 'other/1', [0.5, 0.5]),
    ]);
    const d = checkDesign(bank);
    expect(d.groups.map((g) => g.llms)).toEqual([['a', 'b'], ['c']]);
    expect(Array.from(d.comparable)).toEqual([1, 1, 0]);
    const w = d.warnings.find((x) => x.code === 'DISCONNECTED')!;
    expect(w.llms).toEqual(['c']);
    expect(w.message).toContain('not ranked: c');
  });

  it('a single LLM, identical LLMs, all-correct and all-wrong LLMs are named', () => {
    expect(checkDesign(bankFromRecords([r('solo', 'q/1', [0.6, 0.4]), r('solo', 'q/2', [0.4, 0.6])]).bank).warnings.map((w) => w.code)).toEqual(['SINGLE_LLM']);
    const { bank } = bankFromRecords([
      r('x', 'q/1', [0.9, 0.1]),
      r('x', 'q/2', [0.8, 0.2]),
      r('y', 'q/1', [0.9, 0.1]),
      r('y', 'q/2', [0.8, 0.2]),
      r('z', 'q/1', [0.1, 0.9]),
      r('z', 'q/2', [0.3, 0.7]),
    ]);
    const d = checkDesign(bank);
    expect(Array.from(d.comparable)).toEqual([1, 1, 1]);
    expect(d.warnings.map((w) => [w.code, w.llms])).toEqual([
      ['IDENTICAL_LLMS', ['x', 'y']],
      ['ALL_CORRECT', ['x', 'y']],
      ['ALL_WRONG', ['z']],
    ]);
  });

  it('a connected fleet with mixed answers has nothing to say', () => {
    const { bank } = bankFromRecords([r('a', 'q/1', [0.8, 0.2]), r('a', 'q/2', [0.3, 0.7]), r('b', 'q/1', [0.4, 0.6]), r('b', 'q/2', [0.6, 0.4])]);
    expect(checkDesign(bank).warnings).toEqual([]);
  });
});
