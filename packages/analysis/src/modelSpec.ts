import { LlmNrmError, MODEL_NAMES, type LlmNrmParts, type ModelName } from '@llm-nrm/core';

/** A model to evaluate: a row name, the family, and (for LLM-NRM ablations) its parts. */
export interface ModelSpec {
  name: string;
  model: ModelName;
  parts?: Partial<LlmNrmParts>;
}

/** The ablation rows of paper.md, Table 1: LLM-NRM without each process, and soft NRM. */
export const ABLATIONS: readonly ModelSpec[] = [
  { name: 'llm-nrm -sharpness', model: 'llm-nrm', parts: { sharpness: false } },
  { name: 'llm-nrm -position', model: 'llm-nrm', parts: { position: false } },
  { name: 'llm-nrm -fallback', model: 'llm-nrm', parts: { fallback: false } },
  { name: 'nrm', model: 'nrm' },
];

/** Resolve model names and specs (plus the ablation rows when asked) to specs with unique names. */
export function modelSpecs(models: readonly (ModelName | ModelSpec)[], ablations = false): ModelSpec[] {
  const out: ModelSpec[] = [];
  const names = new Set<string>();
  const add = (s: ModelSpec): void => {
    if (!MODEL_NAMES.includes(s.model)) {
      throw new LlmNrmError('INVALID_OPTION', `unknown model: ${JSON.stringify(s.model)} (one of ${MODEL_NAMES.join(', ')})`);
    }
    if (names.has(s.name)) return;
    names.add(s.name);
    out.push(s);
  };
  for (const m of models) add(typeof m === 'string' ? { name: m, model: m } : m);
  if (ablations) for (const a of ABLATIONS) add(a);
  return out;
}
