// The input hash of a bundle's provenance, on this thread and on a worker thread: the same digest
// (that of the bytes), and a typed error naming a file that cannot be read.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LlmNrmError } from '@llm-nrm/core';
import { tempDir } from '@llm-nrm/tooling/test';
import { hashInputs, sha256File, sha256FileOffThread, sha256FilesOffThread, startHashInputs } from './provenance.js';

const tmp = tempDir('llm-nrm-provenance-');
afterAll(() => tmp.cleanup());

describe('input hashes', () => {
  it('off the thread gives the digest of the bytes, as on it (a file over one 4 MiB read)', async () => {
    const bytes = Buffer.alloc((5 << 20) + 123);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
    const file = join(tmp.dir, 'r.jsonl');
    writeFileSync(file, bytes);
    const want = createHash('sha256').update(bytes).digest('hex');
    expect(await sha256File(file)).toBe(want);
    expect(await sha256FileOffThread(file)).toBe(want);
    expect(await hashInputs(file)).toEqual([{ path: file, sha256: want }]);
    // Started, then this thread kept busy (as by a fit): the digest is still the right one.
    const started = await startHashInputs(file);
    const until = Date.now() + 300;
    while (Date.now() < until);
    expect(await started.done).toEqual([{ path: file, sha256: want }]);
  });

  it('hashes a folder of files on one worker, each as on this thread', async () => {
    const dir = join(tmp.dir, 'folder');
    mkdirSync(dir);
    const files = ['a.jsonl', 'b.jsonl', 'c.jsonl'].map((n, i) => {
      const f = join(dir, n);
      writeFileSync(f, `{"i":${i}}\n`.repeat(1000 * (i + 1)));
      return f;
    });
    const want = await Promise.all(files.map((f) => sha256File(f)));
    expect(await sha256FilesOffThread(files)).toEqual(want);
    expect(await (await startHashInputs(dir, { tidyOnly: true })).done).toEqual(files.map((f, i) => ({ path: f, sha256: want[i] })));
    const e = await sha256FilesOffThread([files[0]!, join(dir, 'gone.jsonl')]).catch((x: unknown) => x);
    expect((e as LlmNrmError).message).toContain('gone.jsonl');
  });

  it('names the file it cannot read', async () => {
    const missing = join(tmp.dir, 'nope.jsonl');
    const e = await sha256FileOffThread(missing).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(LlmNrmError);
    expect((e as LlmNrmError).code).toBe('IO');
    expect((e as LlmNrmError).message).toContain(missing);
  });
});
