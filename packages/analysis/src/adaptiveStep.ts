import { LlmNrmError, scoreResponses, type CalibrationBundle, type ResponseRecord } from '@llm-nrm/core';
import { fleetNuisance } from '@llm-nrm/core/engine';
import { poolFromBundle, type AdaptivePool } from './adaptivePool.js';
import { nextAdaptiveItems, type NextItemsOptions } from './nextAdaptiveItems.js';
import { TINY_NUISANCE, tinyRunRecords } from './tinyRunScores.js';

export interface AdaptiveOptions extends NextItemsOptions {
  /** Items per round (default 4): a harness scores a round's requests in one batch. */
  batch?: number;
  /** Stop once the standard error of theta is at most this (default 0.3) ... */
  se?: number;
  /** ... and at least this many items were answered (default 10). */
  minItems?: number;
  /** Stop at this many items whatever the SE (default 60). */
  maxItems?: number;
  /** Items never asked (flagged by `llm-nrm report`, or without a prompt). */
  exclude?: ReadonlySet<string>;
}

/** Defaults of the adaptive runners (the exported Python runners write the same into their bank). */
export const ADAPTIVE_DEFAULTS = { batch: 4, se: 0.3, minItems: 10, maxItems: 60, randomesque: 1, seed: 1 } as const;

/** Why a run stopped. */
export type AdaptiveStop = 'se' | 'max-items' | 'pool';

export interface AdaptiveState {
  /** The estimate from the answers so far (the tiny-run rule; before any answer: 0, the prior's SD, the fleet's sharpness). */
  theta: number;
  se: number;
  sharpness: number;
  /** Distinct pool items answered. */
  answered: number;
  /** The next round's item ids (empty when done). */
  next: string[];
  /** Why the run is over, or null while it goes on. */
  stop: AdaptiveStop | null;
}

/** Prior SD of theta before any answer: `scoreResponses`' N(0, 3^2). */
const THETA_PRIOR_SD = 3;

/**
 * One step of an adaptive test, stateless: from a calibrated bundle and one LLM's answers so far,
 * the current estimate (scored as `llm-nrm score` scores a tiny run: theta and sharpness fitted,
 * bias and fallback under the fleet's spread as priors), whether to stop, and the next round of
 * items, chosen by option-level information at the estimate (`nextAdaptiveItems`). Replaying a
 * run's answers step by step gives back the items it asked.
 */
export function adaptiveStep(bundle: CalibrationBundle, answers: readonly ResponseRecord[], options: AdaptiveOptions = {}, pool?: AdaptivePool): AdaptiveState {
  const o = { ...ADAPTIVE_DEFAULTS, ...options };
  const P = pool ?? poolFromBundle(bundle, options.exclude);
  const index = new Map(P.ids.map((id, i) => [id, i]));
  const models = new Set(answers.map((r) => r.model));
  if (models.size > 1)
    throw new LlmNrmError('INVALID_OPTION', `an adaptive run scores one LLM; the answers name ${models.size}: ${[...models].slice(0, 3).join(', ')}`);
  const asked = new Uint8Array(P.ids.length);
  for (const r of answers) {
    const i = index.get(r.item);
    if (i !== undefined) asked[i] = 1;
  }
  let answered = 0;
  for (let i = 0; i < asked.length; i++) answered += asked[i]!;
  let theta = 0;
  let se = THETA_PRIOR_SD;
  let sharpness = bundle.model === 'llm-nrm' && bundle.parts.sharpness ? Math.exp(fleetNuisance(bundle).logSharpness) : 1;
  if (answered > 0) {
    const s = scoreResponses(bundle, tinyRunRecords(answers, new Set(P.ids)), { nuisance: TINY_NUISANCE, skipInvalid: true }).llms[0]!;
    theta = s.theta;
    se = s.se;
    sharpness = s.sharpness;
  }
  let open = 0;
  for (let i = 0; i < asked.length; i++) if (P.eligible[i] && !asked[i]) open++;
  const stop: AdaptiveStop | null = answered >= o.maxItems ? 'max-items' : answered >= o.minItems && se <= o.se ? 'se' : open === 0 ? 'pool' : null;
  if (stop !== null) return { theta, se, sharpness, answered, next: [], stop };
  const count = Math.min(o.batch, o.maxItems - answered);
  const next = nextAdaptiveItems(P, asked, theta, sharpness, count, o).map((i) => P.ids[i]!);
  return { theta, se, sharpness, answered, next, stop: null };
}
