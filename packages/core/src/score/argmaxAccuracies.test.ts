import { describe, expect, it } from 'vitest';
import { OVERALL, argmaxAccuracies } from './argmaxAccuracies.js';
import { place } from './place.js';

describe('argmaxAccuracies', () => {
  const items = [
    { id: 'a', key: 0, benchmark: 'x' },
    { id: 'b', key: 1, benchmark: 'x' },
    { id: 'c', key: 2, benchmark: 'y' },
    { id: 'd', key: 0 },
  ];
  it('counts the argmax of probs or logprobs and a hard choice, overall and per benchmark, each response once', () => {
    const acc = argmaxAccuracies(
      [
        { model: 'm', item: 'a', key: 0, probs: [0.6, 0.3, 0.1] },
        { model: 'm', item: 'b', key: 1, logprobs: [-0.1, -3, -4] },
        { model: 'm', item: 'c', key: 2, choice: 2 },
        { model: 'm', item: 'd', key: 0, choice: 0 },
        { model: 'm', item: 'd', key: 0, choice: null },
        { model: 'm', item: 'zz', key: 0, choice: 0 },
      ],
      items,
    ).get('m')!;
    expect(acc.get(OVERALL)).toBe(3 / 4);
    expect(acc.get('x')).toBe(1 / 2);
    expect(acc.get('y')).toBe(1);
    expect([...acc.keys()].sort()).toEqual(['', 'x', 'y']);
  });
});

describe('place', () => {
  it('ranks 1 + the calibrated LLMs above, ties counting half in the percentile', () => {
    const llms = [
      { id: 'p', theta: 1 },
      { id: 'q', theta: 0 },
      { id: 'r', theta: -1 },
    ];
    const p = place({ llms } as never, 0);
    expect(p).toMatchObject({ rank: 2, of: 4, percentile: 50, above: { id: 'p' }, below: { id: 'r' } });
  });
});
