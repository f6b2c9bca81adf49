// A small read-only ZIP reader for Inspect `.eval` logs (PKWARE APPNOTE 6.3: end of central
// directory, central directory, local headers; zip64 records for large archives). Entries are read
// one at a time with positional reads, so a large log is never loaded whole. Stored (0) and
// deflated (8) entries only: that is what Python's zipfile writes for Inspect.
import { open, type FileHandle } from 'node:fs/promises';
import * as zlib from 'node:zlib';
import { LlmNrmError } from '@llm-nrm/core';

export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  crc32: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

export interface ZipArchive {
  /** Entries in central-directory order. */
  entries: ZipEntry[];
  /** The uncompressed bytes of one entry (CRC-checked). */
  read(entry: ZipEntry): Promise<Buffer>;
  close(): Promise<void>;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const U32_MAX = 0xffffffff;

async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  // A damaged header can give any offset or size: read only what the file holds (the callers
  // compare lengths and report a truncation). A length past 2^31 would abort Node itself.
  const size = (await fh.stat()).size;
  const n = Math.max(0, Math.min(length, size - position));
  if (!(Number.isSafeInteger(position) && position >= 0) || n === 0) return Buffer.alloc(0);
  const buf = Buffer.alloc(n);
  let got = 0;
  while (got < n) {
    const chunk = Math.min(n - got, 1 << 30);
    const { bytesRead } = await fh.read(buf, got, chunk, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got === n ? buf : buf.subarray(0, got);
}

function u64(buf: Buffer, at: number): number {
  // Offsets and sizes beyond 2^53 do not occur in practice; Number keeps the arithmetic simple.
  return Number(buf.readBigUInt64LE(at));
}

// node:zlib has crc32 from Node 20.15; without it the CRC check is skipped.
const crc32 = (zlib as unknown as { crc32?: (data: Uint8Array) => number }).crc32;

/** Open a ZIP archive and read its central directory. Throws FORMAT on a file that is not a ZIP. */
export async function openZip(path: string): Promise<ZipArchive> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw new LlmNrmError('IO', `cannot read: ${(e as Error).message}`, { cause: e, file: path });
  }
  const fail = (message: string): never => {
    throw new LlmNrmError('FORMAT', message, { file: path });
  };
  try {
    const size = (await fh.stat()).size;
    // The EOCD record is 22 bytes plus a comment of up to 65535 bytes, at the very end.
    const tailLen = Math.min(size, 22 + 0xffff);
    const tail = await readAt(fh, size - tailLen, tailLen);
    let at = -1;
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD) {
        at = i;
        break;
      }
    }
    if (at < 0) fail('not a ZIP archive (no end of central directory record)');
    let count = tail.readUInt16LE(at + 10);
    let cdSize = tail.readUInt32LE(at + 12);
    let cdOffset = tail.readUInt32LE(at + 16);
    if (count === 0xffff || cdSize === U32_MAX || cdOffset === U32_MAX) {
      const loc = at - 20;
      if (loc < 0 || tail.readUInt32LE(loc) !== ZIP64_LOCATOR) fail('zip64 archive without a zip64 locator');
      const z = await readAt(fh, u64(tail, loc + 8), 56);
      if (z.length < 56 || z.readUInt32LE(0) !== ZIP64_EOCD) fail('bad zip64 end of central directory record');
      count = u64(z, 32);
      cdSize = u64(z, 40);
      cdOffset = u64(z, 48);
    }
    const cd = await readAt(fh, cdOffset, cdSize);
    if (cd.length < cdSize) fail(`central directory truncated (${cd.length} of ${cdSize} bytes)`);
    const entries: ZipEntry[] = [];
    let p = 0;
    for (let n = 0; n < count; n++) {
      if (p + 46 > cd.length || cd.readUInt32LE(p) !== CENTRAL) fail(`bad central directory entry ${n}`);
      const nameLen = cd.readUInt16LE(p + 28);
      const extraLen = cd.readUInt16LE(p + 30);
      const commentLen = cd.readUInt16LE(p + 32);
      const entry: ZipEntry = {
        name: cd.toString('utf8', p + 46, p + 46 + nameLen),
        flags: cd.readUInt16LE(p + 8),
        method: cd.readUInt16LE(p + 10),
        crc32: cd.readUInt32LE(p + 16),
        compressedSize: cd.readUInt32LE(p + 20),
        size: cd.readUInt32LE(p + 24),
        localOffset: cd.readUInt32LE(p + 42),
      };
      // Zip64 extra field (id 1): 8-byte values for exactly those fields that read 0xffffffff.
      let e = p + 46 + nameLen;
      const extraEnd = e + extraLen;
      while (e + 4 <= extraEnd) {
        const id = cd.readUInt16LE(e);
        const len = cd.readUInt16LE(e + 2);
        if (id === 1) {
          let q = e + 4;
          if (entry.size === U32_MAX) {
            entry.size = u64(cd, q);
            q += 8;
          }
          if (entry.compressedSize === U32_MAX) {
            entry.compressedSize = u64(cd, q);
            q += 8;
          }
          if (entry.localOffset === U32_MAX) entry.localOffset = u64(cd, q);
        }
        e += 4 + len;
      }
      entries.push(entry);
      p = extraEnd + commentLen;
    }
    const read = async (entry: ZipEntry): Promise<Buffer> => {
      if (entry.flags & 1) fail(`${entry.name}: encrypted ZIP entries are not supported`);
      const local = await readAt(fh, entry.localOffset, 30);
      if (local.length < 30 || local.readUInt32LE(0) !== LOCAL) fail(`${entry.name}: bad local header`);
      const start = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
      const raw = await readAt(fh, start, entry.compressedSize);
      if (raw.length < entry.compressedSize) fail(`${entry.name}: truncated (${raw.length} of ${entry.compressedSize} bytes)`);
      let data: Buffer;
      if (entry.method === 0) data = raw;
      else if (entry.method === 8) {
        try {
          data = zlib.inflateRawSync(raw);
        } catch (e) {
          return fail(`${entry.name}: corrupt deflate data (${(e as Error).message})`);
        }
      } else return fail(`${entry.name}: unsupported compression method ${entry.method}`);
      if (data.length !== entry.size) fail(`${entry.name}: size ${data.length}, expected ${entry.size}`);
      if (crc32 !== undefined && crc32(data) >>> 0 !== entry.crc32) fail(`${entry.name}: CRC mismatch`);
      return data;
    };
    // A damaged archive can point any field past the end of the bytes read: a FORMAT error, not a crash.
    const guardedRead = async (entry: ZipEntry): Promise<Buffer> => {
      try {
        return await read(entry);
      } catch (e) {
        throw corrupt(e, path);
      }
    };
    return { entries, read: guardedRead, close: () => fh.close() };
  } catch (e) {
    await fh.close();
    throw corrupt(e, path);
  }
}

/** Bounds errors of Buffer reads (offsets from a damaged archive) as FORMAT; other errors as they are. */
function corrupt(e: unknown, path: string): unknown {
  if (e instanceof RangeError) return new LlmNrmError('FORMAT', `corrupt ZIP archive: ${e.message}`, { cause: e, file: path });
  return e;
}
