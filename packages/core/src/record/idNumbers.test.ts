import { describe, expect, it } from 'vitest';
import { randomSource } from '../simulate/random.js';
import { IdNumbers } from './idNumbers.js';

/** The numbering by a plain map, first-seen order. */
function reference(ids: readonly string[]): number[] {
  const m = new Map<string, number>();
  return ids.map((id) => {
    let n = m.get(id);
    if (n === undefined) m.set(id, (n = m.size));
    return n;
  });
}

describe('IdNumbers', () => {
  const items = Array.from({ length: 40 }, (_, i) => `mmlu/${i}`);

  it('numbers ids as a map would, in LLM-major, item-major, shuffled and mixed orders', () => {
    const rng = randomSource(3);
    const llmMajor = Array.from({ length: 5 }, () => items).flat();
    const itemMajor = items.flatMap((id) => [id, id, id]);
    // Each LLM skips some items and a few come twice: the guess misses, the map answers.
    const ragged = Array.from({ length: 6 }, () => items.filter(() => rng.uniform() < 0.8).flatMap((id) => (rng.uniform() < 0.1 ? [id, id] : [id]))).flat();
    const shuffled = Array.from({ length: 300 }, () => items[rng.int(items.length)]!);
    for (const order of [llmMajor, itemMajor, ragged, shuffled, [...llmMajor, ...shuffled, ...itemMajor]]) {
      const numbers = new IdNumbers();
      // Equal ids as distinct string objects, as a parser hands them over.
      const got = order.map((id) => numbers.number(id.split('').join('')));
      expect(got).toEqual(reference(order));
      expect(numbers.size).toBe(new Set(order).size);
      expect(numbers.ids).toEqual([...new Set(order)]);
    }
  });
});
