import { GLOBAL_STEP_CAP, blockPreconditioner, type BlockPreconditioner } from './blockPreconditioner.js';
import type { FitProblem } from './identify.js';
import type { Optimized } from './optimize.js';
import type { OptimizeResult } from './optimizer.js';

/** The fit's run after the gate restart, and the preconditioner whose blocks it ended with (null: none kept). */
export interface Restarted {
  res: OptimizeResult;
  endPc: BlockPreconditioner | null;
}

/**
 * A fleet fit that ended in a known degenerate basin (LLM-NRM: the gate shut for every cell, or the
 * fallback dominating none) gets a second start from the family (ModelFamily.restart, given its end
 * point in model space and the bank); the lower loss wins. Adam runs and scoring (fixItems) are
 * left as they are.
 */
export function gateRestart(p: FitProblem, optimized: Optimized): Restarted {
  const { res, lbfgs } = optimized;
  if (lbfgs === null) return { res, endPc: null };
  const again = p.fixItems ? null : p.family.restart(p.layout, p.toModel(res.x), p.objective.free, p.bank, p.priors);
  if (again === null) return { res, endPc: lbfgs.pc };
  // The full iteration budget: with the gate prior the shut gate's plateau is a local minimum, and
  // `degenerate` still stops a drift; restarts capped at short first runs stopped unconverged.
  const second = lbfgs.run(again, blockPreconditioner(p.bank, p.family, p.priorObjective, p.priors, { globalStepCap: GLOBAL_STEP_CAP, engine: p.engine }));
  const better = second.loss < res.loss;
  const { iterations, passes, seconds, trace, traceSeconds, tracePasses } = appendRun(res, second);
  const out = { ...(better ? second : res), iterations, passes, seconds, trace, traceSeconds, tracePasses };
  if (better) out.reason = `${second.reason} (after a gate restart)`;
  return { res: out, endPc: better ? null : lbfgs.pc };
}

/** Two runs as one: counts and traces of `second` appended to `first`'s; the rest (x, loss, reason, ...) is `second`'s. */
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
