/** Provenance of CLI outputs: the tool version, the command line, and hashes of the inputs. */
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LlmNrmError } from '@llm-nrm/core';
import { tidyFormatFromExtension } from '@llm-nrm/adapters';

let invocation: string[] = [];

/** Remember the arguments `main` was called with (for `commandLine`). */
export function setInvocation(argv: string[]): void {
  invocation = argv.slice();
}

/** The command line as a shell could re-run it: `llm-nrm fit x.jsonl -o b.json`. */
export function commandLine(): string {
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  return ['llm-nrm', ...invocation.map(quote)].join(' ');
}

let version: string | undefined;

/** The CLI package's version (package.json sits beside both src/ and dist/). */
export function toolVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}

/** SHA-256 of a file, streamed (responses files can be gigabytes). */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  } catch (e) {
    throw new LlmNrmError('IO', `cannot read ${path}: ${(e as Error).message}`, { cause: e, file: path });
  }
  return hash.digest('hex');
}

/**
 * Path and SHA-256 of each input file: the file itself, or every tidy file under a folder (sorted,
 * as `loadBank` reads them).
 */
export async function hashInputs(path: string): Promise<{ path: string; sha256: string }[]> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    throw new LlmNrmError('IO', `cannot read ${path}: ${(e as Error).message}`, { cause: e, file: path });
  }
  const files: string[] = [];
  if (st.isDirectory()) await tidyFilesUnder(path, files);
  else files.push(path);
  files.sort();
  const out: { path: string; sha256: string }[] = [];
  for (const f of files) out.push({ path: f, sha256: await sha256File(f) });
  return out;
}

async function tidyFilesUnder(dir: string, out: string[]): Promise<void> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.name.startsWith('.')) continue;
    if (e.isDirectory()) await tidyFilesUnder(p, out);
    else if (e.isFile() && tidyFormatFromExtension(p) !== undefined) out.push(p);
  }
}
