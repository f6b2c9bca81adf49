// The one folder walk of llm-nrm: every reader, format detection and the provenance hashes list a
// folder's files through here, so they agree on what a folder holds (the bundle's input hashes
// cover exactly what a fit could read) and never read back what the tool itself wrote.
import { open, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Dirent } from 'node:fs';
import { LlmNrmError } from '@llm-nrm/core';

/** Our own temporary files: `.<name>.<pid>.<base36 time>.tmp` (see atomic.ts). */
export const TEMP_FILE_NAME = /^\..+\.(\d+)\.[0-9a-z]+\.tmp$/;

/** Outputs of this run (the `-o` of the command being run): never inputs of it. */
const outputsOfThisRun = new Set<string>();

/**
 * Mark `path` as an output of this process: folder walks leave it out, so `convert dir -o dir/all.jsonl`
 * does not read its own output back on the next run.
 */
export function excludeFromWalks(path: string): void {
  outputsOfThisRun.add(resolve(path));
}

export interface WalkOptions {
  /** Which files to list, by name. Default: every file. */
  accept?: (name: string) => boolean;
  /** Further paths to leave out (besides the outputs marked with `excludeFromWalks`). */
  exclude?: Iterable<string>;
  /** Leave out files llm-nrm wrote (calibration bundles, score summaries). Default true. */
  skipToolOutputs?: boolean;
}

/**
 * The entries of one folder that walks consider, sorted by name: hidden entries (`.git`, our
 * temporary files), `node_modules` and this run's outputs are left out. Symbolic links to files
 * count as files; links to folders are not followed (no cycles).
 */
export async function folderEntries(
  dir: string,
  exclude: ReadonlySet<string> = outputsOfThisRun,
): Promise<{ name: string; path: string; kind: 'file' | 'dir' }[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    throw new LlmNrmError('IO', `cannot read folder: ${(e as Error).message}`, { cause: e, file: dir });
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: { name: string; path: string; kind: 'file' | 'dir' }[] = [];
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const path = join(dir, e.name);
    if (exclude.has(resolve(path)) || outputsOfThisRun.has(resolve(path))) continue;
    if (e.isDirectory()) out.push({ name: e.name, path, kind: 'dir' });
    else if (e.isFile()) out.push({ name: e.name, path, kind: 'file' });
    else if (e.isSymbolicLink()) {
      const st = await stat(path).catch(() => undefined);
      if (st?.isFile()) out.push({ name: e.name, path, kind: 'file' });
    }
  }
  return out;
}

/** Files under `root` (recursive, sorted by path), by the rules of `folderEntries`. */
export async function walkFiles(root: string, options: WalkOptions = {}): Promise<string[]> {
  const exclude = new Set([...outputsOfThisRun, ...[...(options.exclude ?? [])].map((p) => resolve(p))]);
  const skipOutputs = options.skipToolOutputs ?? true;
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await folderEntries(dir, exclude)) {
      if (e.kind === 'dir') await walk(e.path);
      else if ((options.accept?.(e.name) ?? true) && !(skipOutputs && (await isToolOutput(e.path)))) out.push(e.path);
    }
  };
  await walk(root);
  return out;
}

/**
 * True when `path` is a file llm-nrm wrote that is not responses: a calibration bundle (first keys
 * `schemaVersion`, `model`) or a `score` summary (`bundle`, `responses`). Only
 * `.json` files are looked at (the first 512 bytes).
 */
export async function isToolOutput(path: string): Promise<boolean> {
  if (!/\.json$/i.test(path)) return false;
  let head: string;
  try {
    const fh = await open(path, 'r');
    try {
      const buf = new Uint8Array(512);
      const { bytesRead } = await fh.read(buf, 0, 512, 0);
      head = new TextDecoder().decode(buf.subarray(0, bytesRead));
    } finally {
      await fh.close();
    }
  } catch {
    return false;
  }
  return /^\uFEFF?\s*\{\s*"schemaVersion"\s*:\s*\d+\s*,\s*"model"\s*:/.test(head) || /^\uFEFF?\s*\{\s*"bundle"\s*:\s*"[^"]*"\s*,\s*"responses"\s*:/.test(head);
}
