import { LlmNrmError, familyOfLayout, type CalibrationBundle, type Layout, type ResponseBank } from '@llm-nrm/core';

/**
 * The items an adaptive test may ask, with what selection reads of each: the NRM component of its
 * option curves, v_k(theta) = a_k theta + c_k (paper.md, "Information"), and its benchmark for
 * content balancing. Item order is the bundle's (or bank's): ties in selection go to the earlier item.
 */
export interface AdaptivePool {
  ids: string[];
  /** Benchmark of each item ('' where the bank names none). */
  benchmarks: string[];
  /** Option offsets: item i's options are [offsets[i], offsets[i + 1]). */
  offsets: Int32Array;
  /** Option slopes a_k and intercepts c_k, content order. */
  a: Float64Array;
  c: Float64Array;
  /** Items that may be asked (1) or not (0: flagged, or without a prompt). */
  eligible: Uint8Array;
}

function assemble(ids: string[], benchmarks: string[], a: number[][], c: number[][], eligible: Uint8Array): AdaptivePool {
  const offsets = new Int32Array(ids.length + 1);
  for (let i = 0; i < ids.length; i++) offsets[i + 1] = offsets[i]! + a[i]!.length;
  const n = offsets[ids.length]!;
  const A = new Float64Array(n);
  const C = new Float64Array(n);
  for (let i = 0; i < ids.length; i++) {
    A.set(a[i]!, offsets[i]!);
    C.set(c[i]!, offsets[i]!);
  }
  return { ids, benchmarks, offsets, a: A, c: C, eligible };
}

/**
 * A calibrated bundle's items as an adaptive pool; `exclude` (flagged items, items without a
 * prompt) are kept in the pool but never asked. Option-level bundles only: binary ones have no
 * option curves to select on.
 */
export function poolFromBundle(bundle: CalibrationBundle, exclude: ReadonlySet<string> = new Set()): AdaptivePool {
  if (bundle.model !== 'llm-nrm' && bundle.model !== 'nrm' && bundle.model !== 'nrm-hard') {
    throw new LlmNrmError('INVALID_OPTION', `adaptive testing needs an option-level bundle (llm-nrm, nrm, nrm-hard); this one is ${bundle.model}`);
  }
  const items = bundle.items;
  return assemble(
    items.map((it) => it.id),
    items.map((it) => it.benchmark ?? ''),
    items.map((it) => it.a),
    items.map((it) => it.c),
    Uint8Array.from(items, (it) => (exclude.has(it.id) ? 0 : 1)),
  );
}

/** A calibration's items (bank order) as an adaptive pool: the study's path, from a fitted layout. */
export function poolFromLayout(bank: ResponseBank, layout: Layout, x: Float64Array): AdaptivePool {
  const family = familyOfLayout(layout);
  if (family.kind !== 'option-level')
    throw new LlmNrmError('INVALID_OPTION', `adaptive testing needs an option-level model; this calibration is ${layout.kind}`);
  const I = bank.items.length;
  const v = new Float64Array(bank.kMax);
  const dv = new Float64Array(bank.kMax);
  const a: number[][] = [];
  const c: number[][] = [];
  for (let i = 0; i < I; i++) {
    const K = bank.itemOffsets[i + 1]! - bank.itemOffsets[i]!;
    // v at theta = 0 is the intercept, dv the slope.
    family.itemLogits(bank, layout, x, i, 0, v, dv);
    a.push(Array.from(dv.subarray(0, K)));
    c.push(Array.from(v.subarray(0, K)));
  }
  return assemble(
    bank.items.map((it) => it.id),
    bank.items.map((it) => it.benchmark ?? ''),
    a,
    c,
    new Uint8Array(I).fill(1),
  );
}
