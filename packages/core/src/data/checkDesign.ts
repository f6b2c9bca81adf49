import { correctness, type ResponseBank } from './bank.js';
import type { BundleWarning } from './bundleFormat.js';

/** A set of LLMs linked to each other through shared items (a connected part of the LLM-item graph). */
export interface DesignGroup {
  llms: string[];
  items: number;
  cells: number;
}

export interface DesignReport {
  /** Groups of LLMs that share items, largest first (most LLMs, then most cells). */
  groups: DesignGroup[];
  /** Group index of each LLM of the bank (bank order). */
  groupOf: Int32Array;
  /**
   * Per LLM (bank order): whether its theta can be ranked against others. False for LLMs outside
   * the largest group, and for every LLM when no group holds two or more.
   */
  comparable: Uint8Array;
  warnings: BundleWarning[];
}

/** Union-find root with path halving. */
function root(parent: Int32Array, a: number): number {
  while (parent[a] !== a) {
    parent[a] = parent[parent[a]!]!;
    a = parent[a]!;
  }
  return a;
}

/**
 * Check that the design (which LLM answered which item) supports a ranking: LLMs with no path of
 * shared items between them must not be ranked against each other. Also flagged: a single LLM,
 * LLMs with identical responses, and LLMs that answered every item right or every one wrong (their
 * theta is a bound the prior sets).
 */
export function checkDesign(bank: ResponseBank): DesignReport {
  const J = bank.models.length;
  const I = bank.items.length;
  const C = bank.colItem.length;
  const parent = Int32Array.from({ length: J + I }, (_, i) => i);
  for (let j = 0; j < J; j++) {
    for (let c = 0; c < C; c++) {
      if (!bank.observed[j * C + c]) continue;
      const a = root(parent, j);
      const b = root(parent, J + bank.colItem[c]!);
      if (a !== b) parent[a] = b;
    }
  }
  const byRoot = new Map<number, { llms: number[]; items: Set<number>; cells: number }>();
  for (let j = 0; j < J; j++) {
    const r = root(parent, j);
    let g = byRoot.get(r);
    if (g === undefined) byRoot.set(r, (g = { llms: [], items: new Set(), cells: 0 }));
    g.llms.push(j);
    for (let c = 0; c < C; c++) {
      if (!bank.observed[j * C + c]) continue;
      g.items.add(bank.colItem[c]!);
      g.cells++;
    }
  }
  const raw = [...byRoot.values()].sort((a, b) => b.llms.length - a.llms.length || b.cells - a.cells || a.llms[0]! - b.llms[0]!);
  const groupOf = new Int32Array(J);
  raw.forEach((g, gi) => g.llms.forEach((j) => (groupOf[j] = gi)));
  const groups: DesignGroup[] = raw.map((g) => ({ llms: g.llms.map((j) => bank.models[j]!), items: g.items.size, cells: g.cells }));
  const comparable = new Uint8Array(J);
  const warnings: BundleWarning[] = [];

  if (J === 1) {
    warnings.push({
      code: 'SINGLE_LLM',
      message: `one LLM (${bank.models[0]}): its theta is the scale's zero by construction, not a measurement; a ranking needs two or more LLMs that share items`,
      llms: [bank.models[0]!],
    });
  } else if (groups[0]!.llms.length < 2) {
    warnings.push({
      code: 'NO_SHARED_ITEMS',
      message: `no two LLMs answered a common item (${groups.length} LLMs, each on its own items): their thetas cannot be compared, so no ranking is given`,
      llms: bank.models.slice(),
    });
  } else {
    for (const j of raw[0]!.llms) comparable[j] = 1;
    if (groups.length > 1) {
      const rest = groups.slice(1).flatMap((g) => g.llms);
      warnings.push({
        code: 'DISCONNECTED',
        message:
          `the LLMs fall into ${groups.length} groups that share no items; thetas compare only within a group. Ranked: the ` +
          `largest group (${groups[0]!.llms.length} LLMs, ${groups[0]!.items} items); not ranked: ${rest.join(', ')}`,
        llms: rest,
      });
    }
  }

  // Identical response rows: same observed cells, same distributions.
  const width = bank.colOffsets[C]!;
  // The key of a row over its first `cells` observed cells; full keys only for rows whose 8-cell prefix another row shares.
  const rowKey = (j: number, cells = Infinity): string => {
    const parts: string[] = [];
    for (let c = 0; c < C && parts.length < cells; c++) {
      if (!bank.observed[j * C + c]) continue;
      const o = j * width + bank.colOffsets[c]!;
      const k = bank.colOffsets[c + 1]! - bank.colOffsets[c]!;
      parts.push(`${c}:${Array.from(bank.q.subarray(o, o + k), (v) => v.toPrecision(6)).join(',')}`);
    }
    return parts.join(';');
  };
  const byPrefix = new Map<string, number[]>();
  for (let j = 0; j < J; j++) {
    const k = rowKey(j, 8);
    const rows = byPrefix.get(k);
    if (rows === undefined) byPrefix.set(k, [j]);
    else rows.push(j);
  }
  // Groups of identical rows, in the order of their first row.
  const same: number[][] = [];
  for (const rows of byPrefix.values()) {
    if (rows.length < 2) continue;
    const full = new Map<string, number[]>();
    for (const j of rows) {
      const k = rowKey(j);
      const g = full.get(k);
      if (g === undefined) full.set(k, [j]);
      else g.push(j);
    }
    for (const g of full.values()) if (g.length >= 2) same.push(g);
  }
  same.sort((a, b) => a[0]! - b[0]!);
  for (const ids of same.map((g) => g.map((j) => bank.models[j]!))) {
    warnings.push({
      code: 'IDENTICAL_LLMS',
      message: `${ids.join(', ')} gave identical responses: their thetas are equal by construction and their order means nothing`,
      llms: ids,
    });
  }

  // All right or all wrong: the likelihood keeps pushing theta out; only the prior stops it.
  const y = correctness(bank);
  const allRight: string[] = [];
  const allWrong: string[] = [];
  for (let j = 0; j < J; j++) {
    let n = 0;
    let right = 0;
    for (let c = 0; c < C; c++) {
      const v = y[j * C + c]!;
      if (v === 255) continue;
      n++;
      right += v;
    }
    if (n > 0 && right === n) allRight.push(bank.models[j]!);
    else if (n > 0 && right === 0) allWrong.push(bank.models[j]!);
  }
  if (allRight.length > 0) {
    warnings.push({
      code: 'ALL_CORRECT',
      message: `${allRight.join(', ')} answered every item right: theta is a lower bound set by the prior, not an estimate`,
      llms: allRight,
    });
  }
  if (allWrong.length > 0) {
    warnings.push({
      code: 'ALL_WRONG',
      message: `${allWrong.join(', ')} answered every item wrong: theta is an upper bound set by the prior, not an estimate`,
      llms: allWrong,
    });
  }
  return { groups, groupOf, comparable, warnings };
}
