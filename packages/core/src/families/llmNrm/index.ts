import { hardenBank, type ResponseBank } from '../../bank.js';
import { computeDifficulties } from '../../difficulty.js';
import { LlmNrmError } from '../../errors.js';
import { llmNrmLayout, llmParamIndices, type Layout, type LlmNrmLayout } from '../../layout.js';
import { ALL_PARTS, NO_PARTS, type LlmNrmParts, type ModelName } from '../../types.js';
import type { ModelFamily } from '../family.js';
import { llmNrmCurvature } from './curvature.js';
import { llmNrmObjective } from './objective.js';
import { llmNrmPredictor } from './predict.js';
import { llmNrmStart } from './start.js';

function asLlmNrm(layout: Layout): LlmNrmLayout {
  if (layout.kind !== 'llm-nrm') throw new LlmNrmError('INVALID_OPTION', `expected an LLM-NRM layout, got ${layout.kind}`);
  return layout;
}

/** The option-level softmax family on a given set of parts; `prepare` hardens the bank for nrm-hard. */
function optionFamily(name: ModelName, parts: LlmNrmParts, prepare: (bank: ResponseBank) => ResponseBank): ModelFamily {
  return {
    name,
    parts: { ...parts },
    optionLevel: true,
    fleetIdentification: 'standardize',
    prepare,
    layout: (bank) => llmNrmLayout(bank, parts),
    start: (bank, layout) => llmNrmStart(bank, asLlmNrm(layout)),
    objective: (bank, layout, priors) => llmNrmObjective(bank, asLlmNrm(layout), priors),
    curvature: (bank, layout, priors) => {
      const L = asLlmNrm(layout);
      return (x, free, opts) => llmNrmCurvature(bank, L, x, free, priors, opts);
    },
    predictor: (bank, layout, x) => llmNrmPredictor(bank, asLlmNrm(layout), x),
    difficulties: (bank, layout, x) => {
      const L = asLlmNrm(layout);
      const I = bank.items.length;
      const b = new Float64Array(I);
      computeDifficulties(bank, x, L.a, L.c, b, new Float64Array(3 * I), new Float64Array(L.sumK));
      return b;
    },
    llmIndices: (layout, j) => llmParamIndices(layout, j),
  };
}

/** LLM-NRM (paper.md) with the given parts on (default all): soft targets, sharpness, position, fallback. */
export function llmNrmFamily(parts: Partial<LlmNrmParts> = {}): ModelFamily {
  return optionFamily('llm-nrm', { ...ALL_PARTS, ...parts }, (bank) => bank);
}

/** Bock's nominal response model on the soft distributions (LLM-NRM with every part off). */
export const nrmFamily: ModelFamily = optionFamily('nrm', NO_PARTS, (bank) => bank);

/** NRM on argmax-hardened responses (the classical nominal model). */
export const nrmHardFamily: ModelFamily = optionFamily('nrm-hard', NO_PARTS, hardenBank);
