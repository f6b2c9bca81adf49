import { describe, expect, it } from 'vitest';
import { bankFromRecords, bankRecords, fit, llmNrmLayout, simulateFleet, type ResponseBank, type ResponseRecord } from '@llm-nrm/core';
import { keyAudit } from './keyAudit.js';

// Three hand-made 3-option items, key 0, two LLMs at theta -1 and 1:
// item 0: good: a = (1.5, -0.5, -1), c = (0, 0, -6): option 2 is dead (below 0.01 on [-1, 1]).
// item 1: miskeyed: a = (-1, 1, 0): the key falls, option 1 rises.
// item 2: miskeyed less surely: a = (0, 0.3, -0.3), c = (0.5, 0, -0.5).
function handBank(): { bank: ResponseBank; x: Float64Array; layout: ReturnType<typeof llmNrmLayout> } {
  const bank = {
    models: ['lo', 'hi'],
    items: [0, 1, 2].map((i) => ({ id: `i${i}`, key: 0, nOptions: 3 })),
    itemOffsets: Int32Array.of(0, 3, 6, 9),
    key: Int32Array.of(0, 0, 0),
    kMax: 3,
    colItem: Int32Array.of(0, 1, 2),
    colOffsets: Int32Array.of(0, 3, 6, 9),
    colPosition: null,
    q: new Float32Array(18),
    observed: new Uint8Array(6),
    hard: new Uint8Array(6),
    leakage: null,
  } as ResponseBank;
  const layout = llmNrmLayout(bank, { sharpness: false, position: false, fallback: false });
  const x = new Float64Array(layout.size);
  x.set([-1, 1], layout.theta);
  x.set([1.5, -0.5, -1, -1, 1, 0, 0, 0.3, -0.3], layout.a);
  x.set([0, 0, -6, 0, 0, 0, 0.5, 0, -0.5], layout.c);
  return { bank, x, layout };
}

describe('keyAudit', () => {
  it('ranks keys by how far the implied option leads at high ability, with sigmoid(margin) as confidence', () => {
    const { bank, x, layout } = handBank();
    const audit = keyAudit(bank, layout, x);
    expect(audit.highTheta).toBe(4);
    expect(audit.keys.map((k) => [k.id, k.key, k.implied])).toEqual([
      ['i1', 0, 1],
      ['i2', 0, 1],
    ]);
    // item 1 at theta 4: logits (-4, 4, 0): margin 8; item 2: (0.5, 1.2, -1.7): margin 0.7.
    expect(audit.keys[0]!.margin).toBeCloseTo(8, 12);
    expect(audit.keys[1]!.margin).toBeCloseTo(0.7, 12);
    expect(audit.keys[1]!.confidence).toBeCloseTo(1 / (1 + Math.exp(-0.7)), 12);
    // At theta 1 item 2's key still leads (logits 0.5, 0.3, -0.8): only item 1 disagrees.
    expect(keyAudit(bank, layout, x, { highTheta: 1 }).keys.map((k) => k.id)).toEqual(['i1']);
    expect(audit.deadDistractors).toEqual([{ id: 'i0', option: 2, maxProbability: expect.any(Number) }]);
    expect(audit.deadDistractors[0]!.maxProbability).toBeLessThan(0.01);
    expect(audit.positionDriven).toBeNull();
    expect(audit.keyFree).toBe(0);
  });

  it('skips key-free items in the key check and counts them', () => {
    const { bank, x, layout } = handBank();
    bank.items[1] = { ...bank.items[1]!, keyFree: true };
    const audit = keyAudit(bank, layout, x);
    expect(audit.keyFree).toBe(1);
    expect(audit.keys.map((k) => k.id)).toEqual(['i2']);
  });

  it('finds an item whose answers follow the displayed position, not the content', () => {
    // Two 2-option items shown in both orders to 4 LLMs: item a is answered by content (option 0),
    // item b by position (whatever is shown first).
    const recs: ResponseRecord[] = [];
    for (const m of ['m1', 'm2', 'm3', 'm4'])
      for (const position of [
        [0, 1],
        [1, 0],
      ]) {
        recs.push({ model: m, item: 'a', key: 0, probs: [0.9, 0.1], position });
        recs.push({ model: m, item: 'b', key: 0, probs: position[0] === 0 ? [0.9, 0.1] : [0.1, 0.9], position });
      }
    const { bank } = bankFromRecords(recs);
    const layout = llmNrmLayout(bank, { sharpness: false, position: false, fallback: false });
    const audit = keyAudit(bank, layout, new Float64Array(layout.size));
    expect(audit.positionDriven).toHaveLength(1);
    expect(audit.positionDriven![0]).toMatchObject({ id: 'b', presentations: 2, position: 0 });
    expect(audit.positionDriven![0]!.positionShare).toBeCloseTo(0.9, 6);
    expect(audit.positionDriven![0]!.contentShare).toBeCloseTo(0.5, 6);
  });

  it('puts a swapped key first on a small seeded simulated fleet', () => {
    const { bank: truthBank, truth, layout: tl } = simulateFleet({ models: 30, items: 200, seed: 5 });
    // The item whose true key leads most clearly at theta 4 (chosen from the truth), keyed to the next option.
    let best = -1;
    let lead = -Infinity;
    for (let i = 0; i < truthBank.items.length; i++) {
      const io = truthBank.itemOffsets[i]!;
      const K = truthBank.items[i]!.nOptions;
      const g = truthBank.key[i]!;
      const logit = (k: number) => truth[tl.a + io + k]! * 4 + truth[tl.c + io + k]!;
      let other = -Infinity;
      for (let k = 0; k < K; k++) if (k !== g) other = Math.max(other, logit(k));
      if (logit(g) - other > lead) {
        lead = logit(g) - other;
        best = i;
      }
    }
    const swapped = truthBank.items[best]!;
    const recs = [...bankRecords(truthBank)].map((r) => (r.item === swapped.id ? { ...r, key: (swapped.key + 1) % swapped.nOptions } : r));
    const result = fit(bankFromRecords(recs).bank);
    const audit = keyAudit(result.bank, result.layout, result.x);
    expect(audit.keys[0]!.id).toBe(swapped.id);
    expect(audit.keys[0]!.implied).toBe(swapped.key);
    expect(audit.keys[0]!.confidence).toBeGreaterThan(0.99);
  });
});
