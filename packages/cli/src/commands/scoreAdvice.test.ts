// When the scoring diverges (NON_FINITE), `score` advises only options it has (issue 27: it advised
// `--optimizer lbfgs, a smaller --lr`, options of `fit`). core's scoreResponses is made to diverge
// here (vi.mock) because a real divergence needs pathological input; the advice is checked against
// the option names `score --help` lists.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bankRecords, simulateFleet } from '@llm-nrm/core';
import { writeResponses } from '@llm-nrm/adapters';
import { tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../../test/runCli.js';

const diverge = vi.hoisted(() => ({ on: false }));
vi.mock('@llm-nrm/core', async (importOriginal) => {
  const core = await importOriginal<typeof import('@llm-nrm/core')>();
  return {
    ...core,
    scoreResponses: (...args: Parameters<typeof core.scoreResponses>) => {
      // What core's checkFinite throws (its own test checks that it names no CLI option).
      if (diverge.on)
        throw new core.LlmNrmError('NON_FINITE', 'objective became NaN; the fit diverged or the input is degenerate (check it for extreme values)');
      return core.scoreResponses(...args);
    },
  };
});

const tmp = tempDir('llm-nrm-cli-score-advice-');
const responses = join(tmp.dir, 'r.jsonl');
const bundle = join(tmp.dir, 'b.json');
beforeAll(async () => {
  await writeResponses(bankRecords(simulateFleet({ models: 4, items: 12, seed: 2 }).bank), responses);
  expect((await runCli(['fit', responses, '-o', bundle, '-q'])).code).toBe(0);
});
afterAll(() => tmp.cleanup());

describe('score: advice on a diverged scoring', () => {
  it('names only options score has', async () => {
    const help = (await runCli(['score', '--help'])).out;
    diverge.on = true;
    try {
      for (const nuisance of ['auto', 'fleet']) {
        const { code, err } = await runCli(['score', bundle, responses, '--nuisance', nuisance, '-q']);
        expect(code).toBe(1);
        expect(err).toMatch(
          nuisance === 'fleet' ? /diverged .*; check the responses$/m : /diverged .*; try --nuisance fleet \(theta alone\), or check the responses$/m,
        );
        const named = [...err.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]);
        for (const flag of named) expect(help).toContain(flag);
        expect(err).not.toMatch(/--optimizer|--lr/);
      }
    } finally {
      diverge.on = false;
    }
  });
});
