import { LlmNrmError, familyOfLayout, type Layout, type ResponseBank } from '@llm-nrm/core';
import { informationSplit } from './informationSplit.js';
import { binaryInformation } from './itemInformation.js';
import { unflaggedItems, type LeftOutItem } from './unflaggedItems.js';

/**
 * Abilities below the weakest calibrated LLM that a default selection measures too, in theta units
 * under it. A run scored on a package is as likely to fall below the fleet (a smaller model, a
 * random-answer run) as inside it, and from items chosen for the fleet alone such a run answers at
 * chance: on NAEP, leave-one-LLM-out at 41 items, Qwen2.5-0.5B (43.7% on the bank) got 26.8% of its
 * tiny items right, as a random-answer run does, and its predicted accuracy was 12.3 points off.
 * With these two abilities the worst error is 6.6 points (analysis/BENCHMARKS.md).
 */
export const BELOW_FLEET = [0.5, 1] as const;

export interface SelectForRangeOptions {
  /**
   * Abilities the test must measure well (default: the layout's fitted thetas of `rows`, or of all
   * LLMs, and BELOW_FLEET under the weakest of them).
   */
  abilities?: ArrayLike<number>;
  /** LLMs whose fitted thetas are the abilities (when `abilities` is not given). */
  rows?: ArrayLike<number>;
  /**
   * Prior precision of theta before any item (default 1/9: the N(0, 3^2) prior of `scoreResponses`).
   * It sets how much a first item at an ability is worth against a tenth one.
   */
  priorPrecision?: number;
  /** Keep each benchmark's share of the bank in the selection (largest remainder; default false). */
  perBenchmark?: boolean;
  /** Number of parallel forms with no shared item (default 1). Each form gets `n` items. */
  forms?: number;
  /** Items that may be selected (eligible[i] = 1; default all), e.g. those with a recorded prompt. */
  eligible?: ArrayLike<number>;
  /**
   * Also select the items `unflaggedItems` leaves out (possible wrong key; default false), so every
   * tiny selection (`select`, `publish`, `evaluate --compression`, the studies) leaves out the same
   * items and the study measures the items users get. A caller that already holds
   * `unflaggedItems`' result passes its `eligible` with `includeFlagged: true` (not computed twice).
   */
  includeFlagged?: boolean;
}

export interface RangeSelection {
  /** Item indices per form, in the order they were picked. */
  forms: Int32Array[];
  /** Item ids per form (same order). */
  ids: string[][];
  /** Per form, the test information sum_i I_i(theta_t) at each ability of `abilities`. */
  testInformation: Float64Array[];
  /** The abilities the selection was made for. */
  abilities: Float64Array;
  /** Items left out because `unflaggedItems` flags them (empty with `includeFlagged`). */
  leftOut: LeftOutItem[];
}

/**
 * I x M information matrix: the item-parameter information of every item (of every eligible one:
 * the rows of the others stay 0, never read) at every ability.
 */
function informationMatrix(
  bank: ResponseBank,
  layout: Layout,
  x: Float64Array,
  abilities: Float64Array,
  eligible: ArrayLike<number> | undefined,
): Float64Array {
  const I = bank.items.length;
  const M = abilities.length;
  const out = new Float64Array(I * M);
  const v = new Float64Array(bank.kMax);
  const dv = new Float64Array(bank.kMax);
  const tmp = new Float64Array(3);
  const family = familyOfLayout(layout);
  const option = family.kind === 'option-level' ? family : null;
  for (let i = 0; i < I; i++) {
    if (eligible !== undefined && !eligible[i]) continue;
    const io = bank.itemOffsets[i]!;
    const K = bank.itemOffsets[i + 1]! - io;
    for (let t = 0; t < M; t++) {
      const th = abilities[t]!;
      if (option !== null) {
        option.itemLogits(bank, layout, x, i, th, v, dv);
        informationSplit(v, dv, K, bank.key[i]!, tmp);
        out[i * M + t] = tmp[0]!;
      } else out[i * M + t] = binaryInformation(layout, x, i, th, tmp);
    }
  }
  return out;
}

/** Items per benchmark: each benchmark's share of n by largest remainder (at least one where n allows). */
function quotas(bank: ResponseBank, n: number, eligible?: ArrayLike<number>): { of: Int32Array; quota: Int32Array } {
  const names = new Map<string, number>();
  const of = new Int32Array(bank.items.length);
  bank.items.forEach((it, i) => {
    const b = it.benchmark ?? '';
    if (!names.has(b)) names.set(b, names.size);
    of[i] = names.get(b)!;
  });
  const B = names.size;
  const count = new Float64Array(B);
  let total = 0;
  for (let i = 0; i < of.length; i++) {
    if (eligible !== undefined && !eligible[i]) continue;
    count[of[i]!]!++;
    total++;
  }
  const quota = new Int32Array(B);
  const want = Array.from(count, (c) => (c / Math.max(1, total)) * n);
  let given = 0;
  for (let b = 0; b < B; b++) {
    quota[b] = Math.min(count[b]!, Math.floor(want[b]!));
    given += quota[b]!;
  }
  const order = Array.from({ length: B }, (_, b) => b).sort((a, b) => want[b]! - Math.floor(want[b]!) - (want[a]! - Math.floor(want[a]!)) || a - b);
  for (let r = 0; given < Math.min(n, total) && r < 4 * B * (n + 1); r++) {
    const b = order[r % B]!;
    if (quota[b]! < count[b]!) {
      quota[b]!++;
      given++;
    }
  }
  return { of, quota };
}

/**
 * Items that measure the whole ability range (DESIGN.md, use 4). Ranking items by their information
 * averaged over the fleet piles the top items up where the information of the sharpest items peaks:
 * on a simulated fleet that ranked no better than random items, and on NAEP worse. Instead this
 * greedily maximises the expected log test information over the calibrated abilities,
 *   sum_t log(tau + sum_{i in S} I_i(theta_t)),
 * whose gain for a new item i, sum_t log(1 + I_i(theta_t) / T_t), is large only where the test so
 * far is weak (T_t small): the log's diminishing returns spread items over the range. (It is the
 * D-optimal design for each ability separately, and close to minimising the mean posterior
 * variance 1 / T_t.) I_i is the item-parameter information of paper.md (NRM component, or the
 * binary item information for 1PL-4PL). Several forms pick in turn, each for its own T, from the
 * items no form has taken: parallel forms with no shared item.
 */
export function selectForRange(bank: ResponseBank, layout: Layout, x: Float64Array, n: number, options: SelectForRangeOptions = {}): RangeSelection {
  const I = bank.items.length;
  const F = options.forms ?? 1;
  if (!Number.isInteger(n) || n < 1) throw new LlmNrmError('INVALID_OPTION', `invalid item budget: ${n}`);
  if (!Number.isInteger(F) || F < 1) throw new LlmNrmError('INVALID_OPTION', `invalid number of forms: ${F}`);
  const flagged = options.includeFlagged ? null : unflaggedItems(bank, layout, x);
  const eligible =
    flagged === null
      ? options.eligible
      : options.eligible === undefined
        ? flagged.eligible
        : Uint8Array.from(flagged.eligible, (v, i) => (v && options.eligible![i] ? 1 : 0));
  let pool = I;
  if (eligible !== undefined) {
    pool = 0;
    for (let i = 0; i < I; i++) if (eligible[i]) pool++;
  }
  if (n * F > pool) {
    const why = flagged !== null && flagged.leftOut.length > 0 ? ` (${flagged.leftOut.length} flagged items left out; --include-flagged keeps them)` : '';
    throw new LlmNrmError('INVALID_OPTION', `${F} form(s) of ${n} items need ${n * F} items; ${pool} of the bank's ${I} can be selected${why}`);
  }
  const abilities = options.abilities !== undefined ? Float64Array.from(options.abilities) : fleetAbilities(layout, x, options.rows);
  const M = abilities.length;
  if (M === 0) throw new LlmNrmError('INVALID_OPTION', 'no abilities to select items for');
  const tau = options.priorPrecision ?? 1 / 9;
  const info = informationMatrix(bank, layout, x, abilities, eligible);
  const { of, quota } = options.perBenchmark ? quotas(bank, n, eligible) : { of: new Int32Array(I), quota: Int32Array.of(n) };
  const T = Array.from({ length: F }, () => new Float64Array(M).fill(tau));
  const left = Array.from({ length: F }, () => Int32Array.from(quota));
  const used = new Uint8Array(I);
  // Ineligible items count as taken.
  if (eligible !== undefined) for (let i = 0; i < I; i++) if (!eligible[i]) used[i] = 1;
  const picks: number[][] = Array.from({ length: F }, () => []);
  for (let step = 0; step < n * F; step++) {
    const f = step % F;
    const Tf = T[f]!;
    let best = -1;
    let bestGain = -Infinity;
    for (let i = 0; i < I; i++) {
      if (used[i] || left[f]![of[i]!]! <= 0) continue;
      let gain = 0;
      const o = i * M;
      for (let t = 0; t < M; t++) gain += Math.log1p(info[o + t]! / Tf[t]!);
      // Ties (and NaN information) keep bank order.
      if (gain > bestGain) {
        bestGain = gain;
        best = i;
      }
    }
    if (best < 0) {
      // A benchmark ran out under its quota: take the best of the rest.
      for (let i = 0; i < I && best < 0; i++) if (!used[i]) best = i;
    }
    used[best] = 1;
    left[f]![of[best]!]!--;
    picks[f]!.push(best);
    for (let t = 0; t < M; t++) Tf[t]! += info[best * M + t]!;
  }
  const forms = picks.map((p) => Int32Array.from(p));
  return {
    forms,
    ids: forms.map((p) => Array.from(p, (i) => bank.items[i]!.id)),
    testInformation: T.map((Tf) => Float64Array.from(Tf, (v) => v - tau)),
    abilities,
    leftOut: flagged?.leftOut ?? [],
  };
}

/** The calibrated LLMs' thetas (of `rows`, or all), and BELOW_FLEET under the weakest. */
function fleetAbilities(layout: Layout, x: Float64Array, rows: ArrayLike<number> | undefined): Float64Array {
  const fleet = rows !== undefined ? Array.from(rows, (j) => x[layout.theta + j]!) : Array.from(x.subarray(layout.theta, layout.theta + layout.nModels));
  if (fleet.length === 0) return new Float64Array(0);
  const weakest = Math.min(...fleet);
  return Float64Array.from([...fleet, ...BELOW_FLEET.map((d) => weakest - d)]);
}
