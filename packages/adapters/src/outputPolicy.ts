/**
 * The one output policy of every llm-nrm command, for files and folders (DESIGN.md, "Files the
 * tools write"):
 *
 * - an output is never one of the inputs (the same file, also through a link or another name);
 * - a file is written to a temporary file beside it and renamed into place (`-o -` is stdout);
 * - a folder is written only when it is absent, empty, or one llm-nrm wrote before (it holds the
 *   marker file `.llm-nrm-output.json`, which lists every file written) and nothing else is in it;
 *   it is built in a temporary folder beside it and swapped into place, and of the old folder only
 *   the files its marker lists are removed;
 * - a folder that holds an input, is or holds the working directory, or holds anything the marker
 *   does not list is never replaced, `--force` or not.
 *
 * Every refusal is an `OUTPUT_REFUSED` error that says what was refused and how to proceed.
 */
import { lstat, mkdir, readFile, readdir, realpath, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { LlmNrmError } from '@llm-nrm/core';
import { STDOUT_PATH, alive, withLiveTemp, writeFileAtomic } from './atomic.js';

/** The marker file in every folder llm-nrm writes: which command wrote it, and which files. */
export const OUTPUT_MARKER = '.llm-nrm-output.json';

export interface OutputMarker {
  tool: 'llm-nrm';
  command: string;
  createdAt: string;
  /** Every file written, relative to the folder, `/`-separated; the marker itself is not listed. */
  files: string[];
}

export interface FileOutputOptions {
  /** The command's inputs (files or folders; `-` is skipped). */
  inputs: readonly string[];
  /** The option that named the output, for messages. Default `-o`. */
  flag?: string;
}

/** The real path of `p`, or of its nearest existing ancestor with the rest appended. */
async function realish(p: string): Promise<string> {
  const abs = resolve(p);
  const real = await realpath(abs).catch(() => undefined);
  if (real !== undefined) return real;
  const parent = dirname(abs);
  return parent === abs ? abs : join(await realish(parent), basename(abs));
}

/** True when `inner` is `outer` or lies inside it (both real, absolute paths). */
function within(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);
}

function refused(message: string, file: string): LlmNrmError {
  const e = new LlmNrmError('OUTPUT_REFUSED', message, { file });
  // The message names the folder already (`refused -o <dir>: ...`); the location prefix would say it twice.
  e.message = message;
  return e;
}

/**
 * Refuse an output file that is one of the inputs (the same file, also through a link or another
 * name): writing it would destroy the data being read; that is a folder; or that is one of the files
 * of a folder llm-nrm wrote (listed in the marker of a folder above it: a package's bank.json
 * overwritten by `score -o` would break the package). Outputs inside an input folder are allowed;
 * the caller marks them with `excludeFromWalks` so they are never read back.
 */
export async function assertOutputIsNotInput(output: string, inputs: readonly string[], flag = '-o'): Promise<void> {
  if (output === STDOUT_PATH) return;
  const out = await realish(output);
  const outStat = await lstat(out).catch(() => undefined);
  // Refused before any work (writing would fail only at the end, after minutes of fitting).
  if (outStat?.isDirectory()) throw refused(`refused ${flag} ${output}: it is a folder; name a file in it or beside it`, output);
  for (const input of inputs) {
    if (input === STDOUT_PATH || input === '/dev/stdin') continue;
    const inp = await realish(input);
    const st = outStat ? await lstat(inp).catch(() => undefined) : undefined;
    // A hard link is the same file under another name: same device and inode.
    const sameInode = outStat !== undefined && st !== undefined && st.isFile() && outStat.isFile() && st.dev === outStat.dev && st.ino === outStat.ino;
    if (inp === out || sameInode) {
      throw refused(`${flag} ${output} is also an input: writing it would overwrite the data being read; choose another output file`, output);
    }
  }
  if (outStat === undefined) return;
  for (let dir = dirname(out); ; dir = dirname(dir)) {
    const marker = await readMarker(dir);
    if (marker?.files.includes(relative(dir, out).split(sep).join('/'))) {
      throw refused(
        `refused ${flag} ${output}: it is part of ${dir}, which llm-nrm ${marker.command} wrote; writing it would change that output; choose another file`,
        output,
      );
    }
    if (dirname(dir) === dir) return;
  }
}

/**
 * Write one output file under the policy: refused when it is an input or a folder; written to a
 * temporary file and renamed into place; `-` writes to standard output.
 */
export async function writeFileOutput(path: string, data: string | Uint8Array, options: FileOutputOptions): Promise<void> {
  await assertOutputIsNotInput(path, options.inputs, options.flag);
  await writeFileAtomic(path, data);
}

export interface FolderOutputOptions {
  /** The command writing it (recorded in the marker). */
  command: string;
  /** The command's inputs (files or folders): a folder holding one is never replaced. */
  inputs: readonly string[];
  /**
   * Replace a folder llm-nrm wrote before (default false: refuse and point at `forceFlag`). It
   * never extends to a folder the policy protects.
   */
  replace?: boolean;
  /** The option that allows replacing, for messages (`--force`), or undefined when the command has none. */
  forceFlag?: string;
  /** The option that named the folder, for messages. Default `-o`. */
  flag?: string;
}

export interface FolderOutputResult {
  dir: string;
  /** Files written, relative to `dir`, `/`-separated (the marker not included). */
  files: string[];
  /** True when a folder llm-nrm wrote before was replaced. */
  replaced: boolean;
}

/** Every entry under `dir`, relative and `/`-separated; folders end in `/`. Links are not followed. */
async function listTree(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix === '' ? e.name : `${prefix}/${e.name}`;
    if (e.isDirectory()) {
      out.push(`${rel}/`);
      out.push(...(await listTree(dir, rel)));
    } else out.push(rel);
  }
  return out;
}

async function readMarker(dir: string): Promise<OutputMarker | undefined> {
  try {
    const m = JSON.parse(await readFile(join(dir, OUTPUT_MARKER), 'utf8')) as Partial<OutputMarker>;
    if (m.tool === 'llm-nrm' && typeof m.command === 'string' && Array.isArray(m.files) && m.files.every((f) => typeof f === 'string')) {
      return m as OutputMarker;
    }
  } catch {
    // No marker, or not ours: the folder is not one llm-nrm wrote.
  }
  return undefined;
}

/** Folders implied by a list of files (`a/b/c.txt` -> `a/`, `a/b/`). */
function foldersOf(files: readonly string[]): Set<string> {
  const dirs = new Set<string>();
  for (const f of files) {
    const parts = f.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/') + '/');
  }
  return dirs;
}

/**
 * Check that `dir` may be written under the policy; returns the marker of a folder llm-nrm wrote
 * (to be replaced), or undefined when the folder is absent or empty.
 */
export async function checkFolderOutput(dir: string, options: FolderOutputOptions): Promise<{ marker: OutputMarker | undefined; exists: boolean }> {
  const flag = options.flag ?? '-o';
  const real = await realish(dir);
  const how = 'choose an absent or empty folder, or one llm-nrm wrote';
  const st = await lstat(real).catch(() => undefined);
  if (st !== undefined && !st.isDirectory()) throw refused(`refused ${flag} ${dir}: it is a file, not a folder; ${how}`, dir);
  // An input inside it would be destroyed by the swap, whatever the folder holds besides.
  for (const input of options.inputs) {
    if (input === STDOUT_PATH || input === '/dev/stdin') continue;
    const inp = await realish(input);
    if (within(inp, real)) {
      throw refused(`refused ${flag} ${dir}: it ${inp === real ? 'is' : 'holds'} the input ${input}; ${how} (not one holding an input)`, dir);
    }
  }
  // Replacing the working directory (or a folder above it) would pull it from under the shell.
  const cwd = await realish(process.cwd());
  if (within(cwd, real)) throw refused(`refused ${flag} ${dir}: it ${cwd === real ? 'is' : 'holds'} the working directory; ${how}`, dir);
  if (st === undefined) {
    // The folder will be made: the nearest existing folder above it must be a folder, not a file.
    let up = dirname(real);
    let ust = await lstat(up).catch(() => undefined);
    while (ust === undefined && dirname(up) !== up) {
      up = dirname(up);
      ust = await lstat(up).catch(() => undefined);
    }
    if (ust !== undefined && !ust.isDirectory()) throw refused(`refused ${flag} ${dir}: ${up} is a file, not a folder; ${how}`, dir);
    return { marker: undefined, exists: false };
  }
  const entries = await listTree(real);
  if (entries.length === 0) return { marker: undefined, exists: true };
  const marker = await readMarker(real);
  if (marker === undefined) {
    // The top-level entries, sorted, name what the user would lose.
    const top = entries.filter((e) => !e.replace(/\/$/, '').includes('/')).sort();
    const shown = top.slice(0, 3);
    throw refused(
      `refused ${flag} ${dir}: the folder is not empty and llm-nrm did not write it (it holds ${shown.join(', ')}${top.length > shown.length ? ', ...' : ''}; no ${OUTPUT_MARKER}); ` +
        `nothing was changed; ${how}`,
      dir,
    );
  }
  const known = new Set([OUTPUT_MARKER, ...marker.files, ...foldersOf(marker.files)]);
  const foreign = entries.filter((e) => !known.has(e)).sort();
  if (foreign.length > 0) {
    throw refused(
      `refused ${flag} ${dir}: llm-nrm ${marker.command} wrote it, but it now also holds ${foreign.length} entr${foreign.length === 1 ? 'y' : 'ies'} llm-nrm did not write ` +
        `(first ${JSON.stringify(foreign[0])}); nothing was changed; move them out or ${how}`,
      dir,
    );
  }
  if (!options.replace) {
    throw refused(
      `refused ${flag} ${dir}: it exists (written by llm-nrm ${marker.command}); ${options.forceFlag !== undefined ? `pass ${options.forceFlag} to replace it, or ` : ''}choose an absent or empty folder`,
      dir,
    );
  }
  return { marker, exists: true };
}

/**
 * Write a folder under the policy: `build(tmp)` writes the files into a temporary folder beside
 * `dir` and returns their paths relative to it (`/`-separated); the marker is added and the folder
 * renamed into place. An old folder llm-nrm wrote is moved aside first and only the files its
 * marker lists are removed from it, so nothing the tool did not write is ever deleted.
 */
export async function writeFolderOutput(
  dir: string,
  build: (tmp: string) => Promise<readonly string[]>,
  options: FolderOutputOptions,
): Promise<FolderOutputResult> {
  // Renames act on the real folder: a link to it stays a link (and rename(2) cannot put a folder over a link).
  const target = await realish(dir);
  // First what a killed run left here (it may put an old folder back in place), then the policy.
  await removeStaleFolderTemps(target);
  const { marker: old, exists } = await checkFolderOutput(dir, options);
  const parent = dirname(target);
  await mkdir(parent, { recursive: true });
  const tmp = join(parent, `.${basename(target)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  let files: string[] = [];
  try {
    await withLiveTemp(tmp, async () => {
      await mkdir(tmp);
      files = [...(await build(tmp))].map((f) => f.split(sep).join('/')).sort();
      const marker: OutputMarker = { tool: 'llm-nrm', command: options.command, createdAt: new Date().toISOString(), files };
      await writeFile(join(tmp, OUTPUT_MARKER), JSON.stringify(marker, null, 2) + '\n');
    });
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    if (e instanceof LlmNrmError) throw e;
    throw new LlmNrmError('IO', `cannot write the folder: ${(e as Error).message}`, { cause: e, file: dir });
  }
  if (!exists) {
    await rename(tmp, target);
    return { dir, files, replaced: false };
  }
  if (old === undefined) {
    // An empty folder: rename(2) replaces an empty directory in one step.
    await rename(tmp, target).catch(async (e: unknown) => {
      await rm(tmp, { recursive: true, force: true });
      throw new LlmNrmError('IO', `cannot replace the empty folder: ${(e as Error).message}`, { cause: e, file: dir });
    });
    return { dir, files, replaced: false };
  }
  const aside = `${tmp}.old`;
  await rename(target, aside);
  try {
    await rename(tmp, target);
  } catch (e) {
    // Put the old folder back: a failed swap leaves what was there.
    await rename(aside, target);
    await rm(tmp, { recursive: true, force: true });
    throw new LlmNrmError('IO', `cannot replace the folder: ${(e as Error).message}`, { cause: e, file: dir });
  }
  await removeListed(aside, old);
  return { dir, files, replaced: true };
}

/**
 * What a killed run left beside `target` (named `.<name>.<pid>.<time>.tmp[.old]`, its process
 * gone): a half-built folder (`.tmp`) is removed; an old folder moved aside (`.tmp.old`) goes back
 * to `target` when the swap never happened, and otherwise loses only the files its marker lists.
 * Returns the paths it dealt with.
 */
export async function removeStaleFolderTemps(target: string): Promise<string[]> {
  const parent = dirname(target);
  const name = basename(target);
  let entries: string[];
  try {
    entries = await readdir(parent);
  } catch {
    return [];
  }
  const done: string[] = [];
  for (const entry of entries) {
    if (!entry.startsWith(`.${name}.`)) continue;
    const m = /\.(\d+)\.[0-9a-z]+\.tmp(\.old)?$/.exec(entry.slice(name.length + 1));
    if (m === null || entry.length !== name.length + 1 + m[0].length || alive(Number(m[1]))) continue;
    const p = join(parent, entry);
    if (!(await lstat(p).catch(() => undefined))?.isDirectory()) continue;
    if (m[2] === undefined) await rm(p, { recursive: true, force: true });
    else {
      const marker = await readMarker(p);
      if (marker === undefined) continue;
      if ((await lstat(target).catch(() => undefined)) === undefined) await rename(p, target);
      else await removeListed(p, marker);
    }
    done.push(p);
  }
  return done;
}

/**
 * Remove from `dir` only the files `marker` lists (and the marker), then the folders left empty;
 * anything else that appeared there meanwhile stays, and so does the folder.
 */
async function removeListed(dir: string, marker: OutputMarker): Promise<void> {
  for (const f of [OUTPUT_MARKER, ...marker.files]) {
    const p = join(dir, ...f.split('/'));
    // A listed name that climbs out of the folder is not ours to remove.
    if (!within(p, dir)) continue;
    await rm(p, { force: true });
  }
  const dirs = [...foldersOf(marker.files)].sort((a, b) => b.length - a.length);
  for (const d of [...dirs, '']) await rmdir(join(dir, d)).catch(() => undefined);
}

/** Relative, `/`-separated paths of every file under `dir` (for builders that copy trees). */
export async function filesUnder(dir: string): Promise<string[]> {
  return (await listTree(dir)).filter((e) => !e.endsWith('/'));
}
