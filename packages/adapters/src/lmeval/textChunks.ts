import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** Read size for harness files: large reads keep the per-chunk overhead negligible on multi-GB files. */
export const READ_CHUNK = 1 << 20;

/** Raw byte chunks of a file. */
export function fileChunks(path: string): AsyncIterable<Uint8Array> {
  return createReadStream(path, { highWaterMark: READ_CHUNK });
}

/**
 * Decode a byte (or string) stream to UTF-8 text chunks, gunzipping it first when it starts with the
 * gzip magic bytes (so `.gz` and mislabelled files both work). Multi-byte characters split across
 * chunks are kept whole (streaming TextDecoder); a leading BOM is dropped.
 */
export async function* textChunks(source: AsyncIterable<string | Uint8Array>): AsyncGenerator<string> {
  const it = source[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let headLen = 0;
  while (headLen < 2) {
    const r = await it.next();
    if (r.done) break;
    if (typeof r.value === 'string') {
      // Already text: pass everything through untouched.
      for (const h of head) yield new TextDecoder().decode(h);
      yield r.value;
      for (;;) {
        const n = await it.next();
        if (n.done) return;
        yield typeof n.value === 'string' ? n.value : new TextDecoder().decode(n.value);
      }
    }
    head.push(r.value);
    headLen += r.value.length;
  }
  async function* rest(): AsyncGenerator<Uint8Array> {
    yield* head;
    for (;;) {
      const r = await it.next();
      if (r.done) return;
      yield r.value as Uint8Array;
    }
  }
  const first = head.length > 0 ? concatHead(head) : new Uint8Array(0);
  const gz = first.length >= 2 && first[0] === 0x1f && first[1] === 0x8b;
  let bytes: AsyncIterable<Uint8Array> = rest();
  if (gz) {
    const src = Readable.from(rest(), { objectMode: false });
    const gunzip = createGunzip();
    src.on('error', (e) => gunzip.destroy(e));
    bytes = src.pipe(gunzip);
  }
  const dec = new TextDecoder('utf-8');
  for await (const b of bytes) {
    const s = dec.decode(b, { stream: true });
    if (s.length > 0) yield s;
  }
  const tail = dec.decode();
  if (tail.length > 0) yield tail;
}

function concatHead(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
