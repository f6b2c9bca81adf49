/** Provenance of CLI outputs: the tool version, the command line, and hashes of the inputs. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { LlmNrmError } from '@llm-nrm/core';
import { tidyFormatFromExtension, walkFiles } from '@llm-nrm/adapters';

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

/**
 * Path and SHA-256 of each input file: the file itself, or every file under a folder that the
 * shared walk lists (the walk every reader uses, so nothing a fit read is missing), narrowed to
 * tidy files when `tidyOnly` (a fit of tidy responses).
 */
export async function hashInputs(path: string, options: { tidyOnly?: boolean } = {}): Promise<{ path: string; sha256: string }[]> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    throw new LlmNrmError('IO', `cannot read ${path}: ${(e as Error).message}`, { cause: e, file: path });
  }
  const files = st.isDirectory()
    ? await walkFiles(path, options.tidyOnly === false ? {} : { accept: (name) => tidyFormatFromExtension(name) !== undefined })
    : [path];
  const out: { path: string; sha256: string }[] = [];
  for (const f of files) out.push({ path: f, sha256: await sha256File(f) });
  return out;
}
