import { describe, expect, it } from 'vitest';
import { bankFromRecords, bankRecords, fit, scoreResponses, simulateFleet, toBundle, type ResponseRecord } from '@llm-nrm/core';
import { poolFromBundle } from './adaptivePool.js';
import { ADAPTIVE_DEFAULTS, adaptiveStep } from './adaptiveStep.js';
import { adaptiveInformation } from './nextAdaptiveItems.js';

const fleet = simulateFleet({ models: 30, items: 160, seed: 5 });
const recs = [...bankRecords(fleet.bank)];
const held = fleet.bank.models.slice(26);
const bundle = toBundle(fit(bankFromRecords(recs.filter((r) => !held.includes(r.model))).bank, { model: 'llm-nrm', standardErrors: false }), {
  version: 'test',
});
const answersOf = (model: string) => new Map(recs.filter((r) => r.model === model).map((r) => [r.item, r]));

/** Replays one LLM's recorded answers through the stateless step until it stops. */
function replay(model: string, options = {}) {
  const book = answersOf(model);
  const answers: ResponseRecord[] = [];
  const rounds: string[][] = [];
  for (;;) {
    const st = adaptiveStep(bundle, answers, options);
    if (st.stop !== null) return { st, answers, rounds };
    rounds.push(st.next);
    for (const id of st.next) answers.push(book.get(id)!);
  }
}

describe('adaptiveStep', () => {
  it('before any answer: theta 0 with the prior SD, the fleet sharpness, the most informative round there', () => {
    const st = adaptiveStep(bundle, [], { balance: false });
    expect(st).toMatchObject({ theta: 0, se: 3, answered: 0, stop: null });
    expect(st.next).toHaveLength(ADAPTIVE_DEFAULTS.batch);
    const pool = poolFromBundle(bundle);
    const info = pool.ids.map((_, i) => adaptiveInformation(pool, i, 0, st.sharpness));
    const best = [...info.keys()].sort((x, y) => info[y]! - info[x]!).slice(0, 4);
    expect(st.next).toEqual(best.map((i) => pool.ids[i]));
  });

  it('each step scores the answers as a tiny run and asks new items until the SE target stops it', () => {
    const { st, answers, rounds } = replay(held[0]!, { se: 0.35, maxItems: 120 });
    expect(st.stop).toBe('se');
    expect(st.se).toBeLessThanOrEqual(0.35);
    expect(st.answered).toBe(answers.length);
    expect(st.answered).toBeGreaterThanOrEqual(ADAPTIVE_DEFAULTS.minItems);
    expect(st.answered).toBeLessThan(120);
    expect(new Set(answers.map((r) => r.item)).size).toBe(answers.length);
    expect(rounds.every((r) => r.length === ADAPTIVE_DEFAULTS.batch)).toBe(true);
    // The estimate is `llm-nrm score`'s for a tiny run of the same answers.
    const sc = scoreResponses(bundle, answers, { nuisance: 'sharpness' }).llms[0]!;
    expect(st.theta).toBe(sc.theta);
    expect(st.se).toBe(sc.se);
  });

  it('stops at max-items, and a flagged item is never asked', () => {
    const pool = poolFromBundle(bundle);
    const first = adaptiveStep(bundle, [], {}).next;
    const { st, answers } = replay(held[1]!, { se: 0.01, maxItems: 14, batch: 5, exclude: new Set(first) });
    expect(st.stop).toBe('max-items');
    expect(answers).toHaveLength(14);
    for (const r of answers) expect(first).not.toContain(r.item);
    expect(pool.ids).toContain(first[0]);
  });

  it('adaptive runs rank held-out LLMs closer to their full-bank order than the same number of first items', () => {
    const full = held.map((m) => scoreResponses(bundle, [...answersOf(m).values()], { nuisance: 'fit' }).llms[0]!.theta);
    const adaptive = held.map((m) => replay(m, { se: 0.01, maxItems: 16 }).st.theta);
    const fixed = held.map((m) => scoreResponses(bundle, [...answersOf(m).values()].slice(0, 16), { nuisance: 'sharpness' }).llms[0]!.theta);
    const err = (xs: number[]) => Math.sqrt(xs.reduce((s, x, t) => s + (x - full[t]!) ** 2, 0) / xs.length);
    expect(err(adaptive)).toBeLessThan(err(fixed));
  });

  it('refuses answers of several LLMs and binary bundles', () => {
    const two = [recs.find((r) => r.model === held[0])!, recs.find((r) => r.model === held[1])!];
    expect(() => adaptiveStep(bundle, two)).toThrow(/one LLM/);
    expect(() => adaptiveStep({ ...bundle, model: '2pl' }, [])).toThrow(/option-level/);
  });
});
