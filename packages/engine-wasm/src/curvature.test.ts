// The kernel's block Gauss-Newton curvature (assembly/curvature.ts and curvature4.ts, through the
// objective's `curvature`) against core's TypeScript llmNrmCurvature, for every combination of the
// LLM-NRM parts, rotated and unrotated banks with missing cells, hard data, at random points and
// near the truth; the same bits for 1, 2 and 3 threads; and the engine seam (fit's preconditioner
// uses it).
//
// Tolerance: 'f64' (curvature.ts; the SEs' cross pass always) computes in f64 from the same f32
// data; only the order of the sums over cells differs, so every entry of every factorised block is
// held to 1e-9 of the block's largest entry (measured: about 1e-14). 'f32' (the preconditioner's
// default, curvature4.ts) does the cell work in f32 lanes: held to F32_TOL of the block's largest
// entry (measured below about 4e-5 on these banks), far below what a dropped lane, option or
// flush would leave (O(1) of some block).
import {
  ALL_PARTS,
  fit,
  getFamily,
  llmNrmLayout,
  randomSource,
  simulateFleet,
  thetaStandardErrors,
  type CurvatureAt,
  type CurvatureBuilder,
  type Engine,
  type LlmNrmLayout,
  type LlmNrmParts,
  type ResponseBank,
} from '@llm-nrm/core';
import { hardenBank, freeMask } from '@llm-nrm/core/engine';
import { gradientFleet, randomPoint } from '@llm-nrm/tooling/gradient';
import { afterAll, describe, expect, it } from 'vitest';
import { wasmEngine, wasmLlmNrmObjective, wasmThreadPool, type WasmObjective } from './index.js';

const PART_SETS: LlmNrmParts[] = [];
for (const fallback of [false, true])
  for (const sharpness of [false, true]) for (const position of [false, true]) PART_SETS.push({ sharpness, position, fallback });

const F32_TOL = 2e-4;

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

/** The wasm engine with every curvature request passed through `seen` first (to count them). */
function watchedCurvature(w: ReturnType<typeof wasmEngine>, seen: (opts: Parameters<CurvatureBuilder>[2]) => unknown): Engine {
  return {
    name: 'wasm',
    objective: (b, family, priors) => w.objective(b, family.layout(b), priors),
    curvature: (_b, _f, _p, objective) => {
      const c = w.curvature(objective);
      return c === null ? null : (x, free, opts) => (seen(opts), c(x, free, opts));
    },
  };
}
describe('wasm curvature equals the TypeScript curvature', () => {
  for (const precision of ['f64', 'f32', 'f32-rows'] as const) {
    const tol = precision === 'f64' ? 1e-9 : F32_TOL;
    for (const parts of PART_SETS) {
      const name =
        parts.sharpness || parts.position || parts.fallback
          ? `llm-nrm [${Object.entries(parts)
              .filter(([, v]) => v)
              .map(([k]) => k)
              .join(', ')}]`
          : 'nrm';
      it(`${precision}, ${name}: every block to ${tol} of its largest entry`, () => {
        let worst = 0;
        for (const seed of [21, 22]) {
          for (const { name: bankName, bank, truth } of banks(seed)) {
            const layout = llmNrmLayout(bank, parts);
            const priors = seed === 22 ? { itemSd: 2, llmSd: 1.5, sharpnessSd: 0.7 } : {};
            const ts = getFamily('llm-nrm', layout.parts).curvature(bank, layout, priors);
            const wa = wasmLlmNrmObjective(bank, layout, priors, { groupsPerBlock: 1, curvaturePrecision: precision });
            disposeLater.push(wa);
            const free = freeMask(layout);
            const rng = randomSource(200 + seed);
            const points = [randomPoint(layout, rng), randomPoint(layout, rng)];
            if (truth !== undefined && parts.fallback) points.push(Float64Array.from(truth));
            for (const x of points) {
              for (const opts of [{}, { globalStepCap: 0.5 }]) {
                const g = gap(ts(x, free, opts), wa.curvature(x, free, opts));
                expect(g, `${bankName}, seed ${seed}`).toBeLessThanOrEqual(tol);
                worst = Math.max(worst, g);
              }
            }
          }
        }
        if (process.env.WASM_REPORT !== undefined) console.log(`${precision} ${name}: worst scaled curvature gap ${worst.toExponential(2)}`);
      });
    }
  }

  it('f32 lanes: every row count 1..9 (a last group of 1 to 4 lanes) and K from 2 to 20 in one bank, several flushes per row and item', () => {
    // 90 columns a row (FLUSH = 32 cells: two flushes and a tail); items of 2, 3, 7, 13 and 20
    // options (tails of every length in the option loops); rows 1..9 leave 1, 2, 3 or 4 lanes in
    // the last group. A dropped lane, option tail or flush leaves O(1) of some block.
    for (let J = 1; J <= 9; J++) {
      const { bank } = simulateFleet({ models: J, items: 90, seed: 50 + J, missing: 0.1, optionWeights: { 2: 1, 3: 1, 7: 1, 13: 1, 20: 1 } });
      const layout = llmNrmLayout(bank, ALL_PARTS);
      const free = freeMask(layout);
      const x = randomPoint(layout, randomSource(60 + J));
      const ts = getFamily('llm-nrm', layout.parts).curvature(bank, layout, {})(x, free);
      const wa = wasmLlmNrmObjective(bank, layout, {}, { groupsPerBlock: 1 });
      disposeLater.push(wa);
      expect(gap(ts, wa.curvature(x, free)), `${J} rows`).toBeLessThanOrEqual(F32_TOL);
    }
  });

  it('a curvature refresh leaves the loss pass unchanged (the f32 lanes rewrite its parameters)', () => {
    const { bank } = simulateFleet({ models: 11, items: 30, seed: 12, missing: 0.1 });
    const layout = llmNrmLayout(bank, ALL_PARTS);
    const free = freeMask(layout);
    const rng = randomSource(13);
    const x1 = randomPoint(layout, rng);
    const x2 = randomPoint(layout, rng);
    const wa = wasmLlmNrmObjective(bank, layout, {}, { groupsPerBlock: 1 });
    disposeLater.push(wa);
    for (const scope of [{}, { rowStart: 3, rowEnd: 7 }]) {
      const g1 = new Float64Array(layout.size);
      const g2 = new Float64Array(layout.size);
      const l1 = wa.lossAndGrad(x1, g1, scope);
      wa.curvature(x2, free);
      const l2 = wa.lossAndGrad(x1, g2, scope);
      expect(l2).toBe(l1);
      expect(Array.from(g2)).toEqual(Array.from(g1));
    }
  });

  it("curvaturePrecision must be 'f32' or 'f64'", () => {
    const { bank } = gradientFleet(23);
    const layout = llmNrmLayout(bank, ALL_PARTS);
    expect(() => wasmLlmNrmObjective(bank, layout, {}, { curvaturePrecision: 'f16' as 'f32' })).toThrow(/curvaturePrecision/);
  });
});

/** Inverse of a small symmetric positive definite matrix (Gauss-Jordan; test helper). */
function inverseSpd(D: Float64Array): Float64Array {
  const n = Math.round(Math.sqrt(D.length));
  const a = Float64Array.from(D);
  const out = new Float64Array(n * n);
  for (let r = 0; r < n; r++) out[r * n + r] = 1;
  for (let c = 0; c < n; c++) {
    const piv = a[c * n + c]!;
    for (let t = 0; t < n; t++) {
      a[c * n + t]! /= piv;
      out[c * n + t]! /= piv;
    }
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = a[r * n + c]!;
      for (let t = 0; t < n; t++) {
        a[r * n + t]! -= f * a[c * n + t]!;
        out[r * n + t]! -= f * out[c * n + t]!;
      }
    }
  }
  return out;
}

/** Largest gap of each cross part (LLM blocks, LLM-globals, item-globals, item GN, globals), each entry scaled by its block's largest. */
function crossGap(a: CurvatureAt, b: CurvatureAt): number {
  let worst = 0;
  const scaled = (x: Float64Array, y: Float64Array): number => {
    expect(y.length).toBe(x.length);
    let m = 0;
    for (const v of x) m = Math.max(m, Math.abs(v));
    let g = 0;
    for (let t = 0; t < x.length; t++) g = Math.max(g, Math.abs(x[t]! - y[t]!) / (m + 1e-300));
    return g;
  };
  for (const key of ['llm', 'llmGlobals', 'itemGlobals', 'itemGN'] as const) {
    const xs = a[key];
    const ys = b[key];
    expect(ys === undefined, key).toBe(xs === undefined);
    if (xs === undefined) continue;
    expect(ys!.length, key).toBe(xs.length);
    for (let t = 0; t < xs.length; t++) worst = Math.max(worst, scaled(xs[t]!, ys![t]!));
  }
  expect(b.globals === undefined).toBe(a.globals === undefined);
  if (a.globals !== undefined) worst = Math.max(worst, scaled(a.globals, b.globals!));
  expect(b.globalIndices).toEqual(a.globalIndices);
  return worst;
}

describe("the SEs' first pass (cross) on the kernel", () => {
  for (const parts of PART_SETS) {
    const name = `[${Object.entries(parts)
      .filter(([, v]) => v)
      .map(([k]) => k)
      .join(', ')}]`;
    it(`${name}: cross blocks, globals and item GN blocks equal the TypeScript ones to 1e-9, with and without blocksUnused`, () => {
      for (const seed of [21, 22]) {
        for (const { name: bankName, bank, truth } of banks(seed)) {
          const layout = llmNrmLayout(bank, parts);
          const priors = seed === 22 ? { itemSd: 2, llmSd: 1.5, sharpnessSd: 0.7, gateSd: 1.3 } : {};
          const ts = getFamily('llm-nrm', layout.parts).curvature(bank, layout, priors);
          const wa = wasmLlmNrmObjective(bank, layout, priors, { groupsPerBlock: 1 });
          disposeLater.push(wa);
          const free = freeMask(layout);
          const rng = randomSource(300 + seed);
          const points = [randomPoint(layout, rng), randomPoint(layout, rng)];
          if (truth !== undefined && parts.fallback) points.push(Float64Array.from(truth));
          for (const x of points) {
            const a = ts(x, free, { cross: true });
            const b = wa.curvature(x, free, { cross: true });
            // The kernel's output really holds the cross parts (not skipped where the gate is on).
            expect(b.itemGN!.length).toBe(layout.nItems);
            if (parts.fallback) expect(b.llmGlobals!.length).toBe(layout.nModels);
            expect(crossGap(a, b), `${bankName}, seed ${seed}`).toBeLessThanOrEqual(1e-9);
            expect(gap(a, b), `${bankName}, seed ${seed}`).toBeLessThanOrEqual(1e-9);
            const c = wa.curvature(x, free, { cross: true, blocksUnused: true });
            expect(c.blocks.idx.length).toBe(0);
            expect(crossGap(ts(x, free, { cross: true, blocksUnused: true }), c), `${bankName}, seed ${seed}`).toBeLessThanOrEqual(1e-9);
          }
        }
      }
    });
  }

  it("the second pass (itemInverse) on a rotated bank (an item in several columns) comes from core's TypeScript curvature, unchanged", () => {
    const { bank } = gradientFleet(23);
    const layout = llmNrmLayout(bank, ALL_PARTS);
    const wa = wasmLlmNrmObjective(bank, layout);
    disposeLater.push(wa);
    const x = randomPoint(layout, randomSource(5));
    const free = freeMask(layout);
    const tsAt = getFamily('llm-nrm', layout.parts).curvature(bank, layout, {});
    const first = tsAt(x, free, { cross: true });
    const inv = first.itemGN!.map((D) => inverseSpd(D));
    const ts = tsAt(x, free, { itemInverse: inv, correctionOnly: true });
    const got = wa.curvature(x, free, { itemInverse: inv, correctionOnly: true });
    expect(got.llmItem!.length).toBe(layout.nModels);
    for (let j = 0; j < layout.nModels; j++) expect(Array.from(got.llmItem![j]!)).toEqual(Array.from(ts.llmItem![j]!));
  });

  it('the second pass on a bank of one cell per (LLM, item) pair runs on the kernel: llmItem and llmItemGlobals to 1e-9, the same bits for 1, 2 and 3 threads', () => {
    for (const parts of PART_SETS) {
      const { bank } = simulateFleet({ models: 13, items: 40, seed: 7, missing: 0.2, optionWeights: { 2: 1, 3: 1, 5: 1, 10: 1 } });
      const layout = llmNrmLayout(bank, parts);
      const free = freeMask(layout).fill(1);
      const x = randomPoint(layout, randomSource(17));
      const tsAt = getFamily('llm-nrm', layout.parts).curvature(bank, layout, {});
      const first = tsAt(x, free, { cross: true });
      const inv = first.itemGN!.map((D) => inverseSpd(D));
      const itemZ = first.itemGlobals?.map((G, i) => {
        const D = inv[i]!;
        const n = Math.round(Math.sqrt(D.length));
        const Z = new Float64Array(2 * n);
        for (let a = 0; a < n; a++) for (let g = 0; g < 2; g++) for (let b = 0; b < n; b++) Z[2 * a + g]! += D[a * n + b]! * G[2 * b + g]!;
        return Z;
      });
      for (const z of itemZ === undefined ? [undefined] : [undefined, itemZ]) {
        const opts = { itemInverse: inv, correctionOnly: true, ...(z ? { itemZ: z } : {}) };
        const want = tsAt(x, free, opts);
        const got: CurvatureAt[] = [];
        for (const threads of [1, 2, 3]) {
          const pool = threads > 1 ? wasmThreadPool(threads) : undefined;
          if (pool) disposeLater.push(pool);
          const o = wasmLlmNrmObjective(bank, layout, {}, { groupsPerBlock: 1, ...(pool ? { pool } : {}) });
          disposeLater.push(o);
          const until = Date.now() + 20_000;
          while (pool !== undefined && pool.workerBlocks === 0 && Date.now() < until) o.curvature(x, free, opts);
          if (pool !== undefined) expect(pool.workerBlocks).toBeGreaterThan(0);
          got.push(o.curvature(x, free, opts));
        }
        const name = `${JSON.stringify(parts)}, itemZ ${z !== undefined}`;
        expect(got[0]!.llmItem!.length, name).toBe(layout.nModels);
        expect(got[0]!.llmItemGlobals === undefined, name).toBe(z === undefined);
        let worst = 0;
        for (let j = 0; j < layout.nModels; j++) {
          const a = want.llmItem![j]!;
          const b = got[0]!.llmItem![j]!;
          let m = 0;
          for (const v of a) m = Math.max(m, Math.abs(v));
          expect(m, name).toBeGreaterThan(0);
          for (let t = 0; t < a.length; t++) worst = Math.max(worst, Math.abs(a[t]! - b[t]!) / m);
          if (z !== undefined) {
            const az = want.llmItemGlobals![j]!;
            const bz = got[0]!.llmItemGlobals![j]!;
            let mz = 0;
            for (const v of az) mz = Math.max(mz, Math.abs(v));
            for (let t = 0; t < az.length; t++) worst = Math.max(worst, Math.abs(az[t]! - bz[t]!) / (mz + 1e-300));
          }
          for (const r of got.slice(1)) {
            expect(Array.from(r.llmItem![j]!)).toEqual(Array.from(b));
            if (z !== undefined) expect(Array.from(r.llmItemGlobals![j]!)).toEqual(Array.from(got[0]!.llmItemGlobals![j]!));
          }
        }
        expect(worst, name).toBeLessThanOrEqual(1e-9);
      }
    }
  });

  it("with blocksUnused the first pass's LLM blocks come from the corrections' pass (or, read first, a rows pass of their own): the same bits as without, and the corrections unchanged", () => {
    const same = (a: readonly Float64Array[] | undefined, b: readonly Float64Array[] | undefined, what: string): void => {
      expect(b?.length, what).toBe(a?.length);
      for (let t = 0; t < (a?.length ?? 0); t++) expect(Array.from(b![t]!), `${what} ${t}`).toEqual(Array.from(a![t]!));
    };
    for (const parts of PART_SETS) {
      const { bank } = simulateFleet({ models: 11, items: 30, seed: 12, missing: 0.2, optionWeights: { 2: 1, 4: 1, 7: 1 } });
      const layout = llmNrmLayout(bank, parts);
      const free = freeMask(layout).fill(1);
      const x = randomPoint(layout, randomSource(19));
      const name = JSON.stringify(parts);
      for (const threads of [1, 2]) {
        const pool = threads > 1 ? wasmThreadPool(threads) : undefined;
        if (pool) disposeLater.push(pool);
        const o = wasmLlmNrmObjective(bank, layout, {}, { groupsPerBlock: 1, ...(pool ? { pool } : {}) });
        const ref = wasmLlmNrmObjective(bank, layout, {}, { groupsPerBlock: 1 });
        disposeLater.push(o, ref);
        // Without blocksUnused (another objective, so that its sums are not left in o's memory):
        // the rows pass runs in the first call (no deferral).
        const full = ref.curvature(x, free, { cross: true });
        const inv = full.itemGN!.map((D) => inverseSpd(D));
        const opts = { itemInverse: inv, correctionOnly: true };
        const corr = ref.curvature(x, free, opts);
        // Deferred, filled by the corrections' pass; o's rows sums hold another point's before it.
        o.curvature(randomPoint(layout, randomSource(22)), free, { cross: true });
        const fused = o.curvature(x, free, { cross: true, blocksUnused: true });
        same(full.itemGN, fused.itemGN, `${name}: item GN`);
        const fusedCorr = o.curvature(x, free, opts);
        same(corr.llmItem, fusedCorr.llmItem, `${name}: corrections beside the rows sums`);
        // A refresh in between overwrites the kernel's sums: the blocks were copied out.
        o.curvature(randomPoint(layout, randomSource(20)), free);
        same(full.llm, fused.llm, `${name}, ${threads} threads: LLM blocks from the corrections' pass`);
        same(full.llmGlobals, fused.llmGlobals, `${name}: LLM-globals blocks`);
        expect(Array.from(fused.globals ?? []), name).toEqual(Array.from(full.globals ?? []));
        // Read before any corrections' pass (and at another x in between): a rows pass of its own.
        const early = o.curvature(x, free, { cross: true, blocksUnused: true });
        o.curvature(randomPoint(layout, randomSource(21)), free);
        same(full.llm, early.llm, `${name}: LLM blocks read first`);
        same(full.llmGlobals, early.llmGlobals, `${name}: LLM-globals blocks read first`);
        expect(Array.from(early.globals ?? []), name).toEqual(Array.from(full.globals ?? []));
        // The corrections' pass at another x leaves a deferral alone (its own rows pass then).
        const other = o.curvature(x, free, { cross: true, blocksUnused: true });
        const x2 = Float64Array.from(x);
        x2[layout.theta]! += 0.25;
        o.curvature(x2, free, opts);
        same(full.llm, other.llm, `${name}: LLM blocks after corrections at another x`);
      }
    }
  });

  it('every cell counts in the cross pass even where the preconditioner samples rows (curvatureRowCells), and the sampling stays on for the next refresh', () => {
    const { bank } = simulateFleet({ models: 12, items: 300, seed: 8, missing: 0.1 });
    const layout = llmNrmLayout(bank, ALL_PARTS);
    const free = freeMask(layout);
    const x = randomPoint(layout, randomSource(31));
    const sub = wasmLlmNrmObjective(bank, layout, {}, { groupsPerBlock: 1, curvatureRowCells: 100 });
    disposeLater.push(sub);
    const before = sub.curvature(x, free);
    const ts = getFamily('llm-nrm', layout.parts).curvature(bank, layout, {})(x, free, { cross: true });
    expect(crossGap(ts, sub.curvature(x, free, { cross: true }))).toBeLessThanOrEqual(1e-9);
    const after = sub.curvature(x, free);
    for (let j = 0; j < layout.nModels; j++) expect(Array.from(after.llm[j]!)).toEqual(Array.from(before.llm[j]!));
    // ... and the sampled LLM blocks are not the full ones (the test would pass vacuously otherwise).
    expect(gap(ts, before)).toBeGreaterThan(1e-6);
  });

  it('the same bits for 1, 2 and 3 threads', () => {
    const { bank, truth } = simulateFleet({ models: 40, items: 60, seed: 4, missing: 0.1, rotations: 2 });
    const layout = llmNrmLayout(bank, ALL_PARTS);
    const free = freeMask(layout);
    const x = Float64Array.from(truth);
    const results: CurvatureAt[] = [];
    for (const threads of [1, 2, 3]) {
      const pool = threads > 1 ? wasmThreadPool(threads) : undefined;
      if (pool) disposeLater.push(pool);
      const o = wasmLlmNrmObjective(bank, layout, {}, { groupsPerBlock: 1, ...(pool ? { pool } : {}) });
      disposeLater.push(o);
      const until = Date.now() + 20_000;
      while (pool !== undefined && pool.workerBlocks === 0 && Date.now() < until) o.curvature(x, free, { cross: true });
      if (pool !== undefined) expect(pool.workerBlocks).toBeGreaterThan(0);
      results.push(o.curvature(x, free, { cross: true, blocksUnused: true }));
    }
    for (const r of results.slice(1)) {
      for (const key of ['llm', 'llmGlobals', 'itemGlobals', 'itemGN'] as const)
        for (let t = 0; t < results[0]![key]!.length; t++) expect(Array.from(r[key]![t]!)).toEqual(Array.from(results[0]![key]![t]!));
      expect(Array.from(r.globals!)).toEqual(Array.from(results[0]!.globals!));
    }
  });
});

describe('standard errors on the wasm curvature', () => {
  it("thetaStandardErrors with the kernel's curvature equals core's TypeScript one to 1e-9 (fisher and quasi, items profiled or held)", () => {
    for (const [seed, rotations] of [
      [41, 1],
      [42, 2],
    ] as const) {
      const { bank } = simulateFleet({ models: 30, items: 50, seed, missing: 0.15, rotations });
      const r = fit(bank, { standardErrors: false, maxIterations: 60 });
      const layout = r.layout as LlmNrmLayout;
      const free = freeMask(layout);
      const wa = wasmLlmNrmObjective(r.bank, layout, r.priors);
      disposeLater.push(wa);
      let crossCalls = 0;
      const curvature: CurvatureBuilder = (x, f, opts) => {
        if (opts?.cross === true) crossCalls++;
        return wa.curvature(x, f, opts);
      };
      for (const errorModel of ['fisher', 'quasi'] as const) {
        for (const profileItems of [true, false]) {
          const ts = thetaStandardErrors(r.family, r.bank, layout, r.x, free, r.priors, 0, { profileItems, errorModel });
          const got = thetaStandardErrors(r.family, r.bank, layout, r.x, free, r.priors, 0, { profileItems, errorModel, curvature });
          for (let j = 0; j < layout.nModels; j++) {
            expect(Number.isFinite(ts.se[j]!)).toBe(true);
            expect(Math.abs(got.se[j]! - ts.se[j]!) / ts.se[j]!, `seed ${seed}, ${errorModel}, LLM ${j}`).toBeLessThanOrEqual(1e-9);
          }
        }
      }
      expect(crossCalls).toBe(4);
    }
  });

  it("fit on the wasm engine computes its SEs on the kernel's curvature, equal to the TypeScript curvature's at its point", () => {
    const { bank } = simulateFleet({ models: 24, items: 40, seed: 6 });
    const w = wasmEngine();
    disposeLater.push(w);
    let crossCalls = 0;
    const engine = watchedCurvature(w, (opts) => opts?.cross === true && crossCalls++);
    const r = fit(bank, { engine, seMode: 'quasi' });
    expect(crossCalls).toBe(1);
    const ts = thetaStandardErrors(r.family, r.bank, r.layout, r.x, freeMask(r.layout), r.priors, 0, { profileItems: true, errorModel: 'quasi' });
    for (let j = 0; j < r.layout.nModels; j++) expect(Math.abs(r.se[j]! - ts.se[j]!) / ts.se[j]!).toBeLessThanOrEqual(1e-9);
  });
});

describe('wasm curvature: the same bits for any thread count', () => {
  for (const precision of ['f32', 'f64'] as const)
    it(`${precision}: 1, 2 and 3 threads give identical blocks (40 x 60 bank, 10 row blocks, 16 item blocks)`, () => {
      const { bank, truth } = simulateFleet({ models: 40, items: 60, seed: 4, missing: 0.1, rotations: 2 });
      const layout = llmNrmLayout(bank, ALL_PARTS);
      const free = freeMask(layout);
      const xs = [Float64Array.from(truth), randomPoint(layout, randomSource(9))];
      const results: CurvatureAt[][] = [];
      for (const threads of [1, 2, 3]) {
        const pool = threads > 1 ? wasmThreadPool(threads) : undefined;
        if (pool) disposeLater.push(pool);
        const o: WasmObjective = wasmLlmNrmObjective(bank, layout, {}, { groupsPerBlock: 1, curvaturePrecision: precision, ...(pool ? { pool } : {}) });
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
    const withCurv = watchedCurvature(w, () => calls++);
    const without: Engine = { name: 'wasm', objective: withCurv.objective };
    const a = fit(bank, { engine: withCurv, standardErrors: false });
    expect(calls).toBeGreaterThan(0);
    const b = fit(bank, { engine: without, standardErrors: false });
    expect(a.converged).toBe(true);
    expect(Math.abs(a.loss - b.loss) / Math.abs(b.loss)).toBeLessThan(1e-6);
  });
});

describe('wasm curvature: LLM blocks from a subset of each row (curvatureRowCells)', () => {
  for (const precision of ['f64', 'f32'] as const)
    it(`${precision}, every 3rd column: item blocks unchanged to the bit, LLM blocks near the full sums, the same bits for 1 and 2 threads`, () => {
      // 300 columns, 100 cells a row: stride 3. The default (2,000) leaves this bank exact.
      const { bank } = simulateFleet({ models: 12, items: 300, seed: 8, missing: 0.1 });
      const layout = llmNrmLayout(bank, ALL_PARTS);
      const free = freeMask(layout);
      const x = randomPoint(layout, randomSource(31));
      const curvaturePrecision = precision;
      const full = wasmLlmNrmObjective(bank, layout, {}, { groupsPerBlock: 1, curvaturePrecision });
      const sub = wasmLlmNrmObjective(bank, layout, {}, { groupsPerBlock: 1, curvatureRowCells: 100, curvaturePrecision });
      const pool = wasmThreadPool(2);
      const sub2 = wasmLlmNrmObjective(bank, layout, {}, { groupsPerBlock: 1, curvatureRowCells: 100, curvaturePrecision, pool });
      disposeLater.push(full, sub, sub2, pool);
      const ts = getFamily('llm-nrm', layout.parts).curvature(bank, layout, {})(x, free);
      const a = full.curvature(x, free);
      expect(gap(ts, a)).toBeLessThanOrEqual(precision === 'f64' ? 1e-9 : F32_TOL);
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
