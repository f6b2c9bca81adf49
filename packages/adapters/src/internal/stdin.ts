import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { LlmNrmError } from '@llm-nrm/core';

/** `-` (and `/dev/stdin`, which the CLI passes for a bare `-` positional) read standard input. */
export function isStdinPath(p: string): boolean {
  return p === '-' || p === '/dev/stdin';
}

/**
 * Whether an input can be read only once: standard input, and a path that is neither a file nor a
 * folder (a pipe such as bash's `<(zcat r.jsonl.gz)`, a device, a socket). Such an input is copied
 * to a temporary file to be read (`spoolInput`), and a command that reads its input twice keeps it
 * whole instead.
 */
export async function readsOnce(p: string): Promise<boolean> {
  if (isStdinPath(p)) return true;
  const st = await stat(p).catch(() => undefined);
  return st !== undefined && !st.isFile() && !st.isDirectory();
}

/**
 * A one-pass input (`readsOnce`) copied to a temporary file as it streams in, so that it can be
 * sniffed and read like any file (the readers seek: a pipe read in place failed with ESPIPE).
 */
async function spoolInput(p: string): Promise<{ path: string; cleanup: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'llm-nrm-stdin-'));
  const path = join(dir, 'input');
  try {
    await pipeline(isStdinPath(p) ? process.stdin : createReadStream(p), createWriteStream(path));
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    const what = isStdinPath(p) ? 'standard input' : p;
    throw new LlmNrmError('IO', `cannot read ${what}: ${(e as Error).message}`, { cause: e, file: isStdinPath(p) ? '-' : p });
  }
  return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Every one-pass input of `paths` copied to a temporary file (`spoolInput`), the others as they are:
 * the paths to read (any number of times) and each copy's name as given (`ConvertOptions.names`).
 */
export async function spoolInputs(paths: readonly string[]): Promise<{ paths: string[]; names: Map<string, string>; cleanup: () => void }> {
  const names = new Map<string, string>();
  const cleanups: (() => void)[] = [];
  const cleanup = () => cleanups.forEach((c) => c());
  const out: string[] = [];
  try {
    for (const p of paths) {
      if (!(await readsOnce(p))) {
        out.push(p);
        continue;
      }
      const copy = await spoolInput(p);
      cleanups.push(copy.cleanup);
      names.set(copy.path, isStdinPath(p) ? '-' : p);
      out.push(copy.path);
    }
  } catch (e) {
    cleanup();
    throw e;
  }
  return { paths: out, names, cleanup };
}
