import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { LlmNrmError } from '@llm-nrm/core';

function tempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now().toString(36)}.tmp`);
}

/**
 * Write a file atomically: write to a temporary file beside it, then rename over the target, so
 * a reader never sees a partial output and a failed write leaves the old file in place.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = tempPath(path);
  try {
    await writeFile(tmp, data);
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw new LlmNrmError('IO', `cannot write ${path}: ${(e as Error).message}`, { cause: e, file: path });
  }
}

/** Stream a readable into `path` atomically (temporary file + rename). */
export async function writeStreamAtomic(path: string, source: Readable | AsyncIterable<string | Uint8Array>): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = tempPath(path);
  try {
    await pipeline(source, createWriteStream(tmp));
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw new LlmNrmError('IO', `cannot write ${path}: ${(e as Error).message}`, { cause: e, file: path });
  }
}
