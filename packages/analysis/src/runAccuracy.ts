import { LlmNrmError } from '@llm-nrm/core';
import { accuracyAt, accuracyCurve, kernelBandwidth, type AccuracyCurve } from './accuracyCurve.js';

/**
 * The full-bank accuracy of a tiny run (issue 30), one rule for `llm-nrm score`, the site and the
 * exported lm-eval aggregation. Two predictions, blended:
 *
 * - own: the run's argmax accuracy a on the n tiny items, corrected for how much harder or easier
 *   those items are than the bank. Above chance c (the mean 1/K), g = (a - c) / (1 - c) is moved by
 *   one logit shift, the calibrated LLMs' mean of logit g_full - logit g_tiny (shrunk toward 0, no
 *   shift, by the fleet's size): A = c_full + (1 - c_full) sigmoid(logit g + shift). At or below
 *   chance the run's accuracy maps linearly onto the bank's chance level, so a random-answer run is
 *   predicted at chance and the prediction rises with a everywhere.
 * - curve: F(theta), the calibrated LLMs' full-bank accuracy against theta (`accuracyCurve`), which
 *   reads the soft option probabilities a bare accuracy ignores.
 *
 * The blend weight is the leave-one-LLM-out optimum of the two over the calibrated LLMs scored as
 * tiny runs (clamped to [0, 1]: never a negative weight on the run's own accuracy, the failure of
 * the earlier least-squares estimator on NAEP, where Qwen2.5-0.5B at 46.6% was predicted 79.1%),
 * shrunk toward the run's own prediction when the fleet is small, and zero where the run's accuracy
 * or sharpness lies outside the fleet's (the curve does not extrapolate: a random-answer run has a
 * mid-fleet theta at a tiny sharpness; the sharpness range reaches one unit lower, since the fleet's
 * is in-sample). The prediction never leaves the run's own 99% range (its
 * accuracy's Wilson interval through the same map); the 90% interval is the blend's leave-one-out
 * residual SD, at least the run's own binomial SD.
 *
 * Then a local correction (`local`): where the calibrated LLMs are many, one blend weight and one SD
 * miss by ability (on a simulated 189-LLM fleet LLMs below 30% accuracy were predicted within 1.7
 * points, those above 2.5-4.7 points low: their tiny accuracy saturates and the curve at a tiny-run
 * theta reads low). Each prediction is moved by the calibrated LLMs' leave-one-out errors of the blend
 * near the run's tiny-run theta (a Gaussian kernel, `accuracyCurve`'s bandwidth), and its interval
 * takes their local spread; both shrunk toward none and the global SD by n_eff / (n_eff +
 * LOCAL_PRIOR_LLMS), n_eff the kernel's effective number of LLMs, so a small fleet keeps the global
 * rule; the SD is never below the global one. The correction is added after the run's own 99% range
 * (it measures the error of the map that range goes through), and its interval is not cut by that
 * range. Rows of only hard answers are left out of it (their errors did not transfer to held-out
 * LLMs on a simulated all-hard fleet: analysis BENCHMARKS.md).
 */
export interface RunAccuracyModel {
  /** Mean 1/K over the tiny items (chance accuracy of the run). */
  chanceTiny: number;
  /** Mean 1/K over the bank's presentations (chance full-bank accuracy). */
  chanceFull: number;
  /** Logit shift of the chance-corrected accuracy from the tiny items to the bank (shrunk). */
  shift: number;
  /** Weight of the curve F(theta) in the blend, in [0, 1]. */
  curveWeight: number;
  /** Leave-one-LLM-out RMS error of the blend over the calibrated LLMs (the 90% interval's scale). */
  residualSd: number;
  /** Tiny items a run answers. */
  items: number;
  /**
   * The curve's support: the calibrated LLMs' range of tiny accuracy, and of log sharpness widened
   * below by SHARPNESS_SUPPORT_MARGIN (packages published before 2026-12-07 hold the bare range).
   */
  tinyAccuracyRange: [number, number];
  logSharpnessRange: [number, number];
  /** Calibrated LLMs it rests on. */
  llms: number;
  /**
   * The local correction on the accuracy curve's grid: `bias` added to the blend at the run's theta,
   * `sd` the 90% interval's scale there (linear interpolation, flat beyond the grid). Absent (packages
   * before 2026-12-07, or fewer than 2 calibrated LLMs with soft answers): none, `residualSd` alone.
   */
  local?: { bias: number[]; sd: number[] };
}

/** One calibrated LLM scored as a tiny run of the package, with its full-bank thetas and accuracy. */
export interface RunAccuracyRow {
  /** Its theta on the full bank (the calibration's): the curve's abscissa. */
  fullTheta: number;
  /** Its tiny-run scores: theta and log sharpness. */
  theta: number;
  logSharpness: number;
  tinyAccuracy: number;
  fullAccuracy: number;
  /** Every answer of its tiny run is hard (sharpness held at 1): left out of the local correction. */
  hard?: boolean;
}

/** A run's features: its tiny-run theta and log sharpness and its accuracy on the tiny items. */
export type RunFeatures = Pick<RunAccuracyRow, 'theta' | 'logSharpness' | 'tinyAccuracy'>;

export interface RunAccuracyPrediction {
  accuracy: number;
  /** 90% interval. */
  low: number;
  high: number;
}

/** SD of the prior on the logit shift: half a logit (a package's items rarely move accuracy further). */
const SHIFT_PRIOR_SD = 0.5;
/** Calibrated LLMs at which the curve's weight is halved (shrinkage toward the run's own accuracy). */
const CURVE_HALF_FLEET = 5;
/**
 * How far below the calibrated LLMs' tiny-run log sharpness the curve is still used. Their
 * sharpness is in-sample (the items were fitted and chosen with their answers), so a new LLM's
 * falls below their range (on a simulated hard fleet -0.55 against 0.23 to 0.84), which switched
 * the curve off and left the strongest LLMs to the one logit shift, over-predicted by 12-25 points.
 * One unit (a factor e) brought the worst error on NAEP / the soft / the hard fleet from 7.1 / 17.4
 * / 25.1 to 4.2 / 7.6 / 11.7 points (analysis BENCHMARKS.md); a random-answer run's sharpness lies
 * far lower still (log sharpness about -3), so it stays off the curve.
 */
const SHARPNESS_SUPPORT_MARGIN = 1;
/**
 * Prior weight, in calibrated LLMs, of no local correction: at a theta where the kernel's effective
 * number of LLMs is n_eff, the correction counts n_eff / (n_eff + 10). Measured (analysis
 * BENCHMARKS.md): 10 against 20 and unshrunk; unshrunk NAEP's 17 rows gave a worst error of 14.9 points.
 */
const LOCAL_PRIOR_LLMS = 10;
const Z90 = 1.6449;
const Z99 = 2.5758;

const logit = (p: number) => Math.log(p / (1 - p));
const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const clip01 = (v: number) => Math.min(1, Math.max(0, v));

/** The chance-corrected share g in (0, 1), kept half an item from 0 and 1 so its logit is finite. */
function corrected(a: number, chance: number, n: number): number {
  const g = (a - chance) / (1 - chance);
  const eps = 0.5 / Math.max(1, n);
  return Math.min(1 - eps, Math.max(eps, g));
}

/** The own prediction: the run's tiny accuracy a moved onto the bank (monotone in a). */
export function ownAccuracy(m: Pick<RunAccuracyModel, 'chanceTiny' | 'chanceFull' | 'shift' | 'items'>, a: number): number {
  const { chanceTiny: ct, chanceFull: cf } = m;
  // At or below chance: linear onto the bank's chance level (slope (1 - cf) / (1 - ct)).
  if (a <= ct) return clip01(cf + ((a - ct) * (1 - cf)) / (1 - ct));
  const eps = 0.5 / Math.max(1, m.items);
  // Between chance and the first half item above it the map is linear up to the logit's start, so it stays continuous and increasing.
  const g = (a - ct) / (1 - ct);
  const at = (h: number) => cf + (1 - cf) * sigmoid(logit(h) + m.shift);
  if (g < eps) return clip01(cf + ((at(eps) - cf) * g) / eps);
  return clip01(at(Math.min(1 - eps, g)));
}

/** Mean logit shift of the rows, shrunk toward 0 under an N(0, SHIFT_PRIOR_SD^2) prior. */
function shiftOf(rows: readonly RunAccuracyRow[], ct: number, cf: number, n: number): number {
  const d = rows.map((r) => logit(corrected(r.fullAccuracy, cf, 1e4)) - logit(corrected(r.tinyAccuracy, ct, n)));
  if (d.length === 0) return 0;
  const mean = d.reduce((s, v) => s + v, 0) / d.length;
  const v = d.length > 1 ? d.reduce((s, x) => s + (x - mean) ** 2, 0) / (d.length - 1) : SHIFT_PRIOR_SD ** 2;
  const prior = SHIFT_PRIOR_SD ** 2;
  return (mean * prior) / (prior + v / d.length);
}

/**
 * The model from the calibrated LLMs scored as tiny runs of the package. `chanceTiny` and
 * `chanceFull` are the mean 1/K over the tiny items and over the bank's presentations, `items` the
 * tiny items a run answers.
 */
export function fitRunAccuracy(
  rows: readonly RunAccuracyRow[],
  options: { chanceTiny: number; chanceFull: number; items: number },
): RunAccuracyModel & { curve: AccuracyCurve } {
  const ok = rows.filter((r) => [r.fullTheta, r.theta, r.logSharpness, r.tinyAccuracy, r.fullAccuracy].every(Number.isFinite));
  const n = ok.length;
  if (n < 2) throw new LlmNrmError('INVALID_OPTION', `a run-accuracy model needs at least 2 calibrated LLMs with accuracies, got ${n}`);
  const { chanceTiny: ct, chanceFull: cf, items } = options;
  if (!(ct > 0 && ct < 1 && cf > 0 && cf < 1 && items >= 1)) {
    throw new LlmNrmError('INVALID_OPTION', `chance levels must be in (0, 1) and items >= 1, got ${ct}, ${cf}, ${items}`);
  }
  const curve = accuracyCurve(
    ok.map((r) => r.fullTheta),
    ok.map((r) => r.fullAccuracy),
  );
  const shift = shiftOf(ok, ct, cf, items);
  // Leave-one-LLM-out errors of the own prediction and of the curve; each row's curve without it (its
  // leave-one-out curve) serves the blend weight and the local correction.
  const rests = ok.map((_, i) => ok.filter((_, t) => t !== i));
  const looCurves = rests.map((rest) =>
    rest.length >= 2
      ? accuracyCurve(
          rest.map((x) => x.fullTheta),
          rest.map((x) => x.fullAccuracy),
        )
      : curve,
  );
  const eOwn = ok.map(
    (r, i) => r.fullAccuracy - ownAccuracy({ chanceTiny: ct, chanceFull: cf, items, shift: shiftOf(rests[i]!, ct, cf, items) }, r.tinyAccuracy),
  );
  const eCurve = ok.map((r, i) => r.fullAccuracy - accuracyAt(looCurves[i]!, r.theta));
  const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
  const vo = mean(eOwn.map((e) => e * e));
  const vc = mean(eCurve.map((e) => e * e));
  const cov = mean(eOwn.map((e, i) => e * eCurve[i]!));
  // The variance-minimising weight of two correlated predictions, clamped, then shrunk by fleet size.
  const den = vo + vc - 2 * cov;
  const wRaw = den > 1e-12 ? Math.min(1, Math.max(0, (vo - cov) / den)) : 0;
  const curveWeight = (wRaw * n) / (n + CURVE_HALF_FLEET);
  const blended = eOwn.map((e, i) => (1 - curveWeight) * e + curveWeight * eCurve[i]!);
  const residualSd = Math.sqrt(mean(blended.map((e) => e * e)));
  const range = (f: (r: RunAccuracyRow) => number): [number, number] => [Math.min(...ok.map(f)), Math.max(...ok.map(f))];
  const [sharpLow, sharpHigh] = range((r) => r.logSharpness);
  const model: RunAccuracyModel = {
    chanceTiny: ct,
    chanceFull: cf,
    shift,
    curveWeight,
    residualSd,
    items,
    tinyAccuracyRange: range((r) => r.tinyAccuracy),
    logSharpnessRange: [sharpLow - SHARPNESS_SUPPORT_MARGIN, sharpHigh],
    llms: n,
  };
  const local = localCorrection(model, ok, looCurves, curve.grid);
  return { ...model, ...(local ? { local } : {}), curve };
}

/**
 * The local correction (see `RunAccuracyModel`): each soft row's leave-one-out error of the blend
 * (the curve refitted without it, as `predictRunAccuracy` forms the prediction), smoothed over the
 * rows' tiny-run thetas onto the curve's grid.
 */
function localCorrection(
  m: RunAccuracyModel,
  rows: readonly RunAccuracyRow[],
  looCurves: readonly AccuracyCurve[],
  grid: readonly number[],
): RunAccuracyModel['local'] {
  const soft = rows.flatMap((r, i) => (r.hard === true ? [] : [{ r, c: looCurves[i]! }]));
  if (soft.length < 2) return undefined;
  const errs = soft.map(({ r, c }) => r.fullAccuracy - predictRunAccuracy(m, c, r).accuracy);
  const th = soft.map(({ r }) => r.theta);
  const h = kernelBandwidth(th);
  const globalSd = Math.max(m.residualSd, Math.sqrt(errs.reduce((a, e) => a + e * e, 0) / errs.length));
  const bias: number[] = [];
  const sds: number[] = [];
  for (const g of grid) {
    let w = 0;
    let w2 = 0;
    let s1 = 0;
    let s2 = 0;
    th.forEach((t, i) => {
      const k = Math.exp(-0.5 * ((g - t) / h) ** 2);
      w += k;
      w2 += k * k;
      s1 += k * errs[i]!;
      s2 += k * errs[i]! * errs[i]!;
    });
    if (!(w > 1e-12)) {
      bias.push(0);
      sds.push(globalSd);
      continue;
    }
    const nEff = (w * w) / w2;
    const f = nEff / (nEff + LOCAL_PRIOR_LLMS);
    const b = s1 / w;
    const v = Math.max(0, s2 / w - b * b);
    bias.push(f * b);
    sds.push(Math.max(globalSd, Math.sqrt(f * v + (1 - f) * globalSd * globalSd)));
  }
  return { bias, sd: sds };
}

/** The prediction for a run, with its 90% interval; `curve` is F on its grid (the package's `accuracy`). */
export function predictRunAccuracy(m: RunAccuracyModel, curve: Pick<AccuracyCurve, 'grid' | 'accuracy'>, run: RunFeatures): RunAccuracyPrediction {
  const a = run.tinyAccuracy;
  if (!Number.isFinite(a)) throw new LlmNrmError('INVALID_OPTION', 'a run-accuracy prediction needs the run’s accuracy on the tiny items');
  const own = ownAccuracy(m, a);
  // The run's own 99% range: its accuracy's Wilson interval at n items through the same map.
  const n = m.items;
  const wilson = (z: number): [number, number] => {
    const c = a * n;
    const mid = (c + (z * z) / 2) / (n + z * z);
    const half = ((z * Math.sqrt(n)) / (n + z * z)) * Math.sqrt(Math.max(0, a * (1 - a) + (z * z) / (4 * n)));
    return [clip01(mid - half), clip01(mid + half)];
  };
  const [lo99, hi99] = wilson(Z99).map((v) => ownAccuracy(m, v)) as [number, number];
  // The curve only inside the fleet's support (its tiny accuracy and sharpness).
  const inside =
    Number.isFinite(run.theta) &&
    Number.isFinite(run.logSharpness) &&
    a >= m.tinyAccuracyRange[0] &&
    a <= m.tinyAccuracyRange[1] &&
    run.logSharpness >= m.logSharpnessRange[0] &&
    run.logSharpness <= m.logSharpnessRange[1];
  const w = inside ? m.curveWeight : 0;
  // The local correction at the run's theta, inside the support only: it corrects the rows' blend, and
  // outside it a run has its own accuracy alone (a random-answer run stays at chance).
  const local = inside && m.local !== undefined ? m.local : undefined;
  const bias = local ? accuracyAt({ grid: curve.grid, accuracy: local.bias }, run.theta) : 0;
  const sd = local ? accuracyAt({ grid: curve.grid, accuracy: local.sd }, run.theta) : m.residualSd;
  // The correction measures the error of the whole prediction, the map onto the bank included, so the
  // run's own range moves with it: at the top, where tiny accuracy saturates, one shift reads low and so
  // does the range through it (kept inside the unmoved range, and the interval cut by it, the
  // correction lost most of its gain on a simulated 189-LLM fleet: analysis BENCHMARKS.md).
  const mid = clip01(Math.min(hi99, Math.max(lo99, (1 - w) * own + w * accuracyAt(curve, run.theta))) + bias);
  // The 90% interval: the blend's leave-one-out SD (local where the model has it), or the run's own (Wilson 90% through the map) where wider.
  const [lo90, hi90] = wilson(Z90).map((v) => ownAccuracy(m, v)) as [number, number];
  const half = Math.max(Z90 * sd, ((hi90 - lo90) / 2) * (1 - w));
  if (local) return { accuracy: mid, low: clip01(mid - half), high: clip01(mid + half) };
  return { accuracy: mid, low: clip01(Math.max(mid - half, lo99)), high: clip01(Math.min(mid + half, hi99)) };
}
