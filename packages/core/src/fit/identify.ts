import type { ResponseBank } from '../data/bank.js';
import { resolveEngine, type Engine } from '../engines.js';
import { LlmNrmError } from '../errors.js';
import type { ModelFamily } from '../model/family.js';
import type { Layout } from '../model/layout.js';
import { identifiedParts, identifiedPriors } from '../model/llmNrm/hardOnlyModels.js';
import { getFamily } from '../model/registry.js';
import type { Objective, Priors } from '../model/objective.js';
import type { LlmNrmParts, ModelName } from '../model/types.js';
import { freezeItems, freezeLlms, standardizeTheta, standardized, withThetaSd } from './identification.js';
import { modelObjective } from './modelObjective.js';

/** What `identify` reads of FitOptions. */
export interface IdentifyOptions {
  /** Model family. Default 'llm-nrm'. */
  model?: ModelName;
  /** LLM-NRM parts (ablations); default all on. Ignored by other models. */
  parts?: Partial<LlmNrmParts>;
  priors?: Priors;
  /**
   * The engine computing loss and gradient: an Engine object or a registered name (default 'ts',
   * core's fused kernels; `@llm-nrm/engine-tfjs` provides 'tfjs'). The preconditioner's curvature
   * runs on the engine where it has one (`Engine.curvature`); SEs and the optimizer run in TypeScript.
   */
  engine?: Engine | string;
  /**
   * How the ability scale is pinned. 'standardize' (default for fleet fits of 3+ LLMs, except 1PL):
   * theta = (t - mean t) / sd t over the calibration LLMs. 'prior': the paper's theta ~ N(0, 1) term
   * alone, which in a joint MAP lets the scale drift against the slopes (BENCHMARKS.md). Scoring
   * with fixed items always uses the prior.
   */
  identification?: 'standardize' | 'prior';
  /** SD of the theta prior under 'prior' identification (default 1, the paper's N(0, 1)). */
  thetaSd?: number;
  /** Warm start: a parameter vector of the same layout. */
  init?: Float64Array;
  /**
   * Hold item parameters and globals (w0, kappa) at their `init` values and fit only the per-LLM
   * parameters: scoring LLMs against a calibrated bank, held-out LLMs in cross-validation.
   */
  fixItems?: boolean;
  /**
   * The mirror of fixItems: hold every per-LLM parameter and the globals at their `init` values and
   * fit only the items (new items into a calibrated bank, `llm-nrm extend`). Theta is fixed, so
   * identification is 'prior' (nothing to standardise); theta SEs are not this fit's, so `fit`
   * needs `standardErrors: false` with it.
   */
  fixLlms?: boolean;
}

/**
 * A fit's problem, identified: the family's objective on its bank, wrapped so that the optimizer's
 * x holds raw theta (standardised), and the map from that x to the model's values.
 */
export interface FitProblem {
  model: ModelName;
  family: ModelFamily;
  parts: LlmNrmParts;
  engine: Engine;
  priors: Priors;
  /** The bank the objective sees (hardened for nrm-hard). */
  bank: ResponseBank;
  layout: Layout;
  /** LLMs. */
  J: number;
  fixItems: boolean;
  identification: 'standardize' | 'prior';
  /** SD of the theta prior (Infinity under standardisation). */
  thetaSd: number;
  /** The engine's objective as built (retarget, engine name, the SEs' curvature). */
  base: Objective;
  /** base with items frozen (fixItems) and the theta prior's SD: what the preconditioner and SEs read. */
  priorObjective: Objective;
  /** What the optimizer minimises (theta standardised where asked). */
  objective: Objective;
  /** The optimizer's x to the model's values. */
  toModel(x: Float64Array): Float64Array;
  /** The starting point, in the optimizer's x. */
  start: Float64Array;
}

/** Build and identify a fit's objective (FitOptions.identification; paper.md, "Fitting"). */
export function identify(bank: ResponseBank, options: IdentifyOptions): FitProblem {
  const model = options.model ?? 'llm-nrm';
  const engine = resolveEngine(options.engine);
  // A fresh fit drops what its bank cannot identify (an all-hard bank: the gate) and tightens the
  // item prior there; a warm start (scoring, extending) keeps the calibration's parts and priors.
  const requested = getFamily(model, options.parts);
  const fresh = options.init === undefined;
  const parts = fresh ? identifiedParts(bank, requested.parts) : options.parts;
  const priors = fresh ? identifiedPriors(bank, requested.kind === 'option-level', options.priors ?? {}) : (options.priors ?? {});
  const built = modelObjective(bank, model, parts, priors, engine);
  const { bank: fitBank, family } = built;
  const fixItems = options.fixItems === true;
  if (fixItems && !options.init) throw new LlmNrmError('INVALID_OPTION', 'fixItems needs init (the calibrated parameters)');
  const fixLlms = options.fixLlms === true;
  if (fixLlms) {
    if (!options.init) throw new LlmNrmError('INVALID_OPTION', 'fixLlms needs init (the calibrated LLM parameters and globals)');
    if (fixItems) throw new LlmNrmError('INVALID_OPTION', 'fixItems and fixLlms together leave nothing to fit');
    if (options.identification === 'standardize') throw new LlmNrmError('INVALID_OPTION', "fixLlms holds theta fixed: identification is 'prior'");
  }
  const J = bank.models.length;
  const identification = options.identification ?? (!fixItems && !fixLlms && J >= 3 ? family.fleetIdentification : 'prior');
  const frozen = fixItems ? freezeItems(built.objective) : fixLlms ? freezeLlms(built.objective) : built.objective;
  const thetaSd = identification === 'prior' ? (options.thetaSd ?? 1) : Infinity;
  const priorObjective = identification === 'prior' && thetaSd !== 1 ? withThetaSd(frozen, thetaSd) : frozen;
  const standardize = identification === 'standardize';
  const objective = standardize ? standardizeTheta(priorObjective) : priorObjective;
  const toModel = (x: Float64Array): Float64Array => (standardize ? standardized(x, J) : x);
  const layout = objective.layout;
  const x0 = options.init ? Float64Array.from(options.init) : family.start(fitBank, layout);
  if (x0.length !== layout.size) throw new LlmNrmError('INVALID_OPTION', `init has ${x0.length} parameters, the model needs ${layout.size}`);
  return {
    model,
    family,
    parts: built.parts,
    engine,
    priors,
    bank: fitBank,
    layout,
    J,
    fixItems,
    identification,
    thetaSd,
    base: built.objective,
    priorObjective,
    objective,
    toModel,
    start: x0,
  };
}
