// Seeded property runs of every reader on mutated real fixture records, 400 cases per reader (about
// 13 s in all on the 2-core machine, so under `npm run test:e2e`; test/fuzz.test.ts runs the same
// property on 40 cases per reader, bench/fuzz.mjs on 10,000).
import { describe, expect, it } from 'vitest';
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
