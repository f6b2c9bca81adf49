import { optionLevelLayout, type Layout, type ResponseBank } from '@llm-nrm/core';
import { gaussHermite } from './gaussHermite.js';

export type ItemFlag = 'possible-wrong-key' | 'falling-key' | 'low-discrimination' | 'dominant-distractor';

export interface ItemQualityOptions {
  /** High ability at which the key should be the most likely option (default 2). */
  highTheta?: number;
  /** Spread max_k a_k - min_k a_k below which an item is flagged as not discriminating (default 0.25). */
  minSpread?: number;
  /** A distractor that is the modal response over more than this share of N(0,1) ability mass (default 0.5). */
  dominantMass?: number;
}

export interface ItemQuality {
  id: string;
  flags: ItemFlag[];
  /** Option most likely at highTheta. */
  topAtHigh: number;
  /**
   * Logit of topAtHigh minus the key's at highTheta, (a_top - a_g) highTheta + c_top - c_g (0 when
   * the key is the top option): how far the fleet's curves put another option above the key there.
   * `keyAudit` ranks items by it.
   */
  keyMargin: number;
  /** a_g - abar at theta = 0 (the key's slope against the option mix; < 0: the key falls with ability). */
  keySlope: number;
  /** max_k a_k - min_k a_k. */
  spread: number;
  /** The distractor with the largest N(0,1) mass of modal response, and that mass. */
  dominant: number;
  dominantMass: number;
}

/**
 * Item-quality flags from the NRM component of fitted item parameters:
 * - 'possible-wrong-key': the keyed option is not the most likely response at theta = highTheta;
 * - 'falling-key': a_g - abar(theta = 0) < 0, i.e. d log(p_g / (1 - p_g)) / dtheta < 0 near the middle;
 * - 'low-discrimination': the option slopes barely differ (spread < minSpread);
 * - 'dominant-distractor': one distractor is the modal response over > dominantMass of N(0, 1).
 * Binary layouts yield no flags (returns []).
 */
export function itemQuality(bank: ResponseBank, layout: Layout, x: Float64Array, options: ItemQualityOptions = {}): ItemQuality[] {
  if (!optionLevelLayout(layout)) return [];
  const high = options.highTheta ?? 2;
  const minSpread = options.minSpread ?? 0.25;
  const domMass = options.dominantMass ?? 0.5;
  const { nodes, weights } = gaussHermite(61);
  const out: ItemQuality[] = [];
  for (let i = 0; i < bank.items.length; i++) {
    const io = bank.itemOffsets[i]!;
    const K = bank.itemOffsets[i + 1]! - io;
    const g = bank.key[i]!;
    const a = (k: number) => x[layout.a + io + k]!;
    const c = (k: number) => x[layout.c + io + k]!;
    let top = 0;
    for (let k = 1; k < K; k++) if (a(k) * high + c(k) > a(top) * high + c(top)) top = k;
    // p at theta = 0 is softmax(c); a_g - abar formed over the distractors: sum_{k!=g} p_k (a_g - a_k).
    let m = -Infinity;
    for (let k = 0; k < K; k++) m = Math.max(m, c(k));
    let sum = 0;
    let slope = 0;
    for (let k = 0; k < K; k++) {
      const e = Math.exp(c(k) - m);
      sum += e;
      if (k !== g) slope += e * (a(g) - a(k));
    }
    slope /= sum;
    let amin = Infinity;
    let amax = -Infinity;
    for (let k = 0; k < K; k++) {
      amin = Math.min(amin, a(k));
      amax = Math.max(amax, a(k));
    }
    const mass = new Float64Array(K);
    for (let t = 0; t < nodes.length; t++) {
      let best = 0;
      for (let k = 1; k < K; k++) if (a(k) * nodes[t]! + c(k) > a(best) * nodes[t]! + c(best)) best = k;
      mass[best]! += weights[t]!;
    }
    let dom = -1;
    let dm = 0;
    for (let k = 0; k < K; k++)
      if (k !== g && mass[k]! > dm) {
        dm = mass[k]!;
        dom = k;
      }
    const flags: ItemFlag[] = [];
    if (top !== g) flags.push('possible-wrong-key');
    if (slope < 0) flags.push('falling-key');
    if (amax - amin < minSpread) flags.push('low-discrimination');
    if (dm > domMass) flags.push('dominant-distractor');
    const keyMargin = (a(top) - a(g)) * high + c(top) - c(g);
    out.push({ id: bank.items[i]!.id, flags, topAtHigh: top, keyMargin, keySlope: slope, spread: amax - amin, dominant: dom, dominantMass: dm });
  }
  return out;
}
