import { LlmNrmError } from '../errors.js';
import type { LlmNrmLayout } from '../layout.js';
import type { EvalScope, Objective } from '../objective.js';

/** What a block step did: passes spent and the loss decrease it measured (<= 0). */
export interface BlockStepResult {
  passes: number;
  decrease: number;
}

/**
 * A step on part of the parameters, run by L-BFGS after each preconditioner refresh (`blockStep`):
 * moves `x` in place and leaves the loss and gradient at the new `x` in `g`; returns the loss.
 */
export type BlockStep = (x: Float64Array, g: Float64Array, f: number, iteration: number) => BlockStepResult & { loss: number };

/** What itemSweep returns: the objective to optimise on, the block step and the item restart. */
export interface ItemSweep {
  wrap: Objective;
  step: BlockStep;
  restart(
    x: Float64Array,
    g: Float64Array,
    f: number,
    start: Float64Array,
    refresh: (y: Float64Array) => void,
    refreshes?: number,
    perRefresh?: number,
    margin?: number,
  ): { loss: number; passes: number; moved: number };
}

export interface ItemSweepOptions {
  /** Block-Newton steps per sweep (default 2). */
  rounds?: number;
  /** Passes of per-item backtracking per step (default 3). */
  backtracks?: number;
  /** Relative rounding noise of the loss (Objective.lossNoise); below 100 times it an item's decrease is read from its gradient. */
  lossNoise?: number;
  /** The first L-BFGS iteration to sweep at (default 0). */
  from?: number;
  /** Called with a line per round (benchmarks). */
  debug?: (line: string) => void;
  /** Rows and prior scope of every evaluation (as the optimizer's). */
  scope?: EvalScope;
}

/**
 * Block-coordinate Newton on the items with the LLMs and the gate globals held (paper.md,
 * "Fitting"): given them the MAP loss is a sum of one term per item (its cells and its prior; the
 * gate's b_i depends on that item's a_i, c_i only), so every item block can take its own step
 * length. Each round takes the preconditioner's item-block Gauss-Newton step
 * d_i = -H_ii^{-1} g_i (capped as in L-BFGS, ITEM_STEP_CAP) and one backtracking line search per
 * item on its own loss (Armijo, c1 = 1e-4), every trial of every item in the same pass
 * (`scope.itemLoss`); an item that finds no decrease in `backtracks` passes stays where it was.
 *
 * Why: L-BFGS moves all parameters along one direction with one step length, so a few weakly
 * determined gate items far from their optimum (the gate makes their loss far from quadratic)
 * hold the whole fit to short steps for tens of iterations. Here they converge on their own.
 *
 * `wrap` is the objective the optimizer runs on: every pass it makes also records the item losses
 * (so the sweep needs no extra pass to know them at the current point). `apply` is the
 * preconditioner's (block-diagonal: applied to a vector that is zero outside the items it gives
 * the item blocks' steps).
 */
export function itemSweep(
  obj: Objective,
  layout: LlmNrmLayout,
  itemOffsets: Int32Array,
  apply: (v: Float64Array, out: Float64Array) => void,
  opts: ItemSweepOptions = {},
): ItemSweep {
  const n = layout.size;
  const I = layout.nItems;
  const A = layout.a;
  const Cc = layout.c;
  const rounds = opts.rounds ?? 2;
  const from = opts.from ?? 0;
  const backtracks = opts.backtracks ?? 3;
  const noise = 100 * (opts.lossNoise ?? 0);
  const scope = opts.scope ?? {};
  const debug = opts.debug;
  // The item losses of the last pass and the point it was made at.
  const lastLoss = new Float64Array(I);
  const lastX = new Float64Array(n);
  let lastValid = false;
  const itemLoss = new Float64Array(I);
  const evalAt = (x: Float64Array, g: Float64Array, sc: EvalScope = {}): number => {
    const f = obj.lossAndGrad(x, g, { ...sc, itemLoss });
    lastLoss.set(itemLoss);
    lastX.set(x);
    lastValid = true;
    return f;
  };
  const wrap: Objective = { ...obj, lossAndGrad: evalAt };

  const v = new Float64Array(n);
  const d = new Float64Array(n);
  const xt = new Float64Array(n);
  const gt = new Float64Array(n);
  const L0 = new Float64Array(I);
  const slope = new Float64Array(I);
  const stepOf = new Float64Array(I);
  const accepted = new Float64Array(I);
  const pending = new Uint8Array(I);

  const itemDot = (i: number, a: Float64Array, b: Float64Array): number => {
    let s = 0;
    for (let t = itemOffsets[i]!; t < itemOffsets[i + 1]!; t++) s += a[A + t]! * b[A + t]! + a[Cc + t]! * b[Cc + t]!;
    return s;
  };
  const place = (x: Float64Array, out: Float64Array, steps: Float64Array): void => {
    out.set(x);
    for (let i = 0; i < I; i++) {
      const s = steps[i]!;
      if (s === 0) continue;
      for (let t = itemOffsets[i]!; t < itemOffsets[i + 1]!; t++) {
        out[A + t] = x[A + t]! + s * d[A + t]!;
        out[Cc + t] = x[Cc + t]! + s * d[Cc + t]!;
      }
    }
  };
  const same = (x: Float64Array): boolean => {
    if (!lastValid) return false;
    for (let t = 0; t < n; t++) if (x[t] !== lastX[t]) return false;
    return true;
  };

  const newton = (x: Float64Array, g: Float64Array, f: number, rounds: number): BlockStepResult & { loss: number } => {
    let passes = 0;
    let decrease = 0;
    let fx = f;
    if (!same(x)) {
      fx = evalAt(x, g, scope);
      passes++;
    }
    L0.set(lastLoss);
    for (let round = 0; round < rounds; round++) {
      v.fill(0);
      for (let t = 0; t < layout.sumK; t++) {
        v[A + t] = g[A + t]!;
        v[Cc + t] = g[Cc + t]!;
      }
      apply(v, d);
      for (let t = 0; t < n; t++) d[t] = -d[t]!;
      let active = 0;
      for (let i = 0; i < I; i++) {
        slope[i] = itemDot(i, g, d);
        const on = slope[i]! < 0;
        pending[i] = on ? 1 : 0;
        stepOf[i] = on ? 1 : 0;
        accepted[i] = 0;
        if (on) active++;
      }
      if (active === 0) break;
      let pred = 0;
      for (let i = 0; i < I; i++) pred += slope[i]!;
      const nAct = active;
      let lastTrialIsFinal = false;
      let ft = fx;
      for (let ls = 0; ls <= backtracks && active > 0; ls++) {
        // Accepted items at their accepted step, pending ones at their trial, the rest where they are.
        for (let i = 0; i < I; i++) if (pending[i] === 0) stepOf[i] = accepted[i]!;
        place(x, xt, stepOf);
        passes++;
        try {
          ft = evalAt(xt, gt, scope);
        } catch (e) {
          if (!(e instanceof LlmNrmError && e.code === 'NON_FINITE')) throw e;
          // Some trial overflowed: every pending item shrinks by 10 (as L-BFGS's line search does).
          for (let i = 0; i < I; i++) if (pending[i] !== 0) stepOf[i]! *= 0.1;
          lastValid = false;
          lastTrialIsFinal = false;
          continue;
        }
        active = 0;
        for (let i = 0; i < I; i++) {
          if (pending[i] === 0) continue;
          const s = stepOf[i]!;
          let df = lastLoss[i]! - L0[i]!;
          const band = noise * Math.abs(L0[i]!);
          if (band > 0) {
            const est = 0.5 * s * (slope[i]! + itemDot(i, gt, d));
            if (Math.abs(df) < band && Math.abs(est) < band) df = est;
          }
          if (df <= 1e-4 * s * slope[i]! && Number.isFinite(df)) {
            pending[i] = 0;
            accepted[i] = s;
            decrease += df;
            L0[i] = lastLoss[i]!;
          } else {
            // The minimiser of the quadratic through the item's loss, slope and trial, in [0.1, 0.5] of the step.
            const curv = df - slope[i]! * s;
            const tq = Number.isFinite(curv) && curv > 0 ? (-slope[i]! * s * s) / (2 * curv) : 0.5 * s;
            stepOf[i] = Math.min(0.5 * s, Math.max(0.1 * s, tq));
            active++;
          }
        }
        lastTrialIsFinal = active === 0;
      }
      // Items still pending stay where they were; the point moved only if some item was accepted.
      let moved = false;
      for (let i = 0; i < I; i++) {
        if (pending[i] !== 0) stepOf[i] = 0;
        else stepOf[i] = accepted[i]!;
        if (stepOf[i] !== 0) moved = true;
      }
      if (!moved) {
        // Nothing accepted: the point is x, whose gradient g still holds.
        lastValid = false;
        break;
      }
      place(x, xt, stepOf);
      x.set(xt);
      if (lastTrialIsFinal) {
        g.set(gt);
        fx = ft;
      } else {
        fx = evalAt(x, g, scope);
        passes++;
      }
      L0.set(lastLoss);
      if (debug)
        debug(
          `sweep round ${round}: active ${nAct}, slope ${pred.toExponential(3)}, decrease ${decrease.toExponential(3)}, passes ${passes}, pending ${pending.reduce((a, b) => a + b, 0)}`,
        );
    }
    return { loss: fx, passes, decrease };
  };
  const step: BlockStep = (x, g, f, iteration) => (iteration < from ? { loss: f, passes: 0, decrease: 0 } : newton(x, g, f, rounds));

  const yv = new Float64Array(n);
  const gy = new Float64Array(n);
  const Lx = new Float64Array(I);
  /**
   * Item multi-start: every item fitted again from `start`'s item values with the LLMs and globals
   * held at x (`refreshes` x `rounds` block-Newton rounds, `refresh` re-linearising the item
   * blocks), then, item by item, the lower of its two losses kept (by more than `margin` nats).
   * Returns the passes spent (each refresh counted as one) and the items moved; x, g hold the
   * point and its gradient after.
   */
  const restart = (
    x: Float64Array,
    g: Float64Array,
    f: number,
    start: Float64Array,
    refresh: (y: Float64Array) => void,
    refreshes = 3,
    perRefresh = 2,
    margin = 1e-3,
  ): { loss: number; passes: number; moved: number } => {
    let passes = 0;
    let fx = f;
    if (!same(x)) {
      fx = evalAt(x, g, scope);
      passes++;
    }
    Lx.set(lastLoss);
    yv.set(x);
    for (let t = 0; t < layout.sumK; t++) {
      yv[A + t] = start[A + t]!;
      yv[Cc + t] = start[Cc + t]!;
    }
    let fy = evalAt(yv, gy, scope);
    passes++;
    for (let r = 0; r < refreshes; r++) {
      refresh(yv);
      passes++;
      const res = newton(yv, gy, fy, perRefresh);
      passes += res.passes;
      fy = res.loss;
    }
    if (!same(yv)) {
      // The item losses at yv (the last Newton round ended without moving).
      evalAt(yv, gy, scope);
      passes++;
    }
    let moved = 0;
    for (let i = 0; i < I; i++) {
      if (!(lastLoss[i]! < Lx[i]! - margin)) continue;
      moved++;
      for (let t = itemOffsets[i]!; t < itemOffsets[i + 1]!; t++) {
        x[A + t] = yv[A + t]!;
        x[Cc + t] = yv[Cc + t]!;
      }
    }
    if (moved > 0) {
      fx = evalAt(x, g, scope);
      passes++;
    } else if (!same(x)) {
      // x, g, fx are unchanged; the cache no longer holds x.
      lastValid = false;
    }
    return { loss: fx, passes, moved };
  };
  return { wrap, step, restart };
}
