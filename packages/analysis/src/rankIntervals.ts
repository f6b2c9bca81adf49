import { LlmNrmError, randomSource } from '@llm-nrm/core';

export interface RankIntervalOptions {
  /** Monte Carlo draws (default 2000). */
  draws?: number;
  /** Seed of the draws (default 1). */
  seed?: number;
  /** Coverage of the interval and the tie groups' z (default RANK_LEVEL, 0.90: the one level of `score`, `leaderboard` and the site). */
  level?: number;
}

/**
 * The one level of every rank interval and tie group (score, leaderboard, site): 90%, the level of
 * `score`'s theta interval (theta +- 1.645 SE).
 */
export const RANK_LEVEL = 0.9;

/** Rank intervals of a leaderboard (rank 1 = highest theta). */
export interface RankIntervals {
  /** Rank of each LLM by its point estimate (1 = best; equal thetas share the lower rank). */
  rank: Int32Array;
  /** Lower and upper end of the central `level` interval of its rank over the draws (1 = best). */
  lo: Int32Array;
  hi: Int32Array;
  /**
   * Tie group of each LLM (1, 2, ... from the top): walking down the board, an LLM joins the group of
   * the one heading it unless its theta is below the head's by more than z sqrt(se_head^2 + se^2).
   */
  group: Int32Array;
}

/** Inverse standard normal CDF (Acklam's rational approximation, |error| < 1.2e-9). */
function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  if (p > 1 - lo) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

/** The draws and level of `options` with their defaults, checked (errors name the caller). */
function drawOptions(caller: string, options: RankIntervalOptions): { draws: number; level: number } {
  const draws = options.draws ?? 2000;
  const level = options.level ?? RANK_LEVEL;
  if (!(Number.isInteger(draws) && draws >= 1)) throw new LlmNrmError('INVALID_OPTION', `${caller}: invalid draws ${draws} (a positive integer)`);
  if (!(level > 0 && level < 1)) throw new LlmNrmError('INVALID_OPTION', `${caller}: invalid level ${level} (between 0 and 1)`);
  return { draws, level };
}

/** The draws' SDs: an SE that is not finite (or not positive) counts as 0. */
function drawSds(se: ArrayLike<number | null>): Float64Array {
  return Float64Array.from({ length: se.length }, (_, j) => {
    const s = se[j];
    return typeof s === 'number' && Number.isFinite(s) && s > 0 ? s : 0;
  });
}

/** Calls `each(v)` with every draw v_j = theta_j + sd_j z (z standard normal, LLM by LLM, draw by draw). */
function eachDraw(theta: ArrayLike<number>, sd: Float64Array, draws: number, seed: number, each: (v: Float64Array) => void): void {
  const rnd = randomSource(seed);
  const v = new Float64Array(theta.length);
  for (let d = 0; d < draws; d++) {
    for (let j = 0; j < v.length; j++) v[j] = theta[j]! + sd[j]! * rnd.normal();
    each(v);
  }
}

/** The central `level` range [lo, hi] of ranks (1 = best) from counts[r] = draws at rank r + 1. */
function centralRanks(counts: ArrayLike<number>, draws: number, level: number): [number, number] {
  // Draws left out in each tail, rounded off its floating-point noise: at level 0.9 and 2,000 draws,
  // (1 - 0.9) / 2 * 2000 is 99.99999999999997, which left out 100 draws from one end of an interval
  // and 99 from the other, so two LLMs swapping places in exactly 100 draws got "17-17" and "17-18".
  const tail = Math.round(((1 - level) / 2) * draws * 1e9) / 1e9;
  let cum = 0;
  let l = -1;
  let h = counts.length - 1;
  for (let r = 0; r < counts.length; r++) {
    cum += counts[r]!;
    if (l < 0 && cum > tail) l = r;
    if (cum >= draws - tail) {
      h = r;
      break;
    }
  }
  return [l + 1, h + 1];
}

/**
 * Rank intervals by Monte Carlo from the uncertainty of differences: each draw sets
 * theta_j* ~ N(theta_j, se_j^2) independently and ranks the draws, so Var(theta_i* - theta_j*) =
 * se_i^2 + se_j^2; the interval is the central `level` range of each LLM's ranks. A ranking is
 * invariant to an affine change of the scale, so a common scale error must not enter: core's SEs
 * (thetaStandardErrors) carry none, each LLM's block being profiled with the other LLMs' thetas held
 * (measured in BENCHMARKS.md "Rank intervals from differences": over replicate fits of a seeded
 * 25-LLM soft fleet the standardised scale's stretch varies by SD 0.0005 and affine alignment removes
 * nothing from any LLM's spread). An SE that is not finite counts as 0 (the LLM keeps its theta in
 * every draw). Deterministic for a seed.
 */
export function rankIntervals(theta: ArrayLike<number>, se: ArrayLike<number | null>, options: RankIntervalOptions = {}): RankIntervals {
  const n = theta.length;
  if (se.length !== n) throw new LlmNrmError('INVALID_OPTION', `rankIntervals: ${n} thetas but ${se.length} standard errors`);
  const { draws, level } = drawOptions('rankIntervals', options);
  const sd = drawSds(se);
  const rank = new Int32Array(n);
  for (let j = 0; j < n; j++) {
    let r = 1;
    for (let k = 0; k < n; k++) if (theta[k]! > theta[j]!) r++;
    rank[j] = r;
  }
  // counts[j * n + r] = draws in which LLM j had rank r + 1.
  const counts = new Int32Array(n * n);
  const order = Array.from({ length: n }, (_, j) => j);
  eachDraw(theta, sd, draws, options.seed ?? 1, (v) => {
    order.sort((a, b) => v[b]! - v[a]!);
    for (let r = 0; r < n; r++) counts[order[r]! * n + r]!++;
  });
  const lo = new Int32Array(n);
  const hi = new Int32Array(n);
  for (let j = 0; j < n; j++) [lo[j], hi[j]] = centralRanks(counts.subarray(j * n, (j + 1) * n), draws, level);
  const z = normalQuantile(1 - (1 - level) / 2);
  const sorted = order.slice().sort((a, b) => theta[b]! - theta[a]! || a - b);
  const group = new Int32Array(n);
  let g = 0;
  let head = -1;
  for (const j of sorted) {
    if (head < 0 || theta[head]! - theta[j]! > z * Math.hypot(sd[head]!, sd[j]!)) {
      g++;
      head = j;
    }
    group[j] = g;
  }
  return { rank, lo, hi, group };
}

/** A new run placed among a calibrated fleet (`placeAmong`). */
export interface RunPlacement {
  /** Rank of the run's point estimate among the fleet plus itself (1 = best). */
  rank: number;
  /** The central `level` interval of its rank over the draws, of fleet size + 1. */
  lo: number;
  hi: number;
  /** Calibrated LLMs whose difference to the run is within z sqrt(se^2 + se_k^2) (the run's tie group), by index. */
  ties: number[];
}

/**
 * Place a scored run (theta +- se, items held at the calibration) among the calibrated fleet by the
 * same rule as `rankIntervals`: the fleet and the run drawn together, so the run's difference to
 * each calibrated LLM k carries se^2 + se_k^2 (both thetas are on the calibration's scale, whose own
 * uncertainty cancels in the difference).
 */
export function placeAmong(
  fleetTheta: ArrayLike<number>,
  fleetSe: ArrayLike<number | null>,
  theta: number,
  se: number,
  options: RankIntervalOptions = {},
): RunPlacement {
  const n = fleetTheta.length;
  if (fleetSe.length !== n) throw new LlmNrmError('INVALID_OPTION', `placeAmong: ${n} thetas but ${fleetSe.length} standard errors`);
  if (!Number.isFinite(theta)) throw new LlmNrmError('INVALID_OPTION', `placeAmong: invalid theta ${theta}`);
  // A run with no finite SE could sit anywhere: its interval is the whole board.
  const s = Number.isFinite(se) && se > 0 ? se : Number.isFinite(se) ? 0 : Infinity;
  // The board as the site's app draws it (theta descending, the run after any equal theta), so the
  // same seed gives the run the same interval here and in the app's "Score your model".
  const order = Array.from({ length: n }, (_, k) => k).sort((a, b) => fleetTheta[b]! - fleetTheta[a]! || a - b);
  let at = 0;
  while (at < n && fleetTheta[order[at]!]! >= theta) at++;
  const th = order.map((k) => fleetTheta[k]!);
  const ses = order.map((k) => fleetSe[k] ?? null);
  th.splice(at, 0, theta);
  ses.splice(at, 0, s === Infinity ? 0 : s);
  const { draws, level } = drawOptions('placeAmong', options);
  // rankIntervals' draws, but only the run's rank counted: in each draw 1 + the LLMs drawn above it
  // and those drawn equal before it (the stable sort's place), O(n) a draw instead of a sort (at
  // 2,001 LLMs 0.5 s of `score` went to sorting every draw).
  const counts = new Int32Array(n + 1);
  eachDraw(th, drawSds(ses), draws, options.seed ?? 1, (v) => {
    const x = v[at]!;
    let r = 0;
    for (let k = 0; k <= n; k++) if (v[k]! > x || (k < at && v[k] === x)) r++;
    counts[r]!++;
  });
  const [lo, hi] = centralRanks(counts, draws, level);
  let rank = 1;
  for (let k = 0; k < n; k++) if (fleetTheta[k]! > theta) rank++;
  const z = normalQuantile(1 - (1 - level) / 2);
  const ties: number[] = [];
  for (let k = 0; k < n; k++) {
    const sk = fleetSe[k];
    const sd = Math.hypot(s, typeof sk === 'number' && Number.isFinite(sk) && sk > 0 ? sk : 0);
    if (Math.abs(theta - fleetTheta[k]!) <= z * sd) ties.push(k);
  }
  if (s === Infinity) return { rank, lo: 1, hi: n + 1, ties };
  return { rank, lo, hi, ties };
}
