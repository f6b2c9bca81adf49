// Seeded property runs of the record parser on arbitrary and mutated values, and of every reader on
// 40 mutated real fixture records each (test/fuzz.e2e.test.ts runs 400 per reader under
// `npm run test:e2e`; bench/fuzz.mjs 10,000).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LlmNrmError, parseResponseRecord } from '@llm-nrm/core';
import { FUZZ_TARGETS, fuzzTarget } from './fuzz/fuzzReaders.js';

const CASES = 40;
const SEED = 20261201;

describe('readers on mutated real fixture records (fast-check, a short run)', () => {
  for (const target of FUZZ_TARGETS) {
    it(`${target.name}: typed errors only, no silent loss`, async () => {
      const f = await fuzzTarget(target, CASES, SEED);
      expect(f.clean + f.listedLoss + f.typedErrors + f.validShorter).toBe(CASES);
    });
  }
});

describe('parseResponseRecord on arbitrary and mutated values', () => {
  const base = { model: 'm', item: 'mmlu/3', key: 1, options: ['a', 'b', 'c'], probs: [0.2, 0.5, 0.3], position: [2, 0, 1], leakage: 0.1 };
  const anyValue = fc.oneof(fc.jsonValue(), fc.constantFrom(NaN, Infinity, -Infinity, 1e308, -0, '-Infinity', 2 ** 53 + 1));
  it('accepts or rejects with LlmNrmError, never anything else, and what it accepts parses again unchanged', () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(base), 'logprobs', 'choice', 'nOptions', 'source', 'prompt'), anyValue, fc.boolean(), (field, value, drop) => {
        const v: Record<string, unknown> = { ...base };
        if (drop) delete v[field];
        else v[field] = value;
        try {
          const r = parseResponseRecord(v);
          expect(parseResponseRecord(JSON.parse(JSON.stringify(r, (_k, x) => (x === -Infinity ? '-Infinity' : x))))).toStrictEqual(r);
        } catch (e) {
          if (!(e instanceof LlmNrmError)) throw e;
        }
      }),
      { numRuns: 3000, seed: SEED },
    );
  });
});
