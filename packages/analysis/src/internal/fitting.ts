import { fit as coreFit, withObserved, type FitOptions, type Layout, type ResponseBank } from '@llm-nrm/core';
import type { ModelSpec } from '../modelSpec.js';

/** What the experiments need from a fit. */
export interface FitLike {
  layout: Layout;
  x: Float64Array;
  converged: boolean;
  /** Estimated distance to the optimum at the end, in SEs (core's FitResult.distance), where known. */
  distance?: number;
}

export type FitFn = (bank: ResponseBank, options: FitOptions) => FitLike;

export type ExperimentFitOptions = Omit<FitOptions, 'model' | 'parts' | 'init' | 'fixItems' | 'onProgress'>;

/** The options every experiment fit of `spec` starts from: no SEs unless asked, the spec's model and parts. */
function specOptions(spec: ModelSpec, fitOptions: ExperimentFitOptions | undefined): FitOptions {
  return { standardErrors: false, ...fitOptions, model: spec.model, ...(spec.parts ? { parts: spec.parts } : {}) };
}

/** Fit `spec` on the cells of `mask` only (items and LLMs jointly). */
export function fitOnMask(
  bank: ResponseBank,
  mask: Uint8Array,
  spec: ModelSpec,
  fitOptions: ExperimentFitOptions | undefined,
  fitFn: FitFn = coreFit,
  say?: (msg: string) => void,
  label = '',
): FitLike {
  return fitFn(withObserved(bank, mask), {
    ...specOptions(spec, fitOptions),
    ...(say ? { onProgress: (p) => say(`${label}iteration ${p.iteration}, loss ${p.loss.toFixed(2)}`) } : {}),
  });
}

/**
 * Per-LLM parameters of the LLMs with cells in `mask`, item parameters (and globals) held at the
 * calibration's values (`fixItems`). Rows without cells stay near the prior; read only masked rows.
 */
export function fitFixedItems(
  bank: ResponseBank,
  mask: Uint8Array,
  spec: ModelSpec,
  calib: FitLike,
  fitOptions: ExperimentFitOptions | undefined,
  fitFn: FitFn = coreFit,
): FitLike {
  return fitFn(withObserved(bank, mask), { ...specOptions(spec, fitOptions), init: calib.x, fixItems: true });
}
