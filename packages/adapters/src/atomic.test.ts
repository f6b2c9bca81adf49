import { spawn, execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readdirSync, symlinkSync, writeFileSync, createReadStream } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '@llm-nrm/tooling/test';
import { removeStaleTemps, writeFileAtomic } from './atomic.js';
import { assertOutputIsNotInput } from './outputPolicy.js';

const tmp = tempDir('llm-nrm-atomic-');
afterAll(() => tmp.cleanup());

describe('writeFileAtomic: outputs never replace what they should write through', () => {
  it('writes through a symbolic link, keeping the link', async () => {
    const target = join(tmp.dir, 'target.json');
    writeFileSync(target, 'old');
    const link = join(tmp.dir, 'link.json');
    symlinkSync(target, link);
    await writeFileAtomic(link, 'new');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('new');
  });

  it('writes into a FIFO instead of replacing it', async () => {
    const fifo = join(tmp.dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const got = new Promise<string>((res) => {
      let s = '';
      createReadStream(fifo)
        .on('data', (c) => (s += c))
        .on('end', () => res(s));
    });
    await writeFileAtomic(fifo, 'through the pipe');
    expect(await got).toBe('through the pipe');
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it('refuses an output that is an input, also under another name', async () => {
    const input = join(tmp.dir, 'r.jsonl');
    writeFileSync(input, '{}\n');
    symlinkSync(input, join(tmp.dir, 'alias.jsonl'));
    await expect(assertOutputIsNotInput(input, [input])).rejects.toThrow(/-o .*r\.jsonl is also an input/);
    await expect(assertOutputIsNotInput(join(tmp.dir, 'alias.jsonl'), [input])).rejects.toMatchObject({ code: 'OUTPUT_REFUSED' });
    await expect(assertOutputIsNotInput(join(tmp.dir, 'other.jsonl'), [input, tmp.dir])).resolves.toBeUndefined();
  });

  it('removes stale temporary files of our naming left by dead runs, not those of live ones', async () => {
    // A pid far above pid_max on Linux is never alive.
    const dead = join(tmp.dir, '.out.jsonl.99999999.lx3abc.tmp');
    const live = join(tmp.dir, `.out.jsonl.${process.pid}.lx3abc.tmp`);
    const other = join(tmp.dir, '.someone-else.tmp');
    for (const p of [dead, live, other]) writeFileSync(p, 'x');
    expect(await removeStaleTemps(tmp.dir)).toEqual([dead]);
    expect([existsSync(dead), existsSync(live), existsSync(other)]).toEqual([false, true, true]);
  });

  it('removes its temporary file when the run is interrupted (SIGTERM, SIGINT)', async () => {
    const dist = new URL('../dist/index.js', import.meta.url).href;
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const dir = join(tmp.dir, `sig-${signal}`);
      const script = `import { writeStreamAtomic } from ${JSON.stringify(dist)};
        async function* slow() { for (;;) { yield 'x'.repeat(65536); await new Promise((r) => setTimeout(r, 20)); } }
        await writeStreamAtomic(${JSON.stringify(join(dir, 'big.jsonl'))}, slow());`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
      const temps = () => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.tmp')) : []);
      for (let t = 0; t < 200 && temps().length === 0; t++) await new Promise((r) => setTimeout(r, 25));
      expect(temps()).toHaveLength(1);
      const exited = new Promise<NodeJS.Signals | null>((res) => child.on('exit', (_c, s) => res(s)));
      child.kill(signal);
      expect(await exited).toBe(signal);
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it('an input failing while it streams in is blamed, not the output', async () => {
    const { LlmNrmError } = await import('@llm-nrm/core');
    const { writeStreamAtomic } = await import('./atomic.js');
    async function* failing(): AsyncGenerator<string> {
      yield 'x';
      throw new LlmNrmError('IO', 'cannot read: EIO', { file: '/data/in.jsonl' });
    }
    const out = join(tmp.dir, 'blame.jsonl');
    await expect(writeStreamAtomic(out, failing())).rejects.toMatchObject({ file: '/data/in.jsonl', message: '/data/in.jsonl: cannot read: EIO' });
    expect(existsSync(out)).toBe(false);
  });
});
