// tfjs autograd against core's analytic kernels: the same loss and the same gradient for every model
// of `modelObjective`, on small seeded banks with ragged option counts (2..7), missing, hard and
// rotated cells, at random points, at the generating truth and where the gate difficulty's
// denominator D_i is near 0. tfjs computes in float32, so the tolerances are float32 ones:
// loss relative 1e-5; gradient |g_tfjs - g| <= 1e-4 |g| + 1e-5 max|g| per coordinate.
// GRADIENT_REPORT=1 prints the largest discrepancy per model.
import { createRequire } from 'node:module';
import { LlmNrmError, llmNrmLayout, randomSource, type EvalScope, type ModelName, type Objective, type Priors } from '@llm-nrm/core';
import { DIFFICULTY_EPS, modelObjective } from '@llm-nrm/core/engine';
import { GRADIENT_CASES, gradientFleet as fleetOf, placeDenominators, randomPoint } from '@llm-nrm/tooling/gradient';
import { expectArraysClose } from '@llm-nrm/tooling/test';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTfjsObjective, loadTfjs, tfjsObjective, type LoadedTfjs } from './index.js';

/** Compare loss and gradient; returns the largest |g_tfjs - g| as a fraction of its tolerance. */
function compare(core: Objective, tfo: Objective, x: Float64Array, scope: EvalScope = {}): number {
  const g = new Float64Array(x.length);
  const gt = new Float64Array(x.length);
  const L = core.lossAndGrad(x, g, scope);
  const Lt = tfo.lossAndGrad(x, gt, scope);
  expect(Math.abs(Lt - L)).toBeLessThanOrEqual(1e-5 * Math.abs(L));
  let gmax = 0;
  for (const v of g) gmax = Math.max(gmax, Math.abs(v));
  expect(gmax).toBeGreaterThan(0);
  expectArraysClose(gt, g, { rtol: 1e-4, atol: 1e-5 * gmax });
  let worst = 0;
  for (let t = 0; t < x.length; t++) {
    if (core.free[t] === 0) expect(gt[t]).toBe(0);
    worst = Math.max(worst, Math.abs(gt[t]! - g[t]!) / (1e-4 * Math.abs(g[t]!) + 1e-5 * gmax));
  }
  return worst;
}

let tfjs: LoadedTfjs;
beforeAll(async () => {
  tfjs = await loadTfjs();
});

describe('loadTfjs', () => {
  it('falls back to tfjs-cpu where neither tfjs-node-gpu nor tfjs-node is installed, and says why', async () => {
    const require = createRequire(import.meta.url);
    const installed = (name: string): boolean => {
      try {
        require.resolve(name);
        return true;
      } catch {
        return false;
      }
    };
    const gpu = installed('@tensorflow/tfjs-node-gpu');
    const node = installed('@tensorflow/tfjs-node');
    if (!gpu && !node) {
      // This machine (and CI): neither optional dependency can install.
      expect(tfjs.backend).toBe('tfjs-cpu');
      expect(tfjs.detail).toContain('tfjs-node-gpu: not installed; tfjs-node: not installed');
      expect(tfjs.detail).toContain('gradients from @tensorflow/tfjs');
      expect(tfjs.tf.getBackend()).toBe('cpu');
    } else {
      expect(['tfjs-node-gpu', 'tfjs-node', 'tfjs-cpu']).toContain(tfjs.backend);
    }
    expect(await loadTfjs()).toBe(tfjs);
    const cpu = await loadTfjs({ prefer: ['tfjs-cpu'] });
    expect(cpu.backend).toBe('tfjs-cpu');
  });

  it('rejects an unknown backend name', async () => {
    await expect(loadTfjs({ prefer: ['tfjs-wasm' as never] })).rejects.toThrow(LlmNrmError);
    await expect(loadTfjs({ prefer: ['tfjs-wasm' as never] })).rejects.toThrow('unknown tfjs backend: "tfjs-wasm"');
  });
});

describe('tfjs autograd equals the analytic kernels', () => {
  for (const c of GRADIENT_CASES) {
    it(`${c.name}: loss and gradient at random points and at the truth`, async () => {
      let worst = 0;
      for (const seed of [11, 12]) {
        const fleet = fleetOf(seed);
        const core = modelObjective(fleet.bank, c.model, c.parts ?? {}).objective;
        const { objective: tfo, backend } = await createTfjsObjective(fleet.bank, c.model, { parts: c.parts ?? {}, tfjs });
        expect(backend).toBe(tfjs.backend);
        expect(tfo.layout).toEqual(core.layout);
        expect(Array.from(tfo.free)).toEqual(Array.from(core.free));
        const rng = randomSource(100 + seed);
        const points = [randomPoint(core.layout, rng), randomPoint(core.layout, rng)];
        if (core.layout.kind === 'llm-nrm') points.push(Float64Array.from(fleet.truth));
        for (const x of points) worst = Math.max(worst, compare(core, tfo, x));
        tfo.dispose();
      }
      if (process.env.GRADIENT_REPORT) console.log(`tfjs ${c.name}: max |g_tfjs - g| / tolerance ${worst.toFixed(3)}`);
    });
  }

  it('llm-nrm and nrm where the gate difficulty denominator D_i is near 0', async () => {
    const { bank } = fleetOf(11);
    for (const model of ['llm-nrm', 'nrm'] as const) {
      const core = modelObjective(bank, model).objective;
      const { objective: tfo } = await createTfjsObjective(bank, model, { tfjs });
      const x = randomPoint(core.layout, randomSource(7));
      placeDenominators(bank, core.layout, x, [0, 1e-9, -1e-4, 0.3 * DIFFICULTY_EPS, -DIFFICULTY_EPS, 2 * DIFFICULTY_EPS]);
      const worst = compare(core, tfo, x);
      if (process.env.GRADIENT_REPORT) console.log(`tfjs ${model} near D = 0: max |g_tfjs - g| / tolerance ${worst.toFixed(3)}`);
      tfo.dispose();
    }
  });

  it('row ranges, the item prior switched off, and other priors', async () => {
    const { bank } = fleetOf(12);
    const priors: Priors = { itemSd: 2, llmSd: 1.5 };
    for (const model of ['llm-nrm', 'nrm', '2pl', '4pl'] as const) {
      const core = modelObjective(bank, model, {}, priors).objective;
      const { objective: tfo } = await createTfjsObjective(bank, model, { priors, tfjs });
      const x = randomPoint(core.layout, randomSource(8));
      for (const scope of [{ rowStart: 1, rowEnd: 4 }, { itemPrior: false }, { rowStart: 3, rowEnd: 6, itemPrior: false }, { rowStart: 2, rowEnd: 2 }]) {
        compare(core, tfo, x, scope);
      }
      tfo.dispose();
    }
  });

  it("tfjs's own gather gradient ('native') and the scatter-add one give core's gradient alike", async () => {
    const { bank } = fleetOf(12);
    for (const model of ['llm-nrm', '4pl'] as const) {
      const core = modelObjective(bank, model).objective;
      const x = randomPoint(core.layout, randomSource(31));
      for (const gatherGradient of ['native', 'scatter'] as const) {
        const { objective: tfo } = await createTfjsObjective(bank, model, { tfjs, gatherGradient });
        compare(core, tfo, x, { rowStart: 1, rowEnd: 5 });
        tfo.dispose();
      }
    }
  });

  it('tfjsObjective builds from a layout, holds no tensors after dispose, and refuses use after it', () => {
    const { tf } = tfjs;
    const { bank } = fleetOf(11);
    const layout = llmNrmLayout(bank, { sharpness: true, position: false, fallback: true });
    const before = tf.memory().numTensors;
    const tfo = tfjsObjective(bank, layout, {}, tf);
    const x = randomPoint(layout, randomSource(1));
    const g = new Float64Array(layout.size);
    expect(Number.isFinite(tfo.lossAndGrad(x, g))).toBe(true);
    expect(tf.memory().numTensors).toBeGreaterThan(before);
    tfo.dispose();
    expect(tf.memory().numTensors).toBe(before);
    expect(() => tfo.lossAndGrad(x, g)).toThrow('tfjs objective used after dispose()');
    const other = tfjsObjective(bank, layout, {}, tf);
    expect(() => other.lossAndGrad(x, g, { rowStart: 4, rowEnd: 2 })).toThrow('invalid row range: 4..2');
    other.dispose();
  });

  it('createTfjsObjective rejects an unknown model', async () => {
    const { bank } = fleetOf(11);
    await expect(createTfjsObjective(bank, 'irt' as ModelName, { tfjs })).rejects.toThrow('unknown model: "irt"');
  });
});
