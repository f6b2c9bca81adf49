// Run the CLI in-process through main(), capturing what it writes to stdout and stderr (and what
// yargs prints for --help through console.log).
import { vi } from 'vitest';
import { main } from '../src/main.js';

export async function runCli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void (out += a.join(' ') + '\n'));
  try {
    const code = await main(args);
    return { code, out, err };
  } finally {
    log.mockRestore();
    stdout.mockRestore();
    stderr.mockRestore();
  }
}
