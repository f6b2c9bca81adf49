import { LlmNrmError } from '@llm-nrm/core';
import type { HarnessExporter } from './harnessExporter.js';
import { inspectExporter } from './inspectExporter.js';
import { lmEvalExporter } from './lmEvalExporter.js';
import { openAIEvalsExporter } from './openaiEvalsExporter.js';

/** Every harness a tiny package can be exported to, by `--harness` name. */
export const HARNESS_EXPORTERS: ReadonlyMap<string, HarnessExporter> = new Map([lmEvalExporter, inspectExporter, openAIEvalsExporter].map((e) => [e.name, e]));

/** The exporter of a harness name; INVALID_OPTION naming the known ones otherwise. */
export function harnessExporter(name: string): HarnessExporter {
  const e = HARNESS_EXPORTERS.get(name);
  if (e === undefined) throw new LlmNrmError('INVALID_OPTION', `unknown harness ${JSON.stringify(name)} (known: ${[...HARNESS_EXPORTERS.keys()].join(', ')})`);
  return e;
}
