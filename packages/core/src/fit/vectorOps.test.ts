// The L-BFGS vector sweeps: fixed part boundaries, each op's arithmetic against a plain loop, and
// the reduction order (part sums added in part order) that a threaded implementation must match.
import { describe, expect, it } from 'vitest';
import { runParts, serialVectorOps, sumParts, VECTOR_OP, VECTOR_PARTS, vectorPart, vectorRange } from './vectorOps.js';

/** A deterministic vector with entries of mixed sign and magnitude (so summation order shows). */
function vec(n: number, seed: number): Float64Array {
  const v = new Float64Array(n);
  let s = seed;
  for (let t = 0; t < n; t++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    v[t] = ((s / 2147483648) * 2 - 1) * 10 ** ((t % 7) - 3);
  }
  return v;
}

describe('vectorPart', () => {
  for (const n of [0, 1, 7, 8, 63, 64, 1000, 371_003])
    it(`cuts ${n} entries into ${VECTOR_PARTS} ordered parts starting on multiples of 8`, () => {
      expect(vectorPart(n, 0)).toBe(0);
      expect(vectorPart(n, VECTOR_PARTS)).toBe(n);
      for (let p = 1; p < VECTOR_PARTS; p++) {
        expect(vectorPart(n, p) % 8).toBe(0);
        expect(vectorPart(n, p)).toBeGreaterThanOrEqual(vectorPart(n, p - 1));
        expect(vectorPart(n, p)).toBeLessThanOrEqual(n);
      }
      if (n >= 8 * VECTOR_PARTS) for (let p = 1; p <= VECTOR_PARTS; p++) expect(vectorPart(n, p)).toBeGreaterThan(vectorPart(n, p - 1));
    });
});

describe('serialVectorOps', () => {
  const n = 10_007;
  const out = new Float64Array(2);
  // The sum of f(t) over part p, left to right, then the parts in order: the order every implementation keeps.
  const partOrdered = (f: (t: number) => number): number => {
    let total = 0;
    for (let p = 0; p < VECTOR_PARTS; p++) {
      let s = 0;
      for (let t = vectorPart(n, p); t < vectorPart(n, p + 1); t++) s += f(t);
      total += s;
    }
    return total;
  };

  it('DOT: the part-ordered sum, bit for bit, and the plain sum to rounding', () => {
    const a = vec(n, 1);
    const b = vec(n, 2);
    serialVectorOps.run(VECTOR_OP.DOT, [a, b], 0, out);
    expect(out[0]).toBe(partOrdered((t) => a[t]! * b[t]!));
    let plain = 0;
    let abs = 0;
    for (let t = 0; t < n; t++) {
      plain += a[t]! * b[t]!;
      abs += Math.abs(a[t]! * b[t]!);
    }
    // Both orders are within the classical bound n eps sum |a_t b_t| of the exact sum.
    expect(Math.abs(out[0]! - plain)).toBeLessThan(2 * n * Number.EPSILON * abs);
    expect(out[0]).not.toBe(0);
  });

  it('AXPY, AXPY_DOT, NEG_DOT, AXPY_INTO: each entry as the plain loop computes it, sums part-ordered', () => {
    const x = vec(n, 3);
    const z = vec(n, 4);
    const y0 = vec(n, 5);
    const y = Float64Array.from(y0);
    serialVectorOps.run(VECTOR_OP.AXPY, [x, y], 0.37, out);
    for (let t = 0; t < n; t++) expect(y[t]).toBe(y0[t]! + 0.37 * x[t]!);

    const y2 = Float64Array.from(y0);
    serialVectorOps.run(VECTOR_OP.AXPY_DOT, [x, y2, z], -1.5, out);
    for (let t = 0; t < n; t++) expect(y2[t]).toBe(y0[t]! + -1.5 * x[t]!);
    expect(out[0]).toBe(partOrdered((t) => z[t]! * y2[t]!));

    const neg = new Float64Array(n);
    serialVectorOps.run(VECTOR_OP.NEG_DOT, [x, neg, z], 0, out);
    for (let t = 0; t < n; t++) expect(neg[t]).toBe(-x[t]!);
    expect(out[0]).toBe(partOrdered((t) => z[t]! * -x[t]!));

    const r = new Float64Array(n);
    serialVectorOps.run(VECTOR_OP.AXPY_INTO, [x, z, r], 0.25, out);
    for (let t = 0; t < n; t++) expect(r[t]).toBe(x[t]! + 0.25 * z[t]!);
  });

  it("PAIR: s = x1 - x0, y = g1 - g0, s.y and y'Wy", () => {
    const [x1, x0, g1, g0, w] = [vec(n, 6), vec(n, 7), vec(n, 8), vec(n, 9), vec(n, 10).map(Math.abs)];
    const s = new Float64Array(n);
    const y = new Float64Array(n);
    serialVectorOps.run(VECTOR_OP.PAIR, [x1, x0, g1, g0, w, s, y], 0, out);
    for (let t = 0; t < n; t++) {
      expect(s[t]).toBe(x1[t]! - x0[t]!);
      expect(y[t]).toBe(g1[t]! - g0[t]!);
    }
    expect(out[0]).toBe(partOrdered((t) => s[t]! * y[t]!));
    expect(out[1]).toBe(partOrdered((t) => y[t]! * y[t]! * w[t]!));
  });

  it('runParts is vectorRange over the parts then sumParts: the same bits in any order the parts are run', () => {
    const a = vec(n, 11);
    const b = vec(n, 12);
    const partials = new Float64Array(2 * VECTOR_PARTS);
    // Parts run backwards (as threads might finish them), summed in part order.
    for (let p = VECTOR_PARTS - 1; p >= 0; p--) vectorRange(VECTOR_OP.DOT, [a, b], 0, vectorPart(n, p), vectorPart(n, p + 1), partials, 2 * p);
    const backwards = new Float64Array(2);
    sumParts(VECTOR_OP.DOT, partials, backwards);
    runParts(VECTOR_OP.DOT, [a, b], 0, out, new Float64Array(2 * VECTOR_PARTS));
    expect(backwards[0]).toBe(out[0]);
  });
});
