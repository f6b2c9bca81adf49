import { describe, expect, it } from 'vitest';
import { bankFromRecords } from '../data/bank.js';
import { itemContentSha256, recordContentSha256 } from '../data/itemContent.js';
import { LlmNrmError } from '../errors.js';
import { MAX_OPTIONS, parseResponseRecord } from './parseResponseRecord.js';

const base = { model: 'm', item: 'i/1', key: 0 };

function codeOf(value: unknown): string {
  try {
    parseResponseRecord(value);
  } catch (e) {
    expect(e).toBeInstanceOf(LlmNrmError);
    return `${(e as LlmNrmError).code}: ${(e as LlmNrmError).message}`;
  }
  return 'ok';
}

describe('parseResponseRecord (the one record check)', () => {
  it('rejects what fit rejects: zero and overflowing sums, too many options, bad positions', () => {
    expect(codeOf({ ...base, probs: [0, 0] })).toMatch(/^INVALID_PROBS: probabilities sum to 0/);
    expect(codeOf({ ...base, probs: [1e308, 1e308, 1e308] })).toMatch(/^INVALID_PROBS: probabilities overflow/);
    expect(codeOf({ ...base, logprobs: ['-Infinity', null] })).toMatch(/^INVALID_PROBS: every logprob is -Infinity/);
    const many = Array.from({ length: MAX_OPTIONS + 1 }, () => 1);
    expect(codeOf({ ...base, probs: many })).toMatch(/^INVALID_OPTIONS: invalid option count: 21 \(must be 2 to 20\)/);
    expect(codeOf({ ...base, choice: 0, nOptions: 21 })).toMatch(/^INVALID_OPTIONS/);
    expect(codeOf({ ...base, probs: [0.5, 0.5], position: [1, 1] })).toMatch(/^INVALID_RECORD: position is not a permutation/);
    expect(codeOf({ ...base, probs: [1e300, 1e300] })).toBe('ok');
  });

  it('returns a fresh canonical record carrying prompt, continuations and source', () => {
    const raw = {
      ...base,
      options: ['a', 'b'],
      logprobs: [-1, '-Infinity'],
      prompt: 'Q?',
      continuations: [' a', ' b'],
      source: '{"harness":"lm-eval","docId":"3"}',
      extra: 1,
    };
    const r = parseResponseRecord(raw);
    expect(r).toStrictEqual({
      ...base,
      options: ['a', 'b'],
      logprobs: [-1, -Infinity],
      prompt: 'Q?',
      continuations: [' a', ' b'],
      source: { harness: 'lm-eval', docId: '3' },
    });
    expect(r.options).not.toBe(raw.options);
  });

  it("carries a multiple-input item's per-option contexts, one per option, never beside a prompt", () => {
    const raw = { ...base, options: ['a', 'b'], probs: [0.6, 0.4], contexts: ['The cat', 'The dog'], continuations: [' ran.', ' ran.'] };
    const r = parseResponseRecord(raw);
    expect(r.contexts).toStrictEqual(['The cat', 'The dog']);
    expect(r.contexts).not.toBe(raw.contexts);
    expect(codeOf({ ...raw, contexts: ['The cat'] })).toBe('INVALID_OPTIONS: option counts disagree: options has 2, contexts has 1');
    expect(codeOf({ ...raw, contexts: ['The cat', 3] })).toMatch(/^INVALID_RECORD: contexts must be an array of strings/);
    expect(codeOf({ ...raw, prompt: 'Q?' })).toMatch(/^INVALID_RECORD: a record has prompt .* or contexts .*, not both/);
    // Column stores write null for an absent field.
    expect(parseResponseRecord({ ...raw, contexts: null }).contexts).toBeUndefined();
  });

  it('gives a multiple-input item its own content hash: a changed context is another item', () => {
    const rec = (m: string, contexts: string[]) => ({ ...base, model: m, probs: [0.6, 0.4], contexts, continuations: [' ran.', ' ran.'] });
    const { bank } = bankFromRecords([rec('m', ['The cat', 'The dog'])]);
    expect(bank.items[0]!.contentSha256).toBe(itemContentSha256(['The cat', 'The dog'], [' ran.', ' ran.']));
    expect(bank.items[0]!.contentSha256).toBe(recordContentSha256({ contexts: ['The cat', 'The dog'], continuations: [' ran.', ' ran.'] }));
    expect(() => bankFromRecords([rec('n', ['The cat', 'The fox'])], { items: bank.items })).toThrow(/answered on another prompt, contexts or continuations/);
    expect(bankFromRecords([rec('n', ['The cat', 'The dog'])], { items: bank.items }).stats.records).toBe(1);
  });

  it('is what bankFromRecords checks with: a record the parser rejects never reaches a bank', () => {
    expect(() => bankFromRecords([{ ...base, probs: [1e308, 1e308] }], { file: 'r.jsonl' })).toThrow(/r\.jsonl:1: probabilities overflow/);
  });

  it('bankFromRecords never merges two items that share an id but not their option texts', () => {
    const a = { ...base, options: ['Sarah', 'Maria'], probs: [0.6, 0.4] };
    const b = { ...base, model: 'n', options: ['the cat', 'the dog'], probs: [0.2, 0.8] };
    expect(() => bankFromRecords([a, b], { file: 'r.jsonl' })).toThrow(/r\.jsonl:2: item "i\/1" has other option texts/);
    // The same texts (or texts on one side only) are the same item.
    const { bank } = bankFromRecords([a, { ...b, options: ['Sarah', 'Maria'] }, { ...b, model: 'o', options: undefined }]);
    expect(bank.items).toHaveLength(1);
    expect(bank.items[0]!.options).toEqual(['Sarah', 'Maria']);
  });
});

describe('parseResponseRecord with adopt (a value just parsed, held by nothing else)', () => {
  it('gives the record the copying parse gives, taking the arrays instead of copying them', () => {
    const values = [
      { model: 'm', item: 'i', key: 1, probs: [0.5, -0, 0.5], options: ['a', 'b', 'c'], position: [2, 0, 1], benchmark: 'b', x: 1 },
      { model: 'm', item: 'i', key: 0, logprobs: [-0, null, '-inf', -2], continuations: [' a', ' b', ' c', ' d'], prompt: 'p' },
      { model: 'm', item: 'i', key: 0, choice: null, nOptions: 3 },
      { model: 'm', item: 'i', key: 0, choice: 1, contexts: ['x', 'y'], continuations: [' a', ' b'] },
    ];
    for (const v of values) {
      const copy = parseResponseRecord(structuredClone(v));
      const own = structuredClone(v) as Record<string, unknown>;
      const adopted = parseResponseRecord(own, { adopt: true });
      expect(adopted).toEqual(copy);
      for (const f of ['probs', 'logprobs', 'options', 'position', 'continuations', 'contexts'] as const) {
        if (own[f] != null) expect((adopted as unknown as Record<string, unknown>)[f]).toBe(own[f]);
      }
    }
    expect(Object.is(parseResponseRecord(structuredClone(values[0]), { adopt: true }).probs![1], 0)).toBe(true);
  });

  it('refuses what the copying parse refuses, with the same message', () => {
    const bad = { model: 'm', item: 'i', key: 0, probs: [0.5, 'x'] };
    expect(() => parseResponseRecord(structuredClone(bad), { adopt: true })).toThrow('invalid probability at option 1: "x"');
    expect(() => parseResponseRecord({ ...base, probs: [0.5, 0.5], options: ['a', 'b', 'c'] }, { adopt: true })).toThrow(
      'option counts disagree: options has 3, probs has 2',
    );
  });
});
