import { describe, expect, it } from 'vitest';
import { isLlmNrmError } from '../errors.js';
import { requireKeys } from './requireKeys.js';

const items = (free: number[], n = 8) => Array.from({ length: n }, (_, i) => (free.includes(i) ? { id: `q${i}`, keyFree: true as const } : { id: `q${i}` }));
const message = (fn: () => void): string => {
  try {
    fn();
  } catch (err) {
    expect(isLlmNrmError(err, 'NO_KEY')).toBe(true);
    return (err as Error).message;
  }
  throw new Error('no NO_KEY');
};

describe('requireKeys', () => {
  it('passes a fully keyed bank', () => {
    expect(() => requireKeys(items([]), 'accuracy', 'x')).not.toThrow();
  });

  it('refuses with NO_KEY naming what needs the key, how many items lack one, the items, and what to do instead', () => {
    expect(message(() => requireKeys(items([3]), 'accuracy', 'give the keys'))).toBe(
      'accuracy needs a key, but the bank has no key for 1 of 8 items ("q3"): give the keys',
    );
    expect(message(() => requireKeys(items([1, 2]), 'gold answers', 'fit with keys'))).toBe(
      'gold answers needs a key, but the bank has no key for 2 of 8 items ("q1", "q2"): fit with keys',
    );
    // Past five, the first five are named.
    expect(message(() => requireKeys(items([0, 1, 2, 3, 4, 5, 6]), 'x', 'y'))).toContain('no key for 7 of 8 items (first "q0", "q1", "q2", "q3", "q4")');
  });
});
