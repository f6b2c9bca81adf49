// The JSON Lines reader splits lines itself (one await per 1 MiB chunk instead of readline's one
// per line): it must number and split lines exactly as node:readline does, for every line ending
// (\n, \r\n, a lone \r), a \r\n and a multi-byte character cut by a chunk boundary, blank lines,
// a BOM, gzip and a last line without an end.
import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '@llm-nrm/tooling/test';
import { readTidyRows } from './readTidyRows.js';

const tmp = tempDir('llm-nrm-tidy-rows-');
afterAll(() => tmp.cleanup());

async function viaReadline(path: string): Promise<{ line: number; text: string }[]> {
  const out: { line: number; text: string }[] = [];
  let line = 0;
  for await (const raw of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    line++;
    const text = line === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
    if (text.trim() !== '') out.push({ line, text });
  }
  return out;
}

async function viaReader(path: string): Promise<{ line: number; value: unknown; error?: string }[]> {
  const out: { line: number; value: unknown; error?: string }[] = [];
  for await (const r of readTidyRows(path, 'jsonl')) out.push({ line: r.line, value: r.value, ...(r.error ? { error: r.error.message } : {}) });
  return out;
}

describe('readTidyRows (JSON Lines): lines as node:readline splits them', () => {
  const rec = (i: number, pad = ''): string => JSON.stringify({ model: `m${i}`, item: `it-é-${i}`, key: 0, probs: [0.5, 0.5], pad });
  // 1 MiB chunks: a padding record makes the next line end (\r\n) or a 2-byte é straddle the boundary.
  const boundary = 1 << 20;
  const cases: Record<string, string> = {
    'mixed endings, blanks, BOM, no final end': `\ufeff${rec(1)}\r\n${rec(2)}\n\n${rec(3)}\r${rec(4)}\r\n\r\n  \n${rec(5)}`,
    'crlf cut by the chunk boundary': (() => {
      const head = rec(1);
      const fill = boundary - Buffer.byteLength(`${head}\n`) - Buffer.byteLength(rec(2, '')) - 1;
      return `${head}\n${rec(2, 'x'.repeat(fill))}\r\n${rec(3)}\r\n`;
    })(),
    'lone cr at the chunk boundary': (() => {
      const fill = boundary - Buffer.byteLength(rec(1, '')) - 1;
      return `${rec(1, 'x'.repeat(fill))}\r${rec(2)}\n`;
    })(),
    'multi-byte character cut by the chunk boundary': (() => {
      const fill = boundary - Buffer.byteLength(rec(1, '')) + 3;
      return `${rec(1, 'é'.repeat(Math.floor(fill / 2)) + 'a')}\n${rec(2)}\n`;
    })(),
    'a malformed line keeps its number': `${rec(1)}\n{"model": \n${rec(3)}\n`,
  };
  for (const [name, text] of Object.entries(cases)) {
    it(name, async () => {
      const path = join(tmp.dir, 'r.jsonl');
      writeFileSync(path, text);
      const expected = await viaReadline(path);
      const got = await viaReader(path);
      expect(got.map((r) => r.line)).toEqual(expected.map((r) => r.line));
      for (let t = 0; t < got.length; t++) {
        if (got[t]!.error !== undefined) expect(() => JSON.parse(expected[t]!.text)).toThrow();
        else expect(got[t]!.value).toEqual(JSON.parse(expected[t]!.text));
      }
      const gz = join(tmp.dir, 'r.jsonl.gz');
      writeFileSync(gz, gzipSync(Buffer.from(text)));
      expect(await viaReader(gz)).toEqual(got);
    });
  }
});
