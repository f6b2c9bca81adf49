/**
 * Whether a fit reached its optimum, read from its diagnostics (FitResult, a bundle's `fit`):
 * one rule for `llm-nrm fit` and every reader of a bundle (score, report, publish, the site).
 */

/**
 * A fit that ends farther than this many SEs from its optimum (L-BFGS's Newton decrement) is
 * unconverged; within it no estimate moved by more than its own uncertainty.
 */
const UNCONVERGED_DISTANCE = 1;

/** A fit's convergence as one verdict: settled or not, why it stopped, how far from its optimum. */
export interface FitConvergence {
  /** False when the fit ended farther than UNCONVERGED_DISTANCE SE from its optimum (or, with no distance, unconverged). */
  settled: boolean;
  /** The distance (SEs) past which a fit is unconverged: UNCONVERGED_DISTANCE. */
  limit: number;
  /** The optimizer's own flag. */
  converged: boolean;
  /** The criterion that stopped it ('distance', 'max-iterations', ...), null when not recorded. */
  reason: string | null;
  /** Estimated distance to the optimum in SEs, null when not estimated (Adam). */
  distance: number | null;
  /** One sentence saying what is wrong, null when settled. */
  message: string | null;
}

/** The verdict on a fit's diagnostics (FitResult or CalibrationBundle['fit']). */
export function fitConvergence(f: { converged: boolean; reason?: string | undefined; distance?: number | null | undefined }): FitConvergence {
  const distance = typeof f.distance === 'number' && Number.isFinite(f.distance) ? f.distance : null;
  const reason = f.reason ?? null;
  const settled = distance !== null ? distance <= UNCONVERGED_DISTANCE : f.converged;
  const why = reason !== null ? ` (stopped by ${reason})` : '';
  const far =
    distance !== null
      ? `it ended an estimated ${distance.toPrecision(3)} SE from its optimum (more than ${UNCONVERGED_DISTANCE} SE)`
      : 'it ended before its stopping rule';
  const message = settled ? null : `the calibration fit did not converge${why}: ${far}, so its estimates are not the model's`;
  return { settled, limit: UNCONVERGED_DISTANCE, converged: f.converged, reason, distance, message };
}
