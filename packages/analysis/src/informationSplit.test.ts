import { describe, expect, it } from 'vitest';
import { predictor, simulateFleet, type ResponseBank } from '@llm-nrm/core';
import { informationSplit } from './informationSplit.js';
import { itemInformation } from './itemInformation.js';
import { llmInformation } from './llmInformation.js';
import { gaussHermite } from './gaussHermite.js';

// Independent computation: the Fisher information is the negative expected second derivative of
// the log-likelihood, -sum_k p_k d^2 log p_k / dtheta^2, here by central finite differences of a
// plain log-softmax (NRM) or of core's predictor (full LLM-NRM).
function logSoftmax(v: number[]): number[] {
  const m = Math.max(...v);
  const s = v.reduce((t, x) => t + Math.exp(x - m), 0);
  return v.map((x) => x - m - Math.log(s));
}

function fdInformation(logp: (theta: number) => number[], theta: number, h = 1e-4): { total: number; binary: number; key: (g: number) => number } {
  const l0 = logp(theta);
  const lp = logp(theta + h);
  const lm = logp(theta - h);
  const p = l0.map(Math.exp);
  let total = 0;
  for (let k = 0; k < p.length; k++) total -= p[k]! * ((lp[k]! - 2 * l0[k]! + lm[k]!) / (h * h));
  // Binary information (dp_g/dtheta)^2 / (p_g (1 - p_g)).
  const key = (g: number) => {
    const dp = (Math.exp(lp[g]!) - Math.exp(lm[g]!)) / (2 * h);
    return (dp * dp) / (p[g]! * (1 - p[g]!));
  };
  return { total, binary: NaN, key };
}

describe('informationSplit', () => {
  it('NRM item information equals -E[d2 log p / dtheta2] and the binary part (dp_g)^2 / (p_g(1-p_g))', () => {
    const { bank, truth, layout } = simulateFleet({ models: 5, items: 40, seed: 11 });
    let checked = 0;
    for (const theta of [-2, -0.3, 0.8, 2.5]) {
      const info = itemInformation(bank, layout, truth, { abilities: [theta] });
      for (let i = 0; i < bank.items.length; i++) {
        const io = bank.itemOffsets[i]!;
        const K = bank.itemOffsets[i + 1]! - io;
        const a = Array.from(truth.subarray(layout.a + io, layout.a + io + K));
        const c = Array.from(truth.subarray(layout.c + io, layout.c + io + K));
        const fd = fdInformation((t) => logSoftmax(a.map((ak, k) => ak * t + c[k]!)), theta);
        expect(info.total[i]).toBeCloseTo(fd.total, 5);
        expect(info.binary[i]).toBeCloseTo(fd.key(bank.key[i]!), 5);
        expect(info.wrong[i]).toBeGreaterThanOrEqual(0);
        expect(Math.abs(info.total[i]! - info.binary[i]! - info.wrong[i]!)).toBeLessThan(1e-12);
        checked++;
      }
    }
    expect(checked).toBe(160);
  });

  it('full LLM-NRM information (sharpness, position, gate) matches finite differences of core predictor', () => {
    const { bank, truth, layout } = simulateFleet({ models: 6, items: 30, seed: 5, rotations: 2 });
    const x = Float64Array.from(truth);
    x[layout.w0] = 0.5; // a gate that is open enough to matter
    const pred = predictor(bank, layout, x);
    const p = new Float64Array(bank.kMax);
    for (let j = 0; j < 6; j++) {
      const info = llmInformation(bank, layout, x, j);
      const th = x[layout.theta + j]!;
      for (let col = 0; col < bank.colItem.length; col++) {
        const K = bank.colOffsets[col + 1]! - bank.colOffsets[col]!;
        const logp = (t: number) => {
          x[layout.theta + j] = t;
          pred.cell(j, col, p);
          x[layout.theta + j] = th;
          return Array.from(p.subarray(0, K), Math.log);
        };
        const fd = fdInformation(logp, th);
        expect(Math.abs(info.total[col]! - fd.total)).toBeLessThan(1e-5 * Math.max(1, fd.total));
        expect(Math.abs(info.binary[col]! - fd.key(bank.key[bank.colItem[col]!]!))).toBeLessThan(1e-5 * Math.max(1, fd.total));
        expect(info.wrong[col]).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it('stays finite and non-negative for confident items (p_key = 1 - 1e-12) and beyond', () => {
    // Key logit 28.3 above two distractors: e = exp(-28.3) ~ 5.1e-13 each, 1 - p_key ~ 1e-12.
    // With d = (1, 0, -1): dbar_w = -0.5, so by hand I_binary = p_g W (1.5)^2 ~ 2.25 * 2e,
    // I_wrong = e (0.5^2) + e (0.5^2) = 0.5 e. The naive p_g (a_g - abar)^2 / (1 - p_g) computes
    // 1 - p_g in double precision with ~1e-4 relative error here and 0/0 a little further out.
    const out = new Float64Array(3);
    const gap = 28.3;
    informationSplit([gap, 0, 0], [1, 0, -1], 3, 0, out);
    const e = Math.exp(-gap) / (1 + 2 * Math.exp(-gap));
    const pg = 1 / (1 + 2 * Math.exp(-gap));
    expect(1 - pg).toBeGreaterThan(0.9e-12);
    expect(out[1]! / (pg * 2 * e * 2.25)).toBeCloseTo(1, 12);
    expect(out[2]! / (0.5 * e)).toBeCloseTo(1, 12);
    for (const g of [40, 200, 700, 800, 1e6]) {
      informationSplit([g, 0, -1, 3], [2, -1, 0.5, -1.5], 4, 0, out);
      for (const v of out) {
        expect(Number.isFinite(v)).toBe(true);
        expect(v).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it('is never negative over many random items, including near-degenerate ones', () => {
    const out = new Float64Array(3);
    let s = 12345;
    const u = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let t = 0; t < 5000; t++) {
      const K = 2 + Math.floor(u() * 9);
      const v = Array.from({ length: K }, () => (u() - 0.5) * (t % 2 ? 80 : 6));
      const d = Array.from({ length: K }, () => (u() - 0.5) * 6);
      informationSplit(v, d, K, Math.floor(u() * K), out);
      expect(out[1]! >= 0 && out[2]! >= 0 && Number.isFinite(out[0]!)).toBe(true);
    }
  });

  it('Gauss-Hermite quadrature integrates N(0,1) moments exactly', () => {
    const { nodes, weights } = gaussHermite(41);
    const mom = (p: number) => nodes.reduce((s, x, i) => s + weights[i]! * x ** p, 0);
    expect(mom(0)).toBeCloseTo(1, 12);
    expect(mom(1)).toBeCloseTo(0, 12);
    expect(mom(2)).toBeCloseTo(1, 10);
    expect(mom(4)).toBeCloseTo(3, 9);
    expect(mom(6)).toBeCloseTo(15, 8);
    const one = gaussHermite(1);
    expect(one.nodes[0]).toBeCloseTo(0, 12);
    const three = gaussHermite(3); // roots of He_3 = x^3 - 3x: 0, +-sqrt(3); weights 1/6, 2/3, 1/6
    expect(three.nodes[2]).toBeCloseTo(Math.sqrt(3), 12);
    expect(three.weights[1]).toBeCloseTo(2 / 3, 12);
  });
});

describe('itemInformation over the prior', () => {
  it('a binary 2PL item has information a^2 P (1 - P)', async () => {
    const { binaryLayout } = await import('@llm-nrm/core/engine');
    const bank = {
      items: [{ id: 'i', key: 0, nOptions: 2 }],
      models: ['m'],
      kMax: 2,
      itemOffsets: Int32Array.of(0, 2),
      key: Int32Array.of(0),
    } as unknown as ResponseBank;
    const L = binaryLayout(bank, 2);
    const x = new Float64Array(L.size);
    x[L.slope] = 1.7;
    x[L.intercept] = -0.4;
    const th = 0.3;
    const P = 1 / (1 + Math.exp(-(1.7 * th - 0.4)));
    const info = itemInformation(bank, L, x, { abilities: [th] });
    expect(info.total[0]).toBeCloseTo(1.7 * 1.7 * P * (1 - P), 12);
    expect(info.wrong[0]).toBe(0);
  });
});
