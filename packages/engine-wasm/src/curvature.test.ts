// The kernel's block Gauss-Newton curvature (assembly/curvature.ts, through the objective's
// `curvature`) against core's TypeScript llmNrmCurvature, for every combination of the LLM-NRM
// parts, rotated and unrotated banks with missing cells, hard data, at random points and near the
// truth; the same bits for 1, 2 and 3 threads; and the engine seam (fit's preconditioner uses it).
//
// Tolerance: both compute in f64 from the same f32 data; only the order of the sums over cells
// differs (the kernel sums an item's cells over its columns, then rows), so every entry of every
// factorised block is held to 1e-9 of the block's largest entry (measured: about 1e-14).
import {
  ALL_PARTS,
  fit,
  freeMask,
  getFamily,
  hardenBank,
  llmNrmLayout,
  randomSource,
  simulateFleet,
  type CurvatureAt,
  type Engine,
  type LlmNrmParts,
  type ResponseBank,
} from '@llm-nrm/core';
import { gradientFleet, randomPoint } from '@llm-nrm/tooling/gradient';
import { afterAll, describe, expect, it } from 'vitest';
import { wasmEngine, wasmLlmNrmObjective, wasmThreadPool, type WasmObjective } from './index.js';

const PART_SETS: LlmNrmParts[] = [];
for (const fallback of [false, true])
  for (const sharpness of [false, true]) for (const position of [false, true]) PART_SETS.push({ sharpness, position, fallback });

const disposeLater: { dispose(): void }[] = [];
afterAll(() => {
  for (const o of disposeLater) o.dispose();
});

/** Largest gap between the two curvatures' factorised blocks and LLM blocks, each scaled by its block's largest entry. */
function gap(a: CurvatureAt, b: CurvatureAt): number {
  expect(b.blocks.idx.length).toBe(a.blocks.idx.length);
  let worst = 0;
  const scaled = (x: Float64Array, y: Float64Array): number => {
    expect(y.length).toBe(x.length);
    let m = 0;
    for (const v of x) m = Math.max(m, Math.abs(v));
    let g = 0;
    for (let t = 0; t < x.length; t++) g = Math.max(g, Math.abs(x[t]! - y[t]!) / (m + 1e-300));
    return g;
  };
  for (let k = 0; k < a.blocks.idx.length; k++) {
    expect(Array.from(b.blocks.idx[k]!)).toEqual(Array.from(a.blocks.idx[k]!));
    expect(b.blocks.cap[k]).toBe(a.blocks.cap[k]);
    worst = Math.max(worst, scaled(a.blocks.chol[k]!, b.blocks.chol[k]!));
  }
  expect(b.llm.length).toBe(a.llm.length);
  for (let j = 0; j < a.llm.length; j++) worst = Math.max(worst, scaled(a.llm[j]!, b.llm[j]!));
  return worst;
}

function banks(seed: number): { name: string; bank: ResponseBank; truth?: Float64Array }[] {
  const rotated = gradientFleet(seed);
  const plain = simulateFleet({ models: 9, items: 14, seed, missing: 0.25, optionWeights: { 2: 1, 4: 1, 5: 1, 10: 1 } });
  return [
    { name: 'rotated, soft + hard, missing', bank: rotated.bank, truth: rotated.truth },
    { name: 'unrotated, soft, missing', bank: plain.bank, truth: plain.truth },
    { name: 'hardened', bank: hardenBank(rotated.bank) },
  ];
}

describe('wasm curvature equals the TypeScript curvature', () => {
  for (const parts of PART_SETS) {
    const name =
      parts.sharpness || parts.position || parts.fallback
        ? `llm-nrm [${Object.entries(parts)
            .filter(([, v]) => v)
            .map(([k]) => k)
            .join(', ')}]`
        : 'nrm';
    it(`${name}: every block to 1e-9 of its largest entry`, () => {
      let worst = 0;
      for (const seed of [21, 22]) {
        for (const { name: bankName, bank, truth } of banks(seed)) {
          const layout = llmNrmLayout(bank, parts);
          const priors = seed === 22 ? { itemSd: 2, llmSd: 1.5, sharpnessSd: 0.7 } : {};
          const ts = getFamily('llm-nrm', layout.parts).curvature(bank, layout, priors);
          const wa = wasmLlmNrmObjective(bank, layout, priors, { groupsPerBlock: 1 });
          disposeLater.push(wa);
          const free = freeMask(layout);
          const rng = randomSource(200 + seed);
          const points = [randomPoint(layout, rng), randomPoint(layout, rng)];
          if (truth !== undefined && parts.fallback) points.push(Float64Array.from(truth));
          for (const x of points) {
            for (const opts of [{}, { globalStepCap: 0.5 }]) {
              const g = gap(ts(x, free, opts), wa.curvature(x, free, opts));
              expect(g, `${bankName}, seed ${seed}`).toBeLessThanOrEqual(1e-9);
              worst = Math.max(worst, g);
            }
          }
        }
      }
      if (process.env.WASM_REPORT !== undefined) console.log(`${name}: worst scaled curvature gap ${worst.toExponential(2)}`);
    });
  }

  it("the SEs' extras (cross, itemInverse) come from the TypeScript curvature, unchanged", () => {
    const { bank } = gradientFleet(23);
    const layout = llmNrmLayout(bank, ALL_PARTS);
    const wa = wasmLlmNrmObjective(bank, layout);
    disposeLater.push(wa);
    const x = randomPoint(layout, randomSource(5));
    const free = freeMask(layout);
    const ts = getFamily('llm-nrm', layout.parts).curvature(bank, layout, {})(x, free, { cross: true });
    const got = wa.curvature(x, free, { cross: true });
    expect(got.globals).toBeDefined();
    expect(Array.from(got.globals!)).toEqual(Array.from(ts.globals!));
    expect(gap(ts, got)).toBe(0);
  });
});

describe('wasm curvature: the same bits for any thread count', () => {
  it('1, 2 and 3 threads give identical blocks (40 x 60 bank, 10 row blocks, 16 item blocks)', () => {
    const { bank, truth } = simulateFleet({ models: 40, items: 60, seed: 4, missing: 0.1, rotations: 2 });
    const layout = llmNrmLayout(bank, ALL_PARTS);
    const free = freeMask(layout);
    const xs = [Float64Array.from(truth), randomPoint(layout, randomSource(9))];
    const results: CurvatureAt[][] = [];
    for (const threads of [1, 2, 3]) {
      const pool = threads > 1 ? wasmThreadPool(threads) : undefined;
      if (pool) disposeLater.push(pool);
      const o: WasmObjective = wasmLlmNrmObjective(bank, layout, {}, { groupsPerBlock: 1, ...(pool ? { pool } : {}) });
      disposeLater.push(o);
      expect(o.threads).toBe(threads);
      // The workers must really take blocks (they start and receive the kernel asynchronously).
      const until = Date.now() + 20_000;
      while (pool !== undefined && pool.workerBlocks === 0 && Date.now() < until) o.curvature(xs[1]!, free);
      if (pool !== undefined) expect(pool.workerBlocks).toBeGreaterThan(0);
      const r: CurvatureAt[] = [];
      for (let rep = 0; rep < 2; rep++) for (const x of xs) r.push(o.curvature(x, free));
      results.push(r);
    }
    for (const r of results.slice(1)) {
      for (let t = 0; t < r.length; t++) {
        const a = results[0]![t]!;
        const b = r[t]!;
        for (let k = 0; k < a.blocks.chol.length; k++) expect(Array.from(b.blocks.chol[k]!)).toEqual(Array.from(a.blocks.chol[k]!));
        for (let j = 0; j < a.llm.length; j++) expect(Array.from(b.llm[j]!)).toEqual(Array.from(a.llm[j]!));
      }
    }
  });
});

describe('the engine seam: fit refreshes its preconditioner on the wasm curvature', () => {
  it('fit with an Engine that has `curvature` calls it, and reaches the loss of the TypeScript-curvature fit', () => {
    const { bank } = simulateFleet({ models: 24, items: 40, seed: 6 });
    const w = wasmEngine();
    disposeLater.push(w);
    let calls = 0;
    const withCurv: Engine = {
      name: 'wasm',
      objective: (b, family, priors) => w.objective(b, family.layout(b), priors),
      curvature: (_b, _f, _p, objective) => {
        const c = w.curvature(objective);
        return c === null ? null : (x, free, opts) => (calls++, c(x, free, opts));
      },
    };
    const without: Engine = { name: 'wasm', objective: withCurv.objective };
    const a = fit(bank, { engine: withCurv, standardErrors: false });
    expect(calls).toBeGreaterThan(0);
    const b = fit(bank, { engine: without, standardErrors: false });
    expect(a.converged).toBe(true);
    expect(Math.abs(a.loss - b.loss) / Math.abs(b.loss)).toBeLessThan(1e-6);
  });
});

describe('wasm curvature: LLM blocks from a subset of each row (curvatureRowCells)', () => {
  it('every 3rd column: item blocks unchanged to the bit, LLM blocks near the full sums, the same bits for 1 and 2 threads', () => {
    // 300 columns, 100 cells a row: stride 3. The default (2,000) leaves this bank exact.
    const { bank } = simulateFleet({ models: 12, items: 300, seed: 8, missing: 0.1 });
    const layout = llmNrmLayout(bank, ALL_PARTS);
    const free = freeMask(layout);
    const x = randomPoint(layout, randomSource(31));
    const full = wasmLlmNrmObjective(bank, layout, {}, { groupsPerBlock: 1 });
    const sub = wasmLlmNrmObjective(bank, layout, {}, { groupsPerBlock: 1, curvatureRowCells: 100 });
    const pool = wasmThreadPool(2);
    const sub2 = wasmLlmNrmObjective(bank, layout, {}, { groupsPerBlock: 1, curvatureRowCells: 100, pool });
    disposeLater.push(full, sub, sub2, pool);
    const ts = getFamily('llm-nrm', layout.parts).curvature(bank, layout, {})(x, free);
    const a = full.curvature(x, free);
    expect(gap(ts, a)).toBeLessThanOrEqual(1e-9);
    const b = sub.curvature(x, free);
    const J = layout.nModels;
    const I = layout.nItems;
    for (let k = J; k < J + I; k++) expect(Array.from(b.blocks.chol[k]!)).toEqual(Array.from(a.blocks.chol[k]!));
    // A third of the cells, scaled by 3: each LLM block within sampling error of the full sum
    // (relative Frobenius gap; 100 cells of 4 to 10 options each).
    let worst = 0;
    for (let j = 0; j < J; j++) {
      let d = 0;
      let n = 0;
      for (let t = 0; t < a.llm[j]!.length; t++) {
        d += (a.llm[j]![t]! - b.llm[j]![t]!) ** 2;
        n += a.llm[j]![t]! ** 2;
      }
      worst = Math.max(worst, Math.sqrt(d / n));
      expect(Math.sqrt(d / n)).toBeGreaterThan(0);
    }
    expect(worst).toBeLessThan(0.25);
    const c = sub2.curvature(x, free);
    for (let k = 0; k < b.blocks.chol.length; k++) expect(Array.from(c.blocks.chol[k]!)).toEqual(Array.from(b.blocks.chol[k]!));
  });
});
