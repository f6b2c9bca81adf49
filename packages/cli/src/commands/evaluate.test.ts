// `llm-nrm evaluate` run in-process through main() on a small simulated responses file (temp dir);
// stdout/stderr captured.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { bankRecords, simulateFleet } from '@llm-nrm/core';
import { tempDir } from '@llm-nrm/tooling/test';
import { runCli } from '../../test/runCli.js';

const tmp = tempDir('llm-nrm-cli-evaluate-');
afterAll(() => tmp.cleanup());
afterEach(() => vi.restoreAllMocks());

const run = runCli;

const file = join(tmp.dir, 'sim.jsonl');
const { bank } = simulateFleet({ models: 12, items: 25, seed: 2 });
writeFileSync(file, [...bankRecords(bank)].map((r) => JSON.stringify(r)).join('\n') + '\n');

describe('llm-nrm evaluate', () => {
  it('prints Table 1 with the requested models and ablation rows', async () => {
    const { code, out, err } = await run(['evaluate', file, '--cv', '3', '--models', 'llm-nrm,2pl', '--ablations', '--max-iterations', '30']);
    expect(code).toBe(0);
    expect(err).toContain('loaded 12 LLMs x 25 items');
    expect(out).toMatch(/3-fold CV over 300 cells/);
    expect(out).toMatch(/model\s+option acc\s+option log-loss\s+correct acc\s+correct log-loss\s+correct Brier/);
    for (const name of ['llm-nrm ', '2pl', 'llm-nrm -sharpness', 'llm-nrm -position', 'llm-nrm -fallback', 'nrm ']) expect(out).toContain(name);
    expect(out).toMatch(/0\.\d{4} ±0\.\d{4}/);
  });

  it('names the unconverged fits on its first line, with their distance to the optimum (and first in --json)', async () => {
    const capped = await run(['evaluate', file, '--cv', '3', '--models', 'llm-nrm', '--max-iterations', '2', '-q']);
    expect(capped.code).toBe(0);
    expect(capped.out.split('\n')[0]).toMatch(
      /^warning: 3 of 3 fits did not converge \(ended more than 1 SE from their optimum\): llm-nrm fold 1 \([\d.]+ SE from its optimum\), llm-nrm fold 2 \([\d.]+ SE from its optimum\), llm-nrm fold 3 \(/,
    );
    expect(capped.out).toContain('raise --max-iterations');
    const json = await run(['evaluate', file, '--cv', '3', '--models', 'llm-nrm', '--max-iterations', '2', '-q', '--json']);
    const parsed = JSON.parse(json.out) as { unconverged: { model: string; fold: number; distance: number }[] };
    expect(Object.keys(parsed)[0]).toBe('unconverged');
    expect(parsed.unconverged.map((u) => u.fold)).toEqual([1, 2, 3]);
    expect(parsed.unconverged.every((u) => u.distance > 1)).toBe(true);
    const full = await run(['evaluate', file, '--cv', '3', '--models', 'llm-nrm', '-q']);
    expect(full.code).toBe(0);
    expect(full.out).toMatch(/^Held-out prediction, 3-fold CV over 300 cells/);
    expect(full.out).not.toContain('warning:');
  });

  it('--cv gives the same table on worker threads as in one thread (only the seconds differ)', async () => {
    const args = ['evaluate', file, '--cv', '3', '--models', 'llm-nrm,nrm,2pl,3pl', '--max-iterations', '30', '--json', '-q'];
    const one = await run([...args, '--workers', '1']);
    const three = await run([...args, '--workers', '3']);
    expect(one.code).toBe(0);
    expect(three.code).toBe(0);
    const strip = (out: string) => {
      const cv = JSON.parse(out).cv as { rows: { seconds: number; folds: { fitSeconds: number }[] }[] };
      for (const r of cv.rows) {
        r.seconds = 0;
        for (const f of r.folds) f.fitSeconds = 0;
      }
      return cv;
    };
    const a = strip(one.out);
    expect(a.rows.map((r) => (r as unknown as { name: string }).name)).toEqual(['llm-nrm', 'nrm', '2pl', '3pl']);
    expect(strip(three.out)).toEqual(a);
    // The engine that ran each model: auto picks ts for a bank this small.
    expect((a as unknown as { engines: unknown }).engines).toEqual({ 'llm-nrm': 'ts', nrm: 'ts', '2pl': 'ts', '3pl': 'ts' });
    // --engine wasm: 2PL and 3PL on the wasm binary kernel. 2PL with the TypeScript kernel's bits,
    // so its row is the ts run's to the last digit; 3PL (ModelFamily.fastKernel) on the kernel's
    // own exp and log (within 1e-12 of core's pass), so its row agrees to about 1e-10.
    const wasm = await run([...args, '--workers', '2', '--engine', 'wasm']);
    expect(wasm.code).toBe(0);
    const w = strip(wasm.out) as unknown as { engines: unknown; rows: { name: string }[] };
    expect(w.engines).toEqual({ 'llm-nrm': 'wasm', nrm: 'wasm', '2pl': 'wasm', '3pl': 'wasm' });
    const row = (cv: { rows: { name: string }[] }, name: string) => cv.rows.find((r) => r.name === name)!;
    const tsRows = a as unknown as { rows: { name: string }[] };
    expect(row(w, '2pl')).toEqual(row(tsRows, '2pl'));
    const leaves = (v: unknown, out: [string, unknown][] = [], path = ''): [string, unknown][] => {
      if (v !== null && typeof v === 'object') for (const [k, c] of Object.entries(v)) leaves(c, out, `${path}.${k}`);
      else out.push([path, v]);
      return out;
    };
    const fast = leaves(row(w, '3pl'));
    const exact = leaves(row(tsRows, '3pl'));
    expect(fast.map(([k]) => k)).toEqual(exact.map(([k]) => k));
    fast.forEach(([k, v], t) => {
      const want = exact[t]![1];
      if (typeof want === 'number') expect(Math.abs((v as number) - want), k).toBeLessThan(1e-8 * (1 + Math.abs(want)));
      else expect(v, k).toEqual(want);
    });
    const bad = await run([...args, '--workers', '0']);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('invalid --workers value: 0');
  });

  it('--by-llm and --compression --json give machine output', async () => {
    const { code, out } = await run(['evaluate', file, '--by-llm', '3', '--compression', '5,25', '--max-iterations', '30', '--json', '-q']);
    expect(code).toBe(0);
    const res = JSON.parse(out);
    expect(res.byLlm.rows.map((r: { estimator: string }) => r.estimator)).toEqual(['correctness', 'incorrect-only', 'options']);
    expect(res.byLlm.full).toHaveLength(12);
    expect(res.compression.points.map((p: { budget: number }) => p.budget)).toEqual([5, 25]);
    // Tiny-run scoring by default, against the full-bank fixed-item fit: all items rank close to it.
    expect(res.compression.scoring).toBe('tiny-run');
    expect(res.compression.points[1].kendall).toBeGreaterThan(0.6);
  });

  it('--compression gives the same study with its LLM folds on worker threads as in one thread', async () => {
    const args = ['evaluate', file, '--compression', '5', '--max-iterations', '30', '--json', '-q'];
    const one = await run([...args, '--workers', '1']);
    const three = await run([...args, '--workers', '3']);
    expect(one.code).toBe(0);
    expect(three.code).toBe(0);
    const res = JSON.parse(one.out).compression as { folds: number; points: { selected: string[][] }[]; full: number[] };
    expect(res.folds).toBe(5);
    expect(res.points[0]!.selected).toHaveLength(5);
    expect(res.full.every((v) => Number.isFinite(v))).toBe(true);
    expect(three.out).toBe(one.out);
  });

  it('--adaptive replays adaptive runs of each length and an SE-stopped run, as a table and as JSON', async () => {
    const args = ['evaluate', file, '--adaptive', '4,6', '--se', '0.5', '--min-items', '4', '--max-items', '8', '--batch', '3', '--max-iterations', '60', '-q'];
    const json = await run([...args, '--json']);
    expect(json.code).toBe(0);
    // Its LLM folds on worker threads (one per core by default): the study of one thread.
    expect(json.out).toBe((await run([...args, '--json', '--workers', '1'])).out);
    const res = JSON.parse(json.out).adaptive as {
      batch: number;
      points: { budget: number; meanItems: number; kendall: number; kendallStatic: number; kendallRandom: number; coverage95: number; thetas?: unknown }[];
      seStop: { se: number; minItems: number; maxItems: number; meanItems: number; items: [number, number] };
    };
    expect(res.batch).toBe(3);
    expect(res.points.map((p) => [p.budget, p.meanItems])).toEqual([
      [4, 4],
      [6, 6],
    ]);
    for (const p of res.points) {
      for (const v of [p.kendall, p.kendallStatic, p.kendallRandom]) expect(Math.abs(v)).toBeLessThanOrEqual(1);
      expect(p.thetas).toBeUndefined();
    }
    expect(res.seStop).toMatchObject({ se: 0.5, minItems: 4, maxItems: 8 });
    expect(res.seStop.items[0]).toBeGreaterThanOrEqual(4);
    expect(res.seStop.items[1]).toBeLessThanOrEqual(8);
    const text = await run([
      'evaluate',
      file,
      '--adaptive',
      '3',
      '--se',
      '0.5',
      '--min-items',
      '3',
      '--max-items',
      '4',
      '--batch',
      '2',
      '--max-iterations',
      '60',
      '-q',
    ]);
    expect(text.out).toMatch(/Adaptive tests, 5-fold over LLMs \(llm-nrm, rounds of 2 items\)/);
    expect(text.out).toMatch(/Stopping at SE <= 0\.5 \(at least 3, at most 4 items\): [\d.]+ items on average/);
    const bad = await run(['evaluate', file, '--adaptive', '5', '--batch', '0']);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('invalid --batch value: 0');
  });

  it('rejects an unknown model with one clear line', async () => {
    const { code, err } = await run(['evaluate', file, '--models', 'llm-nrm,5pl']);
    expect(code).toBe(1);
    expect(err).toContain('unknown model: "5pl"');
  });
});
