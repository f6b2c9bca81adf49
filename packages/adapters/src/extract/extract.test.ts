// The logprob extractor against closed-form values computed by hand in each test.
import { describe, expect, it } from 'vitest';
import { expectArraysClose } from '@llm-nrm/tooling/test';
import { letterLabels, optionDistributionFromTopLogprobs, tokenLabel } from './optionDistributionFromTopLogprobs.js';
import { softmaxOptionLogprobs } from './softmaxOptionLogprobs.js';

const ln = Math.log;

describe('optionDistributionFromTopLogprobs', () => {
  it('merges label variants, gives unreported options zero mass and reports leakage', () => {
    const top = [
      { token: ' A', logprob: ln(0.4) },
      { token: 'A', logprob: ln(0.05) },
      { token: '(B', logprob: ln(0.2) },
      { token: 'B)', logprob: ln(0.05) },
      { token: 'D.', logprob: ln(0.1) },
      { token: ' The', logprob: ln(0.1) },
      { token: 'a', logprob: ln(0.05) },
    ];
    const d = optionDistributionFromTopLogprobs(top, 4);
    // option mass: A 0.45, B 0.25, C 0, D 0.1 -> total 0.8
    expectArraysClose(d.probs!, [0.45 / 0.8, 0.25 / 0.8, 0, 0.1 / 0.8]);
    expectArraysClose([d.leakage], [0.2]);
    expect(d.reported).toEqual([true, true, false, true]);
  });

  it('takes a {token: logprob} map (HELM classic) and digit labels', () => {
    const d = optionDistributionFromTopLogprobs({ ' 1': ln(0.3), '2': ln(0.6), ' x': ln(0.1) }, 3, { labels: ['1', '2', '3'] });
    expectArraysClose(d.probs!, [1 / 3, 2 / 3, 0]);
    expectArraysClose([d.leakage], [0.1]);
  });

  it('clips leakage at 0 when rounding puts the option mass above 1', () => {
    const d = optionDistributionFromTopLogprobs(
      [
        { token: 'A', logprob: 1e-9 },
        { token: 'B', logprob: ln(1e-6) },
      ],
      2,
    );
    expect(d.leakage).toBe(0);
    expect(d.probs![0]! + d.probs![1]!).toBeCloseTo(1, 12);
  });

  it('returns probs null when no option label is reported', () => {
    const d = optionDistributionFromTopLogprobs([{ token: 'Hello', logprob: ln(0.9) }], 4);
    expect(d.probs).toBeNull();
    // No option mass at all: everything reported is outside the options.
    expect(d.leakage).toBe(1);
    expect(d.reported).toEqual([false, false, false, false]);
  });

  it('treats -Infinity as zero mass and throws on NaN and bad labels', () => {
    const d = optionDistributionFromTopLogprobs(
      [
        { token: 'A', logprob: -Infinity },
        { token: 'B', logprob: 0 },
      ],
      2,
    );
    expect(d.probs).toEqual([0, 1]);
    expect(() => optionDistributionFromTopLogprobs([{ token: 'A', logprob: NaN }], 2)).toThrow(/invalid logprob for token "A": null/);
    expect(() => optionDistributionFromTopLogprobs([], 3, { labels: ['A', 'B'] })).toThrow(/2 labels for 3 options/);
    expect(() => optionDistributionFromTopLogprobs([], 2, { labels: ['A', 'A'] })).toThrow(/duplicate option label/);
    expect(() => letterLabels(27)).toThrow(/invalid option count: 27/);
  });

  it('tokenLabel strips tokenizer spaces and punctuation but is case-sensitive', () => {
    const set = new Set(['A', 'B']);
    expect(['A', ' A', '\u2581A', '\u0120A', '(A)', 'A.', 'A:', '[A]', ' (A'].map((t) => tokenLabel(t, set))).toEqual(Array(9).fill('A'));
    expect(['a', 'AB', 'C', '', ' '].map((t) => tokenLabel(t, set))).toEqual(Array(5).fill(undefined));
  });
});

describe('softmaxOptionLogprobs', () => {
  it('equals the normalised exponentials, also for large negative sums', () => {
    expectArraysClose(softmaxOptionLogprobs([ln(0.2), ln(0.6), ln(0.2)]), [0.2, 0.6, 0.2]);
    // exp(-1000) underflows; the max shift keeps the ratios.
    expectArraysClose(softmaxOptionLogprobs([-1000, -1001]), [1 / (1 + Math.exp(-1)), Math.exp(-1) / (1 + Math.exp(-1))]);
  });
  it('gives -Infinity zero mass and rejects NaN, +Infinity and all -Infinity', () => {
    expect(softmaxOptionLogprobs([-Infinity, -3])).toEqual([0, 1]);
    expect(() => softmaxOptionLogprobs([0, NaN])).toThrow(/invalid option logprob at 1/);
    expect(() => softmaxOptionLogprobs([Infinity, 0])).toThrow(/invalid option logprob at 0/);
    expect(() => softmaxOptionLogprobs([-Infinity, -Infinity])).toThrow(/every option logprob is -Infinity/);
  });
});
