// The engine object (LLM-NRM on wasm, binary on the wasm binary kernel), its worker pool's lifetime,
// and an L-BFGS fit on the wasm objective reaching the TypeScript kernel's optimum.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ALL_PARTS, getFamily, fit, llmNrmLayout, randomSource, simulateFleet, thetaStandardErrors, type Objective } from '@llm-nrm/core';
import {
  binaryLayout,
  binaryObjective,
  blockPreconditioner,
  correctness,
  initialParameters,
  llmNrmObjective,
  minimizeLbfgs,
  standardizeTheta,
  standardized,
} from '@llm-nrm/core/engine';
import { gradientFleet, randomPoint } from '@llm-nrm/tooling/gradient';
import { describe, expect, it } from 'vitest';
import { disposeWasmThreads, wasmEngine, wasmLlmNrmObjective, wasmThreadPool, type WasmObjective } from './index.js';

const threadCount = (): number => readdirSync('/proc/self/task').length;
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

function pass(o: Objective, x: Float64Array): { loss: number; g: Float64Array } {
  const g = new Float64Array(x.length);
  return { loss: o.lossAndGrad(x, g), g };
}

describe('wasmEngine', () => {
  it("is named 'wasm'; binary layouts run the wasm binary kernel on correctness (core's TS bits)", () => {
    const engine = wasmEngine();
    expect(engine.name).toBe('wasm');
    const { bank } = gradientFleet(11);
    for (const pl of [1, 2, 3, 4] as const) {
      const layout = binaryLayout(bank, pl);
      const o = engine.objective(bank, layout);
      expect(o.engine).toBe('wasm');
      const x = randomPoint(layout, randomSource(pl));
      const a = pass(o, x);
      const b = pass(binaryObjective(bank, layout, correctness(bank)), x);
      expect(a.loss).toBe(b.loss);
      expect(Array.from(a.g)).toEqual(Array.from(b.g));
    }
    engine.dispose();
  });

  it('LLM-NRM layouts (given directly or as { layout }) run the wasm kernel', () => {
    const engine = wasmEngine();
    const { bank } = gradientFleet(12);
    const layout = llmNrmLayout(bank, ALL_PARTS);
    const x = randomPoint(layout, randomSource(2));
    const o1 = engine.objective(bank, layout, { itemSd: 3 });
    const o2 = engine.objective(bank, { layout }, { itemSd: 3 });
    expect(o1.engine).toBe('wasm');
    const a = pass(o1, x);
    const b = pass(o2, x);
    const c = pass(wasmLlmNrmObjective(bank, layout, { itemSd: 3 }), x);
    const t = pass(llmNrmObjective(bank, layout, { itemSd: 3 }), x);
    expect(a.loss).toBe(b.loss);
    expect(a.loss).toBe(c.loss);
    expect(Math.abs(a.loss - t.loss) / t.loss).toBeLessThan(1e-6);
    engine.dispose();
  });

  it("its `engine` is core's Engine: the family's layout and fastKernel to the objective, the kernel's curvature for its own objectives, fit records 'wasm'", () => {
    const w = wasmEngine();
    try {
      expect(w.engine.name).toBe('wasm');
      const { bank } = gradientFleet(13);
      for (const name of ['2pl', '3pl', 'llm-nrm'] as const) {
        const family = getFamily(name);
        const layout = family.layout(bank);
        const x = randomPoint(layout, randomSource(5));
        const o = w.engine.objective(bank, family, {});
        const direct = w.objective(bank, { layout, fastKernel: family.fastKernel === true }, {});
        expect(pass(o, x).loss, name).toBe(pass(direct, x).loss);
        expect(w.engine.curvature!(bank, family, {}, o) !== null, name).toBe(layout.kind !== 'binary');
      }
      expect(w.engine.curvature!(bank, getFamily('llm-nrm'), {}, llmNrmObjective(bank, llmNrmLayout(bank, ALL_PARTS), {}))).toBeNull();
      const r = fit(simulateFleet({ models: 12, items: 20, seed: 3 }).bank, { engine: w.engine, standardErrors: false });
      expect(r.engine).toBe('wasm');
      expect(r.converged).toBe(true);
    } finally {
      w.dispose();
    }
  });

  it('threaded engines share one pool: threads - 1 workers however many engines and objectives; disposeWasmThreads stops them', async () => {
    const before = threadCount();
    const fleet = simulateFleet({ models: 40, items: 60, seed: 3 });
    const layout = llmNrmLayout(fleet.bank, ALL_PARTS);
    const x = initialParameters(fleet.bank, layout);
    const ref = pass(llmNrmObjective(fleet.bank, layout), x).loss;
    for (let e = 0; e < 3; e++) {
      // As a program that makes an engine per fit would.
      const engine = wasmEngine({ threads: 3 });
      expect(engine.threads).toBe(3);
      for (let r = 0; r < 3; r++) {
        const o = engine.objective(fleet.bank, layout);
        expect(o.engine).toBe('wasm');
        expect(Math.abs(pass(o, x).loss - ref) / ref).toBeLessThan(1e-6);
      }
      engine.dispose();
    }
    expect(threadCount()).toBe(before + 2);
    disposeWasmThreads();
    const until = Date.now() + 10_000;
    while (threadCount() > before && Date.now() < until) await settle(20);
    expect(threadCount()).toBe(before);
  });

  it('an engine on a caller-owned pool; dispose of the engine disposes its objectives', () => {
    const pool = wasmThreadPool(2);
    try {
      const engine = wasmEngine({ pool });
      const { bank } = gradientFleet(11);
      const layout = llmNrmLayout(bank, ALL_PARTS);
      const x = randomPoint(layout, randomSource(5));
      const o = engine.objective(bank, layout);
      expect((o as WasmObjective).threads).toBe(2);
      expect(Number.isFinite(pass(o, x).loss)).toBe(true);
      engine.dispose();
      expect(() => pass(o, x)).toThrow(/disposed/);
    } finally {
      pool.dispose();
    }
  });
});

describe('process lifetime', () => {
  const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
  it('a process with threaded objectives that were never disposed exits by itself (built dist)', () => {
    expect(existsSync(dist), 'run `npm run build` first').toBe(true);
    const code = `
      import * as core from '@llm-nrm/core';
      import { initialParameters } from '@llm-nrm/core/engine';
      import { wasmLlmNrmObjective, wasmEngine } from ${JSON.stringify(dist)};
      const { bank } = core.simulateFleet({ models: 20, items: 50, seed: 1 });
      const layout = core.llmNrmLayout(bank, core.ALL_PARTS);
      const x = initialParameters(bank, layout);
      const o = wasmLlmNrmObjective(bank, layout, {}, { threads: 2 });
      const e = wasmEngine({ threads: 2 }).objective(bank, layout);
      const a = o.lossAndGrad(x, new Float64Array(x.length));
      const b = e.lossAndGrad(x, new Float64Array(x.length));
      console.log(JSON.stringify({ threads: o.threads, same: a === b }));
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      timeout: 30_000,
      encoding: 'utf8',
    });
    expect(JSON.parse(out.trim())).toEqual({ threads: 2, same: true });
  });
});

describe('L-BFGS on the wasm objective', () => {
  it('reaches the optimum of the TypeScript kernel (default fit recipe: standardised theta, block preconditioner)', () => {
    const fleet = simulateFleet({ models: 24, items: 60, seed: 9, missing: 0.1, rotations: 2 });
    const { bank } = fleet;
    const layout = llmNrmLayout(bank, ALL_PARTS);
    const J = layout.nModels;
    const fitWith = (inner: Objective) => {
      const pc = blockPreconditioner(bank, inner);
      return minimizeLbfgs(standardizeTheta(inner), initialParameters(bank, layout), {
        preconditioner: { apply: pc.apply, refresh: (x) => pc.refresh(standardized(x, J)) },
        refreshEvery: 10,
        maxIterations: 400,
        tolerance: 1e-10,
      });
    };
    const ts = fitWith(llmNrmObjective(bank, layout));
    const wa = fitWith(wasmLlmNrmObjective(bank, layout, {}, { threads: 2 }));
    // Each optimum evaluated by the float64 kernel. The wasm loss is computed from f32-rounded
    // parameters and data, so it is rough at about 1e-8 relative (here 2e-5 absolute): L-BFGS
    // stops on it where the f64 loss would still fall by that much, i.e. slightly short of the
    // optimum in flat directions. Held: the loss within 1e-8 relative of the TS optimum, and every
    // ability within 5% of its standard error (measured about 2e-9 and 1%).
    const tsObj = standardizeTheta(llmNrmObjective(bank, layout));
    const lTs = pass(tsObj, ts.x).loss;
    const lWa = pass(tsObj, wa.x).loss;
    expect(ts.reason).toBe('tolerance');
    expect(wa.reason).toBe('tolerance');
    expect(Math.abs(lWa - lTs) / lTs).toBeLessThan(1e-8);
    const a = standardized(ts.x, J);
    const b = standardized(wa.x, J);
    // Items held fixed (no item profile), theta's scale pinned by the fleet (no theta prior).
    const se = thetaStandardErrors(getFamily('llm-nrm'), bank, layout, a, llmNrmObjective(bank, layout).free, {}, 0).se;
    for (let j = 0; j < J; j++) expect(Math.abs(a[j]! - b[j]!), `LLM ${j}`).toBeLessThan(0.05 * se[j]!);
  });
});
