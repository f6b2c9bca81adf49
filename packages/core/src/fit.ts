import { correctness, hardenBank, type ResponseBank } from './bank.js';
import { blockPreconditioner } from './curvature.js';
import { cholesky, cholSolve } from './internal/cholesky.js';
import { computeDifficulties } from './difficulty.js';
import { LlmNrmError } from './errors.js';
import {
  binaryLayout, llmNrmLayout, llmParamIndices, softplusInv, type Layout,
} from './layout.js';
import { binaryObjective, llmNrmObjective, type EvalScope, type Objective, type Priors } from './objective.js';
import { minimizeAdam, minimizeLbfgs, type OptimizeProgress, type OptimizeResult, type OptimizerName } from './optimize.js';
import type { LlmNrmParts, ModelName } from './types.js';

export interface FitOptions {
  /** Model family. Default 'llm-nrm'. */
  model?: ModelName;
  /** LLM-NRM parts (ablations); default all on. Ignored by other models. */
  parts?: Partial<LlmNrmParts>;
  /** 'lbfgs' (default: diagonal-preconditioned L-BFGS) or 'adam' (the paper's recipe). */
  optimizer?: OptimizerName;
  /** Adam steps (default 2500) and learning rate (default 0.05). */
  steps?: number;
  lr?: number;
  /** L-BFGS iteration cap (default 1000) and relative loss tolerance (default 1e-9). */
  maxIterations?: number;
  tolerance?: number;
  /** Stop once the loss reaches this value (benchmarks). */
  targetLoss?: number;
  priors?: Priors;
  /**
   * How the ability scale is pinned. 'standardize' (default for fleet fits of 3+ LLMs, except 1PL):
   * theta = (t - mean t) / sd t over the calibration LLMs, i.e. the fleet is N(0,1) by construction.
   * 'prior': the paper's literal theta ~ N(0,1) term in the joint MAP. In a joint MAP that prior
   * does not pin the scale: shrinking every theta by l and growing a (or s) by 1/l leaves the
   * likelihood unchanged and lowers the prior term, so the optimum drifts to small thetas and large
   * slopes, held only by the weak item ridge (measured: fitted thetas came out 1.85x too compressed
   * against the simulated truth). Scoring with fixed items always uses the prior.
   */
  identification?: 'standardize' | 'prior';
  /** SD of the theta prior under 'prior' identification (default 1, the paper's N(0, 1)). */
  thetaSd?: number;
  /** Compute per-LLM standard errors of theta (default true). */
  standardErrors?: boolean;
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
  layout: Layout;
  x: Float64Array;
  /** Standard error of theta per LLM (NaN where not computed). */
  se: Float64Array;
  loss: number;
  iterations: number;
  passes: number;
  seconds: number;
  converged: boolean;
  reason: string;
  optimizer: OptimizerName;
  engine: string;
  trace: number[];
  /** Seconds and passes at each trace entry. */
  traceSeconds: number[];
  tracePasses: number[];
  /** The bank the objective saw (hardened for nrm-hard). */
  bank: ResponseBank;
  priors: Priors;
}

export const ALL_PARTS: LlmNrmParts = { sharpness: true, position: true, fallback: true };
export const NO_PARTS: LlmNrmParts = { sharpness: false, position: false, fallback: false };

/** Layout, objective and the bank it runs on for a model name. */
export function modelObjective(
  bank: ResponseBank,
  model: ModelName,
  parts: Partial<LlmNrmParts> = {},
  priors: Priors = {},
): { objective: Objective; bank: ResponseBank; parts: LlmNrmParts; y?: Uint8Array } {
  switch (model) {
    case 'llm-nrm': {
      const p = { ...ALL_PARTS, ...parts };
      return { objective: llmNrmObjective(bank, llmNrmLayout(bank, p), priors), bank, parts: p };
    }
    case 'nrm':
      return { objective: llmNrmObjective(bank, llmNrmLayout(bank, NO_PARTS), priors), bank, parts: { ...NO_PARTS } };
    case 'nrm-hard': {
      const hb = hardenBank(bank);
      return { objective: llmNrmObjective(hb, llmNrmLayout(hb, NO_PARTS), priors), bank: hb, parts: { ...NO_PARTS } };
    }
    case '1pl':
    case '2pl':
    case '3pl':
    case '4pl': {
      const pl = Number(model[0]) as 1 | 2 | 3 | 4;
      const y = correctness(bank);
      return { objective: binaryObjective(bank, binaryLayout(bank, pl), y, priors), bank, parts: { ...NO_PARTS }, y };
    }
    default:
      throw new LlmNrmError('INVALID_OPTION', `unknown model: ${JSON.stringify(model)} (one of llm-nrm, nrm, nrm-hard, 1pl, 2pl, 3pl, 4pl)`);
  }
}

/**
 * The same objective with every non-LLM parameter (items, globals) held fixed: their gradient is
 * zeroed, and the item prior is left out of the loss since it is constant.
 */
export function freezeItems(inner: Objective): Objective {
  const layout = inner.layout;
  const free = new Uint8Array(inner.free.length);
  for (let j = 0; j < layout.nModels; j++) for (const t of llmParamIndices(layout, j)) free[t] = inner.free[t]!;
  return {
    layout,
    free,
    lossAndGrad(x, g, scope = {}) {
      const f = inner.lossAndGrad(x, g, { ...scope, itemPrior: false });
      for (let t = 0; t < g.length; t++) if (free[t] === 0) g[t] = 0;
      return f;
    },
  };
}

/** The objective with theta ~ N(0, sd^2) in place of N(0, 1). */
export function withThetaSd(inner: Objective, sd: number): Objective {
  const J = inner.layout.nModels;
  const lam = 1 / (sd * sd);
  return {
    layout: inner.layout,
    free: inner.free,
    lossAndGrad(x, g, scope = {}) {
      let f = inner.lossAndGrad(x, g, { ...scope, thetaPrior: false });
      if (scope.thetaPrior === false) return f;
      for (let j = scope.rowStart ?? 0; j < (scope.rowEnd ?? J); j++) {
        f += 0.5 * lam * x[j]! * x[j]!;
        if (inner.free[j]) g[j]! += lam * x[j]!;
      }
      return f;
    },
  };
}

/** Copy of x with theta (the first J entries) standardised to mean 0, sd 1. */
export function standardized(x: Float64Array, J: number): Float64Array {
  const out = Float64Array.from(x);
  let m = 0;
  for (let j = 0; j < J; j++) m += x[j]! / J;
  let v = 0;
  for (let j = 0; j < J; j++) v += (x[j]! - m) ** 2 / J;
  const sd = Math.sqrt(v) || 1;
  for (let j = 0; j < J; j++) out[j] = (x[j]! - m) / sd;
  return out;
}

/**
 * Reparametrise theta = (t - mean t) / sd t (theta occupies x[0..J) in every layout) and drop the
 * N(0,1) prior term: the objective in t, with the gradient by the chain rule
 * dL/dt_j = (g_j - mean g - theta_j mean(g theta)) / sd.
 */
export function standardizeTheta(inner: Objective): Objective {
  const J = inner.layout.nModels;
  return {
    layout: inner.layout,
    free: inner.free,
    lossAndGrad(x, g, scope = {}) {
      const xs = standardized(x, J);
      const f = inner.lossAndGrad(xs, g, { ...scope, thetaPrior: false });
      let m = 0;
      for (let j = 0; j < J; j++) m += x[j]! / J;
      let v = 0;
      for (let j = 0; j < J; j++) v += (x[j]! - m) ** 2 / J;
      const sd = Math.sqrt(v) || 1;
      let mg = 0;
      let mgy = 0;
      for (let j = 0; j < J; j++) {
        mg += g[j]! / J;
        mgy += (g[j]! * xs[j]!) / J;
      }
      for (let j = 0; j < J; j++) g[j] = inner.free[j] ? (g[j]! - mg - xs[j]! * mgy) / sd : 0;
      return f;
    },
  };
}

/** Per-LLM mean probability on the key and per-item/option mean probability (observed cells only). */
function bankMeans(bank: ResponseBank): { acc: Float64Array; pbar: Float64Array; nItem: Float64Array; nModel: Float64Array } {
  const J = bank.models.length;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  const sumK = bank.itemOffsets[bank.items.length]!;
  const acc = new Float64Array(J);
  const nModel = new Float64Array(J);
  const pbar = new Float64Array(sumK);
  const nItem = new Float64Array(bank.items.length);
  for (let j = 0; j < J; j++) {
    for (let c = 0; c < nC; c++) {
      if (!bank.observed[j * nC + c]) continue;
      const i = bank.colItem[c]!;
      const qo = j * width + bank.colOffsets[c]!;
      const io = bank.itemOffsets[i]!;
      const K = bank.itemOffsets[i + 1]! - io;
      for (let k = 0; k < K; k++) pbar[io + k]! += bank.q[qo + k]!;
      acc[j]! += bank.q[qo + bank.key[i]!]!;
      nModel[j]!++;
      nItem[i]!++;
    }
  }
  for (let j = 0; j < J; j++) acc[j] = nModel[j]! > 0 ? acc[j]! / nModel[j]! : 0.5;
  for (let i = 0; i < bank.items.length; i++) {
    const io = bank.itemOffsets[i]!;
    const K = bank.itemOffsets[i + 1]! - io;
    for (let k = 0; k < K; k++) pbar[io + k] = nItem[i]! > 0 ? pbar[io + k]! / nItem[i]! : 1 / K;
  }
  return { acc, pbar, nItem, nModel };
}

/** Standardised logit of each LLM's mean key probability: a starting theta on the N(0,1) scale. */
function initialTheta(acc: Float64Array): Float64Array {
  const J = acc.length;
  const t = new Float64Array(J);
  let mean = 0;
  for (let j = 0; j < J; j++) {
    const p = Math.min(0.995, Math.max(0.005, acc[j]!));
    t[j] = Math.log(p / (1 - p));
    mean += t[j]! / J;
  }
  let v = 0;
  for (let j = 0; j < J; j++) v += (t[j]! - mean) ** 2 / J;
  const sd = Math.sqrt(v);
  for (let j = 0; j < J; j++) t[j] = sd > 1e-9 ? (t[j]! - mean) / sd : 0;
  return t;
}

/** A reasonable starting point: theta from accuracy, c from log mean choice rates, a from covariances. */
export function initialParameters(bank: ResponseBank, layout: Layout): Float64Array {
  const x = new Float64Array(layout.size);
  const { acc, pbar } = bankMeans(bank);
  const theta = initialTheta(acc);
  x.set(theta, layout.theta);
  const J = bank.models.length;
  const nC = bank.colItem.length;
  const width = bank.colOffsets[nC]!;
  if (layout.kind === 'llm-nrm') {
    const sumK = layout.sumK;
    for (let j = 0; j < J; j++) x[layout.sbar + j] = softplusInv(1);
    // a_ik: one GLM-like step, cov_j(theta_j, q_jik) / (pbar (1 - pbar)), clipped.
    const cov = new Float64Array(sumK);
    const cnt = new Float64Array(sumK);
    for (let j = 0; j < J; j++) {
      for (let c = 0; c < nC; c++) {
        if (!bank.observed[j * nC + c]) continue;
        const i = bank.colItem[c]!;
        const qo = j * width + bank.colOffsets[c]!;
        const io = bank.itemOffsets[i]!;
        const K = bank.itemOffsets[i + 1]! - io;
        for (let k = 0; k < K; k++) {
          cov[io + k]! += theta[j]! * (bank.q[qo + k]! - pbar[io + k]!);
          cnt[io + k]!++;
        }
      }
    }
    for (let i = 0; i < bank.items.length; i++) {
      const io = bank.itemOffsets[i]!;
      const K = bank.itemOffsets[i + 1]! - io;
      let ma = 0;
      let mc = 0;
      for (let k = 0; k < K; k++) {
        const p = pbar[io + k]!;
        const a = cnt[io + k]! > 0 ? cov[io + k]! / cnt[io + k]! / (p * (1 - p) + 0.05) : 0;
        x[layout.a + io + k] = Math.max(-3, Math.min(3, a));
        x[layout.c + io + k] = Math.log(p + 1e-3);
        ma += x[layout.a + io + k]! / K;
        mc += x[layout.c + io + k]! / K;
      }
      for (let k = 0; k < K; k++) {
        x[layout.a + io + k]! -= ma;
        x[layout.c + io + k]! -= mc;
      }
    }
    x[layout.w0] = layout.parts.fallback ? -2 : 0;
    x[layout.kbar] = softplusInv(1);
  } else {
    const I = bank.items.length;
    const y = correctness(bank);
    const pc = new Float64Array(I);
    const n = new Float64Array(I);
    for (let j = 0; j < J; j++) {
      for (let c = 0; c < nC; c++) {
        const yy = y[j * nC + c]!;
        if (yy === 255) continue;
        pc[bank.colItem[c]!]! += yy;
        n[bank.colItem[c]!]!++;
      }
    }
    for (let i = 0; i < I; i++) {
      const p = Math.min(0.98, Math.max(0.02, n[i]! > 0 ? pc[i]! / n[i]! : 0.5));
      x[layout.slope + i] = 1;
      x[layout.intercept + i] = Math.log(p / (1 - p));
      x[layout.guess + i] = layout.pl >= 3 ? -2 : 0;
      x[layout.slip + i] = layout.pl >= 4 ? -3 : 0;
    }
  }
  return x;
}

/**
 * Diagonal curvature estimate for L-BFGS's initial inverse Hessian: each parameter's Fisher
 * information scales with the number of cells it touches (Bernoulli/softmax variance about 1/4 per
 * cell and option), so items (few LLMs each) and LLMs (many items each) get their own scales.
 */
export function curvatureDiagonal(bank: ResponseBank, layout: Layout, obj: Objective): Float64Array {
  const d = new Float64Array(layout.size).fill(1);
  const { nItem, nModel } = bankMeans(bank);
  const J = bank.models.length;
  let total = 0;
  for (let j = 0; j < J; j++) total += nModel[j]!;
  if (layout.kind === 'llm-nrm') {
    const kMean = Math.max(2, layout.sumK / Math.max(1, layout.nItems));
    for (let j = 0; j < J; j++) {
      const n = nModel[j]!;
      d[layout.theta + j] = 0.25 * n + 1;
      d[layout.sbar + j] = 0.25 * n + 1;
      for (let k = 0; k < layout.kMax; k++) {
        d[layout.delta + j * layout.kMax + k] = (0.25 * n) / kMean + 1;
        d[layout.rho + j * layout.kMax + k] = (0.05 * n) / kMean + 1;
      }
    }
    for (let i = 0; i < layout.nItems; i++) {
      const io = bank.itemOffsets[i]!;
      const K = bank.itemOffsets[i + 1]! - io;
      for (let k = 0; k < K; k++) {
        d[layout.a + io + k] = (0.25 * nItem[i]!) / K + 0.01;
        d[layout.c + io + k] = (0.25 * nItem[i]!) / K + 0.01;
      }
    }
    d[layout.w0] = 0.05 * total + 1;
    d[layout.kbar] = 0.05 * total + 1;
  } else {
    for (let j = 0; j < J; j++) d[layout.theta + j] = 0.2 * nModel[j]! + 1;
    for (let i = 0; i < layout.nItems; i++) {
      d[layout.slope + i] = 0.2 * nItem[i]! + 0.01;
      d[layout.intercept + i] = 0.2 * nItem[i]! + 0.01;
      d[layout.guess + i] = 0.05 * nItem[i]! + 0.01;
      d[layout.slip + i] = 0.05 * nItem[i]! + 0.01;
    }
  }
  for (let t = 0; t < d.length; t++) if (!obj.free[t]) d[t] = 1;
  return d;
}

/**
 * Fit a model to a bank by MAP (paper.md, "Fitting"): minimise the soft cross-entropy plus
 * theta ~ N(0, 1) (and weak priors, see Priors). The default L-BFGS reaches the loss of the paper's
 * Adam recipe in far fewer passes; `optimizer: 'adam'` runs the recipe itself.
 */
export function fit(bank: ResponseBank, options: FitOptions = {}): FitResult {
  const model = options.model ?? 'llm-nrm';
  const optimizer = options.optimizer ?? 'lbfgs';
  const priors = options.priors ?? {};
  const built = modelObjective(bank, model, options.parts, priors);
  const { bank: fitBank, parts } = built;
  if (options.fixItems && !options.init) throw new LlmNrmError('INVALID_OPTION', 'fixItems needs init (the calibrated parameters)');
  const J = bank.models.length;
  const identification = options.identification ?? (!options.fixItems && J >= 3 && model !== '1pl' ? 'standardize' : 'prior');
  const frozen = options.fixItems ? freezeItems(built.objective) : built.objective;
  const objective0 = identification === 'prior' && options.thetaSd !== undefined && options.thetaSd !== 1 ? withThetaSd(frozen, options.thetaSd) : frozen;
  const objective = identification === 'standardize' ? standardizeTheta(objective0) : objective0;
  const layout = objective.layout;
  let x0 = options.init ? Float64Array.from(options.init) : initialParameters(fitBank, layout);
  if (x0.length !== layout.size) throw new LlmNrmError('INVALID_OPTION', `init has ${x0.length} parameters, the model needs ${layout.size}`);
  const progress = options.onProgress ? (p: OptimizeProgress) => options.onProgress!({ ...p, phase: 'fit' }) : undefined;
  const common = {
    ...(options.targetLoss !== undefined ? { targetLoss: options.targetLoss } : {}),
    ...(progress ? { onProgress: progress } : {}),
    ...(options.now ? { now: options.now } : {}),
  };
  let res: OptimizeResult;
  if (optimizer === 'adam') {
    res = minimizeAdam(objective, x0, { ...common, steps: options.steps ?? 2500, lr: options.lr ?? 0.05 });
  } else if (optimizer === 'lbfgs') {
    const pc = blockPreconditioner(fitBank, objective0, priors, built.y);
    res = minimizeLbfgs(objective, x0, {
      ...common,
      preconditioner: identification === 'standardize' ? { apply: pc.apply, refresh: (x) => pc.refresh(standardized(x, J)) } : pc,
      refreshEvery: 10,
      maxIterations: options.maxIterations ?? 1000,
      tolerance: options.tolerance ?? 1e-9,
    });
  } else {
    throw new LlmNrmError('INVALID_OPTION', `unknown optimizer: ${JSON.stringify(optimizer)} (lbfgs or adam)`);
  }
  x0 = identification === 'standardize' ? standardized(res.x, J) : res.x;
  // SEs from each LLM's own block at the final point; under standardisation the scale is fixed by
  // the fleet, so the N(0,1) term is left out of that block's curvature.
  const se = options.standardErrors === false
    ? new Float64Array(J).fill(NaN)
    : thetaStandardErrors(objective0, x0, undefined, identification === 'standardize' ? { thetaPrior: false } : {});
  return {
    model, parts, layout, x: x0, se, loss: res.loss, iterations: res.iterations, passes: res.passes,
    seconds: res.seconds, converged: res.converged, reason: res.reason, optimizer, engine: 'typescript-fused',
    trace: res.trace, traceSeconds: res.traceSeconds, tracePasses: res.tracePasses, bank: fitBank, priors,
  };
}

/**
 * Standard error of theta_j from the observed information of LLM j's own block (theta, sharpness,
 * bias, fallback) with item parameters held fixed: the Hessian by forward differences of the
 * analytic gradient over that LLM's row only, inverted; se = sqrt([H^-1]_theta,theta).
 */
export function thetaStandardErrors(obj: Objective, x: Float64Array, rows?: number[], extraScope: EvalScope = {}): Float64Array {
  const layout = obj.layout;
  const J = layout.nModels;
  const se = new Float64Array(J).fill(NaN);
  const g0 = new Float64Array(layout.size);
  const g1 = new Float64Array(layout.size);
  const xx = Float64Array.from(x);
  for (const j of rows ?? Array.from({ length: J }, (_, t) => t)) {
    const idx = llmParamIndices(layout, j).filter((t) => obj.free[t]);
    const P = idx.length;
    const scope = { ...extraScope, rowStart: j, rowEnd: j + 1, itemPrior: false };
    obj.lossAndGrad(xx, g0, scope);
    const H = new Float64Array(P * P);
    for (let p = 0; p < P; p++) {
      const t = idx[p]!;
      const h = 1e-5 * Math.max(1, Math.abs(xx[t]!));
      const old = xx[t]!;
      xx[t] = old + h;
      obj.lossAndGrad(xx, g1, scope);
      xx[t] = old;
      for (let r = 0; r < P; r++) H[r * P + p] = (g1[idx[r]!]! - g0[idx[r]!]!) / h;
    }
    for (let r = 0; r < P; r++) for (let c = r + 1; c < P; c++) {
      const m = 0.5 * (H[r * P + c]! + H[c * P + r]!);
      H[r * P + c] = m;
      H[c * P + r] = m;
    }
    const inv00 = inverseFirstDiagonal(H, P);
    se[j] = inv00 > 0 ? Math.sqrt(inv00) : NaN;
  }
  return se;
}

/**
 * [H^-1]_00 of a symmetric P x P matrix by Cholesky (a shifted factor if H is not positive
 * definite, so the value stays finite): solve H y = e_0 and read y_0.
 */
export function inverseFirstDiagonal(H: Float64Array, P: number): number {
  const L = cholesky(H, P);
  const y = new Float64Array(P);
  y[0] = 1;
  cholSolve(L, P, y);
  return y[0]!;
}

/** Item difficulties b_i of an LLM-NRM layout (the gate's, guarded) or binary b = -beta / a. */
export function itemDifficulties(bank: ResponseBank, layout: Layout, x: Float64Array): Float64Array {
  const I = bank.items.length;
  const b = new Float64Array(I);
  if (layout.kind === 'llm-nrm') {
    computeDifficulties(bank, x, layout.a, layout.c, b, new Float64Array(3 * I), new Float64Array(layout.sumK));
  } else {
    for (let i = 0; i < I; i++) {
      const a = layout.pl >= 2 ? x[layout.slope + i]! : 1;
      b[i] = -x[layout.intercept + i]! / (Math.abs(a) > 1e-9 ? a : 1e-9);
    }
  }
  return b;
}

