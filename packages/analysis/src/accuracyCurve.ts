import { LlmNrmError } from '@llm-nrm/core';

/** Expected full-bank accuracy as a function of theta, on a grid (DESIGN.md, use 4). */
export interface AccuracyCurve {
  /** Theta grid, increasing. */
  grid: number[];
  /** Accuracy at each grid point, non-decreasing, in [0, 1]. */
  accuracy: number[];
  /** Root mean square of the calibrated LLMs' accuracies around the curve. */
  residualSd: number;
  /** How many LLMs the curve rests on. */
  llms: number;
}

export interface AccuracyCurveOptions {
  /** Grid (default -4..4 in steps of 0.1). */
  grid?: number[];
  /** Gaussian kernel bandwidth (default Silverman's 1.06 sd n^-1/5, at least 0.15). */
  bandwidth?: number;
}

/** Pool-adjacent-violators: the non-decreasing sequence closest to y in least squares. */
function isotonic(y: number[]): number[] {
  const val: number[] = [];
  const cnt: number[] = [];
  for (const v of y) {
    val.push(v);
    cnt.push(1);
    while (val.length > 1 && val[val.length - 2]! > val[val.length - 1]!) {
      const n = cnt.pop()! + cnt[cnt.length - 1]!;
      const m = (val.pop()! * (n - cnt[cnt.length - 1]!) + val[val.length - 1]! * cnt[cnt.length - 1]!) / n;
      val[val.length - 1] = m;
      cnt[cnt.length - 1] = n;
    }
  }
  const out: number[] = [];
  val.forEach((v, i) => {
    for (let t = 0; t < cnt[i]!; t++) out.push(v);
  });
  return out;
}

/** Linear interpolation of the curve at theta (flat beyond the grid). */
export function accuracyAt(curve: Pick<AccuracyCurve, 'grid' | 'accuracy'>, theta: number): number {
  const g = curve.grid;
  const a = curve.accuracy;
  if (theta <= g[0]!) return a[0]!;
  if (theta >= g[g.length - 1]!) return a[a.length - 1]!;
  let lo = 0;
  let hi = g.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (g[mid]! <= theta) lo = mid;
    else hi = mid;
  }
  const t = (theta - g[lo]!) / (g[hi]! - g[lo]!);
  return a[lo]! + t * (a[hi]! - a[lo]!);
}

/** The curve's Gaussian-kernel bandwidth over thetas: Silverman's 1.06 sd n^-1/5, at least 0.15. */
export function kernelBandwidth(thetas: readonly number[]): number {
  const n = thetas.length;
  const mean = thetas.reduce((s, t) => s + t, 0) / n;
  const sd = Math.sqrt(thetas.reduce((s, t) => s + (t - mean) ** 2, 0) / Math.max(1, n - 1));
  return Math.max(0.15, 1.06 * sd * n ** -0.2);
}

/**
 * The calibrated LLMs' observed accuracy regressed on their theta: a Gaussian-kernel
 * (Nadaraya-Watson) smooth made non-decreasing by isotonic regression. It predicts a new LLM's
 * full-bank accuracy from its theta without the model's own accuracy formula (which, for soft
 * responses, is not the argmax accuracy that leaderboards report), and its residual SD says how far
 * LLMs of one ability scatter around it.
 */
export function accuracyCurve(thetas: ArrayLike<number>, accuracies: ArrayLike<number>, options: AccuracyCurveOptions = {}): AccuracyCurve {
  const pts: [number, number][] = [];
  for (let j = 0; j < thetas.length; j++) if (Number.isFinite(thetas[j]!) && Number.isFinite(accuracies[j]!)) pts.push([thetas[j]!, accuracies[j]!]);
  const n = pts.length;
  if (n < 2) throw new LlmNrmError('INVALID_OPTION', `an accuracy curve needs at least 2 calibrated LLMs with accuracies, got ${n}`);
  const grid = options.grid ?? Array.from({ length: 81 }, (_, t) => Math.round((-4 + 0.1 * t) * 10) / 10);
  const h = options.bandwidth ?? kernelBandwidth(pts.map((p) => p[0]));
  const smooth = grid.map((g) => {
    let w = 0;
    let s = 0;
    for (const [t, a] of pts) {
      const k = Math.exp(-0.5 * ((g - t) / h) ** 2);
      w += k;
      s += k * a;
    }
    // Far outside the LLMs every kernel weight underflows: hold the nearest LLM's accuracy.
    if (!(w > 1e-300)) return pts.reduce((b, p) => (Math.abs(p[0] - g) < Math.abs(b[0] - g) ? p : b))[1];
    return s / w;
  });
  const accuracy = isotonic(smooth).map((v) => Math.min(1, Math.max(0, v)));
  const curve = { grid, accuracy };
  const residualSd = Math.sqrt(pts.reduce((s, [t, a]) => s + (a - accuracyAt(curve, t)) ** 2, 0) / n);
  return { grid, accuracy, residualSd, llms: n };
}

/**
 * Predicted accuracy at theta with a 90% interval: the curve's slope carries the SE of theta, the
 * residual SD the spread of LLMs of one ability; clipped to [0, 1].
 */
export function predictAccuracy(curve: AccuracyCurve, theta: number, se: number): { accuracy: number; low: number; high: number } {
  const mid = accuracyAt(curve, theta);
  const s = Number.isFinite(se) ? se : 4;
  const spread = (accuracyAt(curve, theta + s) - accuracyAt(curve, theta - s)) / 2;
  const half = 1.6449 * Math.sqrt(spread * spread + curve.residualSd * curve.residualSd);
  return { accuracy: mid, low: Math.max(0, mid - half), high: Math.min(1, mid + half) };
}
