import { createWriteStream, rmSync, type Stats } from 'node:fs';
import { lstat, mkdir, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { LlmNrmError } from '@llm-nrm/core';
import { TEMP_FILE_NAME } from './walk.js';

/** The path that means standard output (`-o -`). */
export const STDOUT_PATH = '-';

/** Temporary files and folders this process has open: removed on SIGINT / SIGTERM before it dies. */
const liveTemps = new Set<string>();
let signalsHooked = false;

function hookSignals(): void {
  if (signalsHooked) return;
  signalsHooked = true;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      for (const t of liveTemps) rmSync(t, { force: true, recursive: true });
      liveTemps.clear();
      // Die of the same signal (exit status 128 + n), as the default handler would.
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

function tempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now().toString(36)}.tmp`);
}

/**
 * Run `work` with `tmp` (a temporary file or folder of our naming) registered for removal should
 * the process be interrupted (SIGINT, SIGTERM, SIGHUP) before it is renamed into place.
 */
export async function withLiveTemp<T>(tmp: string, work: () => Promise<T>): Promise<T> {
  hookSignals();
  liveTemps.add(tmp);
  try {
    return await work();
  } finally {
    liveTemps.delete(tmp);
  }
}

/** True when process `pid` is alive (signal 0 probes without sending anything). */
export function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Remove temporary files of our own naming (`.<name>.<pid>.<time>.tmp`) left in `dir` by a run
 * that was killed (its process is gone). Files of live processes are left alone.
 */
export async function removeStaleTemps(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = TEMP_FILE_NAME.exec(name);
    if (!m || alive(Number(m[1]))) continue;
    const p = join(dir, name);
    const st = await lstat(p).catch(() => undefined);
    if (!st?.isFile()) continue;
    await rm(p, { force: true });
    removed.push(p);
  }
  return removed;
}

/**
 * Where and how an output goes. `-` is standard output. A symbolic link is followed: the link is
 * kept and its target written, atomically when the target is a regular file (or absent). A FIFO,
 * a device, or a link into /dev or /proc (`/dev/stdout`) is written through, never replaced.
 */
async function outputTarget(path: string): Promise<{ kind: 'stdout' } | { kind: 'through'; path: string } | { kind: 'atomic'; path: string }> {
  // Our own standard output under its device names: written as stdout (opening it again fails
  // when it is a socket, and would truncate a file the shell opened for appending).
  if (path === STDOUT_PATH || /^\/(dev\/stdout|dev\/fd\/1|proc\/self\/fd\/1)$/.test(path)) return { kind: 'stdout' };
  let st: Stats | undefined = await lstat(path).catch(() => undefined);
  let target = path;
  if (st?.isSymbolicLink()) {
    // /dev/stdout -> /proc/self/fd/1 -> pipe:[n]: a stream, written through as it is.
    if (/^\/(dev|proc)\//.test(resolve(path))) return { kind: 'through', path };
    const real = await realpath(path).catch(() => undefined);
    if (real === undefined) {
      throw new LlmNrmError('IO', `cannot write ${path}: it is a symbolic link to a missing file`, { file: path });
    }
    target = real;
    if (/^\/(dev|proc)\//.test(real)) return { kind: 'through', path: real };
    st = await stat(real).catch(() => undefined);
  }
  if (st !== undefined && st.isDirectory()) throw new LlmNrmError('IO', `cannot write ${path}: it is a folder`, { file: path });
  if (st !== undefined && !st.isFile()) return { kind: 'through', path: target };
  return { kind: 'atomic', path: target };
}

/**
 * Write a file atomically: write to a temporary file beside it, then rename over the target, so
 * a reader never sees a partial output and a failed write leaves the old file in place. Stale
 * temporary files of killed runs in that folder are removed first; an interrupt (SIGINT, SIGTERM)
 * removes ours. `-` writes to standard output; FIFOs, devices and links are written through.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await writeStreamAtomic(path, Readable.from([typeof data === 'string' ? Buffer.from(data) : data]));
}

/** Stream a readable into `path` atomically (temporary file + rename); see writeFileAtomic. */
export async function writeStreamAtomic(path: string, source: Readable | AsyncIterable<string | Uint8Array>): Promise<void> {
  const target = await outputTarget(path);
  if (target.kind === 'stdout') {
    try {
      await pipeline(source, stdoutSink());
    } catch (e) {
      throw new LlmNrmError('IO', `cannot write to standard output: ${(e as Error).message}`, { cause: e });
    }
    return;
  }
  if (target.kind === 'through') {
    try {
      await pipeline(source, createWriteStream(target.path, { flags: 'w' }));
    } catch (e) {
      throw new LlmNrmError('IO', `cannot write ${path}: ${(e as Error).message}`, { cause: e, file: path });
    }
    return;
  }
  const dir = dirname(target.path);
  await mkdir(dir, { recursive: true });
  await removeStaleTemps(dir);
  hookSignals();
  const tmp = tempPath(target.path);
  liveTemps.add(tmp);
  try {
    await pipeline(source, createWriteStream(tmp));
    await rename(tmp, target.path);
  } catch (e) {
    await rm(tmp, { force: true });
    // A failure of the input being streamed in blames the input, not this output.
    if (e instanceof LlmNrmError && e.file !== path) throw e;
    throw new LlmNrmError('IO', `cannot write ${path}: ${(e as Error).message}`, { cause: e, file: path });
  } finally {
    liveTemps.delete(tmp);
  }
}

/** process.stdout as a pipeline destination that is never closed (later output may follow). */
function stdoutSink(): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      if (process.stdout.write(chunk)) done();
      else process.stdout.once('drain', () => done());
    },
  });
}
