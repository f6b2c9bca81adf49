// The threaded read (JSON Lines chunks, Parquet row groups) against the serial one: the same records in the same order, the same
// sources (global line numbers), the same summary and skips, and the same error text for a bad line
// deep in a later chunk. On a simulated file of every record shape and on tidy files converted from
// the real fixtures. The worker script is the built one (dist/): `npm test` builds first.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { bankRecords, LlmNrmError, randomSource, simulateFleet, type ResponseRecord } from '@llm-nrm/core';
import { fixture, tempDir } from '@llm-nrm/tooling/test';
import { convertPaths } from '../../convert.js';
import { readAnyResponses, type AnyResponses } from '../../readAnyResponses.js';
import { newReport } from '../../reader.js';
import { readResponsesWithSources, type SourcedRecord } from '../readResponses.js';
import { writeResponses } from '../writeResponses.js';
import { jsonlChunks, parquetChunks, readJsonlThreaded, readParquetThreaded } from './threadedRead.js';

const tmp = tempDir('llm-nrm-jsonl-chunks-');
afterAll(() => tmp.cleanup());

/**
 * A simulated fleet written as JSON Lines with every record shape the compact form must carry or
 * pass whole: probs, logprobs (with "-Infinity" and bare -Infinity), hard and unparsable answers,
 * with and without benchmark, options, position, leakage, texts and source; a byte order mark,
 * CRLF line ends and blank lines.
 */
function simulatedLines(seed: number): string[] {
  const fleet = simulateFleet({ models: 24, items: 150, seed, hard: 0.2, missing: 0.05, rotations: 2 });
  const random = randomSource(seed);
  const rng = (): number => random.uniform();
  const lines: string[] = [];
  let n = 0;
  for (const r of bankRecords(fleet.bank)) {
    const rec: Record<string, unknown> = { ...r };
    const u = rng();
    if (u < 0.1 && rec.probs !== undefined) {
      const p = rec.probs as number[];
      rec.logprobs = p.map((x, t) => (t === 1 && u < 0.03 ? '-Infinity' : Math.log(x)));
      delete rec.probs;
    } else if (u < 0.15) delete rec.benchmark;
    else if (u < 0.2) rec.leakage = 0.25;
    else if (u < 0.22) rec.choice = null;
    if (rec.choice === null) {
      delete rec.probs;
      delete rec.logprobs;
    }
    if (rng() < 0.05) rec.prompt = `Question ${rec.item as string}?`;
    if (rng() < 0.02) rec.source = { harness: 'sim', task: 'sim', docId: String(n) };
    let text = JSON.stringify(rec);
    if (rng() < 0.01) text = text.replace('"-Infinity"', '-Infinity');
    lines.push(text);
    if (rng() < 0.01) lines.push('');
    n++;
  }
  return lines;
}

function writeLines(name: string, lines: string[], crlfEvery = 7): string {
  const path = join(tmp.dir, name);
  writeFileSync(path, '\ufeff' + lines.map((l, i) => l + (i % crlfEvery === 3 ? '\r\n' : '\n')).join(''));
  return path;
}

async function sourced(path: string, options: Parameters<typeof readResponsesWithSources>[1]): Promise<SourcedRecord[]> {
  const out: SourcedRecord[] = [];
  for await (const s of readResponsesWithSources(path, options)) out.push(s);
  return out;
}

async function failure(run: () => Promise<unknown>): Promise<LlmNrmError> {
  try {
    await run();
  } catch (e) {
    if (e instanceof LlmNrmError) return e;
    throw e;
  }
  throw new Error('no error');
}

/** readAnyResponses serially and on `threads` threads, checked to have taken the threaded path. */
async function bothReads(path: string, threads: number, options: { skipInvalid?: boolean } = {}): Promise<[AnyResponses, AnyResponses]> {
  expect(await readJsonlThreaded(path, { threads })).toBeDefined();
  return [await readAnyResponses(path, { ...options, threads: 1 }), await readAnyResponses(path, { ...options, threads })];
}

describe('jsonlChunks', () => {
  it('cuts just after a newline, never inside a CRLF, and not at all without one', async () => {
    const a = writeLines('cuts.jsonl', ['{"a":1}', '{"b":22}', '{"c":333}', '{"d":4444}', '{"e":5}'], 1);
    const size = statSync(a).size;
    const ranges = await jsonlChunks(a, size, 3);
    expect(ranges[0]!.start).toBe(0);
    expect(ranges.at(-1)!.end).toBe(size);
    const bytes = readFileSync(a);
    for (let i = 1; i < ranges.length; i++) {
      expect(ranges[i]!.start).toBe(ranges[i - 1]!.end);
      expect(bytes[ranges[i]!.start - 1]).toBe(10);
    }
    expect(ranges.length).toBeGreaterThan(1);
    const cr = join(tmp.dir, 'cr.jsonl');
    writeFileSync(cr, '{"a":1}\r{"b":2}\r{"c":3}\r');
    expect(await jsonlChunks(cr, statSync(cr).size, 4)).toEqual([{ start: 0, end: statSync(cr).size }]);
  });
});

describe('the threaded read', () => {
  const lines = simulatedLines(11);
  const path = writeLines('sim.jsonl', lines);

  it('gives the serial records, sources, summary and duplicates on a simulated file', async () => {
    for (const threads of [2, 3, 4]) {
      const [serial, threaded] = await bothReads(path, threads);
      expect(threaded.records.length).toBeGreaterThan(6000);
      expect(threaded.records).toStrictEqual(serial.records);
      expect(threaded.sources).toStrictEqual(serial.sources);
      expect(threaded.summary).toStrictEqual(serial.summary);
      expect(threaded.duplicates).toStrictEqual(serial.duplicates);
      expect(threaded.itemVersions).toStrictEqual(serial.itemVersions);
    }
    // Every shape made it through: whole records (texts, source) and compact ones of each kind.
    const [, threaded] = await bothReads(path, 2);
    const has = (f: (r: ResponseRecord) => boolean) => threaded.records.some(f);
    expect(has((r) => r.logprobs?.includes(-Infinity) === true)).toBe(true);
    expect(has((r) => r.choice === null) && has((r) => typeof r.choice === 'number') && has((r) => r.benchmark === undefined)).toBe(true);
    expect(has((r) => r.prompt !== undefined) && has((r) => r.source !== undefined) && has((r) => r.position !== undefined)).toBe(true);
  });

  it('gives the serial error text for a bad line deep in a later chunk', async () => {
    for (const [threads, chunk] of [
      [2, 1],
      [3, 2],
    ] as const) {
      const clean = writeLines(`clean-${threads}.jsonl`, lines);
      const ranges = await jsonlChunks(clean, statSync(clean).size, threads);
      expect(ranges.length).toBe(threads);
      // The line whose start lies 70% into the chunk.
      const text = lines.map((l, i) => l + (i % 7 === 3 ? '\r\n' : '\n'));
      let at = 3; // the byte order mark
      let bad = 0;
      const target = ranges[chunk]!.start + 0.7 * (ranges[chunk]!.end - ranges[chunk]!.start);
      while (at < target) at += Buffer.byteLength(text[bad++]!);
      for (const [what, line] of [
        ['negative probability', '{"model":"m","item":"sim/9","key":0,"probs":[0.5,-0.1,0.6]}'],
        ['malformed JSON', '{"model":"m","item":"sim/9","key":0,"probs":[0.5,0.5]'],
      ]) {
        const broken = [...lines];
        broken[bad] = line!;
        const file = writeLines(`bad-${threads}-${what!.replace(' ', '-')}.jsonl`, broken);
        expect(await readJsonlThreaded(file, { threads })).toBeDefined();
        const serial = await failure(() => readAnyResponses(file, { threads: 1 }));
        const threaded = await failure(() => readAnyResponses(file, { threads }));
        expect(threaded.message).toBe(serial.message);
        expect([threaded.code, threaded.file, threaded.line]).toEqual([serial.code, serial.file, serial.line]);
        // Line numbers are global: the bad line's own (1-based), counted across chunks.
        expect(serial.line).toBe(bad + 1);
        expect(threaded.message).toContain(`${file}:${bad + 1}: `);
        expect(threaded.message).toMatch(what === 'malformed JSON' ? /malformed JSON/ : /invalid probability at option 1: -0\.1/);

        // --skip-invalid: the same records, and the same skip listed at the same line.
        const [s, t] = await bothReads(file, threads, { skipInvalid: true });
        expect(t.summary.skipped).toStrictEqual(s.summary.skipped);
        expect(t.summary.skipped).toHaveLength(1);
        expect(t.summary.skipped[0]!.line).toBe(bad + 1);
        expect(t.records).toStrictEqual(s.records);
        expect(t.sources).toStrictEqual(s.sources);
      }
    }
  });

  it('lists every skip of a file of many bad lines in order, with the serial report', async () => {
    // A real JSON Lines file that is not tidy (NAEP responses): every line is invalid.
    const naep = fixture('response-matrices/mainlp-llm-psychometrics/llm-responses/output/naep-economics-responses-Llama-3.1-70B.jsonl');
    const serialReport = newReport();
    const threadedReport = newReport();
    const serial = await failure(() => sourced(naep, { threads: 1 }));
    const threaded = await failure(() => sourced(naep, { threads: 3 }));
    expect(threaded.message).toBe(serial.message);
    await sourced(naep, { threads: 1, skipInvalid: true, report: serialReport });
    await sourced(naep, { threads: 3, skipInvalid: true, report: threadedReport });
    expect(threadedReport.skipped.length).toBeGreaterThan(10);
    expect(threadedReport).toStrictEqual(serialReport);
  });

  it('gives the serial records on tidy files converted from the real fixtures', async () => {
    const inputs: [string, string][] = [
      ['naep', fixture('response-matrices/mainlp-llm-psychometrics')],
      ['winogrande', fixture('lm-eval-harness/lm-eval-pr1567-slurmevals/SlurmEvals')],
      ['metabench', fixture('response-matrices/metabench-lm-eval-samples')],
    ];
    for (const [name, input] of inputs) {
      const out = join(tmp.dir, `${name}.jsonl`);
      await writeResponses(convertPaths([input], { skipInvalid: true }).records, out);
      for (const threads of [2, 3]) {
        const [serial, threaded] = await bothReads(out, threads);
        expect(threaded.records.length).toBeGreaterThan(100);
        expect(threaded.records).toStrictEqual(serial.records);
        expect(threaded.sources).toStrictEqual(serial.sources);
        expect(threaded.summary).toStrictEqual(serial.summary);
        expect(threaded.duplicates).toStrictEqual(serial.duplicates);
      }
    }
  });

  it('reads small files, gzipped files and one thread serially', async () => {
    expect(await readJsonlThreaded(path, {})).toBeUndefined(); // below 8 MiB, no thread count given
    expect(await readJsonlThreaded(path, { threads: 1 })).toBeUndefined();
    const gz = join(tmp.dir, 'sim.jsonl.gz');
    writeFileSync(gz, gzipSync(Buffer.from(lines.join('\n'))));
    expect(await readJsonlThreaded(gz, { threads: 2 })).toBeUndefined();
  });
});

describe('the threaded Parquet read', () => {
  it('cuts at row group bounds: the first share on this thread, then equal parts', () => {
    expect(parquetChunks([100, 100, 100, 100, 100, 100, 100, 100, 100, 100], 2)).toEqual([
      { from: 0, to: 3 },
      { from: 3, to: 10 },
    ]);
    const three = parquetChunks(
      Array.from({ length: 20 }, () => 10),
      3,
    );
    expect(three[0]!.from).toBe(0);
    expect(three.at(-1)!.to).toBe(20);
    for (let i = 1; i < three.length; i++) expect(three[i]!.from).toBe(three[i - 1]!.to);
    expect(three).toHaveLength(3);
    expect(parquetChunks([1000], 4)).toEqual([{ from: 0, to: 1 }]);
    expect(parquetChunks([], 2)).toEqual([{ from: 0, to: 0 }]);
  });

  it('gives the serial records, sources, summary and skips, with rows numbered across the file', async () => {
    const fleet = simulateFleet({ models: 24, items: 150, seed: 5, hard: 0.2, missing: 0.05, rotations: 2 });
    const records = [...bankRecords(fleet.bank)];
    records[40] = { ...records[40]!, prompt: 'Question?', source: { harness: 'sim', task: 't', docId: '4' } };
    const path = join(tmp.dir, 'sim.parquet');
    await writeResponses(records, path, { batchSize: 500 });
    for (const threads of [2, 3]) {
      expect(await readParquetThreaded(path, { threads })).toBeDefined();
      const serial = await readAnyResponses(path, { threads: 1 });
      const threaded = await readAnyResponses(path, { threads });
      expect(threaded.records.length).toBe(records.length);
      expect(threaded.records).toStrictEqual(serial.records);
      expect(threaded.sources).toStrictEqual(serial.sources);
      expect(threaded.summary).toStrictEqual(serial.summary);
      expect(threaded.duplicates).toStrictEqual(serial.duplicates);
      expect(threaded.sources.at(-1)!.line).toBe(records.length);
    }
    expect(await readParquetThreaded(path, {})).toBeUndefined(); // below 8 MiB, no thread count given
    expect(await readParquetThreaded(path, { threads: 1 })).toBeUndefined();
  });

  it('names the serial file and row for a bad row in a later chunk, or skips it as the serial read does', async () => {
    // A table written by another tool, with a negative key in row 2,345 (in the last chunk).
    const { parquetWriteBuffer } = await import('hyparquet-writer');
    const n = 3000;
    const bad = 2345;
    const buffer = parquetWriteBuffer({
      columnData: [
        { name: 'model', data: Array.from({ length: n }, (_, i) => `m${i % 7}`), type: 'STRING' },
        { name: 'item', data: Array.from({ length: n }, (_, i) => `i${i}`), type: 'STRING' },
        { name: 'key', data: Int32Array.from({ length: n }, (_, i) => (i + 1 === bad ? -1 : i % 4)), type: 'INT32' },
        { name: 'choice', data: Int32Array.from({ length: n }, (_, i) => (i * 7) % 4), type: 'INT32' },
        { name: 'nOptions', data: Int32Array.from({ length: n }, () => 4), type: 'INT32' },
      ],
      rowGroupSize: 200,
    });
    const file = join(tmp.dir, 'bad.parquet');
    writeFileSync(file, new Uint8Array(buffer));
    expect(await readParquetThreaded(file, { threads: 3 })).toBeDefined();
    const serial = await failure(() => readAnyResponses(file, { threads: 1 }));
    const threaded = await failure(() => readAnyResponses(file, { threads: 3 }));
    expect(threaded.message).toBe(serial.message);
    expect([threaded.code, threaded.file, threaded.line]).toEqual([serial.code, file, bad]);
    const s = await readAnyResponses(file, { threads: 1, skipInvalid: true });
    const t = await readAnyResponses(file, { threads: 3, skipInvalid: true });
    expect(t.summary.skipped).toStrictEqual(s.summary.skipped);
    expect(t.summary.skipped.map((k) => k.line)).toEqual([bad]);
    expect(t.records).toStrictEqual(s.records);
    expect(t.records).toHaveLength(n - 1);
  });

  it('reads a table without a choice column: a row whose probs is null is a missing answer, as with the column', async () => {
    // Another tool's table of only the columns it uses; row 2's probs is null (an unparsable answer).
    const { parquetWriteBuffer } = await import('hyparquet-writer');
    const probs = [[0.6, 0.4], null, [0.1, 0.9]];
    const buffer = parquetWriteBuffer({
      columnData: [
        { name: 'model', data: ['m', 'm', 'm'] },
        { name: 'item', data: ['i0', 'i1', 'i2'] },
        { name: 'key', data: Int32Array.from([0, 1, 1]) },
        { name: 'probs', data: probs },
      ],
      schema: [
        { name: 'root', num_children: 4 },
        { name: 'model', repetition_type: 'REQUIRED', type: 'BYTE_ARRAY', converted_type: 'UTF8' },
        { name: 'item', repetition_type: 'REQUIRED', type: 'BYTE_ARRAY', converted_type: 'UTF8' },
        { name: 'key', repetition_type: 'REQUIRED', type: 'INT32' },
        { name: 'probs', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        { name: 'element', repetition_type: 'REQUIRED', type: 'DOUBLE' },
      ],
    });
    const file = join(tmp.dir, 'no-choice.parquet');
    writeFileSync(file, new Uint8Array(buffer));
    const { records } = await readAnyResponses(file, { threads: 1 });
    expect(records).toStrictEqual([
      { model: 'm', item: 'i0', key: 0, probs: [0.6, 0.4] },
      { model: 'm', item: 'i1', key: 1, choice: null },
      { model: 'm', item: 'i2', key: 1, probs: [0.1, 0.9] },
    ]);
  });
});
