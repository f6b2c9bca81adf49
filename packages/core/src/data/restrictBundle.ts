import { getFamily } from '../model/registry.js';
import { validateBundle } from './bundle.js';
import type { CalibrationBundle } from './bundleFormat.js';

/**
 * The bundle restricted to the items `ids` (bundle order), every calibrated LLM kept; kMax and the
 * per-LLM position arrays (bias, fallback) of an option-level bundle cut to the items kept. A tiny
 * package's bundle, which its runs are scored against (`llm-nrm publish`, `llm-nrm score`, the site).
 */
export function restrictBundle(bundle: CalibrationBundle, ids: ReadonlySet<string>): CalibrationBundle {
  const items = bundle.items.filter((it) => ids.has(it.id));
  const kMax = Math.max(...items.map((it) => it.nOptions));
  const nrm = getFamily(bundle.model).kind === 'option-level';
  return validateBundle(
    JSON.parse(
      JSON.stringify({
        ...bundle,
        kMax,
        items,
        llms: bundle.llms.map((l) => ({
          ...l,
          positionBias: nrm ? l.positionBias.slice(0, kMax) : l.positionBias,
          fallback: nrm ? l.fallback.slice(0, kMax) : l.fallback,
        })),
      }),
    ),
    'restricted bundle',
  );
}
