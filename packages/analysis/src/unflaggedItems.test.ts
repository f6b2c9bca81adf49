import { describe, expect, it } from 'vitest';
import { fit, simulateFleet, type LlmNrmLayout } from '@llm-nrm/core';
import { selectForRange } from './selectForRange.js';
import { unflaggedItems } from './unflaggedItems.js';

describe('unflaggedItems', () => {
  it('leaves a mis-keyed item out of selection, which would otherwise rank first', () => {
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
    expect(leftOut.every((l) => l.flags.every((f) => f === 'possible-wrong-key' || f === 'dominant-distractor'))).toBe(true);
    const picked = selectForRange(rekeyed, res.layout, res.x, 10, { eligible }).forms[0]!;
    expect(Array.from(picked)).not.toContain(0);
    expect(picked.length).toBe(10);
  });
});
