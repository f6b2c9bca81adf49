import { LlmNrmError, familyOfLayout, type Layout, type ResponseBank } from '@llm-nrm/core';
import { gaussHermite } from './gaussHermite.js';
import { informationSplit } from './informationSplit.js';

/** Where the ability distribution comes from when information is averaged over it. */
export type Abilities = 'prior' | 'fitted' | ArrayLike<number>;

export interface ItemInformationOptions {
  /**
   * Ability distribution to average over: 'prior' (N(0, 1) by Gauss-Hermite quadrature; default),
   * 'fitted' (the layout's fitted thetas, equally weighted) or explicit abilities.
   */
  abilities?: Abilities;
  /** Weights of explicit abilities (default equal); normalised to sum 1. */
  weights?: ArrayLike<number>;
  /** Gauss-Hermite nodes for 'prior' (default 41). */
  quadraturePoints?: number;
}

/** Per-item information averaged over an ability distribution, split as in `informationSplit`. */
export interface ItemInformation {
  /** I_i = E_theta[sum_k p_k (a_k - abar)^2] (NRM component), length I. */
  total: Float64Array;
  /** What correctness keeps, E_theta[I_binary], length I. */
  binary: Float64Array;
  /** What the chosen distractor adds, E_theta[I_wrong] >= 0, length I. */
  wrong: Float64Array;
  /** The abilities and weights averaged over. */
  abilities: Float64Array;
  weights: Float64Array;
}

/** Resolve an ability distribution to nodes and weights summing to 1. */
export function abilityGrid(layout: Layout, x: Float64Array, options: ItemInformationOptions = {}): { abilities: Float64Array; weights: Float64Array } {
  const ab = options.abilities ?? 'prior';
  if (ab === 'prior') {
    const { nodes, weights } = gaussHermite(options.quadraturePoints ?? 41);
    return { abilities: nodes, weights };
  }
  const abilities = ab === 'fitted' ? x.slice(layout.theta, layout.theta + layout.nModels) : Float64Array.from(ab);
  const n = abilities.length;
  if (n === 0) throw new LlmNrmError('INVALID_OPTION', 'no abilities to average information over');
  const weights = new Float64Array(n);
  let tot = 0;
  for (let t = 0; t < n; t++) {
    weights[t] = options.weights ? options.weights[t]! : 1;
    tot += weights[t]!;
  }
  for (let t = 0; t < n; t++) weights[t]! /= tot;
  return { abilities, weights };
}

/**
 * Item information of the item parameters alone (paper.md, "Information"): for LLM-NRM/NRM layouts
 * the NRM component I_i(theta) = sum_k p_k (a_ik - abar)^2, p = softmax(a theta + c); for binary
 * layouts (dP/dtheta)^2 / (P (1 - P)) (all binary, nothing wrong). Averaged over `abilities`.
 */
export function itemInformation(bank: ResponseBank, layout: Layout, x: Float64Array, options: ItemInformationOptions = {}): ItemInformation {
  const I = bank.items.length;
  const { abilities, weights } = abilityGrid(layout, x, options);
  const total = new Float64Array(I);
  const binary = new Float64Array(I);
  const wrong = new Float64Array(I);
  const v = new Float64Array(bank.kMax);
  const dv = new Float64Array(bank.kMax);
  const out = new Float64Array(3);
  // The family's own item curve: option-level logits (split by informationSplit), else P(correct).
  const family = familyOfLayout(layout);
  const option = family.kind === 'option-level' ? family : null;
  for (let i = 0; i < I; i++) {
    const io = bank.itemOffsets[i]!;
    const K = bank.itemOffsets[i + 1]! - io;
    const g = bank.key[i]!;
    for (let t = 0; t < abilities.length; t++) {
      const th = abilities[t]!;
      const w = weights[t]!;
      if (option !== null) {
        option.itemLogits(bank, layout, x, i, th, v, dv);
        informationSplit(v, dv, K, g, out);
        total[i]! += w * out[0]!;
        binary[i]! += w * out[1]!;
        wrong[i]! += w * out[2]!;
      } else {
        const info = binaryInformation(layout, x, i, th, out);
        total[i]! += w * info;
        binary[i]! += w * info;
      }
    }
  }
  return { total, binary, wrong, abilities, weights };
}

/**
 * Fisher information of a binary (1PL-4PL) item at theta: (dP/dtheta)^2 / (P (1 - P)), from the
 * family's key curve. `tmp`: scratch of length 3 (allocated when not given).
 */
export function binaryInformation(layout: Layout, x: Float64Array, i: number, theta: number, tmp: Float64Array = new Float64Array(3)): number {
  const family = familyOfLayout(layout);
  if (family.kind !== 'binary') throw new LlmNrmError('INVALID_OPTION', `binaryInformation needs a binary layout, got ${layout.kind}`);
  family.keyCurve(layout, x, i, theta, tmp);
  const dP = tmp[2]!;
  if (dP === 0) return 0;
  return (dP * dP) / (tmp[0]! * tmp[1]!);
}
