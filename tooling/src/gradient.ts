// Shared fixtures of the gradient tests (core's finite differences, engine-tfjs's autograd): the
// small ragged banks, random parameter points, the D_i ~ 0 placement and the list of models.
import { simulateFleet, softplusInv, type Layout, type LlmNrmParts, type ModelName, type Random, type ResponseBank, type SimulatedFleet } from '@llm-nrm/core';

const RAGGED = { 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1 };

/** 6 LLMs x 12 items, K in 2..7, each item under 2 rotations, 20% missing, 30% hard cells. */
export function gradientFleet(seed: number): SimulatedFleet {
  return simulateFleet({ models: 6, items: 12, seed, rotations: 2, missing: 0.2, hard: 0.3, optionWeights: RAGGED });
}

/** A seeded random parameter point of the layout (not centred: the kernels must not rely on it). */
export function randomPoint(layout: Layout, rng: Random): Float64Array {
  const x = new Float64Array(layout.size);
  if (layout.kind === 'binary') {
    const { nModels: J, nItems: I } = layout;
    for (let j = 0; j < J; j++) x[layout.theta + j] = rng.normal();
    for (let i = 0; i < I; i++) {
      x[layout.slope + i] = 1 + 0.4 * rng.normal();
      x[layout.intercept + i] = rng.normal();
      x[layout.guess + i] = -1.5 + 0.6 * rng.normal();
      x[layout.slip + i] = -1.5 + 0.6 * rng.normal();
    }
    return x;
  }
  const { nModels: J, kMax, sumK } = layout;
  for (let j = 0; j < J; j++) {
    x[layout.theta + j] = rng.normal();
    x[layout.sbar + j] = softplusInv(1) + 0.4 * rng.normal();
  }
  for (let t = 0; t < J * kMax; t++) {
    x[layout.delta + t] = 0.4 * rng.normal();
    x[layout.rho + t] = 0.7 * rng.normal();
  }
  for (let t = 0; t < sumK; t++) {
    x[layout.a + t] = 0.8 * rng.normal();
    x[layout.c + t] = rng.normal();
  }
  x[layout.w0] = -0.5 + 0.5 * rng.normal();
  x[layout.kbar] = softplusInv(1.2) + 0.3 * rng.normal();
  return x;
}

/**
 * Set a_key of the first `targets.length` items so that the gate's denominator D_i equals the target
 * (D_i = a_ig - sum_{k != g} w_ik a_ik, w = distractor softmax of c): D_i near 0 exercises the guard.
 */
export function placeDenominators(bank: ResponseBank, layout: Layout, x: Float64Array, targets: number[]): void {
  if (layout.kind !== 'llm-nrm') return;
  targets.forEach((target, i) => {
    const o = bank.itemOffsets[i]!;
    const K = bank.itemOffsets[i + 1]! - o;
    const g = bank.key[i]!;
    let s = 0;
    let sa = 0;
    for (let k = 0; k < K; k++) {
      if (k === g) continue;
      const e = Math.exp(x[layout.c + o + k]!);
      s += e;
      sa += e * x[layout.a + o + k]!;
    }
    x[layout.a + o + g] = sa / s + target;
  });
}

export interface GradientCase {
  name: string;
  model: ModelName;
  parts?: Partial<LlmNrmParts>;
}

/** Every model and LLM-NRM ablation whose gradient is checked. */
export const GRADIENT_CASES: GradientCase[] = [
  { name: 'llm-nrm', model: 'llm-nrm' },
  { name: 'llm-nrm without sharpness', model: 'llm-nrm', parts: { sharpness: false } },
  { name: 'llm-nrm without position', model: 'llm-nrm', parts: { position: false } },
  { name: 'llm-nrm without fallback', model: 'llm-nrm', parts: { fallback: false } },
  { name: 'nrm', model: 'nrm' },
  { name: 'nrm-hard', model: 'nrm-hard' },
  { name: '1pl', model: '1pl' },
  { name: '2pl', model: '2pl' },
  { name: '3pl', model: '3pl' },
  { name: '4pl', model: '4pl' },
];
