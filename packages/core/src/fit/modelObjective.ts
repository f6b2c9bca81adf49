import type { ResponseBank } from '../data/bank.js';
import { resolveEngine, type Engine } from '../engines.js';
import type { ModelFamily } from '../model/family.js';
import { familyOfLayout, getFamily } from '../model/registry.js';
import type { Layout } from '../model/layout.js';
import type { Objective, Priors } from '../model/objective.js';
import type { LlmNrmParts, ModelName } from '../model/types.js';

/** Layout, objective and the bank it runs on for a model name (the 'ts' engine unless one is given). */
export function modelObjective(
  bank: ResponseBank,
  model: ModelName,
  parts: Partial<LlmNrmParts> = {},
  priors: Priors = {},
  engine?: Engine | string,
): { objective: Objective; bank: ResponseBank; parts: LlmNrmParts; family: ModelFamily } {
  const family = getFamily(model, parts);
  const fitBank = family.prepare(bank);
  return { objective: resolveEngine(engine).objective(fitBank, family, priors), bank: fitBank, parts: { ...family.parts }, family };
}

/**
 * A reasonable starting point for a family (theta from accuracy, items from choice rates): the
 * family, or a layout (its family read from the layout).
 */
export function initialParameters(bank: ResponseBank, familyOrLayout: ModelFamily | Layout): Float64Array {
  if ('start' in familyOrLayout) return familyOrLayout.start(bank, familyOrLayout.layout(bank));
  return familyOfLayout(familyOrLayout).start(bank, familyOrLayout);
}
