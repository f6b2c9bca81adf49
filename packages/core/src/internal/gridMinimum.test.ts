import { describe, expect, it } from 'vitest';
import { gridMinimum, gridSearch, localGridSearch } from './gridMinimum.js';

/** f with a count of its evaluations. */
function counted(f: (x: number) => number): { f: (x: number) => number; n: () => number } {
  let n = 0;
  return {
    f: (x) => {
      n++;
      return f(x);
    },
    n: () => n,
  };
}

describe('gridMinimum', () => {
  it('finds the minimum of a smooth function to the tolerance in far fewer steps than golden section', () => {
    // A softplus-shaped loss with its minimum at log(3) - 0.4 (not a grid point).
    const m = Math.log(3) - 0.4;
    const c = counted((x) => Math.log1p(Math.exp(3 * (x - m))) + Math.log1p(Math.exp(-3 * (x - m))));
    const x = gridMinimum(c.f, -8, 8, 0.25, 1e-9);
    expect(Math.abs(x - m)).toBeLessThan(1e-7);
    // 65 grid points; golden section alone needs 44 more to narrow 0.5 to 1e-9.
    expect(c.n() - 65).toBeLessThan(30);
  });

  it("gridSearch gives gridMinimum's point and f's value there, and infinity where f was never finite", () => {
    const f = (x: number) => Math.log1p(Math.exp(2 * x - 1)) + Math.log1p(Math.exp(0.7 - x)) + 0.01 * x * x;
    const r = gridSearch(f, -8, 8, 0.25, 1e-9);
    expect(r.x).toBe(gridMinimum(f, -8, 8, 0.25, 1e-9));
    expect(r.fx).toBe(f(r.x));
    expect(gridSearch(() => NaN, -2, 2, 0.25, 1e-6).fx).toBe(Infinity);
  });

  it('keeps the grid basin of a function with two minima (the lower one)', () => {
    const f = (x: number) => Math.min((x + 3) ** 2 + 0.5, 4 * (x - 2) ** 2);
    expect(gridMinimum(f, -8, 8, 0.25, 1e-9)).toBeCloseTo(2, 8);
  });

  it('ends on a function that is infinite everywhere, and on a flat one, inside the first bracket', () => {
    const inf = counted(() => Infinity);
    const at = gridMinimum(inf.f, -2, 2, 0.25, 1e-6);
    expect(at).toBeGreaterThanOrEqual(-2.25);
    expect(at).toBeLessThanOrEqual(-1.75);
    expect(inf.n()).toBeLessThan(100);
    const flat = counted(() => 1);
    expect(gridMinimum(flat.f, -2, 2, 0.25, 1e-6)).toBeGreaterThanOrEqual(-2.25);
    expect(flat.n()).toBeLessThan(100);
  });

  it('finds a minimum at the edge of the grid', () => {
    expect(gridMinimum((x) => x, -2, 2, 0.25, 1e-6)).toBeLessThan(-2.24);
  });

  it("localGridSearch: gridSearch's point near a known minimum in far fewer evaluations, null where the grid's best point is an end", () => {
    const f = (x: number) => Math.log1p(Math.exp(2 * x - 1)) + Math.log1p(Math.exp(0.7 - x)) + 0.01 * x * x;
    const whole = gridSearch(f, -8, 8, 0.25, 1e-9);
    const c = counted(f);
    const near = localGridSearch(c.f, whole.x + 0.3, 1, 0.25, 1e-9)!;
    expect(Math.abs(near.x - whole.x)).toBeLessThan(1e-8);
    expect(near.fx).toBe(f(near.x));
    expect(c.n()).toBeLessThan(40);
    // The minimum beyond the local grid: its best point is an end, so the caller must search the whole range.
    expect(localGridSearch(f, whole.x + 3, 1, 0.25, 1e-9)).toBeNull();
    expect(localGridSearch(f, whole.x - 3, 1, 0.25, 1e-9)).toBeNull();
  });
});
