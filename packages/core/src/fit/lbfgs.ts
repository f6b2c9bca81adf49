import { LlmNrmError } from '../errors.js';
import type { Objective } from '../model/objective.js';
import type { OptimizeOptions, OptimizeResult } from './optimizer.js';
import { serialVectorOps, VECTOR_OP, type VectorOpCode, type VectorOps } from './vectorOps.js';

/**
 * Limited-memory BFGS (Nocedal and Wright, Algorithm 7.4/7.5) with a scaled identity or block initial
 * inverse Hessian (the item and LLM blocks differ in curvature by the ratio of their cell counts).
 * Backtracking Armijo line search (c1 = 1e-4); pairs with s'y <= 0 are skipped. Where the loss
 * carries rounding noise (`lossNoise`) the decrease is measured by the trapezoid rule on the
 * directional derivatives, s (g(x).d + g(x + s d).d) / 2, far more accurate than the loss.
 */
export function minimizeLbfgs(obj: Objective, x0: Float64Array, opts: OptimizeOptions = {}): OptimizeResult {
  const now = opts.now ?? Date.now;
  const t0 = now();
  const n = x0.length;
  const m = opts.memory ?? 12;
  const maxIt = opts.maxIterations ?? 1000;
  const tol = opts.tolerance ?? 1e-9;
  const gtol = opts.gradTolerance ?? 1e-6;
  const dtol = opts.distanceTolerance ?? 0;
  const tolDistance = opts.toleranceDistance ?? Infinity;
  let distance = NaN;
  const free = obj.free;
  // The vector sweeps (fit/vectorOps.ts), on this thread or an engine's workers: the same bits.
  const ops = opts.vectors ?? serialVectorOps;
  const V = new VectorSweeps(ops);
  // The initial inverse Hessian without a preconditioner (scaled by gamma): 1 on the free coordinates.
  const dinv = ops.alloc(n);
  for (let t = 0; t < n; t++) dinv[t] = free[t] ? 1 : 0;
  // x, g and the trial point's xNew, gNew swap places on an accepted step (no copies of n doubles).
  let x = ops.alloc(n);
  x.set(x0);
  let g = ops.alloc(n);
  let xNew = ops.alloc(n);
  let gNew = ops.alloc(n);
  let dir = ops.alloc(n);
  const warm = opts.startMemory;
  const S: Float64Array[] = warm ? warm.s.slice(-m) : [];
  const Y: Float64Array[] = warm ? warm.y.slice(-m) : [];
  const rhoHist: number[] = warm ? warm.rho.slice(-m) : [];
  const spare: Float64Array[] = [];
  const alpha = new Float64Array(m);
  let passes = 0;
  const evalAt = (px: Float64Array, pg: Float64Array): number => {
    passes++;
    return obj.lossAndGrad(px, pg);
  };
  let f = evalAt(x, g);
  const trace = [f];
  const traceSeconds = [(now() - t0) / 1000];
  const tracePasses = [passes];
  let lastReport = now();
  let it = 0;
  let reason = 'max-iterations';
  let converged = false;
  let gamma = warm?.gamma ?? 1;
  const pc = opts.preconditioner;
  const refreshEvery = opts.refreshEvery ?? 10;
  let pcOut = pc ? ops.alloc(n) : dir;
  // With applyPair the convergence check's H0 g and the two-loop's product come from one sweep
  // (the first loop runs before the check; it has no effect if the check stops the fit).
  const pair = pc?.applyPair !== undefined;
  const pcG = pc ? ops.alloc(n) : dir;
  // Below this size a loss difference is within the loss's noise: 100 times its relative size.
  const noiseBand = 100 * (opts.lossNoise ?? 0);
  // The loss as the accepted steps measured it: what the no-progress stop compares.
  let fTrack = f;
  const fTrace = [f];
  let lastStep = 1;
  // The last accepted step's decrease, as the line search measured it (0 before the first).
  let lastDecrease = 0;
  const decreaseFrom = opts.decreaseStepFrom ?? Infinity;
  for (; it < maxIt; it++) {
    if (pc && it % refreshEvery === 0 && !(it === 0 && opts.refreshed === true)) {
      pc.refresh(x);
      passes++;
    }
    // Convergence on the preconditioned gradient.
    let gmax = 0;
    if (pc) {
      if (pair) {
        firstLoop(V, S, Y, rhoHist, alpha, g, dir);
        pc.applyPair!(g, pcG, dir, pcOut);
      } else pc.apply(g, pcG);
      gmax = Math.sqrt(Math.max(0, V.dot(g, pcG)) / Math.max(1, Math.abs(f)));
    } else {
      for (let t = 0; t < n; t++) {
        const v = Math.abs(g[t]!) * Math.sqrt(dinv[t]!);
        if (v > gmax) gmax = v;
      }
    }
    if (gmax < gtol) {
      reason = 'gradient';
      converged = true;
      break;
    }
    // Two-loop recursion: dir = -H g (the first loop above with applyPair).
    const last = S.length - 1;
    if (!pair) firstLoop(V, S, Y, rhoHist, alpha, g, dir);
    if (pc) {
      if (!pair) pc.apply(dir, pcOut);
      // pcOut holds H0 dir: the two swap places instead of a copy.
      const d0 = dir;
      dir = pcOut;
      pcOut = d0;
    } else {
      for (let t = 0; t < n; t++) dir[t]! *= gamma * dinv[t]!;
    }
    // The second loop's last update is fused with the slope g.dir (the same products in the same order).
    let slope = 0;
    if (last >= 0) {
      let yd = V.dot(Y[0]!, dir);
      for (let h = 0; h <= last; h++) {
        const bta = rhoHist[h]! * yd;
        if (h < last) yd = V.axpyDot(alpha[h]! - bta, S[h]!, dir, Y[h + 1]!);
        else slope = V.axpyDot(alpha[h]! - bta, S[h]!, dir, g);
      }
    } else slope = V.dot(g, dir);
    if (slope < 0) {
      // Newton decrement in the L-BFGS metric: lambda^2 = g^T H_k g, each coordinate within lambda SEs of its optimum.
      distance = Math.sqrt(-slope);
      if (distance < dtol) {
        reason = 'distance';
        converged = true;
        break;
      }
    }
    if (!(slope < 0)) {
      // Not a descent direction (numerical breakdown): restart from the preconditioned gradient.
      S.length = 0;
      Y.length = 0;
      rhoHist.length = 0;
      if (pc) {
        // pcG still holds H0 g from this iteration's convergence check (g has not moved).
        for (let t = 0; t < n; t++) dir[t] = -pcG[t]!;
      } else {
        for (let t = 0; t < n; t++) dir[t] = -g[t]! * dinv[t]!;
      }
      slope = V.dot(g, dir);
      if (!(slope < 0)) {
        reason = 'gradient';
        converged = true;
        break;
      }
    }
    // The first trial step. From iteration `decreaseStepFrom` on, Nocedal and Wright's eq. 3.60,
    // 2 (f_{k-1} - f_k) / -slope times 1.01; before it, twice the last accepted step. Both at most 1:
    // under the capped block steps the full step is often too long (BENCHMARKS.md "The first trial step").
    let step = Math.min(1, 2 * lastStep);
    if (lastDecrease > 0 && it >= decreaseFrom) {
      const nw = (2.02 * lastDecrease) / -slope;
      if (nw > 0 && Number.isFinite(nw)) step = Math.min(1, nw);
    }
    if (S.length === 0 && it === 0 && !pc) {
      // First step: keep the move modest until curvature pairs exist.
      let dmax = 0;
      for (let t = 0; t < n; t++) dmax = Math.max(dmax, Math.abs(dir[t]!));
      step = Math.min(1, 1 / Math.max(dmax, 1e-12));
    }
    let fNew = NaN;
    let accepted = false;
    let decrease = 0;
    for (let ls = 0; ls < 40; ls++) {
      V.axpyInto(x, step, dir, xNew);
      let ok = true;
      try {
        fNew = evalAt(xNew, gNew);
      } catch (e) {
        if (e instanceof LlmNrmError && e.code === 'NON_FINITE') ok = false;
        else throw e;
      }
      let df = fNew - f;
      let sufficient = fNew <= f + 1e-4 * step * slope;
      if (ok && noiseBand > 0) {
        // Within the loss's noise: the trapezoid rule on the directional derivatives instead.
        const band = noiseBand * Math.abs(f);
        const est = 0.5 * step * (slope + V.dot(gNew, dir));
        if (Math.abs(df) < band && Math.abs(est) < band) {
          df = est;
          sufficient = est <= 1e-4 * step * slope;
        }
      }
      if (ok && sufficient) {
        accepted = true;
        decrease = df;
        break;
      }
      // Backtrack to the minimiser of the quadratic through f, slope and f(step), kept within
      // [0.1, 0.5] of the step (Nocedal and Wright, sec. 3.5); a non-finite trial shrinks by 10.
      if (ok) {
        const curv = df - slope * step;
        const tq = curv > 0 ? (-slope * step * step) / (2 * curv) : 0.5 * step;
        step = Math.min(0.5 * step, Math.max(0.1 * step, tq));
      } else step *= 0.1;
    }
    if (accepted) {
      lastStep = step;
      lastDecrease = -decrease;
    }
    if (!accepted) {
      reason = 'line-search';
      // A line search that cannot improve at machine precision is a converged point.
      converged = S.length > 0;
      break;
    }
    // Curvature pair; pairs dropped from the memory are reused.
    const s = spare.pop() ?? ops.alloc(n);
    const y = spare.pop() ?? ops.alloc(n);
    const [sy, yDy] = V.pair(xNew, x, gNew, g, dinv, s, y);
    if (sy > 1e-12 * Math.sqrt(yDy)) {
      if (S.length === m) {
        spare.push(S.shift()!, Y.shift()!);
        rhoHist.shift();
      }
      S.push(s);
      Y.push(y);
      rhoHist.push(1 / sy);
      gamma = sy / yDy;
    } else spare.push(s, y);
    const xOld = x;
    x = xNew;
    xNew = xOld;
    const gOld = g;
    g = gNew;
    gNew = gOld;
    f = fNew;
    const fPrev = fTrack;
    fTrack = noiseBand > 0 ? fTrack + decrease : f;
    fTrace.push(fTrack);
    trace.push(f);
    traceSeconds.push((now() - t0) / 1000);
    tracePasses.push(passes);
    if (opts.onProgress && now() - lastReport >= 1000) {
      lastReport = now();
      opts.onProgress({
        iteration: it + 1,
        passes,
        loss: f,
        seconds: (lastReport - t0) / 1000,
        ...(Number.isFinite(distance) ? { distance } : {}),
        ...(dtol > 0 ? { stopDistance: dtol } : {}),
      });
    }
    if (opts.stop !== undefined && opts.stop(x)) {
      reason = 'degenerate';
      converged = true;
      it++;
      break;
    }
    const back = fTrace.length > 5 ? fTrace[fTrace.length - 6]! : Infinity;
    if (back - fTrack <= tol * Math.abs(f) && fPrev - fTrack <= tol * Math.abs(f) && !(distance >= tolDistance)) {
      reason = 'tolerance';
      converged = true;
      it++;
      break;
    }
  }
  const lbfgsMemory = { s: S, y: Y, rho: rhoHist, gamma };
  // The run's own vectors back to ops (the memory goes with the result): x as a plain copy.
  let xOut = x;
  if (ops.release) {
    xOut = Float64Array.from(x);
    for (const v of [x, g, xNew, gNew, dir, pcOut, pcG, dinv, ...spare]) ops.release(v);
  }
  return {
    x: xOut,
    loss: f,
    iterations: it,
    passes,
    converged,
    reason,
    distance,
    trace,
    traceSeconds,
    tracePasses,
    seconds: (now() - t0) / 1000,
    lbfgsMemory,
  };
}

/** Two-loop recursion, first loop: dir = -g, then the pairs from the newest, alpha_h kept; each update fused with the next dot product (axpyDot). */
function firstLoop(V: VectorSweeps, S: Float64Array[], Y: Float64Array[], rhoHist: number[], alpha: Float64Array, g: Float64Array, dir: Float64Array): void {
  const last = S.length - 1;
  if (last >= 0) {
    let sd = V.negDot(g, dir, S[last]!);
    for (let h = last; h >= 0; h--) {
      const a = rhoHist[h]! * sd;
      alpha[h] = a;
      if (h > 0) sd = V.axpyDot(-a, Y[h]!, dir, S[h - 1]!);
      else V.axpy(-a, Y[h]!, dir);
    }
  } else for (let t = 0; t < g.length; t++) dir[t] = -g[t]!;
}

/** VectorOps' sweeps under the names L-BFGS uses (fit/vectorOps.ts has their arithmetic). */
class VectorSweeps {
  private readonly out = new Float64Array(2);
  constructor(private readonly ops: VectorOps) {}
  private run(op: VectorOpCode, a: number, arrays: Float64Array[]): number {
    this.ops.run(op, arrays, a, this.out);
    return this.out[0]!;
  }
  /** a . b */
  dot(a: Float64Array, b: Float64Array): number {
    return this.run(VECTOR_OP.DOT, 0, [a, b]);
  }
  /** y += a x */
  axpy(a: number, x: Float64Array, y: Float64Array): void {
    this.run(VECTOR_OP.AXPY, a, [x, y]);
  }
  /** y += a x, then z . y, in one sweep (each y[t] is final when z[t] y[t] is added). */
  axpyDot(a: number, x: Float64Array, y: Float64Array, z: Float64Array): number {
    return this.run(VECTOR_OP.AXPY_DOT, a, [x, y, z]);
  }
  /** out = -v, then z . out */
  negDot(v: Float64Array, out: Float64Array, z: Float64Array): number {
    return this.run(VECTOR_OP.NEG_DOT, 0, [v, out, z]);
  }
  /** out = x + a d */
  axpyInto(x: Float64Array, a: number, d: Float64Array, out: Float64Array): void {
    this.run(VECTOR_OP.AXPY_INTO, a, [x, d, out]);
  }
  /** s = x1 - x0, y = g1 - g0; returns [s . y, sum y^2 w]. */
  pair(x1: Float64Array, x0: Float64Array, g1: Float64Array, g0: Float64Array, w: Float64Array, s: Float64Array, y: Float64Array): [number, number] {
    const sy = this.run(VECTOR_OP.PAIR, 0, [x1, x0, g1, g0, w, s, y]);
    return [sy, this.out[1]!];
  }
}
