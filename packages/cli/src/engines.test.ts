// Every engine the CLI offers computes the same objective: tfjs (float32, chunked over LLM rows)
// and wasm (f32x4 SIMD, f64 sums) against each other and against core's float64 'ts' kernel, at a
// small size (packages/cli/bench/tfjs-vs-wasm.js measures 189 x 2,000: within 6e-8 relative).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bankRecords, getFamily, LlmNrmError, simulateFleet, type CalibrationBundle } from '@llm-nrm/core';
import { writeResponses } from '@llm-nrm/adapters';
import { tempDir } from '@llm-nrm/tooling/test';
import { describe, expect, it } from 'vitest';
import { runCli } from '../test/runCli.js';
import { loadEngine, loadTfjsEngine, TFJS_MISSING } from './engines.js';

const { bank } = simulateFleet({ models: 16, items: 60, seed: 4 });

describe('the engines agree', () => {
  for (const model of ['llm-nrm', 'nrm', '2pl'] as const) {
    it(`${model}: tfjs and wasm losses within 1e-5 relative of each other and of ts`, async () => {
      const family = getFamily(model);
      const fitBank = family.prepare(bank);
      const layout = family.layout(fitBank);
      const x = family.start(fitBank, layout);
      for (let t = 0; t < x.length; t++) x[t]! += 0.3 * Math.sin(1.7 * t);
      const loss: Record<string, number> = {};
      for (const name of ['ts', 'wasm', 'tfjs']) {
        const engine = await loadEngine(name, { threads: 1 });
        const objective = engine.objective(fitBank, family, {});
        expect(objective.layout.size).toBe(layout.size);
        loss[name] = objective.lossAndGrad(Float64Array.from(x), new Float64Array(layout.size));
      }
      expect(Math.abs(loss.tfjs! - loss.wasm!) / Math.abs(loss.wasm!)).toBeLessThan(1e-5);
      expect(Math.abs(loss.wasm! - loss.ts!) / Math.abs(loss.ts!)).toBeLessThan(1e-5);
      // Not a constant: the loss depends on the point.
      const ts = await loadEngine('ts');
      expect(ts.objective(fitBank, family, {}).lossAndGrad(family.start(fitBank, layout), new Float64Array(layout.size))).not.toBeCloseTo(loss.ts!, 0);
    });
  }
});

describe('threaded L-BFGS vectors (fit --threaded-vectors, the default)', () => {
  it('reach the wasm and auto engines unless turned off', async () => {
    for (const name of ['wasm', 'auto']) {
      expect((await loadEngine(name, { threads: 2 })).vectors?.detail).toBe('L-BFGS vectors on 2 threads');
      expect((await loadEngine(name, { threads: 2, threadedVectors: true })).vectors?.detail).toBe('L-BFGS vectors on 2 threads');
      expect((await loadEngine(name, { threads: 2, threadedVectors: false })).vectors).toBeUndefined();
    }
    expect((await loadEngine('ts', { threadedVectors: true })).vectors).toBeUndefined();
  });

  it('write the same bundle parameters as --no-threaded-vectors (a fleet whose vectors the pool shares)', async () => {
    const tmp = tempDir('llm-nrm-cli-vectors-');
    try {
      // 20 x 3,000: about 35,000 parameters, past the pool's 32,768.
      const fleet = simulateFleet({ models: 20, items: 3000, seed: 5 });
      const responses = join(tmp.dir, 'responses.jsonl');
      await writeResponses(bankRecords(fleet.bank), responses);
      const bundles: CalibrationBundle[] = [];
      for (const extra of [['--no-threaded-vectors'], []]) {
        const out = join(tmp.dir, `bundle${extra.length}.json`);
        const { code, err } = await runCli(['fit', responses, '-o', out, '-q', '--engine', 'wasm', '--se', 'quasi', ...extra]);
        expect(err).toBe('');
        expect(code).toBe(0);
        bundles.push(JSON.parse(readFileSync(out, 'utf8')) as CalibrationBundle);
      }
      const [a, b] = bundles as [CalibrationBundle, CalibrationBundle];
      expect(a.llms.length).toBe(20);
      expect(b.llms).toEqual(a.llms);
      expect(b.items).toEqual(a.items);
      expect(b.fit.loss).toBe(a.fit.loss);
    } finally {
      tmp.cleanup();
    }
  }, 120_000);
});

describe('--engine tfjs without @llm-nrm/engine-tfjs', () => {
  // llm-nrm does not install engine-tfjs (an optional peer): its absence is a real failed import here.
  const absent = '@llm-nrm/engine-tfjs-not-installed';
  it('says how to add it: npm install @llm-nrm/engine-tfjs, and tfjs-node or tfjs-node-gpu where they install', async () => {
    const error = await loadTfjsEngine(() => import(absent), absent).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmNrmError);
    expect((error as LlmNrmError).code).toBe('INVALID_OPTION');
    expect((error as LlmNrmError).message).toBe(TFJS_MISSING);
    expect(TFJS_MISSING).toContain('npm install @llm-nrm/engine-tfjs');
    expect(TFJS_MISSING).toMatch(/@tensorflow\/tfjs-node, or @tensorflow\/tfjs-node-gpu/);
  });
  it('passes any other failure through as it is (tfjs missing or broken under engine-tfjs)', async () => {
    const broken = new Error("Cannot find package '@tensorflow/tfjs' imported from /x/node_modules/@llm-nrm/engine-tfjs/dist/index.js");
    await expect(loadTfjsEngine(() => Promise.reject(broken))).rejects.toBe(broken);
  });
});
