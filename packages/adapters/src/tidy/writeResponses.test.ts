// Round trips of tidy records through JSON Lines, gzip, Arrow and Parquet: what is read back must
// equal what was written, exactly (float64 values bit for bit, -Infinity, null choices).
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import * as aq from 'arquero';
import { bankRecords, simulateFleet, type ResponseRecord } from '@llm-nrm/core';
import { tempDir } from '@llm-nrm/tooling/test';
import { readResponses } from './readResponses.js';
import { writeResponses } from './writeResponses.js';

const tmp = tempDir('llm-nrm-tidy-');
afterAll(() => tmp.cleanup());

async function collect(path: string): Promise<ResponseRecord[]> {
  const out: ResponseRecord[] = [];
  for await (const r of readResponses(path)) out.push(r);
  return out;
}

/** A small simulated fleet (soft, hard, missing cells, rotations) plus hand-made edge cases. */
function fleetRecords(): ResponseRecord[] {
  const { bank } = simulateFleet({ models: 5, items: 24, seed: 11, hard: 0.25, missing: 0.1, rotations: 2 });
  const records = Array.from(bankRecords(bank));
  // Give some records float64 extras the simulator does not produce.
  records.forEach((r, i) => {
    if (i % 7 === 0) r.leakage = (0.1 + 0.2) / 3;
    if (i % 5 === 0) r.benchmark = 'sim/bench';
  });
  records.push(
    { model: 'hard-null', item: 'q/1', benchmark: 'q', key: 2, choice: null, nOptions: 4 },
    { model: 'hard-null', item: 'q/2', key: 0, options: ['yes', 'no', 'maybe'], choice: null },
    { model: 'hard', item: 'q/1', benchmark: 'q', key: 2, choice: 3, nOptions: 4, position: [3, 0, 1, 2] },
    { model: 'lp', item: 'q/3', key: 1, options: ['α', 'β "quoted"', 'γ\nnew line'], logprobs: [-0.5, -Infinity, -1e-300], leakage: 0.012345678901234567 },
    { model: 'lp', item: 'q/4', key: 0, logprobs: [-Infinity, 0, -Infinity, -700.1], position: [1, 2, 3, 0] },
    { model: 'p', item: 'q/5', key: 1, probs: [5e-324, 1 - 1e-16, 0.30000000000000004], leakage: 0 },
    {
      model: 'content',
      item: 'q/6',
      key: 1,
      options: ['left', 'right'],
      probs: [0.25, 0.75],
      prompt: 'Question: which way?\nAnswer:',
      continuations: [' left', ' right'],
      source: { harness: 'lm-eval', task: 'q', docId: '6', split: 'test' },
    },
    { model: 'content', item: 'q/7', key: 0, logprobs: [-1, -2], prompt: '', source: { harness: 'helm' } },
    // A multiple-input item (lm-eval's winogrande form): one context per option, a shared continuation.
    {
      model: 'content',
      item: 'q/8',
      key: 1,
      options: ['Sarah fixed it', 'Maria fixed it'],
      logprobs: [-3.5, -2.25],
      contexts: ['Q: who?\n\nSarah', 'Q: who?\n\nMaria'],
      continuations: [' fixed it.', ' fixed it.'],
      source: { harness: 'lm-eval', task: 'winogrande', docId: '8' },
    },
  );
  return records;
}

describe('writeResponses / readResponses round trip', () => {
  const records = fleetRecords();

  it('the fixture covers hard, soft, missing, rotated, leaky and -Infinity records', () => {
    expect(records.some((r) => r.choice === null)).toBe(true);
    expect(records.some((r) => typeof r.choice === 'number')).toBe(true);
    expect(records.some((r) => r.probs !== undefined)).toBe(true);
    expect(records.some((r) => r.position !== undefined)).toBe(true);
    expect(records.some((r) => r.logprobs?.includes(-Infinity))).toBe(true);
    expect(records.some((r) => r.prompt !== undefined && r.continuations !== undefined && r.source !== undefined)).toBe(true);
    expect(records.some((r) => r.contexts !== undefined)).toBe(true);
  });

  for (const name of ['fleet.jsonl', 'fleet.jsonl.gz', 'fleet.arrow', 'fleet.parquet']) {
    it(`is exact through ${name}`, async () => {
      const path = join(tmp.dir, name);
      // Small batches so Arrow and Parquet span several record batches / row groups.
      const { records: n } = await writeResponses(records, path, { batchSize: 50 });
      expect(n).toBe(records.length);
      expect(await collect(path)).toStrictEqual(records);
    });
  }

  it('writes -Infinity as the string "-Infinity" in JSON Lines, gzipped for .gz', () => {
    const text = gunzipSync(readFileSync(join(tmp.dir, 'fleet.jsonl.gz'))).toString('utf8');
    expect(text).toContain('"logprobs":[-0.5,"-Infinity",-1e-300]');
    expect(text.split('\n').filter((l) => l !== '')).toHaveLength(records.length);
  });

  it('takes an async iterable and leaves no temporary file', async () => {
    async function* gen() {
      yield* records.slice(0, 10);
    }
    const path = join(tmp.dir, 'async.parquet');
    await writeResponses(gen(), path);
    expect(await collect(path)).toStrictEqual(records.slice(0, 10));
    expect(readdirSync(tmp.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('checked: records a reader already checked are written as they are, the same bytes as validated ones', async () => {
    for (const name of ['checked.jsonl', 'checked.parquet']) {
      const plain = join(tmp.dir, name);
      const trusted = join(tmp.dir, `trusted-${name}`);
      await writeResponses(records, plain);
      const { records: n } = await writeResponses(records, trusted, { checked: true });
      expect(n).toBe(records.length);
      expect(readFileSync(trusted)).toEqual(readFileSync(plain));
    }
  });

  it('a source that fails after some batches (a read error mid-file): every container rejects with it and leaves no file', async () => {
    async function* failing(n: number): AsyncGenerator<ResponseRecord> {
      yield* records.slice(0, n);
      throw new Error('the reader broke');
    }
    for (const name of ['fail.jsonl', 'fail.jsonl.gz', 'fail.arrow', 'fail.parquet'])
      for (const n of [0, 5, records.length]) {
        const path = join(tmp.dir, name);
        await expect(writeResponses(failing(n), path, { batchSize: 4 })).rejects.toThrow(/the reader broke/);
        expect(existsSync(path)).toBe(false);
      }
    expect(readdirSync(tmp.dir).filter((f) => f.startsWith('.fail.'))).toEqual([]);
  });

  it('writes and reads an empty table in every container', async () => {
    for (const name of ['empty.jsonl', 'empty.arrow', 'empty.parquet']) {
      const path = join(tmp.dir, name);
      await writeResponses([], path);
      expect(await collect(path)).toEqual([]);
    }
  });

  it('sniffs the container from the first bytes when the extension says nothing', async () => {
    for (const name of ['fleet.arrow', 'fleet.parquet', 'fleet.jsonl.gz']) {
      const copy = join(tmp.dir, `${name}.bin`);
      copyFileSync(join(tmp.dir, name), copy);
      expect(await collect(copy)).toStrictEqual(records);
    }
  });

  it('reads every tidy file of a folder', async () => {
    const { dir, cleanup } = tempDir('llm-nrm-tidy-folder-');
    try {
      await writeResponses(records.slice(0, 5), join(dir, 'a.jsonl'));
      await writeResponses(records.slice(5, 9), join(dir, 'sub', 'b.parquet'));
      expect(await collect(dir)).toStrictEqual(records.slice(0, 9));
    } finally {
      cleanup();
    }
  });

  it('reads Arrow written by arquero (flechette) too', async () => {
    const rows = [
      { model: 'm', item: 'i/1', key: 1, probs: [0.25, 0.75] },
      { model: 'm', item: 'i/2', key: 0, probs: [0.5, 0.125, 0.375] },
    ];
    const path = join(tmp.dir, 'arquero.arrow');
    await import('node:fs/promises').then((fs) => fs.writeFile(path, aq.toArrowIPC(aq.from(rows), { format: 'file' })));
    expect(await collect(path)).toStrictEqual(rows);
  });

  it('refuses an invalid record before writing anything', async () => {
    const path = join(tmp.dir, 'bad.arrow');
    const bad = [records[0]!, { ...records[1]!, key: 99 }];
    await expect(writeResponses(bad, path)).rejects.toThrow(/record 2: key out of range: 99/);
    expect(existsSync(path)).toBe(false);
    await expect(writeResponses(bad, join(tmp.dir, 'bad.jsonl'))).rejects.toMatchObject({ code: 'INVALID_KEY' });
    expect(existsSync(join(tmp.dir, 'bad.jsonl'))).toBe(false);
    await expect(writeResponses(records, join(tmp.dir, 'x.csv'))).rejects.toThrow(/unknown responses file extension/);
  });
});
