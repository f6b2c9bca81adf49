/**
 * The cells of a response bank that the anchor reads (a `ResponseBank` is one; named here so that
 * the bank's builder can call this without an import circle).
 */
export interface AnchorCells {
  models: readonly string[];
  items: readonly unknown[];
  itemOffsets: Int32Array;
  colItem: Int32Array;
  colOffsets: Int32Array;
  q: Float32Array;
  observed: Uint8Array;
}

/**
 * The anchor option of every item of a bank whose key is not given (key-free fitting, issue 31).
 *
 * Option-level families need no key to fit (paper.md: NRM's softmax is over every option alike),
 * but two things lean on one: theta's direction (NRM is invariant to theta -> -theta, a -> -a;
 * `initialTheta` starts theta from each LLM's mean mass on the key, which picks the basin) and
 * LLM-NRM's gate difficulty b_i (paper.md: b_i's Newton step is on the key-vs-rest log-odds).
 * The anchor stands in for both: theta then points toward agreement with the stronger half of the
 * fleet, the sensible direction for a fleet better than chance, and b_i is its difficulty.
 *
 * Two steps, both over observed cells in content order:
 * 1. plurality: the option with the largest mean probability over the fleet;
 * 2. each LLM's mean mass on those pluralities ranks the fleet; the anchor is the option with the
 *    largest mean probability over the upper half of that ranking (ceil(J / 2) LLMs), so that on a
 *    hard item where a weak majority favours a distractor the stronger half decides (the option that
 *    dominates at high ability, which the key audit later reads off the fitted curves).
 * Ties go to the lowest option index. Deterministic; independent of row order.
 */
export function consensusKeys(bank: AnchorCells): Int32Array {
  const J = bank.models.length;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const I = bank.items.length;
  const sumK = bank.itemOffsets[I]!;
  const all = new Uint8Array(J).fill(1);
  const plurality = argmaxMeans(bank, meanMass(bank, all, sumK));
  // Each LLM's mean mass on the pluralities.
  const agree = new Float64Array(J);
  for (let j = 0; j < J; j++) {
    let s = 0;
    let n = 0;
    for (let c = 0; c < nC; c++) {
      if (!bank.observed[j * nC + c]) continue;
      s += bank.q[j * width + bank.colOffsets[c]! + plurality[bank.colItem[c]!]!]!;
      n++;
    }
    agree[j] = n > 0 ? s / n : 0;
  }
  // The stronger half: the ceil(J / 2) LLMs of most agreement (ties to the lower index).
  const order = Array.from({ length: J }, (_, j) => j).sort((a, b) => agree[b]! - agree[a]! || a - b);
  const upper = new Uint8Array(J);
  for (let t = 0; t < Math.ceil(J / 2); t++) upper[order[t]!] = 1;
  const strong = meanMass(bank, upper, sumK);
  const anchor = argmaxMeans(bank, strong);
  // An item the upper half never answered keeps the whole fleet's plurality.
  const seen = new Uint8Array(I);
  for (let j = 0; j < J; j++) {
    if (!upper[j]) continue;
    for (let c = 0; c < nC; c++) if (bank.observed[j * nC + c]) seen[bank.colItem[c]!] = 1;
  }
  for (let i = 0; i < I; i++) if (!seen[i]) anchor[i] = plurality[i]!;
  return anchor;
}

/** Summed probability per item option over the LLMs with use[j] (observed cells, content order). */
function meanMass(bank: AnchorCells, use: Uint8Array, sumK: number): Float64Array {
  const J = bank.models.length;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const mass = new Float64Array(sumK);
  for (let j = 0; j < J; j++) {
    if (!use[j]) continue;
    for (let c = 0; c < nC; c++) {
      if (!bank.observed[j * nC + c]) continue;
      const i = bank.colItem[c]!;
      const io = bank.itemOffsets[i]!;
      const K = bank.itemOffsets[i + 1]! - io;
      const qo = j * width + bank.colOffsets[c]!;
      for (let k = 0; k < K; k++) mass[io + k]! += bank.q[qo + k]!;
    }
  }
  return mass;
}

function argmaxMeans(bank: AnchorCells, mass: Float64Array): Int32Array {
  const I = bank.items.length;
  const out = new Int32Array(I);
  for (let i = 0; i < I; i++) {
    const io = bank.itemOffsets[i]!;
    const K = bank.itemOffsets[i + 1]! - io;
    let best = 0;
    for (let k = 1; k < K; k++) if (mass[io + k]! > mass[io + best]!) best = k;
    out[i] = best;
  }
  return out;
}
