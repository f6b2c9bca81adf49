import type { ResponseBank } from '../bank.js';
import type { Blocks } from '../internal/blocks.js';
import type { Layout } from '../layout.js';
import type { Objective, Priors } from '../objective.js';
import type { Predictor } from '../predict.js';
import type { LlmNrmParts, ModelName } from '../types.js';

/**
 * Block curvature of a family's objective at x: the factorised blocks the preconditioner applies,
 * and each LLM's own Gauss-Newton (expected information) block over `llmIndices(layout, j)`, priors
 * included except theta's (the caller adds it, or not, by identification).
 */
export interface CurvatureAt {
  blocks: Blocks;
  /** llm[j]: P_j x P_j row-major, P_j = llmIndices(layout, j).length; positive semi-definite. */
  llm: Float64Array[];
  /**
   * With `cross` (families with global parameters, e.g. LLM-NRM's gate w0, kbar): the GN block of
   * the globals over every cell, and each LLM's P_j x G cross block with them (row-major).
   */
  globals?: Float64Array;
  llmGlobals?: Float64Array[];
  globalIndices?: number[];
  /** With `cross`: each item's GN information block (2K x 2K over a_i then c_i; item prior included). */
  itemGN?: Float64Array[];
  /** With `itemInverse`: per LLM, B D^-1 B^T, the information its block loses when the items it answered are profiled out. */
  llmItem?: Float64Array[];
  /** With `cross` (and globals): each item's cross block with the globals (2K x G, row-major). */
  itemGlobals?: Float64Array[];
  /** With `itemZ`: per LLM, B Z (P_j x G), Z_i = D_i^-1 itemGlobals_i. */
  llmItemGlobals?: Float64Array[];
}

/** What a curvature evaluation adds beyond the preconditioner's blocks (the SEs' needs). */
export interface CurvatureOptions {
  /** Also return the globals' block, the LLM-globals cross blocks and the item GN blocks. */
  cross?: boolean;
  /** Inverses of `itemGN` (same layout): also return `llmItem`. */
  itemInverse?: Float64Array[];
  /** D_i^-1 itemGlobals_i per item (with itemInverse): also return `llmItemGlobals`. */
  itemZ?: Float64Array[];
  /** Largest move of the global parameters in one preconditioner application (default: none). */
  globalStepCap?: number;
}

/**
 * The priors on one LLM's own parameters (`llmIndices` order), for the standard errors' prior-bias
 * term: each parameter's Gauss-Newton prior precision (0: none), its current value in prior SDs
 * (u(x) / sd for a prior u(x) ~ N(0, sd^2)), and its group (0: none; one spread per group is
 * estimated over the fleet).
 */
export interface LlmPrior {
  precision: Float64Array;
  z: Float64Array;
  group: Uint8Array;
}

/**
 * One model family (DESIGN.md: the seam where models meet is one interface with a registry): the
 * parameter layout, start values, forward probabilities, the fused TypeScript objective, its block
 * curvature and the indices of each LLM's own parameters. Callers (fit, score, analysis, cli, the
 * engines) ask the family instead of branching on a model name.
 */
export interface ModelFamily {
  readonly name: ModelName;
  /** LLM-NRM processes switched on (all off for NRM and the binary models). */
  readonly parts: LlmNrmParts;
  /** True for the option-level softmax families (llm-nrm, nrm, nrm-hard). */
  readonly optionLevel: boolean;
  /** Default identification of a fleet fit (3+ LLMs): 'standardize', or 'prior' (1PL pins its own scale). */
  readonly fleetIdentification: 'standardize' | 'prior';
  /** The bank the family is fitted on (nrm-hard: argmax-hardened; others: the bank itself). */
  prepare(bank: ResponseBank): ResponseBank;
  /** The flat parameter layout on a (prepared) bank. */
  layout(bank: ResponseBank): Layout;
  /** Starting values from the bank's means. */
  start(bank: ResponseBank, layout: Layout): Float64Array;
  /** The fused TypeScript kernel (core's 'ts' engine). */
  objective(bank: ResponseBank, layout: Layout, priors: Priors): Objective;
  /** Curvature builder; the returned function is called at each refresh. */
  curvature(bank: ResponseBank, layout: Layout, priors: Priors): (x: Float64Array, free: Uint8Array, opts?: CurvatureOptions) => CurvatureAt;
  /** Forward model: p_jik for cells (the one place the family's probabilities are computed). */
  predictor(bank: ResponseBank, layout: Layout, x: Float64Array, wrongShares?: Float64Array): Predictor;
  /** Item difficulties b_i at x (LLM-NRM: the gate's guarded b_i; binary: -beta_i / a_i). */
  difficulties(bank: ResponseBank, layout: Layout, x: Float64Array): Float64Array;
  /**
   * A second starting point when a converged fit sits in a known degenerate basin (null: none).
   * LLM-NRM: the gate shut for every cell (w0 far below any kappa (theta - b)), a plateau where the
   * gate's gradient vanishes; the restart reopens it.
   */
  restart(layout: Layout, x: Float64Array, free: Uint8Array): Float64Array | null;
  /**
   * True when x sits where the rest of the descent is below float precision and the fit should
   * stop (LLM-NRM: the gate below 1e-9 in every cell, w0 drifting to -infinity); null: never.
   */
  degenerate: ((bank: ResponseBank, layout: Layout, x: Float64Array) => boolean) | null;
  /** Indices of LLM j's own parameters (theta first). */
  llmIndices(layout: Layout, j: number): number[];
  /** The priors on LLM j's own parameters (absent: none besides theta's). */
  llmPrior?(layout: Layout, x: Float64Array, priors: Priors, j: number): LlmPrior;
}
