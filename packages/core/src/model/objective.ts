import { LlmNrmError } from '../errors.js';
import { softplusInv, type Layout, type LlmNrmLayout } from './layout.js';

/** Gaussian priors of the MAP objective besides theta ~ N(0, 1). */
export interface Priors {
  /** SD of the N(0, sd^2) prior on item parameters (a, c; binary slope/intercept/guess/slip logits). Default 10: a weak ridge that keeps perfectly answered items finite. */
  itemSd?: number;
  /** SD of the N(0, sd^2) prior on positional biases delta and fallback logits rho. Default 2. */
  llmSd?: number;
  /**
   * SD of the log-normal prior log s_j ~ N(0, sd^2) on sharpness. Default 0.5. Sharpness and the scale
   * of (a, c) trade off, and theta ~ N(0, 1) does not pin that scale: without it the objective has a
   * nearly flat valley.
   */
  sharpnessSd?: number;
  /**
   * SD of the Gaussian priors on the gate's globals, w0 ~ N(gateW0, sd^2) and kappa_bar ~
   * N(softplus^-1(gateKappa), sd^2) (paper.md: G = sigmoid(w0 - kappa (theta - b))). Without it a fleet
   * answering few items can push w0 down a flat plateau, the gate shut for every cell.
   */
  gateSd?: number;
  /** Centre of the prior on w0 (default 0: at theta = b_i an LLM falls back half of the time). */
  gateW0?: number;
  /** Centre of the prior on kappa = softplus(kappa_bar) (default 1: one logit per unit of theta, theta's own scale). */
  gateKappa?: number;
}

/** Which rows (LLMs) an evaluation covers, and whether the item prior is added. */
export interface EvalScope {
  rowStart?: number;
  rowEnd?: number;
  /** Add the item-parameter prior (default true; false when only LLM blocks are of interest). */
  itemPrior?: boolean;
  /** Add the theta ~ N(0, 1) prior (default true; false when theta is standardised instead, see fit). */
  thetaPrior?: boolean;
}

/** The MAP objective L(x) every optimizer and engine shares: `lossAndGrad` writes dL/dx into `g` (zeroed first; 0 for fixed parameters) and returns L. */
export interface Objective {
  readonly layout: Layout;
  /** 1 for parameters the optimizer may move. */
  readonly free: Uint8Array;
  /** The engine that computes it, where an engine delegates to another (recorded in the bundle). */
  readonly engine?: string;
  /** Relative rounding noise of the loss (an f32 kernel's, about 1e-8); absent for f64 kernels. */
  readonly lossNoise?: number;
  lossAndGrad(x: Float64Array, g: Float64Array, scope?: EvalScope): number;
  /** Optional: replace the bank's targets q in place (same layout); later passes fit them (fit's 'twin' SE mode). */
  retarget?(q: Float32Array): void;
  /** Optional: the model's own p at x (model space) as the targets of every observed cell, in place (the twin's bank without a copy of q). */
  predictTargets?(x: Float64Array): void;
}

export const DEFAULT_PRIORS: Required<Priors> = { itemSd: 10, llmSd: 2, sharpnessSd: 0.5, gateSd: 2, gateW0: 0, gateKappa: 1 };

/** The priors' precisions and centres, defaults filled in. */
export interface PriorPrecisions {
  /** 1 / itemSd^2 (item parameters). */
  item: number;
  /** 1 / llmSd^2 (LLM nuisance parameters delta, rho). */
  llm: number;
  /** 1 / sharpnessSd^2 (log sharpness). */
  sharpness: number;
  /** 1 / gateSd^2 (the gate globals w0 and kappa_bar, each). */
  gate: number;
  /** The gate priors' centres: w0's and kappa_bar's (softplus^-1 of gateKappa). */
  w0Centre: number;
  kbarCentre: number;
}

/** The priors' precisions 1 / sd^2 (item parameters, LLM nuisance parameters, log sharpness, gate globals) and the gate's centres, defaults filled in. */
export function priorPrecisions(priors: Priors = {}): PriorPrecisions {
  const { itemSd, llmSd, sharpnessSd, gateSd, gateW0, gateKappa } = { ...DEFAULT_PRIORS, ...priors };
  return {
    item: 1 / (itemSd * itemSd),
    llm: 1 / (llmSd * llmSd),
    sharpness: 1 / (sharpnessSd * sharpnessSd),
    gate: 1 / (gateSd * gateSd),
    w0Centre: gateW0,
    kbarCentre: softplusInv(gateKappa),
  };
}

/** The end of every LLM-NRM kernel's pass: the item and gate priors (unless `scope.itemPrior` is false), fixed parameters' gradient zeroed, the loss checked finite. */
export function finishLlmNrmPass(
  layout: LlmNrmLayout,
  x: Float64Array,
  g: Float64Array,
  free: Uint8Array,
  prec: PriorPrecisions,
  loss: number,
  scope: EvalScope,
): number {
  const lamItem = prec.item;
  if (scope.itemPrior !== false) {
    if (layout.parts.fallback) loss += gatePrior(layout, x, g, prec);
    const A = layout.a;
    const Cc = layout.c;
    for (let t = 0; t < layout.sumK; t++) {
      const av = x[A + t]!;
      const cv = x[Cc + t]!;
      loss += 0.5 * lamItem * (av * av + cv * cv);
      g[A + t]! += lamItem * av;
      g[Cc + t]! += lamItem * cv;
    }
  }
  for (let t = 0; t < g.length; t++) if (free[t] === 0) g[t] = 0;
  return checkFinite(loss);
}

/** Throws NON_FINITE when a kernel's loss is not finite (a diverged fit or degenerate input). */
export function checkFinite(loss: number): number {
  if (!Number.isFinite(loss)) {
    // No CLI option is named here: `fit` and `score` each add the advice that fits their own options.
    throw new LlmNrmError('NON_FINITE', `objective became ${loss}; the fit diverged or the input is degenerate (check it for extreme values)`);
  }
  return loss;
}

/** Adds the gate globals' prior gradient to g and returns its loss (w0 ~ N(w0Centre, 1/gate), kappa_bar ~ N(kbarCentre, 1/gate)). */
function gatePrior(layout: LlmNrmLayout, x: Float64Array, g: Float64Array, prec: PriorPrecisions): number {
  const dw = x[layout.w0]! - prec.w0Centre;
  const dk = x[layout.kbar]! - prec.kbarCentre;
  g[layout.w0]! += prec.gate * dw;
  g[layout.kbar]! += prec.gate * dk;
  return 0.5 * prec.gate * (dw * dw + dk * dk);
}
