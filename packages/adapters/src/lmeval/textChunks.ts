import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** Read size for harness files: large reads keep the per-chunk overhead negligible on multi-GB files. */
export const READ_CHUNK = 1 << 20;

/** Raw byte chunks of a file. */
export function fileChunks(path: string): AsyncIterable<Uint8Array> {
  return createReadStream(path, { highWaterMark: READ_CHUNK });
}

/** Bytes that were not UTF-8, read as U+FFFD: how many sequences, and the line of the first. */
export interface DecodingStats {
  invalid: number;
  firstLine: number | undefined;
}

/**
 * Decode a byte (or string) stream to UTF-8 text chunks, gunzipping it first when it starts with the
 * gzip magic bytes (so `.gz` and mislabelled files both work). Multi-byte characters split across
 * chunks are kept whole (streaming TextDecoder); a leading BOM is dropped. Bytes that are not
 * UTF-8 become U+FFFD, as everywhere, but are counted into `decoding` (with the line of the first):
 * a damaged file must not pass as a clean one.
 */
export async function* textChunks(source: AsyncIterable<string | Uint8Array>, decoding?: DecodingStats): AsyncGenerator<string> {
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
  const count = invalidCounter(decoding);
  for await (const b of bytes) {
    const s = dec.decode(b, { stream: true });
    count(b, s);
    if (s.length > 0) yield s;
  }
  const tail = dec.decode();
  count(new Uint8Array(0), tail);
  if (tail.length > 0) yield tail;
}

/**
 * Counts the U+FFFD that decoding made: those in the text beyond the ones the bytes spelt
 * (EF BF BD, a real U+FFFD in the file, matched across chunk ends), and the line of the first.
 */
function invalidCounter(stats: DecodingStats | undefined): (bytes: Uint8Array, text: string) => void {
  let lines = 0;
  let p1 = -1;
  let p2 = -1; // the two bytes before the chunk (p2 the last)
  return (bytes, text) => {
    if (stats === undefined) return;
    if (text.includes('\uFFFD')) {
      let spelt = 0;
      for (let i = 0; i < bytes.length; i++) {
        if (bytes[i] !== 0xbd) continue;
        const b1 = i >= 1 ? bytes[i - 1] : p2;
        const b0 = i >= 2 ? bytes[i - 2] : i === 1 ? p2 : p1;
        if (b1 === 0xbf && b0 === 0xef) spelt++;
      }
      let made = 0;
      for (let at = text.indexOf('\uFFFD'); at >= 0; at = text.indexOf('\uFFFD', at + 1)) made++;
      if (made > spelt) {
        stats.invalid += made - spelt;
        if (stats.firstLine === undefined) stats.firstLine = lines + newlines(text.slice(0, text.indexOf('\uFFFD'))) + 1;
      }
    }
    lines += newlines(text);
    if (bytes.length >= 2) [p1, p2] = [bytes[bytes.length - 2]!, bytes[bytes.length - 1]!];
    else if (bytes.length === 1) [p1, p2] = [p2, bytes[0]!];
  };
}

function newlines(s: string): number {
  let n = 0;
  for (let at = s.indexOf('\n'); at >= 0; at = s.indexOf('\n', at + 1)) n++;
  return n;
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
