// Blocks.apply against cholSolve block by block, bit for bit: the packed, column-wise forward
// substitution must do the same operations in the same order as the row-wise solve, so that the
// optimiser's path (and every fit) is unchanged.
import { describe, expect, it } from 'vitest';
import { randomSource } from '../simulate/random.js';
import { Blocks } from './blocks.js';
import { cholSolve } from './cholesky.js';

describe('Blocks.apply', () => {
  it('equals cholSolve on each block to the bit, with fixed parameters and step caps', () => {
    const rng = randomSource(5);
    const sizes = [1, 2, 3, 4, 8, 8, 10, 20, 22, 5, 8, 20, 7];
    const n = sizes.reduce((a, b) => a + b, 0) + 3; // three indices in no block
    const order = Array.from({ length: n }, (_, t) => t).sort(() => rng.uniform() - 0.5);
    const free = new Uint8Array(n).fill(1);
    free[order[4]!] = 0;
    free[order[30]!] = 0;
    const blocks = new Blocks(n);
    const expected = new Float64Array(n);
    const v = Float64Array.from({ length: n }, () => rng.uniform() * 4 - 2);
    let at = 0;
    sizes.forEach((P, b) => {
      const idx = order.slice(at, at + P);
      at += P;
      const A = Float64Array.from({ length: P * P }, () => rng.uniform() - 0.5);
      const H = new Float64Array(P * P);
      for (let i = 0; i < P; i++) for (let j = 0; j < P; j++) for (let k = 0; k < P; k++) H[i * P + j]! += A[i * P + k]! * A[j * P + k]!;
      const cap = b % 3 === 0 ? 0.05 : Infinity;
      blocks.add(idx, H, free, 0.1, cap);
      // add() factorised H in place of its copy: solve the same system by cholSolve.
      const y = Float64Array.from(idx, (t) => v[t]!);
      cholSolve(blocks.chol[b]!, P, y);
      let mx = 0;
      for (const u of y) mx = Math.max(mx, Math.abs(u));
      const scale = mx > cap ? cap / mx : 1;
      idx.forEach((t, r) => (expected[t] = scale * y[r]!));
    });
    const out = new Float64Array(n).fill(7);
    blocks.apply(v, out);
    expect(Array.from(out)).toEqual(Array.from(expected));
    expect(out.some((x) => x !== 0)).toBe(true);
    // Applying again (the packed arrays reused) gives the same.
    blocks.apply(v, out);
    expect(Array.from(out)).toEqual(Array.from(expected));
    // applyPair: two vectors in one sweep, each the same bits as apply (and both capped on their own).
    const v2 = Float64Array.from({ length: n }, () => rng.uniform() * 40 - 20);
    const expected2 = new Float64Array(n);
    blocks.apply(v2, expected2);
    const o1 = new Float64Array(n).fill(3);
    const o2 = new Float64Array(n).fill(-3);
    blocks.applyPair(v, o1, v2, o2);
    expect(Array.from(o1)).toEqual(Array.from(expected));
    expect(Array.from(o2)).toEqual(Array.from(expected2));
    expect(Array.from(o2)).not.toEqual(Array.from(o1));
  });
});

describe('Blocks.packInto and setApplier', () => {
  it('pack the factors as the sizes say, route solves to an applier until the next add', () => {
    const rng = randomSource(9);
    const n = 12;
    const blocks = new Blocks(n);
    const free = new Uint8Array(n).fill(1);
    const spd = (P: number): Float64Array => {
      const H = new Float64Array(P * P);
      for (let i = 0; i < P; i++) {
        for (let j = 0; j < P; j++) H[i * P + j] = 0.1 * Math.cos(i + 2 * j + i * j);
        H[i * P + i]! += P + rng.uniform();
      }
      for (let i = 0; i < P; i++) for (let j = 0; j < i; j++) H[j * P + i] = H[i * P + j]!;
      return H;
    };
    blocks.add([0, 3, 5], spd(3), free, 0);
    blocks.add([1, 2], spd(2), free, 0, 0.5);
    blocks.add([4, 6, 7, 8], spd(4), free, 0);
    const sz = blocks.packedSizes();
    expect(sz).toEqual({ blocks: 3, indices: 9, triangle: 6 + 3 + 10, maxP: 4 });
    const off = new Int32Array(4);
    const lo = new Int32Array(4);
    const ix = new Int32Array(sz.indices);
    const Bk = new Float64Array(sz.triangle);
    const cap = new Float64Array(3);
    blocks.packInto(off, lo, ix, Bk, cap);
    expect(Array.from(off)).toEqual([0, 3, 5, 9]);
    expect(Array.from(lo)).toEqual([0, 6, 9, 19]);
    expect(Array.from(ix)).toEqual([0, 3, 5, 1, 2, 4, 6, 7, 8]);
    expect(Array.from(cap)).toEqual([Infinity, 0.5, Infinity]);
    // Block 2's first packed row is column 0 of its factor, the diagonal first.
    const L2 = blocks.chol[2]!;
    expect(Array.from(Bk.subarray(9, 13))).toEqual([L2[0]!, L2[4]!, L2[8]!, L2[12]!]);
    // An applier takes both solves; add drops it (the factors changed).
    const calls: string[] = [];
    blocks.setApplier({ apply: () => calls.push('apply'), applyPair: () => calls.push('pair') });
    const v = Float64Array.from({ length: n }, () => rng.uniform());
    const out = new Float64Array(n);
    blocks.apply(v, out);
    blocks.applyPair(v, out, v, new Float64Array(n));
    expect(calls).toEqual(['apply', 'pair']);
    expect(out.every((u) => u === 0)).toBe(true);
    blocks.add([9, 10], spd(2), free, 0);
    blocks.apply(v, out);
    expect(calls).toEqual(['apply', 'pair']);
    expect(out[9]).not.toBe(0);
  });
});
