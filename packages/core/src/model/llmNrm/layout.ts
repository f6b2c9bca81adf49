import type { LlmNrmLayout } from '../layout.js';

/** Mask of the parameters that are free (1) vs fixed (0) under the layout's switched-off parts. */
export function llmNrmFreeMask(layout: LlmNrmLayout): Uint8Array {
  const m = new Uint8Array(layout.size).fill(1);
  const { parts, nModels: J, kMax } = layout;
  if (!parts.sharpness) m.fill(0, layout.sbar, layout.sbar + J);
  else for (const j of layout.fixedSharpness ?? []) m[layout.sbar + j] = 0;
  if (!parts.position) m.fill(0, layout.delta, layout.delta + J * kMax);
  if (!parts.fallback) {
    m.fill(0, layout.rho, layout.rho + J * kMax);
    m[layout.w0] = 0;
    m[layout.kbar] = 0;
  }
  return m;
}

/** Indices of LLM j's own parameters: theta, sbar, delta_j., rho_j. */
export function llmNrmParamIndices(layout: LlmNrmLayout, j: number): number[] {
  const out = [layout.theta + j, layout.sbar + j];
  for (let k = 0; k < layout.kMax; k++) out.push(layout.delta + j * layout.kMax + k);
  for (let k = 0; k < layout.kMax; k++) out.push(layout.rho + j * layout.kMax + k);
  return out;
}
