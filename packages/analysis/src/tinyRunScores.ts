import { scoreResponses, type CalibrationBundle, type ResponseRecord } from '@llm-nrm/core';

/**
 * How a tiny package's runs are scored, by `llm-nrm score <package>` and the lm-eval aggregation alike:
 * theta and sharpness fitted, bias and fallback under the calibrated fleet's spread as priors (core's
 * `minimiseTinyRun`; robust from a handful of items).
 */
export const TINY_NUISANCE = 'sharpness' as const;

/** A calibrated LLM scored as a tiny run of a package. */
export interface TinyRunScore {
  theta: number;
  logSharpness: number;
  /** Every answer of the run is hard (core's `LlmScore.hardAnswers`): its sharpness was held at 1. */
  hard: boolean;
}

const isIdentity = (pos: number[] | undefined) => pos === undefined || pos.every((p, k) => p === k);

/**
 * One presentation per (model, item) of the package's items, as a tiny run shows them: the
 * content-order one where the calibration had several (rotations), else the first.
 */
export function tinyRunRecords(records: readonly ResponseRecord[], ids: ReadonlySet<string>): ResponseRecord[] {
  const pick = new Map<string, ResponseRecord>();
  for (const r of records) {
    if (!ids.has(r.item)) continue;
    const k = `${r.model}\u0000${r.item}`;
    const had = pick.get(k);
    if (had === undefined || (!isIdentity(had.position) && isIdentity(r.position))) pick.set(k, r);
  }
  return [...pick.values()];
}

/**
 * The calibrated LLMs' answers to a package's items scored as `llm-nrm score <package>` scores a
 * run (the package's `scoring.nuisance`): the tiny-run estimates the accuracy estimator is fitted on.
 */
export function tinyRunScores(restricted: CalibrationBundle, runRecords: ResponseRecord[], nuisance: 'sharpness' | 'fleet'): Map<string, TinyRunScore> {
  const calibrated = new Set(restricted.llms.map((l) => l.id));
  const res = scoreResponses(
    restricted,
    runRecords.filter((r) => calibrated.has(r.model)),
    { nuisance, skipInvalid: true },
  );
  return new Map(res.llms.map((l) => [l.id, { theta: l.theta, logSharpness: Math.log(l.sharpness), hard: l.hardAnswers }]));
}
