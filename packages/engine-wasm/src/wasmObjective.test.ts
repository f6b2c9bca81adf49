// The wasm kernel against core's fused TypeScript kernel (float64) for every combination of the
// LLM-NRM parts (NRM = all off), soft and hard data, missing cells, rotated and unrotated columns,
// and every scope option; its gradient against finite differences of its own loss; and the same
// bits for any thread count. WASM_REPORT=1 prints the measured gaps.
//
// Tolerances. The kernel rounds parameters and data to f32 and computes each cell's softmax in f32
// lanes (unit roundoff u = 6e-8; exp/log within about 1 ulp), with f64 sums over cells. A cell's
// loss term then carries a relative error of a few u, and the errors of the many cells largely
// cancel: the loss is held to 1e-6 relative (measured: about 1e-8). A gradient coordinate sums
// per-cell terms r_k * (theta, 1, a, z, ...) whose f32 error is a few u of the largest term, and
// the terms may cancel (a gradient near 0 has large parts): each coordinate is held to
// 1e-5 |g_t| + 1e-5 max_t |g_t|, i.e. about 170 u of the largest gradient (measured: below 1e-7 of it).
import {
  ALL_PARTS,
  llmNrmLayout,
  randomSource,
  simulateFleet,
  type EvalScope,
  type LlmNrmLayout,
  type LlmNrmParts,
  type Objective,
  type ResponseBank,
} from '@llm-nrm/core';
import { hardenBank, llmNrmObjective } from '@llm-nrm/core/engine';
import { gradientFleet, placeDenominators, randomPoint } from '@llm-nrm/tooling/gradient';
import { afterAll, describe, expect, it } from 'vitest';
import { wasmLlmNrmObjective, wasmThreadPool, type WasmObjective } from './index.js';

const report = process.env.WASM_REPORT !== undefined;
const PART_SETS: LlmNrmParts[] = [];
for (const fallback of [false, true])
  for (const sharpness of [false, true]) for (const position of [false, true]) PART_SETS.push({ sharpness, position, fallback });
const partsName = (p: LlmNrmParts): string =>
  p.sharpness || p.position || p.fallback
    ? `llm-nrm [${[p.sharpness ? 'sharpness' : '', p.position ? 'position' : '', p.fallback ? 'fallback' : ''].filter(Boolean).join(', ')}]`
    : 'nrm';

const SCOPES: EvalScope[] = [
  {},
  { rowStart: 1, rowEnd: 4 },
  { rowStart: 5, rowEnd: 6 },
  { rowStart: 2, rowEnd: 2 },
  { itemPrior: false },
  { thetaPrior: false },
  { rowStart: 3, rowEnd: 6, itemPrior: false, thetaPrior: false },
];

const disposeLater: WasmObjective[] = [];
afterAll(() => {
  for (const o of disposeLater) o.dispose();
});

function maxAbs(g: Float64Array): number {
  let m = 0;
  for (const v of g) m = Math.max(m, Math.abs(v));
  return m;
}

/** Loss and gradient of both kernels; the largest relative loss gap and scaled gradient gap. */
function compare(ts: Objective, wa: Objective, x: Float64Array, scope: EvalScope): { loss: number; grad: number; where: string } {
  const g1 = new Float64Array(x.length).fill(NaN);
  const g2 = new Float64Array(x.length).fill(NaN);
  const l1 = ts.lossAndGrad(x, g1, scope);
  const l2 = wa.lossAndGrad(x, g2, scope);
  const gmax = maxAbs(g1);
  let grad = 0;
  let where = '';
  for (let t = 0; t < x.length; t++) {
    const s = Math.abs(g2[t]! - g1[t]!) / (1e-5 * Math.abs(g1[t]!) + 1e-5 * gmax + 1e-300);
    if (!(s <= grad)) {
      grad = s;
      where = `index ${t}: ts ${g1[t]}, wasm ${g2[t]} (max |g| ${gmax})`;
    }
  }
  return { loss: Math.abs(l2 - l1) / Math.abs(l1), grad, where };
}

/** A bank without rotations (colPosition null) and one hardened (every cell one-hot, NRM-hard). */
function banks(seed: number): { name: string; bank: ResponseBank; truth?: Float64Array }[] {
  const rotated = gradientFleet(seed);
  const plain = simulateFleet({ models: 7, items: 10, seed, missing: 0.25, optionWeights: { 2: 1, 4: 1, 5: 1, 10: 1 } });
  return [
    { name: 'rotated, soft + hard, missing', bank: rotated.bank, truth: rotated.truth },
    { name: 'unrotated, soft, missing', bank: plain.bank, truth: plain.truth },
    { name: 'hardened', bank: hardenBank(rotated.bank) },
  ];
}

describe('wasm kernel equals the TypeScript kernel', () => {
  for (const parts of PART_SETS) {
    it(`${partsName(parts)}: every bank kind and scope (loss 1e-6 relative; gradient 1e-5 |g| + 1e-5 max|g|)`, () => {
      expect(banks(11)[0]!.bank.colPosition).not.toBeNull();
      expect(banks(11)[1]!.bank.colPosition).toBeNull();
      let worstLoss = 0;
      let worstGrad = 0;
      for (const seed of [11, 12]) {
        for (const { name, bank, truth } of banks(seed)) {
          const layout = llmNrmLayout(bank, parts);
          const priors = seed === 12 ? { itemSd: 2, llmSd: 1.5, sharpnessSd: 0.7 } : {};
          const ts = llmNrmObjective(bank, layout, priors);
          const wa = wasmLlmNrmObjective(bank, layout, priors);
          const rng = randomSource(100 + seed);
          const points = [randomPoint(layout, rng), randomPoint(layout, rng)];
          if (truth !== undefined && parts.fallback) {
            points.push(Float64Array.from(truth));
            const near = randomPoint(layout, rng);
            placeDenominators(bank, layout, near, [0, 1e-9, -1e-4, 0.1]);
            points.push(near);
          }
          for (const x of points) {
            for (const scope of SCOPES) {
              const r = compare(ts, wa, x, scope);
              const at = `${name}, seed ${seed}, scope ${JSON.stringify(scope)}`;
              if (scope.rowStart === 2 && scope.rowEnd === 2) {
                // An empty row range: only the item prior remains, in both.
                expect(r.loss, at).toBeLessThan(1e-12);
              }
              expect(r.loss, `loss, ${at}`).toBeLessThanOrEqual(1e-6);
              expect(r.grad, `gradient, ${at}: ${r.where}`).toBeLessThanOrEqual(1);
              worstLoss = Math.max(worstLoss, r.loss);
              worstGrad = Math.max(worstGrad, r.grad);
            }
          }
        }
      }
      if (report)
        console.log(
          `${partsName(parts)}: max relative loss gap ${worstLoss.toExponential(2)}, max scaled gradient gap ${worstGrad.toExponential(2)} (1 = tolerance)`,
        );
    });
  }

  it('rows outside the range get exactly zero gradient, rows inside a nonzero one', () => {
    const { bank } = gradientFleet(12);
    const layout = llmNrmLayout(bank, ALL_PARTS);
    const wa = wasmLlmNrmObjective(bank, layout);
    const x = randomPoint(layout, randomSource(8));
    const g = new Float64Array(x.length);
    wa.lossAndGrad(x, g, { rowStart: 1, rowEnd: 4 });
    for (const j of [0, 4, 5]) {
      expect(g[layout.theta + j]).toBe(0);
      expect(g[layout.sbar + j]).toBe(0);
      for (let k = 0; k < layout.kMax; k++) expect(g[layout.rho + j * layout.kMax + k]).toBe(0);
    }
    for (const j of [1, 2, 3]) expect(g[layout.theta + j]).not.toBe(0);
  });

  it('a point with a non-finite parameter throws NON_FINITE, and later passes are unaffected', () => {
    const { bank } = gradientFleet(11);
    const layout = llmNrmLayout(bank, ALL_PARTS);
    const ts = llmNrmObjective(bank, layout);
    const wa = wasmLlmNrmObjective(bank, layout);
    const x = randomPoint(layout, randomSource(3));
    const bad = Float64Array.from(x);
    bad[layout.theta + 1] = NaN;
    expect(() => wa.lossAndGrad(bad, new Float64Array(x.length))).toThrow(expect.objectContaining({ code: 'NON_FINITE' }));
    // Row 1 is outside the next range but in the same lane group: it must not poison it.
    const r = compare(ts, wa, x, { rowStart: 2, rowEnd: 4 });
    expect(r.loss).toBeLessThanOrEqual(1e-6);
    expect(r.grad, r.where).toBeLessThanOrEqual(1);
  });
});

/**
 * Fourth-order central differences of the wasm loss. The loss is computed in f32 per cell, so it
 * is rough at the scale of its rounding (about 1e-8 relative, 2e-6 absolute here); h = 1e-2 keeps
 * that noise near 2e-6 * 18 / (12 h) ~ 3e-4 at worst while the truncation error (h^4 times fifth
 * derivatives of order 1) stays near 1e-8. Tolerance 4e-4 (1 + |g|) (measured: about 5e-5).
 */
function fdCheck(obj: Objective, x: Float64Array, scope: EvalScope = {}, h = 1e-2): { scaled: number; worst: string } {
  const n = x.length;
  const g = new Float64Array(n);
  const tmp = new Float64Array(n);
  obj.lossAndGrad(x, g, scope);
  const xp = Float64Array.from(x);
  const f = (t: number, d: number): number => {
    xp[t] = x[t]! + d;
    const v = obj.lossAndGrad(xp, tmp, scope);
    xp[t] = x[t]!;
    return v;
  };
  let scaled = 0;
  let worst = '';
  for (let t = 0; t < n; t++) {
    if (obj.free[t] === 0) {
      expect(g[t]).toBe(0);
      continue;
    }
    const fd = (-f(t, 2 * h) + 8 * f(t, h) - 8 * f(t, -h) + f(t, -2 * h)) / (12 * h);
    const s = Math.abs(fd - g[t]!) / (4e-4 * (1 + Math.abs(g[t]!)));
    if (s > scaled) {
      scaled = s;
      worst = `index ${t}: analytic ${g[t]}, finite difference ${fd}`;
    }
  }
  return { scaled, worst };
}

describe('wasm gradient vs finite differences of its own loss', () => {
  for (const parts of [ALL_PARTS, { sharpness: false, position: false, fallback: false }, { sharpness: true, position: true, fallback: false }]) {
    it(`${partsName(parts)} (h 1e-2, tolerance 4e-4 (1 + |g|))`, () => {
      const { bank } = gradientFleet(11);
      const layout: LlmNrmLayout = llmNrmLayout(bank, parts);
      const wa = wasmLlmNrmObjective(bank, layout);
      const x = randomPoint(layout, randomSource(17));
      for (const scope of [{}, { rowStart: 2, rowEnd: 5, itemPrior: false }]) {
        const r = fdCheck(wa, x, scope);
        expect(r.scaled, r.worst).toBeLessThanOrEqual(1);
        if (report) console.log(`FD ${partsName(parts)} ${JSON.stringify(scope)}: max scaled ${r.scaled.toFixed(3)}`);
      }
    });
  }
});

describe('threads', () => {
  it('the same loss and gradient, bit for bit, on 1, 2 and 3 threads and a shared pool', () => {
    const fleet = simulateFleet({ models: 37, items: 30, seed: 5, missing: 0.1, rotations: 2 });
    const layout = llmNrmLayout(fleet.bank, ALL_PARTS);
    const x = randomPoint(layout, randomSource(4));
    const pool = wasmThreadPool(2);
    try {
      // One group (4 rows) per block: 10 blocks, so the threads really split the rows.
      const objs = [1, 2, 3].map((threads) => wasmLlmNrmObjective(fleet.bank, layout, {}, { threads, groupsPerBlock: 1 }));
      objs.push(wasmLlmNrmObjective(fleet.bank, layout, {}, { pool, groupsPerBlock: 1 }));
      disposeLater.push(...objs);
      expect(objs.map((o) => o.threads)).toEqual([1, 2, 3, 2]);
      expect(objs[0]!.blocks).toBe(10);
      // The workers must really take blocks (they start and receive the kernel asynchronously).
      const g = new Float64Array(x.length);
      const until = Date.now() + 20_000;
      while (pool.workerBlocks === 0 && Date.now() < until) objs[3]!.lossAndGrad(x, g);
      expect(pool.workerBlocks).toBeGreaterThan(0);
      for (const scope of [{}, { rowStart: 3, rowEnd: 30 }, { thetaPrior: false, itemPrior: false }]) {
        const outs = objs.map((o) => {
          const g = new Float64Array(x.length);
          // Several passes: workers join at different times, the result must not move.
          let loss = 0;
          for (let r = 0; r < 4; r++) loss = o.lossAndGrad(x, g, scope);
          return { loss, g };
        });
        for (const o of outs.slice(1)) {
          expect(o.loss).toBe(outs[0]!.loss);
          expect(Buffer.from(o.g.buffer).equals(Buffer.from(outs[0]!.g.buffer))).toBe(true);
        }
      }
    } finally {
      pool.dispose();
    }
  });

  it('dispose stops the workers; a disposed threaded objective refuses to run', () => {
    const { bank } = gradientFleet(11);
    const layout = llmNrmLayout(bank, ALL_PARTS);
    const o = wasmLlmNrmObjective(bank, layout, {}, { threads: 2 });
    const x = randomPoint(layout, randomSource(1));
    const g = new Float64Array(x.length);
    expect(Number.isFinite(o.lossAndGrad(x, g))).toBe(true);
    o.dispose();
    o.dispose();
    expect(() => o.lossAndGrad(x, g)).toThrow(/disposed/);
  });
});
