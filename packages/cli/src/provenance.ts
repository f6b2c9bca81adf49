/** Provenance of CLI outputs: the tool version, the command line, and hashes of the inputs. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { LlmNrmError } from '@llm-nrm/core';
import { tidyFormatFromExtension, walkFiles } from '@llm-nrm/adapters';

let invocation: string[] = [];

/** Remember the arguments `main` was called with (for `commandLine`). */
export function setInvocation(argv: string[]): void {
  invocation = argv.slice();
}

/** The command line as a shell could re-run it: `llm-nrm fit x.jsonl -o b.json` (each argument through `rewrite`, e.g. paths to file names). */
export function commandLine(rewrite: (arg: string) => string = (a) => a): string {
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  return ['llm-nrm', ...invocation.map((a) => quote(rewrite(a)))].join(' ');
}

let version: string | undefined;

/** The CLI package's version (package.json sits beside both src/ and dist/). */
export function toolVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}

/**
 * SHA-256 of a file, read in 4 MiB pieces into one reused buffer (responses files can be
 * gigabytes): a third of the CPU of a read stream's fresh 64 KiB chunks (73 MB: 0.07 against
 * 0.21 CPU-s, bench/core/fitPhases.js).
 */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  try {
    const fh = await open(path, 'r');
    try {
      const buf = Buffer.allocUnsafe(1 << 22);
      for (;;) {
        const { bytesRead } = await fh.read(buf, 0, buf.length, null);
        if (bytesRead === 0) break;
        hash.update(buf.subarray(0, bytesRead));
      }
    } finally {
      await fh.close();
    }
  } catch (e) {
    throw new LlmNrmError('IO', `cannot read ${path}: ${(e as Error).message}`, { cause: e, file: path });
  }
  return hash.digest('hex');
}

/** sha256File's loop on a worker thread, over each of its files in turn (eval'd CommonJS: no built file to find). */
const HASH_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { openSync, readSync, closeSync } = require('node:fs');
const buf = Buffer.allocUnsafe(1 << 22);
const digests = [];
let at = 0;
try {
  for (; at < workerData.length; at++) {
    const hash = createHash('sha256');
    const fd = openSync(workerData[at], 'r');
    try {
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, null);
        if (n === 0) break;
        hash.update(buf.subarray(0, n));
      }
    } finally {
      closeSync(fd);
    }
    digests.push(hash.digest('hex'));
  }
  parentPort.postMessage({ digests });
} catch (e) {
  parentPort.postMessage({ error: e.message, at });
}
`;

/**
 * sha256File of each file on one worker thread, so that the hashes overlap this thread's work
 * (`fit` builds the bank and fits while its input is hashed: 0.1 to 0.2 s at 73 MB). The same
 * digests; where no worker starts, sha256File here.
 */
export function sha256FilesOffThread(paths: readonly string[]): Promise<string[]> {
  const here = async (): Promise<string[]> => {
    const out: string[] = [];
    for (const p of paths) out.push(await sha256File(p));
    return out;
  };
  return new Promise((resolve, reject) => {
    let w: Worker;
    try {
      w = new Worker(HASH_WORKER, { eval: true, workerData: [...paths] });
    } catch {
      here().then(resolve, reject);
      return;
    }
    let settled = false;
    // A worker that fails or exits without an answer leaves the hashes to this thread.
    const fallBack = (): void => {
      if (settled) return;
      settled = true;
      here().then(resolve, reject);
    };
    w.once('message', (m: { digests?: string[]; error?: string; at?: number }) => {
      settled = true;
      const path = paths[m.at ?? 0]!;
      if (m.digests !== undefined) resolve(m.digests);
      else reject(new LlmNrmError('IO', `cannot read ${path}: ${m.error}`, { file: path }));
      void w.terminate();
    });
    w.once('error', fallBack);
    w.once('exit', fallBack);
  });
}

/** sha256File on a worker thread (sha256FilesOffThread of one file). */
export async function sha256FileOffThread(path: string): Promise<string> {
  return (await sha256FilesOffThread([path]))[0]!;
}

/**
 * Path and SHA-256 of each input file: the file itself, or every file under a folder that the
 * shared walk lists (the walk every reader uses, so nothing a fit read is missing), narrowed to
 * tidy files when `tidyOnly` (a fit of tidy responses).
 */
export async function hashInputs(path: string, options: { tidyOnly?: boolean } = {}): Promise<{ path: string; sha256: string }[]> {
  return (await startHashInputs(path, { ...options, offThread: false })).done;
}

/**
 * hashInputs in two steps: awaiting this lists the files and starts their hashes, on worker threads
 * (`offThread`, the default) or here; `done` then gives what hashInputs gives. A worker's hash goes
 * on while this thread is busy (`fit` builds the bank and fits, synchronously, meanwhile), where
 * an `await hashInputs(...)` begun before that work would not even have listed the files.
 */
export async function startHashInputs(
  path: string,
  options: { tidyOnly?: boolean; offThread?: boolean } = {},
): Promise<{ done: Promise<{ path: string; sha256: string }[]> }> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    throw new LlmNrmError('IO', `cannot read ${path}: ${(e as Error).message}`, { cause: e, file: path });
  }
  const files = st.isDirectory()
    ? await walkFiles(path, options.tidyOnly === false ? {} : { accept: (name) => tidyFormatFromExtension(name) !== undefined })
    : [path];
  if (options.offThread === false) {
    const here = async (): Promise<{ path: string; sha256: string }[]> => {
      const out: { path: string; sha256: string }[] = [];
      for (const f of files) out.push({ path: f, sha256: await sha256File(f) });
      return out;
    };
    return { done: here() };
  }
  // One worker for every file (a folder of a thousand files starts one thread, not a thousand).
  const done = sha256FilesOffThread(files).then((digests) => files.map((f, i) => ({ path: f, sha256: digests[i]! })));
  return { done };
}
