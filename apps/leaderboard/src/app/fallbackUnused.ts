/**
 * Below 1% mean gate the fallback carries under 1% of the choices: its rho is then pinned by its prior
 * (0 +- 1.96 * llmSd), and a chart or a number of it would show the prior as if it were a finding.
 */
export function fallbackUnused(use: number | null | undefined): boolean {
  return use !== null && use !== undefined && use < 0.01;
}
