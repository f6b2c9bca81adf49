/**
 * The vector kernels of L-BFGS (fit/lbfgs.ts), memory-bound at paper scale, so a threaded
 * implementation may run parts of each sweep. For the same bits every reduction has a fixed order:
 * VECTOR_PARTS parts at fixed points (vectorPart), each summed left to right, the part sums added in
 * part order.
 */

/** Parts every sweep is cut into (the unit a thread claims; the reductions' fixed order). */
export const VECTOR_PARTS = 8;

/** Start of part p of n entries (p = 0..VECTOR_PARTS; multiples of 8, so no cache line is split). */
export function vectorPart(n: number, p: number): number {
  if (p >= VECTOR_PARTS) return n;
  return Math.min(n, Math.floor((n * p) / VECTOR_PARTS / 8) * 8);
}

/** The sweeps (VectorOp codes: what a worker is told to run). */
export const VECTOR_OP = { DOT: 0, AXPY: 1, AXPY_DOT: 2, NEG_DOT: 3, AXPY_INTO: 4, PAIR: 5 } as const;
export type VectorOpCode = (typeof VECTOR_OP)[keyof typeof VECTOR_OP];

/**
 * One sweep over [lo, hi): the arithmetic of every implementation (a threaded one runs this very
 * function's source, so it names nothing outside itself). `v` holds the op's arrays in the order
 * below, `a` its scalar; partial sums go to out[o] (and out[o + 1] for PAIR).
 *   DOT       v0 . v1
 *   AXPY      v1 += a v0
 *   AXPY_DOT  v1 += a v0, then v2 . v1
 *   NEG_DOT   v1 = -v0, then v2 . v1
 *   AXPY_INTO v2 = v0 + a v1
 *   PAIR      v5 = v0 - v1 (s), v6 = v2 - v3 (y); sums s.y and y.y v4 (v4: the weights)
 */
export function vectorRange(op: number, v: Float64Array[], a: number, lo: number, hi: number, out: Float64Array, o: number): void {
  let s = 0;
  if (op === 0) {
    const x = v[0]!;
    const y = v[1]!;
    for (let t = lo; t < hi; t++) s += x[t]! * y[t]!;
  } else if (op === 1) {
    const x = v[0]!;
    const y = v[1]!;
    for (let t = lo; t < hi; t++) y[t]! += a * x[t]!;
  } else if (op === 2) {
    const x = v[0]!;
    const y = v[1]!;
    const z = v[2]!;
    for (let t = lo; t < hi; t++) {
      y[t]! += a * x[t]!;
      s += z[t]! * y[t]!;
    }
  } else if (op === 3) {
    const x = v[0]!;
    const y = v[1]!;
    const z = v[2]!;
    for (let t = lo; t < hi; t++) {
      y[t] = -x[t]!;
      s += z[t]! * y[t]!;
    }
  } else if (op === 4) {
    const x = v[0]!;
    const d = v[1]!;
    const r = v[2]!;
    for (let t = lo; t < hi; t++) r[t] = x[t]! + a * d[t]!;
  } else {
    const x1 = v[0]!;
    const x0 = v[1]!;
    const g1 = v[2]!;
    const g0 = v[3]!;
    const w = v[4]!;
    const sv = v[5]!;
    const yv = v[6]!;
    let yy = 0;
    for (let t = lo; t < hi; t++) {
      sv[t] = x1[t]! - x0[t]!;
      yv[t] = g1[t]! - g0[t]!;
      s += sv[t]! * yv[t]!;
      yy += yv[t]! * yv[t]! * w[t]!;
    }
    out[o + 1] = yy;
  }
  out[o] = s;
}

/** What L-BFGS asks of its vectors: `alloc` makes them (a threaded one shares them); any Float64Array gives the same bits, only slower. */
export interface VectorOps {
  /** One line on how the sweeps run (for logs). */
  readonly detail: string;
  /** A zeroed vector of n doubles. */
  alloc(n: number): Float64Array;
  /** Optional: `v` (made by alloc) is no longer used by the caller; alloc may hand it out again. */
  release?(v: Float64Array): void;
  /** Run one sweep (vectorRange's op and arrays) over every part; returns its sum(s) in `out` (2 doubles). */
  run(op: VectorOpCode, v: Float64Array[], a: number, out: Float64Array): void;
}

/** The sweeps on the calling thread, part after part. */
export const serialVectorOps: VectorOps = {
  detail: 'L-BFGS vectors on the calling thread',
  alloc: (n) => new Float64Array(n),
  run(op, v, a, out) {
    runParts(op, v, a, out, PARTIALS);
  },
};

const PARTIALS = new Float64Array(2 * VECTOR_PARTS);

/** All parts of a sweep here, then the part sums in part order into out[0] (and out[1]). */
export function runParts(op: VectorOpCode, v: Float64Array[], a: number, out: Float64Array, partials: Float64Array): void {
  const n = v[0]!.length;
  for (let p = 0; p < VECTOR_PARTS; p++) vectorRange(op, v, a, vectorPart(n, p), vectorPart(n, p + 1), partials, 2 * p);
  sumParts(op, partials, out);
}

/** The part sums (2 p, 2 p + 1 in `partials`) added in part order. */
export function sumParts(op: VectorOpCode, partials: Float64Array, out: Float64Array): void {
  let s = 0;
  let s2 = 0;
  for (let p = 0; p < VECTOR_PARTS; p++) {
    s += partials[2 * p]!;
    if (op === VECTOR_OP.PAIR) s2 += partials[2 * p + 1]!;
  }
  out[0] = s;
  out[1] = s2;
}
