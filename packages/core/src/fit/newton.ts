import { LlmNrmError } from '../errors.js';
import type { Objective } from '../objective.js';
import type { OptimizeOptions, OptimizeResult } from './optimizer.js';

/**
 * A family's full second-order model of its objective, for the damped Newton fitter below. The
 * family builds it (ModelFamily.newton) where the whole Hessian can be solved cheaply, e.g. the
 * binary families' arrowhead (item blocks, a diagonal over the thetas, item-theta cross terms).
 */
export interface NewtonModel {
  /** The curvature at x (the objective's coordinates): one pass over the cells. */
  at(x: Float64Array): NewtonPoint;
}

/** The quadratic model at one point. */
export interface NewtonPoint {
  /**
   * The step d solving (H + lambda M) d = -g (M: a positive diagonal scaling, the Fisher diagonal),
   * on the tangent space of any constraint the objective's coordinates carry; writes x + d (mapped
   * back to the objective's coordinates) to xNew. `decrement`: -g'd = d'(H + lambda M)d, the
   * squared distance to the model's minimum in units of standard error (at lambda 0);
   * `predicted`: the model's decrease of the loss, -(g'd + d'Hd / 2). null: H + lambda M is not
   * positive definite.
   */
  step(lambda: number, xNew: Float64Array): { decrement: number; predicted: number } | null;
}

/** Below this damping the damped decrement is taken as the Newton decrement for the stop. */
const DAMPING_FOR_STOP = 1e-3;

/**
 * Levenberg-Marquardt damped Newton (Nocedal and Wright, sec. 10.3; Nielsen's damping update):
 * each iteration builds the family's full curvature once, solves for the damped step, and accepts it
 * when the loss falls (gain ratio rho = actual / predicted decrease > 1e-4), shrinking the damping by
 * max(1/3, 1 - (2 rho - 1)^3); a rejected step (or an indefinite H + lambda M) doubles the growth
 * of the damping. Stops once the Newton decrement sqrt(-g'd), the estimated distance to the optimum
 * in standard errors as L-BFGS's `distance`, is below `distanceTolerance` with the damping small,
 * or when the predicted decrease is below the loss's float precision. The loss comes from the
 * objective (the engine's), the curvature and gradient in the model from the family.
 */
export function minimizeNewton(obj: Objective, x0: Float64Array, model: NewtonModel, opts: OptimizeOptions = {}): OptimizeResult {
  const now = opts.now ?? Date.now;
  const t0 = now();
  const n = x0.length;
  const maxIt = opts.maxIterations ?? 200;
  const dtol = opts.distanceTolerance ?? 0.01;
  let x = Float64Array.from(x0);
  let xNew = new Float64Array(n);
  const g = new Float64Array(n);
  let passes = 0;
  const evalAt = (px: Float64Array): number => {
    passes++;
    return obj.lossAndGrad(px, g, opts.scope);
  };
  let f = evalAt(x);
  const trace = [f];
  const traceSeconds = [(now() - t0) / 1000];
  const tracePasses = [passes];
  let lastReport = now();
  let lambda = 1;
  let nu = 2;
  let it = 0;
  let reason = 'max-iterations';
  let converged = false;
  let distance = NaN;
  outer: for (; it < maxIt; it++) {
    if (opts.targetLoss !== undefined && f <= opts.targetLoss) {
      reason = 'target';
      converged = true;
      break;
    }
    const point = model.at(x);
    passes++;
    let accepted = false;
    for (let tries = 0; tries < 40; tries++) {
      const s = point.step(lambda, xNew);
      if (s === null) {
        lambda *= nu;
        nu *= 2;
        continue;
      }
      distance = Math.sqrt(Math.max(0, s.decrement));
      if (lambda <= DAMPING_FOR_STOP && distance < dtol) {
        reason = 'distance';
        converged = true;
        break outer;
      }
      // Nothing left that the loss can resolve.
      if (s.predicted <= 1e-14 * Math.abs(f)) {
        reason = 'precision';
        converged = true;
        break outer;
      }
      let fNew = NaN;
      try {
        fNew = evalAt(xNew);
      } catch (e) {
        if (!(e instanceof LlmNrmError && e.code === 'NON_FINITE')) throw e;
      }
      const rho = (f - fNew) / s.predicted;
      if (rho > 1e-4) {
        lambda *= Math.max(1 / 3, 1 - (2 * rho - 1) ** 3);
        lambda = Math.max(lambda, 1e-12);
        nu = 2;
        [x, xNew] = [xNew, x];
        f = fNew;
        accepted = true;
        break;
      }
      lambda *= nu;
      nu *= 2;
    }
    if (!accepted) {
      reason = 'line-search';
      converged = true;
      break;
    }
    trace.push(f);
    traceSeconds.push((now() - t0) / 1000);
    tracePasses.push(passes);
    if (opts.onProgress && now() - lastReport >= 1000) {
      lastReport = now();
      opts.onProgress({ iteration: it + 1, passes, loss: f, seconds: (lastReport - t0) / 1000 });
    }
  }
  return { x, loss: f, iterations: it, passes, converged, reason, distance, trace, traceSeconds, tracePasses, seconds: (now() - t0) / 1000 };
}
