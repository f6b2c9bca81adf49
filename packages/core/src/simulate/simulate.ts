import { emptyBank, type ResponseBank } from '../data/bank.js';
import { LlmNrmError } from '../errors.js';
import { centered } from '../internal/centered.js';
import { llmNrmLayout, softmaxInPlace, softplusInv, type LlmNrmLayout } from '../model/layout.js';
import { predictor } from '../model/predict.js';
import { randomSource } from './random.js';
import type { ItemSpec, LlmNrmParts, ResponseRecord } from '../model/types.js';

export interface SimulateOptions {
  /** Number of LLMs (default 189, the paper's fleet). */
  models?: number;
  /** Number of items (default 2000). */
  items?: number;
  /** Seed of every random draw (default 1). */
  seed?: number;
  /**
   * Option-count distribution: weights over K = 2..20 (`{4: 0.5, 10: 0.5}`). Default like the
   * paper's bank (2 to 10 options, mean about 5.8: MMLU-Pro's 10, many 4s and 5s, some 2s and 3s).
   */
  optionWeights?: Record<number, number>;
  /** SD of Gaussian noise added to the true logits before the softmax (default 0.3). */
  noise?: number;
  /** Fraction of cells left unobserved (default 0). */
  missing?: number;
  /** Fraction of cells answered hard (one-hot of a draw from p) instead of soft (default 0). */
  hard?: number;
  /** Show each item under this many cyclic rotations of its options (default 1: identity). */
  rotations?: number;
  /** Parts of the generating model (default all on). */
  parts?: Partial<LlmNrmParts>;
}

export const PAPER_OPTION_WEIGHTS: Record<number, number> = { 2: 0.06, 3: 0.06, 4: 0.46, 5: 0.1, 10: 0.32 };

/** A simulated fleet: the bank it produced and the parameters that generated it. */
export interface SimulatedFleet {
  bank: ResponseBank;
  layout: LlmNrmLayout;
  /** True parameters in the LLM-NRM layout (sum-to-zero per item and per LLM). */
  truth: Float64Array;
  options: Required<Omit<SimulateOptions, 'parts' | 'optionWeights'>> & { parts: LlmNrmParts; optionWeights: Record<number, number> };
}

/**
 * Draw a realistic fleet from known LLM-NRM parameters (seeded): abilities N(0,1), sharpness
 * log-normal around 1, positional biases of a few tenths of a logit, per-LLM guessing patterns,
 * keyed options that rise with ability, and distractors of varied attractiveness.
 */
export function simulateFleet(options: SimulateOptions = {}): SimulatedFleet {
  const J = options.models ?? 189;
  const I = options.items ?? 2000;
  const seed = options.seed ?? 1;
  const noise = options.noise ?? 0.3;
  const missing = options.missing ?? 0;
  const hardFrac = options.hard ?? 0;
  const R = options.rotations ?? 1;
  const weights = options.optionWeights ?? PAPER_OPTION_WEIGHTS;
  const parts: LlmNrmParts = { sharpness: true, position: true, fallback: true, ...options.parts };
  if (!(J >= 1 && I >= 1)) throw new LlmNrmError('INVALID_OPTION', `need at least one model and one item, got ${J} x ${I}`);
  if (!(missing >= 0 && missing < 1)) throw new LlmNrmError('INVALID_OPTION', `missing must be in [0, 1), got ${missing}`);
  const rng = randomSource(seed);
  const ks = Object.keys(weights).map(Number);
  for (const k of ks) if (!(Number.isInteger(k) && k >= 2 && k <= 20)) throw new LlmNrmError('INVALID_OPTION', `invalid option count: ${k}`);
  const totalW = ks.reduce((s, k) => s + weights[k]!, 0);
  const drawK = (): number => {
    let u = rng.uniform() * totalW;
    for (const k of ks) {
      u -= weights[k]!;
      if (u < 0) return k;
    }
    return ks[ks.length - 1]!;
  };
  const items: ItemSpec[] = [];
  for (let i = 0; i < I; i++) {
    const K = drawK();
    const g = rng.int(K);
    items.push({ id: `sim/${i}`, key: g, nOptions: K, benchmark: `sim-${K}` });
  }
  // Column c shows item floor(c / R) rotated by c % R (R > 1: every rotation of every item).
  const bank = emptyBank(
    Array.from({ length: J }, (_, j) => `sim-llm-${String(j).padStart(3, '0')}`),
    items,
    Int32Array.from({ length: I * R }, (_, c) => Math.floor(c / R)),
    R > 1
      ? (c) => {
          const K = items[Math.floor(c / R)]!.nOptions;
          return Array.from({ length: K }, (_, k) => (k - (c % R) + K * R) % K);
        }
      : null,
  );
  const { kMax, colItem, colOffsets, itemOffsets, key } = bank;
  const nC = colItem.length;
  const width = colOffsets[nC]!;
  const layout = llmNrmLayout(bank, parts);
  const x = new Float64Array(layout.size);
  for (let j = 0; j < J; j++) {
    x[layout.theta + j] = rng.normal();
    x[layout.sbar + j] = parts.sharpness ? softplusInv(Math.exp(0.35 * rng.normal())) : softplusInv(1);
    // Bias: a tendency toward early positions for some LLMs plus noise.
    const early = 0.3 * rng.normal();
    const prefer = rng.int(kMax);
    for (let k = 0; k < kMax; k++) {
      x[layout.delta + j * kMax + k] = parts.position ? -early * (k / Math.max(1, kMax - 1)) + 0.15 * rng.normal() : 0;
      x[layout.rho + j * kMax + k] = parts.fallback ? 0.5 * rng.normal() + (k === prefer ? 1.5 : 0) : 0;
    }
    center(x, layout.delta + j * kMax, kMax);
    center(x, layout.rho + j * kMax, kMax);
  }
  for (let i = 0; i < I; i++) {
    const io = itemOffsets[i]!;
    const K = itemOffsets[i + 1]! - io;
    for (let k = 0; k < K; k++) {
      const isKey = k === key[i];
      x[layout.a + io + k] = isKey ? 1.2 + 0.5 * rng.normal() : -0.2 + 0.5 * rng.normal();
      x[layout.c + io + k] = (isKey ? 0.3 : 0) + 0.9 * rng.normal();
    }
    center(x, layout.a + io, K);
    center(x, layout.c + io, K);
  }
  x[layout.w0] = parts.fallback ? -1 : 0;
  x[layout.kbar] = softplusInv(1.5);
  // Responses: q = softmax(log p + noise), hard answers drawn from p.
  const pred = predictor(bank, layout, x);
  const p = new Float64Array(kMax);
  for (let j = 0; j < J; j++) {
    for (let c = 0; c < nC; c++) {
      if (missing > 0 && rng.uniform() < missing) continue;
      bank.observed[j * nC + c] = 1;
      pred.cell(j, c, p);
      const K = colOffsets[c + 1]! - colOffsets[c]!;
      const o = j * width + colOffsets[c]!;
      if (hardFrac > 0 && rng.uniform() < hardFrac) {
        bank.hard[j * nC + c] = 1;
        let u = rng.uniform();
        let pick = K - 1;
        for (let k = 0; k < K; k++) {
          u -= p[k]!;
          if (u < 0) {
            pick = k;
            break;
          }
        }
        bank.q[o + pick] = 1;
        continue;
      }
      for (let k = 0; k < K; k++) p[k] = Math.log(Math.max(p[k]!, 1e-300)) + noise * rng.normal();
      softmaxInPlace(p, K);
      for (let k = 0; k < K; k++) bank.q[o + k] = p[k]!;
    }
  }
  // A model or item can end up with no cell under heavy missingness: observe one cell then.
  for (let j = 0; j < J; j++) {
    let any = 0;
    for (let c = 0; c < nC; c++) any |= bank.observed[j * nC + c]!;
    if (!any) throw new LlmNrmError('EMPTY', `simulated model ${j} has no observed cell; lower --missing`);
  }
  return {
    bank,
    layout,
    truth: x,
    options: { models: J, items: I, seed, noise, missing, hard: hardFrac, rotations: R, parts, optionWeights: weights },
  };
}

/** x[o..o+n) centred in place (the bundle's sum-to-zero form). */
function center(x: Float64Array, o: number, n: number): void {
  x.set(centered(x, o, n), o);
}

/** The tidy records of a bank (content order, `position` where rotated; soft as probs, hard as choice). */
export function* bankRecords(bank: ResponseBank): Generator<ResponseRecord> {
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  for (let j = 0; j < bank.models.length; j++) {
    for (let c = 0; c < nC; c++) {
      if (!bank.observed[j * nC + c]) continue;
      const it = bank.items[bank.colItem[c]!]!;
      const o = j * width + bank.colOffsets[c]!;
      const K = it.nOptions;
      const r: ResponseRecord = { model: bank.models[j]!, item: it.id, key: it.key };
      if (it.benchmark !== undefined) r.benchmark = it.benchmark;
      if (bank.hard[j * nC + c]) {
        let k = 0;
        while (k < K - 1 && bank.q[o + k]! < 0.5) k++;
        r.choice = k;
        r.nOptions = K;
      } else {
        r.probs = Array.from(bank.q.subarray(o, o + K));
      }
      if (bank.colPosition) {
        const pos = Array.from(bank.colPosition.subarray(bank.colOffsets[c]!, bank.colOffsets[c]! + K));
        if (pos.some((v, t) => v !== t)) r.position = pos;
      }
      if (bank.leakage && !Number.isNaN(bank.leakage[j * nC + c]!)) r.leakage = bank.leakage[j * nC + c]!;
      yield r;
    }
  }
}
