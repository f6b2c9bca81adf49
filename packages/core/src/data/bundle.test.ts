import { describe, expect, it } from 'vitest';
import { bankFromRecords } from './bank.js';
import { bundleItems, bundleParameters, parseBundle, toBundle, validateBundle } from './bundle.js';
import { LlmNrmError } from '../errors.js';
import { fit } from '../fit/fit.js';
import { modelObjective } from '../fit/modelObjective.js';
import { scoreResponses } from '../score/score.js';
import { bankRecords, simulateFleet } from '../simulate/simulate.js';

const fleet = simulateFleet({ models: 16, items: 80, seed: 11 });
const result = fit(fleet.bank);
const bundle = toBundle(result, { version: '0.1.0', createdAt: '2026-11-29T00:00:00Z', seed: 11 });

describe('calibration bundle', () => {
  it('validates against the published schema and survives JSON', () => {
    const text = JSON.stringify(bundle);
    const back = parseBundle(text, 'bundle.json');
    expect(back.schemaVersion).toBe(1);
    expect(back.llms).toHaveLength(16);
    expect(back.items[0]!.a.reduce((s, v) => s + v, 0)).toBeCloseTo(0, 12);
    expect(back.llms[0]!.positionBias.reduce((s, v) => s + v, 0)).toBeCloseTo(0, 12);
  });

  it('rebuilds parameters that give the same loss', () => {
    const { bank } = bankFromRecords(bankRecords(fleet.bank), { items: bundleItems(bundle) });
    const { x } = bundleParameters(bundle, bank);
    const { objective } = modelObjective(bank, 'llm-nrm');
    const g = new Float64Array(x.length);
    const g2 = new Float64Array(x.length);
    expect(objective.lossAndGrad(x, g, { thetaPrior: false })).toBeCloseTo(objective.lossAndGrad(result.x, g2, { thetaPrior: false }), 6);
  });

  it.each([
    [(b: any) => (b.schemaVersion = 2), /schemaVersion/],
    [(b: any) => delete b.items, /must have required property 'items'/],
    [(b: any) => (b.llms[0].sharpness = -1), /llms\/0\/sharpness/],
    [(b: any) => (b.items[3].key = 99), /key 99 out of range/],
    [(b: any) => b.items[2].a.pop(), /slopes/],
  ])('rejects a broken bundle with a message saying where (%#)', (mutate, msg) => {
    const b = JSON.parse(JSON.stringify(bundle));
    mutate(b);
    try {
      validateBundle(b, 'bad.json');
      expect.unreachable();
    } catch (e) {
      expect((e as LlmNrmError).code).toBe('INVALID_BUNDLE');
      expect((e as Error).message).toContain('bad.json');
      expect((e as Error).message).toMatch(msg);
    }
  });

  it('rejects text that is not JSON', () => {
    expect(() => parseBundle('{oops', 'x.json')).toThrow(/x.json is not JSON/);
  });
});

describe('scoreResponses', () => {
  it('places LLMs near their calibrated abilities with item parameters fixed', () => {
    const records = [...bankRecords(fleet.bank)];
    const scored = scoreResponses(bundle, records);
    expect(scored.llms).toHaveLength(16);
    for (const l of scored.llms) {
      const calibrated = bundle.llms.find((c) => c.id === l.id)!;
      expect(Math.abs(l.theta - calibrated.theta)).toBeLessThan(3 * l.se + 0.15);
      expect(l.cells).toBe(80);
    }
  });

  it('scores from a handful of items with a wider standard error', () => {
    // An LLM of middling ability (fitted theta nearest 0). Not the weakest: with the gate near its
    // truth (Priors.gateSd), LLM 0 (theta -1.5) answers mostly by the fallback, where theta's
    // information per cell collapses, so its 80-item estimate (-1.64, SE 0.72) sits where 80 cells
    // inform it less than 6 do at the 6-item estimate (-0.72, SE 0.71).
    let mid = 0;
    for (let j = 0; j < fleet.bank.models.length; j++) if (Math.abs(result.x[j]!) < Math.abs(result.x[mid]!)) mid = j;
    const model = fleet.bank.models[mid];
    const records = [...bankRecords(fleet.bank)].filter((r) => r.model === model && Number(r.item.split('/')[1]) < 6);
    const few = scoreResponses(bundle, records).llms[0]!;
    const all = scoreResponses(
      bundle,
      [...bankRecords(fleet.bank)].filter((r) => r.model === model),
    ).llms[0]!;
    expect(few.cells).toBe(6);
    expect(Number.isFinite(few.theta)).toBe(true);
    expect(few.se).toBeGreaterThan(all.se);
    // The prior's SD bounds the posterior SD of theta from above (default N(0, 3^2); N(0, 1) on request).
    expect(few.se).toBeLessThan(3);
    const tight = scoreResponses(bundle, records, { thetaSd: 1 }).llms[0]!;
    expect(tight.se).toBeLessThan(1);
  });

  it('names responses to items the bundle does not hold', () => {
    const r = { model: 'new', item: 'elsewhere/1', key: 0, probs: [0.5, 0.5] };
    expect(() => scoreResponses(bundle, [r], { file: 'new.jsonl' })).toThrow(/new.jsonl:1: item not in the calibrated bank: "elsewhere\/1"/);
  });
});

describe('item content in the bundle', () => {
  it('carries source and contentSha256 from the records, validates, and refuses a changed text at scoring', async () => {
    const {
      bankFromRecords: fromRecords,
      fit: fitBank,
      toBundle: bundleOf,
      validateBundle: validate,
      scoreResponses: score,
      itemContentSha256: hash,
    } = await import('../index.js');
    const recs = [];
    for (let j = 0; j < 6; j++) {
      for (let i = 0; i < 8; i++) {
        const p = [0.2, 0.2, 0.2, 0.2];
        p[(i + j) % 4] = 0.4 + 0.05 * j;
        recs.push({
          model: `m${j}`,
          item: `t/${i}`,
          key: i % 4,
          probs: p,
          prompt: `Q${i}\nAnswer:`,
          continuations: [' A', ' B', ' C', ' D'],
          source: { harness: 'lm-eval', task: 't', docId: String(i) },
        });
      }
    }
    const { bank } = fromRecords(recs);
    const b = bundleOf(fitBank(bank, { model: 'llm-nrm', standardErrors: false }), { version: 'test' });
    expect(b.items[3]!.source).toEqual({ harness: 'lm-eval', task: 't', docId: '3' });
    expect(b.items[3]!.contentSha256).toBe(hash('Q3\nAnswer:', [' A', ' B', ' C', ' D']));
    expect(validate(JSON.parse(JSON.stringify(b)))).toBeTruthy();
    expect(() => validate({ ...b, items: [{ ...b.items[0]!, contentSha256: 'nothex' }, ...b.items.slice(1)] })).toThrow(/contentSha256/);
    // Same text: scored; edited prompt: CONTENT_CHANGED, or skipped and counted under skipInvalid.
    const fresh = recs.filter((r) => r.model === 'm2').map((r) => ({ ...r, model: 'new' }));
    expect(score(b, fresh).llms[0]!.cells).toBe(8);
    const edited = fresh.map((r, i) => (i === 0 ? { ...r, prompt: 'Q0 (edited)\nAnswer:' } : r));
    expect(() => score(b, edited)).toThrow(
      expect.objectContaining({ code: 'CONTENT_CHANGED', message: expect.stringMatching(/"t\/0" was answered on another prompt/) }),
    );
    const skipped = score(b, edited, { skipInvalid: true });
    expect(skipped.stats.skipped).toBe(1);
    expect(skipped.llms[0]!.cells).toBe(7);
  });
});
