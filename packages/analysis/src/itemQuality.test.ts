import { describe, expect, it } from 'vitest';
import { llmNrmLayout, simulateFleet, type ResponseBank } from '@llm-nrm/core';
import { informationSummary } from './informationSummary.js';
import { informativeDistractors } from './informativeDistractors.js';
import { itemInformation } from './itemInformation.js';
import { itemQuality } from './itemQuality.js';
import { selectItems } from './selectItems.js';
import { testInformation } from './testInformation.js';

// Three hand-made 3-option items (key 0):
// item 0: good: a = (1.5, -0.5, -1), c = 0: logits 1.5t, -0.5t, -t; for t < 0 option 2 (-t) is the
//   largest, for t > 0 the key: option 2 is the one informative distractor.
// item 1: miskeyed: a = (-1, 1, 0): logits -t, t, 0: the key wins for t < 0, option 1 for t > 0.
// item 2: flat: a = (0.05, 0, -0.05), c = (0, 2, 0): option 1 dominates everywhere on [-4, 4].
function handBank(): { bank: ResponseBank; x: Float64Array; layout: ReturnType<typeof llmNrmLayout> } {
  const bank = {
    models: ['m'],
    items: [0, 1, 2].map((i) => ({ id: `i${i}`, key: 0, nOptions: 3, benchmark: i < 2 ? 'A' : 'B' })),
    itemOffsets: Int32Array.of(0, 3, 6, 9),
    key: Int32Array.of(0, 0, 0),
    kMax: 3,
    colItem: Int32Array.of(0, 1, 2),
    colOffsets: Int32Array.of(0, 3, 6, 9),
    colPosition: null,
    q: new Float32Array(9),
    observed: Uint8Array.of(1, 1, 1),
    hard: new Uint8Array(3),
    leakage: null,
  } as ResponseBank;
  const layout = llmNrmLayout(bank, { sharpness: false, position: false, fallback: false });
  const x = new Float64Array(layout.size);
  x.set([1.5, -0.5, -1, -1, 1, 0, 0.05, 0, -0.05], layout.a);
  x.set([0, 0, 0, 0, 0, 0, 0, 2, 0], layout.c);
  return { bank, x, layout };
}

describe('itemQuality and informative distractors', () => {
  it('flags a miskeyed item, a falling key, no discrimination and a dominant distractor', () => {
    const { bank, x, layout } = handBank();
    const q = itemQuality(bank, layout, x);
    expect(q[0]!.flags).toEqual([]);
    expect(q[1]!.flags).toEqual(['possible-wrong-key', 'falling-key']);
    expect(q[1]!.topAtHigh).toBe(1);
    expect(q[2]!.flags).toEqual(['possible-wrong-key', 'low-discrimination', 'dominant-distractor']);
    expect(q[2]!.dominantMass).toBeCloseTo(1, 6);
    expect(informativeDistractors(bank, layout, x)).toEqual([[2], [1], [1]]);
  });

  it('summarises information per benchmark, selects by it, and sums test information', () => {
    const { bank, x, layout } = handBank();
    const info = itemInformation(bank, layout, x);
    const rows = informationSummary(bank, info);
    expect(rows.map((r) => r.benchmark)).toEqual(['A', 'B', '(all)']);
    expect(rows[2]!.gain).toBeCloseTo(rows[2]!.total / rows[2]!.binary - 1, 12);
    expect(rows[0]!.wrong).toBeGreaterThan(0);
    const sel = selectItems(bank, layout, x, 2, { abilities: 'prior' });
    expect(sel.ids[0]).toBe('i0');
    const ti = testInformation(bank, layout, x, { grid: [0] });
    const at0 = itemInformation(bank, layout, x, { abilities: [0] });
    expect(ti.total[0]).toBeCloseTo(at0.total[0]! + at0.total[1]! + at0.total[2]!, 12);
  });

  it('on a simulated fleet the options add information over binary scoring', () => {
    const { bank, truth, layout } = simulateFleet({ models: 4, items: 200, seed: 1 });
    const rows = informationSummary(bank, itemInformation(bank, layout, truth));
    expect(rows.at(-1)!.gain).toBeGreaterThan(0.2);
  });
});
