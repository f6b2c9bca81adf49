// `llm-nrm demo` end to end at a small size, in-process through main() (temp dirs, seeded).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBundle } from '@llm-nrm/core';
import { tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../../test/runCli.js';

const tmp = tempDir('llm-nrm-cli-demo-');
afterAll(() => tmp.cleanup());

describe('llm-nrm demo', () => {
  it('simulates, round-trips lm-eval outputs, fits, and prints the leaderboard, recovery and next steps', async () => {
    const { code, out, err } = await runCli(['demo', '--models', '12', '--items', '60']);
    expect(code).toBe(0);
    expect(err).toMatch(/1\/4 simulated 12 LLMs x 60 items/);
    expect(err).toMatch(/3\/4 read 720 records back with readLmEvalHarness: 12 LLMs x 60 items/);
    expect(out).toContain('LLM-NRM leaderboard (all 12 LLMs, 60 items');
    expect(out).toMatch(/rank\s+model\s+theta\s+se\s+sharpness\s+accuracy\s+true theta/);
    expect(out).toContain('Recovery of the simulated truth');
    const theta = Number(/theta\s+Spearman (-?\d\.\d+)/.exec(out)![1]);
    const slopes = Number(/a_ik\s+Pearson\s+(-?\d\.\d+)/.exec(out)![1]);
    expect(theta).toBeGreaterThan(0.9);
    // 12 LLMs per item: rough slopes; a wrong item mapping would give about 0.
    expect(slopes).toBeGreaterThan(0.5);
    expect(out).toMatch(/sharpness\s+Spearman -?\d\.\d+/);
    expect(out).toMatch(/converged\s+yes/);
    for (const c of ['llm-nrm convert', 'llm-nrm fit', 'llm-nrm score', 'llm-nrm evaluate']) expect(out).toContain(c);
  });

  it('--out keeps the lm-eval outputs, bundle and truth; --json gives the recovery', async () => {
    const dir = join(tmp.dir, 'demo');
    const { code, out } = await runCli(['demo', '--models', '12', '--items', '60', '--seed', '2', '--out', dir, '--json', '-q']);
    expect(code).toBe(0);
    const res = JSON.parse(out);
    expect(res.leaderboard).toHaveLength(12);
    expect(res.recovery.theta).toBeGreaterThan(0.9);
    expect(res.recovery.slopes).toBeGreaterThan(0.5);
    expect(Number.isFinite(res.recovery.sharpness)).toBe(true);
    expect(readdirSync(join(dir, 'lm-eval'))).toHaveLength(12);
    const bundle = parseBundle(readFileSync(join(dir, 'bundle.json'), 'utf8'));
    expect(bundle.items).toHaveLength(60);
    expect(bundle.items[0]!.id).toMatch(/^sim-\d+\/\d+$/);
    expect(existsSync(join(dir, 'truth.json'))).toBe(true);
  });
});
