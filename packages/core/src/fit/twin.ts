import type { ResponseBank } from '../bank.js';
import { blockPreconditioner } from '../curvature.js';
import type { Restarted } from './gateRestart.js';
import type { FitProblem } from './identify.js';
import type { LbfgsRun } from './optimize.js';
import type { OptimizeProgress, OptimizeResult } from './optimizer.js';
import type { ThetaStandardErrors } from './standardErrors.js';
import { forEachTwinRows, TWIN_BIAS_SCALE, twinBank, twinBiasSe } from './twinBias.js';

/** The twin's stopping distance, in SEs (fit/twinBias.ts): its bias need not be finer than a tenth of an SE. */
const TWIN_DISTANCE = 0.1;

/**
 * The twin's L-BFGS memory (curvature pairs; the fit keeps 12 and hands them over). Its slow
 * direction is the strong LLMs' thetas with the hard items they share, which the block
 * preconditioner leaves out; more pairs carry more of it. Paper scale (189 x 31,554, wasm, 2
 * threads; BENCHMARKS.md "The twin's memory and targets"): 12 pairs 216 passes, 24 pairs 152, 40
 * pairs 141 but no faster and over 1 GB at the peak.
 */
const TWIN_MEMORY = 24;

/** LLM rows per block of the twin's targets handed to an engine's retargetRows (12 MB at paper scale). */
const TWIN_ROWS = 16;

/** The twin's bias check: its passes and seconds, and theta_twin - theta per LLM. */
export interface TwinCheck {
  passes: number;
  seconds: number;
  bias: Float64Array;
}

/** What `twinStandardErrors` needs beside the problem. */
export interface TwinOptions {
  /** The fit's L-BFGS runner (null after Adam: the twin is then a whole refit). */
  lbfgs: LbfgsRun | null;
  onProgress?: (p: OptimizeProgress & { phase: string }) => void;
  now?: () => number;
  /** A whole fit of `bank` from `init` (model space) to `distanceTolerance`: its thetas' point and passes. */
  refit(bank: ResponseBank, init: Float64Array, distanceTolerance: number): { x: Float64Array; passes: number };
}

/**
 * seMode 'twin' (fit/twinBias.ts): refit the model's own predictions from the fit's point x (model
 * space) and take max(prior term, TWIN_BIAS_SCALE b^2) as the bias term, b the twin's bias.
 * Stopped at 0.1 SE (TWIN_DISTANCE): at 100 x 200 (seed 200100) the twin's thetas then differ from a
 * run to the fit's 0.01 by at most 0.015 SE, in 33 passes instead of 54.
 */
export function twinStandardErrors(
  p: FitProblem,
  fitEnd: Restarted,
  x: Float64Array,
  seParts: ThetaStandardErrors,
  options: TwinOptions,
): { se: Float64Array; twin: TwinCheck } {
  const now = options.now ?? Date.now;
  const t0 = now();
  const { J, layout } = p;
  const { retarget, retargetRows } = p.base;
  let twinX: Float64Array;
  let twinPasses: number;
  if (options.lbfgs !== null && retarget !== undefined) {
    // From the fit's end: its objective retargeted to the twin's q (no new objective: engine-wasm
    // would copy q into its lanes and attach a kernel), its last preconditioner blocks and its
    // L-BFGS memory (the twin's Hessian at x is the fit's but for the residual terms). An engine
    // with its own copy of the targets (engine-wasm) takes them in blocks of rows, so that no
    // second q is held beside the bank's: at paper scale the twin's RSS is 863 MiB, 992 with a
    // whole twin bank (its q 138 MB; BENCHMARKS.md "The twin's memory and targets").
    const streamed = fitEnd.endPc !== null && retargetRows !== undefined;
    let tb: ResponseBank | null = null;
    const twinOf = (): ResponseBank => (tb ??= twinBank(p.bank, layout, x));
    try {
      if (streamed) forEachTwinRows(p.bank, layout, x, TWIN_ROWS, (q, firstRow) => retargetRows.call(p.base, q, firstRow));
      else retarget.call(p.base, twinOf().q);
      const tw = warmTwin(p, fitEnd, options.lbfgs, twinOf, options.onProgress);
      twinX = p.toModel(tw.x);
      twinPasses = tw.passes;
    } finally {
      retarget.call(p.base, p.bank.q);
    }
  } else {
    // Adam, engines without retarget: a whole fit of the twin bank from x.
    const tw = options.refit(twinBank(p.bank, layout, x), x, TWIN_DISTANCE);
    twinX = tw.x;
    twinPasses = tw.passes;
  }
  const se = twinBiasSe(seParts.se, seParts.priorVariance, x.subarray(0, J), twinX.subarray(0, J), TWIN_BIAS_SCALE);
  return { se, twin: { passes: twinPasses, seconds: (now() - t0) / 1000, bias: Float64Array.from(twinX.subarray(0, J), (t, j) => t - x[j]!) } };
}

/**
 * The twin's L-BFGS run from the fit's end on its (retargeted) objective. The preconditioner: the
 * fit's last blocks, kept for the whole twin (no refresh). Their Gauss-Newton part Q (diag p - p p^T)
 * reads the targets only through each cell's mass Q = sum_k q_k, which the twin keeps; the
 * gate-difficulty term dL/db_i times the Hessian of b_i (families/llmNrm/curvature.ts GB,
 * engine-wasm's assembly/curvature.ts gbi) reads the residual Q p - q: the fit's at its optimum, 0
 * for the twin at x. So the blocks only precondition, and the twin moves from x only by its bias.
 * Measured on six fleets (6 to 2,000 items, BENCHMARKS.md "Cheap twin"): 153 passes, against 175
 * with the twin's own blocks refreshed every 10 iterations, the biases as accurate. After a gate
 * restart that won (its blocks are not kept) the twin refreshes its own blocks as a fit does.
 */
function warmTwin(p: FitProblem, fitEnd: Restarted, run: LbfgsRun, twinOf: () => ResponseBank, onProgress: TwinOptions['onProgress']): OptimizeResult {
  const kept = fitEnd.endPc;
  const pc = kept ?? blockPreconditioner(twinOf(), p.family, p.priorObjective, p.priors, { engine: p.engine });
  return run(fitEnd.res.x, pc, {
    distanceTolerance: TWIN_DISTANCE,
    memory: TWIN_MEMORY,
    decreaseStepFrom: 0,
    ...(kept !== null ? { refreshed: true, refreshEvery: Infinity } : {}),
    onProgress: onProgress ? (q) => onProgress({ ...q, phase: 'twin' }) : undefined,
    ...(fitEnd.res.lbfgsMemory ? { startMemory: fitEnd.res.lbfgsMemory } : {}),
  });
}
