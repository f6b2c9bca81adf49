// readAnyInto hands a sink the records readAnyResponses returns, in its order and with its sources,
// without keeping them; where item versions force the whole read, the first sink is dropped and a
// fresh one sees every record.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RecordSource, ResponseRecord } from '@llm-nrm/core';
import { fixture, tempDir } from '@llm-nrm/tooling/test';
import { readAnyInto, type RecordSink } from './readAnyInto.js';
import { readAnyResponses } from './readAnyResponses.js';

const tmp = tempDir('llm-nrm-read-any-into-');
afterAll(() => tmp.cleanup());

/** A sink that keeps what it is given (the test's view of the stream), counting the sinks started. */
function collecting(): { start: () => RecordSink<{ records: ResponseRecord[]; sources: RecordSource[] }>; started: () => number } {
  let n = 0;
  return {
    start: () => {
      n++;
      const records: ResponseRecord[] = [];
      const sources: RecordSource[] = [];
      return {
        add: (r, s) => {
          records.push(r);
          sources.push(s);
        },
        finish: () => ({ records, sources }),
      };
    },
    started: () => n,
  };
}

describe('readAnyInto: the records of readAnyResponses, one at a time', () => {
  it('the NAEP fixture (real harness output): streamed, the same records, sources, duplicates and summary', async () => {
    const path = fixture('response-matrices/mainlp-llm-psychometrics');
    const whole = await readAnyResponses(path);
    const sink = collecting();
    const read = await readAnyInto(path, {}, sink.start);
    expect(read.streamed).toBe(true);
    expect(sink.started()).toBe(1);
    expect(read.result.records.length).toBeGreaterThan(1000);
    expect(read.result.records).toEqual(whole.records);
    expect(read.result.sources).toEqual(whole.sources);
    expect(read.duplicates).toEqual(whole.duplicates);
    expect(read.summary.records).toBe(whole.summary.records);
  });

  it('an id naming two contents: a fresh sink sees the whole read, with the split ids readAnyResponses gives', async () => {
    const file = join(tmp.dir, 'versions.jsonl');
    const rows = [
      { model: 'a', item: 'q1', key: 0, options: ['x', 'y'], probs: [0.7, 0.3] },
      { model: 'b', item: 'q1', key: 0, options: ['x', 'y'], probs: [0.6, 0.4] },
      { model: 'a', item: 'q1', key: 1, options: ['u', 'v', 'w'], probs: [0.2, 0.5, 0.3] },
    ];
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const whole = await readAnyResponses(file);
    const sink = collecting();
    const read = await readAnyInto(file, {}, sink.start);
    expect(read.streamed).toBe(false);
    expect(sink.started()).toBe(2);
    expect(read.result.records).toEqual(whole.records);
    expect(new Set(read.result.records.map((r) => r.item)).size).toBe(2);
    expect(read.itemVersions).toEqual(whole.itemVersions);
  });

  it('refuses an llm-nrm output given as responses, naming the file', async () => {
    const file = join(tmp.dir, 'bundle.json');
    writeFileSync(file, JSON.stringify({ schemaVersion: 1, model: 'llm-nrm', llms: [], items: [] }));
    const sink = collecting();
    await expect(readAnyInto(file, {}, sink.start)).rejects.toThrow(/not responses: were the arguments swapped/);
    expect(sink.started()).toBe(0);
  });

  it('names: a copy of standard input or a pipe is named as given in the sources and the summary', async () => {
    const file = join(tmp.dir, 'copy-of-stdin');
    writeFileSync(file, '{"model":"a","item":"q1","key":0,"probs":[0.6,0.4]}\n{"model":"b","item":"q1","key":0,"probs":[0.3,0.7]}\n');
    const sink = collecting();
    const read = await readAnyInto(file, { names: new Map([[file, '-']]) }, sink.start);
    expect(read.streamed).toBe(true);
    expect(read.result.sources.map((s) => [(s as { file: string }).file, s.line])).toEqual([
      ['-', 1],
      ['-', 2],
    ]);
    expect(read.summary.inputs.map((i) => i.path)).toEqual(['-']);
  });
});
