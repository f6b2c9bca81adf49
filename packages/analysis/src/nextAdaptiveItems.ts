import type { AdaptivePool } from './adaptivePool.js';

/*
 * Item selection of an adaptive test. The exported harness runners (nrm_adaptive.py) repeat it step
 * for step in Python, so every choice here is written to be reproducible there: plain loops,
 * ties to the earlier item, a 32-bit generator (mulberry32) whose state is a function of the seed
 * and the number of items asked, benchmarks compared as strings.
 */

export interface NextItemsOptions {
  /**
   * Randomesque exposure control: each slot takes one of the `randomesque` most informative
   * remaining items at random (1, the default: always the most informative).
   */
  randomesque?: number;
  /** Seed of the randomesque draws (default 1); each round's draws also depend on how many items were asked. */
  seed?: number;
  /**
   * Content balancing: each slot goes to the benchmark furthest below its share of the eligible
   * pool (default true; a one-benchmark pool is unaffected).
   */
  balance?: boolean;
}

/**
 * Fisher information about theta of item i's response at (theta, sharpness s) under its NRM
 * component (paper.md, "Information", with the LLM's sharpness): p = softmax(s (a theta + c)),
 * I = s^2 sum_k p_k (a_k - abar)^2, abar = sum_k p_k a_k. Bias and fallback are left out: a
 * run's are barely known from a few items and they change every item's information alike.
 */
export function adaptiveInformation(pool: AdaptivePool, i: number, theta: number, sharpness: number): number {
  const o = pool.offsets[i]!;
  const K = pool.offsets[i + 1]! - o;
  let m = -Infinity;
  for (let k = 0; k < K; k++) m = Math.max(m, sharpness * (pool.a[o + k]! * theta + pool.c[o + k]!));
  let sum = 0;
  let s1 = 0;
  for (let k = 0; k < K; k++) {
    const e = Math.exp(sharpness * (pool.a[o + k]! * theta + pool.c[o + k]!) - m);
    sum += e;
    s1 += e * pool.a[o + k]!;
  }
  const abar = s1 / sum;
  let v = 0;
  for (let k = 0; k < K; k++) {
    const e = Math.exp(sharpness * (pool.a[o + k]! * theta + pool.c[o + k]!) - m);
    const d = pool.a[o + k]! - abar;
    v += e * d * d;
  }
  return (sharpness * sharpness * v) / sum;
}

/** mulberry32: a 32-bit generator that Python repeats exactly (uniform on [0, 1)). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1) >>> 0;
    t = (t ^ ((t + (Math.imul(t ^ (t >>> 7), t | 61) >>> 0)) >>> 0)) >>> 0;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The generator of the round that starts after `asked` items: seed and round mixed (golden-ratio step). */
export function roundRandom(seed: number, asked: number): () => number {
  return mulberry32((seed + Math.imul(asked + 1, 0x9e3779b9)) >>> 0);
}

/**
 * The next `count` items (pool indices, in the order chosen) for an LLM estimated at (theta,
 * sharpness), given the items already asked (asked[i] = 1). Greedy slot by slot: the benchmark of
 * the slot (content balancing), then the most informative remaining item of it, or with
 * randomesque r one of its r most informative at random. Items not eligible, or (when `available`
 * is given) not available to this run, are never chosen. Fewer than `count` when the pool runs out.
 */
export function nextAdaptiveItems(
  pool: AdaptivePool,
  asked: Uint8Array,
  theta: number,
  sharpness: number,
  count: number,
  options: NextItemsOptions = {},
  available?: Uint8Array,
): number[] {
  const I = pool.ids.length;
  const r = Math.max(1, Math.floor(options.randomesque ?? 1));
  const balance = options.balance ?? true;
  const taken = Uint8Array.from(asked);
  const open = (i: number) => pool.eligible[i] === 1 && taken[i] === 0 && (available === undefined || available[i] === 1);
  const info = new Float64Array(I);
  for (let i = 0; i < I; i++) if (open(i)) info[i] = adaptiveInformation(pool, i, theta, sharpness);
  // Benchmarks in string order, each with its share of the eligible pool and its count so far.
  const names = [...new Set(pool.benchmarks)].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const slot = new Map(names.map((b, t) => [b, t]));
  const share = new Float64Array(names.length);
  const have = new Float64Array(names.length);
  let eligibleTotal = 0;
  let askedTotal = 0;
  for (let i = 0; i < I; i++) {
    if (pool.eligible[i] !== 1) continue;
    share[slot.get(pool.benchmarks[i]!)!]! += 1;
    eligibleTotal++;
  }
  for (let t = 0; t < names.length; t++) share[t]! /= Math.max(1, eligibleTotal);
  for (let i = 0; i < I; i++) {
    if (!taken[i]) continue;
    have[slot.get(pool.benchmarks[i]!)!]! += 1;
    askedTotal++;
  }
  const rand = roundRandom(options.seed ?? 1, askedTotal);
  const out: number[] = [];
  for (let n = 0; n < count; n++) {
    const left = new Uint8Array(names.length);
    for (let i = 0; i < I; i++) if (open(i)) left[slot.get(pool.benchmarks[i]!)!] = 1;
    let bench = -1;
    if (balance && names.length > 1) {
      let best = -Infinity;
      for (let t = 0; t < names.length; t++) {
        if (!left[t]) continue;
        const deficit = share[t]! * (askedTotal + 1) - have[t]!;
        if (deficit > best) {
          best = deficit;
          bench = t;
        }
      }
    }
    // The r most informative open items (of the slot's benchmark), best first, ties to the earlier.
    const top: number[] = [];
    for (let i = 0; i < I; i++) {
      if (!open(i) || (bench >= 0 && slot.get(pool.benchmarks[i]!) !== bench)) continue;
      let at = top.length;
      while (at > 0 && info[i]! > info[top[at - 1]!]!) at--;
      if (at < r) {
        top.splice(at, 0, i);
        if (top.length > r) top.pop();
      }
    }
    if (top.length === 0) break;
    const pick = r === 1 ? top[0]! : top[Math.min(top.length - 1, Math.floor(rand() * top.length))]!;
    out.push(pick);
    taken[pick] = 1;
    have[slot.get(pool.benchmarks[pick]!)!]! += 1;
    askedTotal++;
  }
  return out;
}
