// Seeded property runs of every reader and of the record parser on mutated real fixture records
// (about 30 s in all on the 2-core machine; bench/fuzz.mjs runs 10,000 cases per reader).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LlmNrmError, parseResponseRecord } from '@llm-nrm/core';
import { FUZZ_TARGETS, fuzzTarget, type FuzzFigures } from './fuzz/fuzzReaders.js';

const CASES = Number(process.env.LLM_NRM_FUZZ_CASES ?? 400);
const SEED = Number(process.env.LLM_NRM_FUZZ_SEED ?? 20261201);
export const figures: FuzzFigures[] = [];

describe('readers on mutated real fixture records (fast-check)', () => {
  for (const target of FUZZ_TARGETS) {
    it(`${target.name}: typed errors only, no silent loss`, async () => {
      const f = await fuzzTarget(target, CASES, SEED);
      figures.push(f);
      expect(f.clean + f.listedLoss + f.typedErrors + f.validShorter).toBe(CASES);
      if (process.env.LLM_NRM_FUZZ_REPORT) process.stdout.write(`FUZZ ${JSON.stringify(f)}\n`);
    }, 600_000);
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
