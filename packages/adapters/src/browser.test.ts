import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fixture, tempDir } from '@llm-nrm/tooling/test';
import type { ResponseRecord } from '@llm-nrm/core';
import { parseLmEvalSamplesText, parseTidyJsonlText, sniffResponsesText } from './browser.js';
import { readLmEvalHarness } from './lmeval/readLmEvalHarness.js';
import { newReport } from './reader.js';
import { readResponses, writeResponses } from './tidy/index.js';

const samples = fixture(
  'lm-eval-harness/kt-lm-evaluation-harness/output/LGAI-EXAONE__EXAONE-3.0-7.8B-Instruct/samples_winogrande_2024-12-23T14-45-44.695233.jsonl',
);

async function all(it: AsyncIterable<ResponseRecord>): Promise<ResponseRecord[]> {
  const out: ResponseRecord[] = [];
  for await (const r of it) out.push(r);
  return out;
}

describe('browser entry', () => {
  it('parses an lm-eval samples text into the records the Node reader gives', async () => {
    const report = newReport();
    const node = await all(readLmEvalHarness(samples, { report }));
    const model = node[0]!.model;
    const text = readFileSync(samples, 'utf8');
    const got = parseLmEvalSamplesText(text, { file: samples.split('/').pop()!, model });
    expect(got.records.length).toBe(node.length);
    expect(got.records.length).toBeGreaterThanOrEqual(10);
    expect(got.records).toEqual(node);
    expect(got.sources[0]!.line).toBe(1);
    expect(sniffResponsesText(text)).toBe('lm-eval');
  });

  it('names the file and line of a bad sample and throws on a file with none', () => {
    const text = '{"doc_id": 0, "arguments": {"gen_args_0": {"arg_0": "Q", "arg_1": " A"}}}\nnot json\n';
    expect(() => parseLmEvalSamplesText(text, { file: 'samples_x_2024-01-01T00-00-00.jsonl', model: 'm' })).toThrow(
      /samples_x_2024-01-01T00-00-00\.jsonl:1: no multiple-choice lm-eval samples: 1 request: not multiple choice/,
    );
    const report = newReport();
    const ok = readFileSync(samples, 'utf8').split('\n')[0]!;
    const got = parseLmEvalSamplesText(`${ok}\nnot json\n`, { file: 'samples_winogrande_2024-12-23T14-45-44.jsonl', model: 'm', report });
    expect(got.records.length).toBe(1);
    expect(got.records[0]!.item).toBe('winogrande/0');
    expect(report.skipped).toEqual([expect.objectContaining({ line: 2 })]);
  });

  it('parses tidy JSON Lines text like readResponses, and names the line of a bad record', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const report = newReport();
      const records = (await all(readLmEvalHarness(samples, { report }))).slice(0, 50);
      const file = `${dir}/r.jsonl`;
      await writeResponses(records, file);
      const text = readFileSync(file, 'utf8');
      const got = parseTidyJsonlText(text, { file: 'r.jsonl' });
      expect(got.records).toEqual(await all(readResponses(file)));
      expect(sniffResponsesText(text)).toBe('tidy');
      const bad = text.split('\n');
      bad[2] = '{"model": "m", "item": "i", "key": -1, "choice": 0}';
      expect(() => parseTidyJsonlText(bad.join('\n'), { file: 'r.jsonl' })).toThrow(/r\.jsonl:3: key must be a non-negative integer, got -1/);
      const skipped = parseTidyJsonlText(bad.join('\n'), { file: 'r.jsonl', skipInvalid: true });
      expect(skipped.records.length).toBe(records.length - 1);
      expect(skipped.report.skipped[0]!.line).toBe(3);
    } finally {
      cleanup();
    }
  });

  it('imports nothing from node: (the whole relative import graph of the entry)', () => {
    const seen = new Set<string>();
    const bad: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:import|export)[^'"]*from\s+['"]([^'"]+)['"]/g)) {
        const spec = m[1]!;
        if (spec.startsWith('node:')) bad.push(`${file}: ${spec}`);
        else if (spec.startsWith('.')) visit(join(dirname(file), spec.replace(/\.js$/, '.ts')));
      }
    };
    visit(fileURLToPath(new URL('./browser.ts', import.meta.url)));
    expect(seen.size).toBeGreaterThan(5);
    expect(bad).toEqual([]);
  });
});
