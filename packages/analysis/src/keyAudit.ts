import { LlmNrmError, optionLevelLayout, type Layout, type ResponseBank } from '@llm-nrm/core';
import { itemQuality } from './itemQuality.js';

/** Options of `keyAudit`. */
export interface KeyAuditOptions {
  /**
   * Ability at which the implied key is read off the option curves (default 4: past every LLM of a
   * fleet on theta's N(0, 1) scale, where the option of largest slope leads unless its intercept
   * is far behind). On 100 x 2,000 simulated fleets with 5% of keys swapped (bench/keyAudit.mjs,
   * seeds 1-3) precision at 50 flags is 0.86 at theta 2 (`report`'s possible-wrong-key), 0.91 at 3,
   * 0.92 at 4 and 0.93 at 6; 4 was chosen before the bench and kept (analysis BENCHMARKS.md).
   */
  highTheta?: number;
  /** A distractor whose probability stays below this over the fleet's abilities is dead (default 0.01). */
  deadBelow?: number;
  /** An item is position-driven when its displayed position explains this much more mass than its content (default 0.2). */
  positionMargin?: number;
}

/** An item whose key disagrees with the option its curves favour at high ability. */
export interface KeyDisagreement {
  id: string;
  /** The given key (content order). */
  key: number;
  /** The option most likely at highTheta: the key the calibrated fleet implies. */
  implied: number;
  /** itemQuality's keyMargin: logit(implied) - logit(key) at highTheta (> 0). */
  margin: number;
  /**
   * sigmoid(margin): at highTheta, the share of the pair (key, implied) that goes to the implied
   * option, i.e. how surely the curves prefer it to the key.
   */
  confidence: number;
}

/** A distractor no LLM is drawn to at any ability of the fleet. */
export interface DeadDistractor {
  id: string;
  option: number;
  /** Its largest probability over the fleet's ability range (NRM component, paper.md's softmax). */
  maxProbability: number;
}

/** An item answered by where an option is shown rather than by what it says. */
export interface PositionDriven {
  id: string;
  /** Distinct display orders the item was shown in. */
  presentations: number;
  /** Mean mass of the option (by content) most chosen, over the observed cells. */
  contentShare: number;
  /** Mean mass of the displayed position most chosen, over the same cells. */
  positionShare: number;
  /** That position (0-based, as displayed). */
  position: number;
}

export interface KeyAudit {
  highTheta: number;
  /** Keyed items whose key is not the implied one, most confident first. */
  keys: KeyDisagreement[];
  /** Items with no key (key-free fitting): nothing to check, left out of `keys`. */
  keyFree: number;
  deadDistractors: DeadDistractor[];
  /** Null when no item was shown in more than one display order (nothing to tell position from content). */
  positionDriven: PositionDriven[] | null;
}

const sigmoid = (z: number) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

/**
 * The key audit of a calibrated option-level bank (issue 31; `llm-nrm audit`, a section of `report`):
 * - keys: every keyed item whose key is not the option its curves favour at highTheta (itemQuality's
 *   topAtHigh and keyMargin, read at highTheta), ranked by the margin, with sigmoid(margin) as the
 *   confidence. A wrong key shows as a key that falls with ability while another option rises.
 * - deadDistractors: options other than the key (the implied option for a key-free item) whose
 *   NRM probability softmax_k(a_k theta + c_k) stays below deadBelow at every theta between the
 *   fleet's lowest and highest ability (the fitted thetas x[0 .. J)): nobody picks them.
 * - positionDriven: from the observed cells of items shown in several display orders (rotations),
 *   items whose mass follows the displayed position more than the content by positionMargin.
 * Option-level layouts only (binary ones have no option curves: INVALID_OPTION).
 */
export function keyAudit(bank: ResponseBank, layout: Layout, x: Float64Array, options: KeyAuditOptions = {}): KeyAudit {
  if (!optionLevelLayout(layout))
    throw new LlmNrmError('INVALID_OPTION', 'the key audit reads option curves: fit an option-level model (llm-nrm, nrm or nrm-hard)');
  const highTheta = options.highTheta ?? 4;
  const deadBelow = options.deadBelow ?? 0.01;
  const quality = itemQuality(bank, layout, x, { highTheta });
  const keys: KeyDisagreement[] = [];
  let keyFree = 0;
  quality.forEach((q, i) => {
    if (bank.items[i]!.keyFree === true) {
      keyFree++;
      return;
    }
    if (q.topAtHigh === bank.key[i]) return;
    keys.push({ id: q.id, key: bank.key[i]!, implied: q.topAtHigh, margin: q.keyMargin, confidence: sigmoid(q.keyMargin) });
  });
  keys.sort((p, r) => r.margin - p.margin || (p.id < r.id ? -1 : p.id > r.id ? 1 : 0));

  // The fleet's ability range, on a grid fine enough for curves of slope |a| up to ~10.
  let lo = Infinity;
  let hi = -Infinity;
  for (let j = 0; j < bank.models.length; j++) {
    lo = Math.min(lo, x[layout.theta + j]!);
    hi = Math.max(hi, x[layout.theta + j]!);
  }
  if (!(lo <= hi)) lo = hi = 0;
  const steps = 64;
  const deadDistractors: DeadDistractor[] = [];
  const p = new Float64Array(bank.kMax);
  const peak = new Float64Array(bank.kMax);
  for (let i = 0; i < bank.items.length; i++) {
    const io = bank.itemOffsets[i]!;
    const K = bank.itemOffsets[i + 1]! - io;
    peak.fill(0);
    for (let t = 0; t <= steps; t++) {
      const th = lo + ((hi - lo) * t) / steps;
      let m = -Infinity;
      for (let k = 0; k < K; k++) m = Math.max(m, (p[k] = x[layout.a + io + k]! * th + x[layout.c + io + k]!));
      let s = 0;
      for (let k = 0; k < K; k++) s += p[k] = Math.exp(p[k]! - m);
      for (let k = 0; k < K; k++) peak[k] = Math.max(peak[k]!, p[k]! / s);
    }
    const answer = bank.items[i]!.keyFree === true ? quality[i]!.topAtHigh : bank.key[i]!;
    for (let k = 0; k < K; k++) if (k !== answer && peak[k]! < deadBelow) deadDistractors.push({ id: bank.items[i]!.id, option: k, maxProbability: peak[k]! });
  }
  return { highTheta, keys, keyFree, deadDistractors, positionDriven: positionDriven(bank, options.positionMargin ?? 0.2) };
}

/** keyAudit's position check over the observed cells (null: no item shown in two display orders). */
function positionDriven(bank: ResponseBank, margin: number): PositionDriven[] | null {
  const pos = bank.colPosition;
  if (pos === null) return null;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const J = bank.models.length;
  // Columns of each item, and its distinct display orders.
  const cols: number[][] = bank.items.map(() => []);
  for (let c = 0; c < nC; c++) cols[bank.colItem[c]!]!.push(c);
  const out: PositionDriven[] = [];
  let any = false;
  for (let i = 0; i < bank.items.length; i++) {
    const K = bank.items[i]!.nOptions;
    const orders = new Set(cols[i]!.map((c) => Array.from(pos.subarray(bank.colOffsets[c]!, bank.colOffsets[c]! + K)).join(',')));
    if (orders.size < 2) continue;
    any = true;
    const byContent = new Float64Array(K);
    const byPosition = new Float64Array(K);
    let n = 0;
    for (const c of cols[i]!) {
      const o = bank.colOffsets[c]!;
      for (let j = 0; j < J; j++) {
        if (!bank.observed[j * nC + c]) continue;
        n++;
        for (let k = 0; k < K; k++) {
          const v = bank.q[j * width + o + k]!;
          byContent[k]! += v;
          byPosition[pos[o + k]!]! += v;
        }
      }
    }
    if (n === 0) continue;
    let kc = 0;
    let kp = 0;
    for (let k = 1; k < K; k++) {
      if (byContent[k]! > byContent[kc]!) kc = k;
      if (byPosition[k]! > byPosition[kp]!) kp = k;
    }
    const contentShare = byContent[kc]! / n;
    const positionShare = byPosition[kp]! / n;
    if (positionShare - contentShare >= margin) out.push({ id: bank.items[i]!.id, presentations: orders.size, contentShare, positionShare, position: kp });
  }
  out.sort((a, b) => b.positionShare - b.contentShare - (a.positionShare - a.contentShare));
  return any ? out : null;
}
