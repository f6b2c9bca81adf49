import type { ResponseBank } from '../data/bank.js';
import type { BundleItem, BundleLlm, CalibrationBundle } from '../data/bundleFormat.js';
import type { Blocks } from '../internal/blocks.js';
import type { Layout } from './layout.js';
import type { Objective, Priors } from './objective.js';
import type { LlmNrmParts, ModelName } from './types.js';

/**
 * Model probabilities p_jik for cells of a bank (content order), for every model family:
 * LLM-NRM/NRM by the softmax of paper.md; binary models give P(correct) at the key and spread the
 * wrong mass 1 - P over the distractors in proportion to `wrongShares` (per item option, summing to
 * 1 over the distractors; uniform when not given), as paper.md prescribes for option prediction.
 */
export interface Predictor {
  readonly layout: Layout;
  /** Write p for cell (j, column c) into out[0..K). */
  cell(j: number, c: number, out: Float64Array): void;
  /** P(correct) for cell (j, c). */
  pKey(j: number, c: number): number;
  /**
   * Option-level families (p = softmax(v)): the logits v_k of cell (j, c) into v[0..K), at ability
   * `theta` (default the LLM's own), and dv_k/dtheta into `dv` when given. null where the
   * probabilities are not a softmax over option logits (binary families).
   */
  readonly logits: ((j: number, c: number, v: Float64Array, dv?: Float64Array, theta?: number) => void) | null;
  /**
   * Option-level families, optional: the derivative of LLM j's logits along a direction w over the
   * parameters `idx` (LLM j's own and the globals), dv_k = sum_a w_a dv_k/dx_idx[a], analytically;
   * returns a function writing, for a cell (j, c), p[0..K) (`cell`'s, bit for bit) and dv[0..K),
   * valid until the next call of `along`. null where the direction moves a parameter it does not
   * cover. The SEs' dispersion reads it (fit/standardErrors.ts).
   */
  readonly along?: (j: number, idx: Int32Array, w: Float64Array) => ((c: number, p: Float64Array, dv: Float64Array) => void) | null;
}

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
  /**
   * With `cross`: each item's GN information block (2K x 2K over a_i then c_i; item prior included).
   * thetaStandardErrors inverts these blocks in place: a curvature must return arrays of its own.
   */
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
  /**
   * With itemInverse: only `llmItem` (and `llmItemGlobals`) are wanted (the standard errors' second
   * pass); a family may then leave `blocks` empty and `llm` [].
   */
  correctionOnly?: boolean;
  /**
   * The caller reads the cross blocks and `llm`, never `blocks` (the standard errors' first pass):
   * a family may then leave `blocks` empty, skipping their factorisation and the terms only the
   * preconditioner uses.
   */
  blocksUnused?: boolean;
}

/** The fleet's typical nuisance parameters of an LLM (scoring's `fleetNuisance`), in layout scale. */
export interface FleetNuisance {
  sbar: number;
  delta: number[];
  rho: number[];
}

/**
 * A family's side of the calibration bundle: its parameters on the bundle's scale and back. bundle.ts
 * and score.ts ask it instead of branching on the model name or re-deriving the parametrisation.
 */
export interface BundleMapping {
  /** LLM j's sharpness (natural scale; 1 without), position bias and fallback (centred; [] without). */
  bundleLlm(layout: Layout, x: Float64Array, j: number): Pick<BundleLlm, 'sharpness' | 'positionBias' | 'fallback'>;
  /** Item i's parameters: option slopes and intercepts (centred; [] for binary) and, for binary, `irt`. */
  bundleItem(bank: ResponseBank, layout: Layout, x: Float64Array, i: number): Pick<BundleItem, 'a' | 'c' | 'irt'>;
  /** The gate's globals w0 and kappa (0 and 0 without a gate). */
  bundleGlobals(layout: Layout, x: Float64Array): CalibrationBundle['globals'];
  /**
   * The inverse: the bundle's parameters laid out for `bank` (its items the bundle's, in order);
   * LLMs not in the bundle at theta 0, sharpness 1, no bias or fallback.
   */
  fromBundle(bundle: CalibrationBundle, bank: ResponseBank): { layout: Layout; x: Float64Array };
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
  /**
   * Groups whose fleet spread the data measure: one coordinate per LLM that every cell informs
   * (LLM-NRM: sharpness). The 'twin' SE mode estimates their spread by the unbiased moment
   * (StandardErrorOptions.spread 'measured'); the others keep the posterior moment.
   */
  measured?: readonly number[];
}

/**
 * What every model family has (DESIGN.md: the seam where models meet is one interface with a
 * registry): the parameter layout, start values, forward probabilities, the fused TypeScript
 * objective, its block curvature, each LLM's own parameters and the bundle mapping. Callers ask the
 * family instead of branching on a model name; what only one kind has sits on that kind.
 */
interface FamilyBase extends BundleMapping {
  readonly name: ModelName;
  /** LLM-NRM processes switched on (all off for NRM and the binary models). */
  readonly parts: LlmNrmParts;
  /** Display name: 'LLM-NRM' (its switched-off parts noted, e.g. 'LLM-NRM (without fallback)'), 'NRM', 'NRM-HARD', '1PL'..'4PL'. */
  readonly label: string;
  /** Default identification of a fleet fit (3+ LLMs): 'standardize', or 'prior' (1PL pins its own scale). */
  readonly fleetIdentification: 'standardize' | 'prior';
  /**
   * Fit's default `toleranceDistance` (Infinity: the relative-tolerance stop counts wherever it
   * fires; else only within this many SEs of the optimum).
   */
  readonly toleranceDistance: number;
  /**
   * Engines may run this family's pass with their own exp and log (engine-wasm's 'simd' binary pass:
   * within 1e-12 relative of core's kernel, not its bits); false: an engine gives core's bits where it can.
   */
  readonly fastKernel: boolean;
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
  predictor(bank: ResponseBank, layout: Layout, x: Float64Array, wrongShares?: Float64Array, difficulties?: Float64Array): Predictor;
  /** Item difficulties b_i at x (LLM-NRM: the gate's guarded b_i; binary: -beta_i / a_i). */
  difficulties(bank: ResponseBank, layout: Layout, x: Float64Array): Float64Array;
  /**
   * A second starting point when a converged fit sits in a known degenerate basin (null: none).
   * LLM-NRM: the gate shut for every cell, or (given the bank, x in model space) the fallback
   * dominating no cell; the restart reopens it at the centre of the fit's gate prior (`priors`).
   */
  restart(layout: Layout, x: Float64Array, free: Uint8Array, bank?: ResponseBank, priors?: Priors): Float64Array | null;
  /** True where the rest of the descent is below float precision and the fit should stop (LLM-NRM: the gate below 1e-9 in every cell). */
  degenerate(bank: ResponseBank, layout: Layout, x: Float64Array): boolean;
  /** Indices of LLM j's own parameters (theta first). */
  llmIndices(layout: Layout, j: number): number[];
  /** Mask of the layout's free (1) and fixed (0) parameters (switched-off parts, unused item parameters). */
  freeMask(layout: Layout): Uint8Array;
  /** The priors on LLM j's own parameters (`llmIndices` order); none besides theta's: zero precision. */
  llmPrior(layout: Layout, x: Float64Array, priors: Priors, j: number): LlmPrior;
}

/** The softmax families over option logits (LLM-NRM, NRM, NRM-hard): per-LLM sharpness, position and fallback slots. */
export interface OptionLevelFamily extends FamilyBase {
  readonly kind: 'option-level';
  /**
   * True where `prepare` replaces the responses (nrm-hard: argmax-hardened): per-LLM quantities
   * computed from the soft responses as read (bias and fallback SEs, the twin) do not belong to its fit.
   */
  readonly hardened: boolean;
  /**
   * Item i's own curve at ability theta without any LLM's nuisance (paper.md, "Information"): the
   * NRM logits v_k = a_ik theta + c_ik into v[0..K) and their theta slopes a_ik into dv (when given).
   */
  itemLogits(bank: ResponseBank, layout: Layout, x: Float64Array, i: number, theta: number, v: Float64Array, dv?: Float64Array): void;
  /** Index in x of LLM j's sharpness sbar_j (s_j = softplus(sbar_j)); the slot exists whether or not sharpness is fitted. */
  sharpnessIndex(layout: Layout, j: number): number;
  /** Hold LLM j's sharpness, bias and fallback at the fleet's (scoring with few items). */
  holdNuisance(layout: Layout, x: Float64Array, j: number, fleet: FleetNuisance): void;
  /** Set LLM j's sharpness to s (natural scale). */
  setSharpness(layout: Layout, x: Float64Array, j: number, s: number): void;
}

/** Binary IRT (1PL-4PL) on correctness: no LLM nuisance, no globals. */
export interface BinaryFamily extends FamilyBase {
  readonly kind: 'binary';
  /** Item i's P(correct) at theta, 1 - P (formed without cancellation) and dP/dtheta into out[0..3). */
  keyCurve(layout: Layout, x: Float64Array, i: number, theta: number, out: Float64Array): void;
}

/** One model family: ask `kind` for what only option-level or binary families have. */
export type ModelFamily = OptionLevelFamily | BinaryFamily;
