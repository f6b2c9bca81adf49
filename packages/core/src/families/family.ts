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
  curvature(bank: ResponseBank, layout: Layout, priors: Priors): (x: Float64Array, free: Uint8Array) => CurvatureAt;
  /** Forward model: p_jik for cells (the one place the family's probabilities are computed). */
  predictor(bank: ResponseBank, layout: Layout, x: Float64Array, wrongShares?: Float64Array): Predictor;
  /** Item difficulties b_i at x (LLM-NRM: the gate's guarded b_i; binary: -beta_i / a_i). */
  difficulties(bank: ResponseBank, layout: Layout, x: Float64Array): Float64Array;
  /** Indices of LLM j's own parameters (theta first). */
  llmIndices(layout: Layout, j: number): number[];
}
