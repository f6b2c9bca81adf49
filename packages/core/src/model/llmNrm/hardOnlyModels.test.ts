// Issue 31: hard answers do not identify sharpness; LLM-NRM holds it at 1 for LLMs with no soft answer.
import { describe, expect, it } from 'vitest';
import { bankFromRecords } from '../../data/bank.js';
import { fit } from '../../fit/fit.js';
import { fitConvergence } from '../../fit/fitConvergence.js';
import { softplus } from '../layout.js';
import { bankRecords, simulateFleet } from '../../simulate/simulate.js';
import type { ResponseRecord } from '../types.js';
import { getFamily } from '../registry.js';
import { HARD_ITEM_SD, hardOnlyModels, identifiedParts, identifiedPriors } from './hardOnlyModels.js';

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
    // The gate is left out (identifiedParts): one-hot answers let it run away to a step.
    expect(r.parts).toEqual({ sharpness: true, position: true, fallback: false });
    expect(L.parts.fallback).toBe(false);
  });

  it('identifiedParts: the gate leaves only an all-hard bank, and a warm start keeps the parts it is given', () => {
    const all = { sharpness: true, position: true, fallback: true };
    const hard = bankFromRecords(records(() => true)).bank;
    const mixed = bankFromRecords(records((j) => j < 11)).bank;
    expect(identifiedParts(hard, all)).toEqual({ ...all, fallback: false });
    expect(identifiedParts(mixed, all)).toEqual(all);
    expect(identifiedParts(hard, { ...all, fallback: false })).toEqual({ ...all, fallback: false });
    // Scoring or extending from a calibration with the gate: init fixes the layout, the gate stays.
    const family = getFamily('llm-nrm', all);
    const init = family.start(hard, family.layout(hard));
    const r = fit(hard, { init, fixItems: true, parts: all, standardErrors: false });
    expect(r.parts.fallback).toBe(true);
    expect(r.layout.kind === 'llm-nrm' && r.layout.parts.fallback).toBe(true);
  });

  it('identifiedPriors: an all-hard bank gets the tighter item prior in an option-level fresh fit, unless an item SD is given', () => {
    const hard = bankFromRecords(records(() => true)).bank;
    const mixed = bankFromRecords(records((j) => j < 11)).bank;
    expect(identifiedPriors(hard, true, {})).toEqual({ itemSd: HARD_ITEM_SD });
    expect(identifiedPriors(hard, true, { itemSd: 7, llmSd: 1 })).toEqual({ itemSd: 7, llmSd: 1 });
    expect(identifiedPriors(hard, false, {})).toEqual({});
    expect(identifiedPriors(mixed, true, {})).toEqual({});
    // LLMs held out by a mask (cross-validation, the compression study) do not make a hard bank soft.
    const heldOut = new Uint8Array(hard.observed.length).fill(1);
    heldOut.fill(0, 0, hard.colItem.length);
    const masked = { ...hard, observed: heldOut };
    expect(identifiedPriors(masked, true, {})).toEqual({ itemSd: HARD_ITEM_SD });
    expect(identifiedParts(masked, { sharpness: true, position: true, fallback: true }).fallback).toBe(false);
    // Through fit: the prior used is the one reported (and so the one a bundle records).
    expect(fit(hard, { standardErrors: false }).priors.itemSd).toBe(HARD_ITEM_SD);
    expect(fit(mixed, { standardErrors: false }).priors.itemSd).toBeUndefined();
    expect(fit(hard, { model: '2pl', standardErrors: false }).priors.itemSd).toBeUndefined();
  });

  it('a mixed bank stays one fit: the soft LLMs keep their own sharpness', () => {
    const { bank } = bankFromRecords(records((j) => j < 4));
    expect(hardOnlyModels(bank)).toEqual([0, 1, 2, 3]);
    const r = fit(bank, { seMode: 'quasi' });
    expect(r.parts.fallback).toBe(true);
    expect(fitConvergence(r).settled).toBe(true);
    const L = r.layout;
    if (L.kind !== 'llm-nrm') throw new Error('expected LLM-NRM');
    const s = bank.models.map((_, j) => softplus(r.x[L.sbar + j]!));
    expect(s.slice(0, 4).every((v) => Math.abs(v - 1) < 1e-12)).toBe(true);
    expect(s.slice(4).some((v) => Math.abs(v - 1) > 0.01)).toBe(true);
    expect(Math.max(...s)).toBeLessThan(20);
  });
});
