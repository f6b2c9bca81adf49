import type { ResponseBank } from './bank.js';
import { GLOBAL_STEP_CAP, blockPreconditioner, type BlockPreconditioner } from './curvature.js';
import { resolveEngine, type CurvatureBuilder, type Engine } from './engine.js';
import { LlmNrmError } from './errors.js';
import type { ModelFamily } from './families/family.js';
import { familyOfLayout, getFamily } from './families/registry.js';
import { minimizeAdam } from './fit/adam.js';
import {
  centreSharpness,
  centredSharpness,
  freeSharpnessOffset,
  freezeItems,
  rawSharpness,
  standardizeTheta,
  standardized,
  withThetaSd,
} from './fit/identification.js';
import { minimizeLbfgs } from './fit/lbfgs.js';
import type { OptimizeOptions, OptimizeProgress, OptimizeResult, OptimizerName } from './fit/optimizer.js';
import { thetaStandardErrors } from './fit/standardErrors.js';
import { forEachTwinRows, TWIN_BIAS_SCALE, twinBank, twinBiasSe } from './fit/twinBias.js';
import { standardizeInto } from './internal/standardized.js';
import type { Layout } from './layout.js';
import { DEFAULT_PRIORS, type Objective, type Priors } from './objective.js';
import type { LlmNrmParts, ModelName } from './types.js';

/**
 * Default L-BFGS stop: every parameter estimated within 0.01 of its standard error of the optimum
 * (predicted remaining decrease 5e-5 nats). Measured against a fit run to relative tolerance 1e-13
 * (bench/core/stopping.js, 189 x 2,000): every theta within 0.005 SE, every a_ik within 0.0014 SE. At
 * 0.05 (173 passes instead of 195; gaps 0.017 and 0.006 SE) re-scoring the calibration responses
 * against the bundle moved thetas by up to 0.28 SE (cli score test: 0.25).
 */
export const DISTANCE_TOLERANCE = 0.01;

/** The twin's bias check's stopping distance, in SEs (fit/twinBias.ts): its bias need not be finer than a tenth of an SE. */
const TWIN_DISTANCE = 0.1;

/**
 * The twin's L-BFGS memory (curvature pairs; the fit keeps 12 and hands them over). Its slow
 * direction is the strong LLMs' thetas with the hard items they share, which the block
 * preconditioner leaves out; more pairs carry more of it. Paper scale (189 x 31,554, wasm, 2
 * threads; packages/core/BENCHMARKS.md "The twin's memory and targets"): 12 pairs 216 passes, 24
 * pairs 152 (the twin's CPU -18%), 40 pairs 141 but no faster (the two-loop's vector work grows
 * with the pairs) and over 1 GB at the peak. At 6 to 2,000 items the passes and the accuracy
 * against a twin run to 0.001 SE are the same within noise.
 */
const TWIN_MEMORY = 24;

/**
 * The iteration from which the fit's line search starts from Nocedal and Wright's eq. 3.60 step
 * (fit/lbfgs.ts, OptimizeOptions.decreaseStepFrom); the twin, a refit from the optimum, uses it from
 * its first. 189 x 2,000, seven fleets: 12% fewer passes; paper scale 340 -> 266 fit passes and
 * 152 -> 90 twin passes (BENCHMARKS.md "The first trial step"). From the first iteration the fit
 * took fewer passes again but ended in a worse local minimum on 4 of 20 small fleets (24 x 40),
 * none better.
 */
const DECREASE_STEP_FROM = 30;

/** LLM rows per block of the twin's targets handed to an engine's retargetRows (12 MB at paper scale). */
const TWIN_ROWS = 16;

/** The SE modes of a fleet fit (FitOptions.seMode). */
export const SE_MODES = ['quasi', 'twin'] as const;
export type SeMode = (typeof SE_MODES)[number];

export interface FitOptions {
  /** Model family. Default 'llm-nrm'. */
  model?: ModelName;
  /** LLM-NRM parts (ablations); default all on. Ignored by other models. */
  parts?: Partial<LlmNrmParts>;
  /**
   * The engine computing loss and gradient: an Engine object or a registered name (default 'ts',
   * core's fused kernels; `@llm-nrm/engine-tfjs` provides 'tfjs'). The preconditioner's curvature
   * runs on the engine where it has one (`Engine.curvature`); SEs and the optimizer run in TypeScript.
   */
  engine?: Engine | string;
  /** 'lbfgs' (default: block-preconditioned L-BFGS) or 'adam' (the paper's recipe). */
  optimizer?: OptimizerName;
  /** Adam steps (default 2500) and learning rate (default 0.05). */
  steps?: number;
  lr?: number;
  /** L-BFGS iteration cap (default 1000). */
  maxIterations?: number;
  /**
   * L-BFGS stops once the estimated distance to the optimum (the Newton decrement in its Hessian
   * model, in units of standard error: every parameter within that many of its SEs) is below this.
   * Default 0.01. 0 turns it off (then `tolerance` or the gradient criterion stop the fit).
   */
  distanceTolerance?: number;
  /** Also stop when the loss falls by less than tolerance x |loss| over 5 iterations (default 0: off). */
  tolerance?: number;
  /**
   * The `tolerance` stop counts only once the estimated distance to the optimum is below this many
   * SEs (default: the family's `toleranceDistance`, else Infinity: always).
   */
  toleranceDistance?: number;
  priors?: Priors;
  /**
   * How the ability scale is pinned. 'standardize' (default for fleet fits of 3+ LLMs, except 1PL):
   * theta = (t - mean t) / sd t over the calibration LLMs. 'prior': the paper's theta ~ N(0, 1) term
   * alone, which in a joint MAP lets the scale drift against the slopes (BENCHMARKS.md). Scoring
   * with fixed items always uses the prior.
   */
  identification?: 'standardize' | 'prior';
  /** SD of the theta prior under 'prior' identification (default 1, the paper's N(0, 1)). */
  thetaSd?: number;
  /** Compute per-LLM standard errors of theta (default true). */
  standardErrors?: boolean;
  /**
   * How the SEs of a fleet fit are computed (scoring, fixItems, always uses 'fisher'). 'twin'
   * (default; soft option-level families, LLM-NRM and NRM, else 'quasi'): refit the model's own
   * predictions from the estimate (one more L-BFGS run from the fit's end, stopped at 0.1 SE) and
   * take max(prior term, TWIN_BIAS_SCALE b^2) as the bias term, b the twin's bias (fit/twinBias.ts).
   * 'quasi': thetaStandardErrors' 'quasi' SE alone. Coverage and cost: BENCHMARKS.md, "Cheap twin".
   */
  seMode?: SeMode;
  /** Warm start: a parameter vector of the same layout. */
  init?: Float64Array;
  /**
   * Hold item parameters and globals (w0, kappa) at their `init` values and fit only the per-LLM
   * parameters: scoring LLMs against a calibrated bank, held-out LLMs in cross-validation.
   */
  fixItems?: boolean;
  onProgress?: (p: OptimizeProgress & { phase: string }) => void;
  now?: () => number;
}

/** The outcome of a fit: the flat parameters, their layout, and diagnostics. */
export interface FitResult {
  model: ModelName;
  parts: LlmNrmParts;
  /** The family fitted (layout, forward model, curvature). */
  family: ModelFamily;
  layout: Layout;
  x: Float64Array;
  /**
   * Standard error of theta per LLM (`seMode`: by default 'twin', thetaStandardErrors' 'quasi' SE
   * with the twin's bias term: the MAP's mean squared error from the profiled expected information,
   * the responses' measured dispersion and the priors' and the fleet's bias; 'fisher' under
   * fixItems, as scoring's other modes; NaN where not computed; Infinity where theta is not
   * identified by the LLM's cells and the priors).
   */
  se: Float64Array;
  /** The SE mode that ran ('fisher' under fixItems; absent without SEs). */
  seMode?: SeMode | 'fisher';
  /** The twin's bias check where it ran (seMode 'twin'): its passes and seconds, and theta_twin - theta per LLM. */
  twin?: { passes: number; seconds: number; bias: Float64Array };
  loss: number;
  iterations: number;
  passes: number;
  seconds: number;
  converged: boolean;
  /** The criterion that stopped the fit ('distance', 'tolerance', 'gradient', 'max-iterations', 'steps', ...). */
  reason: string;
  /** Estimated distance to the optimum at the end, in standard errors (L-BFGS's Newton decrement; NaN for Adam). */
  distance: number;
  /** The optimizer that ran: 'lbfgs' or 'adam'. */
  optimizer: OptimizerName;
  /** Name of the engine that computed loss and gradient ('ts', 'tfjs', ...). */
  engine: string;
  trace: number[];
  /** Seconds and passes at each trace entry. */
  traceSeconds: number[];
  tracePasses: number[];
  /** The bank the objective saw (hardened for nrm-hard). */
  bank: ResponseBank;
  priors: Priors;
}

/** The engine's curvature for the SEs where it has one for this objective (e.g. engine-wasm's kernel). */
function seCurvature(engine: Engine, bank: ResponseBank, family: ModelFamily, priors: Priors, objective: Objective): { curvature?: CurvatureBuilder } {
  const c = engine.curvature?.(bank, family, priors, objective) ?? null;
  return c === null ? {} : { curvature: c };
}

/** Layout, objective and the bank it runs on for a model name (the 'ts' engine unless one is given). */
export function modelObjective(
  bank: ResponseBank,
  model: ModelName,
  parts: Partial<LlmNrmParts> = {},
  priors: Priors = {},
  engine?: Engine | string,
): { objective: Objective; bank: ResponseBank; parts: LlmNrmParts; family: ModelFamily } {
  const family = getFamily(model, parts);
  const fitBank = family.prepare(bank);
  return { objective: resolveEngine(engine).objective(fitBank, family, priors), bank: fitBank, parts: { ...family.parts }, family };
}

/**
 * A reasonable starting point for a family (theta from accuracy, items from choice rates): the
 * family, or a layout (its family read from the layout).
 */
export function initialParameters(bank: ResponseBank, familyOrLayout: ModelFamily | Layout): Float64Array {
  if ('start' in familyOrLayout) return familyOrLayout.start(bank, familyOrLayout.layout(bank));
  return familyOfLayout(familyOrLayout).start(bank, familyOrLayout);
}

/**
 * Fit a model to a bank by MAP (paper.md, "Fitting"): minimise the soft cross-entropy plus
 * theta ~ N(0, 1) (and weak priors, see Priors). The default L-BFGS reaches the loss of the paper's
 * Adam recipe in far fewer passes; `optimizer: 'adam'` runs the recipe itself.
 */
export function fit(bank: ResponseBank, options: FitOptions = {}): FitResult {
  const model = options.model ?? 'llm-nrm';
  const optimizer = options.optimizer ?? 'lbfgs';
  if (optimizer !== 'lbfgs' && optimizer !== 'adam') {
    throw new LlmNrmError('INVALID_OPTION', `unknown optimizer: ${JSON.stringify(optimizer)} (lbfgs or adam)`);
  }
  const priors = options.priors ?? {};
  const engine = resolveEngine(options.engine);
  const built = modelObjective(bank, model, options.parts, priors, engine);
  const { bank: fitBank, parts, family } = built;
  if (options.fixItems && !options.init) throw new LlmNrmError('INVALID_OPTION', 'fixItems needs init (the calibrated parameters)');
  const J = bank.models.length;
  const identification = options.identification ?? (!options.fixItems && J >= 3 ? family.fleetIdentification : 'prior');
  const frozen = options.fixItems ? freezeItems(built.objective) : built.objective;
  const thetaSd = identification === 'prior' ? (options.thetaSd ?? 1) : Infinity;
  const objective0 = identification === 'prior' && thetaSd !== 1 ? withThetaSd(frozen, thetaSd) : frozen;
  const objectiveT = identification === 'standardize' ? standardizeTheta(objective0) : objective0;
  // Sharpness's scale against the items' is pinned like theta's, by a constraint (the fleet's mean
  // log s is 0: fit/identification.ts centreSharpness) where the priors ask for it.
  const sOff =
    identification === 'standardize' && (priors.sharpnessCentre ?? DEFAULT_PRIORS.sharpnessCentre) === 'fleet'
      ? freeSharpnessOffset(family.sharpnessIndex, objective0)
      : null;
  const objective = sOff !== null ? centreSharpness(objectiveT, sOff) : objectiveT;
  // The optimiser's x holds raw theta (standardised) and raw log sharpness (centred): the model's values.
  const toModel = (x: Float64Array): Float64Array => {
    const m = identification === 'standardize' ? standardized(x, J) : x;
    return sOff !== null ? centredSharpness(m, sOff, J) : m;
  };
  const toRaw = (x: Float64Array): Float64Array => (sOff !== null ? rawSharpness(x, sOff, J) : x);
  const layout = objective.layout;
  let x0 = options.init ? Float64Array.from(options.init) : family.start(fitBank, layout);
  if (x0.length !== layout.size) throw new LlmNrmError('INVALID_OPTION', `init has ${x0.length} parameters, the model needs ${layout.size}`);
  x0 = toRaw(x0);
  const progress = options.onProgress ? (p: OptimizeProgress) => options.onProgress!({ ...p, phase: 'fit' }) : undefined;
  const common = {
    ...(progress ? { onProgress: progress } : {}),
    ...(options.now ? { now: options.now } : {}),
  };
  let res: OptimizeResult;
  // L-BFGS fleet fits: the twin's refit from the fit's end (its objective, preconditioner and memory).
  // keptBlocks: the twin runs on the fit's last blocks and needs no twin bank of its own (twinOf
  // is called only to build its blocks).
  let warmTwin: { keptBlocks: boolean; run(twinOf: () => ResponseBank, distanceTolerance: number): OptimizeResult } | null = null;
  if (optimizer === 'adam') {
    res = minimizeAdam(objective, x0, { ...common, steps: options.steps ?? 2500, lr: options.lr ?? 0.05 });
  } else {
    const pc0 = blockPreconditioner(fitBank, family, objective0, priors, { engine });
    // Standardised theta lives in x as raw t: the family reads the standardised values.
    const deg = family.degenerate;
    // Checked after every accepted step: toModel's standardised copy into one buffer, not a fresh
    // 371,000-entry array per iteration at paper scale (the same values; deg keeps no reference).
    const degX = identification === 'standardize' && deg !== null ? new Float64Array(layout.size) : null;
    const degModel = (x: Float64Array): Float64Array => {
      let m = x;
      if (degX !== null) {
        standardizeInto(x, J, degX);
        m = degX;
      }
      return sOff !== null ? centredSharpness(m, sOff, J) : m;
    };
    const degenerate = deg === null || options.fixItems ? null : (x: Float64Array) => deg(fitBank, layout, degModel(x));
    const refreshOf = (pc: BlockPreconditioner) => (identification === 'standardize' ? (x: Float64Array) => pc.refresh(toModel(x)) : pc.refresh);
    const lbfgs = (start: Float64Array, maxIterations = options.maxIterations ?? 1000, pc = pc0, more: OptimizeOptions = {}): OptimizeResult =>
      minimizeLbfgs(objective, start, {
        ...common,
        preconditioner: { apply: pc.apply, applyPair: pc.applyPair, refresh: refreshOf(pc) },
        refreshEvery: 10,
        ...(built.objective.lossNoise ? { lossNoise: built.objective.lossNoise } : {}),
        maxIterations,
        tolerance: options.tolerance ?? 0,
        distanceTolerance: options.distanceTolerance ?? DISTANCE_TOLERANCE,
        toleranceDistance: options.toleranceDistance ?? family.toleranceDistance ?? Infinity,
        decreaseStepFrom: DECREASE_STEP_FROM,
        ...(engine.vectors ? { vectors: engine.vectors } : {}),
        ...(degenerate ? { stop: degenerate } : {}),
        ...more,
      });
    res = lbfgs(x0, undefined, pc0);
    // The preconditioner whose blocks the run ended with (the twin's first; null after a gate restart's own).
    let lastPc: BlockPreconditioner | null = pc0;
    // A fit that ended in a known degenerate basin (LLM-NRM: the gate shut for every cell, or the
    // fallback dominating none) gets a second start from the family (given its end point in model
    // space, standardised thetas, and the bank); the lower loss wins.
    const atEnd = toModel(res.x);
    const again = options.fixItems ? null : family.restart(layout, atEnd, objective.free, fitBank, priors);
    if (again !== null) {
      // The full iteration budget: the gate prior (Priors.gateSd) turned the shut gate's plateau (w0
      // to -1,000 over 1,000 iterations on a 12 x 60 fleet, when this run was capped at the first's
      // length) into a local minimum, and `degenerate` still stops a drift where the prior is made flat.
      // Under the cap, restarts from short first runs (about 35 iterations) stopped unconverged.
      const second = lbfgs(
        toRaw(again),
        options.maxIterations ?? 1000,
        blockPreconditioner(fitBank, family, objective0, priors, { globalStepCap: GLOBAL_STEP_CAP, engine }),
      );
      const better = second.loss < res.loss;
      const { iterations, passes, seconds, trace, traceSeconds, tracePasses } = appendRun(res, second);
      res = { ...(better ? second : res), iterations, passes, seconds, trace, traceSeconds, tracePasses };
      if (better) res.reason = `${second.reason} (after a gate restart)`;
      lastPc = better ? null : pc0;
    }
    const fitRes = res;
    const endPc = lastPc;
    // seMode 'twin''s refit on this objective, retargeted to the twin bank's q (see below).
    const run = (twinOf: () => ResponseBank, distanceTolerance: number): OptimizeResult => {
      // The preconditioner: the fit's last blocks, kept for the whole twin (no refresh). Their
      // Gauss-Newton part Q (diag p - p p^T) reads the targets only through each cell's mass
      // Q = sum_k q_k, which the twin keeps (q is replaced by the model's p, mass 1, where the
      // bank's cells have mass 1: simulated and loaded banks alike); the gate-difficulty term
      // dL/db_i times the Hessian of b_i (core's families/llmNrm/curvature.ts GB, engine-wasm's
      // assembly/curvature.ts gbi) reads the residual Q p - q: the fit's at its optimum, 0 for the
      // twin at x0. So the blocks are not exactly the twin's; they only precondition, and the twin
      // moves from x0 only by its bias. Measured on six fleets (6 to 2,000 items, BENCHMARKS.md
      // "Cheap twin", 12 pairs): 153 passes, against 175 with a refresh of the twin's own blocks
      // every 10 iterations; the biases within 0.16 SE of a twin run to 0.001 SE (0.19 with the
      // refreshes). With 24 pairs (TWIN_MEMORY): 149 passes, within 0.17 SE.
      // After a gate restart that won (its blocks are not kept; two of the six fleets) the twin
      // refreshes its own blocks as a fit does.
      const pc = endPc ?? blockPreconditioner(twinOf(), family, objective0, priors, { engine });
      return lbfgs(fitRes.x, options.maxIterations ?? 1000, pc, {
        distanceTolerance,
        memory: TWIN_MEMORY,
        decreaseStepFrom: 0,
        ...(endPc !== null ? { refreshed: true, refreshEvery: Infinity } : {}),
        onProgress: options.onProgress ? (p) => options.onProgress!({ ...p, phase: 'twin' }) : undefined,
        ...(fitRes.lbfgsMemory ? { startMemory: fitRes.lbfgsMemory } : {}),
      });
    };
    warmTwin = { keptBlocks: endPc !== null, run };
  }
  x0 = toModel(res.x);
  const twinMode = options.standardErrors !== false && !options.fixItems && (options.seMode ?? 'twin') === 'twin' && family.optionLevel && !family.hardened;
  // SEs from each LLM's own block at the final point; under standardisation the scale is fixed by
  // the fleet, so no theta prior enters that block's information.
  const seParts =
    options.standardErrors === false
      ? null
      : thetaStandardErrors(family, fitBank, layout, x0, objective0.free, priors, identification === 'standardize' ? 0 : 1 / (thetaSd * thetaSd), {
          // Scoring (fixItems) keeps the Fisher SE: scoreResponses' few-item modes (scoreThetaAlone) give
          // one-dimensional Fisher SEs, and an LLM scored on 99 or 100 items must not change SE scale.
          profileItems: !options.fixItems,
          errorModel: options.fixItems ? 'fisher' : 'quasi',
          ...(twinMode ? { spread: 'measured' as const } : {}),
          ...seCurvature(engine, fitBank, family, priors, built.objective),
        });
  let se = seParts === null ? new Float64Array(J).fill(NaN) : seParts.se;
  // seMode 'twin' (fit/twinBias.ts): refit the model's own predictions from x0 and take
  // max(prior term, TWIN_BIAS_SCALE twin bias^2) as the bias term.
  let twin: FitResult['twin'];
  if (seParts !== null && twinMode) {
    const t0 = (options.now ?? Date.now)();
    // Stopped at 0.1 SE (TWIN_DISTANCE): at 100 x 200 (seed 200100) the twin's thetas then differ
    // from a run to the fit's 0.01 by at most 0.015 SE, in 33 passes instead of 54.
    let twinX: Float64Array;
    let twinPasses: number;
    const { retarget, retargetRows } = built.objective;
    if (warmTwin !== null && retarget !== undefined) {
      // From the fit's end: its objective retargeted to the twin's q (no new objective: engine-wasm
      // would copy q into its lanes and attach a kernel), its last preconditioner blocks and its
      // L-BFGS memory (the twin's Hessian at x0 is the fit's but for the residual terms). An engine
      // with its own copy of the targets (engine-wasm) takes them in blocks of rows, so that no
      // second q is held beside the bank's: at paper scale the twin's RSS is 863 MiB, 992 with a
      // whole twin bank (its q 138 MB; BENCHMARKS.md "The twin's memory and targets").
      const streamed = warmTwin.keptBlocks && retargetRows !== undefined;
      let tb: ResponseBank | null = null;
      const twinOf = (): ResponseBank => (tb ??= twinBank(fitBank, layout, x0));
      try {
        if (streamed) forEachTwinRows(fitBank, layout, x0, TWIN_ROWS, (q, firstRow) => retargetRows.call(built.objective, q, firstRow));
        else retarget.call(built.objective, twinOf().q);
        const tw = warmTwin.run(twinOf, TWIN_DISTANCE);
        twinX = toModel(tw.x);
        twinPasses = tw.passes;
      } finally {
        retarget.call(built.objective, fitBank.q);
      }
    } else {
      // Adam, engines without retarget: a whole fit of the twin bank from x0.
      const { seMode: _mode, onProgress: _p, ...rest } = options;
      const tw = fit(twinBank(fitBank, layout, x0), { ...rest, init: x0, standardErrors: false, distanceTolerance: TWIN_DISTANCE });
      twinX = tw.x;
      twinPasses = tw.passes;
    }
    se = twinBiasSe(seParts.se, seParts.priorVariance, x0.subarray(0, J), twinX.subarray(0, J), TWIN_BIAS_SCALE);
    twin = { passes: twinPasses, seconds: ((options.now ?? Date.now)() - t0) / 1000, bias: Float64Array.from(twinX.subarray(0, J), (t, j) => t - x0[j]!) };
  }
  const seMode: FitResult['seMode'] = seParts === null ? undefined : options.fixItems ? 'fisher' : twinMode ? 'twin' : 'quasi';
  return {
    model,
    parts,
    family,
    layout,
    x: x0,
    se,
    ...(seMode ? { seMode } : {}),
    ...(twin ? { twin } : {}),
    loss: res.loss,
    iterations: res.iterations,
    passes: res.passes,
    seconds: res.seconds,
    converged: res.converged,
    reason: res.reason,
    distance: res.distance ?? NaN,
    optimizer,
    engine: built.objective.engine ?? engine.name,
    trace: res.trace,
    traceSeconds: res.traceSeconds,
    tracePasses: res.tracePasses,
    bank: fitBank,
    priors,
  };
}

/**
 * Two runs as one: counts and traces of `second` appended to `first`'s; the rest (x, loss,
 * reason, ...) is `second`'s.
 */
function appendRun(first: OptimizeResult, second: OptimizeResult): OptimizeResult {
  const off = first.passes;
  const tOff = first.seconds;
  return {
    ...second,
    iterations: first.iterations + second.iterations,
    passes: off + second.passes,
    seconds: tOff + second.seconds,
    trace: [...first.trace, ...second.trace],
    traceSeconds: [...first.traceSeconds, ...second.traceSeconds.map((t) => t + tOff)],
    tracePasses: [...first.tracePasses, ...second.tracePasses.map((t) => t + off)],
  };
}

/** Item difficulties b_i of a fit (LLM-NRM: the gate's, guarded; binary: b = -beta / a). */
export function itemDifficulties(bank: ResponseBank, layout: Layout, x: Float64Array): Float64Array {
  return familyOfLayout(layout).difficulties(bank, layout, x);
}
