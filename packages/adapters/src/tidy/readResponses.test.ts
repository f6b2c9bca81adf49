// Bad input must fail with the file, line and offending value, or be listed (never dropped
// silently) under skipInvalid. Inputs are written to a temp dir by the test itself.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { LlmNrmError, parseResponseRecord, type ResponseRecord } from '@llm-nrm/core';
import { tempDir } from '@llm-nrm/tooling/test';
import { newReport } from '../reader.js';
import { loadBank } from './loadBank.js';
import { readResponses, readResponsesWithSources } from './readResponses.js';

const tmp = tempDir('llm-nrm-tidy-read-');
afterAll(() => tmp.cleanup());

const good = (i: number) => JSON.stringify({ model: 'm', item: `i/${i}`, key: 0, probs: [0.7, 0.3] });

function file(name: string, lines: string[]): string {
  const path = join(tmp.dir, name);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

async function collect(path: string, options = {}): Promise<ResponseRecord[]> {
  const out: ResponseRecord[] = [];
  for await (const r of readResponses(path, options)) out.push(r);
  return out;
}

async function failure(path: string): Promise<LlmNrmError> {
  try {
    await collect(path);
  } catch (e) {
    return e as LlmNrmError;
  }
  throw new Error(`no error reading ${path}`);
}

describe('readResponses on bad lines', () => {
  const cases: [string, string, string, RegExp][] = [
    ['malformed JSON', '{"model": "m", "item": "i/9", "key": 0, "probs": [0.5, 0.5]', 'INVALID_RECORD', /malformed JSON .*"probs": \[0\.5, 0\.5\]/],
    ['negative probability', '{"model":"m","item":"i/9","key":0,"probs":[0.5,-0.1,0.6]}', 'INVALID_PROBS', /invalid probability at option 1: -0\.1/],
    ['NaN (Python token)', '{"model":"m","item":"i/9","key":0,"probs":[NaN,0.5]}', 'INVALID_PROBS', /invalid probability at option 0: "NaN"/],
    ['NaN logprob', '{"model":"m","item":"i/9","key":0,"logprobs":[-1,"NaN"]}', 'INVALID_PROBS', /invalid logprob at option 1: "NaN"/],
    ['key out of range', '{"model":"m","item":"i/9","key":4,"options":["a","b","c","d"],"choice":1}', 'INVALID_KEY', /key out of range: 4 \(4 options\)/],
    [
      'two responses',
      '{"model":"m","item":"i/9","key":0,"probs":[1,0],"choice":0}',
      'INVALID_RECORD',
      /exactly one of probs, logprobs, choice \(has probs, choice\)/,
    ],
    ['no response', '{"model":"m","item":"i/9","key":0,"nOptions":2}', 'INVALID_RECORD', /no response/],
    ['missing model', '{"item":"i/9","key":0,"probs":[1,0]}', 'INVALID_RECORD', /model must be a non-empty string, got undefined/],
    ['lengths disagree', '{"model":"m","item":"i/9","key":0,"options":["a","b"],"probs":[0.2,0.3,0.5]}', 'INVALID_OPTIONS', /options has 2, probs has 3/],
    [
      'continuations disagree',
      '{"model":"m","item":"i/9","key":0,"probs":[0.5,0.5],"continuations":[" A"]}',
      'INVALID_OPTIONS',
      /probs has 2, continuations has 1/,
    ],
    [
      'source without harness',
      '{"model":"m","item":"i/9","key":0,"probs":[0.5,0.5],"source":{"task":"t"}}',
      'INVALID_RECORD',
      /source.harness must be a non-empty string/,
    ],
    ['prompt not a string', '{"model":"m","item":"i/9","key":0,"probs":[0.5,0.5],"prompt":7}', 'INVALID_RECORD', /prompt must be a string, got 7/],
  ];
  cases.forEach(([what, bad, code, message], n) => {
    it(`names file and line for ${what}`, async () => {
      const path = file(`bad-${n}.jsonl`, [good(1), '', good(2), bad, good(3)]);
      const e = await failure(path);
      expect(e).toBeInstanceOf(LlmNrmError);
      expect(e.code).toBe(code);
      expect(e.file).toBe(path);
      expect(e.line).toBe(4); // blank lines count: line numbers match an editor's
      expect(e.message).toMatch(message);
      expect(e.message.startsWith(`${path}:4: `)).toBe(true);
    });
  });

  it('under skipInvalid lists every bad line with its reason and keeps the good ones', async () => {
    const path = file('many-bad.jsonl', [good(1), ...cases.map((c) => c[1]), good(2)]);
    const report = newReport();
    const records = await collect(path, { skipInvalid: true, report });
    expect(records.map((r) => r.item)).toEqual(['i/1', 'i/2']);
    expect(report.records).toBe(2);
    expect(report.skipped.map((s) => s.line)).toEqual(cases.map((_, i) => i + 2));
    expect(report.skipped.every((s) => s.file === path)).toBe(true);
    expect(report.skipped[1]!.reason).toMatch(/invalid probability at option 1: -0\.1/);
  });

  it('reads -Infinity logprobs written as "-Infinity", "-inf", null or a bare token', async () => {
    const path = file('inf.jsonl', [
      '{"model":"m","item":"a","key":0,"logprobs":[-1,"-Infinity"]}',
      '{"model":"m","item":"b","key":0,"logprobs":[-1,null]}',
      '{"model":"m","item":"c","key":0,"logprobs":[-1,"-inf"]}',
      '{"model":"m","item":"d","key":0,"logprobs":[-1,-Infinity]}',
    ]);
    const records = await collect(path);
    expect(records.map((r) => r.logprobs)).toEqual(Array(4).fill([-1, -Infinity]));
  });

  it('reads nulls as absent fields and an all-null response as an unparsable answer', async () => {
    const path = file('nulls.jsonl', [
      '{"model":"m","item":"a","benchmark":null,"key":1,"options":null,"probs":[0.1,0.9],"logprobs":null,"choice":null,"nOptions":null,"position":null,"leakage":null}',
      '{"model":"m","item":"b","key":1,"probs":null,"logprobs":null,"choice":null,"nOptions":3}',
    ]);
    expect(await collect(path)).toStrictEqual([
      { model: 'm', item: 'a', key: 1, probs: [0.1, 0.9] },
      { model: 'm', item: 'b', key: 1, choice: null, nOptions: 3 },
    ]);
  });

  it('gives each record its source line, gzipped or not', async () => {
    const lines = [good(1), '', good(2)];
    const path = join(tmp.dir, 'src.jsonl.gz');
    writeFileSync(path, gzipSync(lines.join('\n')));
    const sources = [];
    for await (const { source } of readResponsesWithSources(path)) sources.push(source);
    expect(sources).toEqual([
      { file: path, line: 1 },
      { file: path, line: 3 },
    ]);
  });

  it('says which file it cannot open', async () => {
    const missing = join(tmp.dir, 'nope.jsonl');
    await expect(collect(missing)).rejects.toMatchObject({ code: 'IO', file: missing });
  });

  it('names the missing columns of a table that is not tidy', async () => {
    const { writeFile } = await import('node:fs/promises');
    const aq = await import('arquero');
    const path = join(tmp.dir, 'other.arrow');
    await writeFile(path, aq.toArrowIPC(aq.from([{ doc_id: 1, probs: [1, 0] }]), { format: 'file' }));
    await expect(collect(path)).rejects.toThrow(/missing column model, item, key/);
  });
});

describe('parseResponseRecord', () => {
  it('returns a canonical copy and rejects non-objects', () => {
    const input = { model: 'm', item: 'i', key: 1, probs: [0.5, 0.5], extra: 'ignored' };
    expect(parseResponseRecord(input)).toStrictEqual({ model: 'm', item: 'i', key: 1, probs: [0.5, 0.5] });
    expect(() => parseResponseRecord([1, 2])).toThrow(/record is not an object: \[1,2\]/);
    expect(() => parseResponseRecord({ model: 'm', item: 'i', key: 1.5, choice: 0 })).toThrow(/key must be a non-negative integer, got 1.5/);
  });
});

describe('loadBank', () => {
  it('builds a bank and counts hard, soft and missing answers', async () => {
    const path = file('bank.jsonl', [
      '{"model":"a","item":"x","key":0,"probs":[0.6,0.4]}',
      '{"model":"b","item":"x","key":0,"choice":1,"nOptions":2}',
      '{"model":"a","item":"y","key":2,"logprobs":[-1,-2,"-Infinity"]}',
      '{"model":"b","item":"y","key":2,"choice":null,"nOptions":3}',
    ]);
    const { bank, stats, report } = await loadBank(path);
    expect(bank.models).toEqual(['a', 'b']);
    expect(bank.items.map((i) => i.id)).toEqual(['x', 'y']);
    expect(stats).toMatchObject({ records: 4, soft: 2, hard: 1, missingAnswers: 1 });
    expect(report.records).toBe(4);
  });

  it("names the line of an error only core's bankFromRecords sees", async () => {
    const path = file('zero.jsonl', [good(1), good(2), '{"model":"m","item":"i/3","key":0,"probs":[0,0]}']);
    await expect(loadBank(path)).rejects.toMatchObject({ code: 'INVALID_PROBS', file: path, line: 3 });
    const keyed = file('keyed.jsonl', [good(1), '', '{"model":"n","item":"i/1","key":1,"probs":[0.5,0.5]}']);
    await expect(loadBank(keyed)).rejects.toThrow(new RegExp(`^${keyed}:3: item "i/1" is keyed 1 here but 0 elsewhere`));
  });
});
