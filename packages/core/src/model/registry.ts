import type { ResponseBank } from '../data/bank.js';
import { LlmNrmError } from '../errors.js';
import type { Layout, LlmNrmLayout } from './layout.js';
import { MODEL_NAMES, type LlmNrmParts, type ModelName } from './types.js';
import { binaryFamily } from './binary/index.js';
import type { ModelFamily } from './family.js';
import { llmNrmFamily, nrmFamily, nrmHardFamily } from './llmNrm/index.js';

/** The binary families, built once (they hold no state): callers may ask per item or cell. */
const BINARY = ([1, 2, 3, 4] as const).map((pl) => binaryFamily(pl));

/** Every model name `fit` understands and the family it names (LLM-NRM takes its parts). */
const FAMILIES: Record<ModelName, (parts: Partial<LlmNrmParts>) => ModelFamily> = {
  'llm-nrm': (parts) => llmNrmFamily(parts),
  nrm: () => nrmFamily,
  'nrm-hard': () => nrmHardFamily,
  '1pl': () => BINARY[0]!,
  '2pl': () => BINARY[1]!,
  '3pl': () => BINARY[2]!,
  '4pl': () => BINARY[3]!,
};

/**
 * The family of a model name (parts: LLM-NRM's ablations, ignored by the others). Throws
 * INVALID_OPTION for an unknown name.
 */
export function getFamily(model: ModelName, parts: Partial<LlmNrmParts> = {}): ModelFamily {
  const make = Object.prototype.hasOwnProperty.call(FAMILIES, model) ? FAMILIES[model] : undefined;
  if (make === undefined) {
    throw new LlmNrmError('INVALID_OPTION', `unknown model: ${JSON.stringify(model)} (one of ${MODEL_NAMES.join(', ')})`);
  }
  return make(parts);
}

/** The family that reads a layout (for the forward model; nrm and nrm-hard read as LLM-NRM with parts off). */
export function familyOfLayout(layout: Layout): ModelFamily {
  return layout.kind === 'llm-nrm' ? llmNrmFamily(layout.parts) : BINARY[layout.pl - 1]!;
}

/**
 * Whether the layout's family is option-level (LLM-NRM, NRM, NRM-hard: softmax over option logits,
 * with per-LLM sharpness, position and fallback slots), as a type guard for code that reads those slots.
 */
export function optionLevelLayout(layout: Layout): layout is LlmNrmLayout {
  return layout.kind === 'llm-nrm';
}

/** Mask of the parameters that are free (1) vs fixed (0) under the layout's switched-off parts (its family's). */
export function freeMask(layout: Layout): Uint8Array {
  return familyOfLayout(layout).freeMask(layout);
}

/** Indices of the per-LLM parameters of model j (theta, sbar, delta_j., rho_j.) or (theta) for binary (its family's). */
export function llmParamIndices(layout: Layout, j: number): number[] {
  return familyOfLayout(layout).llmIndices(layout, j);
}

/** Item difficulties b_i of a fit (LLM-NRM: the gate's, guarded; binary: b = -beta / a). */
export function itemDifficulties(bank: ResponseBank, layout: Layout, x: Float64Array): Float64Array {
  return familyOfLayout(layout).difficulties(bank, layout, x);
}
