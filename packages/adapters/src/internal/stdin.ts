import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LlmNrmError } from '@llm-nrm/core';

/** `-` (and `/dev/stdin`, which the CLI passes for a bare `-` positional) read standard input. */
export function isStdinPath(p: string): boolean {
  return p === '-' || p === '/dev/stdin';
}

/** Standard input copied to a temporary file, so that it can be sniffed and read like any file. */
export async function spoolStdin(): Promise<{ path: string; cleanup: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'llm-nrm-stdin-'));
  const path = join(dir, 'stdin');
  const chunks: Buffer[] = [];
  try {
    for await (const c of process.stdin) chunks.push(c as Buffer);
    await writeFile(path, Buffer.concat(chunks));
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw new LlmNrmError('IO', `cannot read standard input: ${(e as Error).message}`, { cause: e, file: '-' });
  }
  return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
