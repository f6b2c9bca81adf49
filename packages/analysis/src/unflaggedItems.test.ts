import { describe, expect, it } from 'vitest';
import { fit, simulateFleet, type LlmNrmLayout } from '@llm-nrm/core';
import { selectForRange } from './selectForRange.js';
import { SELECTION_FLAGS, unflaggedItems } from './unflaggedItems.js';

describe('unflaggedItems', () => {
  it('leaves a mis-keyed item out of selection, unless asked to keep it', () => {
    const { bank } = simulateFleet({ models: 16, items: 30, seed: 11 });
    const res = fit(bank, { maxIterations: 80, standardErrors: false });
    // Re-key item 0 to its least attractive option at high ability: the fitted curves now call the key wrong.
    const io = bank.itemOffsets[0]!;
    const K = bank.itemOffsets[1]! - io;
    const L = res.layout as LlmNrmLayout;
    let worst = 0;
    for (let k = 1; k < K; k++) if (res.x[L.a + io + k]! < res.x[L.a + io + worst]!) worst = k;
    const key = Int32Array.from(bank.key);
    key[0] = worst;
    const rekeyed = { ...bank, key };
    const { eligible, leftOut } = unflaggedItems(rekeyed, res.layout, res.x);
    expect(leftOut.find((l) => l.id === bank.items[0]!.id)?.flags).toContain('possible-wrong-key');
    expect(eligible[0]).toBe(0);
    expect(leftOut.every((l) => l.flags.every((f) => SELECTION_FLAGS.includes(f)))).toBe(true);
    // selectForRange applies the rule by default; includeFlagged makes every item eligible again.
    const picked = selectForRange(rekeyed, res.layout, res.x, 10).forms[0]!;
    expect(Array.from(picked)).not.toContain(0);
    expect(picked.length).toBe(10);
    const every = selectForRange(rekeyed, res.layout, res.x, 30, { includeFlagged: true });
    expect(every.leftOut).toEqual([]);
    expect(Array.from(every.forms[0]!)).toContain(0);
  });
});
