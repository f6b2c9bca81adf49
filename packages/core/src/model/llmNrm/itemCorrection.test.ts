// The O(K^2) per-cell item correction (llmNrmItemCorrections, taken when every (LLM, item) pair has
// one cell) against the O(K^3) accumulated one (itemCorrection): the same bank with every column
// split into two half-mass copies has the same GN matrix (it is linear in the cell mass Q) but two
// cells per pair, which sends llmNrmCurvature down the accumulated path.
import { describe, expect, it } from 'vitest';
import { randomPoint } from '@llm-nrm/tooling/gradient';
import type { ResponseBank } from '../../data/bank.js';
import { getFamily } from '../registry.js';
import { inverseSpd } from '../../fit/standardErrors.js';
import { randomSource } from '../../simulate/random.js';
import { simulateFleet } from '../../simulate/simulate.js';
import type { LlmNrmParts } from '../types.js';
import { llmNrmCorrectionInputs } from './curvature.js';
import type { LlmNrmLayout } from '../layout.js';

/** Every column twice, each copy with half the observed mass (content order, same positions). */
function splitColumns(bank: ResponseBank): ResponseBank {
  const J = bank.models.length;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const colItem = new Int32Array(2 * nC);
  const colOffsets = new Int32Array(2 * nC + 1);
  for (let c = 0; c < nC; c++) {
    const K = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
    for (let h = 0; h < 2; h++) {
      colItem[2 * c + h] = bank.colItem[c]!;
      colOffsets[2 * c + h + 1] = colOffsets[2 * c + h]! + K;
    }
  }
  const q = new Float32Array(J * 2 * width);
  const observed = new Uint8Array(J * 2 * nC);
  const hard = new Uint8Array(J * 2 * nC);
  const colPosition = bank.colPosition === null ? null : new Uint8Array(2 * width);
  for (let c = 0; c < nC; c++) {
    const co = bank.colOffsets[c]!;
    const K = bank.colOffsets[c + 1]! - co;
    for (let h = 0; h < 2; h++) {
      const o = colOffsets[2 * c + h]!;
      for (let k = 0; k < K; k++) if (colPosition !== null) colPosition[o + k] = bank.colPosition![co + k]!;
      for (let j = 0; j < J; j++) {
        observed[j * 2 * nC + 2 * c + h] = bank.observed[j * nC + c]!;
        hard[j * 2 * nC + 2 * c + h] = bank.hard[j * nC + c]!;
        for (let k = 0; k < K; k++) q[j * 2 * width + o + k] = bank.q[j * width + co + k]! / 2;
      }
    }
  }
  return { ...bank, colItem, colOffsets, colPosition, q, observed, hard, leakage: null };
}

const CASES: { name: string; parts: Partial<LlmNrmParts> }[] = [
  { name: 'llm-nrm', parts: {} },
  { name: 'without position', parts: { position: false } },
  { name: 'without fallback', parts: { fallback: false } },
  { name: 'without sharpness', parts: { sharpness: false } },
];

describe('per-cell item correction', () => {
  for (const c of CASES) {
    it(`${c.name}: llmItem and llmItemGlobals equal the accumulated form's`, () => {
      const fleet = simulateFleet({ models: 7, items: 15, seed: 4, missing: 0.2, hard: 0.3, optionWeights: { 2: 1, 3: 1, 5: 1, 7: 1 } });
      const family = getFamily('llm-nrm', c.parts);
      const bank = fleet.bank;
      const split = splitColumns(bank);
      const L = family.layout(bank);
      expect(family.layout(split).size).toBe(L.size);
      const x = randomPoint(L, randomSource(11));
      const free = new Uint8Array(L.size).fill(1);
      const first = family.curvature(bank, L, {})(x, free, { cross: true });
      const inv = first.itemGN!.map(inverseSpd);
      const itemZ = first.itemGlobals?.map((G, i) => {
        const D = inv[i]!;
        const n2 = Math.round(Math.sqrt(D.length));
        const Z = new Float64Array(n2 * 2);
        for (let a = 0; a < n2; a++) for (let g = 0; g < 2; g++) for (let b = 0; b < n2; b++) Z[a * 2 + g]! += D[a * n2 + b]! * G[b * 2 + g]!;
        return Z;
      });
      const opts = itemZ ? { itemInverse: inv, itemZ } : { itemInverse: inv };
      const fast = family.curvature(bank, L, {})(x, free, { ...opts, correctionOnly: true });
      const slow = family.curvature(split, L, {})(x, free, opts);
      expect(fast.llmItem).toHaveLength(L.nModels);
      for (let j = 0; j < L.nModels; j++) {
        const a = fast.llmItem![j]!;
        const b = slow.llmItem![j]!;
        let scale = 0;
        for (const v of b) scale = Math.max(scale, Math.abs(v));
        expect(scale).toBeGreaterThan(0);
        for (let t = 0; t < b.length; t++) expect(Math.abs(a[t]! - b[t]!)).toBeLessThanOrEqual(1e-12 * scale);
        if (itemZ) {
          const za = fast.llmItemGlobals![j]!;
          const zb = slow.llmItemGlobals![j]!;
          let zs = 0;
          for (const v of zb) zs = Math.max(zs, Math.abs(v));
          for (let t = 0; t < zb.length; t++) expect(Math.abs(za[t]! - zb[t]!)).toBeLessThanOrEqual(1e-12 * zs);
        }
      }
      // The full pass (blocks too) takes the same per-cell corrections.
      const full = family.curvature(bank, L, {})(x, free, opts);
      for (let j = 0; j < L.nModels; j++) expect(Array.from(full.llmItem![j]!)).toEqual(Array.from(fast.llmItem![j]!));
    });
  }
});

describe('llmNrmCorrectionInputs into an engine buffers', () => {
  for (const c of CASES) {
    it(`${c.name}: the same inputs written over stale buffers as into fresh ones; a buffer of the wrong size is refused`, () => {
      const fleet = simulateFleet({ models: 6, items: 12, seed: 9, missing: 0.1, optionWeights: { 2: 1, 4: 1, 6: 1 } });
      const family = getFamily('llm-nrm', c.parts);
      const bank = fleet.bank;
      const L = family.layout(bank) as LlmNrmLayout;
      const x = randomPoint(L, randomSource(3));
      const first = family.curvature(bank, L, {})(x, new Uint8Array(L.size).fill(1), { cross: true });
      const inv = first.itemGN!.map(inverseSpd);
      const itemZ = first.itemGlobals?.map((G) => Float64Array.from(G, (v) => 0.5 * v));
      for (const z of itemZ === undefined ? [undefined] : [undefined, itemZ]) {
        const fresh = llmNrmCorrectionInputs(bank, L, x, inv, z)!;
        expect(fresh).not.toBeNull();
        // Stale values everywhere (an engine's buffers from its last pass): all overwritten or zeroed.
        const stale = (v: Float64Array | null) => (v === null ? null : new Float64Array(v.length).fill(7.5));
        const into = {
          daa: stale(fresh.daa)!,
          dac: stale(fresh.dac)!,
          dcc: stale(fresh.dcc)!,
          ma: stale(fresh.ma)!,
          mc: stale(fresh.mc)!,
          tm: stale(fresh.tm)!,
          tz: stale(fresh.tz)!,
          z: stale(fresh.z),
        };
        const got = llmNrmCorrectionInputs(bank, L, x, inv, z, into)!;
        expect(got).toBe(into);
        for (const key of ['daa', 'dac', 'dcc', 'ma', 'mc', 'tm', 'tz', 'z'] as const) {
          const a = fresh[key];
          expect(a === null ? null : Array.from(a), `${key}, itemZ ${z !== undefined}`).toEqual(got[key] === null ? null : Array.from(got[key]!));
        }
        expect(() => llmNrmCorrectionInputs(bank, L, x, inv, z, { ...into, dac: new Float64Array(fresh.dac.length + 1) })).toThrow(/into\.dac has/);
      }
    });
  }
});
