import { describe, expect, it } from 'vitest';
import type { ResponseRecord } from '@llm-nrm/core';
import { packageRunRecord } from './packageRunRecord.js';

const base: ResponseRecord = {
  model: 'm',
  item: 'q1',
  key: 0,
  probs: [0.7, 0.3],
  prompt: 'Question?',
  continuations: [' A', ' B'],
  contexts: ['Question?', 'Question?'],
};

describe('packageRunRecord', () => {
  it('keeps an lm-eval record whole (it ran the package text) and drops the prompt fields of other harnesses, leaving the input as it was', () => {
    const lm = { ...base, source: { harness: 'lm-eval' } };
    expect(packageRunRecord(lm)).toBe(lm);
    const inspect = { ...base, source: { harness: 'inspect' } };
    const out = packageRunRecord(inspect);
    expect(out).toEqual({ model: 'm', item: 'q1', key: 0, probs: [0.7, 0.3], source: { harness: 'inspect' } });
    expect(inspect.prompt).toBe('Question?');
    expect(packageRunRecord(base).prompt).toBeUndefined();
  });
});
