// File helpers shared by the HELM, OpenAI-evals and Inspect readers: gzip-transparent JSON
// documents and JSON-lines streams, and a sorted recursive file walk.
import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip, gunzipSync } from 'node:zlib';
import { LlmNrmError } from '@llm-nrm/core';
import { walkFiles } from '../walk.js';
import { checkJsonDepth } from './jsonDepth.js';

function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

function ioError(path: string, e: unknown): LlmNrmError {
  return new LlmNrmError('IO', `cannot read: ${(e as Error).message}`, { cause: e, file: path });
}

/** 1-based line of a character offset, for JSON.parse errors that give a position. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Line of a JSON.parse error. V8 messages differ by version: "(line 2 column 5)" (Node 22),
 * "at position 17" (Node 18), or only a quoted excerpt of the text around the error (Node 20),
 * which is located when it occurs once.
 */
function errorLine(text: string, message: string): number | undefined {
  const lc = /line (\d+) column/.exec(message);
  if (lc) return Number(lc[1]);
  const pos = /position (\d+)/.exec(message);
  if (pos) return lineAt(text, Number(pos[1]));
  if (/Unexpected end of JSON input/.test(message)) return lineAt(text, text.length);
  const ex = /"(?:\.\.\.)?([\s\S]*?)(?:\.\.\.)?" is not valid JSON/.exec(message);
  if (ex && ex[1]!.length > 0) {
    const at = text.indexOf(ex[1]!);
    if (at >= 0 && text.indexOf(ex[1]!, at + 1) < 0) return lineAt(text, at + ex[1]!.length - 1);
  }
  return undefined;
}

/** Parse JSON text; a syntax error becomes FORMAT naming the file and, where known, the line. */
export function parseJsonText(text: string, file: string, line?: number): unknown {
  try {
    return checkJsonDepth(JSON.parse(text) as unknown);
  } catch (e) {
    return throwFormat(`invalid JSON: ${(e as Error).message}`, file, line ?? errorLine(text, (e as Error).message), e);
  }
}

function throwFormat(message: string, file: string, line: number | undefined, cause?: unknown): never {
  throw new LlmNrmError('FORMAT', message, { file, ...(line !== undefined ? { line } : {}), ...(cause ? { cause } : {}) });
}

/** Read a whole file (gunzipped when it starts with the gzip magic bytes) as UTF-8 text. */
export async function readText(path: string): Promise<string> {
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch (e) {
    throw ioError(path, e);
  }
  if (isGzip(buf)) {
    try {
      buf = gunzipSync(buf);
    } catch (e) {
      throwFormat(`corrupt gzip: ${(e as Error).message}`, path, undefined, e);
    }
  }
  const text = buf.toString('utf8');
  // A UTF-8 byte order mark is not part of the JSON.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Read one JSON document whole (gzip or plain). Only for per-run documents, never for streams. */
export async function readJsonDocument(path: string): Promise<unknown> {
  return parseJsonText(await readText(path), path);
}

/** Stream a text file line by line (gzip or plain), with 1-based line numbers. */
export async function* readLines(path: string): AsyncGenerator<{ line: number; text: string }> {
  const head = new Uint8Array(2);
  try {
    const fh = await open(path, 'r');
    try {
      await fh.read(head, 0, 2, 0);
    } finally {
      await fh.close();
    }
  } catch (e) {
    throw ioError(path, e);
  }
  const raw = createReadStream(path);
  let source: Readable = raw;
  if (isGzip(head)) {
    const gunzip = createGunzip();
    raw.on('error', (e) => gunzip.destroy(e));
    source = raw.pipe(gunzip);
  }
  const rl = createInterface({ input: source, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of rl) {
      line++;
      yield { line, text };
    }
  } catch (e) {
    if (e instanceof LlmNrmError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== undefined && code.startsWith('Z_')) throwFormat(`corrupt gzip after line ${line}: ${(e as Error).message}`, path, line + 1, e);
    throw ioError(path, e);
  } finally {
    rl.close();
    raw.destroy();
  }
}

/** True when `path` is a directory (false when it is a file; IO error when it does not exist). */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch (e) {
    throw ioError(path, e);
  }
}

/** Files under `dir` (recursive) accepted by `accept(name)`, sorted by path: the one folder walk. */
export async function listFiles(dir: string, accept: (name: string) => boolean): Promise<string[]> {
  return walkFiles(dir, { accept });
}
