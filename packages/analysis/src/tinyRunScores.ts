import {
  bankFromRecords,
  bundleItems,
  bundleParameters,
  fit,
  scoreResponses,
  toBundle,
  withObserved,
  type CalibrationBundle,
  type ResponseRecord,
} from '@llm-nrm/core';

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
  return new Map(res.llms.map((l) => [l.id, { theta: l.theta, logSharpness: Math.log(l.sharpness) }]));
}

/** One cross-fit: the calibration refitted without `members`, and the map of its theta scale onto the bundle's. */
export interface CrossFit {
  members: Set<string>;
  /** The refitted calibration (its LLMs: the non-members). */
  bundle: CalibrationBundle;
  /** theta on the bundle's scale = align[0] + align[1] theta on this refit's (least squares over the non-members). */
  align: [number, number];
}

/**
 * The calibrated LLMs in `folds` folds (bundle order, LLM t in fold t mod folds), the calibration
 * refitted without each fold from the bundle's parameters (warm start, same model, parts and
 * priors). Each refit standardises its own fleet, so its theta scale is mapped back onto the
 * bundle's by least squares over the LLMs both calibrations hold.
 */
export function crossFitCalibrations(bundle: CalibrationBundle, records: readonly ResponseRecord[], folds: number, say?: (msg: string) => void): CrossFit[] {
  const ids = bundle.llms.map((l) => l.id);
  const calibrated = new Set(ids);
  const { bank } = bankFromRecords(
    records.filter((r) => calibrated.has(r.model)),
    { items: bundleItems(bundle), skipInvalid: true, dropEmpty: false },
  );
  const { x: init } = bundleParameters(bundle, bank);
  const nC = bank.colItem.length;
  const full = new Map(bundle.llms.map((l) => [l.id, l.theta]));
  const out: CrossFit[] = [];
  for (let g = 0; g < folds; g++) {
    const members = new Set(ids.filter((_, t) => t % folds === g));
    say?.(`cross-fit ${g + 1}/${folds}: the calibration without ${members.size} of ${ids.length} LLMs`);
    const mask = Uint8Array.from(bank.observed);
    bank.models.forEach((id, j) => {
      if (members.has(id)) mask.fill(0, j * nC, (j + 1) * nC);
    });
    const res = fit(withObserved(bank, mask), {
      model: bundle.model,
      parts: bundle.parts,
      ...(bundle.priors ? { priors: bundle.priors } : {}),
      init,
      standardErrors: false,
    });
    const b = toBundle(res, { version: 'cross-fit' });
    const kept = { ...b, llms: b.llms.filter((l) => !members.has(l.id)) };
    // Least squares theta_bundle = a + b theta_refit over the LLMs both hold.
    const pairs = kept.llms.map((l) => [l.theta, full.get(l.id)!] as const);
    const n = pairs.length;
    const mx = pairs.reduce((s, p) => s + p[0], 0) / n;
    const my = pairs.reduce((s, p) => s + p[1], 0) / n;
    const vx = pairs.reduce((s, p) => s + (p[0] - mx) ** 2, 0);
    const slope = vx > 1e-12 ? pairs.reduce((s, p) => s + (p[0] - mx) * (p[1] - my), 0) / vx : 1;
    out.push({ members, bundle: kept, align: [my - slope * mx, slope] });
  }
  return out;
}

/**
 * The calibrated LLMs' tiny runs scored out of sample: each on its cross-fit (the calibration
 * without it), restricted by `restrict` to the package's items, theta mapped onto the bundle's scale.
 */
export function crossFittedTinyRunScores(
  cross: readonly CrossFit[],
  restrict: (b: CalibrationBundle) => CalibrationBundle,
  runRecords: ResponseRecord[],
  nuisance: 'sharpness' | 'fleet',
): Map<string, TinyRunScore> {
  const out = new Map<string, TinyRunScore>();
  for (const c of cross) {
    const res = scoreResponses(
      restrict(c.bundle),
      runRecords.filter((r) => c.members.has(r.model)),
      { nuisance, skipInvalid: true },
    );
    for (const l of res.llms) out.set(l.id, { theta: c.align[0] + c.align[1] * l.theta, logSharpness: Math.log(l.sharpness) });
  }
  return out;
}
