// main(): usage errors exit 2 before any handler runs; --help and --version return 0 in-process.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../test/runCli.js';

afterEach(() => vi.restoreAllMocks());

describe('main', () => {
  it('usage errors exit 2 with one line and a hint; nothing runs', async () => {
    const none = await runCli([]);
    expect(none.code).toBe(2);
    expect(none.err).toContain('Name a command');
    const typo = await runCli(['simulat']);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('Unknown argument: simulat. Did you mean simulate?');
    // A value missing after an option is a parser error (YError), also a usage error.
    const noValue = await runCli(['simulate', '-o']);
    expect(noValue.code).toBe(2);
    expect(noValue.err).toMatch(/Not enough arguments following: o/);
    expect(noValue.err).not.toContain('wrote');
  });

  it('--help and --version return 0 without ending the process', async () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const c of ['convert', 'fit', 'score', 'extend', 'simulate', 'demo', 'evaluate']) expect(help.out).toContain(`llm-nrm ${c}`);
    const version = await runCli(['--version']);
    expect(version.code).toBe(0);
    expect(version.out.trim()).toBe(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version);
    expect(exit).not.toHaveBeenCalled();
  });
});
