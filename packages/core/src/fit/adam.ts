import type { Objective } from '../model/objective.js';
import type { OptimizeOptions, OptimizeResult } from './optimizer.js';

/**
 * Full-batch Adam (Kingma and Ba 2015), the paper's recipe: lr 0.05, betas (0.9, 0.999),
 * eps 1e-8, 2,500 steps on the summed MAP objective. Reports converged = true when it ran its steps
 * without the loss rising over the last 100 of them.
 */
export function minimizeAdam(obj: Objective, x0: Float64Array, opts: OptimizeOptions = {}): OptimizeResult {
  const now = opts.now ?? Date.now;
  const t0 = now();
  const n = x0.length;
  const steps = opts.steps ?? 2500;
  const lr = opts.lr ?? 0.05;
  const b1 = 0.9;
  const b2 = 0.999;
  const eps = 1e-8;
  const x = Float64Array.from(x0);
  const g = new Float64Array(n);
  const m1 = new Float64Array(n);
  const m2 = new Float64Array(n);
  const trace: number[] = [];
  const traceSeconds: number[] = [];
  const tracePasses: number[] = [];
  let lastReport = now();
  let f: number;
  let step = 0;
  for (; step < steps; step++) {
    f = obj.lossAndGrad(x, g);
    trace.push(f);
    traceSeconds.push((now() - t0) / 1000);
    tracePasses.push(step + 1);
    const c1 = 1 - Math.pow(b1, step + 1);
    const c2 = 1 - Math.pow(b2, step + 1);
    for (let t = 0; t < n; t++) {
      const gt = g[t]!;
      m1[t] = b1 * m1[t]! + (1 - b1) * gt;
      m2[t] = b2 * m2[t]! + (1 - b2) * gt * gt;
      x[t]! -= (lr * (m1[t]! / c1)) / (Math.sqrt(m2[t]! / c2) + eps);
    }
    if (opts.onProgress && now() - lastReport >= 1000) {
      lastReport = now();
      opts.onProgress({ iteration: step + 1, passes: step + 1, loss: f, seconds: (lastReport - t0) / 1000 });
    }
  }
  // The loss at the final parameters (one more pass), so results compare like for like.
  f = obj.lossAndGrad(x, g);
  const passes = step + 1;
  trace.push(f);
  traceSeconds.push((now() - t0) / 1000);
  tracePasses.push(passes);
  const tail = trace.slice(-100);
  const converged = tail[tail.length - 1]! <= Math.min(...tail) + 1e-6 * Math.abs(f);
  return { x, loss: f, iterations: step, passes, converged, reason: 'steps', trace, traceSeconds, tracePasses, seconds: (now() - t0) / 1000 };
}
