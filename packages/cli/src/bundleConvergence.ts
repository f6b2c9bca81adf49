import { fitConvergence, type CalibrationBundle, type FitConvergence } from '@llm-nrm/core';

export { bundleConvergence, calibrationJson, unconvergedLine, unconvergedWarning };

/** The verdict on a bundle's fit (core's fitConvergence): what every bundle reader reports. */
function bundleConvergence(bundle: Pick<CalibrationBundle, 'fit'>): FitConvergence {
  return fitConvergence(bundle.fit);
}

/**
 * The line a command prints first when the bundle it reads came from an unconverged fit (written
 * under `fit --allow-unconverged`), null when it converged: the estimates it goes on to print
 * inherit the fit's distance from its optimum, and a warning after the table is missed.
 */
function unconvergedLine(bundle: Pick<CalibrationBundle, 'fit'>, file: string): string | null {
  const c = bundleConvergence(bundle);
  return c.message === null ? null : `warning: ${file}: ${c.message}\n`;
}

/** The bundle warning `fit --allow-unconverged` records (the site shows bundle warnings with its leaderboard). */
function unconvergedWarning(c: FitConvergence): { code: 'UNCONVERGED'; message: string } | null {
  return c.message === null ? null : { code: 'UNCONVERGED', message: `${c.message[0]!.toUpperCase()}${c.message.slice(1)}.` };
}

/** The verdict as a command's JSON output carries it (first key: `calibration`). */
function calibrationJson(bundle: Pick<CalibrationBundle, 'fit'>): {
  converged: boolean;
  settled: boolean;
  reason: string | null;
  distance: number | null;
  warning: string | null;
} {
  const c = bundleConvergence(bundle);
  return { converged: c.converged, settled: c.settled, reason: c.reason, distance: c.distance, warning: c.message };
}
