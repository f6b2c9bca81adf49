import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixture } from '@llm-nrm/tooling/test';
import { isLmEvalResultsText, parseLmEvalResultsText } from './adaptiveResults.js';

/** A results file as nrm_adaptive.py's `run` writes it (the fields it reads; export/nrmAdaptivePy.ts). */
function adaptiveResults(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    results: { tiny_toy: { alias: 'tiny_toy', 'acc,none': 0.5, 'nrm_theta,none': 0.41 } },
    config: { model: 'sim', model_args: '', adaptive: true },
    model_name: 'sim-held-out',
    nrm_adaptive: {
      settings: { batch: 2, se: 0.3, minItems: 2, maxItems: 60, randomesque: 1, seed: 1, balance: true },
      stop: 'se',
      theta: 0.41,
      se: 0.28,
      sharpness: 1.1,
      items: ['i3', 'i7', 'i1'],
      pool: 120,
      rounds: [
        { answered: 0, theta: 0, se: 3, next: ['i3', 'i7'] },
        { answered: 2, theta: 0.5, se: 0.45, next: ['i1'] },
        { answered: 3, theta: 0.41, se: 0.28, next: [] },
      ],
      ...overrides,
    },
  };
}

const text = (v: unknown) => JSON.stringify(v, null, 2) + '\n';

describe('parseLmEvalResultsText', () => {
  it("reads an adaptive run's log: items in order, every round's estimate, the stop and its rule", () => {
    const got = parseLmEvalResultsText(text(adaptiveResults()), { file: 'results_2026.json' });
    expect(got.model).toBe('sim-held-out');
    expect(got.tasks).toEqual(['tiny_toy']);
    expect(got.adaptive).toEqual({
      stop: 'se',
      theta: 0.41,
      se: 0.28,
      items: ['i3', 'i7', 'i1'],
      pool: 120,
      settings: { se: 0.3, minItems: 2, maxItems: 60, batch: 2 },
      rounds: [
        { answered: 0, theta: 0, se: 3, next: ['i3', 'i7'] },
        { answered: 2, theta: 0.5, se: 0.45, next: ['i1'] },
        { answered: 3, theta: 0.41, se: 0.28, next: [] },
      ],
    });
  });

  it("reads a real lm-eval results file as an ordinary run's (no adaptive log)", () => {
    const dir = fixture('lm-eval-harness/kt-lm-evaluation-harness/output/LGAI-EXAONE__EXAONE-3.0-7.8B-Instruct');
    const results = readdirSync(dir).find((f) => /^results_.*\.json$/.test(f))!;
    const t = readFileSync(`${dir}/${results}`, 'utf8');
    expect(isLmEvalResultsText(t)).toBe(true);
    const got = parseLmEvalResultsText(t, { file: results });
    expect(got.adaptive).toBeNull();
    expect(got.tasks.length).toBeGreaterThan(0);
  });

  it('tells a results file from samples and tidy records', () => {
    expect(isLmEvalResultsText(text(adaptiveResults()))).toBe(true);
    expect(isLmEvalResultsText(`\n\n${text(adaptiveResults())}`)).toBe(true);
    expect(isLmEvalResultsText(JSON.stringify(adaptiveResults()))).toBe(true);
    expect(isLmEvalResultsText('{"doc_id": 0, "arguments": {}}\n{"doc_id": 1}\n')).toBe(false);
    expect(isLmEvalResultsText('{"model": "m", "item": "i", "key": 0, "probs": [1, 0]}\n')).toBe(false);
    expect(isLmEvalResultsText('[{"doc_id": 0}]')).toBe(false);
    expect(isLmEvalResultsText('{"model": "m", "item": "i", "key": 0, "results": {}}\n{"model": "m", "item": "j", "key": 0}\n')).toBe(false);
  });

  it('names the file and the field of a malformed log', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ stop: 'bored' }, /results_x\.json: nrm_adaptive\.stop must be "se", "max-items" or "pool", got "bored"/],
      [{ se: 'N/A' }, /results_x\.json: nrm_adaptive\.se must be a finite number, got "N\/A"/],
      [{ items: ['i3', 'i3', 'i1'] }, /results_x\.json: nrm_adaptive\.items asks an item twice/],
      [{ rounds: [] }, /nrm_adaptive\.rounds must be a non-empty list/],
      [{ settings: { se: 0.3, minItems: 2, maxItems: 1.5, batch: 2 } }, /nrm_adaptive\.settings\.maxItems must be a non-negative integer, got 1\.5/],
      [
        {
          rounds: [
            { answered: 0, theta: 0, se: 3, next: ['i3', 'i7'] },
            { answered: 3, theta: 0.5, se: 0.45, next: ['i1'] },
            { answered: 3, theta: 0.41, se: 0.28, next: [] },
          ],
        },
        /nrm_adaptive\.rounds\[1\]\.answered is 3, but the rounds before it asked 2 items/,
      ],
      [
        {
          rounds: [
            { answered: 0, theta: 0, se: 3, next: ['i7', 'i3'] },
            { answered: 2, theta: 0.5, se: 0.45, next: ['i1'] },
            { answered: 3, theta: 0.41, se: 0.28, next: [] },
          ],
        },
        /nrm_adaptive\.rounds\[0\]\.next is not items 1-2 of nrm_adaptive\.items/,
      ],
      [
        {
          rounds: [
            { answered: 0, theta: 0, se: 3, next: ['i3', 'i7'] },
            { answered: 2, theta: 0.5, se: 0.45, next: [] },
          ],
        },
        /nrm_adaptive\.rounds ask 2 items, nrm_adaptive\.items lists 3/,
      ],
    ];
    for (const [o, re] of cases) expect(() => parseLmEvalResultsText(text(adaptiveResults(o)), { file: 'results_x.json' }), String(re)).toThrow(re);
    expect(() => parseLmEvalResultsText('{"results": ', { file: 'results_y.json' })).toThrow(/results_y\.json:1: not a JSON lm-eval results file/);
    expect(() => parseLmEvalResultsText('{"a": 1}', { file: 'results_z.json' })).toThrow(/results_z\.json: not an lm-eval results file/);
  });
});
