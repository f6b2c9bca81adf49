import { describe, expect, it } from 'vitest';
import { bankFromRecords } from './bank.js';
import { bundleItems, parseBundle, toBundle } from './bundle.js';
import { consensusKeys } from './consensusKeys.js';
import { isLlmNrmError } from '../errors.js';
import { fit } from '../fit/fit.js';
import { bankRecords, simulateFleet } from '../simulate/simulate.js';
import { parseResponseRecord } from '../record/parseResponseRecord.js';
import type { ResponseRecord } from '../model/types.js';

const fleet = simulateFleet({ models: 20, items: 60, seed: 4 });
const keyed = [...bankRecords(fleet.bank)];
const keyFree: ResponseRecord[] = keyed.map(({ key: _key, ...r }) => r);

describe('key-free records', () => {
  it('parse without a key (absent or null), and still refuse a bad one', () => {
    expect(parseResponseRecord({ model: 'm', item: 'i', probs: [0.2, 0.8] }).key).toBeUndefined();
    expect('key' in parseResponseRecord({ model: 'm', item: 'i', key: null, probs: [0.2, 0.8] })).toBe(false);
    expect(() => parseResponseRecord({ model: 'm', item: 'i', key: 2, probs: [0.2, 0.8] })).toThrow(/key out of range: 2/);
    expect(() => parseResponseRecord({ model: 'm', item: 'i', key: 'A', probs: [0.2, 0.8] })).toThrow(/key must be a non-negative integer/);
  });

  it('build a bank of keyFree items anchored on the option the stronger half of the fleet favours', () => {
    // Four weak LLMs favour option 0 of "hard", two strong ones option 1; three easy items tell them apart.
    const recs: ResponseRecord[] = [];
    const weak = ['w1', 'w2', 'w3', 'w4'];
    const strong = ['s1', 's2'];
    for (const m of [...weak, ...strong]) {
      recs.push({ model: m, item: 'hard', probs: weak.includes(m) ? [0.7, 0.2, 0.1] : [0.05, 0.9, 0.05] });
      for (const it of ['e1', 'e2', 'e3']) recs.push({ model: m, item: it, probs: weak.includes(m) ? [0.3, 0.4, 0.3] : [0.02, 0.02, 0.96] });
    }
    const { bank } = bankFromRecords(recs);
    const hard = bank.items.findIndex((it) => it.id === 'hard');
    expect(bank.items.every((it) => it.keyFree === true)).toBe(true);
    // The whole fleet's plurality on "hard" is option 0 (mean 0.483 against 0.433); the upper half
    // (both strong LLMs and one weak) gives option 1 (0.667 against 0.267).
    expect(bank.key[hard]).toBe(1);
    expect(bank.key[bank.items.findIndex((it) => it.id === 'e1')]).toBe(2);
    expect(bank.items[hard]!.key).toBe(1);
    expect(Array.from(consensusKeys(bank))).toEqual(Array.from(bank.key));
  });

  it('a key given by any record keys the item, in any row order; ignoreKey drops every key', () => {
    const mixed = keyFree.map((r, t) => (t === keyFree.length - 1 ? keyed[t]! : r));
    const last = keyed[keyed.length - 1]!;
    for (const rows of [mixed, [...mixed].reverse()]) {
      const { bank } = bankFromRecords(rows);
      const i = bank.items.findIndex((it) => it.id === last.item);
      expect(bank.items[i]!.keyFree).toBeUndefined();
      expect(bank.key[i]).toBe(last.key);
      expect(bank.items.filter((it) => it.keyFree === true)).toHaveLength(59);
    }
    const { bank } = bankFromRecords(keyed, { ignoreKey: true });
    expect(bank.items.every((it) => it.keyFree === true)).toBe(true);
  });

  it('fit option-level models; binary models refuse with NO_KEY naming the option-level ones', () => {
    const { bank } = bankFromRecords(keyFree);
    const withKey = fit(bankFromRecords(keyed).bank, { model: 'nrm' });
    const without = fit(bank, { model: 'nrm' });
    // Theta's direction follows the fleet, as with the key (a simulated fleet better than chance).
    const a = Array.from(withKey.x.subarray(0, 20));
    const b = Array.from(without.x.subarray(0, 20));
    const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
    const ma = mean(a);
    const mb = mean(b);
    const cov = a.reduce((s, x, j) => s + (x - ma) * (b[j]! - mb), 0);
    const r = cov / Math.sqrt(a.reduce((s, x) => s + (x - ma) ** 2, 0) * b.reduce((s, x) => s + (x - mb) ** 2, 0));
    expect(r).toBeGreaterThan(0.98);
    for (const model of ['1pl', '2pl', '3pl', '4pl'] as const) {
      let err: unknown;
      try {
        fit(bank, { model });
      } catch (e) {
        err = e;
      }
      expect(isLlmNrmError(err, 'NO_KEY')).toBe(true);
      expect((err as Error).message).toMatch(/no key for 60 of 60 items .*--model llm-nrm, nrm or nrm-hard/);
    }
  });

  it('the bundle records the key-free fit: items keyFree, fit.keyFree, no accuracy; bundleItems keeps it', () => {
    const { bank } = bankFromRecords(keyFree);
    const bundle = parseBundle(JSON.stringify(toBundle(fit(bank, { model: 'nrm' }), { version: '0', createdAt: '2026-12-05T00:00:00Z' })));
    expect(bundle.fit.keyFree).toBe(60);
    expect(bundle.items.every((it) => it.keyFree === true)).toBe(true);
    expect(bundle.llms.every((l) => l.accuracy === undefined && l.cells === 60)).toBe(true);
    expect(bundleItems(bundle).every((it) => it.keyFree === true)).toBe(true);
    const keyedBundle = toBundle(fit(bankFromRecords(keyed).bank, { model: 'nrm' }), { version: '0' });
    expect(keyedBundle.fit.keyFree).toBeUndefined();
    expect(keyedBundle.items.some((it) => 'keyFree' in it)).toBe(false);
  });
});
