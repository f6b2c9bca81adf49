// Issue 31: hard answers do not identify sharpness; LLM-NRM holds it at 1 for LLMs with no soft answer.
import { describe, expect, it } from 'vitest';
import { bankFromRecords } from '../../data/bank.js';
import { fit } from '../../fit/fit.js';
import { fitConvergence } from '../../fit/fitConvergence.js';
import { softplus } from '../layout.js';
import { bankRecords, simulateFleet } from '../../simulate/simulate.js';
import type { ResponseRecord } from '../types.js';
import { hardOnlyModels } from './hardOnlyModels.js';

/** The fleet's records with the LLMs in `hard` answering by their modal option (a parsed choice). */
function records(hard: (j: number) => boolean): ResponseRecord[] {
  const fleet = simulateFleet({ models: 12, items: 60, seed: 11 });
  const models = fleet.bank.models;
  return [...bankRecords(fleet.bank)].map((r) => {
    if (!hard(models.indexOf(r.model))) return r;
    const { probs, ...rest } = r;
    return { ...rest, choice: probs!.indexOf(Math.max(...probs!)), nOptions: probs!.length };
  });
}

describe('hardOnlyModels', () => {
  it('an all-hard bank fits, converges by its own rule, every sharpness held at 1', () => {
    const { bank } = bankFromRecords(records(() => true));
    expect(hardOnlyModels(bank)).toEqual(bank.models.map((_, j) => j));
    const r = fit(bank, { seMode: 'quasi' });
    expect(fitConvergence(r).settled).toBe(true);
    expect(r.converged).toBe(true);
    const L = r.layout;
    if (L.kind !== 'llm-nrm') throw new Error('expected LLM-NRM');
    for (let j = 0; j < bank.models.length; j++) expect(softplus(r.x[L.sbar + j]!)).toBeCloseTo(1, 12);
  });

  it('a mixed bank stays one fit: the soft LLMs keep their own sharpness', () => {
    const { bank } = bankFromRecords(records((j) => j < 4));
    expect(hardOnlyModels(bank)).toEqual([0, 1, 2, 3]);
    const r = fit(bank, { seMode: 'quasi' });
    expect(fitConvergence(r).settled).toBe(true);
    const L = r.layout;
    if (L.kind !== 'llm-nrm') throw new Error('expected LLM-NRM');
    const s = bank.models.map((_, j) => softplus(r.x[L.sbar + j]!));
    expect(s.slice(0, 4).every((v) => Math.abs(v - 1) < 1e-12)).toBe(true);
    expect(s.slice(4).some((v) => Math.abs(v - 1) > 0.01)).toBe(true);
    expect(Math.max(...s)).toBeLessThan(20);
  });
});
